"""`yahtzee solve` (build and cache the optimal-strategy table) and `yahtzee hint` (rank the options
of a position by expected final score). Heavy imports stay inside the commands; `hint` with a cached
table never imports numpy or numba."""


import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import PROBLEM, USAGE, RulesError
from ..formats.output import Output
from ..rules.engine import parse_dice, parse_setting
from .app import (
    PlotOpt,
    RiskOpt,
    RulesOpt,
    SetOpt,
    app,
    examples,
    fail,
    file_option,
    get_rules,
    note,
    outputs,
    saved_rolls_note,
    warn,
)
from .progress import waiting

if TYPE_CHECKING:
    from ..rules.engine import Column, RuleSet
    from ..strategy.turn import Evaluation


def _say(message: str) -> None:
    note(message)



def _check_plot(plot: Path | None, distribution: bool) -> None:
    """--plot draws the exact distribution: it needs --distribution, a drawable file and the plot extra."""
    if plot is None:
        return
    if not distribution:
        fail("--plot draws the distribution of the final score: add --distribution")
    from ..formats.plot import check_plot_target

    check_plot_target(plot)


def _plot_distribution(plot: Path | None, series: list[tuple[str, Any]], target: int | None, title: str) -> None:
    if plot is not None:
        from ..formats.plot import distribution_figure

        distribution_figure(series, plot, target=target, title=title)
        note(f"wrote {plot}")


def _risk_solve(out: Output, rs: "RuleSet", theta: float, distribution: bool, target: int | None,
                rebuild: bool, plot: Path | None = None) -> None:
    from ..errors import NotExact
    from ..play.simulate import objective, risk_name
    from ..solver.distribution import get_distribution, get_risk_table, summary

    start = time.perf_counter()
    try:
        with waiting(f"solving {rs.name} for theta {theta:g}", quiet=out.quiet):
            tab = get_risk_table(rs, theta, _say, rebuild=rebuild)
            d = get_distribution(rs, theta, _say, rebuild=rebuild)[0] if distribution else None
    except NotExact as exc:
        fail(f"--risk needs an exact table: {exc}", PROBLEM)
    goal = objective(risk_name(theta))
    rec: dict[str, Any] = {"rules": rs.record(), "exact": True, "approximation": None,
                           "risk": theta, "objective": goal, "certainty_equivalent": tab.mean,
                           "seconds": round(time.perf_counter() - start, 3)}
    if d is not None:
        rec["expected"] = d.mean
        rec["sd"] = d.sd
        rec["distribution"] = summary(d, _targets(d, target))
        _plot_distribution(plot, [(f"theta {theta:g}, mean {d.mean:.2f}", rec["distribution"]["pmf"])], target,
                           f"{rs.name}: final score under the risk strategy theta {theta:g}")
    _solve_record(out, rec)
    out.say(f"{rs.name}, risk strategy theta {theta:g} ({goal})")
    out.say(f"certainty equivalent {tab.mean:.4f} (log E[exp(theta * score)] / theta, exact)")
    if d is not None:
        _print_distribution(out, d, _targets(d, target))
    else:
        out.say("add --distribution for its mean, SD and chances of reaching a score")


SOLVE_CSV_HEAD = ["rules", "fingerprint", "exact", "approximation", "expected", "sd", "risk", "objective",
                  "certainty_equivalent", "states", "games", "built", "seconds", "path"]


def _solve_record(out: Output, rec: dict[str, Any]) -> None:
    """solve's record: --json's document; --csv a header and one row with its figures (the
    distribution's pmf is JSON's alone); a field that does not apply (risk without --risk, states of
    an approximate strategy) is empty."""
    out.record({"type": "solve", **rec})
    row = {**rec, "rules": rec["rules"]["name"], "fingerprint": rec["rules"]["fingerprint"]}
    out.table(SOLVE_CSV_HEAD, [[row.get(k) for k in SOLVE_CSV_HEAD]])


