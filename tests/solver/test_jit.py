"""The compile notes: a command says it is compiling exactly when the specialisation it will call has no
machine code yet (in this process or the cache); and a kernel is compiled by one process at a time."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numba
import numpy as np
from numba.core import cgutils
from numba.extending import intrinsic

from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact, jit, play_kernel
from yahtzee_cli.solver import value_to_go as V


def test_a_kernel_is_compiled_per_specialisation() -> None:
    kernel = numba.njit(lambda a, log: a[0] + (0 if log is None else log[0]))  # in memory: no cache
    ints, floats = (np.zeros(2, np.int64),), (np.zeros(2),)
    assert not jit.is_compiled(kernel) and not jit.is_compiled(kernel, (*ints, None))
    kernel(*ints, None)
    assert jit.is_compiled(kernel) and jit.is_compiled(kernel, (*ints, None))
    assert not jit.is_compiled(kernel, (*floats, None))  # another specialisation compiles anew
    assert not jit.is_compiled(kernel, (*ints, ints[0]))
    said: list[str] = []
    jit.note_compile([kernel], "the kernel", said.append, [(*ints, None)])
    assert said == []
    jit.note_compile([kernel, kernel], "the kernel", said.append, [(*ints, None), (*floats, None)])
    assert len(said) == 1 and said[0].startswith("compiling the kernel")


def test_recording_games_is_a_specialisation_of_its_own() -> None:
    rules = R.preset("yahtzee")
    fut = V.greedy(rules)
    plain, recording = exact.play_args(rules, fut, False), exact.play_args(rules, fut, True)
    k: Any = play_kernel.play_games
    assert tuple(map(k.typeof_pyval, plain)) != tuple(map(k.typeof_pyval, recording))
    assert plain[7] is None and recording[7] is not None  # the game records: None prunes the recording


KERNEL_MODULE = '''
import sys
from yahtzee_cli.solver import jit

@jit.njit()
def twice(x):
    return 2 * x

if __name__ == "__main__":
    sys.stdout.write(str(jit.compile_lock_path(twice.py_func)) + "\\n")
    sys.stdout.flush()
    sys.stdin.readline()  # the test says when to compile
    sys.stdout.write(str(twice(21)) + "\\n")
'''


def test_a_kernel_another_process_is_compiling_is_waited_for(tmp_path: Path) -> None:
    """Two processes needing the same kernel compiled: the second waits for the first's compile (the
    lock compile_lock_path names, held here as a compiling process would hold it), then goes on."""
    import subprocess
    import sys
    import time

    from yahtzee_cli.store import tablefile

    (tmp_path / "kernel_mod.py").write_text(KERNEL_MODULE)
    proc = subprocess.Popen([sys.executable, "-m", "kernel_mod"], cwd=tmp_path, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        lock = Path(proc.stdout.readline().strip())
        assert lock.parent == jit.CACHE_DIR and lock.name.endswith("twice-5")
        with tablefile.building(lock, "", None) as waited:
            assert not waited
            proc.stdin.write("go\n")
            proc.stdin.flush()
            time.sleep(1.5)
            assert proc.poll() is None  # still waiting for the lock
        out, _ = proc.communicate(timeout=60)
        assert out.strip() == "42" and proc.returncode == 0
    finally:
        proc.kill()


def test_every_compile_of_a_package_kernel_holds_its_lock(monkeypatch: Any) -> None:
    """The lock is taken around numba's compile (also when another kernel's compile calls it), once
    per new signature, and not again for a signature already compiled."""
    from yahtzee_cli.store import tablefile

    taken: list[Path] = []
    real = tablefile.building

    def building(path: Path, what: str, say: Any = None) -> Any:
        taken.append(path)
        return real(path, what, say)

    monkeypatch.setattr(tablefile, "building", building)

    @jit.njit()
    def inner(x: Any) -> Any:
        return x + 1

    @jit.njit()
    def outer(x: Any) -> Any:
        return inner(x) * 2

    locks = {jit.compile_lock_path(outer.py_func), jit.compile_lock_path(inner.py_func)}
    assert outer(1) == 4 and set(taken) == locks
    first = len(taken)
    assert outer(2) == 6 and len(taken) == first  # compiled: no lock
    assert outer(1.5) == 5.0 and set(taken[first:]) == locks  # a float signature: both compiled anew


COPY_THEN_ORIGINAL = """
import sys
import numpy as np
from numba import types
from yahtzee_cli.solver import compiled, jit
make = jit.inner_copy if sys.argv[1] == "copy" else lambda k: jit.njit(**jit.INNER)(k.py_func)
a = types.Array(types.int64, 1, "C")
make(compiled.roll_dice).compile((a, a, types.int64, types.uint64))  # cached first, without an entry from Python
dice, kept = np.zeros(5, np.int64), np.array([2, 4, 0, 0, 0], np.int64)
compiled.roll_dice(dice, kept, 2, np.uint64(7))  # then the original, called from Python
print(dice[:2].tolist())
"""


def test_an_inner_copy_of_a_kernel_never_serves_the_original(tmp_path: Path) -> None:
    """numba's cache knows a function by its code and signature, not by its options: an INNER copy
    sharing the original's cache file made the original, called from Python after the copy was
    cached, load code without a Python entry point and crash. jit.inner_copy caches apart."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["YAHTZEE_CACHE_DIR"] = str(tmp_path)
    res = subprocess.run([sys.executable, "-c", COPY_THEN_ORIGINAL, "copy"], env=env, capture_output=True, text=True)
    assert res.returncode == 0 and res.stdout.strip() == "[2, 4]", res.stderr[-500:]


