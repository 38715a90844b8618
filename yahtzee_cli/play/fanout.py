"""validate, replay and analyze over many inputs: the inputs cut into jobs (formats.batch.plan), each
job read and worked on wherever it runs (this process, worker processes, a Dask cluster: see
executors), the results given back in input order, so the output, the summary and the exit status
are those of one reading in order, whatever the number of workers or the backend.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import CacheError, GameError, ProblemCode, YahtzeeError
from ..formats.batch import CHUNK_BYTES, Done, Job, in_order, input_bytes, plan, run_job
from ..formats.inputs import Game, Source, Unreadable, bad_game_record
from ..limits import GRADE_PROCESS_BYTES, VALIDATE_PROCESS_BYTES
from .executors import choose_mode, ordered

R = TypeVar("R")

GRADE_CHUNK_BYTES = 64 << 10  # a grading job: a few dozen games (seconds of work at today's speed)


def _mode(sources: list[Source], workers: int | None, backend: str, min_bytes: int) -> tuple[str, int]:
    return choose_mode(input_bytes(sources) if backend != "dask" else 0, workers, backend, min_bytes)


def local_job(job: Job) -> bool:
    return job.local


def run_batch(fn: Callable[[Job], list[Done[R]]], sources: list[Source], *, workers: int | None = None,
              backend: str = "local", scheduler: str | None = None) -> Iterator[R]:
    """What `fn` makes of each piece of the run's inputs (validation), in input order (see
    formats.batch)."""
    mode, n = _mode(sources, workers, backend, VALIDATE_PROCESS_BYTES)
    # validation is plain Python on what this process has imported: workers may be forked copies
    return in_order(ordered(fn, plan(sources, CHUNK_BYTES), mode=mode, workers=n, scheduler=scheduler,
                            local=local_job, fork=True))


# --------------------------------------------------------------------------- replay


@dataclass(frozen=True, slots=True)
class ReplayJob:
    job: Job
    overrides: dict[str, Any]
    until: int | None = None


@dataclass(frozen=True, slots=True)
class Replayed:
    """One game of a replay: the game as read (without its data: where it is, its reading problem)
    and its replay, or a poker-dice match (`poker`) checked, or why it cannot be replayed: the
    problems of a game that is not valid, a house-rule setting or `until` that does not apply."""

    item: Game | Unreadable
    replay: Any = None  # formats.replay.Replay
    poker: bool = False
    match: Any = None  # formats.poker_log match
    problems: tuple[Any, ...] = ()
    rules_error: str | None = None
    until_error: str | None = None


def _replay_one(item: Game | Unreadable, rj: ReplayJob) -> Replayed:
    from ..errors import RulesError
    from ..formats.logs import POKER_FORMAT
    from ..formats.poker_log import check_match
    from ..formats.replay import replay_game

    if not isinstance(item, Game):
        return Replayed(item)
    doc = item.doc
    lean = Game(item.source, dataclasses.replace(doc, data=None))
    if doc.problem is not None:
        return Replayed(lean)
    if isinstance(doc.data, dict) and doc.data.get("format") == POKER_FORMAT:
        if rj.overrides or rj.until is not None:
            return Replayed(lean, poker=True)
        match, problems = check_match(doc.data)
        return Replayed(lean, poker=True, match=match, problems=tuple(problems))
    try:
        return Replayed(lean, replay_game(doc.data, overrides=rj.overrides, until=rj.until))
    except GameError as exc:
        return Replayed(lean, problems=tuple(exc.problems))
    except RulesError as exc:
        return Replayed(lean, rules_error=str(exc))
    except YahtzeeError as exc:
        return Replayed(lean, until_error=str(exc))


def replay_job(rj: ReplayJob) -> list[Done[list[Replayed]]]:
    """Replay a job's games (the task `replay` hands out)."""
    return run_job(rj.job, lambda items: [_replay_one(item, rj) for item in items])


def replayed(sources: list[Source], *, overrides: dict[str, Any], until: int | None = None,
             backend: str = "local", scheduler: str | None = None, workers: int | None = None) -> Iterator[Replayed]:
    """Every game of the inputs replayed, in order: here, or on a Dask cluster (a replay is quick:
    locally it never pays to start workers)."""
    mode, n = _mode(sources, workers if backend == "dask" else 1, backend, 0)
    jobs = (ReplayJob(job, overrides, until) for job in plan(sources, CHUNK_BYTES))
    for done in in_order(ordered(replay_job, jobs, mode=mode, workers=n, scheduler=scheduler,
                                 local=lambda rj: rj.job.local)):
        yield from done


# --------------------------------------------------------------------------- grading (analyze)


