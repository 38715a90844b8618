"""Text from users and files, made safe to print: control, format (right-to-left overrides, zero-width)
and other invisible characters are shown escaped, so a name cannot rewrite the terminal or hide.

`escape` is the one function every text output goes through (file names, paths, player names, names
from a config file, echoed input; tables, messages, stderr); `csv_cell` is the one way a value becomes
a CSV cell (the same escaping, and text that a spreadsheet would run as a formula made inert). JSON
output keeps strings as data: orjson escapes control characters itself."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from typing import Any

UNSAFE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape(text: str, keep: str = "") -> str:
    """`text` with every unsafe character written as a Python-style escape (\\x1b, \\u202e): control
    characters (C0 with ESC and BEL, DEL, C1), format characters (the bidirectional overrides and
    isolates U+202A-202E and U+2066-2069, zero-width ones), surrogates, private-use and unassigned code
    points, line and paragraph separators. Characters in `keep` (text output keeps its own "\\n") are
    let through."""
    if text.isprintable():  # the common case: nothing to do (isprintable is False for Cc, Cf, Z*...)
        return text
    if keep == "\n" and all(part.isprintable() for part in text.split("\n")):
        return text
    return "".join(_escape_char(ch) if ch not in keep and unicodedata.category(ch) in UNSAFE else ch
                   for ch in text)


def escape_lines(text: str) -> str:
    """Text output of several lines made safe: `escape`, keeping the line breaks."""
    return escape(text, keep="\n")


# A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK(...), +cmd|...).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """A value as a CSV cell: numbers stay numbers (-5 is -5), None is empty, text is escaped and, when
    it starts like a formula (=, +, -, @, tab, carriage return), prefixed with an apostrophe, which
    spreadsheets show as text and do not run."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return value
    text = str(value)
    if text.startswith(_FORMULA_START):
        return "'" + escape(text)
    return escape(text)


def quote(text: str) -> str:
    """`text` in single quotes, escaped, for messages ("got '\\x1b[2J'")."""
    return "'" + escape(text).replace("'", "\\'") + "'"


def duplicate_key(raw: bytes | str) -> str | None:
    """The first key repeated within one object of a JSON text, or None. orjson (like most parsers)
    keeps the last value without a word; a repeated key in a game or a rules file is a mistake."""
    import json

    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        if not found and len(items) > 1:
            seen: set[str] = set()
            for k, _ in items:
                if k in seen:
                    found.append(k)
                    break
                seen.add(k)
        return {}

    try:
        json.loads(raw, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None
    return found[0] if found else None


def decode_error_at(line: int, column: int, raw: bytes) -> tuple[int, int]:
    """Where a JSON decode error is, as people count lines: orjson places an error at the end of the
    text ("unexpected end of data") after its last newline, on a line that holds nothing; it is put
    at the end of the last line with text instead (so a damaged NDJSON line is named by its own
    number). `line` and `column` are the decoder's (1-based, within `raw`)."""
    last = raw.rstrip().count(b"\n") + 1
    if line > last:
        text = raw.split(b"\n", last)[last - 1].rstrip(b"\r")
        return last, len(text.decode("utf-8", "replace")) + 1
    return line, column


def did_you_mean(word: str, choices: Iterable[str], strip: str = "") -> str:
    """` (did you mean 'x'?)` when `word` is close to one or two of `choices` (difflib's measure, with
    the `strip` characters taken off both ends first, so --csv is not close to --set), else ''."""
    import difflib

    options = list(dict.fromkeys(choices))
    bare = {c.strip(strip).lower(): c for c in options}
    close = difflib.get_close_matches(word.strip(strip).lower(), list(bare), n=2, cutoff=0.7)
    if not close:
        return ""
    return " (did you mean " + " or ".join(quote(bare[c]) for c in close) + "?)"


def histogram(title: str, rows: Sequence[tuple[str, str, float]], *, indent: str = "", bar: int = 50,
              least: str = "#", trim: bool = False) -> list[str]:
    """The one text histogram (simulate's counts, solve's exact probabilities): the title, then a line
    per bin, `label | value ###`, labels and values right-aligned, the longest bar `bar` characters.
    A bin too small for one character shows `least`; `trim` drops trailing blanks (an empty bin)."""
    top = max((w for _, _, w in rows), default=0) or 1
    lw = max((len(label) for label, _, _ in rows), default=0)
    vw = max((len(value) for _, value, _ in rows), default=0)
    lines = [f"{indent}{title}"]
    for label, value, w in rows:
        length = round(bar * w / top)
        mark = "#" * length if length or not w else least
        line = f"{indent}  {label:>{lw}} | {value:>{vw}} {mark}"
        lines.append(line.rstrip() if trim else line)
    return lines
