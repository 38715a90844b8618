"""`--plot`: every figure is a valid PNG, SVG or PDF whose plotted data (read back from the file, where
the figure embeds what its artists hold) equals the numbers the same command prints with --json."""

from __future__ import annotations

import json
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("matplotlib")  # the plot extra (installed by the test extra: CI always runs these)

from conftest import write_small_rules  # noqa: E402

from yahtzee_cli.formats.jsonio import dumps  # noqa: E402
from yahtzee_cli.formats.replay import random_log  # noqa: E402
from yahtzee_cli.rules.engine import preset  # noqa: E402


def read_back(path: Path) -> list[dict[str, Any]]:
    """The figure data a plot file carries, read from the file itself (format by its magic bytes)."""
    raw = path.read_bytes()
    if raw.startswith(b"\x89PNG\r\n\x1a\n"):
        pos = 8
        while pos < len(raw):
            (length,) = struct.unpack(">I", raw[pos:pos + 4])
            kind, body = raw[pos + 4:pos + 8], raw[pos + 8:pos + 8 + length]
            if kind == b"tEXt" and body.startswith(b"Description\0"):
                return json.loads(body.split(b"\0", 1)[1])
            if kind == b"IEND":
                break
            pos += 12 + length
        raise AssertionError("no Description chunk in the PNG")
    if raw.startswith(b"%PDF-"):
        m = re.search(rb"/Subject \((.*?)(?<!\\)\)", raw, re.S)
        assert m, "no Subject in the PDF's information dictionary"
        text = re.sub(rb"\\([()\\])", rb"\1", m.group(1))
        return json.loads(text)
    root = ET.fromstring(raw)  # SVG: the Dublin Core description in <metadata>
    for el in root.iter():
        if el.tag.endswith("}description") and el.text:
            return json.loads(el.text)
    raise AssertionError("no dc:description in the SVG")


@pytest.fixture
def small_rules(tmp_path: Path) -> str:
    return write_small_rules(tmp_path)


def test_simulate_plot_is_each_seats_histogram(cli: Any, tmp_path: Path) -> None:
    png = tmp_path / "sim.png"
    res = cli(["simulate", "--players", "greedy,random", "-n", "400", "--seed", "3", "-w", "1", "--json",
               "--plot", str(png)])
    assert res.exit_code == 0, res.stderr
    seats = json.loads(res.stdout)["seats"]
    (panel,) = read_back(png)
    for seat in seats:
        bins = seat["histogram"]["bins"]
        games = sum(b["count"] for b in bins)
        step = panel["steps"][f"seat-{seat['seat']}"]
        assert step["edges"] == [b["low"] for b in bins] + [bins[-1]["high"]]
        assert step["values"] == pytest.approx([b["count"] / games / (b["high"] - b["low"]) for b in bins])
        assert panel["lines"][f"mean-{seat['seat']}"][0][0] == pytest.approx(seat["mean"])


def test_solve_distribution_plot_is_the_pmf_and_its_cdf(cli: Any, tmp_path: Path, small_rules: str) -> None:
    svg = tmp_path / "solve.svg"
    res = cli(["solve", "--rules", small_rules, "--distribution", "--target", "120", "--json", "--plot", str(svg)])
    assert res.exit_code == 0, res.stderr
    pmf = json.loads(res.stdout)["distribution"]["pmf"]
    top, bottom = read_back(svg)
    assert top["lines"]["pmf-0"] == pmf  # the same floats, written and read back exactly
    cdf = bottom["lines"]["cdf-0"]
    assert [x for x, _ in cdf] == [s for s, _ in pmf]
    assert cdf[-1][1] == pytest.approx(1.0) and [y for _, y in cdf] == sorted(y for _, y in cdf)
    assert top["lines"]["target"][0][0] == 120 and bottom["lines"]["target"][0][0] == 120


def test_hint_distribution_plot_has_every_option_shown(cli: Any, tmp_path: Path, small_rules: str) -> None:
    pdf = tmp_path / "hint.pdf"
    res = cli(["hint", "13356", "--rules", small_rules, "--distribution", "--top", "2", "--json", "--plot", str(pdf)])
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    top, _ = read_back(pdf)
    assert len(out["options"]) == 2
    for i, option in enumerate(out["options"]):
        assert top["lines"][f"pmf-{i}"] == option["pmf"]
    assert top["lines"]["target"][0][0] == out["target"]


