"""The presets' names and one-line descriptions, apart from the rule models: what `yahtzee rules` lists
without importing pydantic or building a model. rules.PRESETS takes each preset's `about` from here."""

from __future__ import annotations

ABOUT: dict[str, str] = {
    "yahtzee": "Hasbro Yahtzee: 13 boxes, 35 at 63, +100 per extra Yahtzee, forced joker",
    "kniffel": "German Kniffel: Yahtzee's rules with the German box names",
    "yatzy": "Scandinavian Yatzy: 15 boxes, 50 at 63, no extra bonus",
    "forced-yatzy": "Forced Yatzy: filled strictly top to bottom, bonus at 42",
    "maxi-yatzy": "Maxi Yatzy: 6 dice, 20 boxes, 100 at 84, unused rolls saved for later turns",
    "triple-yahtzee": "Triple Yahtzee: three columns counted x1, x2, x3",
    "triple-yatzy": "Triple Yatzy: three Scandinavian columns counted x1, x2, x3",
}

# Other names the rules give the same game: Yacht, Kniffel and Generala "are the same game - the
# rules and the score sheet above apply to all of them". Kniffel has its own preset (German box
# names); Yacht and Generala play the Yahtzee preset. Historically they differ (Yacht's 12 boxes
# without a bonus, Generala's served-roll bonuses and instant win), which is not modelled here.
PRESET_ALIASES: dict[str, str] = {"yacht": "yahtzee", "generala": "yahtzee"}
ALIAS_NOTE = ("historical Yacht and Generala rules differ (Yacht: 12 boxes, no bonuses; Generala: bonuses "
              "for hands served on the first roll); here both names play the Yahtzee rules")


def listing() -> list[dict[str, str]]:
    """`yahtzee rules` without a name: every preset, then the other names, each with one line."""
    presets = [{"name": k, "about": v} for k, v in ABOUT.items()]
    presets += [{"name": k, "about": f"another name for the {v} rules (historical {k.capitalize()} rules differ)"}
                for k, v in PRESET_ALIASES.items()]
    return presets
