"""`yahtzee simulate`: Monte Carlo runs of a strategy (or a match of several), reproducible by seed,
on all local cores or a Dask cluster; statistics, a terminal histogram, NDJSON game logs."""

from __future__ import annotations

import os
import sys
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from ..errors import PROBLEM, USAGE
from ..formats.output import Output
from .app import (
    PlotOpt,
    RulesOpt,
    SetOpt,
    app,
    examples,
    fail,
    get_rules,
    note,
    outputs,
    progress_wanted,
    saved_rolls_note,
    warn,
)
from .batch import Backend, BackendOpt, SchedulerOpt, check_workers
from .progress import waiting

if TYPE_CHECKING:
    from ..play.simulate import Report
    from ..rules.engine import RuleSet

INTERRUPTED = 130  # exit status after Ctrl-C (the summary of the finished games is still printed)
BUILT_IN = ("optimal", "greedy", "random")


def _complete_strategy(incomplete: str) -> list[str]:
    """Built-in strategies; after a comma (--players), the next seat's."""
    head, _, last = incomplete.rpartition(",")
    prefix = f"{head}," if head else ""
    names = (*BUILT_IN, "to-win") if head else BUILT_IN  # to-win plays in a match only
    return [prefix + name for name in names if name.startswith(last)]


@app.command(short_help="Play many games by a strategy or a match.", epilog=examples(
    "yahtzee simulate -n 10000 --seed 1",
    "yahtzee simulate --rules yatzy --strategy greedy --json | jq '.seats[0].mean'",
    "yahtzee simulate --players optimal,greedy -n 2000 --csv",
    "yahtzee simulate -S random -n 100 --log-out games.ndjson && yahtzee analyze games.ndjson",
))
@outputs()
def simulate(
    rules: RulesOpt = None,
    set_: SetOpt = None,
    strategy: Annotated[
        str | None,
        typer.Option("--strategy", "-S", metavar="STRATEGY", help="optimal, greedy, random, or a bot as "
                     "module:function (or path/to/bot.py:function).  [default: optimal]", show_default=False,
                     autocompletion=_complete_strategy),
    ] = None,
    players: Annotated[
        str | None,
        typer.Option("--players", metavar="STRATEGY,...", help="A match: one strategy per seat, comma-separated "
                     "(e.g. optimal,greedy; to-win plays to win against the others). "
                     "Reports each seat's win rate.", show_default=False,
                     autocompletion=_complete_strategy),
    ] = None,
    games: Annotated[int, typer.Option("--games", "-n", metavar="N", help="Games to play.")] = 10_000,
    seed: Annotated[
        int | None,
        typer.Option("--seed", metavar="SEED", help="Seed of the dice (chosen and printed on stderr when omitted).",
                     show_default=False),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option("--workers", "-w", metavar="N", help="Parallel workers (default: every core; 1 runs "
                     "in-process): threads for optimal, greedy and random, spawned processes for bots.",
                     show_default=False),
    ] = None,
    backend: BackendOpt = Backend.local,
    scheduler: SchedulerOpt = None,
    log_out: Annotated[
        str | None,
        typer.Option("--log-out", metavar="FILE", help="Write every game as an NDJSON game log (yahtzee-log/1) "
                     "to FILE, or - for stdout (a one-line summary then goes to stderr; the full one with -v). FILE "
                     "is replaced only when the run ends.", show_default=False),
    ] = None,
    json: bool = False,
    csv: bool = False,
    quiet: bool = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="With --log-out -, the full summary on stderr (without it, "
                           "one line).")
    ] = False,
    plot: PlotOpt = None,
    risk: Annotated[
        float | None,
        typer.Option("--risk", metavar="THETA",
                     help="Play the strategy maximising E[exp(THETA * final score)] instead of the mean: "
                     "THETA > 0 seeks variance, < 0 avoids it, 0 is optimal (also as a seat: risk=THETA).",
                     show_default=False),
    ] = None,
    *,
    out: Output,
) -> None:
    """Simulate games: mean, SD, percentiles, bonus rates, per-box means, a histogram; win rates in a match."""
    rs = get_rules(rules, set_)
    seats = [strategy or "optimal"] if players is None else players.split(",")
    from ..strategy.choice import plan

    if any(s.strip().lower() == "optimal" for s in seats):
        saved_rolls_note(rs)
    if (risk is None and backend == Backend.local and any(s.strip().lower() in ("optimal", "greedy") for s in seats)
            and not (rs.settings.saved_rolls and plan(rs).strategy == "saved")):
        # a first run compiles the play kernel on two cores: the other process starts its imports now
        from ..limits import cores
        from ..solver.aside import start_first

        start_first("play_kernel.play_games", workers or cores())
    from ..errors import SimulationError, StrategyError
    from ..play.simulate import choose_seed, prepare
    from ..play.simulate import simulate as run

    names = _seats(strategy, players, risk, rs)
    _check_options(games, seed, workers, backend, scheduler, out, log_out)
    if plot is not None:
        from ..formats.plot import check_plot_target

        check_plot_target(plot)
    try:
        with waiting("preparing the strategies", quiet=out.quiet):
            prepare(rs, names, note, record=log_out is not None, games=games)
    except StrategyError as exc:
        fail(str(exc), PROBLEM)

    sink_file: IO[bytes] | None = None
    log_file: LogFile | None = None
    if log_out == "-":
        sink_file = sys.stdout.buffer
    elif log_out is not None:
        try:
            log_file = LogFile(log_out)
        except FileNotFoundError:  # its folder is missing: a usage error, as for any file named
            from ..errors import missing_file_message

            fail(missing_file_message(os.path.dirname(log_out)), USAGE)
        except OSError as exc:
            fail(f"cannot write {log_out}: {exc.strerror}", PROBLEM)

    if seed is None:
        seed = choose_seed()
        note(f"seed {seed} (repeat this run with --seed {seed})")

    def sink(chunk: bytes) -> None:
        if log_file is not None:
            log_file.write(chunk)
            return
        assert sink_file is not None
        sink_file.write(chunk)

    stop = _StopOnCtrlC()
    completed = False
    failure: str | None = None
    try:
        with stop, waiting("simulating", quiet=out.quiet) as shown:
            def on_progress(done: int) -> None:
                shown.update(done, games, label="simulating", unit="games")
                stop.check()

            report = run(rs, names, games, seed, workers=workers, backend=backend.value, scheduler=scheduler,
                         log_sink=sink if log_out is not None else None, on_progress=on_progress)
        completed = True
    except (StrategyError, SimulationError) as exc:
        failure = str(exc)
    finally:
        if log_file is not None:
            log_file.close(keep=completed)
    if failure is not None:
        if log_file is not None:  # what the file holds once the run stopped mid-way
            failure += f"; --log-out {log_out} {log_file.holds()}"
        fail(failure, PROBLEM)
    if plot is not None:  # (before the report: an interrupted run still draws the games it played)
        from ..formats.plot import simulate_figure

        simulate_figure(report.to_dict()["seats"], plot, f"{report.rules.name}: {report.games:,} games")
        note(f"wrote {plot}")
    _print_report(report, out, log_out, log_file, timed=progress_wanted(), verbose=verbose)


