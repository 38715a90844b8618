"""Plain text for people: rows of cells as aligned columns (the table renderers of replay, analyze
and simulate share it)."""

from __future__ import annotations

from collections.abc import Container, Sequence


def aligned(rows: Sequence[Sequence[str]], left: Container[int] = (0,), indent: str = "") -> list[str]:
    """Each row as one line: the columns numbered in `left` left-aligned, the others right-aligned,
    two spaces apart, after `indent`; no trailing spaces."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = [c.ljust(w) if i in left else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))]
        out.append((indent + "  ".join(cells)).rstrip())
    return out
