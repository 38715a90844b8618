"""The one Typer app and the helpers every command shares (errors, rules options, output).

Commands live in sibling modules that register on `app` when imported. `yahtzee` imports a command's
module only when that command runs (COMMANDS below), and heavy imports (the rules' pydantic models,
numpy, the solver) stay inside the commands that need them, so start-up stays near Typer's own."""


import functools
import importlib
import inspect
import sys
from collections.abc import Callable, Iterator, MutableMapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from typer.core import TyperGroup

from .. import __version__
from ..errors import PROBLEM, USAGE, YahtzeeError
from ..formats.output import ROW_FORMATS

if TYPE_CHECKING:
    from ..formats.output import Quiet
    from ..rules.engine import RuleSet

# Every command, in help order: the module that defines it and the line `yahtzee --help` shows.
COMMANDS: dict[str, tuple[str, str]] = {
    # the everyday jobs first, then keeping score at the table, then strategy, then reference; groups last
    "score": ("score", "Score a roll in every box."),
    "validate": ("validate", "Check games against their rules."),
    "replay": ("replay", "Replay games into score sheets and standings."),
    "analyze": ("analyze", "Grade every decision of played games against optimal play."),
    "play": ("play", "Keep score of a game at the table."),
    "stats": ("stats", "Records over played games."),
    "library": ("stats", "Where played games are kept."),
    "simulate": ("simulate", "Simulate games with a strategy."),
    "hint": ("hint", "Rank the options of a position."),
    "solve": ("solve", "Build the optimal-strategy table."),
    "rules": ("rules_cmd", "List the presets or show a rule set."),
    "schema": ("schema", "Print the JSON Schema of a file format."),
    "poker": ("poker", "Rank poker-dice hands."),
    "log": ("log_cmd", "Keep a game log entry by entry."),
    "cache": ("cache_cmd", "Show or clean the cache of tables and kernels."),
}


SAVED_OUTPUT_FAILED = 3  # exit status: the entry is saved in the game file, but the output could not be written
SAVED: list[str] = []  # game files this run has saved an entry in (an output error after it is not a refusal)


def saved(path: object) -> None:
    """Note that an entry is saved in game file `path`: from now on an error writing the output exits
    SAVED_OUTPUT_FAILED, saying the entry is in the file (a script must not enter it again)."""
    SAVED.append(str(path))


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
    """Typer's group, with commands loaded lazily, a closed stdout turned into PipeClosed, and the one
    error handler every command shares: a library error (errors.YahtzeeError) that reaches it is one
    line on stderr and its exit status, never a traceback. Commands catch an error themselves only
    to add what the library cannot know (which option it came from)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.commands = _Commands(self.commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, summary) for name, (_, summary) in COMMANDS.items()])

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, windows_expand_args: bool = True, **extra: Any) -> Any:
        """Typer's main, with its usage errors (an unknown option, a value that is not a number, a
        missing argument) in the tool's one voice: `yahtzee: error: ...` on one line, exit 2."""
        try:
            code = super().main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False,
                                windows_expand_args=windows_expand_args, **extra)
        except typer.TyperException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # bare `yahtzee` or group: show the help
                exc.show()  # type: ignore[attr-defined]
                code = USAGE
            else:
                from .usage import usage_message

                error(usage_message(exc, list(sys.argv[1:] if args is None else args), COMMANDS))
                code = int(getattr(exc, "exit_code", USAGE))
        except typer.Abort:
            error("interrupted")
            code = 130
        if not standalone_mode:
            return code
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: Any) -> Any:
        SAVED.clear()  # a new run (tests run many in one process) has saved nothing yet
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise PipeClosed() from None
        except YahtzeeError as exc:
            fail(exc.worded(flag), exc.exit_status)


def flag(option: str) -> str:
    """An option of a library request as the command line spells it: rolls_left is --rolls-left."""
    return "--" + option.replace("_", "-")


