"""`yahtzee simulate`: the random strategy, user strategies, reproducibility, statistics, logs, interrupts, CLI."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import REPO as ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.play import simulate as S
from yahtzee_cli.play import strategies as ST
from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver.totals import sheet_totals

PRESETS = list(R.PRESETS)


def bot_source() -> str:
    """The example bot of the docs' simulate section (tested, so the docs stay true)."""
    text = (ROOT / "docs" / "strategy.md").read_text()
    blocks = re.findall(r"```python\n(# mybot\.py.*?)```", text, re.S)
    assert blocks, "docs/strategy.md lost its example bot (a ```python block starting with '# mybot.py')"
    return blocks[0]


@pytest.fixture
def bot(tmp_path: Path) -> str:
    path = tmp_path / "mybot.py"
    path.write_text(bot_source())
    return f"{path}:play"


def write_bot(tmp_path: Path, body: str, name: str = "bot") -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    return f"{path}:play"


# --------------------------------------------------------------------------- rules' int-only totals


@st.composite
def sheets(draw: st.DrawFn) -> tuple[R.RuleSet, list[R.Column]]:
    name = draw(st.sampled_from(PRESETS))
    cols = draw(st.integers(1, 3))
    add = draw(st.booleans())
    mult = tuple(draw(st.lists(st.integers(1, 3), min_size=cols, max_size=cols)))
    thr = draw(st.integers(0, 105))
    rules = R.preset(name, {"columns": cols, "column_multipliers": mult, "add_columns": add,
                            "upper_bonus_threshold": thr})
    columns = []
    for _ in range(cols):
        scores = tuple(draw(st.integers(0, 60)) for _ in rules.boxes)
        columns.append(R.Column(scores, draw(st.sampled_from([0, 100, 300]))))
    return rules, columns


@settings(max_examples=60, deadline=None)
@given(sheets())
def test_compiled_totals_match_sheet_total(case: tuple[R.RuleSet, list[R.Column]]) -> None:
    rules, columns = case
    scores = np.array([[list(c.scores) for c in columns]], dtype=np.int64)
    ybonus = np.array([[c.yahtzee_bonus for c in columns]], dtype=np.int64)
    totals, hit = sheet_totals(rules, scores, ybonus)
    assert int(totals[0]) == R.sheet_total(rules, columns)
    assert hit[0].tolist() == [R.column_totals(rules, c).upper_bonus > 0 for c in columns]


def test_roll_budget_functions_keep_the_rules_semantics() -> None:
    maxi, yahtzee = R.preset("maxi-yatzy"), R.preset("yahtzee")
    assert R.rolls_allowed(maxi, 2) == 5 and R.saved_after(maxi, 2, 1) == 4
    assert R.rolls_allowed(yahtzee, 2) == 3 and R.saved_after(yahtzee, 2, 1) == 0
    assert R.upper_bonus_points(63, 63, 35) == 35 and R.upper_bonus_points(62, 63, 35) == 0
    assert R.weighted_total([10, 20, 5], [1, 2, 3], True) == 65
    assert R.weighted_total([10, 20, 5], [1, 2, 3], False) == 40


# --------------------------------------------------------------------------- random strategy


@pytest.mark.parametrize("name", PRESETS)
def test_random_games_are_complete_and_totals_follow_the_rules(name: str) -> None:
    rules = R.preset(name)
    b = ST.random_play(rules, 11, 0, 300, record=True)
    assert (b.scores >= 0).all()  # every box filled
    for g in range(0, 300, 37):
        cols = [R.Column(tuple(int(v) for v in b.scores[g, c]), int(b.yahtzee_bonus[g, c]))
                for c in range(rules.settings.columns)]
        assert int(b.totals[g]) == R.sheet_total(rules, cols)
    assert b.n_turns is not None and (b.n_turns == rules.settings.columns * len(rules.boxes)).all()


