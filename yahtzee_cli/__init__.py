"""yahtzee-cli: score, validate, replay, simulate and solve the Yahtzee family of dice games."""

__version__ = "0.1.0"
