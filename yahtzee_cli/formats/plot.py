"""Figures of the toolbox's numbers, drawn with matplotlib (the optional `plot` extra) on its
non-interactive Agg backend, written as PNG, SVG or PDF by the file's suffix.

Each `*_figure` function draws exactly the numbers the command prints with `--json` (the tests read
the data back from the figure's artists and compare), saves the file and returns the Figure. matplotlib
is imported only here and only when a plot is asked for: without it, `PlotUnavailable` names the extra.
Nothing to draw (no games) is a YahtzeeError naming the file left unwritten, never a blank figure.
"""

from __future__ import annotations

import io
import math
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import PlotUnavailable, YahtzeeError
from ..paths import write_atomic

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .stats import Book

FORMATS = (".png", ".svg", ".pdf")
ROLLING = 10  # the rolling mean of `stats --plot`, over this many games


def check_plot_target(path: str | Path) -> Path:
    """The file a plot is to be written to, checked before any work: a known suffix, a folder that exists
    and can be written, no FIFO, device or folder by that name (only a regular file is replaced),
    matplotlib installed. Raises PlotUnavailable naming what would be valid."""
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise PlotUnavailable(f"a plot is written as a {', '.join(FORMATS)} file (by the name's suffix), "
                              f"got {str(p)!r}")
    target = _target(p)
    folder = target.parent
    if not folder.is_dir():
        raise PlotUnavailable(f"no folder {str(folder)!r} to write the plot {p.name!r} in")
    try:
        mode: int | None = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise PlotUnavailable(f"cannot write the plot {str(p)!r}: {exc.strerror or exc}") from None
    if mode is not None and not stat.S_ISREG(mode):
        raise PlotUnavailable(f"cannot write the plot to {str(p)!r}: it is {_kind(mode)}, not a regular file; "
                              "name a new or a regular .png, .svg or .pdf file")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PlotUnavailable(f"cannot write the plot {str(p)!r}: its folder {str(folder)!r} is not writable")
    _pyplot()
    return p


def _target(p: Path) -> Path:
    """Where the plot's bytes go: the file a symbolic link points to (the link itself stays), else `p`."""
    if p.is_symlink():
        return Path(os.path.realpath(p))
    return p if str(p.parent) else Path(".") / p


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _nothing(path: str | Path, what: str) -> YahtzeeError:
    """Nothing to draw: one line naming the file left unwritten (exit 1), never a blank figure."""
    return YahtzeeError(f"nothing to plot: {what}; {str(path)!r} not written")


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable("plots need matplotlib: pip install 'yahtzee-cli[plot]'") from None
    matplotlib.use("Agg", force=True)  # no window, no display needed
    import logging

    # its own warnings (a font cache it could not save, on a full disk) are not the user's error line
    logging.getLogger("matplotlib").setLevel(logging.ERROR)
    import matplotlib.pyplot as plt

    return plt


def _new(rows: int = 1, cols: int = 1, size: tuple[float, float] = (8.0, 4.8)) -> tuple[Figure, Any]:
    plt = _pyplot()
    fig, axes = plt.subplots(rows, cols, figsize=size, squeeze=False, layout="constrained")
    return fig, axes


def figure_data(fig: Figure) -> list[dict[str, Any]]:
    """What a figure plots, read back from its artists: per panel, its title and every named line
    ([x, y] points) and step histogram (values and edges). Embedded in the file written (see _save), so
    what a file shows can be checked against the numbers it came from without reading pixels."""
    panels = []
    for ax in fig.get_axes():
        lines = {}
        for ln in ax.get_lines():
            if ln.get_gid():
                xs: Any = ln.get_xdata()
                ys: Any = ln.get_ydata()
                lines[ln.get_gid()] = [[_num(x), _num(y)] for x, y in zip(xs, ys, strict=True)]
        steps = {}
        for patch in ax.patches:
            if patch.get_gid() and hasattr(patch, "get_data"):
                d = patch.get_data()
                steps[patch.get_gid()] = {"values": [_num(v) for v in d.values], "edges": [_num(e) for e in d.edges]}
        panels.append({"title": ax.get_title(), "lines": lines, "steps": steps})
    return panels


def _num(x: Any) -> float | int:
    v = float(x)
    return int(v) if v.is_integer() else v


# The metadata key each format keeps free text under: where figure_data goes.
DATA_KEY = {".png": "Description", ".svg": "Description", ".pdf": "Subject"}


