"""A rule set is named one way everywhere (cache list, build notes, stats): the preset's name, the house
rules that differ from it, or `custom: NAME` for boxes of its own."""

from __future__ import annotations

import pytest

from yahtzee_cli.rules import engine as R


@pytest.mark.parametrize("name", R.preset_names())
def test_a_preset_is_named_by_its_name(name: str) -> None:
    rs = R.preset(name)
    assert rs.house_rules == () and rs.label == name and rs.title == name


def test_a_house_rule_names_the_settings_that_differ() -> None:
    rs = R.preset("yahtzee", {"joker": "free", "upper_bonus": 50})
    assert rs.house_rules == ("upper_bonus=50", "joker=free")
    assert rs.label == rs.title == "yahtzee + upper_bonus=50, joker=free"


def test_boxes_of_its_own_are_custom() -> None:
    base = R.preset("yahtzee").to_dict()
    base["boxes"] = base["boxes"][:3]
    rs = R.rules_from_data(base)
    assert rs.house_rules is None and rs.label == "custom: yahtzee" and rs.title == "yahtzee"


def test_the_cache_and_stats_agree_with_the_rules() -> None:
    from yahtzee_cli.formats.stats import rules_label as stats_label
    from yahtzee_cli.store.listing import rules_label as cache_label

    rs = R.preset("kniffel", {"must_zero": False})
    assert cache_label(rs.name, rs.to_dict(), rs.fingerprint) == rs.label == "kniffel + must_zero=off"
    assert stats_label(rs) == "kniffel (must_zero=off)"
