"""The numeric engine (numpy, numba), loaded only when a table is built or games are played: score
tables, compiled rule functions, kernels, the exact solver, the approximate fit, named strategies."""
