"""JSON in and out with orjson (never a NaN)."""

from __future__ import annotations

import math
from typing import Any

import orjson

_OPTS = orjson.OPT_SERIALIZE_NUMPY | orjson.OPT_NON_STR_KEYS


def _no_nan(obj: Any) -> Any:
    """orjson writes NaN as null without a word: refuse it instead of emitting a silent null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        raise ValueError("refusing to write a non-finite number to JSON")
    if isinstance(obj, dict):
        for v in obj.values():
            _no_nan(v)
    elif isinstance(obj, list | tuple):
        for v in obj:
            _no_nan(v)
    return obj


def dumps(obj: Any, *, indent: bool = False) -> bytes:
    """One JSON document as bytes (no trailing newline)."""
    _no_nan(obj)
    return orjson.dumps(obj, option=_OPTS | (orjson.OPT_INDENT_2 if indent else 0))


def loads(data: bytes | str) -> Any:
    return orjson.loads(data)

