"""The cache folder shared with other files and odd things: `cache list` and `cache clean` look only at
regular files of the cache's own folders (no FIFO opened, no link followed: each returns within
seconds), remove only what the toolbox wrote (name AND content), free saved-rolls tables with
--tables, name a house rule's tables by their settings, and say in one line when the folder cannot be
read instead of reporting it empty."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson
import pytest

from yahtzee_cli.rules.engine import preset
from yahtzee_cli.store import listing as cache
from yahtzee_cli.store import tablefile

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX FIFOs, links and permissions")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    folder.mkdir()
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(folder))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    return folder


def _old(path: Path) -> Path:
    os.utime(path, (1, 1))
    return path


def _foreign(root: Path) -> list[Path]:
    """Files another program keeps in a shared folder, named like the toolbox's."""
    (root / "sub").mkdir()
    files = [root / "exact-0123456789abcdef.tbl", root / "sub" / "build.lock", root / "old.1.abcdef12.tmp",
             root / "exact-0123456789abcdef.tbl.4242.0a1b2c3d.tmp", root / "saved-0123456789abcdef.f32",
             root / "numba.lock"]
    for f in files[:-1]:
        if not f.exists():
            f.write_bytes(b"not the toolbox's")
        _old(f)
    files[-1].write_bytes(b"")  # an empty lock, but named after no table of the toolbox's
    (root / "verified").mkdir()
    files.append(root / "verified" / "exact-0123456789abcdef.tbl.1234abcd")
    files[-1].write_bytes(b"some other program's note")
    return files


def test_clean_keeps_files_the_toolbox_did_not_write(cli: Any, root: Path) -> None:
    foreign = _foreign(root)
    r = cli(["cache", "clean"])
    assert (r.exit_code, r.stdout, r.stderr) == (0, "removed 0 files, 0 B\n", "")
    assert all(f.exists() for f in foreign)
    listed = orjson.loads(cli(["cache", "list", "--json"]).stdout)
    assert {e["kind"] for e in listed["entries"]} == {"other"}


def _special(root: Path) -> None:
    """FIFOs named like a table, a lock and a temporary file, a socket, and links out of the folder."""
    for name in ("exact-56d190f5438625ea.tbl", "exact-56d190f5438625ea.tbl.lock", "x.1.abcdef12.tmp"):
        os.mkfifo(root / name)
    (root / "verified").mkdir()
    os.mkfifo(root / "verified" / "exact-56d190f5438625ea.tbl.1234abcd")
    (root / "numba").mkdir()
    os.mkfifo(root / "numba" / "kernels.solve_chunk-527.py311.nbi")
    (root / "to-root").symlink_to("/")
    (root / "exact-1111111111111111.tbl").symlink_to("/dev/zero")


def test_special_files_and_links_neither_hang_nor_go(yahtzee: list[str], root: Path) -> None:
    _special(root)
    env = {**os.environ, "YAHTZEE_CACHE_DIR": str(root), "NUMBA_CACHE_DIR": ""}
    for args in (["list"], ["list", "--json"], ["clean", "--dry-run"], ["clean"], ["clean", "--tables"]):
        t0 = time.monotonic()
        r = subprocess.run([*yahtzee, "cache", *args], env=env, capture_output=True, text=True, timeout=30)
        assert time.monotonic() - t0 < 5 and r.returncode == 0 and r.stderr == "", (args, r.stderr)
    assert len(list(root.iterdir())) == 7 and (root / "to-root").is_symlink()


def test_a_cache_folder_that_is_a_link_to_the_root_is_not_walked(yahtzee: list[str], tmp_path: Path) -> None:
    (tmp_path / "cache").symlink_to("/")
    env = {**os.environ, "YAHTZEE_CACHE_DIR": str(tmp_path / "cache"), "NUMBA_CACHE_DIR": ""}
    for args in (["list"], ["clean", "--dry-run"], ["clean"]):
        r = subprocess.run([*yahtzee, "cache", *args], env=env, capture_output=True, text=True, timeout=5)
        assert r.returncode == 0 and r.stderr == "", r.stderr
        assert r.stdout.endswith(("0 files, 0 B\n", "0 B\n")) if args[0] == "clean" else r.stdout.endswith("\n")
    assert "removed 0 files" in r.stdout