def test_stats_plot_is_each_players_scores_and_rolling_mean(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "g.ndjson"
    games = [random_log(preset("yahtzee"), seed, players=["Anna", "Ben"]) for seed in range(14)]
    path.write_bytes(b"".join(dumps(g) + b"\n" for g in games))
    png = tmp_path / "stats.png"
    res = cli(["stats", str(path), "--json", "--plot", str(png)])
    assert res.exit_code == 0, res.stderr
    players = {p["player"]: p for p in json.loads(res.stdout)["players"]}
    (panel,) = read_back(png)
    assert panel["title"] == "yahtzee"
    for name, p in players.items():
        scores = [y for _, y in panel["lines"][f"scores:{name}"]]
        rolling = [y for _, y in panel["lines"][f"rolling:{name}"]]
        assert len(scores) == p["games"] == 14 and max(scores) == p["best"]
        assert round(sum(scores) / len(scores), 2) == p["mean"]
        assert round(rolling[-1], 2) == p["last_mean"]  # the rolling mean ends at the last-10 mean


def test_plot_needs_distribution_and_a_known_format(cli: Any, tmp_path: Path, small_rules: str) -> None:
    res = cli(["solve", "--rules", small_rules, "--plot", str(tmp_path / "x.png")])
    assert res.exit_code == 2 and "--distribution" in res.stderr
    res = cli(["simulate", "-S", "random", "-n", "10", "--seed", "1", "--plot", str(tmp_path / "x.jpeg")])
    assert res.exit_code == 2 and ".png, .svg, .pdf" in res.stderr and res.stdout == ""
    res = cli(["simulate", "-S", "random", "-n", "10", "--seed", "1", "--plot", str(tmp_path / "no" / "x.png")])
    assert res.exit_code == 2 and "no folder" in res.stderr


def test_analyze_plot_is_each_players_expected_score_after_every_box(cli: Any, tmp_path: Path) -> None:
    """Per game a panel of the expected final scores and, for a game of two or more, one of the chances
    to win after each box written: --json's `made` values and `win_probability` of the box decisions
    (a solo game has no chances: one panel)."""
    games = [random_log(preset("yahtzee"), seed, players=["Anna", "Ben"]) for seed in (1, 2)]
    games.append(random_log(preset("yahtzee"), 3))
    path = tmp_path / "two.ndjson"
    path.write_bytes(b"".join(dumps(g) + b"\n" for g in games))
    svg = tmp_path / "analyze.svg"
    res = cli(["analyze", str(path), "--json", "--plot", str(svg), "-w", "1"])
    assert res.exit_code == 0, res.stderr
    records = [json.loads(line) for line in res.stdout.splitlines()]
    panels = read_back(svg)
    graded = [r for r in records if r["type"] == "game"]
    assert len(graded) == 3 and len(panels) == 2 + 2 + 1
    at = 0
    for rec in graded:
        title = f"{path}:{rec['line']}: game {rec['game']}"
        panel = panels[at]
        assert panel["title"] == title
        names = [p["name"] for p in rec["players"]]
        for name in names:
            made = [d["made"]["value"] for d in rec["decisions"] if d["player"] == name and d["decision"] == "box"]
            assert len(made) == 13
            assert panel["lines"][f"expected:{name}"] == [[i + 1, v] for i, v in enumerate(made)]
        at += 1
        if len(names) < 2:
            assert all(d["win_probability"] is None for d in rec["decisions"])
            continue
        panel = panels[at]
        at += 1
        assert panel["title"] == f"{title}: chance to win"
        for name in names:
            wins = [d["win_probability"] for d in rec["decisions"] if d["player"] == name and d["decision"] == "box"]
            assert len(wins) == 13 and all(0.0 <= w <= 1.0 for w in wins)
            assert panel["lines"][f"win:{name}"] == [[i + 1, w] for i, w in enumerate(wins)]
        # the game's last box leaves its result: 1 for a win, 0 for a loss, a half for a tie of two
        last = rec["decisions"][-1]
        assert last["decision"] == "box" and last["win_probability"] in (0.0, 0.5, 1.0)
        assert last["win_probability"] == (1.0 if last["player"] == max(
            rec["players"], key=lambda p: p["expected_end"])["name"] else 0.0) or last["win_probability"] == 0.5