def test_random_is_reproducible_whatever_the_chunking() -> None:
    rules = R.preset("yahtzee")
    whole = ST.random_play(rules, 5, 0, 1000, record=True)
    parts = [ST.random_play(rules, 5, a, n, record=True) for a, n in ((0, 1), (1, 499), (500, 500))]
    assert np.array_equal(whole.totals, np.concatenate([p.totals for p in parts]))
    assert np.array_equal(whole.scores, np.concatenate([p.scores for p in parts]))
    assert whole.rolls is not None and parts[2].rolls is not None
    assert np.array_equal(whole.rolls[500:], parts[2].rolls)
    other_seat = ST.random_play(rules, 5, 0, 1000, seat=1)
    other_seed = ST.random_play(rules, 6, 0, 1000)
    assert not np.array_equal(whole.totals, other_seat.totals)
    assert not np.array_equal(whole.totals, other_seed.totals)


def test_saved_rolls_optimal_play_runs_in_fewer_larger_chunks() -> None:
    # a chunk values a turn once for its games whose sheets are alike: saved-rolls play gets larger ones
    maxi, yahtzee = R.preset("maxi-yatzy"), R.preset("yahtzee")
    assert S.chunks_per_worker(maxi, ["optimal"]) == 4
    assert S.chunks_per_worker(maxi, ["greedy", "optimal"]) == 4
    assert S.chunks_per_worker(maxi, ["random"]) == 20
    assert S.chunks_per_worker(yahtzee, ["optimal"]) == 20
    assert S.chunks_per_worker(R.preset("yahtzee", {"saved_rolls": "on"}), ["optimal"]) == 4
    assert [n for _, n in S.chunk_plan(20_000, 1, per_worker=4)] == [5000] * 4
    assert [n for _, n in S.chunk_plan(20_000, 1)] == [1000] * 20
    assert [n for _, n in S.chunk_plan(20_000, 1, record_limit=852, per_worker=4)][:2] == [852, 852]
    # a run that records its games: a seat that plays by stock records its dice in a byte each
    assert S.by_stock_seats(maxi, ["optimal", "greedy", "optimal"]) == 2
    assert S.by_stock_seats(maxi, ["greedy"]) == 0 and S.by_stock_seats(yahtzee, ["optimal"]) == 0
    assert (S.record_cap(maxi), S.record_cap(maxi, 1, 1)) == (852, 6820)  # 64 MiB // 78,720 and // 9,840 bytes a game
    assert S.record_cap(maxi, 2, 1) == S.record_cap(maxi, 2)  # another seat's dice take 8 bytes still


def test_saved_rolls_optimal_play_reports_the_same_whatever_the_workers_and_chunks() -> None:
    # its chunks value sheets alike once: the cut and the threads change which games are valued
    # together, never the games (the shipped Maxi Yatzy fit, what a fresh install plays)
    from yahtzee_cli.solver import saved, saved_fit

    rules = R.preset("maxi-yatzy")
    one = S.simulate(rules, ["optimal"], 2400, 8, workers=1).to_dict()
    threads = S.simulate(rules, ["optimal"], 2400, 8, workers=2).to_dict()
    assert one == threads and one["seats"][0]["exact"] is False
    model = saved_fit.read(rules)
    assert model is not None
    whole = saved.play_with(rules, model, 8, 0, 2400, threads=1).totals  # one call: no cut at all
    assert one["seats"][0]["mean"] == pytest.approx(whole.mean(), abs=1e-9)
    assert one["seats"][0]["sd"] == pytest.approx(whole.std(ddof=1), rel=1e-9)


def test_random_dice_follow_the_stream_convention() -> None:
    """First roll: n draws of stream(seed, game, seat); reroll: the kept dice sorted first, then new draws."""
    from yahtzee_cli.solver.rng import next_die, stream

    rules = R.preset("yahtzee")
    b = ST.random_play(rules, 99, 7, 3, seat=2, record=True)
    assert b.rolls is not None and b.held is not None and b.n_rolls is not None
    for g in range(3):
        state = np.uint64(stream(99, 7 + g, 2))
        for t in range(13):
            k = int(b.n_rolls[g, t])
            first = []
            for _ in range(5):
                f, state = next_die(state)
                state = np.uint64(state)
                first.append(int(f))
            assert b.rolls[g, t, 0].tolist() == first
            for r in range(1, k):
                held = [v for v in b.held[g, t, r - 1].tolist() if v]
                roll = b.rolls[g, t, r].tolist()
                assert roll[: len(held)] == held  # kept dice sorted into the first positions
                for v in roll[len(held):]:
                    f, state = next_die(state)
                    state = np.uint64(state)
                    assert v == int(f)


