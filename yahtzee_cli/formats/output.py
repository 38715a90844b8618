"""The one output layer of the command line: records in; text, JSON, a table's rows, or nothing out.

A command parses its flags, calls the library, and hands what it found to its `Output` (the `out`
parameter `cli.app.outputs` gives it), each piece in every form it has, and the writer keeps the one
the user chose:

Each piece may be given as the function that makes it (`out.text(lambda: render(book))`), called
only when that form is written, so a command pays for no form it does not write:

* `out.record(rec)`: a JSON record: the whole document of a one-record command (`solve --json`), or
  one line of an NDJSON stream (`replay --json`);
* `out.header(columns)` and `out.row(values)` (or `out.table`): a table's rows (`--csv`: RFC 4180,
  the header once, every cell through `text.csv_cell`);
* `out.text(s)` / `out.say(s)` / `out.line(s)`: text for people, escaped (`text.escape_lines`);
* `out.array(head, key)`: one JSON document whose list is written as it grows (`validate --json`).

With --quiet nothing reaches stdout but what the command's `silences` setting keeps (see `choose`).
Commands without output flags write through the same functions (`write_record`, `write_text`).

Adding an output format (TSV, say) is this module alone: a row writer and its entry in `ROW_FORMATS`
(name, help). Every command that takes --csv then takes --tsv too (right after --csv in its help, the
flag made by `cli.app.outputs`) and writes its rows that way. Errors, warnings and notes go to stderr
through `cli.app.error`/`warn`/`note`, never through here.
"""

from __future__ import annotations

import csv as _csv
import io
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, NamedTuple

TEXT, JSON, QUIET = "text", "json", "quiet"  # the formats besides the row formats (ROW_FORMATS)
Quiet = Literal["text", "rows", "all"]


def csv_row(values: Iterable[Any]) -> bytes:
    """One CSV row (RFC 4180 quoting) from plain values, each through text.csv_cell (None an empty cell,
    numbers as they are, text escaped and never a spreadsheet formula)."""
    from ..text import csv_cell

    buf = io.StringIO()
    _csv.writer(buf, lineterminator="\n").writerow([csv_cell(v) for v in values])
    return buf.getvalue().encode()


class RowFormat(NamedTuple):
    """A table format: how it writes one row, and its flag's help (the flag is --NAME)."""

    write: Callable[[Iterable[Any]], bytes]
    help: str


# Every row format, by name (its flag is --NAME; --csv is declared by each command as CsvOpt, the
# others are added right after it by cli.app.outputs).
ROW_FORMATS: dict[str, RowFormat] = {
    "csv": RowFormat(csv_row, "One CSV row per record, with a header row."),
}


def write_record(rec: Any, *, indent: bool = False, finite: bool = False) -> None:
    """One JSON document and a newline on stdout (`finite`: see jsonio.dumps)."""
    from .jsonio import dumps

    sys.stdout.buffer.write(dumps(rec, indent=indent, finite=finite) + b"\n")
    sys.stdout.buffer.flush()


def write_text(text: str, *, flush: bool = False) -> None:
    """Text on stdout as it is given (line breaks included), every character that could drive the
    terminal (ESC, a right-to-left override) shown escaped (text.escape_lines)."""
    from ..text import escape_lines

    sys.stdout.write(escape_lines(text))
    if flush:
        sys.stdout.flush()


class JsonArray:
    """One JSON document written as it grows: `head`'s fields, then `key`: [records...], then the
    tail's fields (validate --json: every problem as it is found, the totals at the end)."""

    def __init__(self, stream: Any, head: Mapping[str, Any], key: str) -> None:
        from .jsonio import dumps

        self.stream = stream
        self.first = True
        stream.write(dumps(dict(head))[:-1] + b',"' + key.encode() + b'":[')

    def add(self, rec: Mapping[str, Any]) -> None:
        from .jsonio import dumps

        self.stream.write((b"" if self.first else b",") + dumps(rec))
        self.first = False

    def close(self, tail: Mapping[str, Any]) -> None:
        from .jsonio import dumps

        self.stream.write(b"]," + dumps(dict(tail))[1:] + b"\n")
        self.stream.flush()


