"""How a position is valued, without numpy: the exact-or-approximate choice (choice), keeps, value
sources and the values of a turn (turn). Imports only errors, rules and the store (for the cache
directory), so a hint from a stored table starts fast."""
