"""Regenerates the strategy tables shipped with the package (strategy/prebuilt.py reads them):

    python -m yahtzee_cli.solver.ship
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path


def main() -> None:
    from ..rules.engine import preset
    from ..strategy import tablefile as cache
    from ..strategy.prebuilt import APPROX_PRESETS, DATA, PRESETS, SUFFIX
    from . import approx
    from . import exact as solver

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["YAHTZEE_CACHE_DIR"] = tmp
        for old in DATA.glob(f"*.tbl{SUFFIX}"):
            old.unlink()
        for name in PRESETS:
            rules = preset(name)
            tab = solver.build(rules)
            solver._to_file(rules, tab)
            pack(cache.table_path(rules.fingerprint))
        for name in APPROX_PRESETS:  # fitted on the exact tables just built
            rules = preset(name)
            approx.prepare(rules, rebuild=True)
            pack(cache.table_path(rules.fingerprint, "approx"))


def pack(path: Path) -> None:
    import gzip

    from ..strategy.prebuilt import DATA, SUFFIX

    packed = DATA / f"{path.name}{SUFFIX}"
    packed.write_bytes(gzip.compress(path.read_bytes(), compresslevel=9, mtime=0))
    sys.stdout.write(f"{packed.relative_to(DATA.parent.parent)}: {packed.stat().st_size:,} bytes\n")


if __name__ == "__main__":
    main()