app = typer.Typer(
    name="yahtzee",
    cls=_Group,
    help="Score, validate, replay, simulate and solve Yahtzee, Yatzy, Kniffel, Maxi and Triple games.",
    no_args_is_help=True,
    add_completion=True,  # also registers the completion classes behind _YAHTZEE_COMPLETE=source_bash
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

T = TypeVar("T")
F = TypeVar("F", bound=Callable[..., Any])


def _argument_type(self: Any, ctx: Any) -> str | None:
    """An argument with a metavar shows just that in help, as an option does (not `<list[str]>`)."""
    return None if self.metavar is not None else _typer_argument_type(self, ctx)


def _argument_usage(self: Any, ctx: Any) -> list[str]:
    """The usage line spells a required argument as DICE... and an optional one as [DICE]..., the
    usual Unix way, instead of {DICE}..."""
    if self.metavar is None:
        return list(_typer_argument_usage(self, ctx))
    name = self.metavar + ("..." if self.nargs != 1 else "")
    return [name if self.required else f"[{name}]"]


_typer_argument_type = typer.core.TyperArgument.display_type_rich
_typer_argument_usage = typer.core.TyperArgument.get_usage_pieces
typer.core.TyperArgument.display_type_rich = _argument_type  # type: ignore[method-assign]
typer.core.TyperArgument.get_usage_pieces = _argument_usage  # type: ignore[method-assign]


def examples(*lines: str) -> str:
    """An examples epilog for a command's help, kept line by line (\b stops the help rewrapping it)."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)


def command_group(name: str, help: str, short_help: str, *example_lines: str) -> typer.Typer:
    """A command with sub-commands (`yahtzee log new|add|...`), registered on `app`: `help` heads its
    help, `short_help` is its line in `yahtzee --help`; bare, it shows its help."""
    group = typer.Typer(name=name, help=help, no_args_is_help=True, rich_markup_mode=None)
    app.add_typer(group, name=name, short_help=short_help, epilog=examples(*example_lines))
    return group



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
    error(message)
    raise typer.Exit(code)


def error(message: str) -> None:
    """An error line on stderr for a run that goes on (one bad game of many), escaped like `fail`'s."""
    from ..text import escape

    sys.stderr.write(f"yahtzee: error: {escape(message)}\n")


@contextmanager
def file_option(option: str) -> Iterator[None]:
    """Reading the game file an option names (--sheet, --log): a missing file is worded as every command
    words one, a bad --set is --set's usage error, anything else wrong with the file is the option's
    problem (exit 1)."""
    from ..errors import MissingFile, RulesError

    try:
        yield
    except MissingFile:
        raise
    except RulesError as exc:
        fail(f"--set: {exc}")
    except YahtzeeError as exc:
        fail(f"{option}: {exc}", PROBLEM)


def warn(message: str) -> None:
    """A warning on stderr: the run goes on, but something is not as asked (`yahtzee: warning: ...`)."""
    from ..text import escape

    sys.stderr.write(f"yahtzee: warning: {escape(message)}\n")


NOTE_HEARD: list[Callable[[str], None]] = []  # who also hears the notes (cli.progress: they name the stage shown)


def note(message: str, heard: bool = True) -> None:
    """A note on stderr for the person waiting (a table being built, the seed chosen, the speed); the
    library's notes that are warnings say so themselves ("warning: ..."). `heard=False`: a line of
    progress itself, which NOTE_HEARD does not hear."""
    from ..text import escape

    for hear in NOTE_HEARD if heard else ():
        hear(message)
    sys.stderr.write(f"yahtzee: {escape(message)}\n")

def _complete_presets(incomplete: str) -> list[str]:
    from ..rules.engine import preset_names

    return [name for name in preset_names() if name.startswith(incomplete)]


# Shared option types: every command that takes rules spells them the same way.
RulesOpt = Annotated[
    str | None,
    typer.Option(
        "--rules",
        "-r",
        metavar="NAME|FILE",
        help="Preset name (yahtzee, kniffel, yatzy, forced-yatzy, maxi-yatzy, triple-yahtzee, "
        "triple-yatzy; yacht and generala play the yahtzee rules) or a rules JSON file.  "
        "[default: $YAHTZEE_RULES, else the config file's, else yahtzee]",
        show_default=False,
        autocompletion=_complete_presets,
    ),
]
def _complete_boxes(incomplete: str) -> list[str]:
    from ..rules.engine import PRESETS

    keys = dict.fromkeys(b.key for p in PRESETS.values() for b in p["boxes"])
    return [k for k in keys if k.startswith(incomplete)]


def _complete_settings(incomplete: str) -> list[str]:
    """`--set` keys, then (after `key=`) the values that setting takes: `joker=fr` -> `joker=free`
    (for bash, which replaces only the part after `=`, cli.main keeps that part)."""
    from ..rules.engine import SETTING_NAMES, setting_values

    key, eq, typed = incomplete.partition("=")
    if not eq:
        return [f"{k}=" for k in SETTING_NAMES if k.startswith(incomplete)]
    return [f"{key}={v}" for v in setting_values(key, typed)]


BoxOpt = Annotated[
    str | None,
    typer.Option("--box", "-b", metavar="BOX", help="Only this box (key, name or alias, e.g. full_house).",
                 show_default=False, autocompletion=_complete_boxes),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--set", metavar="KEY=VALUE", help="House-rule override (repeatable), e.g. joker=free or "
        "column_fill=down,up,free; see `yahtzee rules NAME` for the settings.", show_default=False,
        autocompletion=_complete_settings,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON output.")]
CsvOpt = Annotated[bool, typer.Option("--csv", help=ROW_FORMATS["csv"].help)]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="No output on stdout; the exit status says it all.")]
PlotOpt = Annotated[
    Path | None,
    typer.Option("--plot", metavar="FILE", show_default=False,
                 help="Also draw the figure into FILE (.png, .svg or .pdf; needs the plot extra: pip install "
                 "'yahtzee-cli[plot]')."),
]
RiskOpt = Annotated[
    float | None,
    typer.Option("--risk", help="The strategy maximising E[exp(THETA * final score)] instead of the mean: THETA > 0 "
                 "seeks variance, < 0 avoids it, 0 is the expected-score optimum. Exact rule sets only.",
                 show_default=False, min=-1.0, max=1.0, metavar="THETA"),
]
def get_rules(rules: str | None, sets: list[str] | None) -> "RuleSet":
    """The rule set of --rules and --set; without --rules, the defaults ($YAHTZEE_RULES, config file)."""
    from ..formats.config import rules_for

    return rules_for(rules, sets or ())


