"""Colour for people: whether it is on (NO_COLOR), a rich console, and a line of text with its colours
kept apart from it (`Styled`), so that it can be escaped and concatenated as plain text, and coloured
only when shown."""

from __future__ import annotations

import os
from typing import Any

from ..text import escape_lines


class Styled(str):
    """A line with coloured parts. Its value is the plain text (what a pipe, a test or NO_COLOR
    sees); `spans` are (start, end, SGR code) over it. Concatenation with a str keeps the type and
    shifts the spans, so `bold dice + "  (roll 1 of 3)"` stays one coloured line. The codes go in only
    in `render`, after every part is escaped: typed text can never bring its own ESC through, and
    a line that lost its type (an f-string) is only uncoloured, never garbled."""

    spans: tuple[tuple[int, int, str], ...]

    def __new__(cls, text: str, spans: tuple[tuple[int, int, str], ...] = ()) -> Styled:
        line = super().__new__(cls, text)
        line.spans = spans
        return line

    def __add__(self, other: str) -> Styled:
        if not isinstance(other, str):
            return NotImplemented
        return Styled(str.__add__(self, other), self.spans + _spans_of(other, len(self)))

    def __radd__(self, other: str) -> Styled:
        if not isinstance(other, str):
            return NotImplemented
        return Styled(str.__add__(other, self), _spans_of(other, 0) + _spans_of(self, len(other)))

    def render(self) -> str:
        """The line for the terminal: each part escaped, the coloured ones between their codes."""
        out: list[str] = []
        at = 0
        for start, end, code in self.spans:
            out.append(escape_lines(str.__getitem__(self, slice(at, start))))
            out.append(f"\x1b[{code}m{escape_lines(str.__getitem__(self, slice(start, end)))}\x1b[0m")
            at = end
        out.append(escape_lines(str.__getitem__(self, slice(at, None))))
        return "".join(out)


def _spans_of(text: str, shift: int) -> tuple[tuple[int, int, str], ...]:
    return tuple((a + shift, b + shift, c) for a, b, c in text.spans) if isinstance(text, Styled) else ()


def color_enabled() -> bool:
    return "NO_COLOR" not in os.environ


def console(stderr: bool = False) -> Any:
    """A rich Console for people; honours NO_COLOR (rich does) and never colours pipes."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, no_color=not color_enabled())