def _theta(rs: "RuleSet", risk: float | None) -> float | None:
    """--risk as the rule set's scores make it meaningful (strategy.choice.effective_theta): None when it
    is too small to change anything (the plain table answers, as without --risk), one line naming the
    valid range when exp(theta * score) would overflow."""
    if risk is None:
        return None
    from ..errors import RiskError
    from ..strategy.choice import effective_theta

    try:
        return effective_theta(rs, risk) or None
    except RiskError as exc:
        fail(f"--risk: {exc}", USAGE)


def _negligible_risk(rec: dict[str, Any], asked: float | None) -> None:
    """A --risk too small to change play (served by the plain table): the record still names it, with the
    certainty equivalent at its limit, the mean (log E[exp(theta X)] / theta -> E[X] as theta -> 0)."""
    if asked:
        from ..play.simulate import objective, risk_name

        rec.update(risk=asked, objective=objective(risk_name(asked)), certainty_equivalent=rec["expected"])


def _targets(d: Any, target: int | None) -> list[int]:
    from ..solver.distribution import thresholds

    ts = thresholds(d)
    return sorted(set(ts + [target])) if target is not None else ts


def _print_distribution(out: Output, d: Any, targets: list[int]) -> None:
    from ..solver.distribution import PERCENTILES, histogram_lines

    out.say(f"mean {d.mean:.7f}, SD {d.sd:.4f} (exact distribution)")
    out.say("percentiles: " + ", ".join(f"p{q} {d.percentile(q)}" for q in PERCENTILES))
    out.say("chances: " + ", ".join(f"P(>= {x}) {100 * d.at_least(x):.2f}%" for x in targets))
    out.say("\n".join(histogram_lines(d)))


