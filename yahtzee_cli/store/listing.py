"""What the cache directory holds, and cleaning it (`yahtzee cache`).

The directory (tablefile.cache_dir) holds the artifacts of the kinds the store registers (kinds.py):
strategy tables (`exact-*.tbl`, `approx-*.tbl`), score distributions and risk tables (`dist*-*.tbl`,
`risk*-*.tbl`), positions' and states' distributions (`pos*-*.tbl`, `states*-*.tbl`, `early-*.tbl`,
`final*-*.tbl`), the move tables of long simulations (`moves-*.tbl`, `gmoves-*.tbl`), saved-rolls tables
(`saved-*.json`, its header, with `saved-*.f32` and `saved-*.masks`), the stamps of verified tables
(`verified/`), compiled kernels (`numba/`, or $NUMBA_CACHE_DIR when set), the lock files that let one
process build a table or compile a kernel while others wait (`*.lock`), and temporary files of writers
that were killed before they finished (`*.tmp`).

Everything in it can be made again: a table is rebuilt (or copied from the package, for the tables
shipped with it) and a kernel recompiled on first use. Cleaning never removes a lock that a running
process holds, nor a temporary file young enough to belong to a writer still at work; a lock file that
no process holds is stale (the system dropped the lock when its process ended) and goes.

The cache may be shared with other files: a file is the toolbox's only when its name and its content
both say so (a table's magic bytes, a saved table's header, a stamp's facts, numba's pickles, an empty
lock named after a table); anything else is "other" and is never removed. Only regular files directly
in the directory, in `verified/` and in the kernels' folder are looked at: links are not followed and
FIFOs, sockets and devices are not opened, so no listing hangs or wanders off."""

from __future__ import annotations

import os
import re
import stat
import struct
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import orjson

from ..errors import UnusableFolder
from ..paths import folder_problem, os_reason
from . import tablefile
from .kinds import SAVED, table_name
from .prebuilt import DATA, SUFFIX

Kind = Literal["table", "saved", "kernel", "lock", "stamp", "temporary", "other"]
KINDS: tuple[Kind, ...] = ("table", "saved", "kernel", "lock", "stamp", "temporary", "other")
Part = Literal["tables", "kernels"]  # what `clean` may be limited to
MAX_ENTRIES = 100_000  # names looked at in one listing: a cache folder pointed at a big tree stays quick
SUBFOLDERS = ("verified", "numba")  # the only folders of the cache directory the toolbox makes

# Names the toolbox gives its files (a file is its own only when its content agrees too, see _entry):
# tables as the registry of kinds names them (kinds.table_name), the saved-rolls table's three files
_SAVED = re.compile(rf"{SAVED.prefix}-([0-9a-f]{{16}})\.({'|'.join(p[1:] for p in (SAVED.suffix, *SAVED.parts))})")
_TEMPORARY = re.compile(r"(.+)\.[0-9]+\.[0-9a-f]{8}\.tmp")  # paths.write_atomic's
_STAMP = re.compile(r"(.+\.tbl)\.[0-9a-f]{8}")
_STAMP_FACTS = re.compile(rb"\n[0-9]+ [0-9]+ [0-9]+ -?[0-9]+ -?[0-9]+")
_KERNEL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\.[A-Za-z0-9_.]+-[0-9]+\.py[0-9]+(\.[0-9]+)?\.(nbi|nbc)")
_KERNEL_LOCK = re.compile(r"yahtzee_cli\.[A-Za-z0-9_.]+-[0-9]+\.lock")


@dataclass(frozen=True)
class Entry:
    """One file of the cache. `path` is relative to `root`; `rules` names the rule set of a table (None
    when unknown); `shipped` is True for a copy of a table shipped with the package (restored from it
    at no cost); `in_use` is True for a lock a running process holds, a fresh temporary file or a
    saved-rolls table being built."""

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
    complete: bool = True  # False: more than MAX_ENTRIES names, the rest not looked at

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


