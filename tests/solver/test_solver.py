"""The exact solver: published optimal expected scores, SD, state counts, the kernels'
legality against the rules module, the table cache (atomic, checksummed, rebuilt when damaged), the
compiled play kernel and its dice convention, and `yahtzee solve`."""

from __future__ import annotations

import math
import random
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from yahtzee_cli.formats.jsonio import loads
from yahtzee_cli.play import hint
from yahtzee_cli.rules import engine as R
from yahtzee_cli.solver import exact as solver
from yahtzee_cli.solver import kernels, policy, rng
from yahtzee_cli.solver.tables import rule_arrays, score_tables
from yahtzee_cli.store import tablefile as cache
from yahtzee_cli.strategy import choice
from yahtzee_cli.strategy import turn as position
from yahtzee_cli.strategy.space import state_space

# Optimal solitaire expected final scores, to 7 decimals (published), with the SD of the final score
# the README gives (None: checked elsewhere) and the reachable turn-start states it claims.
# The free-joker SD is what this solver computes, 59.6114; the published figure is 59.6117: options of
# exactly equal value can differ in variance, and which one a solver picks is a tie-break.
PUBLISHED = [
    ("yahtzee", {}, 254.5877287, None, None),
    ("yahtzee", {"joker": "free"}, 254.5896095, 59.6114, None),
    ("yahtzee", {"joker": "off"}, 253.9702412, 58.2034, None),
    ("yahtzee", {"joker": "off", "extra_yahtzee_bonus": 0}, 245.8707745, 39.8201, None),  # Glenn: SD 39.82
    ("yatzy", {}, 248.4399894, 38.4964, 1_430_528),
    ("yatzy", {"fill_in_order": True}, 122.5585274, 28.8570, None),
]


@pytest.mark.parametrize(("name", "sets", "expected", "sd", "states"), PUBLISHED,
                         ids=[f"{a[0]}-{a[1]}" for a in PUBLISHED])
def test_anchor_expected_scores(name: str, sets: dict[str, object], expected: float, sd: float | None,
                                states: int | None) -> None:
    tab = solver.build(R.preset(name, sets), moments=sd is not None)
    assert f"{tab.mean:.7f}" == f"{expected:.7f}"
    if sd is not None:
        assert f"{tab.sd:.4f}" == f"{sd:.4f}"
    if states is not None:
        assert tab.meta["states"] == states


def test_must_zero_off_value_of_yahtzee() -> None:
    """With must_zero off a scoreless roll may pass (the same state next turn, no turn limit): optimal
    play fishes for extra Yahtzees and an empty Yahtzee sheet is worth 596.69 (README)."""
    tab = solver.build(R.preset("yahtzee", {"must_zero": False}), moments=False)
    assert round(tab.mean, 2) == 596.69


def test_yahtzee_sd_and_state_count(yahtzee_table: solver.Table) -> None:
    assert round(yahtzee_table.mean, 7) == 254.5877287
    assert round(yahtzee_table.sd, 4) == 59.6076  # published
    assert yahtzee_table.meta["states"] == 536_448  # reachable turn-start states (published)
    assert yahtzee_table.W.shape == (8192, 128)


def test_fill_in_order_visits_only_prefix_masks() -> None:
    lay = solver.layout(R.preset("yatzy", {"fill_in_order": True}))
    assert sorted(lay.masks.tolist()) == [(1 << k) - 1 for k in range(16)]


def test_no_exact_table_for_columns_or_saved_rolls() -> None:
    for name in ("triple-yahtzee", "maxi-yatzy"):
        with pytest.raises(solver.NotExact):
            solver.layout(R.preset(name))


def test_maxi_yatzy_has_an_exact_table_without_saved_rolls() -> None:
    no_save = R.preset("maxi-yatzy", {"saved_rolls": False})
    assert choice.exact_reason(no_save) is None
    assert state_space(no_save).states == (1 << 20) * 85
    # with them and no table built: the values by stock fitted to the table with at most 24 (shipped)
    p = choice.plan(R.preset("maxi-yatzy"))
    assert (p.strategy, p.exact, p.why, p.by_stock) == ("fitted", False, "saved rolls", True)
    assert p.table_rules == R.preset("maxi-yatzy", {"saved_rolls_cap": 24})
    from yahtzee_cli.solver import distribution

    with pytest.raises(solver.NotExact, match="limited to 8,388,608 states; maxi-yatzy has 89,128,960"):
        distribution.model(no_save)  # a score pmf per state would not fit: the expected score is exact