@app.command(short_help="Expected score of optimal play (builds the table).", epilog=examples(
    "yahtzee solve",
    "yahtzee solve --rules yatzy --json",
    "yahtzee solve --rules yatzy --csv",
))
@outputs()
def solve(
    rules: RulesOpt = None,
    set_: SetOpt = None,
    json: bool = False,
    csv: bool = False,
    rebuild: Annotated[bool, typer.Option("--rebuild", help="Build the table even when it is cached.")] = False,
    quiet: bool = False,
    distribution: Annotated[bool, typer.Option("--distribution", help="Also the exact distribution of the final "
                                               "score: percentiles, chances, histogram (JSON: the pmf).")] = False,
    risk: RiskOpt = None,
    target: Annotated[int | None, typer.Option(
        "--target", metavar="T", help="With --distribution: also show P(final >= T).",
                                               show_default=False)] = None,
    plot: PlotOpt = None,
    *,
    out: Output,
) -> None:
    """Build the optimal-strategy table (cached by rule set) and print the expected score and its SD.

    Rule sets without an exact table (several columns, saved rolls) prepare the approximate strategy
    instead and print its simulated mean, labelled approximate."""
    rs = get_rules(rules, set_)
    _check_plot(plot, distribution)
    asked, risk = risk, _theta(rs, risk)
    if risk is not None:
        _risk_solve(out, rs, risk, distribution, target, rebuild, plot)
        return
    from ..store import tablefile as cache
    from ..strategy.choice import plan, solved_saved_rules

    start = time.perf_counter()
    p = plan(rs)
    table_rules = solved_saved_rules(rs, p)
    if table_rules is not None:
        _saved_solve(out, rs, table_rules, rebuild, distribution, start)
        return
    tab = None
    with waiting(f"solving {rs.name}", quiet=out.quiet):
        if p.exact:
            from ..solver.exact import get_table

            tab, built = get_table(rs, _say, rebuild=rebuild)
        else:
            from ..solver import approx

            info = approx.prepare(rs, _say, rebuild=rebuild)
    dist = None
    too_big = None  # the exact expected score stands; why there is no exact distribution
    if tab is not None and distribution:
        from ..errors import NotExact
        from ..solver.distribution import check_size

        try:
            check_size(rs)
        except NotExact as exc:
            too_big = str(exc)
    if tab is not None and distribution and too_big is None:
        from ..solver.distribution import get_distribution

        with waiting(f"distribution of {rs.name}", quiet=out.quiet):
            dist, dist_built = get_distribution(rs, 0.0, _say, rebuild=rebuild)
    elif too_big is not None:
        warn(f"no exact distribution: {too_big}")
    elif distribution:
        warn("no exact table for these rules, so no exact distribution (simulate shows a sampled one)")
    seconds = time.perf_counter() - start
    if tab is not None:
        path = cache.table_path(tab.fingerprint)
        stored = path.exists()  # not when the cache directory cannot be written
        rec: dict[str, Any] = {
            "rules": rs.record(), "exact": True, "approximation": None, "expected": tab.mean, "sd": tab.sd,
            "states": int(tab.meta.get("states", 0)), "table_bytes": path.stat().st_size if stored else None,
            "built": built, "build_seconds": round(tab.build_seconds, 3) if built else None,
            "seconds": round(seconds, 3), "path": str(path) if stored else None,
        }
        if dist is not None:
            from ..solver.distribution import summary

            rec["distribution"] = {**summary(dist, _targets(dist, target)), "exact": True, "approximation": None,
                                   "built": dist_built,
                                   "build_seconds": round(dist.seconds, 3) if dist_built else None}
            _plot_distribution(plot, [(f"optimal play, mean {dist.mean:.2f}", rec["distribution"]["pmf"])], target,
                               f"{rs.name}: final score under optimal play (exact)")
        _negligible_risk(rec, asked)
        _solve_record(out, rec)
        out.say(f"{rs.name}: expected score {tab.mean:.7f}, SD {tab.sd:.4f} (exact, optimal play)")
        if asked:
            out.say(f"risk theta {asked:g} is too small to change any choice: optimal play serves it, and its "
                    f"certainty equivalent is the expected score, {tab.mean:.4f}")
        how = f"built in {tab.build_seconds:.2f} s" if built else "loaded from the cache"
        out.say(f"{rec['states']:,} turn-start states, {how}: {path if stored else 'not cached'}")
        if dist is not None:
            _print_distribution(out, dist, _targets(dist, target))
        return
    rec = {"rules": rs.record(), "exact": False, "approximation": f"{info['strategy']} ({info['why']})",
           "expected": info["mean"], "sd": info["sd"], "games": info["games"], "seconds": round(seconds, 3),
           "path": info["path"]}
    _negligible_risk(rec, asked)
    _solve_record(out, rec)
    out.say(f"{rs.name}: expected score about {info['mean']:.2f}, SD {info['sd']:.2f} (approximate strategy: "
            f"{info['strategy']}; mean of {info['games']:,} simulated games)")
    out.say(f"no exact table for these rules ({info['why']}); cached: {info['path'] or 'nothing'}")
    saved_rolls_note(rs)


def _saved_solve(out: Output, rs: "RuleSet", table_rules: "RuleSet", rebuild: bool, distribution: bool,
                 start: float) -> None:
    """solve with saved_rolls_cap: the exact capped game's table (solver.saved), built or finished; for
    the uncapped game (rs), the table of the largest cap built (table_rules), which plays it."""
    from ..errors import NotExact
    from ..solver import saved

    why = saved.saved_reason(table_rules)
    if why is not None:
        fail(f"no exact table with saved_rolls_cap for {rs.name}: {why}", USAGE)
    if distribution:
        warn("no exact distribution with saved rolls (simulate shows a sampled one)")
    try:
        with waiting(f"building {rs.name}", quiet=out.quiet):
            tab, built = saved.get_table(table_rules, _say, rebuild=rebuild)
    except KeyboardInterrupt:
        kept = saved.progress_done(table_rules)
        what = f"{kept[0]} of {kept[1]} layers are kept" if kept else "nothing was finished"
        fail(f"interrupted: {what}; the same command goes on from there", 130)
    except NotExact as exc:
        fail(str(exc), USAGE)
    cap = table_rules.settings.saved_cap
    rec: dict[str, Any] = {
        "rules": rs.record(), "exact": True, "approximation": None, "saved_rolls_cap": cap,
        "expected": round(tab.mean, 7), "sd": None, "states": tab.states, "table_bytes": tab.path.stat().st_size,
        "built": built, "build_seconds": round(tab.build_seconds, 3) if built else None,
        "seconds": round(time.perf_counter() - start, 3), "path": str(tab.path),
    }
    _solve_record(out, rec)
    out.say(f"{rs.name}: expected score {tab.mean:.7f} (exact, optimal play with at most {cap} saved rolls; "
            f"float32 table, to within 1e-4)")
    if rs.settings.saved_rolls_cap is None:
        out.say(f"without a cap on saved rolls, {rs.name} is played by this table, the largest cap built: its "
                f"value is a lower bound of the uncapped game's")
    how = f"built in {tab.build_seconds / 60:.1f} min" if built else "loaded from the cache"
    out.say(f"{tab.states:,} turn-start states, {how}: {tab.path}")