def _save(fig: Figure, path: str | Path) -> Figure:
    """Render the figure in memory, then write its bytes to a temporary file in the target's folder and
    move that into place: a full disk, a file-size limit or a vanished folder is one OSError from our
    own write, the same for every format (matplotlib's PDF writer, failing midway, raised unrelated
    errors), and the target is either the whole new plot or left as it was."""
    from .jsonio import dumps

    p = Path(path)
    suffix = p.suffix.lower()
    meta = {"Creator": "yahtzee-cli", DATA_KEY[suffix]: dumps(figure_data(fig)).decode()}
    buf = io.BytesIO()
    try:
        fig.savefig(buf, format=suffix.lstrip("."), dpi=120, metadata=meta)
    finally:
        _pyplot().close(fig)
    check_plot_target(p)  # again: the command may have run for long, and a FIFO is never opened
    target = _target(p)
    try:
        try:
            mode: int | None = stat.S_IMODE(target.stat().st_mode)  # (a plot drawn again keeps its mode)
        except FileNotFoundError:
            mode = None
        write_atomic(target, [buf.getvalue()], mode=mode, make_folder=False)
    except OSError as exc:
        raise YahtzeeError(f"cannot write the plot {str(p)!r}: {exc.strerror or exc}") from None  # (exit 1)
    return fig


