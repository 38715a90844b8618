"""Where the user's files go: on Linux the XDG directories, exactly where platformdirs puts them."""

from __future__ import annotations

import sys

import platformdirs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from yahtzee_cli.paths import user_dir

pytestmark = pytest.mark.skipif(sys.platform in ("darwin", "win32", "cygwin"), reason="XDG directories")

VARS = {"config": "XDG_CONFIG_HOME", "cache": "XDG_CACHE_HOME", "data": "XDG_DATA_HOME"}
# unset, empty, blank, absolute, relative, with spaces
VALUES = st.one_of(st.none(), st.sampled_from(["", "  ", "/srv/x", "rel/dir", "/tmp/with space/"]))


@given(kind=st.sampled_from(sorted(VARS)), value=VALUES, home=st.sampled_from(["/home/anna", "/root"]))
@settings(max_examples=60, deadline=None)
def test_user_dirs_are_platformdirs_own(kind: str, value: str | None, home: str) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", home)
        if value is None:
            mp.delenv(VARS[kind], raising=False)
        else:
            mp.setenv(VARS[kind], value)
        expected = getattr(platformdirs, f"user_{kind}_dir")("yahtzee-cli")
        assert str(user_dir(kind)) == str(type(user_dir(kind))(expected))  # type: ignore[arg-type]


def test_the_defaults_by_hand(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/anna")
    for var in VARS.values():
        monkeypatch.delenv(var, raising=False)
    assert str(user_dir("config")) == "/home/anna/.config/yahtzee-cli"
    assert str(user_dir("cache")) == "/home/anna/.cache/yahtzee-cli"
    assert str(user_dir("data")) == "/home/anna/.local/share/yahtzee-cli"
