"""Many inputs as one run: files, directories (recursing into *.json and *.ndjson) and `-` for stdin.

`validate`, `replay` and `analyze` read every game of every input in order, each game named by its
file, the line it starts on and its 1-based number within that file. An input that cannot be read
at all (missing, a directory without games, empty, binary) is a `Source` with an `error`; the run
goes on with the next one, so one summary and one exit status cover the whole run.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import IO, Any

from ..errors import InputError, ProblemCode
from .logs import Document, Problem, iter_documents

GAME_SUFFIXES = (".json", ".ndjson")
STDIN = "<stdin>"


@dataclass(frozen=True, slots=True)
class Source:
    """One input named on the command line (or found in a directory): its name as shown to users,
    its path ('-' for stdin), and why it cannot be read (None when it can)."""

    name: str
    path: str
    error: str | None = None
    code: ProblemCode | None = None


def stdin_is_data() -> bool:
    """Whether stdin is a pipe, a file or a socket (data waiting to be read), not a terminal or nothing."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):  # no real stdin (closed, or replaced in-process)
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode) or stat.S_ISSOCK(mode)


def expand(paths: Sequence[str], skipped: list[tuple[str, str]] | None = None) -> list[Source]:
    """The inputs in order: a directory becomes its *.json and *.ndjson files (at any depth, sorted by
    path); a path that does not exist is kept as a Source with an error. What a directory walk passes
    over (a FIFO, socket or device named like a game, which would block or never end; a folder that
    cannot be listed) is added to `skipped` as (path, why)."""
    out: list[Source] = []
    for path in paths or ["-"]:
        if path == "-":
            out.append(Source(STDIN, "-"))
        elif os.path.isdir(path):
            found = walk(path, skipped if skipped is not None else [])
            if not found:
                out.append(Source(path, path, "a directory with no *.json or *.ndjson files",
                                  ProblemCode.NO_GAMES))
            out.extend(Source(f, f) for f in found)
        elif not os.path.exists(path):
            out.append(Source(path, path, "no such file or directory", ProblemCode.UNREADABLE))
        else:
            out.append(Source(path, path))  # named on the command line: read whatever it is (a pipe too)
    return out


_KINDS = ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory"))


def walk(top: str, skipped: list[tuple[str, str]]) -> list[str]:
    """The *.json and *.ndjson regular files under `top`, sorted by path: a loop over a stack of folders
    (no recursion, so no depth limit), never following a link to a folder (a link loop cannot loop), a
    link to a file read like the file. Anything else named like a game is skipped, with why."""
    found: list[str] = []
    passed: list[tuple[str, str]] = []
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                listed = list(entries)
        except OSError as exc:
            if folder != top:
                passed.append((folder, f"cannot list the folder: {exc.strerror}"))
            continue
        for entry in listed:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                    continue
                if not entry.name.endswith(GAME_SUFFIXES):
                    continue
                mode = entry.stat().st_mode  # follows a link; never opens the file
            except FileNotFoundError:  # a dangling link: read (and reported unreadable) like any other
                found.append(entry.path)
                continue
            except OSError as exc:
                passed.append((entry.path, f"cannot read: {exc.strerror}"))
                continue
            if stat.S_ISREG(mode):
                found.append(entry.path)
            else:
                kind = next((what for test, what in _KINDS if test(mode)), "not a regular file")
                passed.append((entry.path, f"{kind}, not a regular file"))
    skipped.extend(sorted(passed))
    return sorted(found)


@dataclass(slots=True)  # (not frozen: made once a game, and a frozen __init__ costs three times as much)
class Game:
    """One game of a run: where it came from and the document read (or its reading problem)."""

    source: Source
    doc: Document

    @property
    def file(self) -> str:
        return self.source.name

    @property
    def where(self) -> str:
        return f"{self.source.name}:{self.doc.line}: game {self.doc.index}"


@dataclass(frozen=True, slots=True)
class Unreadable:
    """An input that holds no game to read: its source and the sentence saying why."""

    source: Source
    message: str
    code: ProblemCode


_BUFFER = 1 << 20


def read_all(sources: Sequence[Source]) -> Iterator[Game | Unreadable]:
    """Every game of every source in order, and an Unreadable for each source that cannot be read."""
    for src in sources:
        if src.error is not None:
            yield Unreadable(src, src.error, src.code or ProblemCode.UNREADABLE)
            continue
        if src.path == "-":
            yield from read_stream(src, sys.stdin.buffer)
            continue
        try:
            # (a 1 MiB buffer: one read call per few hundred games instead of one per five)
            fh = open(src.path, "rb", buffering=_BUFFER)  # noqa: SIM115 - closed in the finally below
        except OSError as exc:
            yield Unreadable(src, f"cannot read: {exc.strerror}", ProblemCode.UNREADABLE)
            continue
        try:
            yield from read_stream(src, fh)
        finally:
            fh.close()


def read_stream(src: Source, stream: IO[bytes],
          documents: Callable[[IO[bytes]], Iterator[Document]] = iter_documents) -> Iterator[Game | Unreadable]:
    try:
        for doc in documents(stream):
            yield Game(src, doc)
    except InputError as exc:
        yield Unreadable(src, str(exc), exc.code)
    except OSError as exc:
        yield Unreadable(src, f"cannot read: {exc.strerror}", ProblemCode.UNREADABLE)


def bad_game_record(file: str, doc: Document | None, problems: Sequence[Problem], code: ProblemCode | None = None,
                    message: str | None = None) -> dict[str, Any]:
    """The record an NDJSON stream (replay, analyze) writes in place of a game it could not read or
    that is not valid: where it is, the first problem's code and sentence, and every problem."""
    first = problems[0] if problems else None
    return {
        "type": "problem",
        "file": file,
        "line": doc.line if doc is not None else None,
        "game": doc.index if doc is not None else None,
        "code": code or (first.code if first is not None else ProblemCode.UNREADABLE),
        "message": message or (str(first) if first is not None else ""),
        "problems": [{"line": doc.line_of(p.path) if doc is not None else None, "path": p.path, "code": p.code,
                      "message": p.message} for p in problems],
    }