@dataclass(frozen=True, slots=True)
class GradeJob:
    """A grading task: the job's games, how to grade them, and the run it belongs to (a worker keeps
    one Analyzer, with its tables and turn cache, for the run)."""

    job: Job
    run: str
    until: int | None = None
    theta: float | None = None
    keep_decisions: bool = False
    compiled: bool | None = None  # Analyzer's: True for a run big enough to load the compiled grader at once
    wins: bool = False  # Analyzer's: decisions of games of two or more valued in win probability too

    @property
    def local(self) -> bool:
        return self.job.local


@dataclass(frozen=True, slots=True)
class Graded:
    """One game of a grading run: its analysis, or (`analysis` None) the error lines for stderr and
    the NDJSON record of a game that cannot be graded; `fatal`: the run cannot go on at all."""

    where: str
    analysis: Any = None  # play.analyze.GameAnalysis
    errors: tuple[str, ...] = ()
    record: dict[str, Any] | None = None
    fatal: str | None = None
    notes: tuple[str, ...] = ()  # what grading it had to say first (a table built or loaded)


# per thread (a Dask worker may run tasks on threads): the run it grades for, its Analyzer, and the
# Analyzer's notes since the last game
_GRADER = threading.local()


def _analyzer(gj: GradeJob) -> Any:
    if getattr(_GRADER, "run", None) != gj.run:
        from ..progress import heard
        from .analyze import Analyzer

        notes: list[str] = []

        def say(message: str) -> None:  # at once where the command runs, else with the game that caused it
            if not heard(message):
                notes.append(message)

        _GRADER.notes = notes
        _GRADER.analyzer = Analyzer(say, theta=gj.theta, compiled=gj.compiled, wins=gj.wins)
        _GRADER.run = gj.run
    return _GRADER.analyzer


def _with_notes(g: Graded) -> Graded:
    """The notes go with the game that caused them, so the command shows them in order, once, from
    whichever process graded it."""
    notes: list[str] = _GRADER.notes
    if not notes:
        return g
    g = dataclasses.replace(g, notes=tuple(notes))
    notes.clear()
    return g


def _grade_one(analyzer: Any, item: Game | Unreadable, gj: GradeJob) -> Graded:
    if not isinstance(item, Game):
        return Graded(item.source.name, errors=(f"{item.source.name}: {item.message}",),
                      record=bad_game_record(item.source.name, None, [], item.code, item.message))
    doc = item.doc
    if doc.problem is not None:
        return Graded(item.where, errors=(f"{item.where}: {doc.problem}",),
                      record=bad_game_record(item.file, doc, [doc.problem]))
    try:
        ga = analyzer.game(doc.data, until=gj.until, game=doc.index, file=item.file, line=doc.line,
                           keep_decisions=gj.keep_decisions, turn_lines=doc.lines_of("/turns"), trusted=doc.trusted)
    except GameError as exc:
        return Graded(item.where, errors=tuple(f"{item.file}:{doc.line_of(p.path)}: game {doc.index}: {p}"
                                               for p in exc.problems),
                      record=bad_game_record(item.file, doc, exc.problems))
    except CacheError as exc:  # the cache, not the game: no later game would fare better
        return Graded(item.where, fatal=str(exc))
    except YahtzeeError as exc:
        return Graded(item.where, errors=(f"{item.where}: {exc}",),
                      record=bad_game_record(item.file, doc, [], ProblemCode.NOT_GRADABLE, str(exc)))
    except OSError as exc:
        from ..store.artifact import unusable

        return Graded(item.where, fatal=unusable(exc))
    return Graded(item.where, ga)


def grade_job(gj: GradeJob) -> list[Done[list[Graded]]]:
    """Grade a job's games (the task `analyze` hands out)."""
    analyzer = _analyzer(gj)
    return run_job(gj.job, lambda items: [_with_notes(_grade_one(analyzer, item, gj)) for item in items])


def grade(sources: list[Source], *, until: int | None = None, theta: float | None = None,
          keep_decisions: bool = False, workers: int | None = None, backend: str = "local",
          scheduler: str | None = None, wins: bool = False) -> Iterator[Graded]:
    """Every game of the inputs graded, in order (see `ordered` for where the work runs)."""
    import secrets

    mode, n = _mode(sources, workers, backend, GRADE_PROCESS_BYTES)
    run = secrets.token_hex(8)
    # inputs this big hold far more games than the pure-Python start (analyze.COMPILED_AFTER) is for
    compiled = True if input_bytes(sources) >= GRADE_PROCESS_BYTES else None
    jobs = (GradeJob(job, run, until, theta, keep_decisions, compiled, wins)
            for job in plan(sources, GRADE_CHUNK_BYTES))
    for graded in in_order(ordered(grade_job, jobs, mode=mode, workers=n, scheduler=scheduler,
                                   local=lambda gj: gj.local)):
        yield from graded



__all__ = ["Graded", "Replayed", "grade", "replayed", "run_batch"]
