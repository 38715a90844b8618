"""Mutation testing of the pure layers: plant one small fault at a time and see whether the tests notice.

    python benchmarks/mutate.py rules --jobs 2       # a sample of 150 of the rules module's mutants
    python benchmarks/mutate.py rules --max 0        # every mutant of the rules module
    python benchmarks/mutate.py validate --max 60 --seed 3
    python benchmarks/mutate.py --planted --jobs 2   # the hand-written faults of PLANTED (see below)

Each mutant changes one operator or constant in a copy of the project (`<` to `<=`, `+` to `-`, `and`
to `or`, `not x` to `x`, an int n to n + 1, True to False, `+=` to `-=`, ...; docstrings, messages and
type annotations are left alone), then runs that module's fast test files there with `pytest -x` and
a timeout (`--jobs` copies of the project test mutants side by side). A mutant is killed when a test
fails (or the run times out); it survives when every test passes. The script prints each survivor
(file:line, the original and the mutated code) and the kill rate per module. A survivor is either a
missing test or an equivalent mutant (one that cannot change behaviour): kill the first with a test,
explain the second in EQUIVALENT below (the script prints the reason next to it and a second rate
without them). The working tree is never modified.

`--planted` runs PLANTED instead: faults written by hand as source patches (one text replaced by
another), each a mistake the tests must notice: analyze's sums (an inferred keep's regret left out
of the loss, a total kept as the last game's), the library's month file, problem codes stamped on the
wrong kind of turn, the cache cleaning what it must keep, player names matched two ways, a damaged
line named by another line. Each is planted alone in a copy of the last commit (`git archive HEAD`:
the edits in progress in the working tree are not tested), its test files run with `pytest -x`, and
the copy restored in a `finally`. Every one must be killed: the script exits 1 when one survives.
"""

from __future__ import annotations

import argparse
import ast
import os
import queue
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Fault:
    """A fault planted by hand: in yahtzee_cli/`source`, the text `old` (the first one after `after`
    when given, else the only one) becomes `new`; `tests` (file names under tests/, run with -x and
    the -k expression `skip` when given) must then fail."""

    area: str
    name: str
    source: str
    old: str
    new: str
    tests: tuple[str, ...]
    after: str = ""
    skip: str = ""

    def plant(self, text: str) -> str:
        start = 0
        if self.after:
            start = text.find(self.after)
            if start < 0:
                raise SystemExit(f"{self.source}: no {self.after!r} to plant {self.name!r} after; update PLANTED")
        elif text.count(self.old) != 1:
            raise SystemExit(f"{self.source}: {self.old!r} occurs {text.count(self.old)} times; update PLANTED")
        at = text.find(self.old, start)
        if at < 0:
            raise SystemExit(f"{self.source}: no {self.old!r} to plant {self.name!r}; update PLANTED")
        return text[:at] + self.new + text[at + len(self.old):]


