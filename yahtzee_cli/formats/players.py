"""One player however the logs spell them: the single name matcher of stats, replay's tallies, analyze's
totals, head-to-head records and every `--player` lookup.

Two names are the same player when they are equal after Unicode canonical normalisation (NFC),
case folding and trimming or collapsing whitespace: `Mom`, `mom` and ` MOM ` are one player, and so
are `Zoë` typed as one code point or as `e` plus a combining diaeresis. Accents and other letters
still count (`Zoë` is not `Zoe`, `Anna-Lena` is not `Anna Lena`): merging two real people silently
would be worse than showing one person twice. A player is shown under the first spelling seen.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable


def player_key(name: str) -> str:
    """The form two spellings of one player share (canonical caseless matching, whitespace runs as
    one space, none at the ends)."""
    if name.isascii():  # (the common case: no composition to undo)
        return " ".join(name.casefold().split())
    # NFD first: case folding a composed character may not commute with composing it (Unicode 3.13)
    folded = unicodedata.normalize("NFD", name).casefold()
    return " ".join(unicodedata.normalize("NFC", folded).split())


def same_player(a: str, b: str) -> bool:
    return player_key(a) == player_key(b)


class PlayerNames:
    """The players met so far: each key with the first spelling seen, which is how they are shown."""

    __slots__ = ("_first", "_seen")

    def __init__(self) -> None:
        self._first: dict[str, str] = {}  # key -> first spelling
        self._seen: dict[str, tuple[str, str]] = {}  # spelling -> (first spelling, key): one key per spelling

    def add(self, name: str) -> tuple[str, str]:
        """The player `name` spells: (the name they are shown under, their key)."""
        hit = self._seen.get(name)
        if hit is None:
            key = player_key(name)
            hit = self._seen[name] = (self._first.setdefault(key, name), key)
        return hit

    def shown(self, key: str) -> str | None:
        """The name a key's player is shown under (None: not met)."""
        return self._first.get(key)

    def __contains__(self, key: object) -> bool:
        return key in self._first

    def spellings(self) -> list[str]:
        """Every player's shown name, in the order first met."""
        return list(self._first.values())


def pick(names: Iterable[str], wanted: str) -> int | None:
    """The index of the name in `names` that is player `wanted` (an exact spelling first, then the
    matcher's), None when none is."""
    names = list(names)
    if wanted in names:
        return names.index(wanted)
    key = player_key(wanted)
    for i, name in enumerate(names):
        if player_key(name) == key:
            return i
    return None


__all__ = ["PlayerNames", "pick", "player_key", "same_player"]
