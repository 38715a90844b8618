"""The exact table with saved rolls capped at K (solver.saved) against a brute force written from the
rules alone, and the build's resumption after an interruption."""

from __future__ import annotations

import functools
import itertools
import math
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from conftest import SAVED_RULES

from yahtzee_cli.errors import NotExact
from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact, saved

TINY = SAVED_RULES


def tiny(cap: int | None) -> R.RuleSet:
    return R.rules_from_data(TINY, {"saved_rolls_cap": cap})


def _prob(dice: tuple[int, ...]) -> float:
    n = len(dice)
    return math.factorial(n) / math.prod(math.factorial(c) for c in Counter(dice).values()) / 6**n


class Brute:
    """Every turn-start value of a saved-rolls game, straight from its definition: a turn begun with s
    saved rolls has 3 + s rolls; stopping with L unused keeps min(L, cap) for later."""

    def __init__(self, rules: R.RuleSet) -> None:
        self.rules = rules
        self.cap = rules.settings.saved_cap
        self.n = rules.dice
        self.rolls = list(R.rolls(self.n))
        self.index = {r: i for i, r in enumerate(self.rolls)}
        self.p = np.array([_prob(r) for r in self.rolls])
        keeps = sorted({k for r in self.rolls for m in range(self.n) for k in itertools.combinations(r, m)})
        self.P = np.zeros((len(keeps), len(self.rolls)))
        for i, k in enumerate(keeps):
            for rest in itertools.product(range(1, 7), repeat=self.n - len(k)):
                self.P[i, self.index[tuple(sorted(k + rest))]] += 6.0 ** -(self.n - len(k))
        kidx = {k: i for i, k in enumerate(keeps)}
        self.subs = [sorted({kidx[k] for m in range(self.n) for k in itertools.combinations(r, m)})
                     for r in self.rolls]
        self.upper = {b: rules.boxes[b].face for b in rules.upper_indices}
        self.t = rules.settings.upper_bonus_threshold

    def totals(self, mask: int) -> set[int]:
        """The upper totals (capped) a column with these boxes filled can have."""
        got = {0}
        for b, face in self.upper.items():
            if mask >> b & 1:
                got = {min(a + n * face, self.t) for a in got for n in range(self.n + 1)}
        return got

    @functools.cache  # noqa: B019 (one instance per test)
    def value(self, mask: int, u: int, stock: int) -> float:
        nb = len(self.rules.boxes)
        if mask == (1 << nb) - 1:
            return float(self.rules.settings.upper_bonus) if u >= self.t else 0.0

        def final(level: int) -> np.ndarray:
            out = np.empty(len(self.rolls))
            for i, r in enumerate(self.rolls):
                legal = R.legal_mask(self.rules, mask, None, r)
                scores = self.rules.natural_scores(r)
                out[i] = max(scores[b] + self.value(mask | 1 << b, min(u + (scores[b] if b in self.upper else 0),
                                                                       self.t), min(level, self.cap))
                             for b in range(nb) if legal >> b & 1)
            return out

        V = final(0)
        for level in range(1, stock + 3):
            E = self.P @ V
            F = final(level)
            V = np.array([max(F[i], max(E[k] for k in self.subs[i])) for i in range(len(self.rolls))])
        return float(self.p @ V)


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[int, saved.SavedTable]:
    mp = pytest.MonkeyPatch()
    mp.setenv("YAHTZEE_CACHE_DIR", str(tmp_path_factory.mktemp("saved")))
    try:
        return {k: saved.get_table(tiny(k))[0] for k in (0, 1, 2)}
    finally:
        mp.undo()


@pytest.mark.parametrize("cap", [0, 1, 2])
def test_every_state_of_the_capped_game_matches_a_brute_force(tables: dict[int, saved.SavedTable], cap: int) -> None:
    tab = tables[cap]
    brute = Brute(tiny(cap))
    checked = 0
    for mask in tab.masks.tolist():
        for u in range(brute.t + 1):
            for stock in range(cap + 1):
                try:
                    got = tab.value(mask, 0, u, stock)
                except KeyError:  # an upper total this mask cannot have, or a stock it cannot hold
                    assert stock > 2 * bin(mask).count("1") or u not in brute.totals(mask), (mask, u, stock)
                    continue
                assert got == pytest.approx(brute.value(mask, u, stock), abs=1e-4), (mask, u, stock)
                checked += 1
    assert checked > 40 * (cap + 1)
    assert tab.mean == pytest.approx(brute.value(0, 0, 0), abs=1e-4)


