"""Hostile input as classes, not examples: generated file names, player names, CSV cells, config bytes,
endless stdin, non-regular files in walked folders, risk and target extremes. Every case ends with its
documented exit status, no traceback, and no raw control or bidirectional character in text output."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tempfile
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GAME = FIXTURES / "logs" / "yahtzee-perfect.json"
BAD_GAME = FIXTURES / "invalid" / "wrong-score.json"

FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])

# Characters a terminal obeys or that reorder what it shows: C0 (ESC, BEL, CR, ...), DEL, C1, the
# bidirectional overrides and isolates, zero-width and other format characters, line separators.
HOSTILE = ["\x1b", "\x07", "\r", "\t", "\x08", "\x7f", "\x85", "\x9b", "\u202a", "\u202b", "\u202c", "\u202d",
           "\u202e", "\u2066", "\u2067", "\u2068", "\u2069", "\u200b", "\u200e", "\u200f", "\u061c", "\ufeff",
           "\u2028", "\u2029", "\x1b]0;title\x07", "\x1b[2J"]
UNSAFE_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def raw_unsafe(text: str) -> list[str]:
    """Characters of `text` that would reach a terminal raw (line breaks are text's own)."""
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in UNSAFE_CATEGORIES]


def check(res: Any, *codes: int) -> None:
    assert res.exit_code in codes, (res.exit_code, res.stdout, res.stderr)
    assert "Traceback" not in res.stderr and "Traceback" not in res.stdout, res.stderr
    assert not raw_unsafe(res.stderr), res.stderr
    assert not raw_unsafe(res.stdout), res.stdout


def _runner() -> Any:
    from typer.testing import CliRunner

    from yahtzee_cli.cli import app

    runner = CliRunner()

    def run(args: list[str], input: str | bytes | None = None, env: dict[str, str] | None = None) -> Any:  # noqa: A002
        return runner.invoke(app, args, input=input, prog_name="yahtzee", env=env)

    return run


run = _runner()

name_chars = st.one_of(st.sampled_from(HOSTILE), st.characters(exclude_characters="/\x00",
                                                                  exclude_categories=("Cs",)))
file_names = st.lists(name_chars, min_size=1, max_size=12).map("".join).filter(
    lambda n: n not in (".", "..") and len(os.fsencode(n)) < 200)


# --------------------------------------------------------------------------- names reaching a terminal

@FAST
@given(name=file_names)
def test_hostile_file_names_are_escaped_everywhere(name: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d) / name
        folder.mkdir()
        shutil.copy(GAME, folder / f"{name}.json")
        shutil.copy(BAD_GAME, folder / f"bad{name}.json")
        for args in (["validate"], ["validate", "--csv"], ["replay"], ["replay", "-v"], ["replay", "--csv"],
                     ["analyze", "-w", "1"]):
            check(run([*args, str(folder)]), 1)
        check(run(["validate", str(folder / name)]), 2)  # missing: a usage error naming it, escaped
        res = run(["validate", "--json", str(folder)])
        check(res, 1)
        assert json.loads(res.stdout)["errors"][0]["file"] == str(folder / f"bad{name}.json")  # data kept


def test_a_non_utf8_file_name_in_json_shows_its_bytes(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path) + b"/\xff\x1b"
    os.mkdir(folder)
    shutil.copy(BAD_GAME, os.path.join(folder, b"g\xfe.json"))
    res = run(["validate", "--json", os.fsdecode(folder)])
    check(res, 1)
    assert json.loads(res.stdout)["errors"][0]["file"].endswith("/\\xff\x1b/g\\xfe.json")
    res = run(["replay", "--json", os.fsdecode(folder)])
    check(res, 1)
    check(run(["validate", os.fsdecode(folder)]), 1)


def test_json_escapes_what_a_terminal_would_obey(tmp_path: Path) -> None:
    """A right-to-left override in a file name is \\u202e in JSON: the same string to a parser."""
    name = tmp_path / "a\u202e\x85b.json"
    shutil.copy(BAD_GAME, name)
    res = run(["validate", "--json", str(name)])
    check(res, 1)
    assert "\\u202e\\u0085b.json" in res.stdout
    assert json.loads(res.stdout)["errors"][0]["file"] == str(name)