def test_a_distribution_of_a_table_too_large_is_refused_before_anything_is_built(cli: Any) -> None:
    r = cli(["hint", "1", "2", "3", "4", "5", "6", "--rules", "maxi-yatzy", "--set", "saved_rolls=off",
             "--distribution"])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr == ("yahtzee: error: --distribution, --target and --risk: exact score distributions and risk "
                        "tables are limited to 8,388,608 states; maxi-yatzy has 89,128,960 (its expected score is "
                        "exact: yahtzee solve)\n")


def test_an_exact_table_that_would_not_fit_in_memory_is_not_attempted(monkeypatch: pytest.MonkeyPatch) -> None:
    no_save = R.preset("maxi-yatzy", {"saved_rolls": False})
    monkeypatch.setattr(choice, "memory_budget", lambda: 1 << 30)
    why = choice.exact_reason(no_save)
    assert why is not None and "needs 2.0 GiB to build" in why and "gives 1.0 GiB" in why
    assert choice.plan(no_save).strategy == "heuristic"
    assert choice.exact_reason(R.preset("yahtzee")) is None  # 1 M states: 24 MiB


def test_large_tables_are_stored_as_float32_to_within_a_ten_thousandth(monkeypatch: pytest.MonkeyPatch) -> None:
    rules = R.preset("yatzy", {"fill_in_order": True})
    tab, _ = solver.get_table(rules, rebuild=True)
    assert not solver.stored_as_float32(tab.W)  # small: float64, exact
    monkeypatch.setattr(solver, "FLOAT32_CELLS", 0)  # as if it were large
    assert solver.stored_as_float32(tab.W)
    solver._to_file(rules, tab)
    path = cache.table_path(rules.fingerprint)
    header, arrays = cache.read(path, rules.fingerprint)
    assert header["arrays"]["W"] == ["f", tab.W.size] and arrays["W"].format == "f"
    again = solver._from_file(rules)
    assert again.W.dtype == np.float64 and again.mean == tab.mean
    assert float(np.abs(again.W - tab.W).max()) <= 2.0**-15 < 1e-4
    assert not solver.stored_as_float32(tab.W + 1024.0)  # values float32 would hold too coarsely
    solver.get_table(rules, rebuild=True)  # leave the session's copy as it was


def test_must_zero_off_is_at_least_must_zero_on() -> None:
    """Passing a scoreless roll only adds options, and a value iteration gives the same fixed point."""
    on = solver.build(R.preset("yatzy", {"fill_in_order": True}))
    off = solver.build(R.preset("yatzy", {"fill_in_order": True, "must_zero": False}))
    assert off.mean > on.mean
    # a pass loops back to the same state: W = A + P * W (Newton's fixed point), checked by simulation
    b = policy.play(R.preset("yatzy", {"fill_in_order": True, "must_zero": False}), "optimal", 5, 0, 5000)
    assert abs(b.totals.mean() - off.mean) < 4 * b.totals.std() / math.sqrt(len(b))


# --------------------------------------------------------------------------- kernels vs rules.py


@pytest.mark.parametrize(("name", "sets"), [("yahtzee", {}), ("yahtzee", {"joker": "free"}),
                                            ("yahtzee", {"joker": "off"}), ("yatzy", {}),
                                            ("forced-yatzy", {}), ("maxi-yatzy", {}),
                                            ("yahtzee", {"column_fill": ("up",)})])