# --------------------------------------------------------------------------- hint


def _position(rules: str | None, set_: list[str] | None, sheet: Path | None, log: Path | None,
              player: str | None) -> tuple["RuleSet", list["Column"], str | None, Any]:
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
    from ..errors import GameError
    from ..formats.logs import read_file, read_last_game
    from ..formats.replay import position_from_log, position_from_sheet

    try:
        overrides = dict(parse_setting(s) for s in set_ or [])
    except RulesError as exc:
        fail(str(exc))
    path = str(sheet if sheet is not None else log)
    opt = "--sheet" if sheet is not None else "--log"
    with file_option(opt):
        if sheet is not None:
            pos = position_from_sheet(read_file(path), player, overrides=overrides or None)
        else:  # a game file of `play` and `log`: the game in play is the last one
            doc = read_last_game(path)
            _in_play(path, doc.data, doc.index)
            try:
                pos = position_from_log(doc.data, player, overrides=overrides or None)
            except GameError as exc:  # where, as validate says it: file:LINE: game N
                first = exc.problems[0] if exc.problems else None
                line = doc.line_of(first.path) if first is not None else doc.line
                fail(f"{opt}: {'<stdin>' if path == '-' else path}:{line}: game {doc.index}: {first or exc}", PROBLEM)
    return pos.rules, list(pos.columns), pos.player, pos


def _in_play(path: str, data: Any, games: int) -> None:
    """A game file's last game is the one to advise: one line when it is over or was ended."""
    from ..formats.logs import is_abandoned
    from ..formats.replay import replay_game

    which = f"the last of its {games} games" if games > 1 else "its game"
    if is_abandoned(data):
        fail(f"{path}: {which} was ended unfinished (abandoned); there is no game in play to advise", PROBLEM)
    if games > 1 and replay_game(data).game_over:
        fail(f"{path}: {which} is over; there is no game in play to advise", PROBLEM)


def hint_layout(ev: "Evaluation", player: str | None, method: str, goal: str | None, headings: list[str],
                rows: list[list[str]], notes: list[str] | None = None) -> list[str]:
    """The one text layout of every hint (plain, --distribution, --risk, --target, --to-win, play's `?`):
    the position with the method that valued it (and the goal, unless it is the expected score) on one
    line; under headings, one row per option, best first: its name, the value it is ranked by, how far
    that is from the best, then what the method adds; notes last. A script splits rows on two spaces."""
    from ..formats.render import table

    who = f"{player}: " if player else ""
    head = f"{who}{' '.join(map(str, ev.dice))}, {_left(ev.rolls_left)} ({ev.rules.name}, {method}"
    head += f"; {goal})" if goal else ")"
    left = {0, 2} | {i for i, h in enumerate(headings) if h == "then play by"}
    return [head, *table([headings, *rows], left=left, indent="  "), *(notes or [])]


