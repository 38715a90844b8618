"""`yahtzee hint`: rank the options of a position (play.advice: its modes and what each needs). With a
cached table it never imports numpy or numba."""


from pathlib import Path
from typing import Annotated

import typer

from ..formats.output import Output
from .app import PlotOpt, RiskOpt, RulesOpt, SetOpt, app, examples, fail, note, outputs
from .progress import waiting


@app.command(short_help="The best keep or box for a position.", epilog=examples(
    "yahtzee hint 1 3 3 5 6",
    "yahtzee hint 44444 --rolls-left 0 --sheet sheet.json --top 3",
    "yahtzee hint --log game.json --player Anna --json",
    "yahtzee hint --in-play      (the player to move in the library's game in play)",
    "yahtzee hint 1 3 3 5 6 --csv",
))
@outputs()
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
                     "roll), 1, or 0 (choose a box); with saved rolls up to 2 + --saved.  [default: all the turn "
                     "has after its first roll, 2 + --saved; or what the --log turn has left]",
                     show_default=False),
    ] = None,
    top: Annotated[
        int | None, typer.Option("--top", "-k", metavar="K", help="Show only the K best options.", min=1)
    ] = None,
    json: bool = False,
    csv: bool = False,
    rules: RulesOpt = None,
    set_: SetOpt = None,
    sheet: Annotated[Path | None, typer.Option(
        "--sheet", metavar="FILE", help="A one-player score sheet (yahtzee-sheet/1): the position to advise.",
        show_default=False)] = None,
    log: Annotated[Path | None, typer.Option(
        "--log", metavar="FILE", help="A game log (yahtzee-log/1): advise --player after their turns so far.",
        show_default=False)] = None,
    in_play: Annotated[bool, typer.Option(
        "--in-play", help="--log the library's game in play, without typing its file: the last game of the "
        "library's newest file (`yahtzee library`), while it is unfinished.")] = False,
    player: Annotated[str | None, typer.Option(
        "--player", "-p", metavar="NAME", help="Whose position in --log or --sheet.", show_default=False)] = None,
    saved: Annotated[int | None, typer.Option(
        "--saved", metavar="N", help="Rolls saved from earlier turns (saved_rolls rules): the turn has 3 + N "
        "rolls, so after its first roll 2 + N are left (--rolls-left counts them).", min=0,
        show_default=False)] = None,
    distribution: Annotated[bool, typer.Option("--distribution", help="Also each of the best options' exact chance "
                                               "of a final score >= --target (default: a round score near the "
                                               "median) under optimal play.")] = False,
    target: Annotated[int | None, typer.Option(
        "--target", metavar="T", help="Maximise P(final >= T) instead of the mean: the "
                                               "best option and risk strategy (theta from a small cached grid) "
                                               "by exact chance. With --distribution: the T to show.",
                                               show_default=False)] = None,
    risk: RiskOpt = None,
    to_win: Annotated[bool, typer.Option(
        "--to-win", help="With --log: rank the options by the chance to win against the other players "
        "as they stand (their optimal play assumed; a tie counts as a share), exactly where that takes "
        "a few seconds, else by the best risk strategy.")] = False,
    beat: Annotated[str | None, typer.Option(
        "--beat", metavar="HAND", help="Poker dice: rank the keeps by the exact chance of beating this hand, "
        "e.g. 44422.", show_default=False)] = None,
    plot: PlotOpt = None,
    *,
    out: Output,
) -> None:
    """Rank every option of a position by expected final score: the keeps while rolls are left, the
    legal boxes (joker rules included) when none are. Values include the points already on the sheet;
    regret is the expected loss against the best option. With --beat, poker dice: the keeps by the
    chance of beating a hand."""

    if in_play:
        from .files import game_file

        if log is not None or sheet is not None:
            fail("--in-play is the library's game in play; leave out --log and --sheet (or name the file with "
                 "--log FILE alone)")
        log = game_file(None)
    if csv and (beat is not None or distribution or target is not None or risk is not None or to_win):
        fail("--csv gives the ranking of the options; with --beat, --distribution, --target, --risk or --to-win "
             "use --json or text")
    from ..play.advice import HINT_CSV_HEAD, HintRequest, advise

    req = HintRequest(tuple(dice or ()), rolls_left, top, rules, tuple(set_ or ()), sheet, log, player, saved,
                      distribution, target, risk, to_win, beat, plot)
    with waiting("preparing the hint", quiet=out.quiet) as shown:
        advice = advise(req, note, shown.stage)
    out.record(advice.record)
    if advice.rows is not None:
        out.table(HINT_CSV_HEAD, advice.rows)
    out.text(advice.text)
