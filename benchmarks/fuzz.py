"""The fuzz layer of the test suite (tests/test_fuzz.py) with a long budget and fresh random inputs.

    python benchmarks/fuzz.py [EXAMPLES]     (default 2000 examples per property)

Every property asserts: a documented exit status (0, 1, 2), at most one line on stderr for a failed
command, never a traceback; the memory property runs endless and oversized inputs and a batch of hostile
command lines in one child process and bounds its peak RSS (YAHTZEE_FUZZ_SEED draws another batch).
The suite runs the same properties with 15 fixed examples each."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    examples = sys.argv[1] if len(sys.argv) > 1 else "2000"
    env = {**os.environ, "YAHTZEE_FUZZ_EXAMPLES": examples}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(ROOT / "tests" / "cli" / "test_fuzz.py")]
    return subprocess.call(cmd, env=env, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
