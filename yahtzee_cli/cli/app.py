"""The one Typer app and the helpers every command shares (errors, rules options, output).

Commands live in sibling modules that import `app` from here; heavy imports (numpy, the solver)
stay inside the commands that need them so `yahtzee score` starts fast."""

from __future__ import annotations

import itertools
import os
import sys
from collections.abc import Iterator
from typing import Annotated, Any, NoReturn, TypeVar

import typer

from .. import __version__
from ..rules import RulesError, RuleSet, load_rules

app = typer.Typer(
    name="yahtzee",
    help="Score, validate, replay, simulate and solve Yahtzee, Yatzy, Kniffel, Maxi and Triple games.",
    no_args_is_help=True,
    add_completion=True,  # also registers the completion classes behind _YAHTZEE_COMPLETE=source_bash
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

T = TypeVar("T")

USAGE = 2  # exit status for a usage error
PROBLEM = 1  # exit status for a problem found in the input


def _version(value: bool) -> None:
    if value:
        typer.echo(f"yahtzee-cli {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Score, validate, replay, simulate and solve Yahtzee-family dice games."""


def fail(message: str, code: int = USAGE) -> NoReturn:
    """One line on stderr naming the problem, then exit with `code` (2 usage, 1 bad input). Control and
    right-to-left characters from the input are shown escaped, never sent to the terminal."""
    from ..text import escape

    sys.stderr.write(f"yahtzee: error: {escape(message)}\n")
    raise typer.Exit(code)


def warn(message: str) -> None:
    from ..text import escape

    sys.stderr.write(f"yahtzee: {escape(message)}\n")


def _complete_presets(incomplete: str) -> list[str]:
    from ..rules import preset_names

    return [name for name in preset_names() if name.startswith(incomplete)]


# Shared option types: every command that takes rules spells them the same way.
RulesOpt = Annotated[
    str | None,
    typer.Option(
        "--rules",
        "-r",
        help="Preset name (yahtzee, kniffel, yatzy, forced-yatzy, maxi-yatzy, triple-yahtzee, "
        "triple-yatzy; yacht and generala play the yahtzee rules) or a rules JSON file.",
        show_default=False,
        autocompletion=_complete_presets,
    ),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set", "-s", help="House-rule override key=value (repeatable), e.g. joker=free or "
        "column_fill=down,up,free.", show_default=False
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON output.")]


def get_rules(rules: str | None, sets: list[str] | None) -> RuleSet:
    try:
        return load_rules(rules, sets or ())
    except RulesError as exc:
        fail(str(exc))


def write_json(obj: Any, *, indent: bool = False) -> None:
    from ..jsonio import dumps

    sys.stdout.buffer.write(dumps(obj, indent=indent) + b"\n")
    sys.stdout.buffer.flush()


def color_enabled() -> bool:
    return "NO_COLOR" not in os.environ


def console(stderr: bool = False) -> Any:
    """A rich Console for people; honours NO_COLOR (rich does) and never colours pipes."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, no_color=not color_enabled())


def peek_batch(docs: Iterator[T]) -> tuple[bool, Iterator[T]]:
    """Whether a stream of documents is a batch (two or more), and the whole stream still to read:
    a single game is shown in full, a batch one line per game."""
    ahead = list(itertools.islice(docs, 2))
    return len(ahead) > 1, itertools.chain(ahead, docs)


def progress_wanted() -> bool:
    """Progress bars only when stderr is a terminal."""
    return sys.stderr.isatty()
