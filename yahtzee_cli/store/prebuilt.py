"""Strategy tables shipped with the package, so a first `hint` on the default rules or Scandinavian Yatzy
(or on Triple Yahtzee, whose columns the default rules' table values) needs no build; and for the
default rules, what a first `hint --target`, `--to-win`, `--risk` or `--distribution` at the start of a
game needs that does not depend on the dice: the risk tables of the strategies `hint --target` chooses
among (solver.distribution.THETA_GRID), the empty sheet's position under each (solver.positions), so
such a hint reads them instead of computing them (minutes of CPU), and the score distribution of optimal
play, the opponents' at the start of a game (solver.winning.start_pmf).

yahtzee_cli/data/<cache file name>.gz is the cache file itself (tablefile.py's layout, the SHA-256
of its payload and the rule set's fingerprint in its header) compressed with gzip: 2.5 MB where xz
made 2.1, but read in about 0.03 s instead of 0.25-0.5, which a first run waits for. tablefile.read falls
back to it when the cache directory has no such file, and copies it there; a shipped table for rules
that have changed since simply has another fingerprint and is never found (then it is built, as for
any other rule set), and one whose kind or version its reader no longer accepts is built again too.
Each risk table is 2.4 MB compressed, each position 0.46 MB, the distribution 12 kB.

Regenerate after a change to the rules or the solver (tests/strategy/test_prebuilt.py says when):

    python -m yahtzee_cli.solver.ship           # everything
    python -m yahtzee_cli.solver.ship --risk    # the risk tables and positions only (on the shipped table)
"""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
SUFFIX = ".gz"  # a shipped table's file: DATA / (its cache file's name + SUFFIX)
# exact tables: the default rules (2.5 MB compressed) and Scandinavian Yatzy (6.6 MB), whose first hint,
# simulate or chances would otherwise wait for a build (the kernels compiled, then about 3 s)
PRESETS = ("yahtzee", "yatzy")
# approximate strategies fitted by self-play: Triple Yahtzee and Triple Yatzy (a few hundred bytes: a
# weight on the exact tables of PRESETS) and Maxi Yatzy with saved rolls (the heuristic's 47 kB of
# parameters, 21 kB packed), whose fit would otherwise take one or two minutes before a first hint
APPROX_PRESETS = ("triple-yahtzee", "triple-yatzy", "maxi-yatzy")
# rule sets with saved rolls whose values by stock ship (solver.saved_fit): Maxi Yatzy, fitted to its table
# with at most 24 saved rolls, a table of about half an hour's build
SAVED_FIT_PRESETS = ("maxi-yatzy",)
# rule sets of PRESETS whose risk tables, empty-sheet positions and distribution ship too: about 9 MB each
RISK_PRESETS = ("yahtzee",)


def shipped(name: str) -> bytes | None:
    """The shipped cache file `name`, decompressed (None when there is none or it cannot be read)."""
    packed = DATA / f"{name}{SUFFIX}"
    try:
        import gzip

        return gzip.decompress(packed.read_bytes())
    except Exception:  # none, unreadable, damaged, or a Python without zlib: the table is built instead
        return None
