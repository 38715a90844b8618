"""The registry of what the cache keeps: one `Kind` per stored artifact, with the name of its files,
the header's "kind" its reader accepts, whether its build is locked and the words of its notes.

A kind's files are named `<prefix><key>-<fingerprint><suffix>`: the key tells apart the artifacts of
one rule set (a risk strategy's theta, a position), the fingerprint is the rule set's. The listing of
the cache (listing.py) knows the toolbox's files by these names; the solver binds a kind to how its
artifact is made and read (artifact.py)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Voice = Literal["strategy", "computed"]  # how the notes word a kind (see artifact.Notes)


@dataclass(frozen=True)
class Kind:
    """One kind of stored artifact. `name` is the header's "kind" (what the reader accepts), `prefix`
    starts its files' names, `suffix` ends them; `outdated` is the damage a header of another kind or
    version is reported as ("{path}" stands for the file); `locked`: one process builds it while the
    others wait; `voice`: the words of its notes; `parts`: the suffixes of the other files of an
    artifact kept in several (named as its first, with these suffixes instead); `keep`: the most
    artifacts of the kind the cache holds (the least recently written go first; 0: no bound)."""

    name: str
    prefix: str
    outdated: str
    voice: Voice = "computed"
    locked: bool = True
    suffix: str = ".tbl"
    parts: tuple[str, ...] = ()
    keep: int = 0

    def file_name(self, fingerprint: str, key: str = "") -> str:
        return f"{self.prefix}{key}-{fingerprint}{self.suffix}"

    def path(self, folder: Path, fingerprint: str, key: str = "") -> Path:
        return folder / self.file_name(fingerprint, key)

    def paths(self, folder: Path, fingerprint: str, key: str = "") -> list[Path]:
        """Every file of one artifact: the one `path` names, then its parts."""
        first = self.path(folder, fingerprint, key)
        return [first, *(first.with_suffix(part) for part in self.parts)]


EXACT = Kind("exact", "exact", "the cached table is from another solver version", "strategy")
APPROX = Kind("approx", "approx", "{path} is not an approximate strategy", "strategy")
# the saved-rolls table is three files (values, header, masks) named after its values' file
SAVED = Kind("saved", "saved", "the saved-rolls table is from another version", "strategy", suffix=".f32",
             parts=(".json", ".masks"))
# the values by stock of saved rolls fitted to a saved-rolls table (solver.saved_fit): shipped for Maxi Yatzy
SAVED_FIT = Kind("savedfit", "savedfit", "the fitted saved-rolls strategy is from another version", "strategy")
DISTRIBUTION = Kind("distribution", "dist", "the cached distribution is from another version", locked=False)
RISK = Kind("risk", "risk", "the cached risk table is from another version", locked=False)
POSITION = Kind("position", "pos", "the cached position is from another version")
STATE_PMFS = Kind("state_pmfs", "states", "the cached state distributions is from another version")
EARLY = Kind("early", "early", "the cached early-game distributions are from another version")
# a player's final-score distribution from a position asked for once (a few kB each; a new one every
# turn of every game asked about, hence the bound)
FINAL = Kind("final", "final", "the cached final-score distribution is from another version", locked=False,
             keep=2048)
MOVES = Kind("moves", "moves", "the cached move table is from another version", "strategy")
GREEDY_MOVES = Kind("gmoves", "gmoves", "the cached move table is from another version", "strategy")

REGISTRY: dict[str, Kind] = {k.name: k for k in (EXACT, APPROX, SAVED, SAVED_FIT, DISTRIBUTION, RISK, POSITION,
                                                  STATE_PMFS, EARLY, FINAL, MOVES, GREEDY_MOVES)}

def theta_key(theta: float) -> str:
    """A risk strategy's theta as a file name's key (0 is the expected-score table)."""
    return "0" if theta == 0.0 else f"{theta:+.6g}".replace("+", "p").replace("-", "m")


_TABLE_NAME = re.compile(r"[A-Za-z0-9._+]+-[0-9a-f]{16}\.tbl")


def table_name(name: str) -> bool:
    """Whether `name` is named as a table file of the toolbox's (any kind's, of any version: a table an
    earlier version wrote is the toolbox's too, and `clean` removes it)."""
    return _TABLE_NAME.fullmatch(name) is not None

