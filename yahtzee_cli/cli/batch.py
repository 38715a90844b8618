"""The options and steps of the commands that run over many games (validate, replay, analyze, and
simulate's workers): the files they read, where they run (--workers, --backend, --scheduler), and how a
run that stops is worded."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Annotated, Any, TypeVar

import typer

from ..errors import USAGE, YahtzeeError
from .app import fail, flag, warn

T = TypeVar("T")

FilesArg = Annotated[
    list[str],
    typer.Argument(metavar="FILE", help="Game logs or score sheets: files (one JSON document, several one "
                   "after another, or NDJSON with one game per line), directories (every *.json and *.ndjson "
                   "inside, recursively), or '-' for stdin.", show_default=False),
]


class Backend(StrEnum):
    local = "local"
    dask = "dask"


BackendOpt = Annotated[
    Backend, typer.Option("--backend", help="local (this machine) or dask (a Dask cluster; needs the dask extra).")
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option("--scheduler", metavar="ADDRESS", help="Dask scheduler address (tcp://HOST:8786); without "
                 "it --backend dask starts a local cluster.", show_default=False),
]


def workers_option(min_bytes: int) -> Any:
    """--workers of a command that reads game files (validate, analyze): processes only for inputs of
    at least `min_bytes`."""
    return typer.Option(
        "--workers", "-w", metavar="N", show_default=False,
        help="Processes to work in, this one and N - 1 it starts (default: every core). Files under "
        f"{min_bytes >> 20 or min_bytes >> 10} {'MiB' if min_bytes >> 20 else 'KiB'} in all (and stdin) are read "
        "in this process, where starting workers would cost more than they save; the output is the same "
        "whatever N.")


@contextmanager
def run_errors() -> Iterator[None]:
    """A run over many games: a library error that stops it is one line with its exit status, Ctrl-C
    is "interrupted" (130)."""
    try:
        yield
    except YahtzeeError as exc:
        fail(exc.worded(flag), exc.exit_status)
    except KeyboardInterrupt:
        fail("interrupted", 130)


def check_workers(workers: int | None, backend: Backend, scheduler: str | None) -> None:
    """--workers within what this machine allows; --scheduler only with --backend dask."""
    from ..play.executors import check_workers

    check_workers(workers, backend.value, scheduler)


def peek_batch(docs: Iterator[T]) -> tuple[bool, Iterator[T]]:
    """Whether a stream of documents is a batch (two or more), and the whole stream still to read:
    a single game is shown in full, a batch one line per game."""
    ahead = list(itertools.islice(docs, 2))
    return len(ahead) > 1, itertools.chain(ahead, docs)



def check_paths(files: list[str]) -> list[Any]:
    """The inputs a command names, expanded; a path that does not exist is a usage error."""
    from ..errors import MissingFile, ProblemCode
    from ..formats.inputs import expand

    skipped: list[tuple[str, str]] = []
    sources = expand(files, skipped)
    for path, why in skipped:
        warn(f"skipped {path}: {why}")
    for src in sources:
        if src.code is ProblemCode.UNREADABLE:
            raise MissingFile(src.name)
    if sum(1 for s in sources if s.path == "-") > 1:
        fail("'-' (stdin) can be read only once", USAGE)
    return sources


