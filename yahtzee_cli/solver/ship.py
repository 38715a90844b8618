"""Regenerates the tables shipped with the package (store/prebuilt.py reads them):

    python -m yahtzee_cli.solver.ship           # everything: strategy tables, fitted weights, risk tables, positions
    python -m yahtzee_cli.solver.ship --risk    # only the risk tables, the empty sheet's positions and distribution

The risk tables and positions of RISK_PRESETS are built on the strategy table the package ships (the
expected-score strategy's position, theta 0, is played by it), so `--risk` alone leaves that table as it is.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from ..rules.engine import RuleSet


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m yahtzee_cli.solver.ship", description=__doc__.splitlines()[0])
    ap.add_argument("--risk", action="store_true", help="only the risk tables and the empty sheet's positions")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["YAHTZEE_CACHE_DIR"] = tmp
        if not args.risk:
            tables()
        risk()


def tables() -> None:
    from ..rules.engine import preset
    from ..store import artifact as store
    from ..store.prebuilt import APPROX_PRESETS, DATA, PRESETS, SUFFIX
    from . import approx
    from . import exact as solver

    for old in DATA.glob(f"*.tbl{SUFFIX}"):
        old.unlink()
    for name in PRESETS:
        rules = preset(name)
        tab = solver.build(rules)
        art = solver.stored(rules)
        store.write(art, tab)
        pack(art.path)
    for name in APPROX_PRESETS:  # fitted on the exact tables just built
        rules = preset(name)
        approx.prepare(rules, rebuild=True)
        pack(approx.stored(rules).path)


def risk() -> None:
    """The risk tables of THETA_GRID, the empty sheet's position under each theta (0 included) and the
    score distribution of optimal play."""
    from ..rules.engine import preset
    from ..store.prebuilt import DATA, RISK_PRESETS, SUFFIX
    from . import distribution as D
    from . import positions

    for name in RISK_PRESETS:
        rules = preset(name)
        for old in [*DATA.glob(f"risk*-{rules.fingerprint}.tbl{SUFFIX}"),
                    *DATA.glob(f"pos*-{rules.fingerprint}.tbl{SUFFIX}"),
                    *DATA.glob(f"dist*-{rules.fingerprint}.tbl{SUFFIX}")]:
            old.unlink()
        for theta in shipped_thetas(rules):
            if theta != 0.0:
                D.get_risk_table(rules, theta, rebuild=True)
                pack(D.stored_risk(rules, theta).path)
            pack(positions.prepare_start(rules, theta))
        start_distribution(rules)


def start_distribution(rules: RuleSet) -> None:
    """The final-score distribution of optimal play (a few kB): the opponents' at the start of a game
    (hint --to-win, the win chances), which would otherwise come from the early file (hundreds of MB)."""
    from . import distribution as D

    D.get_distribution(rules, 0.0, rebuild=True)
    pack(D.stored_distribution(rules, 0.0).path)


def shipped_thetas(rules: RuleSet) -> list[float]:
    """The risk strategies whose tables and positions ship: those of THETA_GRID the rules' scores allow."""
    from ..strategy.choice import effective_theta, max_risk
    from .distribution import THETA_GRID

    return list(dict.fromkeys(effective_theta(rules, t) for t in THETA_GRID if abs(t) <= max_risk(rules)))


def pack(path: Path) -> None:
    import gzip

    from ..store.prebuilt import DATA, SUFFIX

    packed = DATA / f"{path.name}{SUFFIX}"
    packed.write_bytes(gzip.compress(path.read_bytes(), compresslevel=9, mtime=0))
    sys.stdout.write(f"{packed.relative_to(DATA.parent.parent)}: {packed.stat().st_size:,} bytes\n")


if __name__ == "__main__":
    main()
