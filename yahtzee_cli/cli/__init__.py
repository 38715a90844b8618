"""Command-line interface: `app` plus one module per command group."""

from __future__ import annotations

import errno
import gc
import os
import sys
from collections.abc import Callable

from ..errors import TooBig
from ..text import escape
from .app import SAVED, SAVED_OUTPUT_FAILED, PipeClosed, app, error

__all__ = ["app", "main"]


PIPE_CLOSED = 141  # 128 + SIGPIPE: what a shell reports for a writer whose reader went away
_WRITE_ERRORS = {errno.ENOSPC: "no space left on the device", errno.EIO: "input/output error",
                 errno.EDQUOT: "disk quota exceeded", errno.EFBIG: "file too large"}


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail (and print) again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def on_stderr(write: Callable[[], None]) -> bool:
    """Run `write`, a line on stderr for whoever watches the work; False when stderr is gone (closed, its
    reader away), so the work goes on unseen."""
    try:
        write()
        sys.stderr.flush()
    except (OSError, ValueError):
        return False
    return True


def output_error(exc: OSError) -> int | None:
    """The exit status for an error writing output (None: not an output error): a closed pipe ends
    quietly with 141; a full or failing disk says so in one line and exits 1 (3 once a game file has
been saved: the entry is in it)."""
    if isinstance(exc, BrokenPipeError) or exc.errno == errno.EPIPE:
        _silence_stdout()
        return PIPE_CLOSED
    if exc.errno in _WRITE_ERRORS:
        _silence_stdout()
        where = f" {escape(str(exc.filename))}" if exc.filename else ""
        if SAVED:  # the entry is in the game file: exit 1 would say "refused, file untouched"
            error(f"cannot write output{where}: {_WRITE_ERRORS[exc.errno]}; the entry is saved in {SAVED[-1]} "
                  "(do not enter it again)")
            return SAVED_OUTPUT_FAILED
        error(f"cannot write output{where}: {_WRITE_ERRORS[exc.errno]}")
        return 1
    return None


def merge_bash_words(words: list[str], cword: int) -> tuple[list[str], int]:
    """Bash's completion words with the words it split at `=` joined again, and the index of the word
    being completed among them: bash breaks `--set joker=fr` into `--set`, `joker`, `=`, `fr`
    (COMP_WORDBREAKS), where the command means one value `joker=fr`."""
    out: list[str] = []
    glue = False
    current = None
    for i, word in enumerate(words):
        if word == "=" and len(out) > 1:
            out[-1] += word
            glue = True
        elif glue:
            out[-1] += word
            glue = False
        else:
            out.append(word)
        if i == cword:
            current = len(out) - 1
    return out, current if current is not None else len(out) + cword - len(words)


def _bash_completion_words() -> str:
    """Bash asks for completions with its words in COMP_WORDS, one a line, and the current one's index
    in COMP_CWORD: merged at `=` (merge_bash_words) before the completion reads them. Bash replaces
    only the text after the current word's last `=`: what each completion must lose in front (the
    completion is of the word as the command sees it: after `--option=`, its value)."""
    words = os.environ.get("COMP_WORDS")
    if os.environ.get("_YAHTZEE_COMPLETE") != "complete_bash" or words is None:
        return ""
    try:
        cword = int(os.environ.get("COMP_CWORD", ""))
    except ValueError:
        return ""
    merged, cword = merge_bash_words(words.split("\n"), cword)
    os.environ["COMP_WORDS"] = "\n".join(merged)
    os.environ["COMP_CWORD"] = str(cword)
    current = merged[cword] if 0 <= cword < len(merged) else ""
    if current.startswith("-"):
        current = current.partition("=")[2]
    head, eq, _ = current.rpartition("=")
    return head + eq


def _complete_bash(head: str) -> int:
    """Bash's completion, each completion without `head` (see _bash_completion_words)."""
    import io
    from contextlib import redirect_stdout

    buffer = io.StringIO()
    try:
        with redirect_stdout(buffer):
            code = _run()
    except SystemExit as done:  # how the completion ends
        code = done.code if isinstance(done.code, int) else 0
    lines = [line.removeprefix(head) for line in buffer.getvalue().splitlines()]
    sys.stdout.write("\n".join(lines) + ("\n" if lines else ""))
    return code


def main() -> None:
    """The `yahtzee` script: Typer's own usage errors become one line on stderr too, and so do
    errors writing the output (a full disk, a closed pipe)."""
    # pydantic would scan every installed distribution for plugins on first use: the script has none
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    head = _bash_completion_words()
    try:
        code = _complete_bash(head) if head else _run()
        sys.stdout.flush()  # inside the try: a full disk may only show at the last flush
    except PipeClosed:  # raised by the command group for a BrokenPipeError, before Typer makes it exit 1
        _silence_stdout()
        sys.exit(PIPE_CLOSED)
    except OSError as exc:
        status = output_error(exc)
        if status is None:
            raise
        sys.exit(status)
    # The interpreter's last collection would tear down numba's and LLVM's objects one by one (about
    # 0.4 s after a run that compiled kernels, and some after any that loaded them): the output is
    # written, so they are left to the process's exit instead.
    gc.freeze()
    sys.exit(code)


def _run() -> int:
    """The app (whose group words usage errors and Ctrl-C itself, in-process as in the script)."""
    try:
        code = app(prog_name="yahtzee", standalone_mode=False)
    except TooBig as exc:  # rules a command cannot hold in memory (commands without their own message)
        error(str(exc))
        return 1
    return code if isinstance(code, int) else 0
