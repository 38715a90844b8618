"""Playing and judging games: hints (hint), simulation (simulate), random play and bots (strategies),
grading a game against optimal play (analyze)."""
