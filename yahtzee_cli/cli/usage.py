"""A usage error met reading the command line, in the tool's own words (Typer's and pydantic's are
never shown): what is wrong, what would be valid, and where to read more."""

import re
from collections.abc import Collection
from typing import Any


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


def _commands_with(option: str, ctx: Any, commands: Collection[str]) -> list[str]:
    """The commands (`log add` for a sub-command) that have `option`."""
    root = ctx.find_root().command
    found = []
    for name in commands:
        cmd = root.commands[name]
        subs = [(f"{name} {s}", c) for s, c in getattr(cmd, "commands", {}).items()] or [(name, cmd)]
        found += [label for label, c in subs if any(option in getattr(p, "opts", ()) for p in c.params)]
    return found


def usage_message(exc: Exception, args: list[str], commands: Collection[str]) -> str:
    """A usage error met reading the command line, in the tool's own words: what is wrong, what would
    be valid (or a "did you mean"), and where to read more. Typer words these its own way, and
    converts values with pydantic ("Input should be a valid integer, ..."), which no user should read."""
    from ..text import did_you_mean, quote

    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        path = str(ctx.command_path)
    else:  # the parser's own errors carry no context: the command is the first words given
        given = ["yahtzee", *(args[:1] if args[:1] and args[0] in commands else [])]
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
        others = [c for c in _commands_with(name, ctx, commands) if f"yahtzee {c}" != path] if not close else []
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