def test_random_choices_are_uniform() -> None:
    """Each die kept with probability 1/2 (all kept = stop: 1/32 of the choices on 5 dice) and the box
    uniform over the legal ones (first turn: 13 open boxes)."""
    rules = R.preset("yahtzee")
    n = 26_000
    b = ST.random_play(rules, 3, 0, n, record=True)
    assert b.box is not None and b.n_rolls is not None and b.held is not None
    first_boxes = np.bincount(b.box[:, 0], minlength=13)
    expect = n / 13
    assert all(abs(c - expect) < 5 * math.sqrt(expect) for c in first_boxes), first_boxes
    one_roll = float((b.n_rolls == 1).mean())
    assert abs(one_roll - 1 / 32) < 0.002
    held_sizes = (b.held[:, :, 0] > 0).sum(axis=-1)[b.n_rolls > 1]  # dice kept at the first reroll
    mean_kept = float(held_sizes.mean())  # a binomial(5, 1/2) conditioned on "not all five"
    assert abs(mean_kept - (2.5 - 5 / 32) / (31 / 32)) < 0.02


def test_random_sanity_on_yahtzee() -> None:
    rep = S.simulate(R.preset("yahtzee"), ["random"], 20_000, 1, workers=1)
    s = rep.to_dict()["seats"][0]
    assert 40 < s["mean"] < 52 and 14 < s["sd"] < 23
    assert s["p_upper_bonus"] < 0.01


# --------------------------------------------------------------------------- statistics


def test_stats_match_numpy() -> None:
    rules = R.preset("yahtzee")
    b = ST.random_play(rules, 21, 0, 5000)
    summary, totals = S.summarize(rules, b)
    stats = S.seat_stats(rules, summary)
    assert stats["mean"] == pytest.approx(totals.mean(), rel=1e-12)
    assert stats["sd"] == pytest.approx(totals.std(ddof=1), rel=1e-9)
    assert stats["sem"] == pytest.approx(totals.std(ddof=1) / math.sqrt(5000), rel=1e-9)
    assert stats["min"] == totals.min() and stats["max"] == totals.max()
    for p in S.PERCENTILES:
        assert stats["percentiles"][f"p{p}"] == int(np.percentile(totals, p, method="inverted_cdf"))
    for k, key in enumerate(rules.keys):
        assert stats["mean_per_box"][key] == pytest.approx(b.scores[:, 0, k].mean())
    assert stats["mean_extra_bonus"] == pytest.approx(b.yahtzee_bonus.sum() / 5000)
    y = rules.yahtzee_index
    assert stats["p_yahtzee"] == pytest.approx((b.scores[:, 0, y] == 50).mean())
    bins = stats["histogram"]["bins"]
    assert sum(x["count"] for x in bins) == 5000
    assert len(bins) <= 30 and bins[0]["low"] <= totals.min() and bins[-1]["high"] > totals.max()


def test_stats_without_a_yahtzee_box_and_multi_column() -> None:
    box_free = R.rules_from_data({"name": "tiny", "boxes": [{"key": "ones", "kind": "upper", "face": 1},
                                                            {"key": "chance", "kind": "chance"}]})
    run = S.simulate(box_free, ["random"], 200, 3, workers=1).to_dict()
    s = run["seats"][0]
    assert s["p_yahtzee"] is None and s["yahtzee_points"] is None and run["games"] == 200
    t = S.simulate(R.preset("triple-yahtzee"), ["random"], 200, 3, workers=1).to_dict()["seats"][0]
    assert len(t["mean_per_box_by_column"]) == 3


# --------------------------------------------------------------------------- reproducibility, matches, interrupt


