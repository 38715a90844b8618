"""`yahtzee replay`: game logs or score sheets as score sheets, standings and the state of each game."""

from __future__ import annotations

from typing import Annotated, Any, NamedTuple

import typer

from ..errors import PROBLEM, USAGE
from ..formats.output import Output
from .analyze import GradeWorkersOpt, UntilOpt
from .app import RiskOpt, SetOpt, app, error, examples, fail, note, outputs
from .batch import Backend, BackendOpt, SchedulerOpt, check_paths, check_workers, peek_batch
from .log_cmd import GameFilesArg, game_files

CSV_COLUMNS = ("file", "line", "game", "rank", "player", "total", "game_over")


class Shown(NamedTuple):
    """One game (or poker match) as replay shows it, in every form: its JSON record and tally, its
    standings (rank, name, total), whether it is over, where it is, its full text, and a solo player's
    personal-best remark."""

    record: dict[str, Any]
    counted: Any
    ranked: list[tuple[int, str, int]]
    over: bool
    at: tuple[Any, int, int]  # file, line, game
    where: str
    text: str
    best: str


def show(out: Output, g: Shown, batch: bool, verbose: bool, first: bool) -> None:
    """One game's output in the chosen form, for a yahtzee game and a poker match alike."""
    out.record({**g.record, "tally": g.counted.as_dict()})  # the same record alone and in a batch
    out.header(CSV_COLUMNS)
    for rank, name, total in g.ranked:
        out.row([*g.at, rank, name, total, str(g.over).lower()])
    if batch and not verbose:
        state = "" if g.over else "  (unfinished)"
        row = f"{g.where}: " + ", ".join(f"{rank}. {name} {total}" for rank, name, total in g.ranked) + state
        out.text(f"{row}; {g.best}\n" if g.best else row + "\n")
    else:
        body = g.text + (f"\n{g.best}" if g.best else "")
        out.text((f"{'' if first else chr(10)}== {g.where} ==\n" if batch else "") + body + "\n", flush=True)


