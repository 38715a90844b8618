"""Limits that come from the machine or from the formats, in one place (no numpy: the CLI checks
them before any heavy import).

* games in a run: at most MAX_GAMES (counts and summaries stay exact 64-bit integers);
* workers: at most WORKERS_PER_CORE per core (more only adds memory and switching);
* compiled strategies (optimal, greedy and the approximate strategy) keep a few arrays with one
  entry per set of filled boxes (2**boxes): a rule set whose arrays would not fit in half of this
  machine's memory is refused before anything is allocated, with what would fit.
"""

from __future__ import annotations

import os

from .errors import TooBig

MAX_GAMES = 10**12
# The one line cap of every reader (logs, sheets, `score -`, `play`'s typed lines; a config file is
# smaller still): a longer line is refused, so a stream without newlines (/dev/zero) never fills memory.
MAX_LINE = 16 << 20  # one game per NDJSON line: a full Maxi or Triple game is a few tens of KB
WORKERS_PER_CORE = 4
# Below these many bytes of input files, `validate` and `analyze` work in their own process: starting
# worker processes (a fresh Python importing the package; for grading, also loading the strategy
# table) would cost more than they save. Validation reads about 30 MB/s on a core, grading is about a
# hundred times slower per byte.
VALIDATE_PROCESS_BYTES = 16 << 20
GRADE_PROCESS_BYTES = 256 << 10


def cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def max_workers() -> int:
    return WORKERS_PER_CORE * cores()


def memory_budget() -> int:
    """Bytes the strategy arrays may take: half of the physical memory (4 GiB when unknown)."""
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, OSError, ValueError):
        total = 8 << 30
    return max(total // 2, 1 << 30)


def human_bytes(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:,.1f} EiB"  # pragma: no cover - the loop returns


def strategy_bytes(n_boxes: int, n_upper: int, threshold: int) -> int:
    """Memory of the compiled strategies' per-sheet arrays: two int64 entries per set of filled boxes
    (the upper-box index and the row index) and the float64 bonus table over sets of upper boxes."""
    return 16 * (1 << n_boxes) + 8 * (1 << n_upper) * (threshold + 1)


def check_strategy_memory(name: str, n_boxes: int, n_upper: int, threshold: int) -> None:
    """TooBig when the compiled strategies of a rule set would not fit in memory_budget()."""
    need = strategy_bytes(n_boxes, n_upper, threshold)
    budget = memory_budget()
    if need <= budget:
        return
    fits = max(b for b in range(0, 64) if strategy_bytes(b, min(n_upper, b), threshold) <= budget)
    raise TooBig(f"{name} has {n_boxes} boxes ({n_upper} upper): the optimal, greedy and approximate strategies "
                 f"would need {human_bytes(need)} of memory, and this machine gives them {human_bytes(budget)} "
                 f"(at most {fits} boxes fit); play these rules with the random strategy or a bot")