def test_same_seed_same_report_whatever_the_workers() -> None:
    rules = R.preset("yatzy")
    one = S.simulate(rules, ["random"], 3000, 42, workers=1)
    threads = S.simulate(rules, ["random"], 3000, 42, workers=2)
    procs = S.simulate(rules, ["random"], 3000, 42, workers=2, processes=True)
    assert one.to_dict() == threads.to_dict() == procs.to_dict()
    assert S.local_mode(["random"], 2) == "threads" and S.local_mode(["x:y"], 2) == "processes"
    assert S.local_mode(["x:y"], 1) == "inline"
    # another seed plays other games: the figures differ, not just the seed they are labelled with
    other = S.simulate(rules, ["random"], 3000, 43, workers=1).to_dict()
    same = one.to_dict()
    assert other.pop("seed") == 43 and same.pop("seed") == 42
    assert other["seats"][0]["mean"] != same["seats"][0]["mean"]
    assert other["seats"][0]["histogram"] != same["seats"][0]["histogram"]


def test_percentiles_and_histogram_of_a_hand_built_example() -> None:
    """Five games scoring 0, 4, 5, 99 and 100. Nearest rank: the p-th percentile is the score of the
    ceil(p/100 x 5)-th game in order: p5 and p20 -> 1st (0), p25 and p40 -> 2nd (4), p50 and p60 ->
    3rd (5), p75 and p80 -> 4th (99), p95 and p99 -> 5th (100). Histogram: 0..100 takes 101 bins of
    width 1 and 51 of width 2, too many for 30; width 5 takes 21: [0, 5) holds 0 and 4, [5, 10) holds
    5, [95, 100) holds 99, [100, 105) holds 100, and the 16 bins between are empty."""
    hist = np.zeros(101, dtype=np.int64)
    for score in (0, 4, 5, 99, 100):
        hist[score] += 1
    want = {5: 0, 20: 0, 25: 4, 40: 4, 50: 5, 60: 5, 75: 99, 80: 99, 95: 100, 99: 100}
    assert {p: S._percentile(hist, 5, p) for p in want} == want
    h = S.histogram_bins(hist)
    assert h["width"] == 5 and len(h["bins"]) == 21
    assert [b["low"] for b in h["bins"]] == list(range(0, 105, 5))
    assert all(b["high"] == b["low"] + 5 for b in h["bins"])
    counts = {b["low"]: b["count"] for b in h["bins"] if b["count"]}
    assert counts == {0: 2, 5: 1, 95: 1, 100: 1}
    # through the report: the same figures for a seat that played exactly these games
    rules = R.preset("yahtzee")
    seat = S.SeatSummary.empty(rules)
    seat = S.SeatSummary(5, hist, seat.box_sum, 0, 0, 0)
    stats = S.seat_stats(rules, seat)
    assert stats["percentiles"] == {"p5": 0, "p25": 4, "p50": 5, "p75": 99, "p95": 100, "p99": 100}
    assert (stats["min"], stats["max"], stats["mean"]) == (0, 100, 41.6)
    # SD with n - 1: the squared deviations from 41.6 add up to 11,189.2, over 4
    assert stats["sd"] == pytest.approx(math.sqrt(11189.2 / 4)) and stats["histogram"] == h


def test_logs_identical_whatever_the_workers() -> None:
    rules = R.preset("yahtzee")
    a: list[bytes] = []
    b: list[bytes] = []
    S.simulate(rules, ["random", "random"], 450, 8, workers=1, log_sink=a.append)
    S.simulate(rules, ["random", "random"], 450, 8, workers=2, log_sink=b.append, processes=True)
    c: list[bytes] = []
    S.simulate(rules, ["random", "random"], 450, 8, workers=2, log_sink=c.append)
    assert b"".join(a) == b"".join(b) == b"".join(c)
    assert b"".join(a).count(b"\n") == 450


def test_match_counts_wins_and_ties() -> None:
    rep = S.simulate(R.preset("yahtzee"), ["random", "random", "random"], 2000, 4, workers=1)
    seats = rep.to_dict()["seats"]
    wins = sum(s["wins"] for s in seats)
    tie_games = 2000 - wins
    assert tie_games > 0  # random games tie now and then
    assert all(s["ties"] <= tie_games for s in seats)
    assert sum(s["ties"] for s in seats) >= 2 * tie_games  # a tie involves at least two seats
    assert all(abs(s["win_rate"] - 1 / 3) < 0.05 for s in seats)
    # each seat plays the very games it would play alone in that seat
    solo = ST.random_play(R.preset("yahtzee"), 4, 0, 2000, seat=1)
    assert seats[1]["mean"] == pytest.approx(solo.totals.mean())


