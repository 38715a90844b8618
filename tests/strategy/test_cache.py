"""The cache directory's listing and cleaning (store/listing.py, `yahtzee cache`): every kind of file
is recognised, stale locks and dead writers' temporaries go, locks held by a running process and fresh
temporaries stay, and numba's shared folder keeps other programs' kernels."""

from __future__ import annotations

import fcntl
import os
import subprocess
from pathlib import Path

import orjson
import pytest

from yahtzee_cli.cli.cache_cmd import _size as cache_cmd_size
from yahtzee_cli.rules.engine import preset
from yahtzee_cli.store import listing as cache
from yahtzee_cli.store import tablefile


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cache of every kind of file: two tables (one a copy of a shipped one), their locks, a verified
    stamp, kernels with a lock, a dead writer's temporary file, a fresh one, and a stranger's file."""
    root = tmp_path / "cache"
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(root))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    shipped = f"exact-{preset('yahtzee').fingerprint}.tbl"  # (shipped: tests/strategy/test_prebuilt.py)
    tablefile.write(root / "exact-0123456789abcdef.tbl", {"kind": "exact", "rule_name": "yatzy",
                                                         "rules": preset("yatzy").to_dict()},
                    {"W": ("d", b"\0" * 800)})
    tablefile.write(root / shipped, {"kind": "exact", "rule_name": "yahtzee"}, {"W": ("d", b"\0" * 8)})
    (root / "exact-0123456789abcdef.tbl.lock").write_bytes(b"")
    (root / f"{shipped}.lock").write_bytes(b"")
    (root / "verified").mkdir()
    stamp = os.fsencode(root / "exact-0123456789abcdef.tbl") + b"\n944 12 34 1700000000000000000 1700000000000000000"
    (root / "verified" / "exact-0123456789abcdef.tbl.1234abcd").write_bytes(stamp)
    old = root / "exact-0123456789abcdef.tbl.4242.0a1b2c3d.tmp"  # a writer killed mid-write
    old.write_bytes(tablefile.MAGIC + b"y" * 92)
    os.utime(old, (1, 1))
    (root / "risk0p01-0123456789abcdef.tbl.4343.a1b2c3d4.tmp").write_bytes(tablefile.MAGIC[:5])  # being written
    (root / "notes.txt").write_text("mine\n")
    kernels = root / "numba"
    kernels.mkdir()
    (kernels / "kernels.solve_chunk-527.py311.nbi").write_bytes(b"\x80\x05" + b"i" * 28)  # numba's pickles
    (kernels / "kernels.solve_chunk-527.py311.1.nbc").write_bytes(b"\x80\x05" + b"c" * 2998)
    (kernels / "yahtzee_cli.solver.kernels.solve_chunk-527.lock").write_bytes(b"")
    return root


def _by_name(entries: object) -> dict[str, cache.Entry]:
    return {e.path: e for e in entries}  # type: ignore[attr-defined]


def test_every_file_is_listed_with_its_kind_size_and_rules(cache_dir: Path) -> None:
    found = cache.listing()
    assert found.directory == cache_dir and found.kernels == cache_dir / "numba"
    e = _by_name(found.entries)
    table = e["exact-0123456789abcdef.tbl"]
    assert (table.kind, table.rules, table.shipped) == ("table", "yatzy", False)
    assert table.bytes == (cache_dir / table.path).stat().st_size
    assert [x.rules for x in e.values() if x.shipped] == ["yahtzee"]
    kinds = {p: x.kind for p, x in e.items()}
    assert kinds["exact-0123456789abcdef.tbl.lock"] == "lock"
    assert kinds[os.path.join("verified", "exact-0123456789abcdef.tbl.1234abcd")] == "stamp"
    assert kinds["notes.txt"] == "other"
    assert kinds["kernels.solve_chunk-527.py311.1.nbc"] == kinds["kernels.solve_chunk-527.py311.nbi"] == "kernel"
    assert e["yahtzee_cli.solver.kernels.solve_chunk-527.lock"].part == "kernels"
    fresh = e["risk0p01-0123456789abcdef.tbl.4343.a1b2c3d4.tmp"]
    stale = e["exact-0123456789abcdef.tbl.4242.0a1b2c3d.tmp"]
    assert (fresh.kind, fresh.in_use, stale.in_use) == ("temporary", True, False)
    assert found.total_bytes == sum(p.stat().st_size for p in cache_dir.rglob("*") if p.is_file())
    assert len(found.entries) == sum(1 for p in cache_dir.rglob("*") if p.is_file())


def test_clean_removes_what_can_be_made_again_and_keeps_held_locks(cache_dir: Path) -> None:
    held = cache_dir / "exact-0123456789abcdef.tbl.lock"
    fd = os.open(held, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a build in progress (another open file of the same lock)
        assert _by_name(cache.listing().entries)[held.name].in_use
        gone, failed = cache.clean()
    finally:
        os.close(fd)
    assert failed == []
    left = sorted(p.relative_to(cache_dir).as_posix() for p in cache_dir.rglob("*") if p.is_file())
    assert left == ["exact-0123456789abcdef.tbl.lock", "notes.txt", "risk0p01-0123456789abcdef.tbl.4343.a1b2c3d4.tmp"]
    assert not (cache_dir / "numba").exists() and not (cache_dir / "verified").exists()  # emptied folders go
    assert len(gone) == 8 and held.name not in {e.path for e in gone}
    gone, _ = cache.clean()  # the lock is free now: stale, it goes
    assert [e.path for e in gone] == [held.name]


def test_a_dry_run_removes_nothing_and_names_what_would_go(cache_dir: Path) -> None:
    before = sorted(cache_dir.rglob("*"))
    gone, failed = cache.clean(dry_run=True)
    assert sorted(cache_dir.rglob("*")) == before and failed == []
    assert {e.path for e in gone} == {e.path for e in cache.removable(cache.listing().entries)}
    assert len(gone) == 9


def test_clean_can_be_limited_to_tables_or_kernels(cache_dir: Path) -> None:
    gone, _ = cache.clean(["kernels"])
    assert {e.part for e in gone} == {"kernels"} and len(gone) == 3
    assert (cache_dir / "exact-0123456789abcdef.tbl").exists()
    gone, _ = cache.clean(["tables"])
    assert {e.kind for e in gone} == {"table", "lock", "stamp", "temporary"}


def test_numbas_own_folder_keeps_other_programs_kernels(cache_dir: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "numba-shared"
    (shared / "home_me_project").mkdir(parents=True)
    (shared / "home_me_project" / "theirs.f-1.py311.nbi").write_bytes(b"t")
    (shared / "play_kernel.play_games-507.py311.nbi").write_bytes(b"\x80\x05o")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(shared))
    found = cache.listing()
    assert found.kernels == shared
    kernels = [e.path for e in found.entries if e.part == "kernels"]
    assert kernels == ["play_kernel.play_games-507.py311.nbi"]
    # the cache directory's own numba/ folder is no longer where kernels go: its kernels are not known
    assert {e.kind for e in found.entries if e.part == "tables" and e.path.endswith((".nbi", ".nbc"))} == {"other"}
    cache.clean(["kernels"])
    assert (shared / "home_me_project" / "theirs.f-1.py311.nbi").exists()
    assert not (shared / "play_kernel.play_games-507.py311.nbi").exists()


def test_a_missing_cache_directory_is_an_empty_listing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "none"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    assert cache.listing().entries == () and cache.clean() == ([], [])


# --------------------------------------------------------------------------- the command


def test_cache_where_prints_the_directory(cli, cache_dir: Path) -> None:
    r = cli(["cache", "where"])
    assert (r.exit_code, r.stdout, r.stderr) == (0, f"{cache_dir}\n", "")


def test_cache_list_text_and_json_agree(cli, cache_dir: Path) -> None:
    r = cli(["cache", "list", "--json"])
    assert r.exit_code == 0, r.stderr
    doc = orjson.loads(r.stdout)
    assert doc["directory"] == str(cache_dir) and doc["files"] == len(doc["entries"]) == 11
    assert doc["total_bytes"] == sum(e["bytes"] for e in doc["entries"])
    table = next(e for e in doc["entries"] if e["path"].endswith("exact-0123456789abcdef.tbl"))
    assert set(table) == {"path", "kind", "bytes", "rules", "shipped", "in_use"} and table["rules"] == "yatzy"
    text = cli(["cache", "list"]).stdout.splitlines()
    assert text[0].split() == ["kind", "size", "rules", "file"]
    assert len(text) == 1 + 11 + 1 and text[-1].startswith("11 files, ")
    size = (cache_dir / "exact-0123456789abcdef.tbl").stat().st_size
    assert any(line.split()[:4] == ["table", *cache_cmd_size(size).split(), "yatzy"] for line in text)
    assert sum(line.endswith("(shipped)") for line in text) == 1


def test_cache_clean_says_what_it_removed(cli, cache_dir: Path) -> None:
    r = cli(["cache", "clean", "--dry-run"])
    assert r.exit_code == 0 and len(r.stdout.splitlines()) == 10
    assert r.stdout.splitlines()[-1].startswith("would remove 9 files, ")
    r = cli(["cache", "clean", "--kernels", "--json"])
    doc = orjson.loads(r.stdout)
    assert (r.exit_code, doc["dry_run"], doc["files"], doc["errors"]) == (0, False, 3, [])
    size = sum(p.stat().st_size for p in cache_dir.rglob("*") if p.is_file()) - 5 - 5  # notes, fresh temporary
    r = cli(["cache", "clean"])
    assert (r.exit_code, r.stdout) == (0, f"removed 6 files, {size / 1024:.1f} KiB\n")
    assert cli(["cache", "clean"]).stdout == "removed 0 files, 0 B\n"


def test_cache_clean_names_a_file_it_cannot_remove(cli, cache_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    unlink = Path.unlink

    def refuse(self: Path, missing_ok: bool = False) -> None:
        if self.name.endswith(".1234abcd"):
            raise PermissionError(13, "Permission denied")
        unlink(self, missing_ok)

    monkeypatch.setattr(Path, "unlink", refuse)
    r = cli(["cache", "clean", "--tables"])
    assert r.exit_code == 1 and r.stdout.startswith("removed 5 files, ")
    stamp = cache_dir / "verified" / "exact-0123456789abcdef.tbl.1234abcd"
    assert r.stderr == f"yahtzee: error: cannot remove {stamp}: Permission denied\n" and stamp.exists()


def test_the_installed_command_cleans_a_cache_a_solve_filled(yahtzee: list[str], tmp_path: Path) -> None:
    env = {**os.environ, "YAHTZEE_CACHE_DIR": str(tmp_path / "c")}
    env.pop("NUMBA_CACHE_DIR", None)
    env["NUMBA_CACHE_DIR"] = os.environ["NUMBA_CACHE_DIR"]  # the session's kernels: not this test's to clean
    run = subprocess.run([*yahtzee, "hint", "12345"], env=env, capture_output=True, text=True, check=True)
    assert run.stdout
    listed = orjson.loads(subprocess.run([*yahtzee, "cache", "list", "--json"], env=env, capture_output=True,
                                         check=True).stdout)
    tables = [e for e in listed["entries"] if e["kind"] == "table"]
    assert [(t["rules"], t["shipped"]) for t in tables] == [("yahtzee", True)]
    out = subprocess.run([*yahtzee, "cache", "clean", "--tables"], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("removed ") and not list((tmp_path / "c").glob("*.tbl"))
