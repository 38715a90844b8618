"""Atomic operations on int64 array cells for compiled code (numba has none on the CPU), so that the
simulator's threads can share one memo of turn decisions without a lock.

load(a, i): a[i], acquire (what was written before a release store of it is visible after).
store(a, i, v): a[i] = v, release (everything written before it is visible to an acquire load).
cas(a, i, expected, new): a[i] = new if a[i] == expected, atomically; returns the old a[i].

Each is one LLVM atomic instruction on the cell's address: on x86 a plain load, a plain store and a
`lock cmpxchg`; the orderings also keep the compiler from moving other memory accesses across them.
"""

from __future__ import annotations

from typing import Any

from numba.core import cgutils as _cgutils
from numba.core import types
from numba.extending import intrinsic

cgutils: Any = _cgutils  # (untyped)


def _cell(context: Any, builder: Any, aryty: Any, ary: Any, idx: Any, idxty: Any) -> Any:
    """The address of a[idx] (a 1-d int64 array)."""
    arr = context.make_array(aryty)(context, builder, ary)
    i = context.cast(builder, idx, idxty, types.intp)
    return cgutils.get_item_pointer(context, builder, aryty, arr, [i], wraparound=False)


def _int64_array(a: Any) -> bool:
    return isinstance(a, types.Array) and a.ndim == 1 and a.dtype == types.int64 and a.mutable


def _load(typingctx: Any, a: Any, i: Any) -> Any:
    if not (_int64_array(a) and isinstance(i, types.Integer)):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ptr = _cell(context, builder, sig.args[0], args[0], args[1], sig.args[1])
        return builder.load_atomic(ptr, "acquire", 8)

    return types.int64(a, i), codegen


def _store(typingctx: Any, a: Any, i: Any, v: Any) -> Any:
    if not (_int64_array(a) and isinstance(i, types.Integer) and isinstance(v, types.Integer)):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ptr = _cell(context, builder, sig.args[0], args[0], args[1], sig.args[1])
        val = context.cast(builder, args[2], sig.args[2], types.int64)
        builder.store_atomic(val, ptr, "release", 8)
        return context.get_dummy_value()

    return types.none(a, i, v), codegen


def _cas(typingctx: Any, a: Any, i: Any, expected: Any, new: Any) -> Any:
    if not (_int64_array(a) and all(isinstance(x, types.Integer) for x in (i, expected, new))):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ptr = _cell(context, builder, sig.args[0], args[0], args[1], sig.args[1])
        exp = context.cast(builder, args[2], sig.args[2], types.int64)
        val = context.cast(builder, args[3], sig.args[3], types.int64)
        pair = builder.cmpxchg(ptr, exp, val, "acq_rel", "acquire")
        return builder.extract_value(pair, 0)

    return types.int64(a, i, expected, new), codegen


# Called from compiled code as load(a, i), store(a, i, v) and cas(a, i, expected, new).
load: Any = intrinsic(_load)
store: Any = intrinsic(_store)
cas: Any = intrinsic(_cas)
