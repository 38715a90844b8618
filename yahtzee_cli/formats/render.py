"""The one table renderer of the toolbox: plain aligned columns, no box glyphs, never wrapped.

Every command's tables (score, rules, replay, analyze, simulate, poker) go through `table`, so the
text reads the same on a terminal and in a pipe (`| cat`, `| column`, `| awk`), and a script can
split it on runs of two or more spaces."""

from __future__ import annotations

from collections.abc import Container, Sequence


def table(rows: Sequence[Sequence[object]], *, left: Container[int] = (0,), indent: str = "",
          title: str | None = None) -> list[str]:
    """Rows (the first one the header) as aligned lines: columns in `left` left-aligned, the others
    (numbers) right-aligned, two spaces between columns, trailing blanks trimmed. Every cell (and the
    title) goes through text.escape: a file or player name cannot reach the terminal raw."""
    from ..text import escape

    cells = [["" if c is None else escape(str(c)) for c in r] for r in rows]
    if not cells:
        return [escape(title)] if title else []
    widths = [max(len(r[i]) for r in cells) for i in range(len(cells[0]))]
    out = [escape(title)] if title else []
    for r in cells:
        parts = [c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append((indent + "  ".join(parts)).rstrip())
    return out


def text(rows: Sequence[Sequence[object]], *, left: Container[int] = (0,), indent: str = "",
         title: str | None = None) -> str:
    """`table` as one string with a final newline."""
    return "\n".join(table(rows, left=left, indent=indent, title=title)) + "\n"