_SUMS = ("test_sums.py",)
_NAMES = ("test_players.py",)
_CODES = ("test_problem_codes.py",)
_CACHE = ("test_cache.py", "test_cache_lock_race.py")
_NO_SOLVE = "not installed_command"  # (that one builds a table with the installed command)
_FAST_SUMS = "not compiled_grading"  # (the compiled kernel's test compiles it: 20 s a copy, the same sums)
PLANTED: tuple[Fault, ...] = (
    Fault("analyze", "an inferred keep's regret left out of the loss", "play/analyze.py",
          "        self.loss += d.regret\n", "        self.loss += 0.0 if d.inferred else d.regret\n", _SUMS,
          skip=_FAST_SUMS),
    Fault("analyze", "a decision's luck taken from the move made, not the best", "play/analyze.py",
          "lk = d.best.value - self.end", "lk = d.made.value - self.end", _SUMS, skip=_FAST_SUMS),
    Fault("analyze", "the totals' expected start kept as the last game's", "play/analyze.py",
          "        self.start += other.start\n", "        self.start = other.start\n", _SUMS, skip=_FAST_SUMS),
    Fault("analyze", "the totals' inferred keeps kept as the last game's", "play/analyze.py",
          "        self.inferred += other.inferred\n", "        self.inferred = other.inferred\n", _SUMS,
          skip=_FAST_SUMS),
    Fault("analyze", "expected_start_per_game the total", "play/analyze.py",
          'out["expected_start_per_game"] = _r(p.start / n)', 'out["expected_start_per_game"] = _r(p.start)', _SUMS,
          skip=_FAST_SUMS),
    Fault("analyze", "the worst decisions kept are the mildest", "play/analyze.py",
          "elif item[:2] > self._heap[0][:2]:", "elif item[:2] < self._heap[0][:2]:", _SUMS, skip=_FAST_SUMS),
    Fault("library", "a new game written into the newest month file there is", "play/library.py",
          "    return month_file(folder)\n", "    return current_file(folder)\n", ("test_library_month.py",),
          after="def new_game_file("),
    Fault("library", "the month file named by the day", "play/library.py",
          'f"games-{when:%Y-%m}.ndjson"', 'f"games-{when:%Y-%d}.ndjson"', ("test_library_month.py",)),
    Fault("codes", "a bonus claimed on a passed turn stamped wrong-score", "formats/validate.py",
          "ProblemCode.WRONG_BONUS)", "ProblemCode.WRONG_SCORE)", _CODES,
          after="but a passed turn earns nothing"),
    Fault("codes", "a wrong score on a written turn stamped invalid-value", "formats/validate.py",
          'f"{keys[bi]}{joker}", ProblemCode.WRONG_SCORE)', 'f"{keys[bi]}{joker}", ProblemCode.INVALID_VALUE)',
          _CODES),
    Fault("codes", "the claims of an illegal move checked", "formats/validate.py",
          "if check_claims and illegal is None:", "if check_claims:", _CODES),
    Fault("codes", "a filled box in a column stamped box-filled", "formats/validate.py",
          "ProblemCode.BOX_FILLED_IN_COLUMN if ncols > 1 else ProblemCode.BOX_FILLED", "ProblemCode.BOX_FILLED",
          _CODES),
    Fault("codes", "a column on a one-column sheet stamped column-out-of-range", "formats/validate.py",
          "ProblemCode.COLUMN_OUT_OF_RANGE if ncols > 1 else ProblemCode.INVALID_VALUE",
          "ProblemCode.COLUMN_OUT_OF_RANGE", _CODES),
    Fault("codes", "an illegal pass filed under the turn, not its box", "formats/validate.py",
          'problem(f"/turns/{t}/box", illegal, code)', 'problem(f"/turns/{t}", illegal, code)', _CODES,
          after="code = ProblemCode.PASS_WHILE_SCORING"),
    Fault("codes", "one problem too many before too-many-problems", "formats/validate.py",
          "if len(problems) >= MAX_PROBLEMS:", "if len(problems) > MAX_PROBLEMS:", _CODES),
    Fault("cache", "clean removes files that are not the toolbox's", "store/listing.py",
          ' and not e.in_use and e.kind != "other"]', " and not e.in_use]", _CACHE, skip=_NO_SOLVE),
    Fault("cache", "clean removes a lock a running process holds", "store/listing.py",
          'e.part in chosen and not e.in_use and', "e.part in chosen and", _CACHE, skip=_NO_SOLVE),
    Fault("cache", "a dry run removes", "store/listing.py",
          "            gone.append(e)\n            continue\n", "            gone.append(e)\n", _CACHE,
          after="if dry_run:", skip=_NO_SOLVE),
    Fault("cache", "a held lock unlinked anyway", "store/listing.py",
          "        except OSError:\n            return False\n", "        except OSError:\n            pass\n",
          _CACHE, after="fcntl.flock(fd", skip=_NO_SOLVE),
    Fault("names", "analyze's totals keyed by the spelling", "play/analyze.py",
          "name, key = self.names.add(p.name)", "name, key = p.name, p.name", _NAMES),
    Fault("names", "replay's tallies keyed by the spelling", "formats/tallies.py",
          "            name, who = self.names.add(raw)\n", "            name, who = raw, raw\n", _NAMES),
    Fault("names", "--player matched by case folding alone", "formats/stats.py",
          "asked = {player_key(p): p for p in players}", "asked = {p.casefold(): p for p in players}", _NAMES),
    Fault("names", "composed and decomposed accents told apart", "formats/players.py",
          '    folded = unicodedata.normalize("NFD", name).casefold()\n', "    folded = name.casefold()\n"
          '    return " ".join(folded.split())\n', _NAMES),
    Fault("names", "spacing counted", "formats/players.py",
          'return " ".join(name.casefold().split())', "return name.casefold()", _NAMES),
    Fault("stats", "an unfinished game's players not noted", "formats/stats.py",
          "            self._not_counted(rules, players, False)\n", "", _NAMES),
    Fault("stats", "head to head: a tie counted as a win", "formats/stats.py",
          "                if ti > tj:\n", "                if ti >= tj:\n", ("test_stats.py",),
          skip="stats_of_a_library_played_through_log"),
    Fault("decode", "a damaged NDJSON line named by the line after it", "text.py",
          "    if line > last:\n", "    if line > last + 1:\n", ("test_decode_errors.py",)),
)