def _seats(strategy: str | None, players: str | None, risk: float | None, rs: RuleSet) -> list[str]:
    """The strategy of each seat, checked (user modules are imported; a risk seat's theta against the
    rules' scores: one too small to change anything plays the optimal strategy itself)."""
    from ..errors import StrategyError
    from ..play.simulate import check_strategy

    if strategy is not None and players is not None:
        fail("give --strategy or --players, not both")
    if risk is not None:
        if players is not None or (strategy is not None and strategy.strip().lower() != "optimal"):
            fail("--risk plays the risk strategy alone; for a match give seats as risk=THETA in --players")
        strategy = f"risk={risk!r}"
    names = players.split(",") if players is not None else [strategy if strategy is not None else "optimal"]
    if any(not n.strip() for n in names):
        if players is None:
            fail("--strategy needs a name: optimal, greedy, random, or module:function")
        fail("--players needs strategy names separated by commas, e.g. optimal,greedy")
    try:
        seats = [check_strategy(n, rs) for n in names]
    except StrategyError as exc:
        fail(str(exc))
    if seats == ["to-win"]:
        fail("to-win plays against the other seats of a match: give it in --players with at least one other "
             "seat, e.g. --players to-win,optimal")
    return seats


def _check_options(games: int, seed: int | None, workers: int | None, backend: Backend, scheduler: str | None,
                   out: Output, log_out: str | None) -> None:
    from ..limits import MAX_GAMES
    from ..play.simulate import MAX_SEED

    if not 1 <= games <= MAX_GAMES:
        fail(f"--games must be a whole number from 1 to {MAX_GAMES:,}, got {games}")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        fail(f"--seed must be a whole number from 0 to {MAX_SEED}, got {seed}")
    check_workers(workers, backend, scheduler)
    if (out.json or out.rows) and log_out == "-":
        fail("--json/--csv and --log-out - both want stdout; write the logs to a file")
    if log_out not in (None, "-") and not os.path.isdir(os.path.dirname(log_out) or "."):
        from ..errors import missing_file_message  # before any strategy is prepared: a usage error

        fail(missing_file_message(os.path.dirname(log_out)), USAGE)