@app.command(short_help="Score sheets, totals and standings of games.", epilog=examples(
    "yahtzee replay game.json",
    "yahtzee replay game.json --set joker=free",
    "yahtzee replay logs/ --json | jq -c 'select(.type == \"game\") | {file, game, standings}'",
    "yahtzee replay game.json --analyze      (the same as: yahtzee analyze game.json)",
))
@outputs()
def replay(
    files: GameFilesArg = None,
    set_: SetOpt = None,
    until: UntilOpt = None,
    json: bool = False,
    csv: bool = False,
    analyze: Annotated[
        bool,
        typer.Option("--analyze", help="The same as `yahtzee analyze`: grade every decision against optimal play."),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Every game's full score sheet in a batch (without it, one line "
                           "of standings per game); with --analyze, every decision.")
    ] = False,
    risk: RiskOpt = None,
    quiet: bool = False,
    workers: GradeWorkersOpt = None,
    backend: BackendOpt = Backend.local,
    scheduler: SchedulerOpt = None,
    *,
    out: Output,
) -> None:
    """Replay games into score sheets with totals and standings; --set recalculates under other house rules."""
    if risk is not None and not analyze:
        fail("--risk grades against a risk strategy: add --analyze")
    check_workers(workers, backend, scheduler)
    if workers is not None and not analyze and backend is Backend.local:
        fail("--workers grades games on several cores: add --analyze (a replay is quick on one core)")
    sources = check_paths(game_files(files, "replay"))
    if analyze:
        from .analyze import run_analyze

        if set_:
            fail("--analyze grades a game under its own rules; leave out --set", USAGE)
        run_analyze(sources, out, until=until, verbose=verbose, risk=risk, workers=workers, backend=backend.value,
                    scheduler=scheduler)
        return
    from ..errors import RulesError, YahtzeeError
    from ..formats.inputs import Game, bad_game_record
    from ..formats.poker_log import render as render_match
    from ..formats.replay import game_record, render
    from ..formats.tallies import Tally
    from ..play.fanout import replayed
    from ..play.odds import chances_note, game_odds
    from ..rules.engine import parse_setting
    from .progress import waiting

    try:
        overrides: dict[str, Any] = dict(parse_setting(s) for s in set_ or [])
    except RulesError as exc:
        fail(str(exc), USAGE)
    failed = 0
    shown = 0
    tally = Tally()  # a batch ends with a summary per rule set and player (wins, ties, best, mean, personal bests)
    try:
        batch, items = peek_batch(replayed(sources, overrides=overrides, until=until, backend=backend.value,
                                           scheduler=scheduler, workers=workers))
    except YahtzeeError as exc:
        fail(str(exc), exc.exit_status)
    batch = batch or len(sources) > 1
    full_text = out.is_text and not (batch and not verbose)  # each game's whole text is shown
    for done in items:
        item = done.item
        if not isinstance(item, Game):
            error(f"{item.source.name}: {item.message}")
            out.record(bad_game_record(item.source.name, None, [], item.code, item.message))
            failed += 1
            continue
        doc = item.doc
        where = item.where
        if doc.problem is not None:
            error(f"{where}: {doc.problem}")
            out.record(bad_game_record(item.file, doc, [doc.problem]))
            failed += 1
            continue
        head = {"file": item.file, "line": doc.line, "game": doc.index}
        if done.poker:
            if overrides or until is not None:
                fail("a poker-dice match has no house-rule settings or turns: leave out --set and --until", USAGE)
            match, problems = done.match, done.problems
            if match is None or problems:
                for p in problems:
                    error(f"{item.file}:{doc.line_of(p.path)}: game {doc.index}: {p}")
                out.record(bad_game_record(item.file, doc, problems))
                failed += 1
                continue
            ranks = match.ranks()
            counted = tally.add([(p, match.wins[p], ranks[p]) for p in match.players], match.over)
            ranked = sorted(((ranks[p], p, match.wins[p]) for p in match.players), key=lambda r: r[0])
            show(out, Shown({"type": "game", **head, **match.as_dict()}, counted, ranked, match.over,
                             (item.file, doc.line, doc.index), where, render_match(match) if full_text else "", ""),
                 batch, verbose, not shown)
            shown += 1
            continue
        if done.rules_error is not None:
            fail(f"--set: {done.rules_error}", USAGE)
        if done.until_error is not None:
            fail(f"--until: {done.until_error}", USAGE)
        rp = done.replay
        if rp is None:  # not a valid game
            for p in done.problems:
                error(f"{item.file}:{doc.line_of(p.path)}: game {doc.index}: {p}")
            out.record(bad_game_record(item.file, doc, done.problems))
            failed += 1
            continue
        chances = None
        if out.json or (full_text and not rp.game_over):
            with waiting("computing the chances to win", quiet=out.quiet):
                chances = game_odds(rp, note)
        missing = chances_note(rp) if chances is None else None
        counted = tally.add([(p.name, p.total, p.rank) for p in rp.players], rp.game_over, rp.rules.record())
        ranked = [(p.rank, p.name, p.total) for p in sorted(rp.players, key=lambda p: p.rank)]
        best = ""
        if batch and counted.solo and counted.running_best is not None:
            best = (f"personal best: {counted.running_best} (new)" if counted.personal_best
                    else f"personal best so far: {counted.running_best}")
        show(out, Shown(game_record(item.file, doc.line, doc.index, rp, chances, missing), counted, ranked,
                        rp.game_over, (item.file, doc.line, doc.index), where,
                        render(rp, chances, missing) if full_text else "", best),
             batch, verbose, not shown)
        shown += 1
    out.record({"type": "summary", **tally.as_dict(), "problems": failed})  # a stream always ends with it
    if batch:
        out.text(f"\n{tally.render()}\n")
    if failed:
        raise typer.Exit(PROBLEM)