def test_the_listing_is_bounded(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for i in range(30):
        (root / f"f{i}").write_bytes(b"")
    monkeypatch.setattr(cache, "MAX_ENTRIES", 10)
    found = cache.listing()
    assert len(found.entries) == 10 and not found.complete


def _saved(root: Path, rules: Any, complete: bool = True) -> list[Path]:
    fp = rules.fingerprint
    head = root / f"saved-{fp}.json"
    head.write_bytes(orjson.dumps({"kind": "saved", "version": 1, "fingerprint": fp, "rule_name": rules.name,
                                   "rules": rules.to_dict(), "cap": 1, "complete": complete}))
    files = [head, root / f"saved-{fp}.f32", root / f"saved-{fp}.masks", root / f"saved-{fp}.f32.lock"]
    files[1].write_bytes(b"\0" * 4000)
    files[2].write_bytes(b"\0" * 80)
    files[3].write_bytes(b"")
    return [_old(f) for f in files]


def test_saved_rolls_tables_are_a_kind_freed_by_tables(cli: Any, root: Path) -> None:
    rules = preset("maxi-yatzy", {"saved_rolls_cap": 2})
    files = _saved(root, rules)
    listed = orjson.loads(cli(["cache", "list", "--json"]).stdout)["entries"]
    assert sorted((e["kind"], e["rules"]) for e in listed) == [("lock", None)] + [
        ("saved", "maxi-yatzy + saved_rolls_cap=2")] * 3
    size = sum(f.stat().st_size for f in files)
    r = cli(["cache", "clean", "--tables"])
    assert r.exit_code == 0 and r.stdout == f"removed 4 files, {size / 1024:.1f} KiB\n"
    assert not any(f.exists() for f in files)


def test_a_saved_rolls_table_being_built_stays(root: Path) -> None:
    files = _saved(root, preset("maxi-yatzy", {"saved_rolls_cap": 2}), complete=False)
    os.utime(files[0])  # its header just written: a build at work
    gone, _ = cache.clean(["tables"])
    assert files[0].exists() and [Path(e.path).suffix for e in gone] == [".lock"]


def test_a_house_rules_tables_are_named_by_their_settings(root: Path, cli: Any) -> None:
    rules = preset("yahtzee", {"joker": "free"})
    fp = rules.fingerprint
    tablefile.write(root / f"exact-{fp}.tbl", {"kind": "exact", "fingerprint": fp, "rule_name": rules.name,
                                               "rules": rules.to_dict()}, {"W": ("d", b"\0" * 8)})
    tablefile.write(root / f"dist0-{fp}.tbl", {"kind": "distribution", "fingerprint": fp, "rule_name": rules.name},
                    {"W": ("d", b"\0" * 8)})
    assert {e.rules for e in cache.listing().entries} == {"yahtzee + joker=free"}
    assert cli(["cache", "list"]).stdout.count("yahtzee + joker=free") == 2


# --------------------------------------------------------------------------- unreadable folders


def without_override(command: list[str]) -> list[str]:
    """`command` run so that permissions apply: as root without the capabilities that bypass them."""
    if os.geteuid() != 0:
        return command
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a mode-000 folder cannot be made unreadable")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]


@pytest.mark.parametrize("locked", ["cache", "verified", "kernels"])
def test_an_unreadable_cache_folder_is_one_line_not_an_empty_cache(yahtzee: list[str], tmp_path: Path,
                                                                   locked: str) -> None:
    root = tmp_path / "cache"
    (root / "verified").mkdir(parents=True)
    (tmp_path / "kernels").mkdir()
    tablefile.write(root / "exact-0123456789abcdef.tbl", {"rule_name": "yatzy"}, {"W": ("d", b"\0" * 8)})
    folder = {"cache": root, "verified": root / "verified", "kernels": tmp_path / "kernels"}[locked]
    env = {**os.environ, "YAHTZEE_CACHE_DIR": str(root), "NUMBA_CACHE_DIR": str(tmp_path / "kernels")}
    folder.chmod(0o000)
    try:
        for args in (["list"], ["clean"], ["clean", "--dry-run"]):
            r = subprocess.run(without_override([*yahtzee, "cache", *args]), env=env, capture_output=True,
                               text=True, timeout=30)
            assert r.returncode == 1 and r.stdout == "", (args, r.stdout)
            assert r.stderr.startswith(f"yahtzee: error: the cache folder {folder} (") and \
                r.stderr.endswith(") cannot be read: permission denied\n") and r.stderr.count("\n") == 1, r.stderr
    finally:
        folder.chmod(0o755)
    assert (root / "exact-0123456789abcdef.tbl").exists()


def test_cache_where_escapes_the_path(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "a\x1b[2Jb\u202ec"))
    r = cli(["cache", "where"])
    assert r.exit_code == 0 and r.stdout == f"{tmp_path}/a\\x1b[2Jb\\u202ec\n"
