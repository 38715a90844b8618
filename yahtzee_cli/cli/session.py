"""`play`'s conversation (`Session`): text in, text out, no terminal needed, so it is tested line by
line; every entry goes through `yahtzee_cli.play.scorekeeper`, which checks it with the rules and saves
the game file."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .styled import Styled

if TYPE_CHECKING:
    from ..formats.replay import Replay
    from ..play.scorekeeper import Entry, Keeper

WIDTH = 80

HELP = """\
  33322, 3 3 3 2 2  the dice after a roll (the first roll, or a reroll)
  keep 33           the dice kept before a reroll (recorded, so the game can be
                    graded later; with --roll the other dice are rolled)
  full_house, fh    write the dice showing in a box (Tab completes the names;
                    on a multi-column sheet add the column: chance 2)
  pass              pass the turn (when nothing scores and must_zero is off)
  ?                 the best keep or box for the dice showing, and the regret
                    of every other option
  undo              take back one step: a keep, a box (the dice stay showing),
                    a roll; again for the step before
  set joker=free    change a house rule for the whole game and recalculate
  sheet             show the sheet again
  quit              stop; the game is saved: yahtzee play --resume FILE"""

COMMANDS = ("?", "hint", "undo", "sheet", "help", "quit", "pass", "keep ")

# Words typed from shell habit (`ls` is an alias of Large straight): a box named by one of them is
# written only after a `y`.
SHELL_WORDS = frozenset("""
    ls ll la l dir ss cd rm cp mv cat less more head tail grep find ps top htop df du ln pwd man vi vim
    nano emacs git make sudo su echo touch mkdir rmdir chmod chown kill clear history sh bash zsh tar ssh
    scp exit logout which whoami date cal bc sort wc diff