@FAST
@given(cell=st.tuples(st.sampled_from(["=", "+", "-", "@", "\t", "\r", "=cmd|' /C calc'!A0", "-5", "+1"]),
                      st.text(max_size=8)).map("".join))
def test_csv_text_cells_never_start_a_formula(cell: str) -> None:
    from yahtzee_cli.cli.validate import csv_row

    row = next(csv.reader(io.StringIO(csv_row(["file", cell, 7, -5, 2.5, None]).decode())))
    assert row[1].startswith("'"), row
    assert row[2:] == ["7", "-5", "2.5", ""]  # numbers stay numbers
    assert not raw_unsafe(row[1])


def test_replay_csv_escapes_formula_player_names(tmp_path: Path) -> None:
    data = json.loads(GAME.read_text())
    data["players"] = ["=HYPERLINK(\"http://x\")"]
    for turn in data["turns"]:
        turn["player"] = data["players"][0]
    path = tmp_path / "-game.json"
    path.write_text(json.dumps(data))
    res = run(["replay", "--csv", str(path)])
    check(res, 0)
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert rows[1][4] == "'=HYPERLINK(\"http://x\")"
    assert rows[1][5] == "1575"  # a number stays a number


@FAST
@given(word=st.tuples(st.text(max_size=4), st.sampled_from(HOSTILE), st.text(max_size=4)).map("".join))
def test_echoed_input_is_escaped(word: str) -> None:
    with tempfile.TemporaryDirectory() as d:
        game = Path(d) / "g.ndjson"
        check(run(["log", "new", str(game), "--players", "Ann"]), 0)
        check(run(["log", "add", str(game), "--dice", "13356", "--box", word]), 0, 1, 2)  # "\x1b3x" is 3x
        check(run(["log", "set", str(game), word]), 1, 2)
        check(run(["log", "set", str(game), f"joker={word}"]), 1, 2)
        check(run(["score", word]), 2)
        check(run(["rules", word]), 2)
        check(run(["hint", "12345", "--rules", word]), 2)
        check(run(["play", str(Path(d) / "p.ndjson"), "--players", "Ann"], input=f"{word}\nset {word}\nq\n"), 0)


# --------------------------------------------------------------------------- walks and endless input

def _make(kind: str, path: Path) -> None:
    import socket

    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(str(path))
    elif kind == "device":
        path.symlink_to("/dev/zero")
    elif kind == "dangling":
        path.symlink_to(path.parent / "nowhere")
    elif kind == "self-link":
        path.symlink_to(path)
    elif kind == "folder-loop":
        path.symlink_to(path.parent)


@FAST
@given(kinds=st.lists(st.sampled_from(["fifo", "socket", "device", "dangling", "self-link", "folder-loop"]),
                      min_size=1, max_size=6, unique=True),
       suffix=st.sampled_from([".json", ".ndjson"]), name=file_names)
def test_walked_folders_skip_what_is_not_a_regular_file(kinds: list[str], suffix: str, name: str) -> None:
    """A FIFO or device named like a game would block or never end: skipped with a warning; a link loop
    is not followed; the real games are read and the exit status is theirs."""
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d) / "games"
        folder.mkdir()
        shutil.copy(GAME, folder / "a.json")
        for kind in kinds:
            _make(kind, folder / f"{kind}{name}{suffix}")
        unreadable = "dangling" in kinds
        for cmd in (["validate"], ["replay"], ["analyze", "-w", "1"]):
            res = run([*cmd, str(folder)])
            check(res, 1 if unreadable else 0)
            warned = [line for line in res.stderr.splitlines()
                      if line.startswith("yahtzee: ") and ": skipped " in line]
            assert len(warned) == len(kinds) - unreadable, res.stderr


