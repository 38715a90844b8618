"""A simulation as `yahtzee simulate` asks for it: the seats' strategies checked, the strategies
prepared, the games played (stopped cleanly by Ctrl-C), their logs written (`--log-out`), the figure
drawn, and the report in every form a front end shows (play.simulate plays the games; play.report
words them). The request's fields are named as the command's options, and so are its refusals."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadRequest, CannotWrite, MissingFile, SimulationError, StrategyError

if TYPE_CHECKING:
    from ..rules.engine import RuleSet
    from .simulate import Report

Say = Callable[[str], None]
Progress = Callable[[int, int], None]  # (games done, games asked)
Sink = Callable[[bytes], None]


@dataclass(frozen=True)
class SimulationRequest:
    """The seats (`strategy` alone, or `players` comma-separated, or the `risk` strategy), `games` and
    `seed` (None: chosen and said), `workers`, `backend` ("local" or "dask") and `scheduler`; `log_out`:
    a file for the game logs ("-": the `sink` given to `run`); `plot`: a file for the figure; `rows`:
    the report goes to stdout as data (JSON or rows), which the logs cannot share."""

    strategy: str | None = None
    players: str | None = None
    risk: float | None = None
    games: int = 10_000
    seed: int | None = None
    workers: int | None = None
    backend: str = "local"
    scheduler: str | None = None
    log_out: str | None = None
    plot: Path | None = None
    rows: bool = False


@dataclass(frozen=True)
class Simulation:
    """A finished (or interrupted) run: its report, as a JSON `record`, per-seat `rows` (SEAT_COLUMNS),
    the `text` for people and its one-`line` summary; `log_error`: why the logs could not all be
    written, and what the file holds (None when they were, or were not asked for)."""

    report: Report
    record: dict[str, Any]
    rows: list[list[Any]]
    text: str
    line: str
    log_error: CannotWrite | None = None


def seats(rules: RuleSet, req: SimulationRequest) -> list[str]:
    """The strategy of each seat, checked (user modules are imported; a risk seat's theta against the
    rules' scores: one too small to change anything plays the optimal strategy itself)."""
    from .simulate import check_strategy

    strategy, players = req.strategy, req.players
    if strategy is not None and players is not None:
        raise BadRequest("give {strategy} or {players}, not both", options=("strategy", "players"))
    if req.risk is not None:
        if players is not None or (strategy is not None and strategy.strip().lower() != "optimal"):
            raise BadRequest("{risk} plays the risk strategy alone; for a match give seats as risk=THETA in "
                             "{players}", options=("risk", "players"))
        strategy = f"risk={req.risk!r}"
    names = players.split(",") if players is not None else [strategy if strategy is not None else "optimal"]
    if any(not n.strip() for n in names):
        if players is None:
            raise BadRequest("{strategy} needs a name: optimal, greedy, random, or module:function",
                             options=("strategy",))
        raise BadRequest("{players} needs strategy names separated by commas, e.g. optimal,greedy",
                         options=("players",))
    try:
        out = [check_strategy(n, rules) for n in names]
    except StrategyError as exc:
        raise BadRequest(str(exc)) from None
    if out == ["to-win"]:
        raise BadRequest("to-win plays against the other seats of a match: give it in {players} with at least one "
                         "other seat, e.g. {players} to-win,optimal", options=("players",))
    return out


def check(req: SimulationRequest) -> None:
    """The run's size, seed, workers and log file, before any strategy is prepared."""
    from ..limits import MAX_GAMES
    from .executors import check_workers
    from .simulate import MAX_SEED

    if not 1 <= req.games <= MAX_GAMES:
        raise BadRequest(f"{{games}} must be a whole number from 1 to {MAX_GAMES:,}, got {req.games}",
                         options=("games",))
    if req.seed is not None and not 0 <= req.seed <= MAX_SEED:
        raise BadRequest(f"{{seed}} must be a whole number from 0 to {MAX_SEED}, got {req.seed}", options=("seed",))
    check_workers(req.workers, req.backend, req.scheduler)
    if req.rows and req.log_out == "-":
        raise BadRequest("{json}/{csv} and {log_out} - both want stdout; write the logs to a file",
                         options=("json", "csv", "log_out"))
    if req.log_out not in (None, "-") and not os.path.isdir(os.path.dirname(req.log_out) or "."):
        raise MissingFile(os.path.dirname(req.log_out))


def _warm_up(rules: RuleSet, req: SimulationRequest) -> None:
    """A first run compiles the play kernel on two cores: the other process starts its imports now."""
    from ..strategy.choice import plan

    named = [req.strategy or "optimal"] if req.players is None else req.players.split(",")
    if req.risk is None and req.backend == "local" and any(s.strip().lower() in ("optimal", "greedy") for s in named):
        from ..limits import cores
        from ..solver.aside import start_first

        by_stock = rules.settings.saved_rolls and plan(rules).by_stock  # (values by stock: their own kernel)
        start_first("play_kernel.play_saved_games" if by_stock else "play_kernel.play_games", req.workers or cores())


def run(rules: RuleSet, req: SimulationRequest, say: Say | None = None, progress: Progress | None = None,
        sink: Sink | None = None) -> Simulation:
    """Play the games of `req` (see the module's doc); `say` hears the notes (the seed chosen, a table
    built), `progress` the games done, `sink` the logs of `--log-out -`."""
    from ..formats.log_out import LogFile
    from .simulate import choose_seed, prepare
    from .simulate import simulate as play

    named = [req.strategy or "optimal"] if req.players is None else req.players.split(",")
    if any(s.strip().lower() == "optimal" for s in named) and say is not None:
        from .hint import saved_rolls_advice

        advice = saved_rolls_advice(rules)
        if advice is not None:
            say(advice)
    _warm_up(rules, req)
    names = seats(rules, req)
    check(req)
    if req.plot is not None:
        from ..formats.plot import check_plot_target

        check_plot_target(req.plot)
    prepare(rules, names, say, record=req.log_out is not None, games=req.games)
    log_file = LogFile(req.log_out) if req.log_out not in (None, "-") else None
    seed = req.seed
    if seed is None:
        seed = choose_seed()
        if say is not None:
            say(f"seed {seed} (repeat this run with --seed {seed})")
    out = log_file.write if log_file is not None else sink
    stop = StopOnCtrlC(say)
    completed = False
    failure: str | None = None

    def on_progress(done: int) -> None:
        if progress is not None:
            progress(done, req.games)
        stop.check()

    try:
        with stop:
            report = play(rules, names, req.games, seed, workers=req.workers, backend=req.backend,
                          scheduler=req.scheduler, log_sink=out if req.log_out is not None else None,
                          on_progress=on_progress)
        completed = True
    except (StrategyError, SimulationError) as exc:
        failure = str(exc)
    finally:
        if log_file is not None:
            log_file.close(keep=completed)
    if failure is not None:
        if log_file is not None:  # what the file holds once the run stopped mid-way
            failure += f"; {{log_out}} {req.log_out} {log_file.holds()}"
        raise SimulationError(failure, options=("log_out",) if log_file is not None else ())
    if req.plot is not None:  # (an interrupted run still draws the games it played)
        from ..formats.plot import simulate_figure

        simulate_figure(report.to_dict()["seats"], req.plot, f"{report.rules.name}: {report.games:,} games")
        if say is not None:
            say(f"wrote {req.plot}")
    from .report import seat_rows, simulation_text, summary_line

    data = report.to_dict()
    log_error = None
    if log_file is not None and log_file.error is not None:
        log_error = CannotWrite(f"{{log_out}} {req.log_out}: {log_file.error}; it {log_file.holds()} (the summary "
                                "covers every game played)", options=("log_out",))
    return Simulation(report, {"type": "simulation", **data}, seat_rows(data), simulation_text(data, rules.name),
                      summary_line(data, rules.name), log_error)


class StopOnCtrlC:
    """The first Ctrl-C asks the run to stop after the chunk in progress (so the summary and the logs
    cover whole chunks: no half-written log line); a second one stops at once."""

    def __init__(self, say: Say | None = None) -> None:
        self.requested = False
        self.previous: Any = None
        self.say = say

    def _handler(self, signum: int, frame: Any) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        if self.say is not None:
            self.say("stopping after the games in progress (Ctrl-C again to stop at once)")

    def check(self) -> None:
        if self.requested:
            raise KeyboardInterrupt

    def __enter__(self) -> StopOnCtrlC:
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