def _print_report(report: Report, out: Output, log_out: str | None, log_file: LogFile | None, *, timed: bool,
                  verbose: bool = False) -> None:
    """The summary on stdout (stderr when the logs go to stdout), then the speed, a log that could not
    be finished, and any interruption."""
    if log_out == "-":
        sys.stdout.buffer.flush()
    data = report.to_dict()
    out.record({"type": "simulation", **data})
    out.table(SEAT_COLUMNS, seat_rows(data))
    if log_out == "-":  # (never with --json or --csv) the logs are the pipeline's data
        if not verbose:  # one line of summary beside them
            note(summary_line(data, report.rules.name))
        elif not out.silent:
            from ..text import escape_lines

            sys.stderr.write(escape_lines(render(data, report.rules.name)))
            sys.stderr.flush()
    else:
        out.text(render(data, report.rules.name), flush=True)
    if timed and report.seconds > 0:
        note(f"{report.games:,} games in {report.seconds:.1f} s ({report.games / report.seconds:,.0f} games/s)")
    if log_file is not None and log_file.error is not None:
        fail(f"--log-out {log_out}: {log_file.error}; it {log_file.holds()} (the summary covers every game played)",
             PROBLEM)
    if report.interrupted:
        warn(f"interrupted: the summary covers the {report.games:,} games finished of {report.games_requested:,}")
        raise typer.Exit(INTERRUPTED)