def test_no_cap_on_saved_rolls_is_the_table_without_them(tables: dict[int, saved.SavedTable]) -> None:
    plain = exact.build(saved.without_saved(tiny(0)))
    assert tables[0].mean == pytest.approx(plain.mean, abs=1e-4)


def test_the_value_grows_with_the_cap_and_with_the_stock(tables: dict[int, saved.SavedTable]) -> None:
    means = [tables[k].mean for k in (0, 1, 2)]
    assert means[0] < means[1] < means[2]
    tab = tables[2]
    assert tab.value(4, 0, 0, 0) < tab.value(4, 0, 0, 1) < tab.value(4, 0, 0, 2)  # one box (3 of a kind) filled
    with pytest.raises(ValueError, match="0 to 2"):
        tab.value(4, 0, 0, 3)
    with pytest.raises(KeyError, match="at most 2"):  # an empty sheet holds no saved rolls: not stored
        tab.value(0, 0, 0, 1)


def test_the_table_keeps_only_the_cells_a_game_can_reach(tables: dict[int, saved.SavedTable]) -> None:
    tab = tables[2]
    lay = tab.lay
    assert tab.W.shape == (lay.cells,) and tab.path.stat().st_size == 4 * lay.cells
    nb = 4
    # a stock's block: every row that can hold it (a turn saves at most 2), most filled first
    for s in range(3):
        rows = [m for m in lay.masks.tolist() if min(2 * bin(m).count("1"), 2) >= s]
        assert lay.sbase[s + 1] - lay.sbase[s] == sum(int(lay.nl[i]) for i in range(len(rows)))
        assert lay.masks[: len(rows)].tolist() == rows
    assert lay.masks[0] == (1 << nb) - 1 and lay.masks[-1] == 0
    dense = (tab.cap + 1) * len(lay.masks) * (tab.t + 1)
    assert lay.cells < dense / 2


def test_an_interrupted_build_goes_on_from_its_finished_layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 tables: dict[int, saved.SavedTable]) -> None:
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    rules = tiny(2)
    calls = 0

    def stop_after_two(done: int, total: int) -> None:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        saved.build(rules, progress=stop_after_two, threads=1)
    assert saved.read(rules) is None
    finished, layers = saved.progress_done(rules) or (0, 0)
    assert 1 < finished < layers  # the terminal layer and the first one computed

    notes: list[str] = []
    seen: list[tuple[int, int]] = []
    tab = saved.build(rules, say=notes.append, progress=lambda d, t: seen.append((d, t)))
    assert any("going on" in n for n in notes)
    assert seen[0][0] > 0 and seen[-1][0] == seen[-1][1]  # counted from the finished layers
    assert np.array_equal(np.asarray(tab.W), np.asarray(tables[2].W))


def test_rules_without_a_cap_or_with_passes_have_no_saved_table() -> None:
    assert saved.saved_reason(tiny(None)) is not None
    with pytest.raises(NotExact, match="saved_rolls_cap"):
        saved.build(tiny(None))
    passes: dict[str, Any] = {**TINY, "settings": {**TINY["settings"], "must_zero": False}}
    assert "passes" in (saved.saved_reason(R.rules_from_data(passes, {"saved_rolls_cap": 1})) or "")


def test_a_cap_is_a_setting_that_changes_the_fingerprint_only_when_set() -> None:
    maxi = R.load_rules("maxi-yatzy")
    assert maxi.settings.saved_rolls_cap is None
    assert R.load_rules("maxi-yatzy", ["saved_rolls_cap=none"]).fingerprint == maxi.fingerprint
    capped = R.load_rules("maxi-yatzy", ["saved_rolls_cap=3"])
    assert capped.fingerprint != maxi.fingerprint
    assert R.saved_after(capped, 2, 1) == 3 and R.saved_after(maxi, 2, 1) == 4
    with pytest.raises(R.RulesError, match="saved_rolls=on"):
        R.load_rules("yahtzee", ["saved_rolls_cap=3"])


