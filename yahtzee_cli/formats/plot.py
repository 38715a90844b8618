"""Figures of the toolbox's numbers, drawn with matplotlib (the optional `plot` extra) on its
non-interactive Agg backend, written as PNG, SVG or PDF by the file's suffix.

Each `*_figure` function draws exactly the numbers the command prints with `--json` (the tests read
the data back from the figure's artists and compare), saves the file and returns the Figure. matplotlib
is imported only here and only when a plot is asked for: without it, `PlotUnavailable` names the extra.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import PlotUnavailable, YahtzeeError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .stats import Book

FORMATS = (".png", ".svg", ".pdf")
ROLLING = 10  # the rolling mean of `stats --plot`, over this many games


def check_plot_target(path: str | Path) -> Path:
    """The file a plot is to be written to, checked before any work: a known suffix, a folder that exists,
    matplotlib installed. Raises PlotUnavailable naming what would be valid."""
    p = Path(path)
    if p.suffix.lower() not in FORMATS:
        raise PlotUnavailable(f"a plot is written as a {', '.join(FORMATS)} file (by the name's suffix), "
                              f"got {str(p)!r}")
    folder = p.parent if str(p.parent) else Path(".")
    if not folder.is_dir():
        raise PlotUnavailable(f"no folder {str(folder)!r} to write the plot {p.name!r} in")
    _pyplot()
    return p


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError:
        raise PlotUnavailable("plots need matplotlib: pip install 'yahtzee-cli[plot]'") from None
    matplotlib.use("Agg", force=True)  # no window, no display needed
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
    from .jsonio import dumps

    p = Path(path)
    suffix = p.suffix.lower()
    meta = {"Creator": "yahtzee-cli", DATA_KEY[suffix]: dumps(figure_data(fig)).decode()}
    try:
        fig.savefig(p, format=suffix.lstrip("."), dpi=120, metadata=meta)
    except OSError as exc:
        raise YahtzeeError(f"cannot write the plot {str(p)!r}: {exc.strerror}") from None  # (exit 1)
    finally:
        _pyplot().close(fig)
    return fig


# --------------------------------------------------------------------------- simulate


def simulate_figure(seats: Sequence[Mapping[str, Any]], path: str | Path, title: str = "") -> Figure:
    """Every seat's score histogram (the `histogram` bins of `simulate --json`), overlaid as steps,
    each mean marked by a dashed line of the same colour. Seats' bins may differ in width, so each
    bin is drawn as its share of the seat's games per point of score (count / games / width): the
    areas compare."""
    fig, axes = _new()
    ax = axes[0][0]
    for seat in seats:
        bins = seat["histogram"]["bins"]
        edges = [b["low"] for b in bins] + [bins[-1]["high"]] if bins else []
        games = sum(b["count"] for b in bins) or 1
        density = [b["count"] / games / (b["high"] - b["low"]) for b in bins]
        who = seat["player"] if seat["player"] == seat["strategy"] else f"{seat['player']} ({seat['strategy']})"
        label = f"seat {seat['seat']}: {who}, mean {seat['mean']:.1f}"
        color = None
        if bins:
            color = ax.stairs(density, edges, label=label, linewidth=1.6, gid=f"seat-{seat['seat']}").get_edgecolor()
        ax.axvline(seat["mean"], linestyle="--", linewidth=1.0, color=color, gid=f"mean-{seat['seat']}")
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
    """Each player's final scores in the order played, one panel per rule set, with a rolling mean."""
    series = book.series or {}
    by_rules: dict[str, dict[str, list[int]]] = {}
    for player, games in series.items():
        for _, total, rules in games:
            by_rules.setdefault(rules, {}).setdefault(player, []).append(total)
    order = [r for r in book.rule_set_order() if r in by_rules] or sorted(by_rules)
    fig, axes = _new(max(1, len(order)), 1, (8.0, 3.6 * max(1, len(order))))
    for i, rules in enumerate(order):
        ax = axes[i][0]
        for player, scores in by_rules[rules].items():
            xs = list(range(1, len(scores) + 1))
            (pts,) = ax.plot(xs, scores, marker="o", markersize=3, linestyle="none", alpha=0.5,
                             gid=f"scores:{player}")
            ax.plot(xs, rolling_mean(scores), color=pts.get_color(), linewidth=1.6,
                    gid=f"rolling:{player}", label=f"{player} (mean of last {ROLLING})")
        ax.set_title(rules)
        ax.set_xlabel("game (in the order played)")
        ax.set_ylabel("final score")
        ax.legend(loc="best", fontsize="small")
    if not order:
        axes[0][0].set_title("no finished games")
    return _save(fig, path)


# --------------------------------------------------------------------------- analyze


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
    and for a game with win chances a second panel under it of each player's chance to win then."""
    n = sum(2 if "wins" in g else 1 for g in games)
    fig, axes = _new(max(1, n), 1, (8.0, 3.6 * max(1, n)))
    row = 0
    for game in games:
        ax = axes[row][0]
        row += 1
        for player, values in game["series"].items():
            ax.plot(range(1, len(values) + 1), values, marker=".", gid=f"expected:{player}", label=player)
        ax.set_title(game["title"])
        ax.set_xlabel("boxes written by the player")
        ax.set_ylabel("expected final score")
        ax.legend(loc="best", fontsize="small")
        if "wins" in game:
            ax = axes[row][0]
            row += 1
            for player, values in game["wins"].items():
                ax.plot(range(1, len(values) + 1), values, marker=".", gid=f"win:{player}", label=player)
            ax.set_title(f"{game['title']}: chance to win")
            ax.set_xlabel("boxes written by the player")
            ax.set_ylabel("chance to win (ties shared)")
            ax.set_ylim(-0.02, 1.02)
            ax.legend(loc="best", fontsize="small")
    return _save(fig, path)


__all__ = ["FORMATS", "PlotUnavailable", "analyze_figure", "analyze_series", "check_plot_target", "distribution_figure",
           "rolling_mean", "simulate_figure", "stats_figure"]
