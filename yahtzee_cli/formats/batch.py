"""A run's inputs cut into jobs that can be read apart (by worker processes or on a Dask cluster) and
still give exactly the games, game numbers and lines of one reading in order.

A job is a list of pieces of about `chunk_bytes`: several small files, or one byte range of a big
NDJSON file cut at a line boundary. The planner reads each big file once in blocks of `chunk_bytes`
(memory stays flat) to count the lines and games before every cut, so a piece read on its own numbers
its games as a whole reading would. A single (pretty-printed) document is never cut; stdin is one
piece read by this process only (`Piece.local`).

The results of a job are one `Done` per piece; `in_order` puts them back together and drops what a
whole reading would never have reached (the rest of an input after it turned out to be unreadable).
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import IO, Any, Generic, TypeVar

from ..errors import ProblemCode
from .inputs import Game, Source, Unreadable, read_all, read_stream
from .logs import MAX_DOCUMENT, MAX_LINE, Problem, is_ndjson, iter_ndjson
from .validate import report_document

T = TypeVar("T")

CHUNK_BYTES = 4 << 20  # a job's share of the input: large enough that its start-up cost is noise
_BOM = b"\xef\xbb\xbf"
_BLANK = b" \t\r\x0b\x0c"  # what bytes.strip() drops besides the newline


@dataclass(frozen=True, slots=True)
class Piece:
    """A part of one input: the whole of it, or bytes [start, end) of an NDJSON file (end -1: to the
    end) whose first line is line `first_line` of the file and whose first game is game `first_index`.
    `number` is the input's position in the run (every piece of an input has it)."""

    source: Source
    number: int
    start: int = 0
    end: int = -1
    first_line: int = 1
    first_index: int = 1

    @property
    def local(self) -> bool:
        """stdin: only this process can read it."""
        return self.source.path == "-"


@dataclass(frozen=True, slots=True)
class Job:
    """Pieces read by one task, in order."""

    pieces: tuple[Piece, ...]

    @property
    def local(self) -> bool:
        return any(p.local for p in self.pieces)


@dataclass(slots=True)
class Done(Generic[T]):
    """What a piece gave: `items` (whatever the command made of its games), and whether its input
    stopped being readable there (`stopped`: the later pieces of that input are dropped)."""

    number: int
    stopped: bool
    items: T


def input_bytes(sources: Sequence[Source]) -> int:
    """The size of the files among `sources` (what decides whether worker processes pay off)."""
    total = 0
    for src in sources:
        if src.error is None and src.path != "-":
            try:
                total += os.stat(src.path).st_size
            except OSError:
                pass
    return total


def plan(sources: Sequence[Source], chunk_bytes: int = CHUNK_BYTES) -> Iterator[Job]:
    """The jobs of a run, in order: small inputs grouped up to `chunk_bytes`, big NDJSON files cut
    into pieces of about `chunk_bytes` at line boundaries, stdin alone. Lazy: a big file is scanned
    as its jobs are taken."""
    group: list[Piece] = []
    size = 0
    for number, src in enumerate(sources):
        nbytes = 0
        if src.error is None and src.path != "-":
            try:
                nbytes = os.stat(src.path).st_size
            except OSError:
                nbytes = 0
        if src.path == "-" or nbytes > chunk_bytes:
            if group:
                yield Job(tuple(group))
                group, size = [], 0
            yield from (Job((p,)) for p in _cut(src, number, chunk_bytes, nbytes))
            continue
        group.append(Piece(src, number))
        size += nbytes
        if size >= chunk_bytes:
            yield Job(tuple(group))
            group, size = [], 0
    if group:
        yield Job(tuple(group))


def _cut(src: Source, number: int, chunk_bytes: int, nbytes: int) -> Iterator[Piece]:
    if src.path == "-":
        yield Piece(src, number)
        return
    try:
        fh = open(src.path, "rb")  # noqa: SIM115 - closed in the finally below
    except OSError:
        yield Piece(src, number)  # the reading says why
        return
    try:
        if not is_ndjson(fh):
            yield Piece(src, number)
            return
        head = fh.tell()  # the first piece holds the first game (how the input reads is decided there)
        pos, line, index = 0, 1, 1
        while pos + max(step := _step(chunk_bytes, nbytes - pos), head) < nbytes:
            fh.seek(pos)
            block = fh.read(max(step, head if pos == 0 else 0))
            cut = block.rfind(b"\n")
            if cut < 0:  # a line longer than a block: the piece is that line
                found = _line_end(fh, pos, block, chunk_bytes)
                if found is None:  # no end in sight: one reading reports it
                    break
                end, blank = found
                yield Piece(src, number, pos, end, line, index)
                line, index, pos = line + 1, index + (0 if blank else 1), end
                continue
            yield Piece(src, number, pos, pos + cut + 1, line, index)
            lines = block.count(b"\n", 0, cut + 1)
            line += lines
            index += lines - blank_lines(block, cut + 1, first=pos == 0)
            pos += cut + 1
        yield Piece(src, number, pos, -1, line, index)
    except OSError:
        yield Piece(src, number)
    finally:
        fh.close()


