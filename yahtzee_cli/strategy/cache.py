"""What the cache directory holds, and cleaning it (`yahtzee cache`).

The directory (tablefile.cache_dir) holds strategy tables (`exact-*.tbl`, `approx-*.tbl`), score
distributions and risk tables (`dist*-*.tbl`, `risk*-*.tbl`), the stamps of verified tables
(`verified/`), compiled kernels (`numba/`, or $NUMBA_CACHE_DIR when set), the lock files that let one
process build a table or compile a kernel while others wait (`*.lock`), and temporary files of writers
that were killed before they finished (`*.tmp`).

Everything in it can be made again: a table is rebuilt (or copied from the package, for the tables
shipped with it) and a kernel recompiled on first use. Cleaning never removes a lock that a running
process holds, nor a temporary file young enough to belong to a writer still at work; a lock file that
no process holds is stale (the system dropped the lock when its process ended) and goes."""

from __future__ import annotations

import os
import struct
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import orjson

from . import tablefile
from .prebuilt import DATA, SUFFIX

Kind = Literal["table", "kernel", "lock", "stamp", "temporary", "other"]
KINDS: tuple[Kind, ...] = ("table", "kernel", "lock", "stamp", "temporary", "other")
Part = Literal["tables", "kernels"]  # what `clean` may be limited to


@dataclass(frozen=True)
class Entry:
    """One file of the cache. `path` is relative to `root`; `rules` names the rule set of a table (None
    when unknown); `shipped` is True for a copy of a table shipped with the package (restored from it
    at no cost); `in_use` is True for a lock a running process holds or a fresh temporary file."""

    root: Path
    path: str
    kind: Kind
    bytes: int
    part: Part
    rules: str | None = None
    shipped: bool = False
    in_use: bool = False

    @property
    def full(self) -> Path:
        return self.root / self.path


@dataclass(frozen=True)
class Listing:
    directory: Path  # the cache directory
    kernels: Path  # where compiled kernels are kept (inside `directory` unless $NUMBA_CACHE_DIR says)
    entries: tuple[Entry, ...]

    @property
    def total_bytes(self) -> int:
        return sum(e.bytes for e in self.entries)


def directory() -> Path:
    """The cache directory ($YAHTZEE_CACHE_DIR, else the platform's user cache directory)."""
    return tablefile.cache_dir()


def kernel_directory() -> Path:
    """Where compiled kernels are kept: numba's own $NUMBA_CACHE_DIR when set, else `numba/` in the
    cache directory (as solver.jit decides, without importing numba)."""
    env = os.environ.get("NUMBA_CACHE_DIR")
    return Path(env) if env else directory() / "numba"


def _files(root: Path, deep: bool = True) -> Iterator[tuple[str, os.stat_result]]:
    """Every file under `root` (not following links to folders; only those directly in it unless
    `deep`), sorted by path."""
    found: list[tuple[str, os.stat_result]] = []
    for here, dirs, names in os.walk(root):
        if not deep:
            dirs.clear()
        for name in names:
            full = os.path.join(here, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue  # removed meanwhile
            found.append((os.path.relpath(full, root), st))
    yield from sorted(found, key=lambda f: f[0])


def _held(path: Path) -> bool:
    """Whether a running process holds the advisory lock on `path` (False where locks are not known)."""
    try:
        import fcntl
    except ImportError:
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # (closing drops the lock, if taken)
    return False


def _rules_of(path: Path) -> str | None:
    """The rule set named in a table's header, without reading the table."""
    try:
        with open(path, "rb") as f:
            if f.read(8) != tablefile.MAGIC:
                return None
            (size,) = struct.unpack("<Q", f.read(8))
            if size > 1 << 20:
                return None
            name = orjson.loads(f.read(size)).get("rule_name")
    except (OSError, ValueError, struct.error, AttributeError):
        return None
    return name if isinstance(name, str) else None


def _shipped_names() -> set[str]:
    try:
        return {p.name[: -len(SUFFIX)] for p in DATA.glob(f"*{SUFFIX}")}
    except OSError:
        return set()


def _entry(root: Path, rel: str, st: os.stat_result, part: Part, shipped: set[str], now: float) -> Entry:
    name = os.path.basename(rel)
    full = root / rel
    if name.endswith(".lock"):
        return Entry(root, rel, "lock", st.st_size, part, in_use=_held(full))
    if name.endswith(".tmp"):
        return Entry(root, rel, "temporary", st.st_size, part,
                     in_use=st.st_mtime > now - tablefile.STALE_TMP_SECONDS)
    if part == "kernels":
        return Entry(root, rel, "kernel" if name.endswith((".nbi", ".nbc")) else "other", st.st_size, part)
    if rel.startswith("verified" + os.sep):
        return Entry(root, rel, "stamp", st.st_size, part)
    if name.endswith(".tbl") and os.sep not in rel:
        return Entry(root, rel, "table", st.st_size, part, rules=_rules_of(full), shipped=name in shipped)
    return Entry(root, rel, "other", st.st_size, part)


def listing() -> Listing:
    """Every file of the cache (an empty listing when the directory does not exist yet)."""
    root, kernels = directory(), kernel_directory()
    shipped, now = _shipped_names(), time.time()
    entries: list[Entry] = []
    for rel, st in _files(root):
        full = root / rel
        if kernels == full or kernels in full.parents:
            continue  # listed below, as kernels
        entries.append(_entry(root, rel, st, "tables", shipped, now))
    # $NUMBA_CACHE_DIR is numba's for every program: the package's kernels are the files directly in
    # it (numba keeps other code's in folders named after their source's folder)
    own = kernels.parent == root
    entries.extend(_entry(kernels, rel, st, "kernels", shipped, now) for rel, st in _files(kernels, deep=own))
    return Listing(root, kernels, tuple(entries))


def removable(entries: Iterable[Entry], parts: Iterable[Part] = ("tables", "kernels")) -> list[Entry]:
    """What `clean` removes of `entries`: every file of the chosen parts except locks a running process
    holds and temporary files a writer may still be at work on. ("other" files, which the toolbox did
    not write, stay.)"""
    chosen = set(parts)
    return [e for e in entries if e.part in chosen and not e.in_use and e.kind != "other"]


def clean(parts: Iterable[Part] = ("tables", "kernels"), dry_run: bool = False) -> tuple[list[Entry], list[str]]:
    """Remove what `removable` picks (nothing when `dry_run`); the entries removed (or that would be)
    and one message per file that could not be removed. A lock is removed only while this process
    holds it, so a process that takes it meanwhile keeps it. Folders left empty are removed too."""
    gone: list[Entry] = []
    failed: list[str] = []
    for e in removable(listing().entries, parts):
        if dry_run:
            gone.append(e)
            continue
        try:
            if e.kind == "lock":
                if not _unlink_lock(e.full):
                    continue  # taken meanwhile
            else:
                e.full.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            failed.append(f"cannot remove {e.full}: {exc.strerror or exc}")
            continue
        gone.append(e)
    if not dry_run:
        for root in {e.root for e in gone}:
            _remove_empty_folders(root)
    return gone, failed


def _unlink_lock(path: Path) -> bool:
    """Remove a lock file while holding its lock; False when a running process holds it."""
    try:
        import fcntl
    except ImportError:
        path.unlink()
        return True
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        path.unlink()
        return True
    finally:
        os.close(fd)


def _remove_empty_folders(root: Path) -> None:
    for here, _, _ in sorted(os.walk(root), key=lambda w: -len(w[0])):
        if Path(here) != root:
            try:
                os.rmdir(here)
            except OSError:
                pass  # not empty
