"""Every `$ ` line in the README's ```console blocks runs (in the repo root, through the installed
`yahtzee` script) and must print exactly the lines that follow it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def examples() -> list[tuple[str, str]]:
    out = []
    for block in BLOCK.findall((ROOT / "README.md").read_text()):
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


@pytest.mark.skipif(shutil.which("yahtzee") is None, reason="console script not installed")
@pytest.mark.parametrize(("cmd", "expected"), examples(), ids=[c for c, _ in examples()])
def test_readme_example(cmd, expected, tmp_path):
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120", "YAHTZEE_CACHE_DIR": os.environ.get(
        "YAHTZEE_CACHE_DIR", str(tmp_path / "cache"))}
    p = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=ROOT, env=env, capture_output=True, text=True,
                       check=False)
    got = "\n".join(line.rstrip() for line in p.stdout.rstrip("\n").splitlines())
    want = "\n".join(line.rstrip() for line in expected.rstrip("\n").splitlines())
    assert got == want, p.stderr
