"""Regenerates the tables shipped with the package (store/prebuilt.py reads them):

    python -m yahtzee_cli.solver.ship           # everything: strategy tables, fitted weights, risk tables, positions
    python -m yahtzee_cli.solver.ship --risk    # only the risk tables, the empty sheet's positions and distribution
    python -m yahtzee_cli.solver.ship --saved-fit DIR   # only Maxi Yatzy's values by stock, fitted to the
                                                        # table with at most 24 saved rolls in cache DIR
                                                        # (built there first when missing: about 30 min)

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
    ap.add_argument("--saved-fit", type=Path, metavar="DIR",
                    help="only the values by stock fitted to the saved-rolls table in cache DIR")
    args = ap.parse_args(argv)
    if args.saved_fit is not None:
        saved_fits(args.saved_fit)
        return
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


def saved_fits(cache: Path) -> None:
    """SAVED_FIT_PRESETS' values by stock (solver.saved_fit), fitted to their table with at most
    DEFAULT_SAVED_CAP saved rolls in `cache` (built there when missing) and measured against it over
    MEASURE_GAMES games on the same dice."""
    os.environ["YAHTZEE_CACHE_DIR"] = str(cache)
    from ..rules.engine import preset
    from ..store.prebuilt import SAVED_FIT_PRESETS
    from ..strategy.choice import fit_rules
    from . import saved, saved_fit
    from .saved_fit import MEASURE_GAMES, MEASURE_SEED

    def say(message: str) -> None:
        sys.stderr.write(message + "\n")

    for name in SAVED_FIT_PRESETS:
        rules = preset(name)
        fr = fit_rules(rules)
        tab, _ = saved.get_table(fr, say=say)
        model = saved_fit.fit(fr, tab)
        fitted = saved.play_with(rules, model, MEASURE_SEED, 0, MEASURE_GAMES).totals
        exact = saved.play_with(rules, tab, MEASURE_SEED, 0, MEASURE_GAMES).totals
        diff = exact - fitted
        model.measured = {"games": MEASURE_GAMES, "seed": MEASURE_SEED, "mean": float(fitted.mean()),
                          "sd": float(fitted.std()), "exact_mean": float(exact.mean()), "below": float(diff.mean()),
                          "below_se": float(diff.std() / len(diff) ** 0.5)}
        sys.stdout.write(f"{name}: {model.measured}\n")
        pack(saved_fit.write(rules, model))


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
