"""Strategy tables shipped with the package, so a first `hint` on the default rules needs no build.

data/<cache file name>.xz is the cache file itself (cache.py's layout, SHA-256 of its payload and the
rule set's fingerprint in its header) compressed with xz. cache.read falls back to it when the cache
directory has no such file, and copies it there; a shipped table for rules that have changed since
simply has another fingerprint and is never found.

Regenerate after a change to the rules or the solver (tests/test_prebuilt.py says when):

    python -m yahtzee_cli.prebuilt
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"
PRESETS = ("yahtzee",)  # the default rules only: about 2 MB each


def shipped(name: str) -> bytes | None:
    """The shipped cache file `name`, decompressed (None when there is none or it cannot be read)."""
    packed = DATA / f"{name}.xz"
    try:
        import lzma

        return lzma.decompress(packed.read_bytes())
    except Exception:  # none, unreadable, damaged, or a Python without lzma: the table is built instead
        return None


def main() -> None:
    import lzma

    from . import cache, solver
    from .rules import preset

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["YAHTZEE_CACHE_DIR"] = tmp
        for old in DATA.glob("*.tbl.xz"):
            old.unlink()
        for name in PRESETS:
            rules = preset(name)
            tab = solver.build(rules)
            solver._to_file(rules, tab)
            path = cache.table_path(rules.fingerprint)
            packed = DATA / f"{path.name}.xz"
            packed.write_bytes(lzma.compress(path.read_bytes(), preset=9 | lzma.PRESET_EXTREME))
            sys.stdout.write(f"{packed.relative_to(DATA.parent.parent)}: {packed.stat().st_size:,} bytes\n")


if __name__ == "__main__":
    main()