class LogFile:
    """`--log-out FILE`: the games go to a temporary file next to FILE, renamed over it when the run
    ends (completed or interrupted), so an existing FILE is never emptied by a run that fails before
    its first game. Devices and pipes (/dev/stdout, a FIFO) are written directly. A write that fails
    (full disk, I/O error) cuts the file back to its last whole game and stops the run."""

    def __init__(self, target: str) -> None:
        self.path = os.path.realpath(target)
        self.games = 0
        self.error: str | None = None
        self._size = 0
        regular = not os.path.exists(self.path) or os.path.isfile(self.path)
        self.tmp: str | None = None
        if regular:
            import secrets

            head, tail = os.path.split(self.path)
            self.tmp = os.path.join(head, f".{tail}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
            self.fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        else:
            self.fd = os.open(self.path, os.O_WRONLY | os.O_TRUNC)

    def write(self, chunk: bytes) -> None:
        """Write whole game lines; on a failed write keep the whole games and stop the run (KeyboardInterrupt
        is how a log sink stops a simulation)."""
        if self.error is not None:
            return
        view = memoryview(chunk)
        done = 0
        try:
            while done < len(chunk):
                done += os.write(self.fd, view[done:])
        except OSError as exc:
            whole = chunk.rfind(b"\n", 0, done) + 1  # bytes of the whole games that made it
            self.games += chunk.count(b"\n", 0, whole)
            self._size += whole
            self.error = (exc.strerror or str(exc)).lower()
            try:
                os.ftruncate(self.fd, self._size)
            except OSError:
                pass
            raise KeyboardInterrupt from None
        self.games += chunk.count(b"\n")
        self._size += len(chunk)

    def holds(self) -> str:
        """What the file holds after close(), for the error line of a run that stopped early."""
        if self.games or self.tmp is None:
            return f"holds the first {self.games:,} games, each whole"
        return "was left as it was (no game finished)"

    def close(self, keep: bool) -> None:
        """Close; put the file in place when the run produced a result (`keep`) or any game, else drop it."""
        try:
            os.close(self.fd)
        except OSError:
            pass
        if self.tmp is None:
            return
        if keep or self.games:
            try:
                os.replace(self.tmp, self.path)
                return
            except OSError as exc:
                self.error = self.error or f"cannot rename the finished log into place ({exc.strerror})"
        try:
            os.unlink(self.tmp)
        except OSError:
            pass


class _StopOnCtrlC:
    """The first Ctrl-C asks the run to stop after the chunk in progress (so the summary and the logs
    cover whole chunks: no half-written log line); a second one stops at once."""

    def __init__(self) -> None:
        self.requested = False
        self.previous: Any = None

    def _handler(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        note("stopping after the games in progress (Ctrl-C again to stop at once)")

    def check(self) -> None:
        if self.requested:
            raise KeyboardInterrupt

    def __enter__(self) -> _StopOnCtrlC:
        import signal

        try:
            self.previous = signal.signal(signal.SIGINT, self._handler)
        except ValueError:  # not the main thread: plain KeyboardInterrupt handling
            self.previous = None
        return self

    def __exit__(self, *exc: object) -> None:
        import signal

        if self.previous is not None:
            signal.signal(signal.SIGINT, self.previous)


# --------------------------------------------------------------------------- text report


def _num(v: Any, digits: int = 2) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:,.{digits}f}"
    return f"{v:,}"


def _pct(v: Any) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _stats_block(s: dict[str, Any], indent: str = "") -> list[str]:
    rows: list[tuple[str, str]] = [
        ("mean", _num(s["mean"])),
        ("SD", _num(s["sd"])),
        ("SEM", _num(s["sem"], 3)),
        ("min", _num(s["min"])),
        *[(k, _num(v)) for k, v in s["percentiles"].items()],
        ("max", _num(s["max"])),
        ("P(upper bonus)", _pct(s["p_upper_bonus"])),
    ]
    if s.get("yahtzee_points") is not None:
        rows.append((f"P(yahtzee box scored {s['yahtzee_points']})", _pct(s["p_yahtzee"])))
        rows.append(("mean extra-Yahtzee bonus", _num(s["mean_extra_bonus"])))
    from ..formats.render import table

    lines = table(rows, indent=indent)
    lines.append(f"{indent}mean per box:")
    lines += table([(k, f"{v:.2f}") for k, v in s["mean_per_box"].items()], indent=indent + "  ")
    lines += _histogram(s["histogram"], indent)
    return lines


def _histogram(h: dict[str, Any], indent: str = "", bar: int = 50) -> list[str]:
    from ..text import histogram

    bins = h["bins"]
    if not bins:
        return []
    return histogram(f"final scores (bins of {h['width']}):",
                     [(_bin_label(b, h["width"]), f"{b['count']:,}", b["count"]) for b in bins],
                     indent=indent, bar=bar, least=".", trim=True)


def _bin_label(b: dict[str, Any], width: int) -> str:
    return str(b["low"]) if width == 1 else f"{b['low']}-{b['high'] - 1}"


def _head(data: dict[str, Any], rules_name: str) -> str:
    """The run line: rules, strategies (labelled when approximate), games, seed."""
    what = ",".join(data["players"])
    if data["approximation"]:
        what += f" (approximate: {data['approximation']})"
    caps = {s["saved_rolls_cap"] for s in data["seats"] if s.get("saved_rolls_cap") is not None}
    if caps:
        what += f" (exact with at most {max(caps)} saved rolls)"
    goal = data["seats"][0].get("objective") if len(data["seats"]) == 1 else None
    if goal:
        what += f" ({goal})"
    return f"{rules_name}, {what}: {data['games']:,} games, seed {data['seed']}"


def summary_line(data: dict[str, Any], rules_name: str) -> str:
    """The whole report in one line, for stderr beside a pipeline (`--log-out -`): the run line, then
    each seat's mean and SD (and win rate in a match)."""
    if len(data["seats"]) == 1:
        s = data["seats"][0]
        return f"{_head(data, rules_name)}; mean {_num(s['mean'])}, SD {_num(s['sd'])} (the full summary with -v)"
    seats = "; ".join(f"{s['player']} mean {_num(s['mean'])}, wins {_pct(s['win_rate'])}" for s in data["seats"])
    return f"{_head(data, rules_name)}; {seats} (the full summary with -v)"


def render(data: dict[str, Any], rules_name: str) -> str:
    """The human report: run line, stats (each seat's for a match, after a standings table)."""
    from ..formats.render import table

    lines = [_head(data, rules_name)]
    if len(data["seats"]) == 1:
        lines += _stats_block(data["seats"][0])
        return "\n".join(lines) + "\n"
    rows = [("seat", "player", "mean", "SD", "wins", "ties")]
    for s in data["seats"]:
        rows.append((str(s["seat"]), s["player"], _num(s["mean"]), _num(s["sd"]), _pct(s["win_rate"]),
                     _pct(s["tie_rate"])))
    lines += table(rows, left={0, 1})
    for s in data["seats"]:
        lines.append("")
        lines.append(f"seat {s['seat']}: {s['player']}")
        lines += _stats_block(s, "  ")
    return "\n".join(lines) + "\n"


SEAT_COLUMNS = ("seat", "player", "strategy", "exact", "wins", "ties", "win_rate", "tie_rate", "mean", "sd", "sem",
                "min", "max", "p_upper_bonus", "p_yahtzee", "mean_extra_bonus")


def seat_rows(data: dict[str, Any]) -> list[list[Any]]:
    """`simulate --csv`: one row per seat with its headline figures (SEAT_COLUMNS)."""
    return [[str(s[c]).lower() if isinstance(s[c], bool) else s[c] for c in SEAT_COLUMNS] for s in data["seats"]]


__all__ = ["simulate", "render", "USAGE"]
