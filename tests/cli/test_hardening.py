"""Hostile and careless input: every reproduction of the hardening issue, as a test.

Dice are ASCII digits only, readers stop on endless or binary input, full disks and closed pipes end
with one line, rule sets and runs are bounded by what the machine can hold, table files are checked as
a whole, worker processes always end."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from yahtzee_cli.errors import RulesError
from yahtzee_cli.rules.engine import load_rules, parse_dice, parse_setting
from yahtzee_cli.rules.poker import standings
from yahtzee_cli.strategy import choice

SCRIPT = [sys.executable, "-m", "yahtzee_cli"]


def run(args: list[str], **kw) -> subprocess.CompletedProcess[bytes]:
    kw.setdefault("timeout", 60)
    return subprocess.run([*SCRIPT, *args], capture_output=True, **kw)


def one_line(stderr: str | bytes) -> str:
    text = stderr.decode() if isinstance(stderr, bytes) else stderr
    assert "Traceback" not in text, text
    # (the one-time note that the simulator is being compiled depends on the cache, not on the input)
    lines = [x for x in text.strip().splitlines() if not x.startswith("yahtzee: compiling the simulator")]
    assert len(lines) == 1, text
    return lines[0]


# --------------------------------------------------------------------------- dice are ASCII digits


@pytest.mark.parametrize("word", ["²", "٣", "３", "1²", "\u0663"])
def test_unicode_digits_are_not_dice(word):
    with pytest.raises(RulesError, match="digits 1-6"):
        parse_dice([word, "1", "2", "3", "4"])


@pytest.mark.parametrize("cmd", [["score"], ["hint"], ["poker", "12345"]])
def test_unicode_digits_give_one_line_not_a_traceback(cli, cmd):
    r = cli([*cmd, "²", "1", "2", "3", "4"] if cmd != ["poker", "12345"] else ["poker", "12345", "1²345"])
    assert r.exit_code == 2
    assert "digits 1-6" in one_line(r.stderr)


def test_score_batch_keeps_going_after_a_bad_line_and_drops_a_bom(cli):
    r = cli(["score", "-", "--box", "chance"], input="\ufeff12345\n1²345\n٣3333\n66666\n".encode())
    assert r.exit_code == 1
    assert r.stdout == "15\n\n\n30\n"  # 1+2+3+4+5 and 6*5: the bad lines keep their places, the next are scored
    assert "line 2:" in r.stderr and "line 3:" in r.stderr and "Traceback" not in r.stderr


def test_score_batch_line_limit(cli):
    from yahtzee_cli.formats.logs import MAX_LINE

    r = cli(["score", "-", "--box", "chance"], input=b"1" * (MAX_LINE + 10) + b"\n66666\n")
    assert r.exit_code == 1
    assert r.stdout == "\n30\n"  # the bad line keeps its place
    assert "line 1: longer than" in r.stderr


def test_settings_take_ascii_numbers_only():
    with pytest.raises(RulesError, match="whole number"):
        parse_setting("upper_bonus_threshold=٦٣")
    assert parse_setting("upper_bonus_threshold=63") == ("upper_bonus_threshold", 63)


def test_bot_answering_a_unicode_column_is_a_bot_error(tmp_path, cli):
    bot = tmp_path / "bot.py"
    bot.write_text("def play(pos):\n    return 'chance:²' if pos.rolls_left == 0 else list(pos.dice)\n")
    r = cli(["simulate", "-S", f"{bot}:play", "--games", "1", "--seed", "1", "--workers", "1"])
    assert r.exit_code == 1
    assert "column '²' does not exist" in one_line(r.stderr)


# --------------------------------------------------------------------------- poker


def test_poker_ranks_match_the_pairwise_definition():
    import random

    rng = random.Random(7)
    hands = [[rng.randint(1, 6) for _ in range(5)] for _ in range(400)]
    result = standings(hands)
    keys = [(s.hand.category_rank, s.hand.tiebreak) for s in result]
    # rank = 1 + number of strictly better hands, counted the slow way
    assert [s.rank for s in result] == [1 + sum(k > keys[i] for k in keys) for i in range(len(keys))]


def test_poker_is_not_quadratic():
    hands = [[(i * 7 + j) % 6 + 1 for j in range(5)] for i in range(20_000)]
    start = time.perf_counter()
    standings(hands)
    assert time.perf_counter() - start < 5  # was 42 s (every pair compared)


# --------------------------------------------------------------------------- endless and binary input


@pytest.mark.parametrize("cmd", [["validate"], ["replay"], ["score", "-"]])
def test_dev_zero_ends_with_one_line(cmd):
    with open("/dev/zero", "rb") as zero:
        args = [*cmd, "/dev/zero"] if cmd != ["score", "-"] else cmd
        r = run(args, stdin=zero, timeout=30)
    assert r.returncode == 1
    assert "binary data" in one_line(r.stderr)


# --------------------------------------------------------------------------- messages


def test_column_multipliers_message_names_the_setting(cli):
    r = cli(["score", "12345", "--set", "column_multipliers=1,2"])
    assert r.exit_code == 2
    line = one_line(r.stderr)
    assert "column_multipliers" in line and "settings settings" not in line and "setting settings" not in line


def test_joker_spelled_the_same_on_the_command_line_and_in_logs():
    from yahtzee_cli.formats.logs import resolve_rules

    # "FREE" was accepted by --set and refused in a log: both read settings through one model now
    assert load_rules("yahtzee", ["joker=FREE"]).settings.joker == "free"
    assert resolve_rules({"preset": "yahtzee", "settings": {"joker": "FREE"}}).settings.joker == "free"
    with pytest.raises(RulesError, match="joker"):
        load_rules("yahtzee", ["joker=sometimes"])
    with pytest.raises(RulesError, match="joker"):
        resolve_rules({"preset": "yahtzee", "settings": {"joker": "sometimes"}})


# --------------------------------------------------------------------------- full disks


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("args", [["--version"], ["--help"], ["score", "12345", "--json"], ["rules", "yahtzee"],
                                  ["poker", "12345", "66666"]])
def test_full_disk_is_one_line_exit_1(args):
    with open("/dev/full", "wb") as full:
        r = subprocess.run([*SCRIPT, *args], stdout=full, stderr=subprocess.PIPE, timeout=60)
    assert r.returncode == 1
    assert "no space left" in one_line(r.stderr)


def test_output_error_statuses():
    import errno

    from yahtzee_cli.cli import PIPE_CLOSED, output_error

    assert output_error(OSError(errno.ENOENT, "x")) is None  # not an output error: left alone
    assert PIPE_CLOSED == 141


# --------------------------------------------------------------------------- rule sets and runs at the edges


def _wide_rules(tmp_path: Path, n: int, points: int | None = None, **settings) -> str:
    boxes = [{"key": f"c{i}", "kind": "chance"} for i in range(n)]
    if points is not None:
        boxes.append({"key": "big", "kind": "yahtzee", "points": points})
    path = tmp_path / f"wide{n}.json"
    path.write_bytes(orjson.dumps({"name": "wide", "boxes": boxes, "settings": settings}))
    return str(path)


@pytest.mark.parametrize("args", [["hint", "12345"], ["solve"], ["simulate", "-S", "greedy", "-n", "10", "--seed", "1"],
                                  ["simulate", "-n", "10", "--seed", "1"]])
def test_rules_too_big_for_memory_are_refused_before_allocating(cli, tmp_path, args):
    r = cli([*args, "--rules", _wide_rules(tmp_path, 35)])  # 2**35 sheets: hundreds of GiB
    assert r.exit_code == 1
    line = one_line(r.stderr)
    assert "35 boxes" in line and "GiB" in line and "boxes fit" in line and "random strategy" in line


def test_memory_limit_says_what_fits(monkeypatch):
    from yahtzee_cli import limits

    monkeypatch.setattr(limits, "memory_budget", lambda: 1 << 30)
    limits.check_strategy_memory("x", 25, 6, 63)  # 512 MiB + the bonus table: fits in 1 GiB
    with pytest.raises(limits.TooBig, match=r"31 boxes .*at most 25 boxes fit"):
        limits.check_strategy_memory("x", 31, 6, 63)


@pytest.mark.parametrize("n", [61, 64, 200])
def test_box_count_is_bounded_where_rules_are_read(cli, tmp_path, n):
    for args in (["solve"], ["simulate", "-S", "greedy", "-n", "10"], ["score", "12345"]):
        r = cli([*args, "--rules", _wide_rules(tmp_path, n)])
        assert r.exit_code == 2
        assert "at most 60 boxes" in one_line(r.stderr)


def test_sixty_boxes_play_and_validate(tmp_path):
    rules = _wide_rules(tmp_path, 60)
    r = run(["simulate", "-S", "random", "-n", "20", "--seed", "3", "--rules", rules, "--json"])
    assert r.returncode == 0, r.stderr
    data = orjson.loads(r.stdout)
    assert data["seats"][0]["min"] >= 60 * 5  # every chance box holds at least 5 (was a mean of 0 with 64 boxes)
    logs = run(["simulate", "-S", "random", "-n", "3", "--seed", "3", "--rules", rules, "--log-out", "-"])
    check = run(["validate", "-"], input=logs.stdout)
    assert check.returncode == 0, check.stdout


@pytest.mark.parametrize("points", [2**63 - 1, 10**12, 10_001])
def test_box_points_are_bounded(cli, tmp_path, points):
    r = cli(["simulate", "-S", "random", "-n", "10", "--rules", _wide_rules(tmp_path, 3, points)])
    assert r.exit_code == 2
    assert "must be at most 10000" in one_line(r.stderr)  # (pydantic said "less than or equal to 10000")


def test_best_total_is_bounded(cli, tmp_path):
    path = _wide_rules(tmp_path, 20, 10_000, columns=6, column_multipliers=[100] * 6)
    r = cli(["score", "12345", "--rules", path])
    assert r.exit_code == 2
    assert "limited to 1,000,000" in one_line(r.stderr)


def test_games_and_workers_are_bounded(cli):
    from yahtzee_cli.limits import max_workers

    r = cli(["simulate", "--games", "99999999999999999999999", "--json", "-S", "random"])
    assert r.exit_code == 2 and "--games must be a whole number from 1 to" in one_line(r.stderr)
    r = cli(["simulate", "--workers", str(max_workers() + 1), "-S", "random", "-n", "10"])
    assert r.exit_code == 2 and "at most 4 workers per core" in one_line(r.stderr)


# --------------------------------------------------------------------------- table files


TINY_BOXES = [{"key": k, "kind": "upper", "face": f} for f, k in ((1, "ones"), (5, "fives"), (6, "sixes"))] + [
    {"key": "ch", "kind": "chance"}, {"key": "y", "kind": "yahtzee", "points": 50}]


@pytest.fixture
def own_cache(tmp_path, monkeypatch):
    """A cache of the test's own; approximate strategies fitted in it on a few hundred games (these
    tests are about the cache; the fit's quality is tests/solver/test_quality.py's)."""
    from yahtzee_cli.solver import approx

    for name, games in (("FIT_GAMES", (300, 300, 300)), ("FIT_CHECK_GAMES", 300), ("FORM_CHECK_GAMES", 300),
                        ("EVAL_GAMES", 500)):
        monkeypatch.setattr(approx, name, games)
    path = tmp_path / "cache"
    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(path))
    return path


def _tiny(tmp_path: Path, **settings) -> str:
    path = tmp_path / ("tiny-saved.json" if settings else "tiny.json")
    path.write_bytes(orjson.dumps({"name": "tiny", "boxes": TINY_BOXES, "settings": settings}))
    return str(path)


def _edit_header(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))


def test_a_table_checked_once_is_checked_again_after_any_change(tmp_path, monkeypatch):
    """The checksum is skipped only for the very file that passed it: an edit in place (same inode, same
    size) made after that read is still caught."""
    import time

    from yahtzee_cli.store import tablefile as cache

    monkeypatch.setenv("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "t.tbl"
    cache.write(path, {"fingerprint": "x"}, {"a": ("d", b"\0" * 64)})
    assert list(cache.read(path, "x")[1]["a"]) == [0.0] * 8
    assert len(list((tmp_path / "cache" / "verified").iterdir())) == 1  # remembered
    assert list(cache.read(path, "x")[1]["a"]) == [0.0] * 8  # and read again on that stamp
    time.sleep(0.05)  # a later edit, as a user's would be (file times tick in milliseconds)
    data = bytearray(path.read_bytes())
    data[-40] ^= 0x10  # a byte of the array, just before the checksum
    with open(path, "r+b") as f:
        f.write(data)
    with pytest.raises(cache.CorruptTable, match="checksum"):
        cache.read(path, "x")


def test_a_table_checksum_covers_its_header(tmp_path):
    from yahtzee_cli.store import tablefile as cache

    path = tmp_path / "t.tbl"
    cache.write(path, {"fingerprint": "x", "mean": 254.5}, {"a": ("d", b"\0" * 16)})
    cache.read(path, "x")
    for old, new in ((b'"mean":254.5', b'"mean":999.5'), (b'"arrays"', b'"arrayz"')):
        cache.write(path, {"fingerprint": "x", "mean": 254.5}, {"a": ("d", b"\0" * 16)})
        _edit_header(path, old, new)
        with pytest.raises(cache.CorruptTable, match="checksum"):
            cache.read(path, "x")


@pytest.mark.parametrize("kind", ["exact", "approx"])
def test_edited_tables_are_rebuilt_with_a_warning_in_every_command(cli, tmp_path, own_cache, monkeypatch, kind):
    monkeypatch.setattr(choice, "AUTO_SAVED_MINUTES", 0.0)  # (the saved-rolls sheet: its heuristic, "approx")
    rules = _tiny(tmp_path) if kind == "exact" else _tiny(tmp_path, saved_rolls=True)
    first = cli(["solve", "--rules", rules, "--json"])
    assert first.exit_code == 0, first.stderr
    expected = orjson.loads(first.stdout)["expected"]
    (table,) = own_cache.glob(f"{kind}-*.tbl")
    log = tmp_path / "game.json"
    log.write_bytes(orjson.dumps({"format": "yahtzee-log/1", "rules": orjson.loads(Path(rules).read_bytes()),
                                  "players": ["Anna"], "turns": [{"player": "Anna", "rolls": [[6, 6, 6, 6, 6]],
                                                                  "box": "y", "score": 50}]}))
    for args in (["solve", "--rules", rules, "--json"], ["hint", "12345", "--rules", rules, "--json"],
                 ["simulate", "-n", "50", "--seed", "1", "--rules", rules, "--json"],
                 ["replay", "--analyze", str(log), "--json"]):
        _edit_header(table, b'"mean":', b'"mean":9')  # was: a made-up expected score, exit 0
        r = cli(args)
        assert r.exit_code == 0, (args, r.stderr)
        assert "damaged strategy table ignored" in r.stderr and "checksum" in r.stderr, args
        if args[0] == "solve":
            assert orjson.loads(r.stdout)["expected"] == expected


def test_table_files_follow_the_umask_and_stale_temporaries_go(tmp_path):
    from yahtzee_cli.store import tablefile as cache

    old = tmp_path / "exact-abc.tbl.123.deadbeef.tmp"
    old.write_bytes(b"half a table")
    os.utime(old, (time.time() - 2 * cache.STALE_TMP_SECONDS,) * 2)
    fresh = tmp_path / "exact-def.tbl.456.cafef00d.tmp"  # another writer, still at work
    fresh.write_bytes(b"being written")
    mask = os.umask(0o022)
    try:
        cache.write(tmp_path / "exact-x.tbl", {"fingerprint": "x"}, {})
    finally:
        os.umask(mask)
    assert (tmp_path / "exact-x.tbl").stat().st_mode & 0o777 == 0o644  # readable in a shared cache
    assert not old.exists() and fresh.exists()


# --------------------------------------------------------------------------- worker processes

HANGING_BOT = """
import os, pathlib