@dataclass(frozen=True)
class Target:
    sources: tuple[str, ...]  # where the module lives (the first that exists), relative to yahtzee_cli/
    tests: tuple[str, ...]  # test files by name, wherever they sit under tests/ (run in this order, -x)
    skip: str = ""  # pytest -k expression leaving out the slow tests (whole games, table builds)
    sample: int = 40  # mutants per run unless --max says otherwise


TARGETS: dict[str, Target] = {
    "rules": Target(("rules.py", "rules/engine.py"),
                    ("test_rules.py", "test_rules_coverage.py", "test_rules_edges.py", "test_replay.py",
                     "test_validate.py"),
                    "not top_to_bottom and not random_play", 150),
    "validate": Target(("validate.py", "formats/validate.py"), ("test_validate.py", "test_replay.py"), sample=60),
    "logs": Target(("logs.py", "formats/logs.py"), ("test_logs.py", "test_validate.py")),
    "replay": Target(("replay.py", "formats/replay.py"), ("test_replay.py",)),
    "position": Target(("position.py", "strategy/turn.py"), ("test_hint.py", "test_quality.py"), sample=30),
}

# Survivors that cannot change behaviour, by (module, the source line stripped, original, mutated): why.
EQUIVALENT: dict[tuple[str, str, str, str], str] = {
    ("rules", "c = [0] * 7", "7", "8"):
        "one slot per face 1-6 (slot 0 unused): an eighth slot is never read",
    ("rules", "best = max(best, sum(f * s for f, s in zip(faces, sizes, strict=True)))", "True", "False"):
        "faces comes from permutations(candidates, len(sizes)): it always has as many items as sizes",
    ("rules", 'model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)', "True", "False"):
        "defer_build only moves when the validators are built (the frozen one, same text, is killed)",
    ("rules", "extra_yahtzee_bonus: int = Field(100, ge=0, le=200, multiple_of=25)", "200", "201"):
        "with multiple_of=25 the values up to 200 and up to 201 are the same",
    ("rules", "legal = legal_bits(open_, fill, False, 0, rules.lower_bits)", "0", "1"):
        "the own-box bit only matters under a forced joker, and this call passes forced=False",
    ("rules", 'JOKER_CODES: dict[str, int] = {"off": 0, "forced": 1, "free": 2}', "1", "2"):
        "the forced code is only compared with JOKER_CODES['forced'] (FORCED in the kernels), never with 1",
    ("rules", 'JOKER_CODES: dict[str, int] = {"off": 0, "forced": 1, "free": 2}', "2", "3"):
        "the free code is only told apart from 0 and from the forced code",
    ("rules", 'run = "-".join(str(f) for f in range(self.start, self.start + (self.length or 0)))', "0", "1"):
        "a straight always has a length (the box check requires one), so `or 0` never applies",
    ("rules", "best = -1", "1", "2"):
        "best only marks 'no grouping found' for `best < 0`; a grouping found sums to at least 1 + 2 = 3",
    ("rules", "if best < 0:", "0", "1"):
        "best is -1 (no grouping) or a sum of at least 3, so `< 1` splits them as `< 0` does",
    ("rules", "starts = [box.start] if box.start is not None else range(1, 8 - length)", "8 - length",
     "8 + length"):
        "the extra starts run past 6 and `s + length <= 7` on the next line drops them before a die is counted",
    ("rules", "return [points if len(dice) and c[dice[0]] == len(dice) else 0 for dice, c in rolls_]", "0", "1"):
        "dice[0] -> dice[1]: a roll has 5 or 6 dice, all alike exactly when the first face's count or the "
        "second's is all of them (`else 0 -> 1`, same label, is killed)",
    ("rules", "column = sum(max(b.points or 0, most) + s.extra_yahtzee_bonus for b in self.boxes) + s.upper_bonus",
     "0", "1"):
        "`b.points or 1` only meets 6 x dice >= 30 in the max, which 1 never beats",
    ("rules", "if y is None or (code == 0 and s.extra_yahtzee_bonus == 0):", "0", "1"):
        "extra bonus == 1: sheets with no joker and no extra bonus go through the search instead of the shortcut, "
        "and it finds the same sum of maxima (`code == 1`, same label, is killed)",
    ("rules", "extra = list(aliases) or [()] * 6", "6", "7"):
        "every caller of _upper passes aliases, so the six empty tuples are never built",
    ("rules", "open_ = ((1 << len(rules.boxes)) - 1) & ~filled", "1 << len(rules.boxes)", "1 >> len(rules.boxes)"):
        "in box_value open_ only meets own_bit, a box's bit, where ~filled and the column's mask agree "
        "(in legal_mask and box_score, same text, open_ reaches legal_bits and the tests kill it)",
    ("rules", "if filled >> box & 1:", "filled >> box", "filled << box"):
        "a shortcut: box_score refuses a filled box anyway (legal_bits picks from the open boxes only)",
    ("rules", "if i == 0 or w > best:", "w > best", "w >= best"):
        "on a tie best is set to the value it already holds",
    ("validate", "static = all(R.saved_after(rules, 0, n) <= 0 for n in range(1, base + 1))",
     "R.saved_after(rules, 0, n) <= 0", "R.saved_after(rules, 0, n) < 0"):
        "saved_after is never negative, so fixed_rolls is always 0: the fast path counts each turn's rolls "
        "the general way, which is right for every rule set (slower, same answers)",
    ("validate", "if len(self.ctx_tables) >= 64:  # a custom rule set's odd Yahtzee values: stay small",
     "len(self.ctx_tables) >= 64", "len(self.ctx_tables) > 64"):
        "the size at which a cache is emptied; what it holds is recomputed the same",
    ("validate", "_FULL = 1 << 24  # packed dice: set when they are a whole roll (n dice)", "1", "2"):
        "any bit above the 24 bits of face counts serves as the whole-roll flag, and every use reads _FULL",
    ("validate", "if type(turn) is not dict or not turn.keys() <= turn_keys:", "turn.keys() <= turn_keys",
     "turn.keys() < turn_keys"):
        "it only makes the fast path give up on a turn holding every key; the exact path then accepts "
        "the same logs (slower, same answers)",
    ("validate", "if bi is None:", "bi is None", "bi is not None"):
        "a known name is looked up again by tb.box (the same index); an unknown one reaches `filled >> None`, "
        "a TypeError that sends the game to the exact path as `return None` does (slower, same answers)",
    ("validate", "return _bonus_unit(self.rules) > 0", "0", "1"):
        "the extra bonus is 0 or a multiple of 25 (the setting refuses anything else), never 1",
    ("validate", 'others = bin(ps.filled[ci] & ~(1 << y if y is not None else 0)).count("1")', "0", "1"):
        "a nonzero bonus unit needs a Yahtzee box, and unit_src has the boxes of rules, so y is never None here",
    ("replay", 'for c, t, m, b in zip(p.columns, p.totals, mults, bo, strict=True)],', "True", "False"):
        "columns, totals, multipliers and bonus_open all hold one entry per column, so strict never fires",
    ("replay", "keep = [d for d in dice if rng.random() < 0.5]", "rng.random() < 0.5", "rng.random() <= 0.5"):
        "random() is exactly 0.5 once in 2**53 draws: seeded logs come out the same",
    ("replay", "if not rs.settings.must_zero and rng.random() < 0.5 and "
     "R.may_pass(rs, R.options(rs, p.columns, roll)):",
     "rng.random() < 0.5", "rng.random() <= 0.5"):
        "random() is exactly 0.5 once in 2**53 draws: seeded logs come out the same",
    ("replay", "return y is not None and R.extra_bonus(self.rules, (1,) * self.rules.dice, "
     "self.rules.boxes[y].points) > 0", "1", "2"):
        "extra_bonus asks only whether the dice are all alike, never their face: ones and twos earn the same",
    ("replay", "return y is not None and R.extra_bonus(self.rules, (1,) * self.rules.dice, "
     "self.rules.boxes[y].points) > 0", "0", "1"):
        "the extra bonus is 0 or a multiple of 25 (the setting refuses anything else), never 1",
    ("replay", "for (name, cols, fin, bo), total, rank in zip(players, totals, ranks, strict=True)", "True", "False"):
        "totals and ranks are built from players, one entry per player, so strict never fires",
    ("replay", "for p, bo in zip(sheet.players, sheet.bonus_open, strict=True)],", "True", "False"):
        "check_sheet appends one bonus_open entry with each player, so strict never fires",
    ("replay", '"boxes": dict(zip(rules.keys, col.scores, strict=True)),', "True", "False"):
        "a column holds one score per box of the rules, so strict never fires",
    ("replay", "lines.extend(table(standing, left=(0, 1, 3)))", "3", "4"):
        "the mark column holds only winner or leader (six letters each) or blanks, which table trims, so "
        "left and right alignment print the same",
    ("replay", "walk = walk_log(data, rules, until=until, check_claims=not overrides)",
     "not overrides", "overrides"):
        "checking claims only adds problems, which a Position does not carry (without overrides the whole "
        "log's claims were already checked)",
    ("replay", "nrolls = min(allowed, rng.choice((1, 2, 3, 3, 3)) + (allowed > 3 and rng.random() < 0.2))",
     "rng.random() < 0.2", "rng.random() <= 0.2"):
        "random() returns multiples of 2**-53 and the double 0.2 (an odd multiple of 2**-54) is not one",
    ("replay", "p.turns += 1", "p.turns += 1", "p.turns -= 1"):
        "random_log never reads p.turns: the log it returns counts no turns",
    ("replay", "p.turns += 1", "1", "2"):
        "random_log never reads p.turns: the log it returns counts no turns",
    ("replay", "p.bonus[ci] += opt.bonus", "p.bonus[ci] += opt.bonus", "p.bonus[ci] -= opt.bonus"):
        "random_log never reads p.bonus: options and placement look only at the scores, and the bonus it "
        "writes is opt.bonus",
    ("replay", "saved: int = 0", "0", "1"):
        "every Position built in the package (replay and scorekeeper) passes it, so the default is never used",
    ("replay", "rolls_left: int = 3", "3", "4"):
        "every Position built in the package (replay and scorekeeper) passes it, so the default is never used",
    ("replay", "turns_taken: int = 0", "0", "1"):
        "every Position built in the package (replay and scorekeeper) passes it, so the default is never used",
    ("replay", "finished: bool = False  # the player's sheet is full", "False", "True"):
        "every Position built in the package (replay and scorekeeper) passes it, so the default is never used",
    ("logs", 'at = lineno + raw.count(b"\\n", 0, start)', "0", "1"):
        "raw begins with the input's first non-blank line, so its first byte is never a newline",
}