def test_keyboard_interrupt_returns_the_finished_games() -> None:
    calls: list[int] = []

    def progress(done: int) -> None:
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    rep = S.simulate(R.preset("yahtzee"), ["random"], 50_000, 3, workers=1, on_progress=progress)
    assert rep.interrupted and rep.games == calls[-1] and 0 < rep.games < 50_000
    d = rep.to_dict()
    assert d["interrupted"] and d["games"] == rep.games and d["games_requested"] == 50_000
    full = S.simulate(R.preset("yahtzee"), ["random"], rep.games, 3, workers=1).to_dict()
    assert {k: v for k, v in d.items() if k not in ("interrupted", "games_requested")} == \
        {k: v for k, v in full.items() if k not in ("interrupted", "games_requested")}


def test_keyboard_interrupt_with_worker_processes() -> None:
    def progress(done: int) -> None:
        raise KeyboardInterrupt

    rep = S.simulate(R.preset("yahtzee"), ["random"], 200_000, 3, workers=2, on_progress=progress, processes=True)
    assert rep.interrupted and 0 < rep.games < 200_000


# --------------------------------------------------------------------------- logs: validate and replay


def _replayed_totals(log_bytes: bytes) -> list[list[int]]:
    """Each game's totals per player as `replay` computes them from the log alone, after `validate`
    found every game valid and finished."""
    import io

    from yahtzee_cli.formats.replay import replay_game
    from yahtzee_cli.formats.validate import validate_stream

    reports = list(validate_stream(io.BytesIO(log_bytes)))
    assert reports and all(r.valid and r.finished for r in reports), [r.problems for r in reports if r.problems][:1]
    out = []
    for line in log_bytes.splitlines():
        rp = replay_game(loads(line))
        assert rp.game_over
        out.append([p.total for p in rp.players])
    return out


@pytest.mark.parametrize("name", PRESETS)
def test_random_logs_validate_and_replay_to_the_totals(name: str) -> None:
    rules = R.preset(name)
    logs: list[bytes] = []
    batch = ST.random_play(rules, 17, 0, 60)
    S.simulate(rules, ["random"], 60, 17, workers=1, log_sink=logs.append)
    data = b"".join(logs)
    assert [t[0] for t in _replayed_totals(data)] == batch.totals.tolist()
    first = loads(data.splitlines()[0])
    assert first["format"] == "yahtzee-log/1" and first["meta"] == {"seed": 17, "game": 1, "strategies": ["random"]}
    assert any("held" in t for t in first["turns"])


def test_match_logs_with_house_rules_validate() -> None:
    rules = R.preset("yahtzee", {"joker": "free", "fill_in_order": True})
    logs: list[bytes] = []
    rep = S.simulate(rules, ["random", "random"], 40, 2, workers=1, log_sink=logs.append)
    totals = _replayed_totals(b"".join(logs))
    first = loads(b"".join(logs).splitlines()[0])
    assert first["rules"] == {"preset": "yahtzee", "settings": {"joker": "free", "fill_in_order": True}}
    assert first["players"] == ["random 1", "random 2"]
    assert [t["player"] for t in first["turns"][:4]] == ["random 1", "random 2"] * 2
    assert np.mean([t[0] for t in totals]) == pytest.approx(rep.to_dict()["seats"][0]["mean"])


# --------------------------------------------------------------------------- user strategies


def test_readme_bot_plays_legal_games(bot: str) -> None:
    rules = R.preset("yahtzee")
    b = S.play(rules, bot, 1, 0, 30, record=True)
    assert (b.scores >= 0).all() and b.totals.mean() > 100  # much better than random (about 46)
    again = S.play(rules, bot, 1, 10, 5)
    assert np.array_equal(again.totals, b.totals[10:15])
    logs: list[bytes] = []
    S.simulate(rules, [bot], 30, 1, workers=1, log_sink=logs.append)
    assert [t[0] for t in _replayed_totals(b"".join(logs))] == b.totals.tolist()