def option_label(ev: "Evaluation", o: Any, then_box: bool = True) -> str:
    """An option as every hint names it: keep 3 3, keep all (stop rolling, then threes: 9), threes
    (column 2): 9 +35 bonus, pass. `then_box`: name the box a stop leads to (known for expected-score
    play; other goals may take another)."""
    rs = ev.rules
    if o.keep is not None:
        if len(o.keep) == len(ev.dice):
            if then_box and ev.stop_box is not None and ev.stop_box.box is not None:
                return f"keep all (stop rolling, then {rs.keys[ev.stop_box.box]}: {ev.stop_box.score})"
            return "keep all (stop rolling)"
        return "keep " + (" ".join(map(str, o.keep)) if o.keep else "nothing (reroll all)")
    if o.is_pass:
        return "pass"
    assert o.box is not None
    col = f" (column {o.column + 1})" if rs.settings.columns > 1 else ""
    bonus = f" +{o.bonus} bonus" if o.bonus else ""
    return f"{rs.keys[o.box]}{col}: {o.score}{bonus}"


def _behind(values: list[float], digits: int = 4) -> list[str]:
    """The values' distance from the first (the best): best, -1.4684, 0.0000 (tie)."""
    return ["best" if i == 0 else (f"-{values[0] - v:.{digits}f}" if round(values[0] - v, digits) > 0
                                   else f"{0:.{digits}f} (tie)") for i, v in enumerate(values)]


def _behind_chances(chances: list[float]) -> list[str]:
    """Chances' distance from the first in percentage points, told apart as the chances are."""
    from ..formats.render import percents

    gaps = percents([max(chances[0] - c, 0.0) for c in chances])
    return ["best" if i == 0 else ("0 pp (tie)" if g == "0%" else f"-{g[:-1]} pp") for i, g in enumerate(gaps)]


