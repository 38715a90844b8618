"""`--log-out FILE`: the game logs of a simulation written as its games are played (NDJSON, one game a
line), so that a run that fails or is stopped leaves whole games, and an existing FILE is replaced only
once the run ends."""

from __future__ import annotations

import os

from ..errors import CannotWrite, MissingFile


class LogFile:
    """`--log-out FILE`: the games go to a temporary file next to FILE, renamed over it when the run
    ends (completed or interrupted), so an existing FILE is never emptied by a run that fails before
    its first game. Devices and pipes (/dev/stdout, a FIFO) are written directly. A write that fails
    (full disk, I/O error) cuts the file back to its last whole game and stops the run."""

    def __init__(self, target: str) -> None:
        """MissingFile when FILE's folder does not exist, CannotWrite when FILE cannot be written."""
        try:
            self._open(target)
        except FileNotFoundError:  # its folder is missing: worded as any file named that is missing
            raise MissingFile(os.path.dirname(target)) from None
        except OSError as exc:
            raise CannotWrite(f"cannot write {target}: {exc.strerror}") from None

    def _open(self, target: str) -> None:
        self.path = os.path.realpath(target)
        self.games = 0
        self.error: str | None = None
        self._size = 0
        regular = not os.path.exists(self.path) or os.path.isfile(self.path)
        self.tmp: str | None = None
        if regular:
            import secrets

            head, tail = os.path.split(self.path)
            self.tmp = os.path.join(head, f".{tail}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
            self.fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        else:
            self.fd = os.open(self.path, os.O_WRONLY | os.O_TRUNC)

    def write(self, chunk: bytes) -> None:
        """Write whole game lines; on a failed write keep the whole games and stop the run (KeyboardInterrupt
        is how a log sink stops a simulation)."""
        if self.error is not None:
            return
        view = memoryview(chunk)
        done = 0
        try:
            while done < len(chunk):
                done += os.write(self.fd, view[done:])
        except OSError as exc:
            whole = chunk.rfind(b"\n", 0, done) + 1  # bytes of the whole games that made it
            self.games += chunk.count(b"\n", 0, whole)
            self._size += whole
            self.error = (exc.strerror or str(exc)).lower()
            try:
                os.ftruncate(self.fd, self._size)
            except OSError:
                pass
            raise KeyboardInterrupt from None
        self.games += chunk.count(b"\n")
        self._size += len(chunk)

    def holds(self) -> str:
        """What the file holds after close(), for the error line of a run that stopped early."""
        if self.games or self.tmp is None:
            return f"holds the first {self.games:,} games, each whole"
        return "was left as it was (no game finished)"

    def close(self, keep: bool) -> None:
        """Close; put the file in place when the run produced a result (`keep`) or any game, else drop it."""
        try:
            os.close(self.fd)
        except OSError:
            pass
        if self.tmp is None:
            return
        if keep or self.games:
            try:
                os.replace(self.tmp, self.path)
                return
            except OSError as exc:
                self.error = self.error or f"cannot rename the finished log into place ({exc.strerror})"
        try:
            os.unlink(self.tmp)
        except OSError:
            pass
