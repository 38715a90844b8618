"""The one way a command shows a long wait on stderr: `with waiting("computing the chances to win") as w:`.

Nothing is shown for a wait shorter than YAHTZEE_PROGRESS_AFTER seconds (2). Past that, on a
terminal a bar (rich, transient, NO_COLOR honoured); elsewhere (a pipe, a log file) a plain line
every YAHTZEE_PROGRESS_EVERY seconds (5; once the wait is long, every twelfth of it, at most a
minute: a half-hour build is not a thousand lines) with done/total
and the time left, and a last line with the time it took. Never anything on stdout; `quiet=True`
shows nothing.

The reporter is the `progress(done, total)` callback of the library (yahtzee_cli.progress): a command
passes it to a call that takes one, and everything inside the block that takes none reports to it
through the library's hook. The notes the library says while working ("building the yatzy strategy
table ...") name the stage shown; a new stage starts its own estimate of the time left."""


import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

AFTER = 2.0  # seconds of waiting before anything is shown
EVERY = 5.0  # seconds between two plain lines (at first)
LONGEST = 60.0  # ... and at most, once the wait is long
BAR = 20  # the bar's width on a terminal

# notes that start a piece of work (the others, a seed or a warning, leave the stage as it is)
_WORK = ("computing", "building", "preparing", "compiling", "fitting", "solving", "going on", "waiting", "loading")

_active: list["Waiting"] = []


def _seconds(name: str, default: float) -> float:
    try:
        value = float(os.environ.get(name, ""))
    except ValueError:
        return default
    return value if value >= 0 else default


def _duration(seconds: float) -> str:
    """A wait as people say it: 8 s, 2 min 5 s, 1 h 3 min."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s" if s < 600 else f"{round(s / 60)} min"
    return f"{s // 3600} h {s % 3600 // 60} min"


def _stage_of(message: str) -> str:
    """A note as a stage's name: its first clause ("building the yatzy strategy table (once; cached
    in ...)" -> "building the yatzy strategy table")."""
    return message.split(" (")[0].split(";")[0].strip()


