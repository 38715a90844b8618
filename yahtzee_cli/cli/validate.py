"""`yahtzee validate`: not written yet (registers nothing)."""
