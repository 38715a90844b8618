"""The one store: every stored kind is registered under a name of its own, and `get` reads an artifact,
or builds it once (with the notes its kind's voice words) and writes it; a damaged or outdated file
is built again with a note, and a cache directory that cannot serve is one CacheError naming it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from yahtzee_cli.errors import CacheError, StaleStrategy, YahtzeeError
from yahtzee_cli.store import artifact as store
from yahtzee_cli.store import tablefile
from yahtzee_cli.store.kinds import DISTRIBUTION, EXACT, REGISTRY, SAVED, Kind, table_name, theta_key

FINGERPRINT = "0123456789abcdef"
KIND = Kind("test", "test", "the cached test is from another version")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _counted(value: int, version: int = 1, kind: Kind = KIND) -> tuple[store.Artifact[int], list[int]]:
    """An artifact holding `value` (and the builds it ran)."""
    builds: list[int] = []

    def build() -> int:
        builds.append(value)
        return value

    def encode(v: int) -> tuple[dict[str, Any], dict[str, Any]]:
        return ({"kind": kind.name, "version": version, "fingerprint": FINGERPRINT},
                {"v": ("q", v.to_bytes(8, "little"))})

    def decode(header: dict[str, Any], arrays: dict[str, memoryview]) -> int:
        return int(arrays["v"][0])

    return store.Artifact(kind, FINGERPRINT, "test table", decode, build, encode, expect={"version": 1}), builds


def test_every_kind_has_a_name_and_files_of_its_own() -> None:
    assert len({k.prefix for k in REGISTRY.values()}) == len(REGISTRY)
    assert EXACT.file_name(FINGERPRINT) == f"exact-{FINGERPRINT}.tbl"
    assert DISTRIBUTION.file_name(FINGERPRINT, theta_key(-0.02)) == f"distm0.02-{FINGERPRINT}.tbl"
    assert [p.name for p in SAVED.paths(Path("c"), FINGERPRINT)] == [
        f"saved-{FINGERPRINT}.f32", f"saved-{FINGERPRINT}.json", f"saved-{FINGERPRINT}.masks"]
    assert all(table_name(k.file_name(FINGERPRINT, "p0.05")) for k in REGISTRY.values() if k.suffix == ".tbl")


def test_built_once_then_read(cache: Path) -> None:
    art, builds = _counted(7)
    said: list[str] = []
    assert store.get(art, said.append) == (7, True)
    assert said == [f"computing the test table (once; cached in {cache})"]
    said.clear()
    assert store.get(art, said.append) == (7, False)
    assert builds == [7] and said == [] and art.path == cache / f"test-{FINGERPRINT}.tbl"
    assert store.get(art, rebuild=True) == (7, True) and builds == [7, 7]
    assert (cache / f"test-{FINGERPRINT}.tbl.lock").exists()  # built under its lock


def test_an_outdated_or_damaged_file_is_built_again_with_a_note(cache: Path) -> None:
    old, _ = _counted(7, version=0)
    store.write(old, 7)
    art, builds = _counted(8)
    said: list[str] = []
    assert store.get(art, said.append) == (8, True)
    assert said[0] == "warning: damaged test table ignored (the cached test is from another version); rebuilding it"
    art.path.write_bytes(art.path.read_bytes()[:-1])
    said.clear()
    assert store.get(art, said.append) == (8, True) and builds == [8, 8]
    assert said[0].startswith("warning: damaged test table ignored (") and "fails its checksum" in said[0]


def test_a_strategy_kind_speaks_of_strategy_tables(cache: Path) -> None:
    art, _ = _counted(3, kind=Kind("test", "test", "{path} is another test", "strategy"))
    store.write(art, 3)
    tablefile.write(art.path, {"kind": "other", "fingerprint": FINGERPRINT}, {})

    def stale(header: dict[str, Any], arrays: dict[str, memoryview]) -> int:
        raise StaleStrategy("the cached test is of another kind; preparing it again")

    said: list[str] = []
    assert store.cached(art, said.append) is None
    assert said == [f"warning: damaged strategy table ignored ({art.path} is another test); rebuilding it"]
    store.write(art, 3)
    said.clear()
    assert store.cached(store.Artifact(art.kind, FINGERPRINT, art.what, stale, art.build, art.encode),
                        said.append) is None
    assert said == ["the cached test is of another kind; preparing it again"]


def test_a_value_that_cannot_be_stored_is_still_returned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(blocker / "cache"))
    art, _ = _counted(5)
    said: list[str] = []
    assert store.get(art, said.append) == (5, True)
    assert said[-1] == f"warning: cannot store the test table in {blocker / 'cache'}: Not a directory"


def test_a_cache_that_cannot_serve_is_one_cache_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(blocker / "cache"))

    def build() -> int:
        (blocker / "cache").mkdir()  # (what a build writing its own files meets)
        return 1

    art = store.Artifact(KIND, FINGERPRINT, "test table", None, build, load=lambda: None)
    with pytest.raises(CacheError) as got:
        store.get(art)
    assert str(got.value) == f"cannot use the cache directory {blocker / 'cache'}: Not a directory"
    assert isinstance(got.value, YahtzeeError) and got.value.exit_status == 1


def test_an_opened_value_is_handed_out_again_until_a_file_of_it_changes(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import os
    from collections import OrderedDict

    monkeypatch.setattr(tablefile, "_opened", OrderedDict())
    a, b = tmp_path / "a.f32", tmp_path / "a.json"
    a.write_bytes(b"1234")
    b.write_bytes(b"{}")
    loads: list[int] = []

    def load() -> list[int]:
        loads.append(len(loads))
        return [a.read_bytes()[0], len(loads)]

    first = tablefile.opened("t", [a, b], load)
    assert tablefile.opened("t", [a, b], load) is first and loads == [0]
    assert tablefile.opened("other", [a, b], load) is not first  # another kind of value of the same files
    st = os.stat(b)
    os.utime(b, ns=(st.st_atime_ns, st.st_mtime_ns + 1))  # touched: read again
    again = tablefile.opened("t", [a, b], load)
    assert again is not first and len(loads) == 3
    a.write_bytes(b"5678")  # rewritten in place, the same size
    assert tablefile.opened("t", [a, b], load)[0] == ord("5")
    tmp = tmp_path / "new"
    tmp.write_bytes(b"9999")
    os.replace(tmp, a)  # replaced, as an atomic write does
    assert tablefile.opened("t", [a, b], load)[0] == ord("9") and len(loads) == 5
    # nothing is kept for a missing file or a None (a table not built yet, or unfinished)
    nothing: list[int] = []
    assert tablefile.opened("t", [tmp_path / "gone"], lambda: [nothing.append(1) or 1]) == [1]
    assert tablefile.opened("t", [tmp_path / "gone"], lambda: [nothing.append(1) or 1]) == [1]
    assert tablefile.opened("none", [a], lambda: nothing.append(1)) is None
    assert tablefile.opened("none", [a], lambda: nothing.append(1)) is None
    assert len(nothing) == 4
    for i in range(tablefile.OPENED_KEEP + 1):  # at most OPENED_KEEP values held
        tablefile.opened(f"k{i}", [a], load)
    assert len(tablefile._opened) == tablefile.OPENED_KEEP and ("k0", tablefile._identity(a)) not in tablefile._opened