def hint_lines(ev: "Evaluation", top: int | None, player: str | None) -> list[str]:
    """A hint as text: every option (the best `top`) by expected final score (also `play`'s `?`)."""
    shown = ev.options if top is None else ev.options[:top]
    rows = [[option_label(ev, o), f"{o.value:.4f}", gap]
            for o, gap in zip(shown, _behind([o.value for o in shown]), strict=True)]
    return hint_layout(ev, player, ev.kind, None, ["option", "expected", "vs best"], rows)


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
        from .log_cmd import game_file

        if log is not None or sheet is not None:
            fail("--in-play is the library's game in play; leave out --log and --sheet (or name the file with "
                 "--log FILE alone)")
        log = game_file(None)
    if csv and (beat is not None or distribution or target is not None or risk is not None or to_win):
        fail("--csv gives the ranking of the options; with --beat, --distribution, --target, --risk or --to-win "
             "use --json or text")
    if to_win:
        if log is None:
            fail("--to-win needs the game: give it with --log FILE (the other players' sheets are the opponents)")
        if distribution or target is not None or risk is not None or beat is not None:
            fail("--to-win ranks the options by the chance to win; leave out --distribution, --target, --risk "
                 "and --beat")
    if beat is not None:
        from .poker import poker_hint

        if rules or set_ or sheet or log or player or saved is not None:
            fail("--beat is poker dice, played without a score sheet: leave out --rules, --set, --sheet, --log, "
                 "--player and --saved", USAGE)
        if not dice:
            fail("give the dice showing, e.g. yahtzee hint 13356 --beat 44422", USAGE)
        if distribution or target is not None or risk is not None:
            fail("--beat ranks keeps by the chance of beating a hand; leave out --distribution, --target and --risk")
        poker_hint(dice, beat, rolls_left, top, out)
        return
    _check_plot(plot, distribution)
    rs, columns, who, pos = _position(rules, set_, sheet, log, player)
    if pos is not None and pos.finished:
        fail(f"{pos.player}'s sheet is full: the game is over", PROBLEM)
    if saved is not None and not rs.settings.saved_rolls:
        fail(f"--saved counts rolls saved from earlier turns, which {rs.name} has none of (saved_rolls=off); "
             "leave it out or add --set saved_rolls=on", USAGE)
    n_saved = saved if saved is not None else (pos.saved if pos is not None else 0)
    if rs.settings.saved_rolls and n_saved > rs.settings.saved_cap:
        fail(f"--saved takes 0-{rs.settings.saved_cap} here (saved_rolls_cap={rs.settings.saved_cap}), got {n_saved}",
             USAGE)
    from ..play.hint import hint as evaluate
    from ..rules.engine import rolls_allowed
    from ..strategy.choice import plan

    # the stock of saved rolls is spent within the turn: after its first roll, 2 + N rolls are left
    allowed = rolls_allowed(rs, n_saved) - 1
    faces: list[int]
    if dice:
        try:
            faces = parse_dice(dice)
        except RulesError as exc:
            fail(str(exc))
        left = allowed if rolls_left is None else rolls_left
    elif pos is not None and pos.dice is not None:
        faces = list(pos.dice)
        left = pos.rolls_left if rolls_left is None else rolls_left
    else:
        fail("give the dice (the position has no turn in progress)")
    if not 0 <= left <= allowed:
        choices = "2|1|0" if allowed == 2 else f"0-{allowed}"
        fail(f"--rolls-left takes {choices} here, got {left}", USAGE)
    rs.check_dice(faces)
    risk = _theta(rs, risk)
    if not rs.settings.must_zero and (target is not None or to_win or risk):
        fail("--target, --to-win and --risk need must_zero on (a pass would repeat a turn, which the risk "
             "strategies and exact play for a score leave out); --distribution works without", USAGE)
    if to_win:
        if rs.settings.columns != 1 or not plan(rs).exact:
            fail("--to-win needs a one-column rule set with an exact table", USAGE)
        opponents = _opponents(log, who, out.quiet)
    if distribution or target is not None or risk is not None or to_win:
        if rs.settings.columns != 1 or not plan(rs).exact:
            fail("--distribution, --target and --risk need a one-column rule set with an exact table", USAGE)
        from ..errors import NotExact
        from ..solver.distribution import check_size

        try:
            check_size(rs)
        except NotExact as exc:
            fail(f"--distribution, --target and --risk: {exc}", USAGE)
        if risk is not None and target is not None and not distribution:
            fail("--target picks its own risk strategy; leave out --risk (or add --distribution)")
    saved_rolls_note(rs)
    with waiting("preparing the hint", quiet=out.quiet):
        ev = evaluate(rs, columns, faces, left, n_saved, say=_say)
    if to_win:
        with waiting("preparing the hint", quiet=out.quiet):
            _to_win(out, rs, columns[0], ev, top, who, opponents)
        return
    if distribution or target is not None or risk is not None:
        with waiting("preparing the hint", quiet=out.quiet):
            _chances(out, rs, columns[0], ev, top, who, distribution, target, risk, plot)
        return
    rec = ev.to_dict(top)
    if who is not None:
        rec["player"] = who
    out.record({"type": "hint", **rec})
    out.table(HINT_CSV_HEAD, _hint_rows(ev, top, who))
    out.text("\n".join(hint_lines(ev, top, who)) + "\n")


HINT_CSV_HEAD = ["rank", "player", "dice", "rolls_left", "move", "keep", "box", "column", "score", "bonus", "value",
                 "regret", "exact"]


def _hint_rows(ev: "Evaluation", top: int | None, player: str | None) -> list[list[Any]]:
    """hint's rows (--csv): one per option, best first: the move (keep, box or pass), its value and
    regret (as --json rounds them), the position's dice and whether the values are exact."""
    rs = ev.rules
    dice = " ".join(map(str, ev.dice))
    rows = []
    for rank, o in enumerate(ev.options if top is None else ev.options[:top], 1):
        move = "keep" if o.keep is not None else "pass" if o.is_pass else "box"
        box = rs.keys[o.box] if move == "box" and o.box is not None else None
        keep = " ".join(map(str, o.keep)) if o.keep is not None else None
        rows.append([rank, player, dice, ev.rolls_left, move, keep, box,
                     o.column + 1 if box is not None and rs.settings.columns > 1 else None,
                     o.score if box is not None else None, o.bonus if box is not None else None,
                     round(o.value, 4), round(o.regret, 4), ev.exact])
    return rows