class Output:
    """Where a command's results go, in the one form the user chose (`format`)."""

    def __init__(self, format: str = TEXT, quiet: bool = False) -> None:
        self.format = format
        self.quiet = quiet  # --quiet, as given (a command may still want to know)
        self._header_written = False

    @property
    def json(self) -> bool:
        return self.format == JSON

    @property
    def rows(self) -> bool:
        """A table format (--csv): the command's rows are written, its text is not."""
        return self.format in ROW_FORMATS

    @property
    def is_text(self) -> bool:
        return self.format == TEXT

    @property
    def silent(self) -> bool:
        return self.format == QUIET

    # -- JSON
    def record(self, rec: Mapping[str, Any] | Callable[[], Mapping[str, Any]], *, finite: bool = False,
               indent: bool = False) -> None:
        """A JSON record and a newline (a document alone, or one line of a stream); `finite`: see
        jsonio.dumps. `rec` may be the function that makes it, called only when JSON is written."""
        if self.format == JSON:
            write_record(rec() if callable(rec) else rec, indent=indent, finite=finite)

    def array(self, head: Mapping[str, Any], key: str) -> JsonArray | None:
        """A JSON document with a list written as it grows (None unless the output is JSON)."""
        return JsonArray(sys.stdout.buffer, head, key) if self.format == JSON else None

    # -- rows
    def header(self, columns: Iterable[Any]) -> None:
        """The table's header row, written once however often it is given."""
        if self.rows and not self._header_written:
            self._header_written = True
            sys.stdout.buffer.write(self._line(columns))

    def row(self, values: Iterable[Any]) -> None:
        if self.rows:
            sys.stdout.buffer.write(self._line(values))

    def table(self, columns: Iterable[Any] | None, rows: Iterable[Iterable[Any]] | Callable[[], Iterable[Any]]) -> None:
        """A header and its rows (`columns` None: the first row is the header). `rows` may be the
        function that makes them, called only when rows are written (a generator is read only then)."""
        if self.rows:
            it = iter(rows() if callable(rows) else rows)
            self.header(next(it) if columns is None else columns)
            sys.stdout.buffer.write(b"".join(self._line(r) for r in it))
            sys.stdout.buffer.flush()

    def _line(self, values: Iterable[Any]) -> bytes:
        return ROW_FORMATS[self.format].write(values)

    # -- text
    def text(self, text: str | Callable[[], str], *, flush: bool = False) -> None:
        """Text as it is given (line breaks included), escaped: nothing from the input drives the terminal.
        `text` may be the function that makes it, called only when text is written."""
        if self.format == TEXT:
            write_text(text() if callable(text) else text, flush=flush)

    def line(self, text: str) -> None:
        """One line of text, every character that could drive the terminal escaped (line breaks too)."""
        if self.format == TEXT:
            from ..text import escape

            sys.stdout.flush()
            sys.stdout.buffer.write(escape(text).encode() + b"\n")

    def say(self, text: object = "") -> None:
        """A line (or several) of text; `text` may be the function that makes it, called only when text
        is written."""
        if self.format == TEXT:
            write_text(f"{text() if callable(text) else text}\n", flush=True)

    def flush(self) -> None:
        sys.stdout.flush()


def choose(json: bool = False, csv: bool = False, quiet: bool = False, *, silences: Quiet = "text",
           **rows: bool) -> Output:
    """The Output of a command's flags: --json, a row format (--csv, or another of ROW_FORMATS given
    in `rows`) or text; at most one. --quiet silences text (`silences="text"`), also the rows ("rows"),
    or everything ("all")."""
    from ..errors import ConflictingOptions

    chosen = [name for name, on in (("json", json), ("csv", csv), *rows.items()) if on]
    if len(chosen) > 1:
        names = [f"--{name}" for name in chosen]
        raise ConflictingOptions(f"give {' or '.join(names)}, not both" if len(names) == 2
                                 else f"give one of {', '.join(names)}")
    fmt = chosen[0] if chosen else TEXT
    if quiet and (fmt == TEXT or silences == "all" or (silences == "rows" and fmt in ROW_FORMATS)):
        fmt = QUIET
    return Output(fmt, quiet)


__all__ = ["JSON", "QUIET", "ROW_FORMATS", "TEXT", "JsonArray", "Output", "RowFormat", "choose", "csv_row",
           "write_record", "write_text"]
