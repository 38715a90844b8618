"""The one Typer app and the helpers every command shares (errors, rules options, output).

Commands live in sibling modules that register on `app` when imported. `yahtzee` imports a command's
module only when that command runs (COMMANDS below), and heavy imports (the rules' pydantic models,
numpy, the solver) stay inside the commands that need them, so start-up stays near Typer's own."""


import functools
import importlib
import inspect
import os
import re
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
    "hint": ("solve", "Rank the options of a position."),
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
                error(usage_message(exc, list(sys.argv[1:] if args is None else args)))
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
            fail(str(exc), exc.exit_status)


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


def write_text(text: str) -> None:
    """Text output on stdout as it is given (line breaks included), escaped as `say` does."""
    from ..formats.output import write_text

    write_text(text)


def say(text: object = "") -> None:
    """Text output on stdout, a line (or several): every character that could drive the terminal (a file
    or player name with ESC or a right-to-left override) is shown escaped (text.escape)."""
    from ..formats.output import write_text

    write_text(f"{text}\n", flush=True)


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

def _param_name(param: Any) -> str:
    """A parameter as messages name it: an option by its long name (--games), an argument by its
    metavar (DICE)."""
    opts = list(getattr(param, "opts", None) or [])
    if getattr(param, "param_type_name", "") == "argument":
        return str(getattr(param, "metavar", None) or (opts[0] if opts else "argument").upper())
    return next((o for o in opts if o.startswith("--")), opts[0] if opts else "option")


def _wanted(err: dict[str, Any], param: Any) -> tuple[str, list[str]]:
    """What a value must be, from the error Typer met converting it, and the valid words if any."""
    kind = str(err.get("type", ""))
    low, high = getattr(param, "min", None), getattr(param, "max", None)
    span = (f" from {low} to {high}" if low is not None and high is not None else f" of at least {low}"
            if low is not None else f" of at most {high}" if high is not None else "")
    if kind.startswith("int_"):
        return f"takes a whole number{span}", []
    if kind.startswith(("float_", "finite_number")):
        return f"takes a number{span}", []
    if kind.startswith("bool_"):
        return "takes true or false", ["true", "false"]
    if kind.startswith(("greater_than", "less_than")):
        return (f"takes a value{span}" if span else "is out of range"), []
    match = re.search(r"is not one of (.*?)\.?$", str(err.get("msg", "")))
    if match:
        choices = re.findall(r"'([^']*)'", match.group(1))
        return "takes " + (", ".join(choices[:-1]) + " or " + choices[-1] if len(choices) > 1 else "".join(choices)), \
            choices
    return "takes another value", []


def _commands_with(option: str, ctx: Any) -> list[str]:
    """The commands (`log add` for a sub-command) that have `option`."""
    root = ctx.find_root().command
    found = []
    for name in COMMANDS:
        cmd = root.commands[name]
        subs = [(f"{name} {s}", c) for s, c in getattr(cmd, "commands", {}).items()] or [(name, cmd)]
        found += [label for label, c in subs if any(option in getattr(p, "opts", ()) for p in c.params)]
    return found


def usage_message(exc: Exception, args: list[str]) -> str:
    """A usage error met reading the command line, in the tool's own words: what is wrong, what would
    be valid (or a "did you mean"), and where to read more. Typer words these its own way, and
    converts values with pydantic ("Input should be a valid integer, ..."), which no user should read."""
    from ..text import did_you_mean, quote

    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        path = str(ctx.command_path)
    else:  # the parser's own errors carry no context: the command is the first words given
        given = ["yahtzee", *(args[:1] if args[:1] and args[0] in COMMANDS else [])]
        if given[1:] == ["log"] and len(args) > 1 and not args[1].startswith("-"):
            given.append(args[1])
        path = " ".join(given)
    see = f" (see '{path} --help')"
    text = str(getattr(exc, "message", "") or exc).rstrip(".")
    param = getattr(exc, "param", None)
    kind = type(exc).__name__
    if kind == "NoSuchOption" and ctx is not None:
        name = str(getattr(exc, "option_name", text))
        here = [o for p in ctx.command.params for o in getattr(p, "opts", ()) if o.startswith("-")]
        close = did_you_mean(name, [*here, "--help"], strip="-")
        others = [c for c in _commands_with(name, ctx) if f"yahtzee {c}" != path] if not close else []
        if others:
            return f"{path} has no option {name}; {', '.join(others)} {'has' if len(others) == 1 else 'have'} it{see}"
        return f"{path} has no option {name}{close}{see}"
    match = re.match(r"No such command '(.*?)'", text)
    if match and ctx is not None:
        commands = list(ctx.command.list_commands(ctx))
        name = match.group(1)
        return f"{path} has no command {quote(name)}{did_you_mean(name, commands)}; commands: {', '.join(commands)}"
    if kind == "MissingParameter" and param is not None:
        return f"{path} needs {_param_name(param)}{see}"
    if kind == "BadParameter" and param is not None:
        cause: Any = exc.__cause__
        errors: list[Any] = cause.errors() if callable(getattr(cause, "errors", None)) else []  # pydantic's, via Typer
        if errors:
            words, choices = _wanted(errors[0], param)
            value = str(errors[0].get("input", ""))
            return f"{_param_name(param)} {words}, got {quote(value)}{did_you_mean(value, choices)}{see}"
        detail = re.sub(r"^Invalid value for [^:]*: ", "", text)
        return f"{_param_name(param)}: {detail[:1].lower() + detail[1:]}{see}"
    match = re.match(r"Option '(.*?)' requires an argument", text)
    if match:
        return f"{match.group(1)} needs a value{see}"
    match = re.match(r"Option '(.*?)' does not take a value", text)
    if match:
        return f"{match.group(1)} is a switch: it takes no value{see}"
    match = re.match(r"Got unexpected extra arguments? \((.*)\)", text)
    if match:
        return f"{path} does not take {quote(match.group(1))}{see}"
    return f"{text[:1].lower() + text[1:]}{see}"



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
    from ..rules.engine import load_rules

    if rules is not None:
        return load_rules(rules, sets or ())
    from ..formats.config import load_default_rules

    return load_default_rules(sets or ())


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


def color_enabled() -> bool:
    return "NO_COLOR" not in os.environ


def console(stderr: bool = False) -> Any:
    """A rich Console for people; honours NO_COLOR (rich does) and never colours pipes."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, no_color=not color_enabled())


def progress_wanted() -> bool:
    """Progress bars only when stderr is a terminal."""
    return sys.stderr.isatty()


def saved_rolls_note(rs: "RuleSet") -> None:
    """For rules with saved rolls played by the heuristic (no exact table built): how to build the exact
    one, and about how long it takes (a command never starts that build unasked)."""
    if not rs.settings.saved_rolls:
        return
    from ..strategy.choice import capped, plan

    if plan(rs).strategy != "heuristic":
        return
    from ..solver.saved import DEFAULT_CAP, about_minutes, build_gb, build_minutes, saved_reason

    cap = rs.settings.saved_rolls_cap
    target = capped(rs, DEFAULT_CAP) if cap is None else rs
    if saved_reason(target) is None:
        k = "K" if cap is None else str(cap)
        note(f"{rs.name} with saved rolls is played by a fitted heuristic until its exact table is built: "
             f"yahtzee solve --rules {rs.name} --set saved_rolls_cap={k} "
             f"(K = {target.settings.saved_cap}: {about_minutes(build_minutes(target))} on 2 cores and "
             f"{build_gb(target):.1f} GB of disk, once)")
