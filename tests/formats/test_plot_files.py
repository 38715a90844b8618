"""`--plot` files: every format fails alike (one line naming the file and the OS reason, the target
untouched, no temporary file left), a FIFO, device or folder is refused before any work, nothing to
draw is one line, every command says where it wrote; and the figures' axes and legends (integer
ticks, a legend entry for every mark, several games as a grid)."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")

from conftest import write_small_rules  # noqa: E402

from yahtzee_cli.errors import PlotUnavailable, YahtzeeError  # noqa: E402
from yahtzee_cli.formats import plot as P  # noqa: E402
from yahtzee_cli.formats.jsonio import dumps  # noqa: E402
from yahtzee_cli.formats.replay import random_log  # noqa: E402
from yahtzee_cli.rules.engine import preset  # noqa: E402

FORMATS = ["png", "svg", "pdf"]


@pytest.fixture
def games(tmp_path: Path) -> Path:
    """A file of six finished two-player Yahtzee games (what `stats --plot` draws in a second)."""
    path = tmp_path / "games.ndjson"
    path.write_bytes(b"".join(dumps(random_log(preset("yahtzee"), s, players=["Anna", "Ben"])) + b"\n"
                              for s in range(6)))
    return path


def _one_line(r: Any, code: int, *says: str) -> None:
    assert r.exit_code == code, (r.exit_code, r.stderr)
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
    for s in says:
        assert s in r.stderr, r.stderr


def _limited() -> None:  # (in the child: writing past 8 KiB fails with EFBIG instead of killing it)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))


@pytest.mark.skipif(sys.platform == "win32", reason="file-size limits are POSIX")
@pytest.mark.parametrize("ext", FORMATS)
def test_a_write_that_fails_midway_is_one_line_in_every_format(yahtzee: list[str], games: Path, ext: str) -> None:
    """A file-size limit (as a full disk would) stops the write partway: PDF had ended in a traceback
    where PNG and SVG gave the OS reason. The old plot stays whole and no temporary file is left."""
    folder = games.parent
    target = folder / f"plot.{ext}"
    target.write_bytes(b"the old plot")
    # matplotlib's first run on a machine writes its font cache (and fontconfig's fc-list its own,
    # saying so on stderr when it cannot): done here without the limit, as any earlier plot would
    with tempfile.TemporaryDirectory() as elsewhere:
        warm = subprocess.run([*yahtzee, "stats", str(games), "--plot", str(Path(elsewhere) / f"warm.{ext}")],
                              capture_output=True, text=True, timeout=120)
    assert warm.returncode == 0, warm.stderr
    r = subprocess.run([*yahtzee, "stats", str(games), "--plot", str(target)], preexec_fn=_limited,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stderr
    assert r.stderr == f"yahtzee: error: cannot write the plot {str(target)!r}: File too large\n"
    assert r.stdout == ""
    assert target.read_bytes() == b"the old plot"
    assert sorted(p.name for p in folder.iterdir()) == ["games.ndjson", f"plot.{ext}"]


@pytest.mark.parametrize("ext", FORMATS)
def test_a_fifo_a_device_or_a_folder_is_refused_before_any_work(cli: Any, games: Path, tmp_path: Path,
                                                                ext: str) -> None:
    fifo = tmp_path / f"pipe.{ext}"
    os.mkfifo(fifo)
    (tmp_path / f"dir.{ext}").mkdir()
    (tmp_path / f"full.{ext}").symlink_to("/dev/full")  # a full device, by a name with a plot's suffix
    for name, kind in ((f"pipe.{ext}", "a FIFO (named pipe)"), (f"dir.{ext}", "a folder"), (f"full.{ext}", "a device")):
        target = tmp_path / name
        for cmd in (["stats", str(games)], ["simulate", "-S", "random", "-n", "20", "--seed", "1", "-w", "1"]):
            r = cli([*cmd, "--plot", str(target)])
            _one_line(r, 2, f"cannot write the plot to {str(target)!r}: it is {kind}, not a regular file")
            assert r.stdout == ""
    assert (tmp_path / f"full.{ext}").is_symlink() and fifo.is_fifo()


def test_an_unwritable_folder_is_refused_before_any_work(cli: Any, games: Path, tmp_path: Path) -> None:
    if sys.platform.startswith("linux"):  # /proc/self takes no new file, whoever asks
        r = cli(["stats", str(games), "--plot", "/proc/self/stats.png"])
        _one_line(r, 2, "cannot write the plot '/proc/self/stats.png': its folder '/proc/self' is not writable")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):
            pytest.skip("this user may write anywhere (root)")
        r = cli(["stats", str(games), "--plot", str(locked / "s.pdf")])
        _one_line(r, 2, "is not writable")
    finally:
        locked.chmod(0o700)


def test_every_plot_says_where_it_went(cli: Any, games: Path, tmp_path: Path) -> None:
    rules = write_small_rules(tmp_path)
    runs = {
        "stats.png": ["stats", str(games)],
        "sim.svg": ["simulate", "-S", "random", "-n", "50", "--seed", "1", "-w", "1"],
        "solve.pdf": ["solve", "--rules", rules, "--distribution"],
        "hint.png": ["hint", "13356", "--rules", rules, "--distribution", "--top", "2"],
    }
    for name, cmd in runs.items():
        target = tmp_path / name
        r = cli([*cmd, "--plot", str(target)])
        assert r.exit_code == 0, r.stderr
        assert f"yahtzee: wrote {target}\n" in r.stderr and target.stat().st_size > 0
    # an existing plot is replaced whole, keeping its permissions
    target = tmp_path / "stats.png"
    target.chmod(0o640)
    assert cli(["stats", str(games), "--plot", str(target)]).exit_code == 0
    assert target.stat().st_mode & 0o777 == 0o640


def test_analyze_says_where_it_wrote(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "solo.json"
    path.write_bytes(dumps(random_log(preset("yahtzee"), 5)))
    r = cli(["analyze", str(path), "-w", "1", "--plot", str(tmp_path / "a.png")])
    assert r.exit_code == 0, r.stderr
    assert f"yahtzee: wrote {tmp_path / 'a.png'}\n" in r.stderr


def test_nothing_to_draw_is_one_line_and_no_file(cli: Any, fixtures_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "s.png"
    r = cli(["stats", str(fixtures_dir / "logs" / "in-progress.json"), "--plot", str(target)])
    _one_line(r, 1, "nothing to plot: no finished games", repr(str(target)), "not written")
    assert r.stdout == "" and not target.exists()
    with pytest.raises(YahtzeeError, match="nothing to plot: no game was graded"):
        P.analyze_figure([], target)
    with pytest.raises(YahtzeeError, match="nothing to plot: no games were played"):
        P.simulate_figure([{"seat": 1, "player": "optimal", "strategy": "optimal", "mean": 0.0,
                            "histogram": {"bins": []}}], target)
    assert not target.exists()


def test_a_bad_target_is_a_plot_unavailable(tmp_path: Path) -> None:
    (tmp_path / "d.svg").mkdir()
    with pytest.raises(PlotUnavailable, match="it is a folder"):
        P.check_plot_target(tmp_path / "d.svg")
    assert P.check_plot_target(tmp_path / "new.svg") == tmp_path / "new.svg"


# --------------------------------------------------------------------------- axes, legends, grid


def _series(games: int, wins_every: int = 2) -> list[dict[str, Any]]:
    """analyze_series-shaped games: two players' 13 values, win chances on every `wins_every`-th game."""
    out = []
    for g in range(games):
        game: dict[str, Any] = {"title": f"f.json:{g + 1}: game {g + 1}",
                                "series": {"Anna": [250.0 - 9 * i for i in range(13)],
                                           "Ben": [240.0 - 8 * i for i in range(13)]}}
        if g % wins_every == 0:
            game["wins"] = {"Anna": [0.5] * 13, "Ben": [0.5] * 13}
        out.append(game)
    return out


