"""`yahtzee score`: what a roll scores in every box, for one roll or many piped on stdin."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from ..rules import RulesError, RuleSet, parse_dice, parse_setting, score_roll
from .app import PROBLEM, JsonOpt, RulesOpt, SetOpt, app, console, fail, get_rules, write_json


def _one(rules: RuleSet, parts: list[str]) -> dict[str, int]:
    return score_roll(rules, parse_dice(parts))


@app.command()
def score(
    dice: Annotated[
        list[str],
        typer.Argument(help="The dice: '3 3 3 2 2', '33322', or '-' to read one roll per line from stdin.",
                       show_default=False),
    ],
    rules: RulesOpt = None,
    set_: SetOpt = None,
    box: Annotated[str | None, typer.Option("--box", "-b", help="Print only this box's score.")] = None,
    json: JsonOpt = False,
    sheet: Annotated[
        typer.FileBinaryRead | None,
        typer.Option("--sheet", help="A partly filled one-player sheet (yahtzee-sheet/1) or game log: show the "
                     "boxes legal now and what each would write.", show_default=False),
    ] = None,
) -> None:
    """Score a roll in every box of the rule set, or in the context of a partly filled sheet (--sheet)."""
    if sheet is not None:
        _on_sheet(sheet, dice, rules, set_, box, json)
        return
    rs = get_rules(rules, set_)
    box_key = None
    if box is not None:
        try:
            box_key = rs.keys[rs.box_index(box)]
        except RulesError as exc:
            fail(str(exc))
    if dice == ["-"]:
        _batch(rs, box_key, json)
        return
    try:
        scores = _one(rs, dice)
    except RulesError as exc:
        fail(str(exc))
    faces = sorted(parse_dice(dice))
    if json:
        payload: dict[str, object] = {"rules": rs.name, "dice": faces, "scores": scores}
        if box_key is not None:
            payload["box"] = box_key
            payload["score"] = scores[box_key]
        write_json(payload)
    elif box_key is not None:
        typer.echo(scores[box_key])
    else:
        _table(rs, faces, scores)


def _table(rs: RuleSet, faces: list[int], scores: dict[str, int]) -> None:
    from rich.table import Table

    table = Table(title=f"{' '.join(map(str, faces))}  ({rs.name})", title_justify="left")
    table.add_column("box")
    table.add_column("name")
    table.add_column("score", justify="right")
    for b in rs.boxes:
        table.add_row(b.key, b.label, str(scores[b.key]))
    console().print(table)


def _batch(rs: RuleSet, box_key: str | None, json: bool) -> None:
    """One result per input line; a bad line is reported with its number and skipped (exit 1)."""
    from ..logs import MAX_LINE, InputError, iter_lines

    bad = 0
    out = sys.stdout
    try:
        for lineno, raw in iter_lines(sys.stdin.buffer):
            if raw is None:
                sys.stderr.write(f"yahtzee: error: line {lineno}: longer than {MAX_LINE >> 20} MiB; a roll is "
                                 "a few dice\n")
                bad += 1
                continue
            try:
                line = raw.decode("utf-8").strip()
                if not line or line.startswith("#"):
                    continue
                dice = parse_dice(line.split())
                scores = _one(rs, [str(d) for d in dice])
            except UnicodeDecodeError:
                sys.stderr.write(f"yahtzee: error: line {lineno}: not UTF-8 text\n")
                bad += 1
                continue
            except RulesError as exc:
                sys.stderr.write(f"yahtzee: error: line {lineno}: {exc}\n")
                bad += 1
                continue
            faces = sorted(dice)
            if json:
                rec: dict[str, object] = {"line": lineno, "dice": faces, "scores": scores}
                if box_key is not None:
                    rec["score"] = scores[box_key]
                write_json(rec)
            elif box_key is not None:
                out.write(f"{scores[box_key]}\n")
            else:
                out.write(" ".join(map(str, faces)) + "\t" + " ".join(f"{k}={v}" for k, v in scores.items()) + "\n")
    except InputError as exc:
        out.flush()
        fail(f"<stdin>: {exc}", PROBLEM)
    out.flush()
    if bad:
        raise typer.Exit(PROBLEM)


def _on_sheet(sheet: typer.FileBinaryRead, dice: list[str], rules: str | None, set_: list[str] | None,
              box: str | None, json: bool) -> None:
    """`score DICE --sheet FILE`: the boxes legal now on a partly filled sheet, what each writes, any bonus."""
    from ..logs import GameError, InputError, read_document
    from ..replay import position_from_data, roll_choices

    if rules is not None:
        fail("--sheet names its own rules; leave out --rules (change settings with --set)")
    if dice == ["-"]:
        fail("--sheet scores one roll: give the dice, not '-'")
    try:
        overrides = dict(parse_setting(s) for s in set_ or [])
        faces = parse_dice(dice)
    except RulesError as exc:
        fail(str(exc))
    try:
        pos = position_from_data(read_document(sheet), None, overrides)
    except (InputError, GameError) as exc:
        fail(f"--sheet: {exc}", PROBLEM)
    except RulesError as exc:
        fail(f"--set: {exc}")
    except ValueError as exc:
        fail(f"--sheet: {exc}", PROBLEM)
    rs = pos.rules
    try:
        choice = roll_choices(pos, faces)
    except RulesError as exc:
        fail(str(exc))
    multi = rs.settings.columns > 1
    legal: list[dict[str, Any]] = [
        {"box": rs.keys[o.box], "column": o.column + 1, "score": o.score, "bonus": o.bonus, "joker": o.joker}
        for o in choice.legal
    ]
    if box is not None:
        try:
            key = rs.keys[rs.box_index(box)]
        except RulesError as exc:
            fail(str(exc))
        hits = [o for o in legal if o["box"] == key]
        if not hits:
            fail(f"{key} is not legal now; legal: {', '.join(o['box'] for o in legal) or 'none (the sheet is full)'}",
                 PROBLEM)
    else:
        hits = legal
    if json:
        write_json({"rules": rs.name, "dice": list(choice.dice), "player": pos.player,
                    "scores": dict(zip(rs.keys, rs.natural_scores(choice.dice), strict=True)),
                    "legal": hits, "bonus": choice.bonus, "may_pass": choice.may_pass})
        return
    if not legal:
        fail("the sheet is full: no box is left for this roll", PROBLEM)
    if box is not None:
        for o in hits:
            typer.echo(f"column {o['column']}: {o['score']}" if multi else o["score"])
        return
    from rich.table import Table

    table = Table(title=f"{' '.join(map(str, choice.dice))}  ({rs.name}, {pos.player})", title_justify="left")
    table.add_column("box")
    table.add_column("name")
    if multi:
        table.add_column("column", justify="right")
    table.add_column("score", justify="right")
    for o in legal:
        label = rs.boxes[rs.keys.index(str(o["box"]))].label + (" (joker)" if o["joker"] else "")
        cells = [str(o["box"]), label] + ([str(o["column"])] if multi else []) + [str(o["score"])]
        table.add_row(*cells)
    out = console()
    out.print(table)
    if choice.bonus:
        out.print(f"extra Yahtzee bonus: +{choice.bonus}")
    if choice.may_pass:
        out.print("nothing scores: the turn may be passed (must_zero is off)")
