"""A lock taken between `cache clean`'s listing and its removal stays: clean unlinks a lock only while
it holds it itself (the listing already leaves out the locks held when it looks, so only this race
reaches the check)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from yahtzee_cli.store import listing as cache


def test_a_lock_taken_after_the_listing_is_not_removed(tmp_path: Path) -> None:
    lock = tmp_path / "exact-56d190f5438625ea.tbl.lock"
    lock.write_bytes(b"")
    fd = os.open(lock, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # a build starts (another open file of the same lock)
        assert cache._unlink_lock(lock) is False
        assert lock.exists()
    finally:
        os.close(fd)
    assert cache._unlink_lock(lock) is True  # once the build has let go
    assert not lock.exists()