NO_COLLECTION = """
import gc
import numpy as np
from numba.core import event
from yahtzee_cli.solver import compiled
depth, during, enabled = [0], [], []
class Compiles(event.Listener):
    def on_start(self, ev):
        depth[0] += 1
        enabled.append(gc.isenabled())
    def on_end(self, ev):
        depth[0] -= 1
event.register("numba:compile", Compiles())
gc.callbacks.append(lambda phase, info: during.append(1) if phase == "start" and depth[0] else None)
compiled.roll_of_dice(np.array([1, 2, 3, 4, 5]), np.zeros(6, np.int64), np.zeros(7**6, np.int64), np.zeros(1, np.int64))
print(len(during), any(enabled), len(enabled) > 0, gc.isenabled())
"""


def test_the_garbage_collector_stays_out_of_a_compile(tmp_path: Path) -> None:
    """A kernel's compile (numba makes objects by the hundred thousand) runs without the cyclic garbage
    collector, which is on again after it."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["YAHTZEE_CACHE_DIR"] = str(tmp_path)
    res = subprocess.run([sys.executable, "-c", NO_COLLECTION], env=env, capture_output=True, text=True, check=True)
    assert res.stdout.split() == ["0", "False", "True", "True"]  # none during it, no collector on, on after


def _is_counted(typingctx: Any, arr: Any) -> Any:
    """Whether the array has a reference count (a meminfo) in compiled code."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        ary = context.make_array(arr)(context, builder, value=args[0])
        return builder.not_(cgutils.is_null(builder, ary.meminfo))

    return numba.types.boolean(arr), codegen


_counted: Any = intrinsic(_is_counted)


class _Bundle(NamedTuple):
    a: Any
    n: int
    inner: Any


def test_a_borrowed_bundle_is_the_same_data_without_reference_counts() -> None:
    @numba.njit
    def write_through(bundle: Any) -> tuple[bool, bool, bool, bool, int]:
        b = jit.borrow(bundle)
        b.a[0] = 7  # through the bundle's first array
        b.inner[0][1] = 8  # and through one in a nested tuple
        return (_counted(bundle.a), _counted(b.a), _counted(b.inner[0]), b.inner[1] is None, b.n)

    a, c = np.zeros(2, np.int64), np.zeros(3)
    bundle = _Bundle(a, 5, (c, None))
    assert write_through(bundle) == (True, False, False, True, 5)
    assert a[0] == 7 and c[1] == 8
    assert numba.njit(lambda x: _counted(jit.borrow(x)))(a) is False


def test_every_package_kernel_says_whether_it_counts_references() -> None:
    """numba lets a kernel that does not say inherit its caller's reference counting (the play kernels and
    the helpers compile without it), and its cache does not tell the two apart: a helper compiled first
    for an uncounted caller would then serve counted ones its uncounted code. So every kernel says."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import yahtzee_cli

    kernels = {}
    for mod in pkgutil.walk_packages(yahtzee_cli.__path__, "yahtzee_cli."):
        if ".cli" in mod.name or mod.name.endswith("__main__"):
            continue
        for obj in vars(importlib.import_module(mod.name)).values():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__.startswith("yahtzee_cli"):
                kernels[f"{obj.py_func.__module__}.{obj.py_func.__qualname__}"] = obj.targetoptions
    assert len(kernels) > 40
    silent = sorted(k for k, opts in kernels.items() if "_nrt" not in opts)
    assert silent == []
    uncounted = {k for k, opts in kernels.items() if opts["_nrt"] is False}
    assert {"yahtzee_cli.solver.play_kernel.play_games", "yahtzee_cli.solver.within_turn.final_values"} <= uncounted