def source_of(module: str, root: Path = ROOT) -> Path:
    for rel in TARGETS[module].sources:
        if (root / "yahtzee_cli" / rel).is_file():
            return root / "yahtzee_cli" / rel
    raise SystemExit(f"{module}: none of {', '.join(TARGETS[module].sources)} under yahtzee_cli/")


def test_files(module: str) -> list[str]:
    out = []
    for name in TARGETS[module].tests:
        found = sorted((ROOT / "tests").rglob(name))
        if not found:
            raise SystemExit(f"{module}: no tests/**/{name}")
        out.append(str(found[0].relative_to(ROOT)))
    return out


SWAP: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is,
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Add, ast.FloorDiv: ast.Mult, ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv, ast.BitAnd: ast.BitOr, ast.BitOr: ast.BitAnd, ast.LShift: ast.RShift,
    ast.RShift: ast.LShift, ast.And: ast.Or, ast.Or: ast.And,
}


@dataclass(frozen=True)
class Mutant:
    module: str
    line: int
    span: tuple[int, int, int, int]  # lineno, col_offset, end_lineno, end_col_offset of the replaced node
    original: str
    mutated: str
    text: str  # the first source line of the mutated node, stripped (names the mutant across edits)

    def label(self, rel: Path) -> str:
        return f"{rel}:{self.line}: {self.original}  ->  {self.mutated}"

    def why_equivalent(self) -> str | None:
        return EQUIVALENT.get((self.module, self.text, self.original, self.mutated))