def test_kernel_options_match_rules_column_options(name: str, sets: dict[str, object]) -> None:
    """The legal boxes, written scores and extra bonus the kernels use are rules.column_options'."""
    rules = R.preset(name, sets)
    sc = score_tables(rules)
    ra = rule_arrays(rules, 1)
    s = rules.settings
    nb = len(rules.boxes)
    y = rules.yahtzee_index
    rolls = [tuple(int(v) for v in r) for r in sc.dice.rolls]
    yrolls = [i for i, r in enumerate(rolls) if rules.is_yahtzee(r)]
    rnd = random.Random(zlib.crc32(name.encode()))  # the same draws every run (hash() of a str is salted)
    checked = 0
    for _ in range(1500):
        filled = rnd.getrandbits(nb) & ((1 << nb) - 1)
        if filled == (1 << nb) - 1:
            continue
        if s.fills[0] == "down":
            filled = (1 << rnd.randrange(nb)) - 1
        elif s.fills[0] == "up":
            filled = ((1 << nb) - 1) & ~((1 << rnd.randrange(1, nb + 1)) - 1)
        scores: list[int | None] = [None] * nb
        for b in range(nb):
            if filled >> b & 1:
                scores[b] = rnd.choice([0, 1, 5, 25])
        if y is not None and filled >> y & 1:
            scores[y] = rnd.choice([0, rules.boxes[y].points])
        col = R.Column(tuple(scores))
        r = rnd.choice(yrolls) if rnd.random() < 0.4 else rnd.randrange(len(rolls))
        ys = scores[y] if y is not None else None
        bits, vals, bonus = kernels.roll_options(
            filled, ys is not None, ys is not None and ys == (rules.boxes[y].points if y is not None else -1), r, ra)
        opts = R.column_options(rules, col, rolls[r])
        assert bits == sum(1 << o.box for o in opts), (col, rolls[r])
        for o in opts:
            assert int(vals[o.box]) == o.score, (col, rolls[r], rules.keys[o.box])
            assert int(bonus) == o.bonus
        checked += 1
    assert checked > 1000


# --------------------------------------------------------------------------- cache


def test_table_is_cached_and_reloaded(yahtzee_table: solver.Table) -> None:
    again, built = solver.get_table(R.preset("yahtzee"))
    assert not built
    assert again.mean == yahtzee_table.mean and again.sd == yahtzee_table.sd
    assert np.array_equal(again.W, yahtzee_table.W)
    # kniffel is yahtzee with German names: the same fingerprint, the same table
    assert R.preset("kniffel").fingerprint == R.preset("yahtzee").fingerprint


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_damaged_table_is_detected_and_rebuilt(damage: str) -> None:
    rules = R.preset("yatzy", {"fill_in_order": True})
    tab, built = solver.get_table(rules, rebuild=True)
    path = cache.table_path(rules.fingerprint)
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) - 100]
    elif damage == "flip":
        data[-9] ^= 0x10
    else:
        data = bytearray(b"not a table at all")
    path.write_bytes(bytes(data))
    with pytest.raises(cache.CorruptTable):
        cache.read(path, rules.fingerprint)
    notes: list[str] = []
    again, built = solver.get_table(rules, notes.append)
    assert built
    assert any("damaged" in n for n in notes), notes
    assert again.mean == tab.mean
    cache.read(path, rules.fingerprint)  # whole again


