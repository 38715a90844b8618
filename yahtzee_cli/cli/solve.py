"""`yahtzee solve`: not written yet (registers nothing)."""
