"""The strategy-table cache: one file per rule set, keyed by `RuleSet.fingerprint`.

Directory: $YAHTZEE_CACHE_DIR, else the platform's user cache dir (paths.user_dir); when it cannot be
written, a table is kept in memory for the process that built it (`write` still raises), and a table
shipped with the package (prebuilt.py) is read when the directory has none. Writes are atomic
(a temporary file in the same directory, then os.replace), and every file ends with the SHA-256 of
everything before it, header included, so a truncated, corrupt or edited file is detected
(CorruptTable) and never used. Files are created with the permissions the umask allows (a cache
shared by a group stays readable to it); temporary files left by a killed writer are removed by
the next write.

Two processes that need the same missing table build it once: the builder holds a lock on
`<table>.lock` (an advisory lock the system drops when the process ends, however it ends), and the
other waits for it, then reads the file (`building`).

Reading maps the file (mmap) rather than copying it. The checksum is checked on the first read of a
file; a good file is then remembered by a stamp (size, inode, mtime and ctime, which any write, rename
or touch changes) under `verified/` in the cache directory, and later reads of the unchanged file
skip the hash. Where no stamp can be written, every read checks the whole file.

File layout (no numpy needed to read it, so `hint` starts fast):
  8 bytes  magic b"YZTBL02\n"
  8 bytes  header length h, little-endian
  h bytes  header: JSON (orjson), space-padded to a multiple of 8; holds "payload_bytes"
  payload  the arrays the header lists under "arrays" ({name: [dtype, count]}) back to back, each
           padded to a multiple of 8 bytes; dtypes "q" int64, "d" float64, "f" float32, "i" int32,
           "h" int16, "B" uint8 (little-endian)
  32 bytes SHA-256 of all the bytes above
"""

from __future__ import annotations

import errno
import mmap
import os
import struct
import tempfile
import threading
import zlib
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import orjson

from ..errors import CorruptTable, UnreadableTable
from ..paths import user_dir, write_atomic

MAGIC = b"YZTBL02\n"
FORMAT = 2
DIGEST = 32  # bytes of the SHA-256 trailer
STALE_TMP_SECONDS = 600  # a temporary file this old belongs to a writer that died


def ignored(exc: Exception) -> str:
    """The warning when a cached table cannot be used and is built again: it names the file, and
    says whether the file is damaged or only unreadable (then its permissions are to blame)."""
    if isinstance(exc, UnreadableTable):
        return f"warning: strategy table ignored ({exc}: check the file's permissions); rebuilding it"
    return f"warning: damaged strategy table ignored ({exc}); rebuilding it"


def cache_dir() -> Path:
    env = os.environ.get("YAHTZEE_CACHE_DIR")
    if env:
        return Path(env)
    return user_dir("cache")


def writable() -> bool:
    """Whether tables can be stored in the cache directory (it exists or can be made, and takes a file)."""
    try:
        cache_dir().mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=cache_dir()).close()
    except OSError:
        return False
    return True


# Tables built while the cache directory could not be written: kept for this process only.
_memory: dict[Path, bytes] = {}


def table_path(fingerprint: str, kind: str = "exact") -> Path:
    return cache_dir() / f"{kind}-{fingerprint}.tbl"


@contextmanager
def building(path: Path, what: str, say: Callable[[str], None] | None = None) -> Iterator[bool]:
    """Held while the table at `path` is built and stored: another process building it meanwhile is
    waited for (with a note), so the table is built once. Yields whether it waited (then the caller
    reads the table again: the other process has likely stored it). Where no lock can be taken (a
    cache directory that cannot be written, a file system or system without flock) the build goes
    ahead unlocked."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(f"{path}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        yield False
        return
    try:
        yield _lock(fd, what, say)
    finally:
        os.close(fd)  # (closing drops the lock)


def _lock(fd: int, what: str, say: Callable[[str], None] | None) -> bool:
    """Take the lock on `fd`; whether another process held it first (and was waited for)."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError as exc:
        if exc.errno not in (errno.EAGAIN, errno.EACCES):
            return False  # no locks on this file system: build unlocked
    if say is not None:
        say(f"waiting for another yahtzee process building the {what}")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
    except OSError:
        pass
    return True


