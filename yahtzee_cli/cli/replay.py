"""`yahtzee replay`: a game log or score sheet as score sheets, standings and the state of the game."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from .app import PROBLEM, USAGE, JsonOpt, SetOpt, app, fail, peek_batch, write_json
from .validate import source_name


@app.command()
def replay(
    file: Annotated[
        typer.FileBinaryRead,
        typer.Argument(help="A game log or score sheet (JSON, or NDJSON with one game per line); '-' reads stdin.",
                       show_default=False),
    ],
    set_: SetOpt = None,
    until: Annotated[
        int | None,
        typer.Option("--until", min=0, help="Replay only the first N turns of a log.", show_default=False),
    ] = None,
    json: JsonOpt = False,
    analyze: Annotated[
        bool,
        typer.Option("--analyze", help="Grade every decision (keeps, stopping, boxes) against optimal play: expected "
                     "points lost per player, the worst five; a batch gives per-player totals over all games."),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="With --analyze: a table of every decision, turn by turn.")
    ] = False,
) -> None:
    """Replay games into score sheets with derived rows and standings; --set recalculates under other house rules;
    --analyze grades every decision against optimal play."""
    if analyze or verbose:
        from .analyze import run_analyze

        if not analyze:
            fail("--verbose goes with --analyze", USAGE)
        if set_:
            fail("--analyze grades a game under its own rules; leave out --set", USAGE)
        run_analyze(file, until=until, json=json, verbose=verbose)
        return
    from ..logs import POKER_FORMAT, GameError, InputError, iter_documents
    from ..poker_log import check_match
    from ..poker_log import render as render_match
    from ..replay import render, replay_dict, replay_game
    from ..rules import RulesError, parse_setting
    from ..tallies import Tally

    try:
        overrides: dict[str, Any] = dict(parse_setting(s) for s in set_ or [])
    except RulesError as exc:
        fail(str(exc), USAGE)
    name = source_name(file)
    failed = 0
    shown = 0
    tally = Tally()  # a batch ends with a per-player summary (wins, ties, best, mean, personal bests)
    try:
        batch, docs = peek_batch(iter_documents(file))
        for doc in docs:
            where = f"{name}:{doc.line}: game {doc.index}"
            if doc.problem is not None:
                sys.stderr.write(f"yahtzee: error: {where}: {doc.problem}\n")
                failed += 1
                continue
            if isinstance(doc.data, dict) and doc.data.get("format") == POKER_FORMAT:
                if overrides or until is not None:
                    fail("a poker-dice match has no house-rule settings or turns: leave out --set and --until", USAGE)
                match, problems = check_match(doc.data)
                if match is None or problems:
                    for p in problems:
                        sys.stderr.write(f"yahtzee: error: {where}: {p}\n")
                    failed += 1
                    continue
                ranks = match.ranks()
                counted = tally.add([(p, match.wins[p], ranks[p]) for p in match.players], match.over)
                if json:
                    data = match.as_dict()
                    if batch:
                        data["tally"] = counted.as_dict()
                    write_json(data)
                else:
                    text = render_match(match)
                    sys.stdout.write((f"{chr(10) if shown else ''}== {where} ==\n" if batch else "") + text + "\n")
                shown += 1
                continue
            try:
                rp = replay_game(doc.data, overrides=overrides, until=until)
            except GameError as exc:
                for p in exc.problems:
                    sys.stderr.write(f"yahtzee: error: {where}: {p}\n")
                failed += 1
                continue
            except RulesError as exc:
                fail(f"--set: {exc}", USAGE)
            except ValueError as exc:
                fail(str(exc), USAGE)
            counted = tally.add([(p.name, p.total, p.rank) for p in rp.players], rp.game_over)
            if json:
                data = replay_dict(rp)
                if batch:
                    data["tally"] = counted.as_dict()
                write_json(data)
            else:
                text = render(rp)
                if batch and counted.solo and counted.running_best is not None:
                    text += (f"\npersonal best: {counted.running_best} (new)" if counted.personal_best
                             else f"\npersonal best so far: {counted.running_best}")
                if batch:
                    text = f"{chr(10) if shown else ''}== {where} ==\n{text}"
                sys.stdout.write(text + "\n")
                sys.stdout.flush()
            shown += 1
    except InputError as exc:
        fail(f"{name}: {exc}", PROBLEM)
    if batch:
        if json:
            write_json({"summary": tally.as_dict()})
        else:
            sys.stdout.write(f"\n{tally.render()}\n")
    if failed:
        raise typer.Exit(PROBLEM)
