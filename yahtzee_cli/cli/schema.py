"""`yahtzee schema`: not written yet (registers nothing)."""