def play(pos):
    pathlib.Path(os.environ["BOT_MARKS"], str(os.getpid())).touch()
    while True:  # a bot that never answers (and ignores SIGTERM)
        pass

import signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
"""


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
    out: set[int] = set()
    todo = [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _start_hanging_run(tmp_path: Path) -> tuple[subprocess.Popen[bytes], set[int]]:
    bot = tmp_path / "hang.py"
    bot.write_text(HANGING_BOT)
    marks = tmp_path / "marks"
    marks.mkdir()
    proc = subprocess.Popen([*SCRIPT, "simulate", "-S", f"{bot}:play", "-n", "1000", "--seed", "1", "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={**os.environ, "BOT_MARKS": str(marks)})
    deadline = time.monotonic() + 90
    while len(list(marks.iterdir())) < 2:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the workers never started"
        time.sleep(0.1)
    return proc, _descendants(proc.pid)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_two_ctrl_c_end_a_run_of_hanging_bots_within_a_second(tmp_path):
    import signal

    proc, workers = _start_hanging_run(tmp_path)
    assert len(workers) >= 2
    proc.send_signal(signal.SIGINT)
    time.sleep(0.3)
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - start < 1.5
    assert proc.returncode == 130, err
    assert "Traceback" not in err.decode()
    time.sleep(0.5)
    assert not [p for p in workers if _alive(p)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_a_killed_parent(tmp_path):
    import signal

    proc, workers = _start_hanging_run(tmp_path)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 5
    while [p for p in workers if _alive(p)] and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [p for p in workers if _alive(p)]  # workers and the resource tracker are gone


def test_a_bot_calling_sys_exit_is_a_bot_error(cli, tmp_path):
    bot = tmp_path / "quit.py"
    bot.write_text("import sys\n\ndef play(pos):\n    sys.exit(3)\n")
    r = cli(["simulate", "-S", f"{bot}:play", "-n", "2", "--seed", "1", "--workers", "1"])
    assert r.exit_code == 1
    assert "raised SystemExit: 3" in one_line(r.stderr)


# --------------------------------------------------------------------------- --log-out


def test_log_out_keeps_an_existing_file_when_the_run_fails_first(cli, tmp_path):
    target = tmp_path / "games.ndjson"
    target.write_bytes(b"precious\n" * 1000)
    bot = tmp_path / "bad.py"
    bot.write_text("def play(pos):\n    raise RuntimeError('no')\n")
    r = cli(["simulate", "-S", f"{bot}:play", "-n", "10", "--seed", "1", "--workers", "1", "--log-out", str(target)])
    assert r.exit_code == 1
    assert target.read_bytes() == b"precious\n" * 1000  # was emptied to 0 bytes
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_log_out_on_a_full_disk_keeps_whole_games_and_says_so(cli, tmp_path, monkeypatch):
    target = tmp_path / "games.ndjson"
    target.write_bytes(b"old\n")
    real_write = os.write
    budget = {"left": 20_000}

    def full_disk(fd: int, data) -> int:  # the log's file descriptor fills up after 20,000 bytes
        if fd > 2 and str(os.readlink(f"/proc/self/fd/{fd}")).endswith(".tmp"):
            if budget["left"] <= 0:
                raise OSError(28, "No space left on device")
            n = min(len(data), budget["left"])
            budget["left"] -= n
            return real_write(fd, bytes(data[:n]))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", full_disk)
    r = cli(["simulate", "-S", "random", "-n", "500", "--seed", "1", "--workers", "1", "--log-out", str(target)])
    monkeypatch.setattr(os, "write", real_write)
    assert r.exit_code == 1
    line = one_line(r.stderr)
    assert "no space left on device" in line and "holds the first" in line
    data = target.read_bytes()
    assert data.endswith(b"\n") and 0 < len(data) <= 20_000
    n = int(line.split("holds the first ")[1].split()[0])
    assert data.count(b"\n") == n
    assert all(orjson.loads(x)["format"] == "yahtzee-log/1" for x in data.splitlines())


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_log_out_to_dev_full_is_one_line(tmp_path):
    r = run(["simulate", "-S", "random", "-n", "300", "--seed", "1", "--log-out", "/dev/full"], cwd=tmp_path)
    assert r.returncode == 1
    assert "no space left" in one_line(r.stderr)


def test_rules_file_without_json_suffix(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "myrules").write_bytes(orjson.dumps({"name": "mine", "boxes": [{"key": "c", "kind": "chance"}]}))
    r = cli(["score", "12345", "--rules", "myrules", "--box", "c"])
    assert (r.exit_code, r.stdout) == (0, "15\n")
    (tmp_path / "yahtzee").write_bytes(b"{}")  # a preset name still means the preset
    assert cli(["score", "12345", "--rules", "yahtzee", "--box", "chance"]).stdout == "15\n"
    r = cli(["score", "12345", "--rules", "nope"])
    assert r.exit_code == 2 and "there is no file named 'nope'" in one_line(r.stderr)


def test_duplicate_keys_are_problems(cli, tmp_path):
    rules = tmp_path / "dup.json"
    rules.write_bytes(b'{"boxes": [{"key": "a", "kind": "chance", "kind": "yahtzee", "points": 50}]}')
    r = cli(["score", "12345", "--rules", str(rules)])
    assert r.exit_code == 2 and "'kind' appears twice" in one_line(r.stderr)
    game = (b'{"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["A"], "turns": [{"player": "A", '
            b'"rolls": [[1,2,3,4,5]], "box": "chance", "box": "ones", "score": 15}]}')
    for text in (game, game + b"\n" + game.replace(b'"box": "ones", ', b"")):  # one document, and NDJSON
        r = cli(["validate", "-"], input=text)
        assert r.exit_code == 1
        assert "'box' appears twice" in r.stdout
    # blanks before a colon hide nothing: the repeat is still found, in one document and in NDJSON
    for blank in (b" ", b"\t", b"  \n  "):
        spaced = game.replace(b'"box": "ones"', b'"box"' + blank + b': "ones"')
        for text in (spaced, spaced + b"\n" + game.replace(b'"box": "ones", ', b"")):
            r = cli(["validate", "-"], input=text)
            assert r.exit_code == 1 and "'box' appears twice" in r.stdout, (blank, text)


def test_player_names_are_trimmed_or_refused_and_never_printed_raw(cli, tmp_path):
    def log(second: str) -> bytes:
        return orjson.dumps({"format": "yahtzee-log/1", "rules": "yahtzee", "players": ["Anna", second],
                             "turns": [{"player": "Anna", "rolls": [[1, 2, 3, 4, 5]], "box": "chance", "score": 15},
                                       {"player": second, "rolls": [[1, 2, 3, 4, 5]], "box": "chance",
                                        "score": 15}]})

    r = cli(["validate", "-"], input=log("Anna "))
    assert r.exit_code == 1 and "must not start or end with blanks" in r.stdout
    r = cli(["validate", "-"], input=log("\u202eEvil\x1b[2J"))
    assert r.exit_code == 1
    assert "\x1b" not in r.stdout and "\u202e" not in r.stdout and "\\x1b[2J" in r.stdout
    rules = tmp_path / "evil.json"
    rules.write_bytes(orjson.dumps({"name": "\x1b[31mred\u202e", "boxes": [{"key": "c", "kind": "chance"}]}))
    r = cli(["score", "12345", "--rules", str(rules)])
    assert r.exit_code == 2
    assert "\x1b" not in r.stderr and "\\x1b[31m" in one_line(r.stderr)


def test_empty_strategy_is_refused(cli):
    r = cli(["simulate", "--strategy", "", "-n", "10"])
    assert r.exit_code == 2 and "--strategy needs a name" in one_line(r.stderr)


TIRING_BOT = """
answered = {"n": 0}