def _left(n: int) -> str:
    return "no rolls left" if n == 0 else f"{n} roll{'s' if n > 1 else ''} left"


def _chances(out: Output, rs: "RuleSet", column: "Column", ev: "Evaluation", top: int | None, who: str | None,
             distribution: bool, target: int | None, risk: float | None, plot: Path | None = None) -> None:
    """hint --distribution / --target / --risk: exact chances of reaching a score from the position
    (play.hint.rank_by_risk, play.hint.play_for_target)."""
    from ..errors import NotExact
    from ..formats.render import percents
    from ..play.hint import play_for_target, rank_by_risk
    from ..play.simulate import objective, risk_name
    from ..solver import distribution as D

    head: dict[str, Any] = {"rules": rs.record(), "dice": list(ev.dice), "rolls_left": ev.rolls_left, "exact": True,
                            "approximation": None}
    if who is not None:
        head["player"] = who
    try:
        if distribution or risk is not None:
            ranking = rank_by_risk(rs, column, ev, risk or 0.0, target, top, say=_say)
        else:
            assert target is not None
            play = play_for_target(rs, column, ev, target, say=_say)
            _say_method(play)
    except NotExact as exc:
        fail(str(exc), PROBLEM)
    if not (distribution or risk is not None):
        _play_for(out, ev, who, play, top, f"P(final >= {target})", f"maximise P(final >= {target})", "probability",
                  {**head, "target": target, "objective": f"maximise P(final >= {target})"})
        return
    theta, T = ranking.theta, ranking.target
    goal = objective(risk_name(theta))
    rec = {**head, "target": T, "risk": theta, "objective": goal, "options": []}
    for o, c, v in ranking.ranked:
        item = o.move_dict(rs)
        item.update({"value": round(v, 4), "probability": c.at_least(T), "median": c.dist.percentile(50),
                     "sd": round(c.dist.sd, 4)})
        if distribution:
            item["pmf"] = D.summary(c.dist)["pmf"]
        rec["options"].append(item)
    names = [option_label(ev, o, then_box=not theta) for o, _, _ in ranking.ranked]
    if distribution:
        where = f"{' '.join(map(str, ev.dice))}, {_left(ev.rolls_left)}"
        _plot_distribution(plot, [(name, item["pmf"]) for name, item in zip(names, rec["options"], strict=True)], T,
                           f"{where} ({rs.name}, exact)")
    out.record({"type": "hint", **rec})
    chances = percents([item["probability"] for item in rec["options"]])
    gaps = _behind([v for _, _, v in ranking.ranked])
    rows = [[name, f"{item['value']:.4f}", gap, chance, str(item["median"]), f"{item['sd']:.1f}"]
            for name, item, gap, chance in zip(names, rec["options"], gaps, chances, strict=True)]
    label = "certainty equivalent" if theta else "expected"
    out.text("\n".join(hint_layout(ev, who, "exact", goal if theta else None,
                                   ["option", label, "vs best", f"P(final >= {T})", "median", "SD"], rows)) + "\n")


def _strategy(theta: float | None) -> str:
    return "" if theta is None else "theta 0 (expected score)" if theta == 0 else f"theta {theta:g}"