def test_a_folder_nested_1100_deep_is_walked(tmp_path: Path) -> None:
    """No recursion limit. The tree is removed here, bottom up: a recursive rmtree (pytest's own clean-up
    of its temporary folders included) fails on it."""
    top = tmp_path / "deep"
    path = str(top)
    os.mkdir(path)
    try:
        for _ in range(1100):
            path = os.path.join(path, "d")
            os.mkdir(path)
        shutil.copy(BAD_GAME, os.path.join(path, "g.json"))
        res = run(["validate", str(top)])
        check(res, 1)
        assert res.stdout.count("/d/d/") and "g.json" in res.stdout
        check(run(["replay", str(top)]), 1)
    finally:
        if os.path.exists(os.path.join(path, "g.json")):
            os.remove(os.path.join(path, "g.json"))
        while len(path) >= len(str(top)):
            os.rmdir(path)
            path = os.path.dirname(path)
    assert not top.exists()


@settings(FAST, max_examples=8)
@given(data=st.one_of(st.just(b"\0" * 5_000_000), st.binary(min_size=1, max_size=2000).map(lambda b: b * 50)))
def test_play_reads_stdin_without_newlines_under_the_line_cap(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        res = run(["play", str(Path(d) / "g.ndjson"), "--players", "Ann"], input=data.replace(b"\n", b""))
        check(res, 0, 1)


def test_play_on_dev_zero_ends_in_one_line(tmp_path: Path, yahtzee: list[str]) -> None:
    import subprocess

    with open("/dev/zero", "rb") as zero:
        res = subprocess.run([*yahtzee, "play", str(tmp_path / "g.ndjson"), "--players", "Ann"], stdin=zero,
                             capture_output=True, timeout=60)
    assert res.returncode == 1
    assert res.stderr.decode().startswith("yahtzee: error: <stdin>: a line longer than 16 MiB"), res.stderr
    assert res.stderr.count(b"\n") == 1


# --------------------------------------------------------------------------- configuration

def _one_error_line(res: Any, *starts: str) -> None:
    check(res, 2)
    assert res.stderr.count("\n") == 1, res.stderr
    assert res.stderr.startswith("yahtzee: error: ") and any(x in res.stderr for x in starts), res.stderr


toml_values = st.recursive(st.one_of(st.integers(), st.floats(), st.booleans(), st.text(max_size=10)),
                           lambda inner: st.lists(inner, max_size=3), max_leaves=6)


@FAST
@given(config=st.one_of(
    st.binary(max_size=200),
    st.binary(max_size=50).map(lambda b: b"[defaults]\nrules = \"" + b + b"\"\n"),
    st.integers(1000, 6000).map(lambda n: b"[defaults]\nmust_zero = " + b"[" * n + b"]" * n + b"\n"),
    st.integers(1000, 6000).map(lambda n: b"[defaults]\nx = " + b"{a=" * n + b"1" + b"}" * n + b"\n"),
    st.tuples(st.sampled_from(["must_zero", "joker", "columns", "upper_bonus", "column_multipliers", "rules"]),
              toml_values).map(lambda kv: f"[defaults]\n{kv[0]} = {json.dumps(kv[1])}\n".encode()),
))
def test_a_bad_config_file_is_one_line_naming_it(config: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "config.toml"
        path.write_bytes(config)
        res = run(["score", "12345"], env={"YAHTZEE_CONFIG": str(path), "YAHTZEE_RULES": ""})
        if res.exit_code == 0:
            return  # a config that happens to be valid
        _one_error_line(res, f"config file {path}", f"cannot read config file {path}")


def test_a_config_file_too_big_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"# " + b"x" * (2 << 20) + b"\n")
    _one_error_line(run(["score", "12345"], env={"YAHTZEE_CONFIG": str(path)}), f"config file {path} is larger")


@FAST
@given(value=st.text(min_size=1, max_size=20).filter(lambda v: "\x00" not in v))
def test_a_bad_rules_variable_names_itself(value: str) -> None:
    res = run(["score", "12345"], env={"YAHTZEE_RULES": value})
    if res.exit_code != 0:
        _one_error_line(res, "YAHTZEE_RULES=", "from $YAHTZEE_RULES")


def test_rules_files_are_read_bounded_everywhere(tmp_path: Path) -> None:
    for cmd in (["score", "12345"], ["log", "new", str(tmp_path / "g.ndjson"), "--players", "A"],
                ["play", str(tmp_path / "p.ndjson"), "--players", "A"]):
        _one_error_line(run([*cmd, "--rules", "/dev/zero"]), "rules file /dev/zero is larger than 1 MiB")


# --------------------------------------------------------------------------- numeric extremes

negligible = st.one_of(st.just(0.0), st.just(-0.0), st.just(5e-324), st.just(1e-320), st.just(1e-300),
                       st.floats(min_value=-6e-10, max_value=6e-10, allow_subnormal=True))
too_big = st.one_of(st.floats(min_value=0.445, max_value=1.0), st.floats(min_value=-1.0, max_value=-0.445),
                    st.sampled_from([float("nan"), float("inf"), -float("inf"), 1e308]))


@settings(FAST, max_examples=8)
@given(theta=negligible)
def test_a_negligible_theta_is_exactly_the_plain_table(theta: float) -> None:
    """theta * best total below a millionth changes nothing: the output is that without --risk."""
    for cmd in (["hint", "1", "3", "3", "5", "6"], ["hint", "66655", "--rolls-left", "0", "--json"],
                ["simulate", "-n", "5", "--seed", "3", "-w", "1", "--json"]):
        plain = run(cmd)
        res = run([*cmd, f"--risk={theta!r}"])
        check(res, 0)
        assert res.stdout == plain.stdout


@settings(FAST, max_examples=8)
@given(theta=negligible)
def test_a_negligible_theta_reports_the_mean_as_its_certainty_equivalent(theta: float) -> None:
    """solve with such a theta is the plain table's answer, and names the theta with its certainty
    equivalent at the limit theta -> 0, the mean (it was null)."""
    plain = json.loads(run(["solve", "--json"]).stdout)
    res = run(["solve", "--json", f"--risk={theta!r}"])
    check(res, 0)
    got = json.loads(res.stdout)
    extra = {k: got.pop(k) for k in ("risk", "objective", "certainty_equivalent") if k in got}
    got["seconds"] = plain["seconds"]
    assert got == plain
    if theta:
        assert extra["risk"] == theta and extra["certainty_equivalent"] == plain["expected"]
        text = run(["solve", f"--risk={theta!r}"])
        assert f"certainty equivalent is the expected score, {plain['expected']:.4f}" in text.stdout
        row = run(["solve", "--csv", f"--risk={theta!r}"]).stdout.splitlines()
        assert dict(zip(row[0].split(","), row[1].split(","), strict=False))["certainty_equivalent"]
    else:
        assert not extra


@given(values=st.lists(st.floats(min_value=-1e4, max_value=1e4), min_size=1, max_size=8),
       theta=st.one_of(st.just(5e-324), st.just(-1e-320), st.floats(min_value=-1e-17, max_value=1e-17)))
def test_a_certainty_equivalent_tends_to_the_mean(values: list[float], theta: float) -> None:
    """Below a negligible theta * spread the certainty equivalent is the mean, never the largest value
    (the exponentials all round to 1 there)."""
    from yahtzee_cli.strategy.turn import ce_mean

    mean = sum(values) / len(values)
    assert ce_mean(values, theta) == pytest.approx(mean, rel=1e-9, abs=1e-9)


@settings(FAST, max_examples=15)
@given(theta=too_big)
def test_a_theta_beyond_the_score_range_is_one_line(theta: float) -> None:
    for cmd in (["hint", "12345"], ["solve"], ["simulate", "-n", "5", "-w", "1"]):
        res = run([*cmd, f"--risk={theta!r}"])
        check(res, 2)
        # (outside -1..1, Typer's own usage message, which the yahtzee script makes one line)
        assert (res.stderr.count("\n") == 1 or "Usage:" in res.stderr) and not res.stdout
    res = run(["simulate", "-n", "5", "-w", "1", "--players", f"optimal,risk={theta!r}"])
    check(res, 2)
    assert res.stderr.count("\n") == 1 and not res.stdout


@FAST
@given(target=st.one_of(st.integers(1576, 10**30), st.integers(-(10**30), 0), st.sampled_from([2**63, 2**64, 10**9])))
def test_targets_outside_the_reachable_range_are_answered(target: int) -> None:
    res = run(["hint", "1", "3", "3", "5", "6", f"--target={target}", "--json"])
    check(res, 0)
    out = json.loads(res.stdout)
    assert out["target"] == target
    assert out["best"]["probability"] == (0.0 if target > 0 else 1.0)
    assert {row["probability"] for row in out["by_theta"]} == {out["best"]["probability"]}
    check(run(["hint", "1", "3", "3", "5", "6", f"--target={target}"]), 0)


# --------------------------------------------------------------------------- a wrong server

class _Server:
    """A TCP server on a free local port that accepts every connection and then says `greeting` (or
    nothing), keeping the connection open: what a --scheduler address may really point at."""

    def __init__(self, greeting: bytes) -> None:
        import socket
        import threading

        self.greeting = greeting
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.1)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.conns: list[Any] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.conns.append(conn)
            try:
                conn.sendall(self.greeting)
            except OSError:
                pass

    def __enter__(self) -> _Server:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        for conn in self.conns:
            conn.close()
        self.sock.close()


