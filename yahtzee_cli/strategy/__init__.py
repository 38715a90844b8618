"""How a position is valued, without numpy: the exact-or-approximate choice (choice), keeps, value
sources, the values of a turn (turn) and the strategy-table file (tablefile). Imports only errors and
rules, so a hint from a stored table starts fast."""