def _play_for(out: Output, ev: "Evaluation", who: str | None, play: Any, top: int | None, measure: str, goal: str,
              key: str, head: dict[str, Any]) -> None:
    """hint --target and --to-win, one record and one text layout: the options by `measure` (the chance
    of the goal), each with the risk strategy to play on by where the risk strategies answer, and then
    what each strategy's best option gives. `key`: the chance's name in --json."""
    from ..formats.render import percents

    rs = ev.rules
    p, best_theta, o = play.best
    shown = play.ranked if top is None else play.ranked[:top]
    exact = play.method == "exact"
    out.record({"type": "hint", **head, "method": play.method, "theta": best_theta,
                "best": {**o.move_dict(rs), key: p},
                "options": [{**opt.move_dict(rs), key: v, "theta": th}
                            for (opt, v), th in zip(shown, play.thetas, strict=False)],
                "by_theta": [{"theta": th, **opt.move_dict(rs), key: pr} for th, opt, pr in play.by_theta]})
    values = [v for _, v in shown]
    # every chance printed here (the rows and the strategies' note) told apart as one list
    shown_pct = percents(values + [pr for _, _, pr in play.by_theta])
    rows = [[option_label(ev, opt, then_box=False), pct, gap]
            for (opt, _), pct, gap in zip(shown, shown_pct, _behind_chances(values), strict=False)]
    headings = ["option", measure, "vs best"]
    notes = []
    if exact:
        method = "exact"
    else:
        grid = ", ".join(f"{th:g}" for th, _, _ in play.by_theta)
        method = f"best of the risk strategies (theta {grid})"
        headings.append("then play by")
        for row, th in zip(rows, play.thetas, strict=False):
            row.append(_strategy(th))
        each = shown_pct[len(values):]
        options = {option_label(ev, opt, then_box=False) for _, opt, _ in play.by_theta}
        if len(options) == 1:
            notes.append(f"  each strategy's best option is {options.pop()}: " + ", ".join(
                f"{_strategy(th)} {pct}" for (th, _, _), pct in zip(play.by_theta, each, strict=True)))
        else:
            notes.append("  each strategy's best option: " + "; ".join(
                f"{_strategy(th)}: {option_label(ev, opt, then_box=False)} {pct}"
                for (th, opt, _), pct in zip(play.by_theta, each, strict=True)))
    out.text("\n".join(hint_layout(ev, who, method, goal, headings, rows, notes)) + "\n")


def _say_method(play: Any) -> None:
    """One note on stderr when exact play would take too long here and the risk strategies answer."""
    if play.method != "exact" and play.seconds != float("inf"):
        _say(f"exact play would take about {play.seconds:,.0f} s of CPU from this position: the best of the "
             "risk strategies answers (\"method\": \"risk_strategies\")")


def _opponents(log: Path | None, who: str | None, quiet: bool) -> list[tuple[str, Any]]:
    """The other players of the --log game as (name, final-score pmf from where they stand): one line
    and exit 1 for a solo game."""
    from ..formats.logs import read_last_game
    from ..formats.replay import replay_game
    from ..play.odds import player_pmf

    assert log is not None
    with file_option("--log"):
        rp = replay_game(read_last_game(str(log)).data)
    others = [i for i, p in enumerate(rp.players) if p.name != who]
    if not others:
        fail(f"--to-win: {who} plays alone in {log}; there is no one to beat (use --target)", PROBLEM)
    with waiting("computing the other players' final-score distributions", quiet=quiet):
        return [(rp.players[i].name, player_pmf(rp, i, _say)) for i in others]


def _to_win(out: Output, rs: "RuleSet", column: "Column", ev: "Evaluation", top: int | None, who: str | None,
            opponents: list[tuple[str, Any]]) -> None:
    """hint --to-win: the options by the chance to win (a tie a share) against the opponents' pmfs."""
    from ..errors import NotExact
    from ..play.hint import play_to_win

    try:
        play = play_to_win(rs, column, ev, [d for _, d in opponents], say=_say)
        _say_method(play)
    except NotExact as exc:
        fail(str(exc), PROBLEM)
    names = [n for n, _ in opponents]
    against = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    _play_for(out, ev, who, play, top, "P(win)", f"maximise P(win) against {against}; a tie counts as a share",
              "win_probability", {"rules": rs.record(), "dice": list(ev.dice), "rolls_left": ev.rolls_left,
                                  "exact": True, "approximation": None, "player": who, "opponents": names,
                                  "objective": "maximise P(win)"})