def test_a_hint_values_every_turn_start_as_the_table_does(tables: dict[int, saved.SavedTable],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    # the hint's turn (pure Python) against the build (compiled): averaged over the first roll, the
    # best option with s + 2 rolls left is the table's value of the turn start with s saved
    from yahtzee_cli.play.hint import hint
    from yahtzee_cli.strategy.sources import SavedSource

    rules = tiny(2)
    tab = tables[2]
    src = SavedSource(tab, 2)
    brute = Brute(rules)
    # sheets: fives and sixes (upper: the bonus at 20 in reach or not), three of a kind, chance
    for scores in ((None, None, None, None), (5, None, 0, None), (None, 18, 22, None), (10, 12, None, None)):
        sheet = R.Column(scores)
        upper = min(sum(s for b, s in enumerate(scores) if s is not None and b < 2), 20)
        written = sum(s for s in scores if s is not None)
        for stock in range(min(2 * sum(s is not None for s in scores), 2) + 1):
            mean = sum(p * hint(rules, [sheet], d, stock + 2, stock, src).best.value
                       for d, p in zip(brute.rolls, brute.p, strict=True))
            assert mean == pytest.approx(written + tab.value(sheet.filled_mask, 0, upper, stock), abs=2e-4)
            assert mean == pytest.approx(written + brute.value(sheet.filled_mask, upper, stock), abs=2e-4)
    one = R.Column((None, None, 0, None))
    ev = hint(rules, [one], (6, 6, 6, 6, 5), 2, 1, src)
    assert ev.exact and ev.saved_cap == 2 and ev.to_dict()["saved_rolls_cap"] == 2
    # stopping with rolls left names its box, valued with the rolls it saves (not as with none left)
    for dice in brute.rolls[::7]:
        for left in (1, 2, 3):
            ev = hint(rules, [one], dice, left, 1, src)
            stop = next(o for o in ev.options if o.keep is not None and len(o.keep) == 5)
            assert ev.stop_box is not None and stop.value == pytest.approx(ev.stop_box.value, abs=1e-9)
            assert ev.to_dict()["options"][ev.options.index(stop)]["then"]["box"] == rules.keys[ev.stop_box.box]


def test_simulated_optimal_play_scores_the_table_s_value_and_grades_as_optimal(
        tables: dict[int, saved.SavedTable], cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import orjson

    rules = tiny(2)
    batch = saved.play_with(rules, tables[2], 1, 0, 20_000)
    se = batch.totals.std() / math.sqrt(len(batch))
    assert abs(batch.totals.mean() - tables[2].mean) < 3 * se
    # the same table as the CLI sees it: simulate plays it exactly, analyze finds no loss in its games
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tables[2].path.parent))
    rules_file = tmp_path / "tiny.json"
    rules_file.write_bytes(orjson.dumps(TINY))
    log = tmp_path / "games.ndjson"
    r = cli(["simulate", "--rules", str(rules_file), "--set", "saved_rolls_cap=2", "-n", "20", "--seed", "4",
             "--log-out", str(log), "--json"])
    assert r.exit_code == 0, r.stderr
    seat = orjson.loads(r.stdout)["seats"][0]
    assert seat["exact"] is True and seat["saved_rolls_cap"] == 2
    r = cli(["analyze", str(log), "--json"])
    assert r.exit_code == 0, r.stderr
    records = [orjson.loads(line) for line in r.stdout.splitlines()]
    games = [x for x in records if x.get("type") == "game"]
    assert games and all(abs(p["expected_loss"]) < 1e-6 for g in games for p in g["players"])
    assert all(abs(p["expected_start"] + p["luck"] - p["expected_loss"] - p["expected_end"]) < 1e-5
               for g in games for p in g["players"])
    # the uncapped game is played by the largest cap built, and says so
    r = cli(["hint", "6", "6", "6", "6", "5", "--rules", str(rules_file)])
    assert r.exit_code == 0 and "exact with at most 2 saved rolls" in r.stdout
    r = cli(["hint", "6", "6", "6", "6", "5", "--rules", str(rules_file), "--saved", "1"])  # an empty sheet
    assert r.exit_code == 2 and "--saved takes 0-0 with 0 boxes filled" in r.stderr, r.stderr
    r = cli(["solve", "--rules", str(rules_file), "--json"])
    assert r.exit_code == 0, r.stderr
    rec = orjson.loads(r.stdout)
    assert rec["exact"] is True and rec["saved_rolls_cap"] == 2 and rec["built"] is False
    assert rec["expected"] == round(tables[2].mean, 7) and rec["rules"]["settings"]["saved_rolls_cap"] is None
    r = cli(["solve", "--rules", str(rules_file)])
    assert "at most 2 saved rolls" in r.stdout and "largest cap built" in r.stdout


