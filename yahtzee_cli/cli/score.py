"""`yahtzee score`: what a roll scores in every box, for one roll or many piped on stdin."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from ..rules import RulesError, RuleSet, parse_dice, score_roll
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
) -> None:
    """Score a roll in every box of the rule set."""
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
    bad = 0
    out = sys.stdout
    for lineno, raw in enumerate(sys.stdin, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            scores = _one(rs, line.split())
        except RulesError as exc:
            sys.stderr.write(f"yahtzee: error: line {lineno}: {exc}\n")
            bad += 1
            continue
        faces = sorted(parse_dice(line.split()))
        if json:
            rec: dict[str, object] = {"line": lineno, "dice": faces, "scores": scores}
            if box_key is not None:
                rec["score"] = scores[box_key]
            write_json(rec)
        elif box_key is not None:
            out.write(f"{scores[box_key]}\n")
        else:
            out.write(" ".join(map(str, faces)) + "\t" + " ".join(f"{k}={v}" for k, v in scores.items()) + "\n")
    out.flush()
    if bad:
        raise typer.Exit(PROBLEM)