def _remove_stale_temporaries(directory: Path) -> None:
    """Temporary files of writers that were killed (SIGKILL, power loss) before their rename."""
    import time

    limit = time.time() - STALE_TMP_SECONDS
    try:
        entries = list(directory.glob("*.tbl.*.tmp"))
    except OSError:
        return
    for tmp in entries:
        try:
            if tmp.stat().st_mtime < limit:
                tmp.unlink()
        except OSError:
            pass


ITEM_BYTES = {"q": 8, "d": 8, "f": 4, "i": 4, "h": 2, "B": 1}  # the dtypes an array may have (memoryview.cast codes)


def _padded(n: int) -> int:
    return n + (-n % 8)  # every array starts 8-byte aligned


def write(path: Path, header: Mapping[str, Any], arrays: Mapping[str, tuple[str, Any]]) -> None:
    """Atomically write a table: `arrays` maps names to (dtype, see ITEM_BYTES; raw little-endian bytes,
    or any contiguous buffer of them: written as they are, never copied, so a table of a GB needs no
    second GB)."""
    raws = [(dt, memoryview(raw).cast("B")) for dt, raw in arrays.values()]
    payload: list[Any] = []
    for _, raw in raws:
        payload += [raw, b"\0" * (_padded(len(raw)) - len(raw))]
    head = dict(header)
    head["format"] = FORMAT
    head["arrays"] = {name: [dt, len(raw) // ITEM_BYTES[dt]] for name, (dt, raw) in zip(arrays, raws, strict=True)}
    head["payload_bytes"] = sum(len(p) for p in payload)
    text = orjson.dumps(head)
    text += b" " * (-len(text) % 8)
    chunks = [MAGIC, struct.pack("<Q", len(text)), text, *payload]
    import hashlib  # (loads OpenSSL: only where a checksum is computed, not on a verified read)

    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
    if path.parent.is_dir():
        _remove_stale_temporaries(path.parent)
    try:
        write_atomic(path, [*chunks, digest.digest()])
    except OSError:  # an unwritable cache directory: this process still reads the table back
        _memory[path] = b"".join([*chunks, digest.digest()])
        raise


def _from_package(path: Path) -> bytes:
    """A table shipped with the package (prebuilt.py), copied into the cache directory (or kept in
    memory when it cannot be written); FileNotFoundError when none is shipped."""
    from .prebuilt import shipped

    data = shipped(path.name)
    if data is None:
        raise FileNotFoundError(errno.ENOENT, "no such table", str(path))
    try:
        write_atomic(path, [data])
    except OSError:
        _memory[path] = data
    return data


def _stamp_of(path: Path, st: os.stat_result) -> bytes:
    """What identifies this very file as it was when it passed its checksum: its path and its stat."""
    facts = f"\n{st.st_size} {st.st_ino} {st.st_dev} {st.st_mtime_ns} {st.st_ctime_ns}"
    return os.fsencode(path.absolute()) + facts.encode()


def _stamp_path(path: Path) -> Path:
    # the file's name plus a short hash of where it is; the stamp itself holds the whole path
    return cache_dir() / "verified" / f"{path.name}.{zlib.crc32(os.fsencode(path.absolute())):08x}"


def _verified(path: Path, st: os.stat_result) -> bool:
    """Whether this very file (unchanged since) passed its checksum before."""
    try:
        return _stamp_path(path).read_bytes() == _stamp_of(path, st)
    except OSError:
        return False


def forget(path: Path) -> None:
    """Remove a table file and the stamp of its checksum (nothing when already gone)."""
    for each in (path, _stamp_path(path)):
        try:
            each.unlink()
        except OSError:
            pass


def _remember_verified(path: Path, st: os.stat_result) -> None:
    try:
        where = _stamp_path(path)
        where.parent.mkdir(parents=True, exist_ok=True)
        where.write_bytes(_stamp_of(path, st))
    except OSError:  # nowhere to remember it: the next read checks the whole file again
        pass


T = TypeVar("T")
OPENED_KEEP = 4  # values kept by `opened` in a process (a match may play two rule sets' tables)
_opened: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
_opened_lock = threading.Lock()


def _identity(path: Path) -> bytes | None:
    """The file as it is now (its checksum stamp: what any write, rename or touch changes); None when
    it is not on disk."""
    try:
        return _stamp_of(path, os.stat(path))
    except OSError:
        return None


def opened(what: str, paths: Sequence[Path], load: Callable[[], T | None]) -> T | None:
    """load()'s value for the files `paths`, kept in this process and handed out again while none of
    them has changed, so that a run of many chunks opens a table once. A mapping made afresh is
    faulted in afresh: Maxi Yatzy's 2.8 GB saved-rolls table, opened again for each of the 20 chunks
    of a 20,000-game run, cost 4 of its 10 seconds. None (nothing there yet) and a value of a file
    not on disk (held in memory, or read from the package) are not kept."""
    ids = tuple(_identity(p) for p in paths)
    key = (what, *ids)
    if all(i is not None for i in ids):
        with _opened_lock:
            if key in _opened:
                _opened.move_to_end(key)
                return _opened[key]  # type: ignore[no-any-return]
    value = load()
    if value is not None and all(i is not None for i in ids) and tuple(_identity(p) for p in paths) == ids:
        with _opened_lock:
            _opened[key] = value
            while len(_opened) > OPENED_KEEP:
                _opened.popitem(last=False)
    return value


def _map(path: Path) -> tuple[Any, os.stat_result]:
    """The file's bytes (mapped read-only, not copied) and its status when opened."""
    with open(path, "rb") as f:
        st = os.fstat(f.fileno())
        data: Any = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if st.st_size else b""
    return data, st


def read(path: Path, fingerprint: str | None = None) -> tuple[dict[str, Any], dict[str, memoryview]]:
    """The header and the arrays (memoryviews cast to 'q' or 'd') of a table file.

    FileNotFoundError when there is none; CorruptTable when it is damaged or for another rule set,
    UnreadableTable (a CorruptTable) when the file cannot be read (every byte is checked before any is used).
    A damaged or outdated cache file of a table the package ships (one left by an earlier version, say)
    is replaced by the shipped copy instead: nothing to rebuild."""
    st: os.stat_result | None = None
    try:
        if path in _memory:
            data: Any = _memory[path]
        else:
            data, st = _map(path)
    except (FileNotFoundError, NotADirectoryError):
        data = _from_package(path)
    except OSError as exc:  # the file is there: the file is to blame, not the directory
        raise UnreadableTable(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        return _parse(path, data, st, fingerprint)
    except CorruptTable:
        if st is None:
            raise
        try:
            shipped = _from_package(path)
        except FileNotFoundError:
            shipped = None
        if shipped is None:
            raise
        return _parse(path, shipped, None, fingerprint)


def _parse(path: Path, data: Any, st: os.stat_result | None,
           fingerprint: str | None) -> tuple[dict[str, Any], dict[str, memoryview]]:
    if len(data) < 16 + DIGEST or data[:8] != MAGIC:
        raise CorruptTable(f"{path} is not a yahtzee-cli table of this version")
    body = memoryview(data)[:-DIGEST]
    if st is None or not _verified(path, st):
        import hashlib

        if hashlib.sha256(body).digest() != data[-DIGEST:]:
            raise CorruptTable(f"{path} fails its checksum (truncated or altered)")
        if st is not None:
            _remember_verified(path, st)
    (hlen,) = struct.unpack_from("<Q", data, 8)
    try:
        header = orjson.loads(body[16 : 16 + hlen])
        payload = body[16 + hlen :]
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ValueError("unknown format")
        if len(payload) != header["payload_bytes"]:
            raise ValueError("payload size")
        arrays: dict[str, memoryview] = {}
        off = 0
        for name, (dt, count) in header["arrays"].items():
            size = ITEM_BYTES[dt] * count if dt in ITEM_BYTES and isinstance(count, int) and count >= 0 else -1
            if size < 0 or off + size > len(payload):
                raise ValueError("array layout")
            arrays[name] = payload[off : off + size].cast(dt)
            off += _padded(size)
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        raise CorruptTable(f"{path} has a damaged header") from None
    if fingerprint is not None and header.get("fingerprint") != fingerprint:
        raise CorruptTable(f"{path} belongs to another rule set")
    return header, arrays
