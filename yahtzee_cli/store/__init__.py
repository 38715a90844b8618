"""The cache of what the solver makes, below the solver and without numpy: the table file and the
cache directory (tablefile), the tables shipped with the package (prebuilt), the registry of stored
kinds (kinds), one artifact's read, build and write under its lock (artifact: `get`), and what the
cache directory holds, for `yahtzee cache` (listing)."""
