"""`yahtzee solve` (build and cache the optimal-strategy table) and `yahtzee hint` (rank the options
of a position by expected final score). Heavy imports stay inside the commands; `hint` with a cached
table never imports numpy or numba."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import RulesError
from ..rules.engine import parse_dice, parse_setting
from .app import (
    PROBLEM,
    USAGE,
    JsonOpt,
    QuietOpt,
    RulesOpt,
    SetOpt,
    app,
    examples,
    fail,
    get_rules,
    progress_wanted,
    warn,
    write_json,
)

if TYPE_CHECKING:
    from ..rules.engine import Column, RuleSet
    from ..strategy.turn import Evaluation


def _say(message: str) -> None:
    warn(message)


class _Bar:
    """A rich progress bar on stderr (only when stderr is a terminal)."""

    def __init__(self, label: str) -> None:
        self.progress: Any = None
        self.task: Any = None
        self.label = label

    def __call__(self, done: int, total: int) -> None:
        if self.progress is None:
            from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

            from .app import console

            self.progress = Progress(TextColumn("{task.description}"), BarColumn(),
                                     TextColumn("{task.percentage:>3.0f}%"), TimeElapsedColumn(),
                                     console=console(stderr=True), transient=True)
            self.progress.start()
            self.task = self.progress.add_task(self.label, total=total)
        self.progress.update(self.task, completed=min(done, total))

    def close(self) -> None:
        if self.progress is not None:
            self.progress.stop()


@app.command(short_help="Expected score of optimal play (builds the table).", epilog=examples(
    "yahtzee solve",
    "yahtzee solve --rules yatzy --json",
))
def solve(
    rules: RulesOpt = None,
    set_: SetOpt = None,
    json: JsonOpt = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build the table even when it is cached.")] = False,
    quiet: QuietOpt = False,
) -> None:
    """Build the optimal-strategy table (cached by rule set) and print the expected score and its SD.

    Rule sets without an exact table (several columns, saved rolls) prepare the approximate strategy
    instead and print its simulated mean, labelled approximate."""
    rs = get_rules(rules, set_)
    from ..strategy import tablefile as cache
    from ..strategy.choice import plan

    start = time.perf_counter()
    bar = _Bar(f"solving {rs.name}") if progress_wanted() else None
    tab = None
    try:
        if plan(rs).exact:
            from ..solver.exact import get_table

            tab, built = get_table(rs, _say, rebuild=rebuild, progress=bar)
        else:
            from ..solver import approx

            info = approx.prepare(rs, _say, rebuild=rebuild)
    except OSError as exc:
        fail(f"cannot use the cache directory {cache.cache_dir()}: {exc.strerror}", PROBLEM)
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start
    if tab is not None:
        path = cache.table_path(tab.fingerprint)
        stored = path.exists()  # not when the cache directory cannot be written
        out: dict[str, Any] = {
            "rules": rs.record(), "exact": True, "approximation": None, "expected": tab.mean, "sd": tab.sd,
            "states": int(tab.meta.get("states", 0)), "table_bytes": path.stat().st_size if stored else None,
            "built": built, "build_seconds": round(tab.build_seconds, 3) if built else None,
            "seconds": round(seconds, 3), "path": str(path) if stored else None,
        }
        if json:
            write_json(out)
            return
        if quiet:
            return
        typer.echo(f"{rs.name}: expected score {tab.mean:.7f}, SD {tab.sd:.4f} (exact, optimal play)")
        how = f"built in {tab.build_seconds:.2f} s" if built else "loaded from the cache"
        typer.echo(f"{out['states']:,} turn-start states, {how}: {path if stored else 'not cached'}")
        return
    out = {"rules": rs.record(), "exact": False, "approximation": f"{info['strategy']} ({info['why']})",
           "expected": info["mean"], "sd": info["sd"], "games": info["games"], "seconds": round(seconds, 3),
           "path": info["path"]}
    if json:
        write_json(out)
        return
    if quiet:
        return
    typer.echo(f"{rs.name}: expected score about {info['mean']:.2f}, SD {info['sd']:.2f} (approximate strategy: "
               f"{info['strategy']}; mean of {info['games']:,} simulated games)")
    typer.echo(f"no exact table for these rules ({info['why']}); cached: {info['path'] or 'nothing'}")


# --------------------------------------------------------------------------- hint


def _position(rules: str | None, set_: list[str] | None, sheet: Path | None, log: Path | None,
              player: str | None) -> tuple[RuleSet, list[Column], str | None, Any]:
    """Rules, columns, player name and (log) the replay Position."""
    from ..rules.engine import Column

    if sheet is None and log is None:
        if player is not None:
            fail("--player goes with --log (or a sheet with several players)")
        rs = get_rules(rules, set_)
        return rs, [Column.empty(rs) for _ in range(rs.settings.columns)], None, None
    if sheet is not None and log is not None:
        fail("give --sheet or --log, not both")
    if rules is not None:
        fail("--sheet/--log name their own rules; leave out --rules (change settings with --set)")
    from ..errors import YahtzeeError
    from ..formats.logs import read_file
    from ..formats.replay import position_from_log, position_from_sheet

    try:
        overrides = dict(parse_setting(s) for s in set_ or [])
    except RulesError as exc:
        fail(str(exc))
    path = str(sheet if sheet is not None else log)
    opt = "--sheet" if sheet is not None else "--log"
    try:
        data = read_file(path)
        if sheet is not None:
            pos = position_from_sheet(data, player, overrides=overrides or None)
        else:
            pos = position_from_log(data, player, overrides=overrides or None)
    except RulesError as exc:
        fail(f"--set: {exc}")
    except YahtzeeError as exc:
        fail(f"{opt}: {exc}", PROBLEM)
    return pos.rules, list(pos.columns), pos.player, pos


def _text(ev: Evaluation, top: int | None, player: str | None) -> None:
    sys.stdout.write("\n".join(hint_lines(ev, top, player)) + "\n")


def hint_lines(ev: Evaluation, top: int | None, player: str | None) -> list[str]:
    """A hint as text: the position, then each option with its value and regret (also `play`'s `?`)."""
    rs = ev.rules
    kind = "exact" if ev.exact else f"APPROXIMATE: {ev.source}"
    who = f"{player}: " if player else ""
    left = "no rolls left" if ev.rolls_left == 0 else f"{ev.rolls_left} roll{'s' if ev.rolls_left > 1 else ''} left"
    lines = [f"{who}{' '.join(map(str, ev.dice))}, {left} ({rs.name}, {kind})"]
    rows = []
    for i, o in enumerate(ev.options if top is None else ev.options[:top]):
        if o.keep is not None:
            what = "keep " + (" ".join(map(str, o.keep)) if o.keep else "nothing (reroll all)")
            if len(o.keep) == len(ev.dice):
                what = "keep all (stop rolling)"
        elif o.is_pass:
            what = "pass"
        else:
            assert o.box is not None
            col = f" (column {o.column + 1})" if rs.settings.columns > 1 else ""
            bonus = f" +{o.bonus} bonus" if o.bonus else ""
            what = f"{rs.keys[o.box]}{col}: {o.score}{bonus}"
        regret = "best" if i == 0 else (f"-{o.regret:.4f}" if round(o.regret, 4) > 0 else "0.0000 (tie)")
        rows.append((what, f"{o.value:.4f}", regret))
    from ..formats.render import table

    return lines + table(rows, left={0, 2}, indent="  ")


@app.command(short_help="The best keep or box for a position.", epilog=examples(
    "yahtzee hint 1 3 3 5 6",
    "yahtzee hint 44444 --rolls-left 0 --sheet sheet.json --top 3",
    "yahtzee hint --log game.json --player Anna --json",
))
def hint(
    dice: Annotated[
        list[str] | None,
        typer.Argument(metavar="DICE", help="The dice showing: '1 3 3 5 6' or '13356' (optional with --log during a "
                       "turn).",
                       show_default=False),
    ] = None,
    rolls_left: Annotated[
        int | None,
        typer.Option("--rolls-left", metavar="N", help="Rerolls still allowed this turn: 2 (after the first "
                     "roll), 1, or 0 (choose a box).  [default: 2, or what the --log turn has left]",
                     show_default=False),
    ] = None,
    top: Annotated[
        int | None, typer.Option("--top", "-k", metavar="K", help="Show only the K best options.", min=1)
    ] = None,
    json: JsonOpt = False,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    sheet: Annotated[Path | None, typer.Option(
        "--sheet", metavar="FILE", help="A one-player score sheet (yahtzee-sheet/1): the position to advise.",
        show_default=False)] = None,
    log: Annotated[Path | None, typer.Option(
        "--log", metavar="FILE", help="A game log (yahtzee-log/1): advise --player after their turns so far.",
        show_default=False)] = None,
    player: Annotated[str | None, typer.Option(
        "--player", "-p", metavar="NAME", help="Whose position in --log or --sheet.", show_default=False)] = None,
    saved: Annotated[int | None, typer.Option(
        "--saved", metavar="N", help="Rolls saved from earlier turns (saved_rolls rules).", min=0,
        show_default=False)] = None,
    beat: Annotated[str | None, typer.Option(
        "--beat", metavar="HAND", help="Poker dice: rank the keeps by the exact chance of beating this hand, "
        "e.g. 44422.", show_default=False)] = None,
) -> None:
    """Rank every option of a position by expected final score: the keeps while rolls are left, the
    legal boxes (joker rules included) when none are. Values include the points already on the sheet;
    regret is the expected loss against the best option. With --beat, poker dice: the keeps by the
    chance of beating a hand."""
    if beat is not None:
        from .poker import poker_hint

        if rules or set_ or sheet or log or player or saved is not None:
            fail("--beat is poker dice, played without a score sheet: leave out --rules, --set, --sheet, --log, "
                 "--player and --saved", USAGE)
        if not dice:
            fail("give the dice showing, e.g. yahtzee hint 13356 --beat 44422", USAGE)
        poker_hint(dice, beat, rolls_left, top, json)
        return
    rs, columns, who, pos = _position(rules, set_, sheet, log, player)
    if pos is not None and pos.finished:
        fail(f"{pos.player}'s sheet is full: the game is over", PROBLEM)
    n_saved = saved if saved is not None else (pos.saved if pos is not None else 0)
    faces: list[int]
    if dice:
        try:
            faces = parse_dice(dice)
        except RulesError as exc:
            fail(str(exc))
        left = 2 if rolls_left is None else rolls_left
    elif pos is not None and pos.dice is not None:
        faces = list(pos.dice)
        left = pos.rolls_left if rolls_left is None else rolls_left
    else:
        fail("give the dice (the position has no turn in progress)")
    from ..play.hint import hint as evaluate
    from ..rules.engine import rolls_allowed

    allowed = rolls_allowed(rs, n_saved) - 1
    if not 0 <= left <= allowed:
        choices = "2|1|0" if allowed == 2 else f"0-{allowed}"
        fail(f"--rolls-left takes {choices} here, got {left}", USAGE)
    rs.check_dice(faces)
    try:
        ev = evaluate(rs, columns, faces, left, n_saved, say=_say)
    except OSError as exc:
        from ..strategy import tablefile as cache

        fail(f"cannot use the cache directory {cache.cache_dir()}: {exc.strerror}", PROBLEM)
    if json:
        out = ev.to_dict(top)
        if who is not None:
            out["player"] = who
        write_json(out)
        return
    _text(ev, top, who)