def test_user_strategy_sees_the_rules_and_same_dice_as_random(tmp_path: Path) -> None:
    """A bot that keeps like `random` cannot, but a bot that never rerolls sees exactly the first rolls
    of the stream; answers by alias and by column work."""
    spec = write_bot(tmp_path, "def play(pos):\n"
                               "    assert pos.rolls_left == 2 and pos.roll == 1\n"
                               "    return pos.options[-1] if len(pos.columns) > 1 else "
                               "pos.rules.boxes[pos.options[0].box].aliases[0] if pos.rules.boxes["
                               "pos.options[0].box].aliases else pos.rules.keys[pos.options[0].box]\n")
    for name in ("yahtzee", "triple-yatzy"):
        rules = R.preset(name)
        b = S.play(rules, spec, 3, 0, 5, record=True)
        assert b.rolls is not None and (b.n_rolls == 1).all()
        assert (b.scores >= 0).all()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("def play(pos):\n    return 'nonsense'", "unknown box 'nonsense'"),
        ("def play(pos):\n    return [7] if pos.rolls_left else 'chance'", "not among the dice"),
        ("def play(pos):\n    return 'yahtzee' if pos.turn == 2 else "
         "pos.rules.keys[pos.options[0].box] if pos.turn == 1 else 'yahtzee'", "already filled"),
        ("def play(pos):\n    return None", "passed, which is not allowed"),
        ("def play(pos):\n    return [pos.dice[0]]", "with no rolls left"),
        ("def play(pos):\n    raise RuntimeError('boom')", "raised RuntimeError: boom"),
        ("def play(pos):\n    return 'chance:2'", "column '2' does not exist"),
    ],
)
def test_illegal_answers_name_the_game_and_turn(tmp_path: Path, body: str, message: str) -> None:
    spec = write_bot(tmp_path, body)
    with pytest.raises(ST.StrategyError) as err:
        S.simulate(R.preset("yahtzee"), [spec], 5, 1, workers=1)
    assert message in str(err.value) and "game 1" in str(err.value) and "turn " in str(err.value)


def test_user_strategy_may_pass_when_must_zero_is_off(tmp_path: Path) -> None:
    spec = write_bot(tmp_path, "def play(pos):\n"
                               "    if pos.may_pass and pos.turn % 2 == 0:\n        return None\n"
                               "    return max(pos.options, key=lambda o: o.score)\n")
    rules = R.preset("yatzy", {"must_zero": False})
    logs: list[bytes] = []
    S.simulate(rules, [spec], 20, 5, workers=1, log_sink=logs.append)
    data = b"".join(logs)
    assert b'"box":null' in data
    _replayed_totals(data)
    forever = write_bot(tmp_path, "def play(pos):\n    return None if pos.may_pass else pos.options[0]\n", "pass")
    with pytest.raises(ST.StrategyError, match="passed too often: game 1, seat 1 is not over after 750 turns"):
        S.simulate(rules, [forever], 1, 5, workers=1)


def test_bad_strategy_names() -> None:
    with pytest.raises(ST.StrategyError, match="valid: optimal, greedy, random"):
        S.check_strategy("smart")
    with pytest.raises(ST.StrategyError, match="cannot import"):
        S.check_strategy("no_such_module_xyz:play")
    with pytest.raises(ST.StrategyError, match="has no function"):
        S.check_strategy("math:nope")


# --------------------------------------------------------------------------- CLI


def test_cli_text_report(cli) -> None:
    r = cli(["simulate", "-S", "random", "-n", "500", "--seed", "4", "-w", "1"])
    assert r.exit_code == 0, r.stderr
    out = r.stdout
    assert out.startswith("yahtzee, random: 500 games, seed 4\n")
    for label in ("mean", "SD", "SEM", "p5", "p99", "P(upper bonus)", "P(yahtzee box scored 50)",
                  "mean extra-Yahtzee bonus", "mean per box:", "final scores (bins of"):
        assert label in out
    assert re.search(r"\| +[\d,]+ #+", out)  # histogram bars
    assert "seed" not in r.stderr  # the seed was given