def test_writes_are_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a table is being written a reader still sees the whole old file, never a part of the new
    one; a crash in the middle of the write leaves the old file whole and no temporary behind."""
    import os

    path = tmp_path / "t.tbl"
    old = {"a": ("d", np.arange(4, dtype="<f8").tobytes())}
    new = {"a": ("d", np.arange(10, 20_000, dtype="<f8").tobytes())}
    cache.write(path, {"fingerprint": "x"}, old)
    seen: list[list[float]] = []
    real_fsync = os.fsync

    def read_during_write(fd: int) -> None:
        # the first fsync is the new file's own, its data written but not yet renamed into place (a
        # later one, of the directory after the rename, sees the new table)
        seen.append(list(cache.read(path, "x")[1]["a"]))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", read_during_write)
    cache.write(path, {"fingerprint": "x"}, new)
    assert seen and seen[0] == [0.0, 1.0, 2.0, 3.0]
    assert len(cache.read(path, "x")[1]["a"]) == 19_990

    def crash(fd: int) -> None:
        raise KeyboardInterrupt  # e.g. Ctrl-C after the data went out, before the rename

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(KeyboardInterrupt):
        cache.write(path, {"fingerprint": "x"}, old)
    monkeypatch.undo()
    assert len(cache.read(path, "x")[1]["a"]) == 19_990  # the previous table, whole
    assert [p.name for p in tmp_path.iterdir()] == ["t.tbl"]  # no temporary left behind
    with pytest.raises(cache.CorruptTable):
        cache.read(path, "another rule set")


def test_arrays_of_every_dtype_stay_aligned_and_a_bad_layout_is_damage(tmp_path: Path) -> None:
    import hashlib

    import orjson

    path = tmp_path / "t.tbl"
    arrays = {"f": ("f", np.array([0.5, 1.5, 2.5], dtype="<f4").tobytes()),  # 12 bytes: padded to 16
              "q": ("q", np.array([7, -8], dtype="<i8").tobytes()),
              "d": ("d", np.array([0.25], dtype="<f8").tobytes()),
              "h": ("h", np.array([3, -4, 5], dtype="<i2").tobytes())}  # 6 bytes: padded to 8
    cache.write(path, {"fingerprint": "x"}, arrays)
    header, got = cache.read(path, "x")
    assert header["payload_bytes"] == 16 + 16 + 8 + 8
    assert (list(got["f"]), list(got["q"]), list(got["d"]), list(got["h"])) == ([0.5, 1.5, 2.5], [7, -8], [0.25],
                                                                                [3, -4, 5])
    good = path.read_bytes()
    hlen = int.from_bytes(good[8:16], "little")
    payload = good[16 + hlen:-32]
    for bad in (["b", 3], ["f", -1], ["f", "3"], ["f", 99]):  # ("b": a dtype tables do not use)
        # the header edited and the checksum redone: only the layout check can tell
        text = orjson.dumps({**header, "arrays": {**header["arrays"], "f": bad}})
        text += b" " * (-len(text) % 8)
        body = good[:8] + len(text).to_bytes(8, "little") + text + payload
        path.write_bytes(body + hashlib.sha256(body).digest())
        with pytest.raises(cache.CorruptTable, match="damaged header"):
            cache.read(path, "x")


# --------------------------------------------------------------------------- play


def test_optimal_play_matches_the_table(yahtzee_table: solver.Table) -> None:
    b = policy.play(R.preset("yahtzee"), "optimal", 11, 0, 20_000)
    sem = b.totals.std() / math.sqrt(len(b))
    assert abs(b.totals.mean() - yahtzee_table.mean) < 4 * sem


def test_play_is_chunking_independent(yahtzee_table: solver.Table) -> None:
    rules = R.preset("yahtzee")
    whole = policy.play(rules, "optimal", 3, 0, 300)
    parts = [policy.play(rules, "optimal", 3, g, 100, threads=1) for g in (0, 100, 200)]
    assert np.array_equal(whole.totals, np.concatenate([p.totals for p in parts]))
    assert np.array_equal(whole.scores, np.concatenate([p.scores for p in parts]))


def test_greedy_is_worse_and_deterministic() -> None:
    rules = R.preset("yahtzee")
    a = policy.play(rules, "greedy", 5, 0, 5000)
    b = policy.play(rules, "greedy", 5, 0, 5000)
    assert np.array_equal(a.totals, b.totals)
    assert 205 < a.totals.mean() < 230  # Glenn 2006: greedy 218.05


def _replay_dice(seed: int, game: int, seat: int, batch: object, g: int, n: int) -> None:
    """Redraw a recorded game's dice from its stream by the documented convention."""
    st = rng.stream(seed, game, seat)
    rolls, held, n_rolls, n_turns = batch.rolls, batch.held, batch.n_rolls, batch.n_turns  # type: ignore[attr-defined]
    for t in range(int(n_turns[g])):
        dice = []
        for _ in range(n):
            f, st = rng.next_die(np.uint64(st))
            dice.append(int(f))
        assert list(rolls[g, t, 0]) == dice
        for j in range(1, int(n_rolls[g, t])):
            kept = [int(v) for v in held[g, t, j - 1] if v]
            assert kept == sorted(kept)
            assert sorted(kept) == kept and all(kept.count(v) <= dice.count(v) for v in kept)
            dice = list(kept)
            for _ in range(n - len(kept)):
                f, st = rng.next_die(np.uint64(st))
                dice.append(int(f))
            assert list(rolls[g, t, j]) == dice


