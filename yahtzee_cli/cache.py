"""The strategy-table cache: one file per rule set, keyed by `RuleSet.fingerprint`.

Directory: $YAHTZEE_CACHE_DIR, else the platform's user cache dir (platformdirs). Writes are atomic
(a temporary file in the same directory, then os.replace), and every file carries the SHA-256 of its
payload, so a truncated or corrupt file is detected (CorruptTable) and never used.

File layout (no numpy needed to read it, so `hint` starts fast):
  8 bytes  magic b"YZTBL01\\n"
  8 bytes  header length h, little-endian
  h bytes  header: JSON (orjson), space-padded to a multiple of 8; holds "sha256" and "payload_bytes"
  payload  the arrays the header lists under "arrays" ({name: [dtype, count]}) back to back, 8-byte items
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import orjson

MAGIC = b"YZTBL01\n"
FORMAT = 1


class CorruptTable(ValueError):
    """A cached table that is truncated, altered or not for this rule set."""


def cache_dir() -> Path:
    env = os.environ.get("YAHTZEE_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("yahtzee-cli"))


def table_path(fingerprint: str, kind: str = "exact") -> Path:
    return cache_dir() / f"{kind}-{fingerprint}.tbl"


def write(path: Path, header: Mapping[str, Any], arrays: Mapping[str, tuple[str, bytes]]) -> None:
    """Atomically write a table: `arrays` maps names to (dtype "q" int64 | "d" float64, raw bytes)."""
    payload = b"".join(raw for _, raw in arrays.values())
    head = dict(header)
    head["format"] = FORMAT
    head["arrays"] = {name: [dt, len(raw) // 8] for name, (dt, raw) in arrays.items()}
    head["payload_bytes"] = len(payload)
    head["sha256"] = hashlib.sha256(payload).hexdigest()
    text = orjson.dumps(head)
    text += b" " * (-len(text) % 8)
    write_atomic(path, [MAGIC, struct.pack("<Q", len(text)), text, payload])


def write_atomic(path: Path, chunks: Sequence[bytes]) -> None:
    """Write a file so that a crash leaves either the old file or the new one, never a part: a
    temporary file in the same directory, flushed to disk, then os.replace (and the directory synced)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            for chunk in chunks:
                fh.write(chunk)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # the rename itself survives a power cut only once the directory is on disk
        dfd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def read(path: Path, fingerprint: str | None = None) -> tuple[dict[str, Any], dict[str, memoryview]]:
    """The header and the arrays (memoryviews cast to 'q' or 'd') of a table file.

    FileNotFoundError when there is none; CorruptTable when it is damaged or for another rule set."""
    data = path.read_bytes()
    if len(data) < 16 or data[:8] != MAGIC:
        raise CorruptTable(f"{path} is not a yahtzee-cli table")
    (hlen,) = struct.unpack_from("<Q", data, 8)
    if 16 + hlen > len(data):
        raise CorruptTable(f"{path} is truncated")
    try:
        header = orjson.loads(data[16 : 16 + hlen])
    except orjson.JSONDecodeError:
        raise CorruptTable(f"{path} has a damaged header") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise CorruptTable(f"{path} has an unknown format")
    payload = memoryview(data)[16 + hlen :]
    if len(payload) != header.get("payload_bytes"):
        raise CorruptTable(f"{path} is truncated ({len(payload)} of {header.get('payload_bytes')} bytes)")
    if hashlib.sha256(payload).hexdigest() != header.get("sha256"):
        raise CorruptTable(f"{path} fails its checksum")
    if fingerprint is not None and header.get("fingerprint") != fingerprint:
        raise CorruptTable(f"{path} belongs to another rule set")
    arrays: dict[str, memoryview] = {}
    off = 0
    for name, (dt, count) in header["arrays"].items():
        arrays[name] = payload[off : off + 8 * count].cast(dt)
        off += 8 * count
    return header, arrays
