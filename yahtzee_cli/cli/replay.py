"""`yahtzee replay`: not written yet (registers nothing)."""