""".split())


class Session:
    """The score keeper's conversation: `screen()` shows the state, `handle(line)` takes one typed
    line and returns what to show. `done` turns True when the game ends or the players quit."""

    def __init__(self, keeper: Keeper, *, roll: bool = False, seed: int | None = None, color: bool = False,
                 say: Callable[[str], None] | None = None) -> None:
        self.keeper = keeper
        self.roll = roll
        self.seed = seed  # starts the game's dice stream at its first machine roll (else a random seed)
        self.color = color
        self.say = say
        self.confirm: str | None = None  # a box typed as a shell command, written after a `y`
        self.unsaved: list[str] = []  # why each entry that could not be saved was not (the session then fails)
        self.done = keeper.game_over

    # -- text
    def _style(self, text: str, code: str) -> str:
        """`text` in colour (SGR `code`) when colours are on: a `Styled` line, whose text stays plain
        (the colour is put in by `_show`, after escaping), so it can be concatenated freely."""
        return Styled(text, ((0, len(text), code),)) if self.color else text

    def sheet_lines(self, rp: Replay | None = None) -> list[str]:
        """The sheet, boxes by players (each column of a multi-column sheet), fitted to 80 columns."""
        k = self.keeper
        rp = rp or k.standings()
        rules = rp.rules
        mults = rules.settings.multipliers
        cols = [(p, c) for p in rp.players for c in range(len(p.columns))]
        labels = [rules.boxes[i].label for i in range(len(rules.boxes))] + ["Upper bonus", "Yahtzee bonus", "Total"]
        lw = min(max(len(s) for s in labels), 16)
        current = k.next_player
        widest = max(len(p.name) + 1 + (3 + len(str(max(mults))) if len(mults) > 1 else 0) for p, _ in cols)
        cw = max(5, min(widest, (WIDTH - lw) // max(1, len(cols)) - 1))

        def head(p_name: str, c: int) -> str:
            mark = "*" if p_name == current else ""
            tail = f" x{mults[c]}" if len(mults) > 1 else ""
            return (mark + p_name)[: cw - len(tail)] + tail

        def row(label: str, cells: list[str]) -> str:
            return (label[:lw].ljust(lw) + "".join(" " + v.rjust(cw) for v in cells)).rstrip()

        out = [row("", [head(p.name, c) for p, c in cols])]

        def box_row(i: int) -> str:
            return row(rules.boxes[i].label, ["" if (v := p.columns[c].scores[i]) is None else str(v) for p, c in cols])

        out += [box_row(i) for i in rules.upper_indices]
        if rules.upper_indices:
            out.append(row("Upper bonus", [str(p.totals[c].upper_bonus) for p, c in cols]))
        out += [box_row(i) for i in rules.lower_indices]
        if rp.bonus_box:
            out.append(row("Yahtzee bonus", [str(p.columns[c].yahtzee_bonus) for p, c in cols]))
        out.append(row("Total", [str(p.totals[c].total) for p, c in cols]))
        if len(mults) > 1:
            out.append("Score: " + ", ".join(f"{p.name} {p.total}" for p in rp.players))
        return out

    def screen(self, chances: bool = False) -> list[str]:
        """Whose turn it is, the sheet (with `chances`, each player's chance to win under it), and
        what the dice showing may go in."""
        k = self.keeper
        if k.game_over:
            return self.final_lines()
        pos = k.position()
        title = f"-- Turn {k.turn_number}: {pos.player} -- {k.rules.name} "
        lines = [self._style(title.ljust(WIDTH, "-"), "1;36"), *self.sheet_lines()]
        if chances:
            lines += self.chance_lines()
        lines += self._dice_lines()
        return lines

    def _dice_lines(self) -> list[str]:
        pos = self.keeper.position()
        if pos.dice is None:
            how = "press Enter to roll" if self.roll else "type the dice after the first roll, e.g. 33322"
            return [f"{pos.player}, {how} (help: all commands)."]
        total = pos.rolls_used + pos.rolls_left
        lines = [self._style(f"{pos.player}: {' '.join(map(str, pos.dice))}", "1")
                 + f"  (roll {pos.rolls_used} of {total}, {pos.rolls_left} left)"]
        rc = self.keeper.choices()
        assert rc is not None
        lines += _wrap("Boxes: ", self._option_words(rc.legal) + (["pass"] if rc.may_pass else []))
        if pos.rolls_left:
            nxt = "Enter rerolls all, keep 33 rerolls the rest" if self.roll else "the dice of the next roll"
            lines.append(f"Next: a box, {nxt}, or ? for a hint.")
        else:
            lines.append("No rolls left: choose a box (? for a hint).")
        return lines

    def _option_words(self, legal: tuple[Any, ...]) -> list[str]:
        """Each legal box with what it writes; on multi-column sheets the columns it may go in."""
        rules = self.keeper.rules
        if rules.settings.columns == 1:
            return [self.keeper.option_text(o, label=True) for o in legal]
        groups: dict[tuple[int, int, int], list[int]] = {}
        for o in legal:
            groups.setdefault((o.box, o.score, o.bonus), []).append(o.column + 1)
        return [f"{rules.boxes[b].label} {score}{f'+{bonus}' if bonus else ''} [{','.join(map(str, cols))}]"
                for (b, score, bonus), cols in sorted(groups.items())]

    def final_lines(self) -> list[str]:
        """The sheet, the standings (ties share a rank) and each player's personal best in the file."""
        from ..formats.render import table
        from ..formats.replay import _state_line

        k = self.keeper
        rp = k.standings()
        lines = [self._style("-- Game over ".ljust(WIDTH, "-"), "1;36"), *self.sheet_lines(rp)]
        rows = [["Rank", "Player", "Score", ""]]
        for p in sorted(rp.players, key=lambda p: p.rank):
            rows.append([str(p.rank), p.name, str(p.total), "winner" if p.rank == 1 and len(rp.players) > 1 else ""])
        lines += table(rows, left={0, 1, 3})
        lines.append(_state_line(rp))
        for p in rp.players:
            best = k.personal_best(p.name)
            if best is None:
                continue
            score, n = best
            verdict = "a new personal best!" if p.total > score else ("equals the personal best" if p.total == score
                                                                       else f"personal best {score}")
            lines.append(f"{p.name}: {p.total}, {verdict} ({n} earlier game{'s' if n != 1 else ''} in this file "
                         "under these rules)")
        return lines

    def prompt(self) -> str:
        pos = self.keeper.position()
        return f"{pos.player}> "

    def completions(self) -> list[str]:
        """Words Tab completes now: the legal boxes' keys, names and aliases (the rules' own language,
        e.g. Kniffel's German names), then the commands and house-rule settings."""
        from ..rules.engine import SETTING_NAMES

        rules = self.keeper.rules
        rc = None if self.keeper.game_over else self.keeper.choices()
        boxes = sorted({o.box for o in rc.legal}) if rc is not None else range(len(rules.boxes))
        words: list[str] = []
        for i in boxes:
            b = rules.boxes[i]
            words += [b.key, *([b.name] if b.name else []), *b.aliases]
        words += COMMANDS
        words += [f"set {name}=" for name in SETTING_NAMES]
        return list(dict.fromkeys(words))

    # -- input
    def handle(self, line: str) -> list[str]:
        """One typed line; returns what to show. Refused entries answer with one line saying why."""
        from ..errors import KeeperError, RuleRefused, RulesError, SaveFailed
        from ..play.scorekeeper import dice_word
        from ..rules.engine import parse_dice

        text = line.strip()
        low = text.casefold()
        k = self.keeper
        try:
            if self.confirm is not None:
                typed, self.confirm = self.confirm, None
                if low in ("y", "yes"):
                    return self._box(typed, confirmed=True)
                if low in ("", "n", "no"):
                    return [f"Not written: {typed} (the box's name or key writes it without asking)."]
            if low in ("q", "quit", "exit"):
                self.done = True
                return [f"Saved in {k.file.path}; continue with: yahtzee play --resume {k.file.path}"]
            if low in ("help", "h"):
                return HELP.splitlines()
            if low in ("sheet", "s"):
                return self.screen()
            if k.game_over:
                self.done = True
                return self.final_lines()
            if low in ("?", "hint"):
                return self._hint()
            if low in ("u", "undo"):
                said = k.undo()
                return [f"{said[0].upper()}{said[1:]}.", *self.screen()]
            if low.startswith("set ") or low == "set":
                return self._set(text[3:].strip())
            if low.startswith(("keep", "k ")) or low == "k":
                return self._keep(text.split(None, 1)[1] if " " in text else "")
            if text == "" and self.roll:
                return self._auto_roll()
            if text == "":
                return self._dice_lines()
            if dice_word(text):
                return self._dice(parse_dice([text]))
            if low == "pass":
                return self._finish(k.record(passed=True))
            return self._box(text)
        except SaveFailed as exc:
            return self._unsaved(exc)
        except RuleRefused as exc:
            return [self._style(f"Refused: {exc}.", "31"), *(f"  {p}" for p in exc.illegal)]
        except (KeeperError, RulesError) as exc:
            return [self._style(f"Refused: {exc}.", "31")]

    def _unsaved(self, exc: Exception) -> list[str]:
        """An entry the rules allow that could not be saved: not made, said in red, and remembered,
        so the session ends with a failure status however it ends."""
        self.unsaved.append(str(exc))
        return [self._style(f"Not saved: {exc}.", "31"), "The entry is not made; free the space or fix the file, "
                "then type it again (or quit: the file holds the game up to its last saved entry)."]

    def failure(self) -> str | None:
        """The session's error line when an entry could not be saved (None when every one was)."""
        if not self.unsaved:
            return None
        n = len(self.unsaved)
        return f"{n} entr{'y' if n == 1 else 'ies'} of this session could not be saved: {self.unsaved[-1]}"

    def _hint(self) -> list[str]:
        from ..play.report import hint_lines
        from .progress import waiting

        with waiting("preparing the hint"):
            ev = self.keeper.hint(say=self.say)
        return hint_lines(ev, 6, self.keeper.next_player)

    def _set(self, setting: str) -> list[str]:
        change = self.keeper.set_rule(setting.replace(" ", "") if "=" in setting else setting.replace(" ", "=", 1))
        before = {p.name: p.total for p in change.before.players}
        moved = [f"{p.name} {before[p.name]} -> {p.total}" for p in change.after.players if p.total != before[p.name]]
        return [f"House rule {setting} for the whole game: " + ("; ".join(moved) if moved else "no total changes")
                + ".", *self.screen()]

    def _keep(self, words: str) -> list[str]:
        """`keep 33`: with --roll the other dice are rolled at once; else the keep is noted for the
        dice typed next (the score keeper records it with them)."""
        from ..rules.engine import parse_dice

        pos = self.keeper.position()
        if pos.dice is None:
            return ["Roll first: keep names dice among those showing."]
        if not pos.rolls_left:
            return ["No rolls left: choose a box."]
        keep = parse_dice([words]) if words.strip() not in ("", "-", "none") else []
        if self.roll:
            self.keeper.roll(keep, seed=self.seed)
            return self._dice_lines()
        kept = self.keeper.hold(keep)
        return [f"Keeping {' '.join(map(str, kept)) or 'nothing'}: type the dice after the reroll."]

    def _auto_roll(self) -> list[str]:
        pos = self.keeper.position()
        if pos.dice is not None and not pos.rolls_left:
            return ["No rolls left: choose a box."]
        self.keeper.roll(seed=self.seed)
        return self._dice_lines()

    def _dice(self, dice: list[int]) -> list[str]:
        pos = self.keeper.position()
        if pos.dice is not None and not pos.rolls_left:
            return ["No rolls left: choose a box (or undo the last roll)."]
        self.keeper.record([dice])
        return self._dice_lines()

    def _box(self, text: str, confirmed: bool = False) -> list[str]:
        parts = text.replace("/", " ").split()
        column = None
        if len(parts) > 1 and parts[-1].isascii() and parts[-1].isdigit():  # (int() would fail on '²')
            column = int(parts.pop())
        name = " ".join(parts)
        if not confirmed and name.casefold() in SHELL_WORDS:
            ask = self._ask(name, column, text)
            if ask:
                return ask
        return self._finish(self.keeper.record(box=name, column=column))

    def _ask(self, name: str, column: int | None, text: str) -> list[str]:
        """A box named by a shell command's name (`ls`): what it would write, and a question first."""
        from ..errors import RulesError

        k = self.keeper
        try:
            bi = k.rules.box_index(name)
        except RulesError:  # not a box here: answered as any other unknown word
            return []
        rc = k.choices()
        fits = [o for o in (rc.legal if rc is not None else ()) if o.box == bi
                and (column is None or o.column + 1 == column)]
        if not fits:
            return []  # refused as any illegal box is
        self.confirm = text
        writes = " or ".join(k.option_text(o, label=True) for o in fits)
        return [f"{name} is {k.rules.boxes[bi].label}: write {writes} for {k.next_player}? "
                "y writes it; Enter or n does not."]

    def _finish(self, entry: Entry) -> list[str]:
        assert entry.step is not None
        k = self.keeper
        what = "passes" if entry.step.option is None else f"writes {k.option_text(entry.step.option, label=True)}"
        lines = [self._style(f"{entry.player} {what}.", "32")]
        if k.game_over:
            self.done = True
        return lines + self.screen(chances=True)

    def chance_lines(self) -> list[str]:
        """Each player's chance to win from here (a solo player's of beating their personal best),
        under the sheet after every turn; where the rules have no exact table, a line saying so."""
        from ..formats.replay import chances_line, note_line, percent
        from ..play.odds import beat_chance, chances_note, game_odds
        from .progress import waiting

        k = self.keeper
        rp = k.standings()
        if len(rp.players) > 1:
            with waiting("computing the chances to win"):
                chances = game_odds(rp, self.say)
            if chances is None:
                missing = chances_note(rp)
                return [] if missing is None else textwrap.wrap(note_line(missing), WIDTH)
            return textwrap.wrap(chances_line(rp, chances), WIDTH)
        best = k.personal_best(rp.players[0].name)
        me = rp.players[0]
        if best is None or all(c.is_full for c in me.columns):
            return []
        with waiting("computing the chance of beating your personal best"):
            got = beat_chance(k.rules, me.columns, best[0], me.saved, self.say)
        if got is None:
            return []
        p, se = got
        how = "optimal play from here" if se is None else f"± {100 * se:.1f} pp, estimated from games played on"
        return textwrap.wrap(f"Chance of beating your personal best ({best[0]}): {percent(p)} ({how}).", WIDTH)


def _wrap(prefix: str, items: list[str]) -> list[str]:
    lines: list[str] = []
    cur = prefix
    for item in items:
        add = item if cur.endswith(": ") or cur.strip() == "" else "  " + item
        if len(cur) + len(add) > WIDTH and cur.strip():
            lines.append(cur)
            cur = " " * len(prefix) + item
        else:
            cur += add
    lines.append(cur)
    return lines