def _wrong_scheduler(address: str) -> None:
    import time

    for cmd in (["validate", str(GAME)], ["replay", str(GAME)], ["analyze", "-w", "1", str(GAME)],
                ["validate", "--json", str(GAME)], ["simulate", "-S", "random", "-n", "5", "--seed", "1"]):
        start = time.monotonic()
        res = run([*cmd, "--backend", "dask", "--scheduler", address])
        assert time.monotonic() - start < 30
        check(res, 2)
        assert res.stdout == "" and res.stderr.count("\n") == 1, (cmd, res.stdout, res.stderr)
        assert res.stderr.startswith("yahtzee: error: "), res.stderr


@settings(FAST, max_examples=10)
@given(greeting=st.one_of(
    st.just(b""),  # accepts and says nothing
    st.just(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"),
    st.binary(min_size=1, max_size=64),
    st.integers(0, 2**64 - 1).map(lambda n: n.to_bytes(8, "little")),  # a length and then nothing
))
def test_a_server_that_is_not_a_dask_scheduler_is_one_line(greeting: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    from yahtzee_cli.play import executors

    monkeypatch.setattr(executors, "DASK_CONNECT_TIMEOUT", "1s")
    with _Server(greeting) as server:
        _wrong_scheduler(f"tcp://127.0.0.1:{server.port}")


def test_a_closed_port_or_a_bad_address_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("distributed")
    import socket

    from yahtzee_cli.play import executors

    monkeypatch.setattr(executors, "DASK_CONNECT_TIMEOUT", "1s")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends
    _wrong_scheduler(f"tcp://127.0.0.1:{port}")
    _wrong_scheduler("tcp://127.0.0.1:notaport")


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_game_file_that_is_not_a_regular_file_is_refused(kind: str, tmp_path: Path) -> None:
    game = tmp_path / "g.ndjson"
    if kind == "fifo":
        os.mkfifo(game)
    else:
        game.symlink_to("/dev/zero")
    for cmd in (["log", "add", str(game), "--dice", "12345"], ["log", "undo", str(game)],
                ["log", "new", str(game), "--players", "A"], ["play", "--resume", str(game)],
                ["play", str(game), "--players", "A"]):
        res = run(cmd, input="q\n")
        check(res, 1)
        assert res.stderr.count("\n") == 1 and "regular file" in res.stderr, (cmd, res.stderr)


@given(theta=st.one_of(st.just(5e-324), st.just(-1e-320), st.floats(min_value=-1e-17, max_value=1e-17).filter(bool)))
def test_an_option_s_certainty_equivalent_tends_to_its_mean(theta: float) -> None:
    """The hint's certainty equivalent of a final-score distribution, in the same limit: its mean."""
    from types import SimpleNamespace

    import numpy as np

    from yahtzee_cli.play.hint import certainty_equivalent

    dist = SimpleNamespace(scores=np.array([0, 100, 250, 1575]), pmf=np.array([0.1, 0.5, 0.4, 0.0]))
    assert certainty_equivalent(SimpleNamespace(dist=dist), theta) == pytest.approx(150.0, rel=1e-12)
