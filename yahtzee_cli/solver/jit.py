"""numba for the package's compiled kernels: `njit` here is numba's, with its on-disk cache kept in
the user's cache directory (cache.cache_dir() / "numba", next to the strategy tables), never inside
the installed package.

numba's default keeps compiled code in the `__pycache__` folder beside the source: in site-packages
that folder survives `pip uninstall` (pip removes only the files it installed) and then shadows a
later install as an empty namespace package. A locator of our own sends the package's kernels to the
user cache instead; other code's numba functions are left alone. NUMBA_CACHE_DIR, when set, still
wins (numba's own knob). When no cache directory can be written the kernels compile in memory.

A kernel's cache is also stale when a function it inlines changes (rules/engine.py's int-only functions,
rng.py, compiled.py): the locator's source stamp covers the package's core modules, not only the
kernel's own file.
"""

from __future__ import annotations

import gc
import hashlib
import os
import tempfile
import types
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import numba
from numba.core import caching
from numba.core import types as nbtypes
from numba.extending import intrinsic

from ..store import tablefile as table_cache

_PACKAGE = Path(__file__).resolve().parents[1]  # yahtzee_cli: kernels live in solver/ and play/
F = TypeVar("F", bound=Callable[..., Any])


def numba_cache_dir() -> Path | None:
    """Where the kernels' compiled code is cached (None: nowhere writable, compile in memory)."""
    config: Any = numba.config
    where = Path(config.CACHE_DIR) if config.CACHE_DIR else table_cache.cache_dir() / "numba"
    try:
        where.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=where).close()
    except OSError:
        return None
    return where


@cache
def _stamp() -> bytes:
    """The package's core source (every module a kernel could inline; not the CLI), so an edited rule
    is never served from a stale compiled kernel."""
    h = hashlib.sha256()
    for path in sorted(_PACKAGE.rglob("*.py")):
        if _PACKAGE / "cli" not in path.parents:
            h.update(path.read_bytes())
    return h.digest()