def test_cli_json_is_the_core_report_and_prints_chosen_seed(cli) -> None:
    r = cli(["simulate", "-S", "random", "-n", "300", "--json", "-w", "1"])
    assert r.exit_code == 0
    seed = int(re.search(r"seed (\d+) \(repeat this run with --seed \1\)", r.stderr).group(1))
    data = loads(r.stdout)
    assert data["seed"] == seed and data["games"] == 300 and data["players"] == ["random"]
    (seat,) = data["seats"]  # one strategy has the shape of a match with one seat
    assert seat["strategy"] == "random" and seat["win_rate"] is None
    assert seat["exact"] is None and data["exact"] is None  # random plays no table: neither exact nor approximate
    again = cli(["simulate", "-S", "random", "-n", "300", "--json", "--seed", str(seed), "-w", "1"])
    assert again.stdout == r.stdout
    assert set(seat["histogram"]) == {"width", "bins"}


def test_cli_match(cli) -> None:
    r = cli(["simulate", "--players", "random,random", "-n", "300", "--seed", "4", "-w", "1", "--json"])
    data = loads(r.stdout)
    assert [s["player"] for s in data["seats"]] == ["random 1", "random 2"]
    assert all({"wins", "ties", "win_rate", "tie_rate", "mean", "sd"} <= set(s) for s in data["seats"])
    text = cli(["simulate", "--players", "random,random", "-n", "300", "--seed", "4", "-w", "1"])
    assert "seat 2: random 2" in text.stdout and "wins" in text.stdout


def test_cli_log_out(cli, tmp_path: Path) -> None:
    path = tmp_path / "games.ndjson"
    r = cli(["simulate", "-S", "random", "-n", "25", "--seed", "4", "-w", "1", "--log-out", str(path), "--json"])
    assert r.exit_code == 0
    assert path.read_bytes().count(b"\n") == 25
    v = cli(["validate", "--json", str(path)])
    assert v.exit_code == 0 and loads(v.stdout)["valid"] and loads(v.stdout)["games"] == 25
    lines = [loads(line) for line in cli(["replay", "--json", str(path)]).stdout.splitlines()]
    assert lines[-1]["type"] == "summary" and lines[-1]["games"] == 25  # a batch ends with its tally
    totals = [g["players"][0]["total"] for g in lines[:-1]]
    assert len(totals) == 25 and sum(totals) / 25 == pytest.approx(loads(r.stdout)["seats"][0]["mean"])
    r = cli(["simulate", "-S", "random", "-n", "25", "--seed", "4", "-w", "1", "--log-out", str(path)])
    assert r.exit_code == 0
    r = cli(["simulate", "-S", "random", "-n", "25", "--seed", "4", "-w", "1", "--log-out", "-"])
    assert r.stdout.encode() == path.read_bytes()
    assert "yahtzee, random: 25 games" in r.stderr  # the summary moved to stderr


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["-S", "smart"], 2, "unknown strategy 'smart'"),
        (["-S", "random", "--players", "random,greedy"], 2, "not both"),
        (["--players", "random,,random"], 2, "separated by commas"),
        (["-S", "random", "-n", "0"], 2, "--games must be a whole number from 1 to"),
        (["-S", "random", "--seed", "-1"], 2, "--seed must be"),
        (["-S", "random", "-w", "0"], 2, "--workers must be from 1 to"),
        (["-S", "random", "--scheduler", "tcp://x:1"], 2, "--scheduler needs --backend dask"),
        (["-S", "random", "--json", "--log-out", "-"], 2, "both want stdout"),
        (["-S", "random", "--log-out", "/no/such/dir/x"], 2, "/no/such/dir: no such file or directory"),
        (["-S", "nosuchmod_q:play"], 2, "cannot import strategy module"),
        (["-S", "random", "--rules", "nope"], 2, "unknown preset"),
    ],
)
def test_cli_errors(cli, args: list[str], code: int, message: str) -> None:
    r = cli(["simulate", *args])
    assert r.exit_code == code, r.stdout
    assert r.stderr.startswith("yahtzee: error: ") and message in r.stderr
    assert "Traceback" not in r.stderr


