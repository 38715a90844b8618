"""`yahtzee validate` and yahtzee_cli.formats.validate: every kind of problem, with its pointer and sentence."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from conftest import FIXTURES as FIX
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_cli.formats.logs import iter_documents
from yahtzee_cli.formats.replay import random_log
from yahtzee_cli.formats.validate import MAX_PROBLEMS, _fast_log, check_document, check_game, validate_stream, walk_log
from yahtzee_cli.rules import engine as R

PRESETS = list(R.PRESETS)


# --------------------------------------------------------------------------- rules.placement


@settings(max_examples=300, deadline=None)
@given(
    name=st.sampled_from(PRESETS + ["free", "off", "order", "columns"]),
    seed=st.integers(0, 2**32 - 1),
)
def test_placement_agrees_with_column_options(name: str, seed: int) -> None:
    """rules.placement (and roll_context/box_score under it) gives exactly the Option column_options lists."""
    variants = {"free": ("yahtzee", {"joker": "free"}), "off": ("yahtzee", {"joker": "off"}),
                "order": ("yahtzee", {"fill_in_order": True}),
                "columns": ("kniffel", {"columns": 3, "column_fill": "down,up,free"})}
    preset, over = variants.get(name, (name, {}))
    rs = R.preset(preset, over)
    rng = random.Random(seed)
    c = rng.randrange(rs.settings.columns)  # the column the roll goes in (columns differ by fill rule)
    nbox = len(rs.boxes)
    y = rs.yahtzee_index
    scores: list[int | None] = [None] * nbox
    for i in rng.sample(range(nbox), rng.randrange(nbox)):
        scores[i] = 0
    if y is not None and rng.random() < 0.7:
        scores[y] = rng.choice([None, 0, rs.boxes[y].points])
    col = R.Column(tuple(scores))
    face = rng.randint(1, 6)
    dice = (face,) * rs.dice if rng.random() < 0.5 else tuple(sorted(rng.randint(1, 6) for _ in range(rs.dice)))
    legal = {o.box: o for o in R.column_options(rs, col, dice, c)}
    ys = scores[y] if y is not None else None
    ctx = R.roll_context(rs, dice, ys)
    free = R.any_open_box(rs, ctx, c)  # the validator's shortcut: any open box at its natural score
    if free:
        assert {b: o.score for b, o in legal.items()} == {b: ctx.scores[b] for b in range(nbox) if scores[b] is None}
    for box in range(nbox):
        assert R.placement(rs, col.filled_mask, ys, box, dice, c) == legal.get(box)
        if box in legal:
            assert R.place(rs, col, box, dice, c)[1] == legal[box]
        else:
            with pytest.raises(R.IllegalMove):
                R.place(rs, col, box, dice, c)


# --------------------------------------------------------------------------- fixtures

INVALID = sorted(p.stem for p in (FIX / "invalid").glob("*.json"))
VALID = sorted(p.name for p in (FIX / "logs").iterdir()) + sorted(
    f"../sheets/{p.name}" for p in (FIX / "sheets").iterdir()
)


def test_every_invalid_fixture_has_its_expected_error() -> None:
    assert len(INVALID) >= 40
    assert sorted(p.stem for p in (FIX / "invalid").glob("*.expected")) == INVALID


@pytest.mark.parametrize("name", INVALID)
def test_invalid_fixture_gives_exactly_its_expected_problems(name: str) -> None:
    expected = (FIX / f"invalid/{name}.expected").read_text().splitlines()
    with open(FIX / f"invalid/{name}.json", "rb") as fh:
        reports = list(validate_stream(fh))
    assert [str(p) for r in reports for p in r.problems] == expected
    assert all(p.path == "" or p.path.startswith("/") for r in reports for p in r.problems)


@pytest.mark.parametrize("name", VALID)
def test_valid_fixture_validates(name: str) -> None:
    with open(FIX / "logs" / name, "rb") as fh:
        reports = list(validate_stream(fh))
    assert reports and all(r.valid for r in reports), [r.problems for r in reports]
    unfinished = {"in-progress.json", "batch.ndjson", "../sheets/partial.json", "../sheets/unfinished-bonus.json"}
    assert all(r.finished for r in reports) == (name not in unfinished)


# --------------------------------------------------------------------------- the CLI


def test_cli_valid_file_exit_0(cli) -> None:
    r = cli(["validate", str(FIX / "logs/anna-and-ben.json")])
    assert r.exit_code == 0
    assert r.stdout.endswith("anna-and-ben.json: valid\n")


def test_cli_problem_exit_1_with_pointer_and_sentence(cli) -> None:
    path = str(FIX / "invalid/box-filled.json")
    r = cli(["validate", path])
    assert r.exit_code == 1
    first, last = r.stdout.splitlines()
    assert last == f"{path}: not valid (1 problem)"
    where, line, rest = first.split(":", 2)
    assert where == path and rest == " game 1: /turns/4/box: box yahtzee is already filled"
    # the line named is the failing value's own line in the pretty-printed file, not the document's first
    text = (FIX / "invalid/box-filled.json").read_text().splitlines()
    assert text[int(line) - 1].strip() == '"box": "yahtzee",'
    assert sum(t.strip().startswith('"player"') for t in text[:int(line)]) == 5  # inside the fifth turn


def test_cli_json_output_shape(cli) -> None:
    r = cli(["validate", "--json", str(FIX / "invalid/wrong-score.json")])
    assert r.exit_code == 1
    path = str(FIX / "invalid/wrong-score.json")
    line = next(n for n, t in enumerate(open(path), 1) if t.strip() == '"score": 26')
    assert json.loads(r.stdout) == {
        "type": "validation", "valid": False, "files": 1, "games": 1, "unfinished": [],
        "errors": [{"file": path, "game": 1, "line": line, "path": "/turns/16/score", "code": "wrong-score",
                    "message": "claimed score 26, but 2 4 6 6 6 scores 24 in three_of_a_kind"}],
    }
    path = str(FIX / "logs/in-progress.json")
    ok = json.loads(cli(["validate", "--json", path]).stdout)
    assert ok == {"type": "validation", "valid": True, "files": 1, "games": 1, "errors": [],
                  "unfinished": [{"file": path, "line": 1, "game": 1}]}


def test_cli_ndjson_batch_from_stdin_names_each_game_s_line(cli) -> None:
    good = orjson.dumps(random_log("yahtzee", 1))
    bad = orjson.loads(good)
    bad["turns"][3]["score"] = 99
    data = b"\n".join([good, b"", orjson.dumps(bad), b"{oops", good]) + b"\n"
    r = cli(["validate", "-", "--json"], input=data)
    assert r.exit_code == 1
    out = json.loads(r.stdout)
    assert out["games"] == 4 and out["valid"] is False
    assert [(e["game"], e["line"], e["path"]) for e in out["errors"]] == [(2, 3, "/turns/3/score"), (3, 4, "")]
    text = cli(["validate", "-"], input=data)
    assert text.stdout.splitlines()[0].startswith("<stdin>:3: game 2: /turns/3/score: claimed score 99")
    assert text.stdout.splitlines()[-1] == "<stdin>: 4 games, 2 valid, 2 not valid (2 problems)"
    assert cli(["validate", "-", "-q"], input=data).stdout == ""


def test_cli_usage_errors_exit_2(cli) -> None:
    assert cli(["validate"]).exit_code == 2
    assert cli(["validate", "/no/such/file.json"]).exit_code == 2
    assert cli(["validate", "-", "-"]).exit_code == 2
    assert cli(["validate", "x", "--nope"]).exit_code == 2


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "empty input"),
        (b"\x00\x01\x02binary\xff\xfe" * 50, "binary"),
        ('{"format": "yahtzee-log/1"}'.encode("utf-16"), "UTF-16"),
    ],
)
def test_cli_unreadable_input_is_one_error_line_exit_1(cli, raw: bytes, message: str) -> None:
    r = cli(["validate", "-"], input=raw)
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith("yahtzee: error: <stdin>: ") and message in r.stderr
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested more than 1024 levels deep"),
        (b'{"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["A"], "turns": [{"player": "A", '
         b'"rolls": [[1, 2, 3, 4, 99999999999999999999999]], "box": "chance"}]}', "number 1e+23 is too large"),
        (b'{"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["A"], "turns": [], "x": "'
         + b"\xe9t\xe9" + b'"}', "not valid UTF-8"),
    ],
)
def test_cli_bad_documents_are_problems_exit_1(cli, raw: bytes, message: str) -> None:
    r = cli(["validate", "-"], input=raw)
    assert r.exit_code == 1 and message in r.stdout and "Traceback" not in r.stdout + r.stderr


def test_cli_huge_single_line_is_refused_with_flat_memory(tmp_path: Path) -> None:
    """A line over 16 MiB is refused without being held whole: the validating process's peak RSS
    (ru_maxrss, each run in a subprocess of its own) is the same, within 8 MiB, for a 20 MiB line and
    a 60 MiB one (the reader may buffer up to the 16 MiB limit, never more)."""
    def huge(mib: int) -> Path:
        path = tmp_path / f"line-{mib}.ndjson"
        with open(path, "wb") as fh:
            fh.write(b'{"format": "yahtzee-log/1", "meta": {"pad": "')
            for _ in range(mib):
                fh.write(b"x" * (1 << 20))
            fh.write(b'"}}\n')
        return path

    code = ("import resource, sys\nfrom yahtzee_cli.cli import main\nsys.argv = ['yahtzee', 'validate', sys.argv[1], "
            "'--json']\ntry:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
            "sys.stderr.write(f'{code} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}\\n')\n")
    peaks = []
    for mib in (20, 60):
        p = subprocess.run([sys.executable, "-c", code, str(huge(mib))], capture_output=True, text=True, timeout=120)
        status, kib = p.stderr.split()[-2:]
        assert status == "1", p.stderr
        assert p.stdout, p.stderr
        (err,) = json.loads(p.stdout)["errors"]
        assert err["message"].startswith("line 1 is longer than 16 MiB")
        peaks.append(int(kib))
    assert peaks[1] - peaks[0] < 8 * 1024, peaks  # KiB


# --------------------------------------------------------------------------- the walk


def test_problems_are_capped_per_game() -> None:
    game = random_log("yahtzee", 2)
    game["turns"] = [dict(game["turns"][0], score=999)] * (MAX_PROBLEMS + 50)
    problems = check_game(game)
    assert len(problems) == MAX_PROBLEMS + 1
    assert problems[-1].message.startswith("too many problems")


def test_unfinished_games_are_valid_and_know_whose_turn_it_is() -> None:
    game = random_log("yahtzee", 3, ("Anna", "Ben", "Cleo"), turns=7)
    rep = check_document(game)
    assert rep.valid and not rep.finished
    assert rep.log.next_player == 1 and rep.log.in_progress is None
    game["turns"].append({"player": "Ben", "rolls": [[1, 2, 3, 4, 6]]})
    rep = check_document(game)
    assert rep.valid and rep.log.in_progress.rolls_used == 1 and rep.log.in_progress.rolls_left == 2


def test_passes_make_sheets_finish_apart_and_order_skips_full_sheets() -> None:
    spec = {"preset": "yahtzee", "settings": {"must_zero": False}}
    rs = R.preset("yahtzee", {"must_zero": False})
    for seed in range(30):
        game = random_log(rs, seed, ("A", "B"), spec=spec)
        assert check_game(game) == []


def test_claims_are_optional_and_checked_when_given() -> None:
    game = random_log("yatzy", 4, claims=False)
    assert all("score" not in t for t in game["turns"]) and check_game(game) == []
    game = random_log("yatzy", 4, held=False)
    assert all("held" not in t for t in game["turns"]) and check_game(game) == []


# --------------------------------------------------------------------------- fast path == exact path


def _within(held: list, roll: list) -> bool:
    return all(held.count(v) <= roll.count(v) for v in set(held))


def _mutate(game: dict, rng: random.Random) -> None:
    """One random change to a game. Each kind says when it applies (no exceptions swallowed: a bug in
    the mutations fails the test instead of silently leaving the game unchanged)."""
    turns = game.get("turns")
    if type(turns) is not list or not turns or not all(type(t) is dict for t in turns):
        game["turns"] = rng.choice([None, [], {}])
        return
    t = turns[rng.randrange(len(turns))]
    rolls = t.get("rolls")
    good_rolls = type(rolls) is list and rolls and all(type(r) is list and r for r in rolls)
    held = t.get("held")
    good_held = good_rolls and type(held) is list and len(held) == len(rolls) - 1 and len(held) > 0
    what = rng.randrange(17)
    if what == 0 and good_rolls:
        rolls[-1][rng.randrange(len(rolls[-1]))] = rng.choice([0, 7, 1, 6, True, 1.0, "1", None, 1.2e20])
    elif what == 1:
        t["score"] = rng.choice([7, 0, -1, True, False, 1.0, "5", None])
    elif what == 2:
        t["box"] = rng.choice(["ones", "Chance", "nope", None, 3, ["ones"]])
    elif what == 3 and len(turns) > 1:
        i = rng.randrange(len(turns) - 1)
        turns[i], turns[i + 1] = turns[i + 1], turns[i]
    elif what == 4:
        t["held"] = rng.choice([[], [[7]], [[True]], [[1.0, 2]], "x", [[1, 1, 1, 1, 1, 1]]])
    elif what == 5 and good_rolls:
        rolls.append([1, 2, 3, 4, 5])
    elif what == 6:
        t["column"] = rng.choice([0, 1, 2, 4, True, 1.0, None])
    elif what == 7:
        t.pop(rng.choice(["box", "rolls", "player"]), None)
    elif what == 8:
        t["extra"] = 1
    elif what == 9:
        game["players"] = rng.choice([[], ["A", "A"], ["A", 3], "A", ["B"]])
    elif what == 10:
        game["rules"] = rng.choice(["yatzy", "nope", {"preset": "yahtzee"}, {"preset": "yahtzee", "x": 1}, 5])
    elif what == 11:
        turns.append(dict(turns[0]))
    elif what == 12:
        t["player"] = rng.choice(["B", 5, "", None])
    elif what == 13:
        game["meta"] = rng.choice([None, {"a": 1}, [], "x"])
    elif what == 14:
        game["turns"] = rng.choice([None, [], {}, turns[:1]])
    elif good_held and all(type(h) is list for h in held):
        # a right-length held list with dice that are missing from the roll before (15) or after (16)
        k = rng.randrange(len(held))
        before, after = rolls[k], rolls[k + 1]
        other = after if what == 15 else before
        target = before if what == 15 else after
        faces = [v for v in range(1, 7) if type(target) is list and target.count(v) < len(target)]
        if faces:
            face = rng.choice(faces)
            kept = [face] * (target.count(face) + 1)
            held[k] = sorted(kept if rng.random() < 0.5 else [*kept, *other][: len(target)])
            assert not _within(held[k], target)


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), preset=st.sampled_from(["yahtzee", "maxi-yatzy", "triple-yatzy"]),
       mutations=st.integers(0, 2))
def test_fast_path_accepts_exactly_what_the_exact_path_accepts(seed: int, preset: str, mutations: int) -> None:
    rng = random.Random(seed)
    game = random_log(preset, rng, ("A",) if rng.random() < 0.5 else ("A", "B"),
                      turns=None if rng.random() < 0.8 else rng.randrange(1, 20))
    for _ in range(mutations):
        _mutate(game, rng)
    raw = orjson.dumps(game)
    (doc,) = iter_documents(io.BytesIO(raw))
    exact_ok = check_document_exact(doc.data) == []
    for trusted in {False, doc.trusted}:
        fast_ok = _fast_log(orjson.loads(raw), trusted) is not None
        assert exact_ok or not fast_ok, f"fast path accepted an invalid game (trusted={trusted})"
        if exact_ok and game.get("format") == "yahtzee-log/1":
            assert fast_ok, "fast path refused a valid log"


def check_document_exact(data: object) -> list:
    """The exact path alone: schema, then the walk with every problem worded."""
    from yahtzee_cli.formats.logs import check_schema, resolve_rules

    kind, problems = check_schema(data)
    if kind is None or problems:
        return problems
    try:
        rules = resolve_rules(data["rules"])  # type: ignore[index]
    except R.RulesError as exc:
        return [str(exc)]
    if kind != "log":
        return ["sheet"]
    return walk_log(data, rules).problems  # type: ignore[arg-type]


def test_a_pass_needs_no_column_and_claims_nothing() -> None:
    spec = {"preset": "yahtzee", "settings": {"must_zero": False, "columns": 2}}
    game = random_log(R.preset("yahtzee", spec["settings"]), 0, ("A",), spec=spec)
    passes = [i for i, t in enumerate(game["turns"]) if t["box"] is None]
    assert passes and all("column" not in game["turns"][i] for i in passes)
    assert check_game(game) == []
    game["turns"][passes[0]]["bonus"] = 100
    assert [str(p) for p in check_game(game)] == [
        f"/turns/{passes[0]}/bonus: claimed bonus 100, but a passed turn earns nothing"]


def test_report_lines_and_kinds() -> None:
    data = orjson.dumps(random_log("yahtzee", 1)) + b"\n" + (FIX / "sheets/partial.json").read_bytes().replace(
        b"\n", b"") + b"\n"
    reps = list(validate_stream(io.BytesIO(data)))
    assert [(r.index, r.line, r.kind, r.valid, r.finished) for r in reps] == [
        (1, 1, "log", True, True), (2, 2, "sheet", True, False)]


def test_held_dice_missing_from_the_next_roll_are_caught_after_many_valid_games() -> None:
    """The fast path memoises dice lists across a run: after 200 valid games have filled its tables,
    a game whose held dice (every list already seen) are not all in the roll after is still refused."""
    games = [random_log("yahtzee", seed) for seed in range(200)]
    seen = {tuple(h) for g in games for t in g["turns"] for h in t.get("held", [])}
    bad = None
    for g in games:
        for ti, t in enumerate(g["turns"]):
            if len(t["rolls"]) != 3:
                continue
            before, after = t["rolls"][1], t["rolls"][2]
            for h in sorted(seen):
                if _within(list(h), before) and not _within(list(h), after):
                    bad = orjson.loads(orjson.dumps(g))
                    bad["turns"][ti]["held"][1] = list(h)
                    break
            if bad is not None:
                break
        if bad is not None:
            break
    assert bad is not None
    where = f"/turns/{ti}/held/1"
    batch = b"".join(orjson.dumps(g) + b"\n" for g in [*games, bad])
    reports = list(validate_stream(io.BytesIO(batch)))
    assert len(reports) == 201 and all(r.valid for r in reports[:200])
    assert [p.path for p in reports[-1].problems] == [where]
    assert "must still show after the reroll" in reports[-1].problems[0].message
    assert _fast_log(bad, False) is None and _fast_log(bad, True) is None


# --------------------------------------------------------------------------- a Maxi Yatzy log written by hand

def maxi_log() -> dict:
    """Maxi Yatzy, written by hand from its rules (6 dice; a roll not used this turn is saved for later
    turns). Turn 1: six sixes at the first roll, Maxi Yatzy 100, two rolls saved. Turn 2: 1-6 at once,
    full straight 21, four saved. Turn 3: five rolls (three plus two saved) chasing ones, five ones 5,
    two saved. Turn 4: 2 2 3 3 5 5 at once, three pairs 20, four saved. 146 points written."""
    return {
        "format": "yahtzee-log/1", "rules": "maxi-yatzy", "players": ["Sol"],
        "turns": [
            {"player": "Sol", "rolls": [[6, 6, 6, 6, 6, 6]], "box": "maxi_yatzy", "score": 100},
            {"player": "Sol", "rolls": [[3, 1, 2, 6, 5, 4]], "box": "Full straight", "score": 21},
            {"player": "Sol", "rolls": [[1, 1, 2, 3, 4, 5], [1, 1, 1, 2, 5, 6], [1, 1, 1, 3, 3, 4],
                                        [1, 1, 1, 1, 2, 6], [1, 1, 1, 1, 1, 5]],
             "held": [[1, 1], [1, 1, 1], [1, 1, 1], [1, 1, 1, 1]], "box": "ones", "score": 5},
            {"player": "Sol", "rolls": [[2, 2, 3, 3, 5, 5]], "box": "three_pairs", "score": 20},
        ],
    }


def test_hand_written_maxi_log_with_saved_rolls() -> None:
    from yahtzee_cli.formats.replay import replay_game

    game = maxi_log()
    rep = check_document(game)
    assert rep.valid, rep.problems
    (sol,) = rep.log.players
    assert sol.saved == 4 and sol.open_boxes == 16 and not rep.finished
    assert replay_game(game).players[0].total == 146
    # a fifth turn in progress: 3 rolls plus 4 saved, one used
    game["turns"].append({"player": "Sol", "rolls": [[1, 2, 2, 4, 5, 6]]})
    rep = check_document(game)
    assert rep.valid and rep.log.in_progress.rolls_left == 6


def test_hand_written_maxi_log_counts_every_saved_roll() -> None:
    """Had turn 1 used all three rolls, only turn 2's two would be saved: turn 3's five rolls are then
    exactly the allowance, and a sixth roll is one too many."""
    game = maxi_log()
    game["turns"][0].update(rolls=[[1, 2, 3, 4, 6, 6], [6, 6, 6, 6, 5, 5], [6, 6, 6, 6, 6, 6]],
                            held=[[6, 6], [6, 6, 6, 6]])
    assert check_game(game) == []
    game["turns"][2]["rolls"].append([1, 1, 1, 1, 1, 1])
    game["turns"][2]["held"].append([1, 1, 1, 1, 1])
    game["turns"][2]["score"] = 6
    assert [str(p) for p in check_game(game)] == [
        "/turns/2/rolls: 6 rolls, but 5 are allowed this turn (3 plus 2 saved)"]


# --------------------------------------------------------------------------- sheet and pass details


def test_impossible_scores_name_the_possible_ones_as_runs() -> None:
    # Yatzy's full house scores the five dice, 3a + 2b with a != b: 7, 8, 9, 11 to 24 and 26 to 28
    # (10 and 25 cannot be made), or 0; runs of three or more are written as ranges
    rs = R.preset("yatzy")
    boxes = dict.fromkeys(rs.keys, 0) | {"full_house": 10}
    sheet = {"format": "yahtzee-sheet/1", "rules": "yatzy", "players": [{"name": "A", "boxes": boxes}]}
    [p] = check_game(sheet)
    assert p.path == "/players/0/boxes/full_house"
    assert p.message.endswith("(possible: 0, 7-9, 11-24, 26-28)")


def test_a_written_player_total_must_match_the_columns() -> None:
    sheet = orjson.loads((FIX / "sheets/anna-and-ben.json").read_bytes())
    sheet["players"][0]["total"] = 420  # Anna's sheet: 105 upper + 315 lower
    assert check_game(sheet) == []
    sheet["players"][0]["total"] = 421
    assert [(p.path, p.message) for p in check_game(sheet)] == [
        ("/players/0/total", "total is 421, but the columns make it 420")]


def test_a_pass_with_a_non_number_bonus_is_refused() -> None:
    log = orjson.loads((FIX / "logs/pass.json").read_bytes())
    [t] = [t for t in log["turns"] if t.get("box", "") is None]
    t["bonus"] = False
    assert [p.path for p in check_game(log)] == [f"/turns/{log['turns'].index(t)}/bonus"]


def test_an_illegal_pass_names_the_best_score_bonus_included() -> None:
    # Triple Yahtzee with passes allowed: column 1 holds a 50 Yahtzee, so a second 6 6 6 6 6 earns a
    # 100 bonus there and (forced joker) goes in its Sixes: 30 + 100 = 130 beats the 50 the other
    # columns' Yahtzee boxes would give
    rules = {"preset": "triple-yahtzee", "settings": {"must_zero": False}}
    turns = [{"player": "A", "rolls": [[6, 6, 6, 6, 6]], "box": "yahtzee", "column": 1},
             {"player": "A", "rolls": [[6, 6, 6, 6, 6]], "box": None}]
    log = {"format": "yahtzee-log/1", "rules": rules, "players": ["A"], "turns": turns}
    [p] = check_game(log)
    assert p.path == "/turns/1/box" and "6 6 6 6 6 scores 130 in sixes" in p.message
