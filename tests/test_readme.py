"""Every `$ ` line in the ```console blocks of the README and of docs/*.md runs (through the installed
`yahtzee` script) and must print exactly the lines that follow it. The examples run in order in one
working directory per test session, which links the repo's `fixtures` and `docs` (what examples read),
so files they write (`tonight.ndjson`) never meet another run's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO as ROOT

BLOCK = re.compile(r"```console\n(.*?)```", re.S)


DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def examples() -> list[tuple[str, str]]:
    out = []
    for block in (b for doc in DOCUMENTS for b in BLOCK.findall(doc.read_text())):
        cmd, expected = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd:
                    out.append((cmd, "\n".join(expected)))
                cmd, expected = line[2:], []
            else:
                expected.append(line)
        if cmd:
            out.append((cmd, "\n".join(expected)))
    return out


def test_readme_has_examples():
    assert len(examples()) >= 3
    assert len(DOCUMENTS) > 1  # docs/ is tested like the README


def test_examples_write_only_relative_paths():
    """Examples writing a fixed /tmp file would collide between test runs in parallel."""
    assert not [c for c, _ in examples() if "/tmp/" in c]


def test_quick_start_is_exactly_two_commands():
    text = (ROOT / "README.md").read_text()
    block = text.split("## Quick start", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    assert len(block.strip().splitlines()) == 2


def _path_with_yahtzee(tmp_path: Path) -> str:
    """PATH with a `yahtzee` on it: the installed script, else a stand-in running this interpreter's
    `-m yahtzee_cli` (so the examples never skip)."""
    path = os.environ.get("PATH", "")
    if shutil.which("yahtzee") is not None:
        return path
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "yahtzee"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m yahtzee_cli "$@"\n')
    script.chmod(0o755)
    return f"{bin_dir}{os.pathsep}{path}"


@pytest.fixture(scope="session")
def example_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The examples' working directory: the repo's inputs linked in, written files kept apart."""
    work = tmp_path_factory.mktemp("examples")
    for name in ("fixtures", "docs"):
        (work / name).symlink_to(ROOT / name, target_is_directory=True)
    return work


@pytest.mark.parametrize(("cmd", "expected"), examples(), ids=[c for c, _ in examples()])
def test_readme_example(cmd, expected, tmp_path, example_dir):
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", "PATH": _path_with_yahtzee(tmp_path),
           "YAHTZEE_CACHE_DIR": os.environ.get("YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))}
    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=example_dir, env=env, capture_output=True,
                       text=True, check=False)
    got = "\n".join(line.rstrip() for line in p.stdout.rstrip("\n").splitlines())
    want = "\n".join(line.rstrip() for line in expected.rstrip("\n").splitlines())
    assert got == want, p.stderr