def _step(chunk_bytes: int, left: int) -> int:
    """The size of the next piece of a file with `left` bytes to go: `chunk_bytes`, and smaller towards
    the end (an eighth of what is left, down to a sixteenth of chunk_bytes), so that the workers finish
    together instead of one of them reading a last full piece alone (about 0.15 s of validation at
    4 MiB)."""
    return min(chunk_bytes, max(left // 8, chunk_bytes // 16))


def _line_end(fh: IO[bytes], pos: int, block: bytes, chunk_bytes: int) -> tuple[int, bool] | None:
    """Where the line that starts at `pos` (its first bytes in `block`, no newline among them) ends
    (just after its newline), and whether it is a blank line; None when it runs past MAX_DOCUMENT
    or to the end of the input. Reads on a block at a time, keeping none of it."""
    length = len(block)
    blank = not block.strip(_BLANK)
    while length <= MAX_DOCUMENT:
        more = fh.read(chunk_bytes)
        if not more:
            return None
        found = more.find(b"\n")
        part = more if found < 0 else more[:found]
        blank = blank and not part.strip(_BLANK)
        length += len(part)
        if found >= 0:
            return pos + length + 1, blank and length <= MAX_LINE
    return None


# a newline followed by a line of nothing but blanks (at most MAX_LINE of them: a longer one is a
# game that is too long, not a blank line)
_BLANK_AFTER = re.compile(rb"\n(?=[" + re.escape(_BLANK) + rb"]{0,%d}\n)" % MAX_LINE)
_BLANK_FIRST = re.compile(rb"[" + re.escape(_BLANK) + rb"]{0,%d}\n" % MAX_LINE)


def blank_lines(block: bytes, end: int, first: bool = False) -> int:
    """How many of the whole lines in block[:end] (end just after a newline) hold no game: the lines
    the NDJSON reader skips. `first`: the block starts the file (a UTF-8 byte-order mark is dropped)."""
    start = 3 if first and block.startswith(_BOM) else 0
    return len(_BLANK_AFTER.findall(block, 0, end)) + (1 if _BLANK_FIRST.match(block, start, end) else 0)


class _Window(io.RawIOBase):
    """Bytes [start, end) of an open unbuffered file, as a stream that ends at `end`."""

    def __init__(self, raw: Any, start: int, end: int) -> None:
        super().__init__()
        self._raw = raw
        raw.seek(start)
        self._left = end - start

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = min(len(buffer), self._left)
        if n <= 0:
            return 0
        got: int = self._raw.readinto(memoryview(buffer)[:n]) or 0
        self._left -= got
        return got


def read_piece(piece: Piece) -> Iterator[Game | Unreadable]:
    """The games of one piece, as a reading of the whole input yields them there."""
    src = piece.source
    if src.error is not None or (piece.start == 0 and piece.end < 0):
        yield from read_all([src])
        return
    try:
        raw = open(src.path, "rb", buffering=0)  # noqa: SIM115 - closed in the finally below
    except OSError as exc:
        yield Unreadable(src, f"cannot read: {exc.strerror}", ProblemCode.UNREADABLE)
        return
    try:
        stream: IO[bytes]
        if piece.end < 0:
            raw.seek(piece.start)
            stream = io.BufferedReader(raw, 1 << 16)
        else:
            stream = io.BufferedReader(_Window(raw, piece.start, piece.end), 1 << 16)
        if piece.first_line == 1:
            yield from read_stream(src, stream)
        else:
            yield from read_stream(src, stream, lambda s: iter_ndjson(s, piece.first_line, piece.first_index))
    finally:
        raw.close()


def run_job(job: Job, fold: Callable[[Iterator[Game | Unreadable]], T]) -> list[Done[T]]:
    """`fold` applied to the games of each piece of a job (in a worker process or in this one)."""
    out: list[Done[T]] = []
    for piece in job.pieces:
        stopped = False

        def items(piece: Piece = piece) -> Iterator[Game | Unreadable]:
            nonlocal stopped
            for item in read_piece(piece):
                if isinstance(item, Unreadable):
                    stopped = True
                yield item

        result = fold(items())
        out.append(Done(piece.number, stopped, result))
    return out


def in_order(results: Iterable[list[Done[T]]]) -> Iterator[T]:
    """The items of every piece in order, without the pieces of an input after the one where it
    stopped being readable (a whole reading ends that input there)."""
    stopped_input = -1
    for done in results:
        for d in done:
            if d.number == stopped_input:
                continue
            if d.stopped:
                stopped_input = d.number
            yield d.items


# --------------------------------------------------------------------------- validate


@dataclass(frozen=True, slots=True)
class Invalid:
    """A game with problems: where it is and each problem with the line it is about."""

    file: str
    line: int
    game: int
    problems: tuple[tuple[int, Problem], ...]


@dataclass(frozen=True, slots=True)
class Unfinished:
    file: str
    line: int
    game: int


@dataclass(slots=True)
class Checked:
    """What validation found in a piece: the games read and, in order, the inputs that could not be
    read, the games with problems and the valid games that are unfinished (nothing per valid finished
    game, so a worker's answer stays small)."""

    games: int = 0
    found: list[Unreadable | Invalid | Unfinished] = field(default_factory=list)


def check_items(items: Iterator[Game | Unreadable]) -> Checked:
    out = Checked()
    found = out.found
    games = 0
    for item in items:
        if not isinstance(item, Game):
            found.append(item)
            continue
        games += 1
        rep = report_document(item.doc)
        if rep.problems:
            found.append(Invalid(item.file, rep.line, rep.index, tuple((rep.line_of(p), p) for p in rep.problems)))
        elif not rep.finished:
            found.append(Unfinished(item.file, rep.line, rep.index))
    out.games = games
    return out


def check_job(job: Job) -> list[Done[Checked]]:
    """Validate a job's games (the task `validate` hands out)."""
    return run_job(job, check_items)


__all__ = ["CHUNK_BYTES", "Checked", "Done", "Invalid", "Job", "Piece", "Unfinished", "blank_lines",
           "check_job", "in_order", "input_bytes", "plan", "read_piece", "run_job"]
