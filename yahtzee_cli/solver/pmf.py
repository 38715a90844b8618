"""A score distribution: a pmf over consecutive totals (numpy only, so a lookup of cached
distributions needs no compiled code)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass
class Distribution:
    """pmf[x] = P(final score = x) (or of the remaining points), offset `lo` (pmf[0] is score lo)."""

    pmf: FloatArray
    lo: int = 0
    seconds: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def scores(self) -> IntArray:
        return np.arange(self.lo, self.lo + len(self.pmf), dtype=np.int64)

    @property
    def mean(self) -> float:
        return float(np.dot(self.scores.astype(np.float64), self.pmf))

    @property
    def sd(self) -> float:
        x = self.scores.astype(np.float64)
        mu = self.mean
        return math.sqrt(max(float(np.dot((x - mu) ** 2, self.pmf)), 0.0))

    def at_least(self, x: int) -> float:
        """P(score >= x)."""
        i = x - self.lo
        if i <= 0:
            return float(self.pmf.sum())
        return float(self.pmf[i:].sum()) if i < len(self.pmf) else 0.0

    def percentile(self, q: float) -> int:
        """The smallest score s with P(score <= s) >= q / 100."""
        c = np.cumsum(self.pmf)
        i = int(np.searchsorted(c, q / 100.0 - 1e-12))
        return self.lo + min(i, len(self.pmf) - 1)