def test_cli_illegal_bot_exits_1(cli, tmp_path: Path) -> None:
    spec = write_bot(tmp_path, "def play(pos):\n    return 'chance'\n")
    r = cli(["simulate", "-S", spec, "-n", "3", "--seed", "1", "-w", "1"])
    assert r.exit_code == 1
    assert "game 1, seat 1, turn 2" in r.stderr and "already filled" in r.stderr


def test_installed_script_with_worker_processes(tmp_path: Path, bot: str, yahtzee: list[str]) -> None:
    """Through the `yahtzee` script: spawned workers (spawn-safe entry point) give the in-process result,
    and a user bot given as a file path works in the workers too."""
    env = {**os.environ, "NO_COLOR": "1"}
    args = [*yahtzee, "simulate", "-S", "random", "-n", "4000", "--seed", "12", "--json"]
    two = subprocess.run([*args, "-w", "2"], capture_output=True, text=True, env=env, check=False, timeout=300)
    assert two.returncode == 0, two.stderr
    one = subprocess.run([*args, "-w", "1"], capture_output=True, text=True, env=env, check=False, timeout=300)
    assert two.stdout == one.stdout
    botrun = subprocess.run([*yahtzee, "simulate", "-S", bot, "-n", "300", "--seed", "2", "-w", "2", "--json"],
                            capture_output=True, text=True, env=env, check=False, timeout=300, cwd=tmp_path)
    assert botrun.returncode == 0, botrun.stderr
    assert loads(botrun.stdout)["games"] == 300


def test_python_m_entry_point_with_workers() -> None:
    p = subprocess.run([sys.executable, "-m", "yahtzee_cli", "simulate", "-S", "random", "-n", "300", "--seed",
                        "1", "-w", "2", "--json"], capture_output=True, text=True, check=False, timeout=300)
    assert p.returncode == 0, p.stderr
    assert loads(p.stdout)["games"] == 300


@pytest.mark.skipif(sys.platform == "win32", reason="needs POSIX signals")
@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_prints_the_summary_of_finished_games(tmp_path: Path, workers: str, yahtzee: list[str]) -> None:
    """A real SIGINT (what Ctrl-C sends) during a long run: exit 130, the JSON summary of the games
    finished, a note on stderr; with -w 2 a user bot runs in worker processes."""
    import signal
    import time

    spec = write_bot(tmp_path, "def play(pos):\n    return pos.options[0]\n") if workers == "2" else "random"
    log = tmp_path / "games.ndjson"
    p = subprocess.Popen([*yahtzee, "simulate", "-S", spec, "-n", "1000000000", "--seed", "3", "--json",
                          "-w", workers, "--log-out", str(log)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    def logged() -> int:  # the games go to a temporary file beside the log until the run ends
        return sum(f.stat().st_size for f in tmp_path.glob(".games.ndjson.*.tmp"))

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not logged():
        time.sleep(0.1)  # wait until some games are finished (and logged)
    assert logged(), "no game was logged within 120 s"
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    data = loads(out)
    assert data["interrupted"] is True and 0 < data["games"] < 1_000_000_000
    assert data["games_requested"] == 1_000_000_000 and data["seats"][0]["mean"] > 0
    assert "interrupted: the summary covers the" in err and "Traceback" not in err
    assert log.read_bytes().count(b"\n") == data["games"]  # every finished game is logged, whole lines


def test_report_of_no_finished_game_has_nulls_not_nan() -> None:
    from yahtzee_cli.formats.jsonio import dumps
    from yahtzee_cli.play.report import simulation_text as render

    rules = R.preset("yahtzee")
    for seats in (("random",), ("random", "greedy")):
        rep = S.Report(rules, seats, 1, 100, [S.SeatSummary.empty(rules) for _ in seats], interrupted=True)
        data = loads(dumps(rep.to_dict()))
        stats = data["seats"][-1]
        assert data["games"] == 0 and stats["mean"] is None and stats["histogram"]["bins"] == []
        assert "0 games" in render(data, "yahtzee")


def test_cli_backend_is_a_closed_choice(cli) -> None:
    r = cli(["simulate", "-S", "random", "--backend", "spark"])
    assert r.exit_code == 2 and "--backend takes local or dask, got 'spark'" in r.stderr