@pytest.mark.parametrize("strategy", ["optimal", "greedy"])
def test_recorded_play_follows_the_dice_convention_and_the_rules(strategy: str) -> None:
    rules = R.preset("yahtzee")
    seed = 42
    b = policy.play(rules, strategy, seed, 7, 20, seat=1, record=True)
    assert b.rolls is not None and b.box is not None and b.column is not None and b.n_turns is not None
    for g in range(len(b)):
        _replay_dice(seed, 7 + g, 1, b, g, rules.dice)
        col = R.Column.empty(rules)
        for t in range(int(b.n_turns[g])):
            n_r = int(b.n_rolls[g, t])  # type: ignore[index]
            dice = tuple(sorted(int(v) for v in b.rolls[g, t, n_r - 1]))
            col, _ = R.place(rules, col, int(b.box[g, t]), dice)
        assert int(b.totals[g]) == R.sheet_total(rules, [col])
        assert list(col.scores) == list(b.scores[g, 0])


def test_multi_column_and_best_column_play(small_fits: Path) -> None:
    for sets in ({}, {"add_columns": False}):
        rules = R.preset("triple-yahtzee", sets)
        b = policy.play(rules, "optimal", 1, 0, 300)
        assert (b.scores >= 0).all()
        for g in range(0, 300, 37):
            cols = [R.Column(tuple(int(v) for v in b.scores[g, c]), int(b.yahtzee_bonus[g, c])) for c in range(3)]
            assert int(b.totals[g]) == R.sheet_total(rules, cols)


# --------------------------------------------------------------------------- `yahtzee solve`


def test_cli_solve_json_and_text(cli: object) -> None:
    run = cli  # type: ignore[assignment]
    res = run(["solve", "--rules", "yatzy", "--set", "fill_in_order=on", "--json"])  # type: ignore[operator]
    assert res.exit_code == 0, res.stderr
    out = loads(res.stdout)
    assert out["exact"] is True and f"{out['expected']:.7f}" == "122.5585274"
    assert round(out["sd"], 1) == 28.9  # published
    assert Path(out["path"]).exists()
    res = run(["solve", "--rules", "yatzy", "--set", "fill_in_order=on"])  # type: ignore[operator]
    assert res.exit_code == 0
    assert "122.5585274" in res.stdout and "loaded from the cache" in res.stdout
    assert res.stderr == ""  # no progress bar when stderr is not a terminal


def test_cli_solve_bad_setting(cli: object) -> None:
    res = cli(["solve", "--set", "joker=sometimes"])  # type: ignore[operator]
    assert res.exit_code == 2
    assert res.stderr.startswith("yahtzee: error:")


def test_position_values_agree_with_the_kernel_table(yahtzee_table: solver.Table) -> None:
    """The pure-Python turn evaluation (hint) over every first roll averages to the kernel's value."""
    rules = R.preset("yahtzee")
    src = hint.source_for(rules)
    turn = position.Turn(rules, (R.Column.empty(rules),), src)
    total = 0.0
    for r in R.rolls(5):
        p = math.factorial(5) / math.prod(math.factorial(r.count(f)) for f in set(r)) / 6**5
        total += p * turn.evaluate(r, 2).best.value
    assert total == pytest.approx(yahtzee_table.mean, abs=1e-9)


def test_a_table_another_process_is_building_is_waited_for_not_built_again(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """While another process holds the build lock of a table, get_table says it waits, then reads
    the table that process stored instead of building its own."""
    import fcntl
    import threading

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path))
    rules = R.rules_from_data({"name": "two-boxes", "boxes": [{"key": "sixes", "kind": "upper", "face": 6},
                                                             {"key": "chance", "kind": "chance"}]})
    path = cache.table_path(rules.fingerprint)
    other = open(f"{path}.lock", "w")  # as another process holds it (flock locks an open file, not a process)
    fcntl.flock(other, fcntl.LOCK_EX)
    notes: list[str] = []
    got: list[tuple[solver.Table, bool]] = []
    waiter = threading.Thread(target=lambda: got.append(solver.get_table(rules, notes.append)))
    waiter.start()
    waiter.join(1.0)
    assert waiter.is_alive() and notes == ["waiting for another yahtzee process building the two-boxes strategy table"]
    tab = solver.build(rules)
    solver._to_file(rules, tab)  # what the other process does, then it lets go
    other.close()
    waiter.join(30)
    assert not waiter.is_alive()
    (again, built), = got
    assert not built and again.mean == tab.mean and len(notes) == 1
    # with nobody holding the lock, a missing table is built at once
    path.unlink()
    again, built = solver.get_table(rules, notes.append)
    assert built and again.mean == tab.mean and "building" in notes[-1]