def _skipped_nodes(tree: ast.AST) -> set[int]:
    """ids of nodes that cannot change behaviour worth testing: annotations, docstrings, f-strings."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        subtrees: list[ast.AST] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            subtrees += [a.annotation for a in (*node.args.args, *node.args.kwonlyargs, *node.args.posonlyargs)
                         if a.annotation is not None]
            if node.returns is not None:
                subtrees.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            subtrees.append(node.annotation)
        elif isinstance(node, ast.JoinedStr):
            subtrees.append(node)
        for sub in subtrees:
            skip.update(id(n) for n in ast.walk(sub))
    return skip


def _variants(node: ast.AST) -> Iterator[ast.AST]:
    """Mutated copies of one node (each differs from it in one place)."""
    if isinstance(node, ast.Compare):
        for i, op in enumerate(node.ops):
            if type(op) in SWAP:
                ops = list(node.ops)
                ops[i] = SWAP[type(op)]()
                yield ast.Compare(node.left, ops, node.comparators)
    elif isinstance(node, ast.BinOp) and type(node.op) in SWAP:
        yield ast.BinOp(node.left, SWAP[type(node.op)](), node.right)
    elif isinstance(node, ast.BoolOp) and type(node.op) in SWAP:
        yield ast.BoolOp(SWAP[type(node.op)](), node.values)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield node.operand
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        yield node.operand
    elif isinstance(node, ast.Constant) and type(node.value) is bool:
        yield ast.Constant(not node.value)
    elif isinstance(node, ast.Constant) and type(node.value) is int:
        yield ast.Constant(node.value + 1)
    elif isinstance(node, ast.AugAssign) and type(node.op) in SWAP:
        yield ast.AugAssign(node.target, SWAP[type(node.op)](), node.value)


def mutants(module: str) -> list[Mutant]:
    source = source_of(module).read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    skip = _skipped_nodes(tree)
    out: list[Mutant] = []
    for node in ast.walk(tree):
        if id(node) in skip or not hasattr(node, "lineno") or node.end_lineno is None:
            continue
        original = ast.get_source_segment(source, node)
        if original is None:
            continue
        for variant in _variants(node):
            mutated = ast.unparse(variant)
            if "\n" in original and not isinstance(node, ast.stmt):
                mutated = f"({mutated})"  # a multi-line expression may rely on brackets outside the node
            if mutated != ast.unparse(node):
                out.append(Mutant(module, node.lineno, (node.lineno, node.col_offset, node.end_lineno,
                                                        node.end_col_offset), original, mutated,
                                  lines[node.lineno - 1].strip()))
    return out


def apply(source: str, m: Mutant) -> str:
    """The source with the node at m.span replaced by m.mutated (offsets are UTF-8 byte columns)."""
    lines = source.encode().splitlines(keepends=True)
    l0, c0, l1, c1 = m.span
    head = b"".join(lines[: l0 - 1]) + lines[l0 - 1][:c0]
    tail = lines[l1 - 1][c1:] + b"".join(lines[l1:])
    return (head + m.mutated.encode() + tail).decode()


def copy_project(dest: Path) -> None:
    for name in ("yahtzee_cli", "tests", "fixtures", "completions", "docs"):
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns(".hypothesis", ".pytest_cache",
                                                                                  "__pycache__"))
    for name in ("README.md", "pyproject.toml"):
        shutil.copy2(ROOT / name, dest / name)


def run_tests(workdir: Path, module: str, timeout: float) -> str:
    """'killed', 'survived' or 'timeout' (counted as killed)."""
    return _pytest(workdir, test_files(module), TARGETS[module].skip, timeout)


def _pytest(workdir: Path, files: list[str], skip: str, timeout: float) -> str:
    env = {**os.environ, "PYTHONPATH": str(workdir), "YAHTZEE_CACHE_DIR": str(workdir / "cache"),
           "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("NUMBA_CACHE_DIR", None)  # compiled kernels of a mutant stay in its own copy
    # -n 0: one process per mutant (--jobs runs mutants side by side, not the suite's worker per core)
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider", "--hypothesis-seed=0",
           *(["-k", skip] if skip else []), *files]
    try:
        p = subprocess.run(cmd, cwd=workdir, env=env, capture_output=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if p.returncode == 0 else "killed"


def try_mutant(workdir: Path, m: Mutant, source: str, timeout: float) -> str:
    """Plant `m` in the copy at `workdir`, run the tests, put the module back."""
    target = source_of(m.module, workdir)
    mutated = apply(source, m)
    try:
        compile(mutated, str(target), "exec")
    except SyntaxError:
        return "killed"  # cannot even load: killed by the first import
    target.write_text(mutated)
    try:
        return run_tests(workdir, m.module, timeout)
    finally:
        target.write_text(source)


def _found(workdir: Path, names: tuple[str, ...]) -> list[str]:
    out = []
    for name in names:
        found = sorted((workdir / "tests").rglob(name))
        if not found:
            raise SystemExit(f"no tests/**/{name} in the last commit")
        out.append(str(found[0].relative_to(workdir)))
    return out


def copy_head(dest: Path) -> None:
    """The last commit's tree (not the working tree's edits in progress) at `dest`."""
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)


def try_fault(workdir: Path, f: Fault, timeout: float) -> str:
    """Plant `f` in the copy at `workdir`, run its tests, put the source back (whatever happens)."""
    target = workdir / "yahtzee_cli" / f.source
    source = target.read_text()
    target.write_text(f.plant(source))
    try:
        return _pytest(workdir, _found(workdir, f.tests), f.skip, timeout)
    finally:
        target.write_text(source)


def run_planted(areas: list[str], jobs: int, timeout: float) -> int:
    faults = [f for f in PLANTED if not areas or f.area in areas]
    if not faults:
        print(f"no planted fault in {', '.join(areas)}; areas: {', '.join(dict.fromkeys(f.area for f in PLANTED))}",
              file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="yahtzee-planted-") as tmp:
        copies: queue.Queue[Path] = queue.Queue()
        for j in range(max(jobs, 1)):
            copy_head(Path(tmp) / str(j))
            copies.put(Path(tmp) / str(j))
        first = Path(tmp) / "0"
        for f in faults:  # each fault's text is there, once (else the list is out of date)
            f.plant((first / "yahtzee_cli" / f.source).read_text())
        runs = sorted({(f.tests, f.skip) for f in faults})
        start = time.perf_counter()
        for tests, skip in runs:
            if _pytest(first, _found(first, tests), skip, timeout * 3) != "survived":
                print(f"{' '.join(tests)}: the tests fail without any fault; fix them first", file=sys.stderr)
                return 1
        print(f"{len(faults)} planted faults, {jobs} at a time (tests pass without them: "
              f"{time.perf_counter() - start:.0f} s)", flush=True)

        def one(f: Fault) -> tuple[Fault, str]:
            workdir = copies.get()
            try:
                return f, try_fault(workdir, f, timeout)
            finally:
                copies.put(workdir)

        with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
            results = list(pool.map(one, faults))
    by_area: dict[str, list[int]] = {}
    for f, outcome in results:
        killed = outcome != "survived"
        tally = by_area.setdefault(f.area, [0, 0])
        tally[0] += killed
        tally[1] += 1
        print(f"  {'killed  ' if killed else 'SURVIVED'}  {f.area}: {f.name} ({f.source}; {' '.join(f.tests)})"
              + ("  [timeout]" if outcome == "timeout" else ""), flush=True)
    k = sum(a for a, _ in by_area.values())
    print("kill rate: " + ", ".join(f"{area} {a}/{n}" for area, (a, n) in by_area.items())
          + f"; all {100 * k / len(results):.1f}% ({k}/{len(results)}); {time.perf_counter() - start:.0f} s")
    return 0 if k == len(results) else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("modules", nargs="*", default=None,
                    help=f"modules of yahtzee_cli ({', '.join(TARGETS)}); with --planted, areas of the faults "
                         f"({', '.join(dict.fromkeys(f.area for f in PLANTED))})")
    ap.add_argument("--planted", action="store_true", help="plant the hand-written faults of PLANTED instead "
                    "(in a copy of the last commit); exit 1 when one survives")
    ap.add_argument("--max", type=int, default=None, help="mutants per module, sampled (0: all; default per module)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample")
    ap.add_argument("--timeout", type=float, default=90.0, help="seconds per mutant before it counts as killed")
    ap.add_argument("--jobs", type=int, default=1, help="mutants tested side by side (one project copy each)")
    ap.add_argument("--list", action="store_true", help="only list the mutants")
    ap.add_argument("--recheck", type=Path, default=None, metavar="OUTPUT",
                    help="test again only the mutants an earlier run's OUTPUT lists as survivors (same sample: "
                         "the same modules in the same order, same --seed and --max, module unchanged since; "
                         "refused otherwise); the others count as killed then")
    args = ap.parse_args()
    if args.planted:
        return run_planted(args.modules or [], args.jobs, args.timeout * 3)
    args.modules = args.modules or list(TARGETS)
    unknown = [m for m in args.modules if m not in TARGETS]
    if unknown:
        print(f"unknown module {unknown[0]!r}; choose from {', '.join(TARGETS)}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    totals: list[tuple[str, int, int, int]] = []
    with tempfile.TemporaryDirectory(prefix="yahtzee-mutants-") as tmp:
        copies: queue.Queue[Path] = queue.Queue()
        for j in range(max(args.jobs, 1)):
            copy_project(Path(tmp) / str(j))
            copies.put(Path(tmp) / str(j))

        def one(m: Mutant, source: str) -> tuple[Mutant, str]:
            workdir = copies.get()
            try:
                return m, try_mutant(workdir, m, source, args.timeout)
            finally:
                copies.put(workdir)

        for module in args.modules:
            every = mutants(module)
            limit = TARGETS[module].sample if args.max is None else args.max
            chosen = sorted(rng.sample(every, limit) if 0 < limit < len(every) else every, key=lambda m: m.span)
            rel = source_of(module).relative_to(ROOT)
            if args.list:
                for m in chosen:
                    print(f"{rel}:{m.line}: {m.original!r} -> {m.mutated!r}")
                continue
            if run_tests(Path(tmp) / "0", module, args.timeout * 3) != "survived":
                print(f"{module}: the tests fail without any mutant; fix them first", file=sys.stderr)
                return 1
            source = source_of(module).read_text()
            killed = equivalent = 0
            sample = chosen
            if args.recheck is not None:
                before = {line.removeprefix("  survived  ").split("  (equivalent: ", 1)[0]
                          for line in args.recheck.read_text().splitlines() if line.startswith("  survived  ")}
                # the samples share one random stream, so they depend on the modules named before this one:
                # an earlier survivor missing from this sample means a different sample, not a kill
                lost = {b for b in before if b.startswith(f"{rel}:")} - {m.label(rel) for m in chosen}
                if lost:
                    print(f"{module}: {len(lost)} survivors in {args.recheck} are not in this sample (it needs the "
                          "same modules in the same order, --seed, --max and source): run the module afresh",
                          file=sys.stderr)
                    return 1
                again = [m for m in chosen if m.label(rel) in before]
                killed = len(chosen) - len(again)
                print(f"{module}: {killed} killed in {args.recheck}; testing its {len(again)} survivors again",
                      flush=True)
                chosen = again
            start = time.perf_counter()
            print(f"{module}: {len(chosen)} of {len(every)} mutants, {args.jobs} at a time, tests "
                  f"{' '.join(test_files(module))}" + (f" -k '{TARGETS[module].skip}'" if TARGETS[module].skip
                                                         else ""), flush=True)
            with ThreadPoolExecutor(max_workers=max(args.jobs, 1)) as pool:
                results = list(pool.map(one, chosen, [source] * len(chosen)))
            for m, outcome in results:
                if outcome != "survived":
                    killed += 1
                    continue
                why = m.why_equivalent()
                equivalent += why is not None
                note = f"  (equivalent: {why})" if why else ""
                print(f"  survived  {m.label(rel)}{note}", flush=True)
            n = len(sample)
            print(f"{module}: killed {killed} of {n} ({100 * killed / max(n, 1):.1f}%); {equivalent} equivalent, "
                  f"{100 * killed / max(n - equivalent, 1):.1f}% of the others; "
                  f"{time.perf_counter() - start:.0f} s", flush=True)
            totals.append((module, killed, n, equivalent))
    if totals:
        k = sum(t[1] for t in totals)
        n = sum(t[2] for t in totals)
        print("kill rate: " + ", ".join(f"{m} {100 * a / max(b, 1):.1f}% ({a}/{b})" for m, a, b, _ in totals)
              + f"; all {100 * k / max(n, 1):.1f}% ({k}/{n})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
