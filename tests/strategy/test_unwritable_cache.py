"""A cache directory that cannot be written never turns a correct answer into an error: the command
answers from the table it holds in memory, warns once that nothing was cached, and names no file it
did not write."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest


@pytest.fixture
def unwritable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    blocker = tmp_path / "a-file"
    blocker.write_text("a file where the cache directory's parent should be")
    where = blocker / "cache"
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(where))
    return where


def test_hint_then_solve_answer_from_memory(cli, unwritable: Path) -> None:  # noqa: ANN001
    """With joker free (no table shipped for it: the hint builds one)."""
    r = cli(["hint", "1", "3", "3", "5", "6", "--set", "joker=free"])
    assert r.exit_code == 0, r.stderr
    best = r.stdout.splitlines()[2].split()  # (under the headings)
    assert best == ["keep", "3", "3", "251.4072", "best"]
    assert "building the yahtzee + joker=free strategy table" in r.stderr  # (the house rule named)
    warnings = [line for line in r.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "nothing cached" in warnings[0]
    assert "cached in" not in r.stderr and ".tbl" not in r.stderr

    s = cli(["solve", "--json", "--set", "joker=free"])
    assert s.exit_code == 0, s.stderr
    out = orjson.loads(s.stdout)
    assert f"{out['expected']:.7f}" == "254.5896095"
    assert out["path"] is None and out["table_bytes"] is None
    t = cli(["solve", "--set", "joker=free"])
    assert t.exit_code == 0, t.stderr
    assert "not cached" in t.stdout and ".tbl" not in t.stdout
    assert not unwritable.exists()


def test_the_default_rules_answer_from_the_shipped_table(cli, unwritable: Path) -> None:  # noqa: ANN001
    r = cli(["hint", "1", "3", "3", "5", "6"])
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[2].split() == ["keep", "3", "3", "251.4054", "best"]
    assert "building" not in r.stderr and ".tbl" not in r.stderr
    assert not unwritable.exists()
