"""Monte Carlo simulation: strategies registry, reproducible chunked runs (in-process, local processes or
a Dask cluster), statistics and game logs. No typer, no rich: the CLI draws on top of this.

Reproducibility: game g (0-based) of a run with seed S, seat s, always uses the dice stream
rng.stream(S, g, s). A run is split into chunks (first_game, n_games); each chunk is a pure function of
(rules, strategies, seed, first_game, n_games), so the results are identical whatever the chunk size,
the number of workers or the backend.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import os
import secrets
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

from ..errors import RulesError, SimulationError, StrategyError, TooBig, YahtzeeError
from ..formats.jsonio import dumps, loads
from ..limits import MAX_GAMES, max_workers
from ..rules import engine as R
from ..solver.games import GameBatch
from ..solver.totals import sheet_totals
from ..strategy.choice import plan
from .executors import ordered
from .executors import stop_requested as _stop_requested
from .strategies import (
    ChunkCancelled,
    load_user_strategy,
    random_play,
    user_play,
)

BUILTIN = ("optimal", "greedy", "random")
TO_WIN = "to-win"  # plays to win against the other seats of a match (play.to_win)
COMPILED = ("optimal", "greedy")  # played by the solver's compiled `play`
PERCENTILES = (5, 25, 50, 75, 95, 99)
MAX_SEED = 2**63 - 1

__all__ = [
    "BUILTIN", "ChunkCancelled", "SimulationError", "StrategyError", "Report", "SeatSummary", "play",
    "check_strategy", "simulate",
    "choose_seed", "prepare", "approximate_reason", "run_chunk", "ChunkJob", "game_logs", "rules_spec",
    "seat_stats", "histogram_bins",
]


# --------------------------------------------------------------------------- strategies


def check_strategy(name: str, rules: R.RuleSet | None = None) -> str:
    """The strategy's canonical name, or StrategyError naming the valid ones (user modules are imported).
    With `rules`, a risk strategy's theta is checked against their scores (strategy.choice.effective_theta):
    one too small to change anything is the optimal strategy itself."""
    low = name.strip().lower()
    if low in BUILTIN:
        return low
    if low == TO_WIN:
        if rules is not None:
            from .to_win import check_rules

            check_rules(rules)
        return low
    if low.startswith(RISK):
        theta = risk_theta(low)
        if rules is not None:
            from ..strategy.choice import effective_theta

            try:
                theta = effective_theta(rules, theta)
            except YahtzeeError as exc:
                raise StrategyError(f"strategy {name.strip()}: {exc}") from None
            if theta == 0.0:
                return "optimal"
        return risk_name(theta)
    if ":" in name:
        load_user_strategy(name.strip())
        return name.strip()
    from ..text import did_you_mean

    raise StrategyError(f"unknown strategy {name!r}{did_you_mean(low, (*BUILTIN, TO_WIN))}; valid: "
                        f"{', '.join(BUILTIN)}, {TO_WIN} (in a match), risk=THETA, or module:function")


RISK = "risk="  # strategy "risk=THETA": maximise E[exp(THETA * final score)] (yahtzee_cli.solver.distribution)


def risk_theta(name: str) -> float:
    """THETA of a "risk=THETA" strategy name (StrategyError when it is not a number)."""
    text = name.strip()[len(RISK):]
    try:
        theta = float(text)
    except ValueError:
        raise StrategyError(f"risk strategies are risk=THETA, THETA a number (e.g. risk=0.02), got {name!r}") from None
    if not -1.0 <= theta <= 1.0:
        raise StrategyError(f"theta must be from -1 to 1 (useful values are a few hundredths), got {text}")
    return theta


def risk_name(theta: float) -> str:
    return f"{RISK}{theta:g}"


def objective(strategy: str) -> str | None:
    """What a risk strategy maximises, for people and JSON (None for the others)."""
    if not strategy.startswith(RISK):
        return None
    theta = risk_theta(strategy)
    if theta == 0.0:
        return "maximise the expected final score"
    return f"maximise E[exp({theta:g} * final score)]: {'seeks' if theta > 0 else 'avoids'} variance"


def play(rules: R.RuleSet, strategy: str, seed: int, first_game: int, n_games: int, seat: int = 0,
         record: bool = False, threads: int | None = None,
         should_stop: Callable[[], bool] | None = None, run_games: int | None = None) -> GameBatch:
    """Games `first_game` .. `first_game + n_games - 1` of seat `seat` played by `strategy`.
    `threads`: threads for the compiled strategies (None: one per core); never changes games.
    `should_stop`: asked between games by the (slow) Python strategies; True raises ChunkCancelled.
    `run_games`: the games of the whole run (how the optimal and greedy players keep their memo)."""
    if strategy == "random":
        return random_play(rules, seed, first_game, n_games, seat, record, threads)
    if strategy.startswith(RISK):
        dist: Any = importlib.import_module("yahtzee_cli.solver.distribution")
        risk_batch: GameBatch = dist.play_risk(rules, risk_theta(strategy), seed, first_game, n_games, seat,
                                               record=record, threads=threads)
        return risk_batch
    if strategy in COMPILED:
        from ..solver import policy

        batch: GameBatch = policy.play(rules, strategy, seed, first_game, n_games, seat=seat, record=record,
                                       threads=threads, run_games=run_games)
        return batch
    return user_play(rules, strategy, seed, first_game, n_games, seat, record, should_stop=should_stop)


def play_match(rules: R.RuleSet, strategies: Sequence[str], seed: int, first_game: int, n_games: int,
               record: bool = False, threads: int | None = None, should_stop: Callable[[], bool] | None = None,
               run_games: int | None = None) -> list[GameBatch]:
    """Games first_game .. first_game + n_games - 1 of a match where some seats are `to-win`
    (play.to_win): the other seats' games first (recorded: the to-win seats see their sheets turn by
    turn), then the to-win seats'. Every seat's GameBatch, in seat order."""
    from .to_win import play_seats

    others = {s: play(rules, strat, seed, first_game, n_games, s, True, threads, should_stop=should_stop,
                      run_games=run_games)
              for s, strat in enumerate(strategies) if strat != TO_WIN}
    return play_seats(rules, strategies, others, seed, first_game, n_games, record, should_stop)


def prepare(rules: R.RuleSet, strategies: Sequence[str], say: Callable[[str], None] | None = None,
            record: bool = False, games: int = 0, progress: Callable[[int, int], None] | None = None) -> None:
    """Get what the compiled strategies need before a run (the solver's strategy table: loaded, or
    built once and cached; for a long run the move table, solver.moves), so the notes reach `say` and
    the run itself starts at full speed. `record`: the run records its games (a kernel of its own to
    compile); `games`: the run's games; `progress(done, total)`: how a move table's build comes on."""
    futs: dict[str, Any] = {}
    p = plan(rules)
    by_stock = p.by_stock  # optimal plays solver.saved's kernel, not play_games
    if any(s in COMPILED for s in strategies):
        from ..limits import cores
        from ..solver import aside, jit, play_kernel

        kernel = play_kernel.play_saved_games if by_stock and "optimal" in strategies else play_kernel.play_games
        if not jit.is_compiled(kernel):  # a first run: its compile starts on two cores
            aside.start_early(cores())
    for strategy in dict.fromkeys(strategies):
        if strategy == TO_WIN:
            from .to_win import player

            player(rules, say)
            continue
        if strategy.startswith(RISK):
            dist: Any = importlib.import_module("yahtzee_cli.solver.distribution")
            try:
                dist.get_risk_table(rules, risk_theta(strategy), say)
            except dist.NotExact as exc:
                raise StrategyError(f"strategy {strategy} needs an exact table: {exc}") from None
            continue
        if strategy == "optimal" and by_stock:  # values by stock: their own kernel
            from ..solver import jit, play_kernel, saved, saved_fit

            values = saved_fit.stock_values(p, say)
            if values is not None:
                jit.note_compile([play_kernel.play_saved_games], "the simulator", say,
                                 [saved.play_args(rules, values, 1, record)])
            continue
        if strategy not in COMPILED:
            continue
        from ..solver import policy

        try:
            futs[strategy] = policy.value_to_go_for(rules, strategy, say)
        except NotImplementedError as exc:
            raise StrategyError(f"strategy {strategy} is not available for {rules.name} yet ({exc})") from None
        except TooBig as exc:
            raise StrategyError(str(exc)) from None
    from ..solver import moves

    for fut in futs.values():
        if moves.wanted(rules, fut, games):
            moves.get(rules, fut, say, progress)
    compiled = [s for s in dict.fromkeys(strategies) if s in futs or s == "random"]
    if compiled:
        from ..solver import exact, jit, play_kernel
        from . import strategies as compiled_strategies

        needed: list[Any] = []
        args: list[Any] = []
        for s in compiled:
            if s == "random":
                needed.append(compiled_strategies._random_block)
                args.append(None)
            elif moves.for_run(rules, futs[s], games) is not None:  # games read from the move table
                needed.append(moves.kernel(rules))
                args.append(None)
            else:
                needed.append(play_kernel.play_games)
                args.append(exact.play_args(rules, futs[s], record, games))
        jit.note_compile(needed, "the simulator", say, args)


def approximate_reason(rules: R.RuleSet, strategy: str) -> str | None:
    """Why `optimal` plays the solver's labelled approximate strategy on these rules (None: exact
    table, or not the optimal strategy)."""
    if strategy != "optimal":
        return None
    p = plan(rules)
    return None if p.strategy == "saved" else p.why


def _optimal_label(rules: R.RuleSet, strategy: str) -> dict[str, Any]:
    """Whether a seat plays the exact optimal table (`exact` true) or, without an exact table for these
    rules, an approximation named in `approximation` (`exact` false); a strategy that plays no table
    (random, greedy, a bot) is neither: `exact` null. A risk strategy names its objective."""
    if strategy == TO_WIN:
        from .to_win import objective as to_win_objective

        return {"exact": True, "approximation": None, "objective": to_win_objective(rules)}
    goal = objective(strategy)
    if goal is not None:
        return {"exact": True, "approximation": None, "objective": goal}
    if strategy != "optimal":
        return {"exact": None, "approximation": None}
    p = plan(rules)
    if p.strategy == "saved" and p.table_rules is not None:  # exact within the table's cap
        return {"exact": True, "approximation": None, "saved_rolls_cap": p.table_rules.settings.saved_cap}
    if p.strategy == "fitted":
        from ..solver import saved_fit

        model = saved_fit.stock_values(p)
        if model is not None:
            return {"exact": False, "approximation": saved_fit.fitted_label(model),
                    "saved_rolls_cap": model.cap}
    reason = approximate_reason(rules, strategy)
    return {"exact": reason is None, "approximation": f"no exact table with {reason}" if reason else None}


def choose_seed() -> int:
    """A fresh seed for a run without --seed (small enough to type back)."""
    return secrets.randbits(32)


# --------------------------------------------------------------------------- per-chunk summaries


@dataclass
class SeatSummary:
    """Mergeable statistics of one seat over some games: exact, so merging chunks in any order gives
    the same figures. `hist[v]` counts the games that scored v."""

    games: int
    hist: np.ndarray
    box_sum: np.ndarray  # [C, B] summed scores
    upper_bonus: int  # columns that earned the upper bonus
    yahtzee_scored: int  # columns whose yahtzee box holds its full value
    extra_bonus: int  # extra-Yahtzee bonus points, summed
    wins: int = 0
    ties: int = 0

    @classmethod
    def empty(cls, rules: R.RuleSet) -> SeatSummary:
        return cls(0, np.zeros(1, dtype=np.int64), np.zeros((rules.settings.columns, len(rules.boxes)),
                                                            dtype=np.int64), 0, 0, 0)

    def merged(self, other: SeatSummary) -> SeatSummary:
        """A new summary of both sets of games (neither input changes)."""
        n = max(len(self.hist), len(other.hist))
        hist = np.zeros(n, dtype=np.int64)
        hist[: len(self.hist)] += self.hist
        hist[: len(other.hist)] += other.hist
        return SeatSummary(self.games + other.games, hist, self.box_sum + other.box_sum,
                           self.upper_bonus + other.upper_bonus, self.yahtzee_scored + other.yahtzee_scored,
                           self.extra_bonus + other.extra_bonus, self.wins + other.wins, self.ties + other.ties)


def summarize(rules: R.RuleSet, batch: GameBatch) -> tuple[SeatSummary, np.ndarray]:
    """A batch's summary and its totals, both from the rules module's totals (rules.sheet_total semantics)."""
    totals, bonus_hit = sheet_totals(rules, batch.scores, batch.yahtzee_bonus)
    y = rules.yahtzee_index
    ys = 0
    if y is not None:
        ys = int((batch.scores[:, :, y] == rules.boxes[y].points).sum())
    summary = SeatSummary(
        games=len(batch),
        hist=np.bincount(totals, minlength=1).astype(np.int64) if len(batch) else np.zeros(1, dtype=np.int64),
        box_sum=np.clip(batch.scores, 0, None).sum(axis=0).astype(np.int64),
        upper_bonus=int(bonus_hit.sum()),
        yahtzee_scored=ys,
        extra_bonus=int(batch.yahtzee_bonus.sum()),
    )
    return summary, totals


# --------------------------------------------------------------------------- chunks


@dataclass(frozen=True)
class ChunkJob:
    """Everything a worker needs for one chunk (picklable: the rule set travels as its JSON)."""

    rules_json: bytes
    strategies: tuple[str, ...]
    seed: int
    first_game: int
    n_games: int
    record: bool = False
    names: tuple[str, ...] = ()
    threads: int | None = 1  # threads inside the chunk (results never depend on it)
    run_games: int = 0  # games of the whole run (whether the compiled players keep a memo)


@dataclass
class ChunkResult:
    first_game: int
    n_games: int
    seats: list[SeatSummary]
    log: bytes | None = None
    seconds: float = 0.0


@cache
def _rules_of(rules_json: bytes) -> R.RuleSet:
    return R.rules_from_data(loads(rules_json))


def run_chunk(job: ChunkJob) -> ChunkResult:
    """One chunk: every seat plays its games, then the summaries (and logs when asked)."""
    start = time.perf_counter()
    rules = _rules_of(job.rules_json)
    if TO_WIN in job.strategies:
        batches = play_match(rules, job.strategies, job.seed, job.first_game, job.n_games, job.record, job.threads,
                             should_stop=_stop_requested, run_games=job.run_games)
    else:
        batches = [play(rules, s, job.seed, job.first_game, job.n_games, seat, job.record, job.threads,
                        should_stop=_stop_requested, run_games=job.run_games)
                   for seat, s in enumerate(job.strategies)]
    summaries = []
    all_totals = []
    for b in batches:
        summary, totals = summarize(rules, b)
        summaries.append(summary)
        all_totals.append(totals)
    if len(batches) > 1:
        from ..solver.totals import first_places

        won, tied = first_places(np.stack(all_totals))  # [S, G]
        for seat, summary in enumerate(summaries):
            summary.wins = int(won[seat].sum())
            summary.ties = int(tied[seat].sum())
    names = job.names or default_names(job.strategies)
    log = game_logs(rules, names, batches, job.seed, job.strategies) if job.record else None
    return ChunkResult(job.first_game, job.n_games, summaries, log, time.perf_counter() - start)


RECORD_BYTES = 64 << 20  # recorded play (for logs) held per chunk and seat, about


def record_cap(rules: R.RuleSet, seats: int = 1, compact: int = 0) -> int:
    """Most games a chunk may record: each seat's recorded arrays (rolls and held dice of every turn,
    sized for the longest possible game; 8 bytes a die, 1 where every seat plays by stock, solver.saved:
    `compact` of the `seats`) stay under RECORD_BYTES; 1,000 at most where the logs are written line
    by line in Python (matches, several columns), 20,000 where log_lines writes them (a chunk then
    costs its start a thousandth as often)."""
    from . import log_lines

    turns = rules.settings.columns * len(rules.boxes) * (1 if rules.settings.must_zero else 50)
    per_die = 1 if compact == seats else 8
    per_game = 2 * per_die * turns * R.most_rolls(rules, turns) * rules.dice
    most = 20_000 if log_lines.compiled(rules, seats) else 1000
    return max(1, min(most, RECORD_BYTES // per_game))


def by_stock_seats(rules: R.RuleSet, strategies: Sequence[str]) -> int:
    """How many seats play by stock of saved rolls (optimal play of rules with saved rolls where an
    exact table or a fitted model plays them: solver.saved's kernel)."""
    n = sum(1 for s in strategies if s == "optimal")
    return n if n and rules.settings.saved_rolls and plan(rules).by_stock else 0  # (no plan to make without)


def chunks_per_worker(rules: R.RuleSet, strategies: Sequence[str]) -> int:
    """About how many chunks each worker gets: 20, or 4 where a seat plays by stock of saved rolls (a
    chunk values a turn once for its games whose sheets are alike: Maxi Yatzy's sheets valued per
    game and turn were 0.80 in pieces of 250 games, 0.51 in pieces of 10,000,
    benchmarks/profile_saved_play.py)."""
    return 4 if by_stock_seats(rules, strategies) else 20


def chunk_plan(games: int, workers: int, record_limit: int | None = None,
               slow: bool = False, per_worker: int = 20) -> Iterator[tuple[int, int]]:
    """(first_game, n_games) of each chunk: about `per_worker` per worker (`workers`: chunks that run at
    the same time), 500 to 20,000 games each (at most `record_limit` when recording play for logs; 100
    to 200 for slow Python strategies so progress and Ctrl-C stay prompt). The plan never changes the
    games, only the scheduling. (The compiled strategies play 500 games in a few hundredths of a
    second, and each chunk costs a few thousandths around its games: 20 chunks were a tenth of a
    2,000-game run.)"""
    size = max(100 if slow else 500, min(20_000, math.ceil(games / (max(workers, 1) * per_worker))))
    if slow:
        size = min(size, 200)
    if record_limit is not None:
        size = min(size, record_limit)
    return ((g, min(size, games - g)) for g in range(0, games, size))


def local_mode(strategies: Sequence[str], workers: int, processes: bool | None = None) -> str:
    """How the local backend runs: "inline" (one worker), "threads" (compiled strategies only: one
    process, threads running the nogil kernels, one copy of the strategy table, no start-up cost) or "processes"
    (spawned worker processes; always for Python user strategies). `processes` forces a choice."""
    if workers <= 1:
        return "inline"
    if processes is None:
        processes = not all(s in (*COMPILED, "random") for s in strategies)
    return "processes" if processes else "threads"


def _results(jobs: Iterator[ChunkJob], workers: int, mode: str, scheduler: str | None,
             dask_processes: bool) -> Iterator[ChunkResult]:
    """The chunks' results in game order: in this process (inline, or threads inside each chunk), or
    on the workers of executors.ordered (spawned processes, every chunk in a worker: a bot that ends
    its process ends only that worker; or Dask)."""
    if mode == "inline":
        return (run_chunk(dataclasses.replace(job, threads=1)) for job in jobs)
    if mode == "threads":
        return _one_ahead(run_chunk, (dataclasses.replace(job, threads=workers) for job in jobs))
    return ordered(run_chunk, jobs, mode=mode, workers=workers, scheduler=scheduler, parent_works=False,
                   dask_processes=dask_processes)


def _one_ahead(fn: Callable[[ChunkJob], ChunkResult], jobs: Iterator[ChunkJob]) -> Iterator[ChunkResult]:
    """fn(job) for every job, in order, the next job started before a result is handed on: its games
    play (the kernels release the GIL) while this one's summary is merged and its logs written."""
    from concurrent.futures import Future, ThreadPoolExecutor

    pool = ThreadPoolExecutor(1)
    running: Future[ChunkResult] | None = None
    try:
        for job in jobs:
            nxt = pool.submit(fn, job)
            if running is not None:
                yield running.result()
            running = nxt
        if running is not None:
            yield running.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


# --------------------------------------------------------------------------- runs


@dataclass
class Report:
    """The outcome of a run (possibly interrupted: then it covers the chunks that finished)."""

    rules: R.RuleSet
    strategies: tuple[str, ...]
    seed: int
    games_requested: int
    seats: list[SeatSummary]
    interrupted: bool = False
    seconds: float = 0.0
    names: tuple[str, ...] = field(default=())

    @property
    def games(self) -> int:
        return self.seats[0].games if self.seats else 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of `simulate --json`, the same for one strategy and for a match: run facts,
        whether the play is exact (_optimal_label), then `seats` (each with its strategy, wins, ties, win and
        tie rates -- null for a single seat, which has nobody to beat -- and its stats). Timing is left
        out on purpose: the same seed gives byte-identical output."""
        labels = [_optimal_label(self.rules, name) for name in self.strategies]
        notes = [lab["approximation"] for lab in labels if lab["approximation"]]
        solo = len(self.seats) == 1
        seats = []
        for s, (name, summary) in enumerate(zip(self.strategies, self.seats, strict=True)):
            n = max(summary.games, 1)
            seats.append({"seat": s + 1, "player": (self.names or default_names(self.strategies))[s],
                          "strategy": name, **labels[s],
                          "wins": None if solo else summary.wins, "ties": None if solo else summary.ties,
                          "win_rate": summary.wins / n if summary.games and not solo else None,
                          "tie_rate": summary.ties / n if summary.games and not solo else None,
                          **seat_stats(self.rules, summary)})
        return {
            "rules": self.rules.record(),
            "seed": self.seed,
            "games": self.games,
            "games_requested": self.games_requested,
            "interrupted": self.interrupted,
            # false when a seat plays an approximation, true when a seat plays an exact table, else null
            "exact": False if notes else True if any(lab["exact"] for lab in labels) else None,
            "approximation": "; ".join(dict.fromkeys(notes)) or None,
            "players": list(self.strategies),
            "seats": seats,
        }


def simulate(
    rules: R.RuleSet,
    strategies: Sequence[str],
    games: int,
    seed: int,
    *,
    workers: int | None = None,
    backend: str = "local",
    scheduler: str | None = None,
    processes: bool | None = None,
    log_sink: Callable[[bytes], None] | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> Report:
    """Play `games` games (a match when several strategies are given: seat s plays strategies[s]).

    workers: local parallelism (default: every core; 1 runs in-process) or Dask workers of the local
    cluster started when `backend="dask"` and no `scheduler` is given. Locally, compiled strategies
    run on `workers` threads in this process and user strategies in `workers` spawned processes
    (see local_mode; `processes=True/False` forces one); the local Dask cluster's workers are processes
    unless `processes=False`. No choice changes the results. `log_sink` receives NDJSON game
    logs, chunk by chunk in game order. `on_progress(games_done)` after each chunk. A KeyboardInterrupt
    (Ctrl-C, or raised by on_progress/log_sink) stops the run: the report covers the finished chunks."""
    strategies = tuple(check_strategy(s, rules) for s in strategies)
    if not strategies:
        raise StrategyError("no strategy given")
    if TO_WIN in strategies and len(strategies) < 2:
        raise StrategyError(f"{TO_WIN} plays against the other seats of a match: it needs at least one other seat")
    if not 1 <= games <= MAX_GAMES:
        raise SimulationError(f"a run plays 1 to {MAX_GAMES:,} games, got {games}")
    if not 0 <= seed <= MAX_SEED:
        raise SimulationError(f"the seed must be a whole number from 0 to {MAX_SEED}, got {seed}")
    if backend not in ("local", "dask"):
        raise SimulationError(f"unknown backend {backend!r}; valid: local, dask")
    if workers is not None and workers > max_workers():
        raise SimulationError(f"at most {max_workers()} workers on this machine, got {workers}")
    n_workers = workers if workers and workers > 0 else (os.cpu_count() or 1)
    record = log_sink is not None
    names = default_names(strategies)
    rules_json = dumps(rules.to_dict())
    mode = "dask" if backend == "dask" else local_mode(strategies, n_workers, processes)
    at_once = n_workers if mode in ("dask", "processes") else 1
    jobs = (ChunkJob(rules_json, strategies, seed, first, n, record, names, run_games=games)
            for first, n in chunk_plan(games, at_once,
                                       record_cap(rules, len(strategies), by_stock_seats(rules, strategies))
                                       if record else None,
                                       slow=any(s not in BUILTIN for s in strategies),
                                       per_worker=chunks_per_worker(rules, strategies)))
    seats = [SeatSummary.empty(rules) for _ in strategies]
    report = Report(rules, strategies, seed, games, seats, names=names)
    start = time.perf_counter()
    waiting: dict[int, bytes] = {}
    sizes: dict[int, int] = {}
    next_log = 0
    results = _results(jobs, n_workers, mode, scheduler, processes is not False)
    try:
        for res in results:
            # one assignment: a Ctrl-C landing here leaves every seat counting the same chunks
            seats[:] = [total.merged(part) for total, part in zip(seats, res.seats, strict=True)]
            if log_sink is not None and res.log is not None:
                waiting[res.first_game] = res.log
                sizes[res.first_game] = res.n_games
                while next_log in waiting:
                    chunk = waiting.pop(next_log)
                    next_log += sizes[next_log]
                    log_sink(chunk)
            if on_progress is not None:
                on_progress(seats[0].games)
    except KeyboardInterrupt:
        report.interrupted = True
    finally:  # whatever stopped the loop: workers and clusters end now, not when the generator is collected
        close = getattr(results, "close", None)
        if close is not None:
            close()
    if log_sink is not None:
        for first in sorted(waiting):  # finished chunks behind an unfinished one (interrupted runs)
            log_sink(waiting[first])
    report.seconds = time.perf_counter() - start
    return report


# --------------------------------------------------------------------------- statistics


def _percentile(hist: np.ndarray, n: int, p: float) -> int:
    """The smallest score with at least p% of the games at or below it (nearest rank; numpy's
    `inverted_cdf` method)."""
    target = math.ceil(p / 100 * n - 1e-9)
    cum = np.cumsum(hist)
    return int(np.searchsorted(cum, max(target, 1)))


def histogram_bins(hist: np.ndarray, max_bins: int = 30) -> dict[str, Any]:
    """Score counts grouped into equal bins of a round width (1, 2, 5, 10, 20, 25, 50, ...) so that at
    most `max_bins` cover min..max; each bin is [low, high) with high = low + width."""
    nz = np.nonzero(hist)[0]
    if len(nz) == 0:
        return {"width": 1, "bins": []}
    lo, hi = int(nz[0]), int(nz[-1])
    width = 1
    steps = (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000)
    for width in steps:
        if (hi // width - lo // width + 1) <= max_bins:
            break
    bins = []
    for low in range(lo // width * width, hi + 1, width):
        bins.append({"low": low, "high": low + width, "count": int(hist[low : low + width].sum())})
    return {"width": width, "bins": bins}


def seat_stats(rules: R.RuleSet, s: SeatSummary) -> dict[str, Any]:
    """Every figure of the report for one seat (JSON-ready, no NaN: undefined figures are null)."""
    n = s.games
    n_cols = rules.settings.columns
    values = np.arange(len(s.hist), dtype=np.int64)
    s1 = int((values * s.hist).sum())
    s2 = sum(int(v) * int(v) * int(c) for v, c in zip(values.tolist(), s.hist.tolist(), strict=True) if c)
    mean = s1 / n if n else None
    sd = sem = None
    if n > 1:
        var = (Fraction(s2) - Fraction(s1 * s1, n)) / (n - 1)
        sd = math.sqrt(var)
        sem = sd / math.sqrt(n)
    nz = np.nonzero(s.hist)[0]
    y = rules.yahtzee_index
    per_col = (s.box_sum / n) if n else np.zeros_like(s.box_sum, dtype=np.float64)
    out: dict[str, Any] = {
        "mean": mean,
        "sd": sd,
        "sem": sem,
        "min": int(nz[0]) if n else None,
        "percentiles": {f"p{p}": (_percentile(s.hist, n, p) if n else None) for p in PERCENTILES},
        "max": int(nz[-1]) if n else None,
        "p_upper_bonus": s.upper_bonus / (n * n_cols) if n else None,
        "p_yahtzee": (s.yahtzee_scored / (n * n_cols) if n else None) if y is not None else None,
        "yahtzee_points": int(rules.boxes[y].points or 0) if y is not None else None,
        "mean_extra_bonus": s.extra_bonus / n if n else None,
        "mean_per_box": {k: float(per_col[:, b].mean()) for b, k in enumerate(rules.keys)},
    }
    if n_cols > 1:
        out["mean_per_box_by_column"] = [{k: float(per_col[c, b]) for b, k in enumerate(rules.keys)}
                                         for c in range(n_cols)]
    out["histogram"] = histogram_bins(s.hist)
    if n:
        out["games"] = n
    return out


# --------------------------------------------------------------------------- game logs


def rules_spec(rules: R.RuleSet) -> Any:
    """The rule set as a log's `rules`: a preset name, {"preset", "settings"} with the settings that
    differ from the preset, or the full custom rule set."""
    try:
        base = R.preset(rules.name)
    except RulesError:
        return rules.to_dict()
    if base.boxes != rules.boxes or base.dice != rules.dice:
        return rules.to_dict()
    mine = rules.settings.model_dump(mode="json")
    theirs = base.settings.model_dump(mode="json")
    diff = {k: v for k, v in mine.items() if v != theirs[k]}
    if not diff:
        return rules.name
    try:
        again = R.preset(rules.name, diff)
    except RulesError:
        return rules.to_dict()
    return {"preset": rules.name, "settings": diff} if again.settings == rules.settings else rules.to_dict()


def default_names(strategies: Sequence[str]) -> tuple[str, ...]:
    """Player names for logs: the strategy, numbered by seat when a strategy plays more than one seat."""
    out = []
    for s, name in enumerate(strategies):
        out.append(name if strategies.count(name) == 1 else f"{name} {s + 1}")
    return tuple(out)


def game_logs(rules: R.RuleSet, names: Sequence[str], batches: Sequence[GameBatch], seed: int | None = None,
              strategies: Sequence[str] = ()) -> bytes:
    """NDJSON game logs (`yahtzee-log/1`): one line per game, the seats' turns round-robin,
    each with the dice after every roll, the dice held before every reroll, the box (null for a pass),
    its 1-based column on multi-column sheets, and the score written. `meta` records the seed, the
    game's index and the strategies, so any game can be played again."""
    from . import log_lines

    spec = rules_spec(rules)
    if log_lines.applies(rules, batches, seed):
        assert seed is not None
        return log_lines.game_logs(spec, rules.keys, names[0], batches[0], seed, strategies)
    from ..formats.logs import dump_line, log_document, turn_entry  # (only runs that record: ~90 ms to import)

    keys = rules.keys
    multi = rules.settings.columns > 1
    out = []
    first = batches[0]
    for g in range(len(first)):
        per_seat = []
        for s, b in enumerate(batches):
            assert b.rolls is not None and b.held is not None and b.n_rolls is not None
            assert b.box is not None and b.column is not None and b.n_turns is not None
            turns = []
            for t in range(int(b.n_turns[g])):
                k = int(b.n_rolls[g, t])
                rolls = b.rolls[g, t, :k].tolist()
                held = [[v for v in h if v] for h in b.held[g, t, : k - 1].tolist()] if k > 1 else None
                box = int(b.box[g, t])
                c = int(b.column[g, t])
                if box < 0:
                    turns.append(turn_entry(names[s], rolls, held=held, passed=True))
                else:
                    turns.append(turn_entry(names[s], rolls, held=held, box=keys[box],
                                            column=c + 1 if multi else None, score=int(b.scores[g, c, box])))
            per_seat.append(turns)
        merged = [turns[r] for r in range(max(len(t) for t in per_seat)) for turns in per_seat if r < len(turns)]
        meta = None
        if seed is not None:
            meta = {"seed": seed, "game": first.first_game + g + 1, "strategies": list(strategies)}
        out.append(dump_line(log_document(spec, list(names), merged, meta)))
    return b"".join(out)