def test_a_run_of_many_chunks_opens_the_table_once(tables: dict[int, saved.SavedTable],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # each chunk asked for the table, and a table mapped afresh is faulted in afresh (Maxi Yatzy's 2.8 GB
    # cost 4 s of a 10 s run); the same games whether it is opened once or again
    from collections import OrderedDict

    from yahtzee_cli.play import simulate as S
    from yahtzee_cli.store import tablefile

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tables[2].path.parent))
    monkeypatch.setattr(tablefile, "_opened", OrderedDict())
    opens: list[int] = []
    read = saved._read

    def counted(rules: R.RuleSet) -> saved.SavedTable | None:
        opens.append(1)
        return read(rules)

    monkeypatch.setattr(saved, "_read", counted)
    rules = tiny(2)
    logs: list[bytes] = []
    report = S.simulate(rules, ["optimal"], 2000, 3, workers=2, log_sink=logs.append)
    assert report.games == 2000 and len(logs) >= 4 and len(opens) == 1  # (chunks of 500 games)
    monkeypatch.setattr(tablefile, "_opened", OrderedDict())
    monkeypatch.setattr(tablefile, "OPENED_KEEP", 0)  # opened again for every chunk, as before
    again: list[bytes] = []
    S.simulate(rules, ["optimal"], 2000, 3, workers=2, log_sink=again.append)
    assert len(opens) >= 1 + 4 and b"".join(again) == b"".join(logs)


