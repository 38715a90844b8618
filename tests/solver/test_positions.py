"""Per-position distributions kept in the cache (yahtzee_cli.solver.positions): the same chances as
computing them, stored once per rule set, position and risk strategy, read back without a pass,
rebuilt when damaged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from conftest import SMALL_RULES

from yahtzee_cli.play.hint import hint
from yahtzee_cli.rules.engine import Column, RuleSet, rules_from_data
from yahtzee_cli.solver import chances as C
from yahtzee_cli.solver import positions


@pytest.fixture
def small(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RuleSet:
    """The six-box rules, every position stored, in a cache of this test's own."""
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(positions, "CACHE_FROM_SHEETS", 0)
    monkeypatch.setattr(positions, "_memo", {})
    monkeypatch.setattr(positions, "_values_memo", {})
    return rules_from_data(SMALL_RULES)


def _stored(tmp_path: Path) -> list[str]:
    return sorted(p.name for p in (tmp_path / "cache").glob("pos*.tbl"))


@pytest.mark.parametrize("theta", [0.0, 0.05])
def test_cached_chances_are_the_computed_ones(small: RuleSet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              theta: float) -> None:
    col = Column((None, 10, None, None, None, None))  # fives: 10
    dice = (1, 3, 3, 5, 6)
    ev = hint(small, [col], dice, 2)
    opts = [o for o in ev.options if not o.is_pass]
    want = C.position_chances(small, col, dice, 2, opts, theta)
    got = positions.chances(small, col, dice, 2, opts, theta)
    for w, g in zip(want, got, strict=True):
        assert np.abs(w.dist.pmf - g.dist.pmf).max() < 1e-12
    assert len(_stored(tmp_path)) == 1
    # another process (a fresh memo) reads the file: no pass, the same chances, any target
    monkeypatch.setattr(positions, "_memo", {})
    monkeypatch.setattr(positions, "_compute", lambda *a: pytest.fail("computed again"))
    again = positions.chances(small, col, dice, 2, opts, theta, target=120)
    capped = C.position_chances(small, col, dice, 2, opts, theta, target=120)
    for w, g in zip(capped, again, strict=True):
        assert g.at_least(120) == pytest.approx(w.at_least(120), abs=1e-12)


def test_a_damaged_position_file_is_rebuilt_with_a_warning(small: RuleSet, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    col = Column((None,) * 6)
    dice = (2, 2, 4, 5, 6)
    ev = hint(small, [col], dice, 1)
    first = positions.chances(small, col, dice, 1, ev.options[:3], 0.0)
    (name,) = _stored(tmp_path)
    path = tmp_path / "cache" / name
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    path.write_bytes(bytes(raw))
    monkeypatch.setattr(positions, "_memo", {})
    said: list[str] = []
    again = positions.chances(small, col, dice, 1, ev.options[:3], 0.0, say=said.append)
    assert any(m.startswith("warning: damaged") for m in said)
    assert [c.dist.mean for c in again] == pytest.approx([c.dist.mean for c in first], abs=1e-12)
    positions._read(small, 0.0, 0, 0, 0)  # stored anew, whole