class _PackageCacheLocator(caching._CacheLocator):
    """The user cache directory for functions defined in this package."""

    def __init__(self, py_func: Any, py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno

    def get_cache_path(self) -> str:
        return str(CACHE_DIR)

    def get_source_stamp(self) -> Any:
        return _stamp()

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> _PackageCacheLocator | None:
        if CACHE_DIR is None or _PACKAGE not in Path(py_file).resolve().parents:
            return None
        return cls(py_func, py_file)


def _wide_vectors() -> None:
    """On a CPU with AVX-512, let LLVM use its 512-bit registers: its tuning for these CPUs keeps loops
    to 256 bits, and the saved-rolls build's loops over rolls ran up to 1.25 times as fast with 8
    doubles a register (benchmarks/bench_saved_build.py). Only the vector width changes, never the order
    of a sum (no fastmath), so every value is the same to the bit.

    Set as numba's own knob, NUMBA_CPU_FEATURES, in the environment as well as in numba's config: numba
    reads its config again from the environment when a variable of its own changes, and the processes
    this one starts (a compile aside, workers) compile the same code, for the same cache entries. When
    the user has set it, theirs stands; a codegen already made is left as it is."""
    config: Any = numba.config
    if config.CPU_FEATURES is not None or os.environ.get("NUMBA_CPU_FEATURES"):
        return
    try:
        import llvmlite.binding as ll  # type: ignore[import-untyped]

        features = ll.get_host_cpu_features()
    except (ImportError, RuntimeError):  # (no feature map on this platform: numba's defaults)
        return
    if features.get("avx512f"):
        config.CPU_FEATURES = os.environ["NUMBA_CPU_FEATURES"] = features.flatten() + ",-prefer-256-bit"


_wide_vectors()
CACHE_DIR = numba_cache_dir()
_impl: Any = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl", None)
if CACHE_DIR is None:
    pass
elif isinstance(getattr(_impl, "_locator_classes", None), list):
    if _PackageCacheLocator not in _impl._locator_classes:
        _impl._locator_classes.insert(0, _PackageCacheLocator)
else:  # a numba without the locator list: its own knob, for every function in this process
    numba.config.CACHE_DIR = str(CACHE_DIR)  # type: ignore[attr-defined]


# For helpers called only from compiled code: no entry points from Python (nor C) to compile for them,
# which is a good part of a small function's compile time; and no reference counting (numba's `_nrt`
# off): a helper allocates nothing and returns no array, and the arrays it is handed are its caller's to
# keep alive, so the counting did nothing but double its IR (column_final's 1.73 MB against 0.54 MB) and
# with it the compile.
INNER: dict[str, Any] = {"cache": True, "nogil": True, "no_cpython_wrapper": True, "no_cfunc_wrapper": True,
                         "_nrt": False}
# For kernels called from Python that allocate nothing (their callers hand them every array): no C
# entry point, no reference counting. play_games' IR is a quarter of the size without the counting
# (1.5 MB against 5.7 MB): a first `simulate` compiles about 1 s faster.
KERNEL: dict[str, Any] = {"cache": True, "nogil": True, "no_cfunc_wrapper": True, "_nrt": False}


def _uncounted(context: Any, builder: Any, ty: Any, value: Any) -> Any:
    """value (of numba type ty) with every array in it, through nested tuples, without its meminfo."""
    if isinstance(ty, nbtypes.Array):
        ary = context.make_array(ty)(context, builder, value=value)
        ary.meminfo = ary.meminfo.type(None)  # a null pointer: numba skips a null meminfo's counting
        return ary._getvalue()
    if isinstance(ty, nbtypes.BaseTuple):
        members: Any = ty  # (numba's tuple types are not typed as iterables)
        for i, member in enumerate(members):
            inner = _uncounted(context, builder, member, builder.extract_value(value, i))
            value = builder.insert_value(value, inner, i)
    return value


def _borrow(typingctx: Any, value: Any) -> Any:
    """borrow(value), in a kernel: `value` (an array, or a tuple or bundle of them such as RuleArrays) with its arrays
    uncounted: the same data and type, no reference count. Each copy of a counted array, as when it is
    passed into an inlined helper, costs an atomic increment and decrement that numba cannot drop when
    a loop lies between them: a turn passing the rule arrays and scratch into play_turn paid that for
    some forty arrays, about half of `simulate`'s time. The kernel's own arguments keep the arrays
    alive for the call; a borrowed array must never leave the kernel (returned or stored)."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return _uncounted(context, builder, value, args[0])

    return value(value), codegen


borrow: Any = intrinsic(_borrow)


def inner_copy(kernel: Any) -> Any:
    """`kernel`'s function compiled as INNER, for compiled callers only, with a cache file of its own:
    numba's cache knows a function by its code and signature, not by its options, so a copy sharing the
    original's file would later serve the original, called from Python, code without a Python entry
    point (a crash)."""
    fn = kernel.py_func
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    copy.__qualname__ = f"{fn.__qualname__}_inner"
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    return njit(**INNER)(copy)


def njit(**options: Any) -> Callable[[F], F]:
    """numba.njit(**options), cached (in the user cache directory) unless nothing there can be written,
    each compile under a lock shared by every process (compile_lock_path)."""
    options["cache"] = options.get("cache", True) and CACHE_DIR is not None
    # numba lets a function that does not say inherit its caller's reference counting, and its cache
    # does not tell the two apart: every kernel says, so its cached code never depends on who came first
    options.setdefault("_nrt", True)
    compile_: Callable[[F], F] = numba.njit(**options)
    if not options["cache"]:
        return compile_

    def decorate(fn: F) -> F:
        dispatcher = compile_(fn)
        _lock_compiles(dispatcher)
        return dispatcher

    return decorate


def compile_lock_path(py_func: Any) -> Path:
    """The lock a kernel's compile holds: two processes that need the same kernel compiled (two
    commands started together, a test run's workers) compile it once; the other waits, then loads
    it from the cache."""
    assert CACHE_DIR is not None
    return CACHE_DIR / f"{py_func.__module__}.{py_func.__qualname__}-{py_func.__code__.co_firstlineno}"


_held: set[Path] = set()  # locks this process holds (numba compiles one function at a time per process)


def _lock_compiles(dispatcher: Any) -> None:
    """Wrap the dispatcher's compile (which numba calls for every new signature, from Python or from
    another kernel's compile, and which loads from the cache when it can) in compile_lock_path's lock.
    Python's cyclic garbage collector is off while a compile runs: numba's compiler makes objects by
    the hundred thousand, and the collector went over them again and again (a first simulate spent
    about 0.35 s of its 4 in it, a first `solve --rules yatzy` 1.4 s of 13.7). The compile's garbage
    is collected after it, so the peak memory of a compile grows a little (that solve: 462 MB
    against 350)."""
    plain = dispatcher.compile
    path = compile_lock_path(dispatcher.py_func)

    def compile(sig: Any) -> Any:
        if path in _held:  # this process is compiling it already (a kernel that calls itself)
            return plain(sig)
        collecting = gc.isenabled()
        gc.disable()  # (see above)
        try:
            with table_cache.building(path, "", None):
                _held.add(path)
                try:
                    return plain(sig)
                finally:
                    _held.discard(path)
        finally:
            if collecting:  # the outermost compile of a nest
                gc.enable()

    dispatcher.compile = compile



def is_compiled(kernel: Any, args: tuple[Any, ...] | None = None) -> bool:
    """Whether `kernel` has machine code already, in this process or in the cache (its first call is
    quick): for the arguments `args` when given (each specialisation is compiled apart), else for any."""
    sig = None if args is None else tuple(kernel.typeof_pyval(a) for a in args)
    if any(sig is None or key == sig for key in getattr(kernel, "overloads", {})):
        return True
    return any(sig is None or key == sig for key in cached_signatures(kernel))


def cached_signatures(kernel: Any) -> list[Any]:
    """The signatures `kernel` has machine code for in its cache (none when it has no cache, or with a
    numba that keeps it otherwise: a compile is then assumed)."""
    try:
        index = kernel._cache._cache_file._load_index()
    except Exception:
        return []
    return [key[0] for key in index]


def note_compile(kernels: Sequence[Any], what: str, say: Callable[[str], None] | None,
                 args: Sequence[tuple[Any, ...] | None] | None = None) -> None:
    """Say in one line that `what` is compiled now when any of `kernels` has no machine code yet
    (compiling takes seconds, so a user waiting for output knows why). args[i]: the arguments
    kernels[i] will be called with (None: any specialisation will do)."""
    if say is None or all(is_compiled(k, a) for k, a in zip(kernels, args or [None] * len(kernels), strict=True)):
        return
    where = f"once; cached in {CACHE_DIR}" if CACHE_DIR is not None else "nothing can be cached"
    say(f"compiling {what} ({where})")