def test_until_a_slow_table_is_built_the_game_is_played_by_the_heuristic_saying_how_to_build_it(
        cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import orjson

    from yahtzee_cli.strategy import choice

    monkeypatch.setattr(choice, "AUTO_SAVED_MINUTES", 0.0)  # every table too slow to build unasked
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    rules_file = tmp_path / "tiny.json"
    rules_file.write_bytes(orjson.dumps(TINY))
    r = cli(["hint", "6", "6", "6", "6", "5", "--rules", str(rules_file), "--set", "saved_rolls_cap=1", "--json"])
    assert r.exit_code == 0, r.stderr
    assert orjson.loads(r.stdout)["exact"] is False
    assert "yahtzee solve --rules custom --set saved_rolls_cap=1" in r.stderr and "min" in r.stderr
    assert "GB of disk" in r.stderr
    assert not list((tmp_path / "cache").glob("saved-*"))  # nothing built unasked


def test_a_table_quick_to_build_is_built_on_first_use_and_played_exactly(
        cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the exact table builds in about a minute or less (estimated), the first hint builds it,
    saying so, and answers from it: exact, no advice; the uncapped game builds the suggested cap's."""
    import orjson

    from yahtzee_cli.strategy import choice
    from yahtzee_cli.strategy.saved_cost import build_minutes

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    rules_file = tmp_path / "tiny.json"
    rules_file.write_bytes(orjson.dumps(TINY))
    assert build_minutes(tiny(1)) <= choice.AUTO_SAVED_MINUTES and choice.quick_to_build(tiny(1))
    assert not choice.quick_to_build(R.preset("maxi-yatzy", {"saved_rolls_cap": 24}))  # about 13 min
    assert not choice.quick_to_build(tiny(None))  # (no cap: no table of its own)
    # the game without a cap: the table with the suggested cap, built once and then read
    cap = choice.DEFAULT_SAVED_CAP
    r = cli(["hint", "6", "6", "6", "6", "5", "--rules", str(rules_file), "--json"])
    assert r.exit_code == 0, r.stderr
    rec = orjson.loads(r.stdout)
    assert rec["exact"] is True and rec["approximation"] is None and rec["saved_rolls_cap"] == cap
    assert "building the" in r.stderr and "yahtzee solve" not in r.stderr
    tab = saved.read(tiny(cap))
    assert tab is not None and tab.path.parent == tmp_path / "cache"
    r = cli(["hint", "6", "6", "6", "6", "5", "--rules", str(rules_file), "--json"])
    assert r.exit_code == 0 and "building" not in r.stderr and orjson.loads(r.stdout)["saved_rolls_cap"] == cap
    # a cap of the rules' own: its own table
    r = cli(["hint", "6", "6", "6", "6", "5", "--rules", str(rules_file), "--set", "saved_rolls_cap=1", "--json"])
    assert r.exit_code == 0 and orjson.loads(r.stdout)["saved_rolls_cap"] == 1, r.stderr
    assert "building the" in r.stderr and saved.read(tiny(1)) is not None


def test_a_stock_above_the_cap_is_a_usage_error(cli: Any, tmp_path: Path) -> None:
    import orjson

    rules_file = tmp_path / "tiny.json"
    rules_file.write_bytes(orjson.dumps(TINY))
    r = cli(["hint", "1", "2", "3", "4", "5", "--rules", str(rules_file), "--set", "saved_rolls_cap=2", "--saved", "3"])
    assert r.exit_code == 2 and "--saved takes 0-2" in r.stderr and r.stderr.count("\n") == 1


def test_the_heuristic_still_plays_where_a_saved_rolls_table_is_built(tables: dict[int, saved.SavedTable],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    # the uncapped game plays the largest cap built; the heuristic it replaces stays what it was
    from yahtzee_cli import api
    from yahtzee_cli.solver import approx
    from yahtzee_cli.strategy.choice import approximate_plan, plan

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tables[2].path.parent))
    rules = tiny(None)
    assert plan(rules).strategy == "saved" and plan(rules).table_rules == tiny(2)
    assert approximate_plan(rules).strategy == "heuristic"
    fut = approx.value_to_go(rules)
    assert fut.saved_value > 0
    assert api.solve(tiny(2)).expected == tables[2].mean
    # solve reports the table that plays the uncapped game, as hint and simulate play it
    sol = api.solve(rules)
    assert sol.strategy == "saved" and sol.exact and sol.expected == tables[2].mean


def test_a_first_ctrl_c_asks_the_build_to_stop_and_a_second_stops_it_at_once() -> None:
    import signal
    import threading

    stop = threading.Event()
    previous = saved._on_ctrl_c(stop)
    try:
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler)
        handler(signal.SIGINT, None)
        assert stop.is_set()
        with pytest.raises(KeyboardInterrupt):
            handler(signal.SIGINT, None)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_full_disk_stops_the_build_before_it_starts_with_one_line(cli: Any, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # a write through the map to a full disk would kill the build with SIGBUS: the space is reserved first
    import errno
    import os

    import orjson

    def full(fd: int, offset: int, length: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "posix_fallocate", full, raising=False)
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    rules_file = tmp_path / "tiny.json"
    rules_file.write_bytes(orjson.dumps(TINY))
    r = cli(["solve", "--rules", str(rules_file), "--set", "saved_rolls_cap=1"])
    assert r.exit_code == 1
    last = r.stderr.strip().splitlines()[-1]
    assert "No space left on device (the table needs" in last and "Traceback" not in r.stderr
    assert not list((tmp_path / "cache").glob("saved-*.f32"))  # no half-reserved file left behind
    monkeypatch.undo()
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    r = cli(["solve", "--rules", str(rules_file), "--set", "saved_rolls_cap=1", "--json"])
    assert r.exit_code == 0 and orjson.loads(r.stdout)["built"] is True


def test_games_played_on_from_a_sheet_and_a_stock_score_the_table_s_value(tables: dict[int, saved.SavedTable]) -> None:
    """Win chances played on from a sheet (solver.estimated) start at a turn start with rolls saved:
    the table's games from there average what the table says that state is worth, stock included."""
    rules = tiny(2)
    tab = tables[2]
    sheet = R.Column((5, None, 0, None))
    for stock in (0, 2):
        batch = saved.play_with(rules, tab, 3, 0, 20_000, start=[sheet], saved=stock)
        assert (batch.scores[:, 0, 0] == 5).all() and (batch.scores[:, 0, 2] == 0).all()
        se = batch.totals.std() / math.sqrt(len(batch))
        assert abs(batch.totals.mean() - (5 + tab.value(sheet.filled_mask, 0, 5, stock))) < 3 * se
    plain = saved.play_with(rules, tab, 3, 0, 50)
    again = saved.play_with(rules, tab, 3, 0, 50, start=[R.Column.empty(rules)], saved=0)
    assert (plain.scores == again.scores).all()  # an empty start is the game from scratch, die for die


def test_boxes_few_rolls_score_in_give_the_same_table_to_the_bit(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The build values a box few rolls score in (a Yatzy box: 6 of 252 rolls) roll by roll
    (within_turn.sparse_boxes); the table is the one valuing it over every roll, and the brute force's."""
    from yahtzee_cli.solver import within_turn

    data = {**TINY, "boxes": [*TINY["boxes"][:2], {"key": "yatzy", "kind": "yahtzee", "points": 50},
                              TINY["boxes"][3]]}
    rules = R.rules_from_data(data, {"saved_rolls_cap": 1, "extra_yahtzee_bonus": 0, "joker": "off"})
    from yahtzee_cli.solver.tables import rule_arrays

    assert list(within_turn.sparse_boxes(rule_arrays(rules, 1))[0]) == [False, False, True, False]
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "sparse"))
    by_roll = np.asarray(saved.build(rules, threads=1).W).copy()
    monkeypatch.setattr(within_turn, "SPARSE_SHARE", 0.0)
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "dense"))
    every_roll = np.asarray(saved.build(rules, threads=1).W)
    assert np.array_equal(by_roll.view(np.uint32), every_roll.view(np.uint32))
    tab = saved.read(rules)
    assert tab is not None
    assert tab.value(0, 0, 0, 0) == pytest.approx(Brute(rules).value(0, 0, 0), abs=1e-4)


