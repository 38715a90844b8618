"""JSON in and out with orjson (never a NaN)."""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

import orjson

from ..text import UNSAFE

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


def _text(obj: Any) -> Any:
    """`obj` with every string made valid UTF-8: a file name that is not (bytes the file system holds,
    which Python keeps as lone surrogates) shows its bytes escaped, b'\\xff.json' as "\\\\xff.json"."""
    if isinstance(obj, str):
        return obj.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    if isinstance(obj, dict):
        return {_text(k): _text(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_text(v) for v in obj]
    return obj


def _slow_dumps(obj: Any, indent: bool) -> bytes:
    """What orjson refuses, written anyway: strings that are not valid UTF-8 (see _text) and whole numbers
    beyond 64 bits (a --target of 10**30 echoed back; JSON numbers have no size limit)."""
    import json

    def default(o: Any) -> Any:
        if hasattr(o, "tolist"):  # numpy arrays and scalars, as OPT_SERIALIZE_NUMPY writes them
            return o.tolist()
        raise TypeError(f"cannot write {type(o).__name__} as JSON")

    return json.dumps(_text(obj), ensure_ascii=False, allow_nan=False, default=default,
                      indent=2 if indent else None, separators=None if indent else (",", ":")).encode()


def dumps(obj: Any, *, indent: bool = False, finite: bool = False) -> bytes:
    """One JSON document as bytes (no trailing newline). `finite`: the caller has checked every float
    where it was made (analyze's gradings: hundreds of numbers a game), so it is not scanned again."""
    if not finite:
        _no_nan(obj)
    option = _OPTS | (orjson.OPT_INDENT_2 if indent else 0)
    try:
        out = orjson.dumps(obj, option=option)
    except TypeError as exc:
        if "surrogates" not in str(exc) and "64-bit" not in str(exc):
            raise
        out = _slow_dumps(obj, indent)
    if out.isascii() and b"\x7f" not in out:  # the common case
        return out
    return _ESCAPED.sub(_json_escape, out.decode()).encode()


# Characters that JSON may carry raw but a terminal would obey (DEL, C1 controls, right-to-left
# overrides and other format characters, separators): written as \\u escapes, the same data to a parser.
_ESCAPED = re.compile("[^\x00-\x7e]")


def _json_escape(m: re.Match[str]) -> str:
    ch = m.group()
    if unicodedata.category(ch) not in UNSAFE:
        return ch
    code = ord(ch)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 | (code >> 10):04x}\\u{0xDC00 | (code & 0x3FF):04x}"


def loads(data: bytes | str) -> Any:
    return orjson.loads(data)