class Waiting:
    """The progress of one wait (see the module's doc). Callable as progress(done, total)."""

    def __init__(self, label: str, quiet: bool = False, after: float | None = None, every: float | None = None,
                 terminal: bool | None = None) -> None:
        self.label = label
        self.before: str | None = None  # the stage that was going on when this one started
        self.unit = ""
        self.quiet = quiet
        self.after = _seconds("YAHTZEE_PROGRESS_AFTER", AFTER) if after is None else after
        self.every = _seconds("YAHTZEE_PROGRESS_EVERY", EVERY) if every is None else every
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.done = 0
        self.total: int | None = None
        self.stage_t0 = self.t0  # the stage's start, and its count then: its rate leaves earlier work out
        self.stage_done0: int | None = None
        self.lines = 0
        self.next_line = 0.0
        self.bar: Any = None
        self.task: Any = None

    # ------------------------------------------------------------------ what the work says

    def __call__(self, done: int, total: int) -> None:
        self.update(done, total)

    def update(self, done: int, total: int | None = None, label: str | None = None, unit: str | None = None) -> None:
        """`done` of `total` (None or 0: not known) of the stage `label` (unchanged when None)."""
        total = total or None
        with self.lock:
            now = time.monotonic()
            if (label is not None and label != self.label) or total != self.total or done < self.done:
                if self.total is not None and self.done >= self.total and self.before is not None:
                    self.label, self.before = self.before, None  # a stage inside another ended: the outer goes on
                self.stage_t0, self.stage_done0 = now, done  # a new stage: its own rate
                if label is not None:
                    self.label = label
            elif self.stage_done0 is None:
                self.stage_t0, self.stage_done0 = now, done
            if unit is not None:
                self.unit = unit
            self.done, self.total = done, total

    def stage(self, label: str, unit: str = "") -> None:
        """A new piece of work, of unknown size until it reports one."""
        with self.lock:
            self.before = self.label if self.label != label else self.before
            self.label, self.unit = label, unit
            self.done, self.total = 0, None
            self.stage_t0, self.stage_done0 = time.monotonic(), None

    def noted(self, message: str) -> None:
        """A note of the library's: one that starts work names the stage."""
        if message.startswith(_WORK):
            self.stage(_stage_of(message))

    # ------------------------------------------------------------------ what is shown

    def left(self) -> float | None:
        """Seconds left in the stage at its rate so far (None: not known yet)."""
        if self.total is None or self.stage_done0 is None or self.done <= self.stage_done0:
            return None
        rate = (self.done - self.stage_done0) / max(time.monotonic() - self.stage_t0, 1e-9)
        return max(self.total - self.done, 0) / rate

    def line(self) -> str:
        """The plain line of where the wait stands."""
        with self.lock:
            unit = f" {self.unit}" if self.unit else ""
            if self.total is None:  # no size known: how long it has been
                waited = _duration(time.monotonic() - self.t0)
                return f"{self.label}: {self.done:,}{unit} so far ({waited})" if self.done else \
                    f"{self.label}: {waited} so far"
            pct = 100 * min(self.done, self.total) / self.total
            left = self.left()
            eta = f"about {_duration(left)} left" if left is not None else "estimating the time left"
            return f"{self.label}: {pct:.0f}% ({self.done:,} of {self.total:,}{unit}), {eta}"

    def tick(self, now: float) -> None:
        """Called by the ticker about every TICK seconds: start or refresh what is shown."""
        waited = now - self.t0
        if self.quiet or waited < self.after:
            return
        if self.terminal:
            if self.bar is None:
                self._start_bar()
            self._update_bar()
        elif now >= self.next_line:
            self._say(self.line())
            self.next_line = now + min(max(self.every, waited / 12), max(LONGEST, self.every))

    def _say(self, text: str) -> None:
        from . import on_stderr
        from .app import note

        if on_stderr(lambda: note(text, heard=False)):
            self.lines += 1

    def _start_bar(self) -> None:
        from rich.progress import BarColumn, Progress, TextColumn

        from .styled import console

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(bar_width=BAR),
                            TextColumn("{task.fields[count]}"), TextColumn("{task.fields[waited]}"),
                            TextColumn("{task.fields[left]}"), console=console(stderr=True),
                            transient=True, redirect_stdout=False, redirect_stderr=True)
        self.task = self.bar.add_task(self.label, total=None, count="", waited="", left="")
        self.bar.start()
        self._update_bar()

    def _update_bar(self) -> None:
        with self.lock:
            unit = f" {self.unit}" if self.unit else ""
            known = self.total is not None
            count = f"{self.done:,}/{self.total:,}{unit}" if known else (f"{self.done:,}{unit}" if self.done else "")
            label, done, total = self.label, self.done, self.total
        left = self.left() if known else None
        room = self.bar.console.width - BAR - len(count) - 24  # (the times and the spaces between columns)
        if len(label) > room:  # the label gives way, so the bar keeps one line on a narrow terminal
            label = label[: max(room - 1, 8)] + "…"
        self.bar.update(self.task, description=label, completed=min(done, total or done), total=total, count=count,
                        waited=_duration(time.monotonic() - self.t0),
                        left=f"{_duration(left)} left" if left is not None else "")

    # ------------------------------------------------------------------ the wait itself

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
        if self.lines:  # a log shows when the wait ended
            self._say(f"done after {_duration(time.monotonic() - self.t0)}")
            self.lines = 0


TICK = 0.1
_shown = threading.Lock()  # the ticker's display and a wait's end never overlap
_ticker: list[threading.Thread] = []


def _tick() -> None:
    """One thread for the process while waits go on, started with the first: a wait costs no thread of
    its own (replay waits once per game), and between waits (a whole `play` session) none wakes."""
    while True:
        time.sleep(TICK)
        with _shown:
            if not _active:
                _ticker.clear()  # (under the lock a wait starts the ticker and joins _active under)
                return
            try:
                _active[-1].tick(time.monotonic())
            except Exception:  # noqa: BLE001 (showing progress must never break the work waited for)
                pass


@contextmanager
def waiting(label: str, quiet: bool = False, after: float | None = None,
            every: float | None = None) -> Iterator[Waiting]:
    """A wait shown on stderr once it passes `after` seconds (see the module's doc); the library's
    long work inside reports to it. Inside another wait, that one goes on (with this stage)."""
    from ..progress import hearing, reporting
    from .app import note

    if _active:
        outer = _active[-1]
        outer.stage(label)
        yield outer
        return
    w = Waiting(label, quiet=quiet, after=after, every=every)
    from .app import NOTE_HEARD

    if noted not in NOTE_HEARD:
        NOTE_HEARD.append(noted)
    with _shown:
        if not _ticker and not quiet:
            _ticker.append(threading.Thread(target=_tick, name="yahtzee-progress", daemon=True))
            _ticker[0].start()
        _active.append(w)
    try:
        with reporting(w), hearing(note):
            yield w
    except BaseException:
        w.lines = 0  # stopped (Ctrl-C, a closed pipe, an error): no line saying it is done
        raise
    finally:
        with _shown:
            _active.remove(w)
            w.close()


def noted(message: str) -> None:
    """A note said during a wait (app.note): it may name the stage."""
    if _active:
        _active[-1].noted(message)
