"""The installed package stays as pip installed it: compiled kernels are cached in the user cache
directory, never beside the package's source (pip uninstall would leave them behind, and the
left-over folder would then shadow the next install as an empty namespace package)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import yahtzee_cli

PACKAGE = Path(yahtzee_cli.__file__).resolve().parent

# compiles (or loads) one small cached kernel, then says where numba keeps it
_RUN_KERNEL = """
from yahtzee_cli.solver import rng
assert int(rng.stream(1, 2, 3)) > 0
print(getattr(rng.stream._cache, "cache_path", None) or "in memory")
"""


def _compiled_files(root: Path, since: float) -> list[Path]:
    return [p for p in root.rglob("*") if p.suffix in (".nbi", ".nbc") and p.stat().st_mtime >= since]


def _run(env_cache: str) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["YAHTZEE_CACHE_DIR"] = env_cache
    res = subprocess.run([sys.executable, "-c", _RUN_KERNEL], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    return res.stdout.splitlines()


def test_compiled_kernels_are_cached_in_the_user_cache_dir_not_the_package(tmp_path: Path) -> None:
    start = time.time() - 1
    (path,) = _run(str(tmp_path))
    assert Path(path) == tmp_path / "numba"
    assert [p.name for p in _compiled_files(tmp_path, start) if p.suffix == ".nbi"], "nothing was cached"
    assert _compiled_files(PACKAGE, start) == []


def test_an_unwritable_cache_dir_compiles_in_memory_and_writes_nothing_in_the_package(tmp_path: Path) -> None:
    start = time.time() - 1
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    assert _run(str(blocker / "cache")) == ["in memory"]
    assert _compiled_files(PACKAGE, start) == []