def play(pos):
    if pos.rolls_left:
        return list(pos.dice)
    answered["n"] += 1
    if answered["n"] > 13 * 150 + 5:  # 150 whole games of 13 turns, then a failure in the 151st
        raise RuntimeError("tired")
    return pos.options[0]
"""


def test_a_bot_failing_mid_run_says_how_many_whole_games_the_log_holds(cli, tmp_path):
    bot = tmp_path / "tiring.py"
    bot.write_text(TIRING_BOT)
    target = tmp_path / "games.ndjson"
    target.write_bytes(b"old\n")
    r = cli(["simulate", "-S", f"{bot}:play", "-n", "400", "--seed", "1", "--workers", "1", "--log-out", str(target)])
    assert r.exit_code == 1
    line = one_line(r.stderr)
    assert "raised RuntimeError: tired" in line and "holds the first" in line
    n = int(line.split("holds the first ")[1].split()[0])
    data = target.read_bytes()
    assert 0 < n <= 150 and data.count(b"\n") == n and data.endswith(b"\n")
    assert all(orjson.loads(x)["format"] == "yahtzee-log/1" for x in data.splitlines())
    check = subprocess.run([*SCRIPT, "validate", str(target)], capture_output=True, timeout=60)
    assert check.returncode == 0, check.stdout


def test_a_bot_failing_before_any_game_leaves_the_log_as_it_was(cli, tmp_path):
    bot = tmp_path / "bad.py"
    bot.write_text("def play(pos):\n    raise RuntimeError('no')\n")
    target = tmp_path / "games.ndjson"
    target.write_bytes(b"old\n")
    r = cli(["simulate", "-S", f"{bot}:play", "-n", "10", "--seed", "1", "--workers", "1", "--log-out", str(target)])
    assert r.exit_code == 1
    assert "was left as it was" in one_line(r.stderr)
    assert target.read_bytes() == b"old\n"


@pytest.mark.parametrize("kind", ["exact", "approx"])
def test_an_unreadable_table_is_blamed_and_rebuilt(cli, tmp_path, own_cache, monkeypatch, kind):
    monkeypatch.setattr(choice, "AUTO_SAVED_MINUTES", 0.0)  # (the saved-rolls sheet: its heuristic, "approx")
    rules = _tiny(tmp_path) if kind == "exact" else _tiny(tmp_path, saved_rolls=True)
    first = cli(["solve", "--rules", rules, "--json"])
    assert first.exit_code == 0, first.stderr
    expected = orjson.loads(first.stdout)["expected"]
    (table,) = own_cache.glob(f"{kind}-*.tbl")
    from yahtzee_cli.store import tablefile as cache

    real_map = cache._map

    def another_users_file(path: Path) -> object:  # (we run as root: simulate a file we may not read)
        if path.name == table.name and path.exists() and path.stat().st_ino == denied["inode"]:
            raise PermissionError(13, "Permission denied", str(path))
        return real_map(path)

    monkeypatch.setattr(cache, "_map", another_users_file)
    for args in (["solve", "--rules", rules, "--json"], ["hint", "12345", "--rules", rules, "--json"]):
        denied = {"inode": table.stat().st_ino}  # the file now in place cannot be read; its rebuild can
        r = cli(args)
        assert r.exit_code == 0, (args, r.stderr)
        assert f"cannot read {table}: Permission denied" in r.stderr, r.stderr  # the file, not the directory
        assert "damaged" not in r.stderr and "check the file's permissions" in r.stderr
        assert "rebuilding it" in r.stderr and table.stat().st_ino != denied["inode"], args  # a new file
        if args[0] == "solve":
            assert orjson.loads(r.stdout)["expected"] == expected
