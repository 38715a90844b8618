"""`yahtzee score`: what a roll scores in every box, for one roll or many piped on stdin."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from ..errors import PROBLEM, RulesError
from ..formats.output import Output
from ..rules.engine import RuleSet, parse_dice, parse_setting, score_roll
from .app import BoxOpt, RulesOpt, SetOpt, app, error, examples, fail, file_option, get_rules, outputs


def _one(rules: RuleSet, parts: list[str]) -> dict[str, int]:
    return score_roll(rules, parse_dice(parts))


@app.command(short_help="What a roll scores in every box.", epilog=examples(
    "yahtzee score 33322",
    "yahtzee score 3 3 3 2 2 --rules yatzy --box full_house",
    "yahtzee score 66666 --json | jq .scores.yahtzee",
    "printf '12345\\n66655\\n' | yahtzee score - --csv",
    "yahtzee score 12345 --rules <(yahtzee rules yatzy --json)",
))
@outputs(silences="all")
def score(
    dice: Annotated[
        list[str],
        typer.Argument(metavar="DICE", help="The dice: '3 3 3 2 2', '33322', or '-' to read one roll per line from "
                       "stdin.", show_default=False),
    ],
    rules: RulesOpt = None,
    set_: SetOpt = None,
    box: BoxOpt = None,
    json: bool = False,
    csv: bool = False,
    quiet: bool = False,
    sheet: Annotated[
        str | None,
        typer.Option("--sheet", metavar="FILE", help="A partly filled one-player sheet (yahtzee-sheet/1) or game "
                     "log: show the boxes legal now and what each would write.", show_default=False),
    ] = None,
    *,
    out: Output,
) -> None:
    """Score a roll in every box of the rule set (or on a partly filled sheet with --sheet)."""
    if sheet is not None:
        _on_sheet(sheet, dice, rules, set_, box, out)
        return
    rs = get_rules(rules, set_)
    box_key = None
    if box is not None:
        box_key = rs.keys[rs.box_index(box)]
    if dice == ["-"]:
        _batch(rs, box_key, out)
        return
    try:
        rec = score_record(rs, dice, None, box_key)
    except RulesError as exc:
        fail(str(exc))
    out.record(rec)
    if box_key is not None and out.rows:  # one roll, one box: its score alone, in every form but JSON
        out.row([rec["score"]])
        return
    out.header(_csv_columns(rs))
    out.row(_csv_values(rec))
    if box_key is not None:
        out.say(rec["score"])
    else:
        _table(out, rs, rec["dice"], rec["scores"])


def score_record(rs: RuleSet, parts: list[str], line: int | None, box_key: str | None) -> dict[str, Any]:
    """What a roll scores, as the JSON record `score` writes for one roll and for each line of a batch."""
    scores = _one(rs, parts)
    rec: dict[str, Any] = {"type": "score", "line": line, "dice": sorted(parse_dice(parts)), "rules": rs.record(),
                           "scores": scores}
    if box_key is not None:
        rec["box"] = box_key
        rec["score"] = scores[box_key]
    return rec


def _table(out: Output, rs: RuleSet, faces: list[int], scores: dict[str, int]) -> None:
    from ..formats.render import text

    rows: list[list[object]] = [["box", "name", "score"]]
    rows += [[b.key, b.label, scores[b.key]] for b in rs.boxes]
    out.text(text(rows, left={0, 1}, title=f"{' '.join(map(str, faces))}  ({rs.name})"))


def _csv_columns(rs: RuleSet) -> list[str]:
    return ["line", "dice", *rs.keys]


def _csv_values(rec: dict[str, Any]) -> list[Any]:
    return [rec["line"], "".join(map(str, rec["dice"])), *rec["scores"].values()]


def _batch(rs: RuleSet, box_key: str | None, out: Output) -> None:
    """One result per input line, in order; a bad line is reported with its number (on stderr, and in
    its place as an error record with --json) and the batch goes on (exit 1)."""
    from ..errors import InputError, ProblemCode
    from ..formats.logs import MAX_LINE, iter_lines

    bad = 0
    widths = [max(len(k), 3) for k in rs.keys]
    out.header(_csv_columns(rs))
    if box_key is None:
        out.text("dice".ljust(2 * rs.dice - 1) + "  " + "  ".join(k.rjust(w) for k, w in zip(rs.keys, widths,
                 strict=True)) + "\n")

    def bad_line(lineno: int, text: str, message: str, code: ProblemCode) -> None:
        nonlocal bad
        error(f"line {lineno}: {message}")
        bad += 1
        out.record({"type": "problem", "line": lineno, "input": text, "code": code, "message": message})
        out.row([lineno, *[None] * (len(rs.keys) + 1)])  # the row keeps its place: its line number alone
        out.text("\n")  # text keeps its place too: an empty line, so `paste` pairs every input with its output

    try:
        for lineno, raw in iter_lines(sys.stdin.buffer):
            if raw is None:
                bad_line(lineno, "", f"longer than {MAX_LINE >> 20} MiB; a roll is a few dice",
                         ProblemCode.LINE_TOO_LONG)
                continue
            try:
                line = raw.decode("utf-8").strip()
            except UnicodeDecodeError:
                bad_line(lineno, raw.decode("utf-8", "replace").strip(), "not UTF-8 text", ProblemCode.NOT_UTF8)
                continue
            if not line or line.startswith("#"):
                continue
            try:
                dice = parse_dice(line.split())
                rec = score_record(rs, [str(d) for d in dice], lineno, box_key)
            except RulesError as exc:
                bad_line(lineno, line, str(exc), ProblemCode.BAD_DICE)
                continue
            out.record(rec)
            out.row(_csv_values(rec))
            if box_key is not None:
                out.text(f"{rec['score']}\n")
            else:
                out.text(" ".join(map(str, rec["dice"])) + "  " + "  ".join(
                    str(v).rjust(w) for v, w in zip(rec["scores"].values(), widths, strict=True)) + "\n")
    except InputError as exc:
        out.flush()
        fail(f"<stdin>: {exc}", PROBLEM)
    out.flush()
    if bad:
        raise typer.Exit(PROBLEM)


SHEET_CSV = ("box", "column", "score", "bonus", "joker")  # score --sheet --csv: a row per legal box


def _on_sheet(sheet: str, dice: list[str], rules: str | None, set_: list[str] | None,
              box: str | None, out: Output) -> None:
    """`score DICE --sheet FILE`: the boxes legal now on a partly filled sheet, what each writes, any bonus."""
    from ..formats.logs import read_file
    from ..formats.replay import position_from_data, roll_choices

    if rules is not None:
        fail("--sheet names its own rules; leave out --rules (change settings with --set)")
    if dice == ["-"]:
        fail("--sheet scores one roll: give the dice, not '-'")
    overrides = dict(parse_setting(s) for s in set_ or [])
    faces = parse_dice(dice)
    with file_option("--sheet"):
        pos = position_from_data(read_file(sheet), None, overrides)
    rs = pos.rules
    choice = roll_choices(pos, faces)
    multi = rs.settings.columns > 1
    legal: list[dict[str, Any]] = [
        {"box": rs.keys[o.box], "column": o.column + 1, "score": o.score, "bonus": o.bonus, "joker": o.joker}
        for o in choice.legal
    ]
    if box is not None:
        key = rs.keys[rs.box_index(box)]
        hits = [o for o in legal if o["box"] == key]
        if not hits:
            fail(f"{key} is not legal now; legal: {', '.join(o['box'] for o in legal) or 'none (the sheet is full)'}",
                 PROBLEM)
    else:
        hits = legal
    out.record({"type": "score", "line": None, "dice": list(choice.dice), "rules": rs.record(),
                "player": pos.player, "scores": dict(zip(rs.keys, rs.natural_scores(choice.dice), strict=True)),
                "legal": hits, "bonus": choice.bonus, "may_pass": choice.may_pass})
    if out.json:  # the record says it all, a full sheet too
        return
    if not legal:
        fail("the sheet is full: no box is left for this roll", PROBLEM)
    out.table(SHEET_CSV, ([o["box"], o["column"], o["score"], o["bonus"], o["joker"]] for o in hits))
    if box is not None:
        for o in hits:
            out.say(f"column {o['column']}: {o['score']}" if multi else o["score"])
        return
    from ..formats.render import text

    head: list[object] = ["box", "name", *(["column"] if multi else []), "score"]
    rows: list[list[object]] = [head]
    for o in legal:
        label = rs.boxes[rs.keys.index(str(o["box"]))].label + (" (joker)" if o["joker"] else "")
        rows.append([o["box"], label] + ([o["column"]] if multi else []) + [o["score"]])
    shown = text(rows, left={0, 1}, title=f"{' '.join(map(str, choice.dice))}  ({rs.name}, {pos.player})")
    if choice.bonus and multi:  # each column that earns it (a column whose Yahtzee box holds 0 does not)
        for col in sorted({o["column"] for o in legal if o["bonus"]}):
            earned = max(o["bonus"] for o in legal if o["column"] == col)
            shown += f"extra Yahtzee bonus in column {col}: +{earned}\n"
    elif choice.bonus:
        shown += f"extra Yahtzee bonus: +{choice.bonus}\n"
    if choice.may_pass:
        shown += "nothing scores: the turn may be passed (must_zero is off)\n"
    out.text(shown)
