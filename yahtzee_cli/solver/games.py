"""GameBatch: what a simulation kernel returns for a block of games, whatever the strategy.

All arrays are numpy; G games, C columns, B boxes, T turns recorded (only when `record`).
Game g of a run with seed S, seat s uses the dice stream rng.stream(S, g, s): a game is the same
whatever the chunking, worker count or backend.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

I64 = npt.NDArray[np.int64]


@dataclass
class GameBatch:
    first_game: int  # index of the batch's first game in the whole run
    scores: I64  # [G, C, B] score written in each box
    yahtzee_bonus: I64  # [G, C] extra-Yahtzee bonus points per column
    totals: I64  # [G] final score (rules.sheet_total)
    # Recorded play (None unless requested): per turn the dice after each roll (0-padded), the dice
    # held before each reroll (0-padded, sorted), the number of rolls, and the (column, box) filled
    # (box -1 for a passed turn).
    rolls: I64 | None = None  # [G, T, max_rolls, n_dice]
    held: I64 | None = None  # [G, T, max_rolls - 1, n_dice]
    n_rolls: I64 | None = None  # [G, T]
    column: I64 | None = None  # [G, T]
    box: I64 | None = None  # [G, T]
    n_turns: I64 | None = None  # [G] turns actually played

    def __len__(self) -> int:
        return int(self.totals.shape[0])
