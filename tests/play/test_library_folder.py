"""A library folder that cannot serve (a file, a path below a file, a folder that cannot be read or
written, an unreadable game file in it) is one line naming the folder, what set it and why, exit 1:
never a traceback, and never reported as a library without games."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from yahtzee_cli.errors import UnusableFolder
from yahtzee_cli.paths import folder_problem
from yahtzee_cli.play import library

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions and FIFOs")


def without_override(command: list[str]) -> list[str]:
    """`command` run so that permissions apply: as root (tests often run as root, who reads and writes
    any folder) without the capabilities that bypass them; skips where that cannot be done."""
    if os.geteuid() != 0:
        return command
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: a mode-000 folder cannot be made unreadable")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]


def run(yahtzee: list[str], args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(without_override([*yahtzee, *args]), capture_output=True, text=True, timeout=60,
                          env={**os.environ, **env}, stdin=subprocess.DEVNULL)


def one_error_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("yahtzee: error: ") and "Traceback" not in stderr, stderr
    return lines[0]


@pytest.fixture
def a_file(tmp_path: Path) -> Path:
    f = tmp_path / "notes.txt"
    f.write_text("not a folder\n")
    return f


@pytest.mark.parametrize("below", [False, True], ids=["a-file", "below-a-file"])
@pytest.mark.parametrize("args", [["log", "new", "--players", "A,B"], ["play", "--players", "A"], ["library"],
                                  ["stats"], ["play", "--resume"]], ids=lambda a: "-".join(a[:2]))
def test_a_file_as_the_library_folder_is_one_line(cli: Any, a_file: Path, monkeypatch: pytest.MonkeyPatch,
                                                  args: list[str], below: bool) -> None:
    folder = a_file / "games" if below else a_file
    monkeypatch.setenv("YAHTZEE_LIBRARY", str(folder))
    r = cli(args, input="q\n")
    line = one_error_line(r.stderr)
    assert r.exit_code == 1 and f"library folder {folder} (set by $YAHTZEE_LIBRARY)" in line
    assert ("cannot be made: " + str(a_file) + " is a file") in line if below else "is a file, not a folder" in line
    assert a_file.read_text() == "not a folder\n"


def test_xdg_data_home_below_a_file_names_the_default(cli: Any, a_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if sys.platform == "darwin":
        pytest.skip("XDG directories")
    monkeypatch.delenv("YAHTZEE_LIBRARY", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(a_file))
    r = cli(["log", "new", "--players", "A,B"])
    line = one_error_line(r.stderr)
    assert r.exit_code == 1 and "(the default: the user data directory) cannot be made" in line


def test_library_names_what_set_it(cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("YAHTZEE_LIBRARY", str(tmp_path / "lib"))
    r = cli(["library"])
    assert r.exit_code == 0 and r.stdout.splitlines()[1] == "  set by $YAHTZEE_LIBRARY"


def test_a_missing_folder_can_be_made_and_a_fifo_game_file_is_skipped(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert folder_problem(tmp_path / "new" / "deeper", write=True) is None
    monkeypatch.setenv("YAHTZEE_LIBRARY", str(tmp_path))
    os.mkfifo(tmp_path / "games-2026-01.ndjson")  # would block a reader for ever
    (tmp_path / "games-2026-02.ndjson").write_text('{"a": 1}\n\n{"b": 2}\n')
    s = library.summary()
    assert (s.games, [p.name for p in s.files], s.unreadable) == (2, ["games-2026-02.ndjson"], ())


def test_a_dangling_link_is_no_folder(tmp_path: Path) -> None:
    (tmp_path / "lib").symlink_to(tmp_path / "gone")
    assert folder_problem(tmp_path / "lib") == "is a link to nothing (a missing target)"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("YAHTZEE_LIBRARY", str(tmp_path / "lib"))
        with pytest.raises(UnusableFolder, match="link to nothing"):
            library.location()


# --------------------------------------------------------------------------- permissions (a real user's)


@pytest.fixture
def locked(tmp_path: Path) -> Any:
    """Folders and files given a mode for the test, their mode restored after it (so tmp_path goes)."""
    changed: list[Path] = []

    def lock(path: Path, mode: int) -> Path:
        changed.append(path)
        path.chmod(mode)
        return path

    yield lock
    for path in changed:
        path.chmod(0o755)


def test_an_unreadable_library_folder_is_not_an_empty_one(yahtzee: list[str], tmp_path: Path, locked: Any) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "games-2026-01.ndjson").write_text('{"x": 1}\n')
    locked(folder, 0o000)
    for args in (["library"], ["stats"], ["log", "new", "--players", "A,B"], ["play", "--resume"]):
        r = run(yahtzee, args, {"YAHTZEE_LIBRARY": str(folder)})
        line = one_error_line(r.stderr)
        assert r.returncode == 1 and f"library folder {folder} (set by $YAHTZEE_LIBRARY) cannot be read: " \
            "permission denied" in line, (args, line)
        assert "no games" not in r.stdout + r.stderr


def test_an_unwritable_library_folder_refuses_a_new_game(yahtzee: list[str], tmp_path: Path, locked: Any) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    locked(folder, 0o555)
    r = run(yahtzee, ["log", "new", "--players", "A,B"], {"YAHTZEE_LIBRARY": str(folder)})
    assert r.returncode == 1 and "cannot be written: permission denied" in one_error_line(r.stderr)
    r = run(yahtzee, ["log", "new", "--players", "A,B"], {"YAHTZEE_LIBRARY": str(folder / "sub")})
    assert r.returncode == 1 and f"cannot be made: {folder} cannot be written" in one_error_line(r.stderr)


def test_an_unreadable_game_file_is_named_and_the_rest_counted(yahtzee: list[str], tmp_path: Path,
                                                               locked: Any) -> None:
    (tmp_path / "games-2026-01.ndjson").write_text('{"x": 1}\n')
    (tmp_path / "games-2026-02.ndjson").write_text('{"x": 1}\n{"y": 2}\n')
    locked(tmp_path / "games-2026-01.ndjson", 0o000)
    r = run(yahtzee, ["library"], {"YAHTZEE_LIBRARY": str(tmp_path)})
    assert r.returncode == 1, r.stderr
    assert one_error_line(r.stderr) == f"yahtzee: error: cannot read {tmp_path}/games-2026-01.ndjson: permission denied"
    assert "2 games in 1 file" in r.stdout