def _unusable(folder: Path, problem: str) -> UnusableFolder:
    if folder == kernel_directory() and os.environ.get("NUMBA_CACHE_DIR"):
        origin = "set by $NUMBA_CACHE_DIR"
    elif folder == directory():
        origin = "set by $YAHTZEE_CACHE_DIR" if os.environ.get("YAHTZEE_CACHE_DIR") else \
            "the default: the user cache directory"
    else:
        origin = f"in the cache directory {directory()}"
    return UnusableFolder(f"the cache folder {folder} ({origin}) {problem}")


class _Budget:
    """How many more names a listing may look at (MAX_ENTRIES in all)."""

    def __init__(self) -> None:
        self.left = MAX_ENTRIES


def _files(root: Path, budget: _Budget, folders: tuple[str, ...] = ()) -> Iterator[tuple[str, os.stat_result]]:
    """The regular files directly in `root` and in its `folders` (real folders, not links), sorted by
    path. Links, FIFOs, sockets and devices are left out (never opened, never followed, never removed):
    a link out of the cache or a FIFO named like a table cannot make a listing wander or hang. A
    folder that is missing is empty; one that cannot be read is UnusableFolder (never "empty")."""
    found: list[tuple[str, os.stat_result]] = []
    todo = [""]
    while todo:
        rel = todo.pop()
        here = root / rel if rel else root
        try:
            with os.scandir(here) as names:
                for item in names:
                    if budget.left <= 0:
                        break
                    budget.left -= 1
                    try:
                        st = item.stat(follow_symlinks=False)
                    except OSError:
                        continue  # removed meanwhile
                    name = os.path.join(rel, item.name) if rel else item.name
                    if stat.S_ISREG(st.st_mode):
                        found.append((name, st))
                    elif stat.S_ISDIR(st.st_mode) and not rel and item.name in folders:
                        todo.append(item.name)
        except FileNotFoundError:
            if rel:
                continue
            problem = folder_problem(root)  # missing: fine unless what is above it is no folder
            if problem is not None:
                raise _unusable(root, problem) from None
        except NotADirectoryError:
            if rel:
                continue
            raise _unusable(root, folder_problem(root) or "is not a folder") from None
        except OSError as exc:
            raise _unusable(here, f"cannot be read: {os_reason(exc)}") from None
    yield from sorted(found, key=lambda f: f[0])