def _integer_ticks(ax: Any) -> bool:
    lo, hi = ax.get_xlim()
    ticks = [t for t in ax.get_xticks() if lo <= t <= hi]
    return bool(ticks) and all(float(t).is_integer() for t in ticks)


def _legend_covers_every_mark(ax: Any) -> bool:
    marks = [a for a in [*ax.get_lines(), *ax.patches] if a.get_gid()]
    legend = ax.get_legend()
    return legend is not None and len(legend.get_texts()) == len(marks) and all(
        not a.get_label().startswith("_") for a in marks)


class _Book:
    """The little of a stats Book stats_figure reads: two players' games of one rule set."""

    def __init__(self, games: int) -> None:
        self.series = {"Anna": [(i, 200 + i, "yahtzee") for i in range(games)],
                       "Ben": [(i, 190 + 2 * i, "yahtzee") for i in range(games)]}

    def rule_set_order(self) -> list[str]:
        return ["yahtzee"]


@pytest.mark.parametrize("games", [2, 3, 6])
def test_stats_axes_count_whole_games_and_the_legend_names_the_dots(games: int, tmp_path: Path) -> None:
    fig = P.stats_figure(_Book(games), tmp_path / "s.png")  # type: ignore[arg-type]
    (ax,) = fig.get_axes()
    assert _integer_ticks(ax) and _legend_covers_every_mark(ax)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "Anna: a game's score" in labels and "Anna: mean of the last 10" in labels


def test_every_figure_has_integer_x_ticks_and_a_legend_for_every_mark(tmp_path: Path) -> None:
    seats = [{"seat": 1, "player": "greedy", "strategy": "greedy", "mean": 217.3,
              "histogram": {"bins": [{"low": 200, "high": 210, "count": 3}, {"low": 210, "high": 220, "count": 5}]}}]
    figs = [P.simulate_figure(seats, tmp_path / "a.png"),
            P.distribution_figure([("x", [[200, 0.25], [201, 0.5], [202, 0.25]])], tmp_path / "b.png", target=201),
            P.analyze_figure(_series(1), tmp_path / "c.png")]
    for fig in figs:
        for ax in fig.get_axes():
            assert _integer_ticks(ax), ax.get_title()
            assert _legend_covers_every_mark(ax), ax.get_title()


@pytest.mark.parametrize("games", [1, 2, 3, 4, 6])
def test_analyze_lays_games_out_in_at_most_three_columns(games: int, tmp_path: Path) -> None:
    fig = P.analyze_figure(_series(games), tmp_path / "a.png")
    axes = fig.get_axes()
    columns = {round(ax.get_position().x0, 3) for ax in axes}
    assert len(columns) == min(games, P.GRID_COLUMNS)
    width, height = fig.get_size_inches() * 120
    rows = -(-games // P.GRID_COLUMNS)
    assert width <= 1900 and height <= 2 * rows * 400  # (it was 960 x 5184 for six games of two panels)
    # panels game by game, the chances under their game's scores
    titles = [ax.get_title() for ax in axes]
    assert titles[:3] == ["f.json:1: game 1", "f.json:1: game 1: chance to win", "f.json:2: game 2"][:len(titles)]
    for k in range(len(axes) - 1):
        if titles[k + 1].endswith("chance to win"):
            assert axes[k + 1].get_position().x0 == pytest.approx(axes[k].get_position().x0)
            assert axes[k + 1].get_position().y1 < axes[k].get_position().y0
