"""The one Typer app and the helpers every command shares (errors, rules options, output).

Commands live in sibling modules that register on `app` when imported. `yahtzee` imports a command's
module only when that command runs (COMMANDS below), and heavy imports (the rules' pydantic models,
numpy, the solver) stay inside the commands that need them, so start-up stays near Typer's own."""

from __future__ import annotations

import importlib
import itertools
import os
import sys
from collections.abc import Iterator, MutableMapping
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from typer.core import TyperGroup

from .. import __version__

if TYPE_CHECKING:
    from ..rules import RuleSet

# Every command, in help order: the module that defines it and the line `yahtzee --help` shows.
COMMANDS: dict[str, tuple[str, str]] = {
    "poker": ("poker", "Rank poker-dice hands."),
    "validate": ("validate", "Check games against their rules."),
    "replay": ("replay", "Replay games into score sheets."),
    "rules": ("rules_cmd", "List the presets or show a rule set."),
    "schema": ("schema", "Print the JSON Schema of a file format."),
    "score": ("score", "Score a roll in every box."),
    "simulate": ("simulate", "Simulate games with a strategy."),
    "solve": ("solve", "Build the optimal-strategy table."),
    "hint": ("solve", "Rank the options of a position."),
    "log": ("log_cmd", "Keep a game log entry by entry."),
    "play": ("play", "Keep score of a game at the table."),
}


class PipeClosed(Exception):
    """stdout's reader went away (`| head`): the `yahtzee` script exits 141, silently."""


def _command_name(info: Any) -> str:
    return str(info.name or info.callback.__name__.lower().replace("_", "-"))


class _Commands(MutableMapping[str, Any]):
    """The group's commands, each built from its module on first use."""

    def __init__(self, built: MutableMapping[str, Any]) -> None:
        self.built = dict(built)

    def __getitem__(self, name: str) -> Any:
        if name not in self.built and name in COMMANDS:
            importlib.import_module(f"{__package__}.{COMMANDS[name][0]}")
            for info in app.registered_commands:
                if _command_name(info) == name:
                    one = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)
                    one.registered_commands.append(info)
                    self.built[name] = typer.main.get_command(one)
            for group in app.registered_groups:  # a command group of its own (`log new|add|...`)
                if group.name == name:
                    outer = typer.Typer(add_completion=False, rich_markup_mode=None, pretty_exceptions_enable=False)
                    outer.registered_groups.append(group)
                    self.built[name] = typer.main.get_command(outer).commands[name]  # type: ignore[attr-defined]
        return self.built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self.built[name] = command

    def __delitem__(self, name: str) -> None:
        del self.built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys([*COMMANDS, *self.built]))

    def __len__(self) -> int:
        return len(dict.fromkeys([*COMMANDS, *self.built]))


class _Group(TyperGroup):
    """Typer's group, with commands loaded lazily and a closed stdout turned into PipeClosed."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.commands = _Commands(self.commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, summary) for name, (_, summary) in COMMANDS.items()])

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise PipeClosed() from None


app = typer.Typer(
    name="yahtzee",
    cls=_Group,
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
    from ..rules import RulesError, load_rules

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