def write_json(obj: Any, *, indent: bool = False, finite: bool = False) -> None:
    """One JSON document and a newline on stdout (`finite`: see jsonio.dumps)."""
    from ..formats.output import write_record

    write_record(obj, indent=indent, finite=finite)


def outputs(silences: "Quiet" = "text") -> Callable[[F], F]:
    """A command's output flags as one Output (formats.output). The command declares the flags it takes
    where its help lists them, as `json: bool = False`, `csv: bool = False`, `quiet: bool = False` (they
    become the shared --json, --csv and --quiet: JsonOpt, CsvOpt, QuietOpt), and a keyword `out: Output`;
    it receives `out`, chosen from the flags (formats.output.choose), and writes through it alone. Every
    other row format of formats.output.ROW_FORMATS gets its flag (--NAME) right after --csv."""

    def decorate(fn: F) -> F:
        from ..formats.output import ROW_FORMATS, choose

        sig = inspect.signature(fn, eval_str=True)
        extra = [name for name in ROW_FORMATS if name != "csv"] if "csv" in sig.parameters else []
        flags = {"json": JsonOpt, "csv": CsvOpt, "quiet": QuietOpt}
        visible: list[inspect.Parameter] = []
        for p in sig.parameters.values():
            if p.name == "out":
                continue
            if p.name in flags and p.annotation is bool:  # declared `json: bool = False`: the shared option
                p = p.replace(annotation=flags[p.name])
            visible.append(p)
            if p.name == "csv":
                visible += [inspect.Parameter(name, p.kind, default=False, annotation=Annotated[
                    bool, typer.Option(f"--{name}", help=ROW_FORMATS[name].help)]) for name in extra]

        @functools.wraps(fn)
        def command(**kwargs: Any) -> Any:
            more = {name: kwargs.pop(name, False) for name in extra}
            out = choose(kwargs.get("json", False), kwargs.get("csv", False), kwargs.get("quiet", False),
                         silences=silences, **more)
            return fn(**kwargs, out=out)

        command.__signature__ = sig.replace(parameters=visible)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in visible}
        return command  # type: ignore[return-value]

    return decorate


def progress_wanted() -> bool:
    """Progress bars only when stderr is a terminal."""
    return sys.stderr.isatty()