def _head(path: Path, size: int) -> bytes | None:
    """The first `size` bytes of the regular file at `path` (None: not one, or unreadable). Opened
    without following a link and without waiting (a FIFO put there meanwhile does not block)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, size)
    except OSError:
        return None
    finally:
        os.close(fd)


def _held(path: Path) -> bool:
    """Whether a running process holds the advisory lock on `path` (False where locks are not known)."""
    try:
        import fcntl
    except ImportError:
        return False
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # (closing drops the lock, if taken)
    return False


def _table_header(path: Path) -> dict[str, Any] | None:
    """The header of a table file (tablefile's layout), without reading the table; None when the file
    is not one."""
    head = _head(path, 16)
    if head is None or len(head) < 16 or head[:8] != tablefile.MAGIC:
        return None
    (size,) = struct.unpack("<Q", head[8:16])
    if size > 1 << 20:
        return None
    data = _head(path, 16 + size)
    try:
        header = orjson.loads(data[16:]) if data is not None else None
    except orjson.JSONDecodeError:
        return None
    return header if isinstance(header, dict) else None


def _saved_header(path: Path, fingerprint: str) -> dict[str, Any] | None:
    """The header file of a saved-rolls table (solver.saved), when it is one for `fingerprint`."""
    data = _head(path, 1 << 20)
    try:
        header = orjson.loads(data) if data is not None else None
    except orjson.JSONDecodeError:
        return None
    if isinstance(header, dict) and header.get("kind") == SAVED.name and header.get("fingerprint") == fingerprint:
        return header
    return None


def _shipped_names() -> set[str]:
    try:
        return {p.name[: -len(SUFFIX)] for p in DATA.glob(f"*{SUFFIX}")}
    except OSError:
        return set()


def _package_modules() -> set[str]:
    """The names numba gives the package's kernels' cache files start with (their modules' names)."""
    here = Path(__file__).resolve().parents[1]
    return {"yahtzee_cli"} | {p.stem for part in ("solver", "play", "strategy", "rules")
                              for p in (here / part).glob("*.py")}


class _Reader:
    """What identifies the toolbox's files, read once per listing."""

    def __init__(self) -> None:
        self.shipped = _shipped_names()
        self.now = time.time()
        self.modules = _package_modules()
        self.saved: dict[str, dict[str, Any] | None] = {}  # fingerprint -> its saved table's header
        self.building: set[str] = set()  # fingerprints of saved tables a build is at work on
        self.labels: dict[str, str] = {}  # fingerprint -> rule set label, from headers that hold the rules

    def saved_header(self, root: Path, fingerprint: str) -> dict[str, Any] | None:
        if fingerprint not in self.saved:
            head = root / f"saved-{fingerprint}.json"
            self.saved[fingerprint] = header = _saved_header(head, fingerprint)
            if header is not None and not header.get("complete"):
                # a build records each layer in the header as it finishes (minutes apart at most)
                try:
                    if max(p.stat().st_mtime for p in (head, head.with_suffix(".f32")) if p.exists()) > \
                            self.now - tablefile.STALE_TMP_SECONDS:
                        self.building.add(fingerprint)
                except OSError:
                    pass
        return self.saved[fingerprint]


HOUSE = " + house rules"  # a house rule whose settings only another table's header names


def rules_label(name: object, rules: object, fingerprint: object) -> str | None:
    """A table's rule set as people name it: the preset's name alone for the preset itself, with the
    settings that differ from it for a house rule ("yahtzee + joker=free"), "custom: NAME" for boxes
    of its own; None when the header names none."""
    if not isinstance(name, str):
        return None
    from ..rules import engine as R

    if name not in R.preset_names():
        return f"custom: {name}"
    base = R.preset(name)
    if fingerprint == base.fingerprint:
        return name
    if not isinstance(rules, dict):
        return f"{name}{HOUSE}"
    try:
        mine = R.rules_from_data(rules)
    except (ValueError, TypeError):
        return f"{name}{HOUSE}"
    return mine.label


def _entry(root: Path, rel: str, st: os.stat_result, part: Part, read: _Reader) -> Entry:
    """The file's kind: the toolbox's own only when its name AND its content say so (a foreign `.tbl`,
    a lock in a folder of someone else's, an old `.tmp` of another program stay "other")."""
    name = os.path.basename(rel)
    top = os.sep not in rel
    full = root / rel

    def other() -> Entry:
        return Entry(root, rel, "other", st.st_size, part)

    if part == "kernels":
        if not top:
            return other()
        if _KERNEL_LOCK.fullmatch(name) and st.st_size == 0:
            return Entry(root, rel, "lock", 0, part, in_use=_held(full))
        m = _KERNEL.fullmatch(name)
        if m and m.group(1) in read.modules and (_head(full, 1) or b"") == b"\x80":  # numba's pickles
            return Entry(root, rel, "kernel", st.st_size, part)
        return other()
    if rel.startswith("verified" + os.sep):
        m = _STAMP.fullmatch(name)
        facts = _head(full, 8192) if m and os.path.dirname(rel) == "verified" else None
        if m and facts is not None and _stamp_names(facts, m.group(1)):
            return Entry(root, rel, "stamp", st.st_size, part)
        return other()
    if not top:
        return other()
    if name.endswith(".lock"):
        owner = name[: -len(".lock")]
        saved = _SAVED.fullmatch(owner)
        if st.st_size == 0 and (table_name(owner) or (saved and saved.group(2) == "f32")):
            return Entry(root, rel, "lock", 0, part, in_use=_held(full))
        return other()
    m = _TEMPORARY.fullmatch(name)
    if m:
        if not _temporary_of_ours(full, m.group(1), st.st_size):
            return other()
        return Entry(root, rel, "temporary", st.st_size, part,
                     in_use=st.st_mtime > read.now - tablefile.STALE_TMP_SECONDS)
    m = _SAVED.fullmatch(name)
    if m:
        header = read.saved_header(root, m.group(1))
        if header is None:
            return other()
        return Entry(root, rel, "saved", st.st_size, part, rules=rules_label(header.get("rule_name"),
                     header.get("rules"), m.group(1)), in_use=m.group(1) in read.building)
    if table_name(name):
        header = _table_header(full)
        if header is None:
            return other()
        fingerprint = name[-len("0123456789abcdef.tbl"):-len(".tbl")]  # the cache's key: the rule set's
        label = rules_label(header.get("rule_name"), header.get("rules"), fingerprint)
        if label is not None and "rules" in header:
            read.labels[fingerprint] = label
        return Entry(root, rel, "table", st.st_size, part, rules=label, shipped=name in read.shipped)
    return other()


def _stamp_names(facts: bytes, table: str) -> bool:
    """Whether a stamp's content is tablefile's: the table's full path, then its stat figures."""
    path, sep, rest = facts.rpartition(b"\n")
    return bool(sep) and _STAMP_FACTS.fullmatch(b"\n" + rest) is not None and \
        os.path.basename(os.fsdecode(path)) == table


def _temporary_of_ours(path: Path, target: str, size: int) -> bool:
    """A temporary file of paths.write_atomic's in the cache: named after a table or a saved-rolls
    file, and beginning as that file begins (a writer killed early may have left only the start)."""
    head = _head(path, 64) or b""
    if table_name(target):
        start = tablefile.MAGIC
    elif (m := _SAVED.fullmatch(target)) is not None:
        if m.group(2) == "json":
            start = b'{"kind":"saved"'
        else:
            return size % 8 == 0 and head[:8] in (b"", b"\0" * 8)  # masks: int64, the empty sheet first
    else:
        return False
    return head[: len(start)] == start[: len(head)]


def listing() -> Listing:
    """Every file of the cache (an empty listing when the directory does not exist yet);
    UnusableFolder when a folder of it cannot be read. Only regular files are listed."""
    root, kernels = directory(), kernel_directory()
    budget = _Budget()
    own = kernels.parent == root
    # (the kernels' own folder is walked once, below: not here too, against the same budget)
    found = list(_files(root, budget, tuple(f for f in SUBFOLDERS if not (own and f == kernels.name))))
    read = _Reader()
    entries: list[Entry] = []
    for rel, st in found:
        if own and rel.split(os.sep)[0] == kernels.name:
            continue  # listed below, as kernels
        entries.append(_entry(root, rel, st, "tables", read))
    # $NUMBA_CACHE_DIR is numba's for every program: the package's kernels are the files directly in
    # it named after the package's modules (numba keeps other code's in folders of their own)
    if not own or (root / kernels.name).is_dir() and not (root / kernels.name).is_symlink():
        entries.extend(_entry(kernels, rel, st, "kernels", read) for rel, st in _files(kernels, budget))
    # a table without the rule set in its header (distributions, risk tables) is named as the table
    # of the same rules that has it
    entries = [_relabel(e, read) if e.kind == "table" and (e.rules or "").endswith(HOUSE) else e for e in entries]
    return Listing(root, kernels, tuple(entries), complete=budget.left > 0)


def _relabel(e: Entry, read: _Reader) -> Entry:
    fingerprint = e.path.rsplit("-", 1)[-1][: -len(".tbl")]
    label = read.labels.get(fingerprint)
    if label is None or label == e.rules:
        return e
    return Entry(e.root, e.path, e.kind, e.bytes, e.part, label, e.shipped, e.in_use)


def removable(entries: Iterable[Entry], parts: Iterable[Part] = ("tables", "kernels")) -> list[Entry]:
    """What `clean` removes of `entries`: every file of the chosen parts except locks a running process
    holds, temporary files a writer may still be at work on and saved-rolls tables being built.
    ("other" files, which the toolbox did not write or cannot tell for its own, stay.)"""
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
    if not dry_run and gone:
        _remove_empty_folders(directory())
    return gone, failed


def _unlink_lock(path: Path) -> bool:
    """Remove a lock file while holding its lock; False when a running process holds it."""
    try:
        import fcntl
    except ImportError:
        path.unlink()
        return True
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
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
    """The cache's own folders (`verified/`, `numba/`) once emptied; nothing else is walked."""
    for name in SUBFOLDERS:
        folder = root / name
        if folder.is_dir() and not folder.is_symlink():
            try:
                os.rmdir(folder)
            except OSError:
                pass  # not empty
