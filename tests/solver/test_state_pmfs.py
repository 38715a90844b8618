"""Every position's pmf of the points to come (solver.state_pmfs), on the six-box rules: the pmfs the
build keeps are those the store gives back, each sums to one, the empty sheet's is the game's
distribution, and a file whose offsets leave its data is refused, not read."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from conftest import SMALL_RULES

from yahtzee_cli.errors import CorruptTable
from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import distribution as D
from yahtzee_cli.solver import state_pmfs as SP
from yahtzee_cli.store import artifact as store
from yahtzee_cli.store import tablefile

SMALL = R.rules_from_data(SMALL_RULES)


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache of this module's own (the pmfs built once in it; the last test damages its file)."""
    path = tmp_path_factory.mktemp("state-pmfs")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("YAHTZEE_CACHE_DIR", str(path))
        mp.setattr(SP, "_memo", {})
        yield path


def test_the_stored_pmfs_are_the_built_ones_and_each_sums_to_one(fresh: Path) -> None:
    built = SP.state_pmfs(SMALL)
    read = store.read(SP.stored(SMALL, 0.0))
    assert read.key.tolist() == built.key.tolist() and len(built.key) > 100
    for k in built.key.tolist():
        lo, pmf = built.rest(k)
        lo2, pmf2 = read.rest(k)
        assert lo == lo2 and pmf.tolist() == pmf2.tolist()
        assert float(pmf.sum()) == pytest.approx(1.0, abs=1e-6)
    # the pmfs lie one after another in the data, none overlapping another
    order = np.argsort(built.off)
    ends = built.off[order] + built.length[order]
    assert (ends[:-1] <= built.off[order][1:]).all() and int(ends[-1]) == len(built.data)


def test_the_empty_sheets_pmf_is_the_games_distribution(fresh: Path) -> None:
    s = SP.state_pmfs(SMALL)
    lo, pmf = s.rest(s.state_of(SMALL, R.Column.empty(SMALL)))
    d, _ = D.get_distribution(SMALL)
    got = dict(zip(range(lo, lo + len(pmf)), pmf.tolist(), strict=True))
    for score, p in zip(d.scores.tolist(), d.pmf.tolist(), strict=True):
        assert got.get(score, 0.0) == pytest.approx(p, abs=1e-7)


def test_offsets_beyond_the_data_are_refused(fresh: Path) -> None:
    art = SP.stored(SMALL, 0.0)
    s = SP.state_pmfs(SMALL)
    header, arrays = art.encode(s)  # type: ignore[misc]
    bad = dict(arrays)
    off = s.off.copy()
    off[int(np.argmax(off))] = len(s.data)  # the last pmf starts where the data ends
    bad["off"] = ("q", off.astype("<i8").tobytes())
    tablefile.write(art.path, header, bad)
    with pytest.raises(CorruptTable, match="do not fit together"):
        store.read(art)
    assert store.cached(art) is None  # (built again, not read)
