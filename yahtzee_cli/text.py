"""Text from users and files, made safe to print: control, format (right-to-left overrides, zero-width)
and other invisible characters are shown escaped, so a name cannot rewrite the terminal or hide."""

from __future__ import annotations

import unicodedata

_UNSAFE = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def _escape_char(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape(text: str) -> str:
    """`text` with every unsafe character written as a Python-style escape (\\x1b, \\u202e)."""
    if text.isprintable():  # the common case: nothing to do (isprintable is False for Cc, Cf, Z*...)
        return text
    return "".join(_escape_char(ch) if unicodedata.category(ch) in _UNSAFE else ch for ch in text)


def quote(text: str) -> str:
    """`text` in single quotes, escaped, for messages ("got '\\x1b[2J'")."""
    return "'" + escape(text).replace("'", "\\'") + "'"
