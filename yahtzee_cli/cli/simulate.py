"""`yahtzee simulate`: not written yet (registers nothing)."""
