"""One way to keep what the solver makes: an `Artifact` binds a registered kind (kinds.py) to the rule
set and key it is for and to how its value is made and read, and `get` returns it from the cache or
builds and stores it.

`get` reads the file; a missing one is built quietly, a damaged one (or one of another version) with
a note; a kind that is `locked` is built under the file's lock (tablefile.building), so processes
that want the same artifact build it once and the others read it after waiting; a value that cannot
be stored is still returned, with a note. Any other failure of the cache directory is a CacheError
that names it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from ..errors import CacheError, CorruptTable, StaleStrategy
from . import tablefile
from .kinds import Kind

T = TypeVar("T")
Say = Callable[[str], None] | None
Header = Mapping[str, Any]
Arrays = Mapping[str, Any]  # read: name -> memoryview; written: name -> (dtype, raw bytes)


@dataclass(frozen=True)
class Artifact(Generic[T]):
    """A stored artifact of `kind` for the rule set of `fingerprint` and `key` (kinds.Kind.file_name).

    `what` names it in notes (and in the note of a process waiting for its build); `decode` makes its
    value from the file's header and arrays (CorruptTable, KeyError or ValueError when they do not
    fit), `encode` the header and arrays to store (None: `build` stores it itself); `expect`: the
    header's values its reader needs besides the kind (version, theta...); `announce`: the note
    before a build, when not the kind's voice's; `load`, for an artifact that is not a table file
    (then `decode` is None): its value read from its own files, None when there is none."""

    kind: Kind
    fingerprint: str
    what: str
    decode: Callable[[dict[str, Any], dict[str, memoryview]], T] | None
    build: Callable[[], T]
    encode: Callable[[T], tuple[Header, Arrays]] | None = None
    key: str = ""
    expect: Mapping[str, Any] = field(default_factory=dict)
    announce: Callable[[], str] | None = None
    load: Callable[[], T | None] | None = None

    @property
    def path(self) -> Path:
        return self.kind.path(tablefile.cache_dir(), self.fingerprint, self.key)


def read(art: Artifact[T]) -> T:
    """The stored value: FileNotFoundError when there is none, CorruptTable when the file is damaged,
    for another rule set, of another kind or version (StaleStrategy: of play no longer used)."""
    if art.load is not None:
        got = art.load()
        if got is None:
            raise FileNotFoundError(art.path)
        return got
    assert art.decode is not None
    path = art.path
    header, arrays = tablefile.read(path, art.fingerprint)
    if any(header.get(name) != value for name, value in {"kind": art.kind.name, **art.expect}.items()):
        raise CorruptTable(art.kind.outdated.format(path=path))
    return art.decode(header, arrays)


def write(art: Artifact[T], value: T) -> None:
    """Store the value (atomically; OSError when the cache directory cannot take it, the value then
    kept in memory for this process: tablefile.write)."""
    if art.encode is not None:
        header, arrays = art.encode(value)
        tablefile.write(art.path, header, arrays)
        if art.kind.keep:
            _bound(art.kind)


def _bound(kind: Kind) -> None:
    """Remove the least recently written artifacts of `kind` beyond the most it keeps (kind.keep), each
    with its other files (kind.parts)."""
    found = []
    for path in tablefile.cache_dir().glob(f"{kind.prefix}*-*{kind.suffix}"):
        try:
            found.append((path.stat().st_mtime_ns, path.name, path))
        except OSError:  # removed meanwhile
            pass
    found.sort()
    for _, _, path in found[: max(0, len(found) - kind.keep)]:
        for each in (path, *(path.with_suffix(part) for part in kind.parts)):
            tablefile.forget(each)


def get(art: Artifact[T], say: Say = None, rebuild: bool = False) -> tuple[T, bool]:
    """The artifact from the cache, built and stored when missing, damaged or outdated (always when
    `rebuild`); (value, built). `say` receives the notes for stderr. CacheError when the cache
    directory cannot be used."""
    with using_cache():
        return _get(art, say, rebuild)


@contextmanager
def using_cache() -> Iterator[None]:
    """Work that reads or writes the cache: an OSError from it (not writable, full, an I/O error) is
    CacheError, naming the directory."""
    try:
        yield
    except OSError as exc:
        raise CacheError(unusable(exc)) from exc


def _get(art: Artifact[T], say: Say, rebuild: bool) -> tuple[T, bool]:
    if not rebuild:
        got = cached(art, say)
        if got is not None:
            return got, False
    with _building(art, say) as waited:
        if waited and not rebuild:  # the process waited for has likely stored it
            got = cached(art, None)
            if got is not None:
                return got, False
        if rebuild and art.encode is None:  # a build that stores itself goes on from its files: not a rebuild's
            for path in art.kind.paths(tablefile.cache_dir(), art.fingerprint, art.key):
                path.unlink(missing_ok=True)
        if say is not None:
            say(art.announce() if art.announce is not None else
                f"computing the {art.what} (once; cached in {tablefile.cache_dir()})")
        value = art.build()
        try:
            write(art, value)
        except OSError as exc:
            if say is not None:
                say(nothing_cached(exc) if art.kind.voice == "strategy" else
                    f"warning: cannot store the {art.what} in {tablefile.cache_dir()}: {exc.strerror}")
    return value, True


def cached(art: Artifact[T], say: Say = None) -> T | None:
    """The stored value, or None: missing or unreadable (built again), damaged or outdated (with a note)."""
    try:
        return read(art)
    except OSError:  # missing, or an unreadable cache directory: build it
        return None
    except StaleStrategy as exc:
        if say is not None:
            say(str(exc))
    except (CorruptTable, KeyError, ValueError) as exc:
        if say is not None:
            say(tablefile.ignored(exc) if art.kind.voice == "strategy" else
                f"warning: damaged {art.what} ignored ({exc}); rebuilding it")
    return None


@contextmanager
def _building(art: Artifact[Any], say: Say) -> Iterator[bool]:
    if not art.kind.locked:
        yield False
        return
    with tablefile.building(art.path, art.what, say) as waited:
        yield waited


def cached_in() -> str:
    """"; cached in <directory>" for a build's note, or nothing when the directory cannot take it."""
    return f"; cached in {tablefile.cache_dir()}" if tablefile.writable() else ""


def nothing_cached(exc: OSError) -> str:
    """The one warning when a table cannot be stored: the answer stands, it is just not kept."""
    return f"warning: nothing cached ({tablefile.cache_dir()}: {exc.strerror or exc}); built again next time"


def unusable(exc: OSError) -> str:
    """The one wording of a cache directory that cannot be used (not writable, full, an I/O error)."""
    return f"cannot use the cache directory {tablefile.cache_dir()}: {exc.strerror}"
