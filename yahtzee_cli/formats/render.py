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



def percents(chances: Sequence[float], *, digits: int = 3, tie: float = 1e-12) -> list[str]:
    """Chances (0..1) as percentages that tell them apart: each with `digits` significant digits and at
    least two decimals (13.23%, 0.0312%, 0.000123%; below 1e-4 % in scientific notation, 1.23e-07%),
    and the digits raised for the whole list until any two chances further apart than `tie` print
    differently (0.03121% and 0.03124% rather than 0.0312% twice). 0 and 1 print as 0% and 100%, and
    nothing else does (99.9996% is not 100.00%). Rounding is monotone: a larger chance never prints
    smaller."""
    for d in range(digits, 18):
        shown = [_percent(100.0 * c, d) for c in chances]
        seen: dict[str, float] = {}
        clash = False
        for text, c in zip(shown, chances, strict=True):
            other = seen.setdefault(text, c)
            if abs(other - c) > tie:
                clash = True
                break
        if not clash:
            return shown
    return shown


def _percent(x: float, digits: int) -> str:
    import math

    if x <= 0.0 or x >= 100.0:
        return "0%" if x <= 0.0 else "100%"
    if x < 1e-4:
        return f"{x:.{digits - 1}e}%"
    decimals = max(2, digits - 1 - math.floor(math.log10(x)))
    while decimals < 17 and float(f"{x:.{decimals}f}") >= 100.0:  # short of certain never reads as 100.00%
        decimals += 1
    return f"{x:.{decimals}f}%"