def test_every_stock_s_next_values_read_in_one_pass_are_those_read_stock_by_stock(
        tables: dict[int, saved.SavedTable]) -> None:
    """play_saved_games reads the next states' values of all the stocks a turn can stop with in one
    pass over the table's blocks (play_kernel._stock_next_values): the same floats, to the bit, as
    _sheet_next_values stock by stock, on every turn start of the table. The sheet's own value, which
    they are relative to, is read only where the table holds it: a turn can stop with more rolls saved
    than the sheet held, and there the value of its most held stock stands in (read stock by stock, that
    was another state's cell or one past the table's end: the table here is followed by NaNs)."""
    import numba

    from yahtzee_cli.solver import play_kernel as pk
    from yahtzee_cli.solver.tables import rule_arrays

    @numba.njit
    def both(scratch: Any, work: Any, fut: Any, stocks: Any, top: int, ra: Any, NV1: Any, F1: Any) -> None:
        _, NVS, FC, cells, _, _ = scratch
        pk._stock_next_values(NVS[0], FC[0], cells, work, fut, stocks, top, ra)
        for s in range(top + 1):
            pk._sheet_next_values(work, pk.stock_future(fut, stocks, s), ra)
            F1[s] = work.Fcur[0]
            for i in range(NV1.shape[1]):
                NV1[s, i] = work.NV[0, i]

    tab = tables[2]
    rules = tiny(2)
    ra = rule_arrays(rules, tab.nyt)
    fut, stocks = tab.stocks()
    W = np.concatenate([tab.W, np.full(4096, np.nan, np.float32)])  # nothing past the table may be read
    stocks = (W, *stocks[1:])
    work = pk.turn_work(ra, 8)
    scratch = pk.saved_scratch(tab.cap, ra)
    NVS, FC = scratch[1][0], scratch[2][0]  # (the first game's)
    nslot = NVS.shape[2]
    NV1, F1 = np.empty((tab.cap + 1, nslot)), np.empty(tab.cap + 1)
    vmax = ra.du.shape[1]
    checked = past = 0
    for mask in tab.masks.tolist():
        if mask == (1 << ra.nb) - 1:
            continue
        for u in range(tab.t + 1):
            try:
                tab.cell(mask, 0, u, 0)
            except KeyError:
                continue
            held = tab.lay.top_stock(mask)
            top = min(held + 2, tab.cap)
            work.cmask[0], work.usum[0], work.yst[0], work.colraw[0] = mask, u, -1, 17
            NVS.fill(np.nan)
            both(scratch, work, fut, stocks, top, ra, NV1, F1)
            slots = [b * vmax + v for b in range(ra.nb) if not (mask >> b) & 1 for v in range(int(ra.nvar[b]))]
            k = min(held, top) + 1  # the stocks the sheet holds: read as stock by stock
            assert FC[:k].tobytes() == F1[:k].tobytes()
            assert NVS[:k, 0, slots].tobytes() == NV1[:k, slots].tobytes()
            for s in range(k, top + 1):  # beyond: its most held stock's value, the next values relative to it
                assert FC[s] == tab.value(mask, 0, u, held)
                nxt = [tab.value(mask | (1 << (i // vmax)), 0,
                                 min(u + int(ra.du[i // vmax, i % vmax]), tab.t), s) for i in slots]
                assert NVS[s, 0, slots] == pytest.approx(np.array(nxt) - FC[s], abs=1e-9)
                past += 1
            assert np.isfinite(FC[: top + 1]).all() and np.isfinite(NVS[: top + 1, 0, slots]).all()
            checked += 1
    assert checked > 20 and past > 0