def _integers(axis: Any) -> None:
    """Ticks at whole numbers only (game numbers, boxes written, scores): never 1.0, 1.2, 1.4."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


# --------------------------------------------------------------------------- simulate


def simulate_figure(seats: Sequence[Mapping[str, Any]], path: str | Path, title: str = "") -> Figure:
    """Every seat's score histogram (the `histogram` bins of `simulate --json`), overlaid as steps,
    each mean marked by a dashed line of the same colour (both in the legend). Seats' bins may differ
    in width, so each bin is drawn as its share of the seat's games per point of score (count / games /
    width): the areas compare."""
    if not any(seat["histogram"]["bins"] for seat in seats):
        raise _nothing(path, "no games were played")
    fig, axes = _new()
    ax = axes[0][0]
    for seat in seats:
        bins = seat["histogram"]["bins"]
        edges = [b["low"] for b in bins] + [bins[-1]["high"]] if bins else []
        games = sum(b["count"] for b in bins) or 1
        density = [b["count"] / games / (b["high"] - b["low"]) for b in bins]
        who = seat["player"] if seat["player"] == seat["strategy"] else f"{seat['player']} ({seat['strategy']})"
        color = None
        if bins:
            color = ax.stairs(density, edges, label=f"seat {seat['seat']}: {who}", linewidth=1.6,
                              gid=f"seat-{seat['seat']}").get_edgecolor()
        ax.axvline(seat["mean"], linestyle="--", linewidth=1.0, color=color, gid=f"mean-{seat['seat']}",
                   label=f"seat {seat['seat']}: mean {seat['mean']:.1f}")
    _integers(ax.xaxis)
    ax.set_xlabel("final score")
    ax.set_ylabel("share of games per point")
    ax.set_title(title or "final scores by seat")
    ax.legend(loc="upper right", fontsize="small")
    return _save(fig, path)


# --------------------------------------------------------------------------- distributions


def distribution_figure(series: Sequence[tuple[str, Sequence[Sequence[float]]]], path: str | Path, *,
                        target: int | None = None, title: str = "") -> Figure:
    """Exact distributions of the final score, one line each (label, pmf as [score, probability]
    pairs, as `--json` prints them): P(final = score) above, P(final <= score) below, the target (when
    given) marked on both."""
    if not any(pmf for _, pmf in series):
        raise _nothing(path, "no distribution")
    fig, axes = _new(2, 1, (8.0, 6.4))
    top, bottom = axes[0][0], axes[1][0]
    for i, (label, pmf) in enumerate(series):
        scores = [int(sc) for sc, _ in pmf]
        probs = [float(pr) for _, pr in pmf]
        cdf: list[float] = []
        acc = 0.0
        for pr in probs:
            acc += pr
            cdf.append(min(acc, 1.0))
        (line,) = top.plot(scores, probs, linewidth=1.2, gid=f"pmf-{i}", label=label)
        bottom.step(scores, cdf, where="post", linewidth=1.4, color=line.get_color(), gid=f"cdf-{i}", label=label)
    for ax in (top, bottom):
        if target is not None:
            ax.axvline(target, color="tab:red", linestyle="--", linewidth=1.0, label=f"target {target}", gid="target")
        ax.set_xlabel("final score")
        _integers(ax.xaxis)
    top.legend(loc="upper right", fontsize="small")
    bottom.legend(loc="lower right", fontsize="small")  # (the CDF rises to the top right)
    shown = [sc for _, pmf in series for sc, pr in pmf if pr >= 1e-5]  # the tails beyond are flat at this scale
    if shown:
        for ax in (top, bottom):
            ax.set_xlim(min(shown) - 5, max(shown) + 5)
    top.set_ylabel("P(final = score)")
    bottom.set_ylabel("P(final <= score)")
    bottom.set_ylim(0, 1.02)
    top.set_title(title or "distribution of the final score")
    return _save(fig, path)


# --------------------------------------------------------------------------- stats


def rolling_mean(values: Sequence[float], window: int = ROLLING) -> list[float]:
    """The mean of each value with up to `window - 1` before it."""
    out = []
    acc = 0.0
    for i, v in enumerate(values):
        acc += v
        if i >= window:
            acc -= values[i - window]
        out.append(acc / min(i + 1, window))
    return out


def stats_figure(book: Book, path: str | Path) -> Figure:
    """Each player's final scores in the order played (dots) and their rolling mean (a line), one panel
    per rule set. No finished game: a YahtzeeError, nothing written."""
    series = book.series or {}
    by_rules: dict[str, dict[str, list[int]]] = {}
    for player, games in series.items():
        for _, total, rules in games:
            by_rules.setdefault(rules, {}).setdefault(player, []).append(total)
    if not by_rules:
        raise _nothing(path, "no finished games to draw")
    order = [r for r in book.rule_set_order() if r in by_rules] or sorted(by_rules)
    order += sorted(r for r in by_rules if r not in order)
    fig, axes = _new(len(order), 1, (8.0, 3.6 * len(order)))
    for i, rules in enumerate(order):
        ax = axes[i][0]
        for player, scores in by_rules[rules].items():
            xs = list(range(1, len(scores) + 1))
            (pts,) = ax.plot(xs, scores, marker="o", markersize=3, linestyle="none", alpha=0.5,
                             gid=f"scores:{player}", label=f"{player}: a game's score")
            ax.plot(xs, rolling_mean(scores), color=pts.get_color(), linewidth=1.6,
                    gid=f"rolling:{player}", label=f"{player}: mean of the last {ROLLING}")
        ax.set_title(rules)
        ax.set_xlabel("game (in the order played)")
        ax.set_ylabel("final score")
        _integers(ax.xaxis)
        _integers(ax.yaxis)
        ax.legend(loc="best", fontsize="small")
    return _save(fig, path)


# --------------------------------------------------------------------------- analyze

GRID_COLUMNS = 3  # `analyze --plot`: games side by side, at most this many in a row


def analyze_series(record: Mapping[str, Any]) -> dict[str, Any]:
    """What `analyze --plot` draws of a graded game (its --json record): per player, the expected final
    score after each box written (the `made` value of every box decision, in the order played) and, in
    a game of two or more with win chances, the chance to win after each box written (the decision's
    `win_probability`)."""
    series: dict[str, list[float]] = {p["name"]: [] for p in record["players"]}
    wins: dict[str, list[float]] = {p["name"]: [] for p in record["players"]}
    for d in record["decisions"]:
        if d["decision"] == "box":
            series[d["player"]].append(d["made"]["value"])
            if d.get("win_probability") is not None:
                wins[d["player"]].append(d["win_probability"])
    out: dict[str, Any] = {"title": f"{record['file']}:{record['line']}: game {record['game']}", "series": series}
    if any(wins.values()):
        out["wins"] = wins
    return out


def analyze_figure(games: Sequence[Mapping[str, Any]], path: str | Path) -> Figure:
    """Per game (analyze_series), a panel of each player's expected final score after each box written,
    and for a game with win chances a second panel under it of each player's chance to win then. Games
    sit side by side, GRID_COLUMNS to a row (panels are made game by game: the figure's data lists
    them in that order). No game: a YahtzeeError, nothing written."""
    if not games:
        raise _nothing(path, "no game was graded")
    cols = min(GRID_COLUMNS, len(games))
    grid_rows = math.ceil(len(games) / cols)
    per = 2 if any("wins" in g for g in games) else 1  # panel rows per game
    plt = _pyplot()
    fig = plt.figure(figsize=(max(8.0, 5.2 * cols), 3.2 * per * grid_rows), layout="constrained")
    grid = fig.add_gridspec(grid_rows * per, cols)
    for k, game in enumerate(games):
        row, col = divmod(k, cols)
        ax = fig.add_subplot(grid[row * per, col])
        for player, values in game["series"].items():
            ax.plot(range(1, len(values) + 1), values, marker=".", gid=f"expected:{player}", label=player)
        ax.set_title(game["title"], fontsize="small")
        ax.set_xlabel("boxes written by the player")
        ax.set_ylabel("expected final score")
        _integers(ax.xaxis)
        ax.legend(loc="best", fontsize="small")
        if "wins" in game:
            ax = fig.add_subplot(grid[row * per + 1, col])
            for player, values in game["wins"].items():
                ax.plot(range(1, len(values) + 1), values, marker=".", gid=f"win:{player}", label=player)
            ax.set_title(f"{game['title']}: chance to win", fontsize="small")
            ax.set_xlabel("boxes written by the player")
            ax.set_ylabel("chance to win (ties shared)")
            ax.set_ylim(-0.02, 1.02)
            _integers(ax.xaxis)
            ax.legend(loc="best", fontsize="small")
    return _save(fig, path)


__all__ = ["FORMATS", "GRID_COLUMNS", "PlotUnavailable", "analyze_figure", "analyze_series", "check_plot_target",
           "distribution_figure", "rolling_mean", "simulate_figure", "stats_figure"]
