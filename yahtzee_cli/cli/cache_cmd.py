"""`yahtzee cache where|list|clean`: the cache directory of strategy tables and compiled kernels
(store/listing.py does the work)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import PROBLEM
from ..formats.output import Output
from .app import command_group, error, examples, fail, outputs, warn

if TYPE_CHECKING:
    from ..store.listing import Entry, Listing, Part

cache_app = command_group(
    "cache",
    "The cache of strategy tables and compiled kernels: where it is, what it holds, cleaning it. "
    "Everything in it is made again on first use.",
    "Show or clean the cache of tables and kernels.",
    "yahtzee cache where",
    "yahtzee cache list",
    "yahtzee cache clean --dry-run",
)


def _size(n: int) -> str:
    """Bytes for people: 512 B, 8.1 KiB, 44.0 MiB."""
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError  # not reached


def _record(e: Entry) -> dict[str, object]:
    return {"path": str(e.full), "kind": e.kind, "bytes": e.bytes, "rules": e.rules, "shipped": e.shipped,
            "in_use": e.in_use}


@cache_app.command("where", short_help="Print the cache directory.", epilog=examples(
    "yahtzee cache where", "du -sh \"$(yahtzee cache where)\""))
def cache_where() -> None:
    """Print the cache directory ($YAHTZEE_CACHE_DIR, else the platform's user cache directory)."""
    from ..store.listing import directory
    from ..text import escape

    sys.stdout.write(f"{escape(str(directory()))}\n")  # (a name with ESC or a right-to-left override shown escaped)


@cache_app.command("list", short_help="Every file of the cache with its size, and the total.", epilog=examples(
    "yahtzee cache list", "yahtzee cache list --json"))
@outputs()
def cache_list(json: bool = False, *, out: Output) -> None:
    """Every file of the cache with its kind and size, and the total: strategy tables (with their rule
    set; "shipped" marks a copy of a table that comes with the package), saved-rolls tables, compiled
    kernels, lock files (stale unless a running process holds them), stamps of verified tables,
    temporary files, and "other" files the toolbox did not write (clean leaves them)."""
    from ..formats.render import text
    from ..store.listing import listing

    found = listing()
    _partial(found)
    out.record({"directory": str(found.directory), "kernels": str(found.kernels),
                "entries": [_record(e) for e in found.entries], "files": len(found.entries),
                "total_bytes": found.total_bytes})
    rows: list[list[object]] = [["kind", "size", "rules", "file"]]
    for e in found.entries:
        note = " (shipped)" if e.shipped else " (in use)" if e.in_use else ""
        rows.append([e.kind, _size(e.bytes), e.rules or "", f"{e.full}{note}"])
    out.text(text(rows, left=(0, 2, 3)) if found.entries else "")
    out.text(f"{len(found.entries)} file{'' if len(found.entries) == 1 else 's'}, {_size(found.total_bytes)}\n")


def _partial(found: Listing) -> None:
    if not found.complete:
        from ..store.listing import MAX_ENTRIES

        warn(f"the cache directory {found.directory} holds more than {MAX_ENTRIES:,} names: only the first "
             f"{MAX_ENTRIES:,} were looked at")


@cache_app.command("clean", short_help="Remove cached tables, kernels and stale locks.", epilog=examples(
    "yahtzee cache clean", "yahtzee cache clean --kernels --dry-run"))
@outputs()
def cache_clean(
    tables: Annotated[bool, typer.Option("--tables", help="Only strategy tables, saved-rolls tables, "
                                         "distributions and their locks and stamps.")] = False,
    kernels: Annotated[bool, typer.Option("--kernels", help="Only compiled kernels and their locks.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Say what would be removed; remove nothing.")]
    = False,
    json: bool = False,
    *,
    out: Output,
) -> None:
    """Remove the cached tables and compiled kernels (both unless --tables or --kernels), stale lock files
    and temporary files of writers that died. Locks a running process holds stay, and so do fresh
    temporary files and files the toolbox did not write (it removes a file only when its name and
    its content show it for its own). The tables shipped with the package stay in it: a first use copies them back at
    no cost; other tables are built and kernels compiled again on first use."""
    from ..store.listing import clean

    parts: list[Part] = []
    if tables:
        parts.append("tables")
    if kernels:
        parts.append("kernels")
    gone, failed = clean(parts or ("tables", "kernels"), dry_run=dry_run)
    total = sum(e.bytes for e in gone)
    out.record({"dry_run": dry_run, "removed": [_record(e) for e in gone], "files": len(gone), "total_bytes": total,
                "errors": failed})
    verb = "would remove" if dry_run else "removed"
    out.text("".join(f"{e.full}\n" for e in gone) if dry_run else "")  # (out.text escapes)
    out.text(f"{verb} {len(gone)} file{'' if len(gone) == 1 else 's'}, {_size(total)}\n")
    if failed:
        for message in failed[:-1]:
            error(message)
        fail(failed[-1], PROBLEM)
