"""Game logs of one-seat, one-column runs written by a compiled writer: the bytes simulate.game_logs
makes with orjson, line for line (every string in them, the rules, names and box keys, is encoded by
orjson once per chunk; the writer puts digits and punctuation around them), a hundred times faster, so
that writing `--log-out` keeps up with the games."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np
import orjson

from ..solver.games import GameBatch
from ..solver.jit import njit

_buffers = threading.local()  # each thread's output buffer


def _b(data: bytes) -> np.ndarray:
    return np.frombuffer(data, dtype=np.uint8)


@njit(cache=True, inline="always")
def _put(out: np.ndarray, pos: int, text: np.ndarray) -> int:  # pragma: no cover - compiled
    for i in range(text.shape[0]):
        out[pos + i] = text[i]
    return pos + int(text.shape[0])


@njit(cache=True, inline="always")
def _int(out: np.ndarray, pos: int, v: int) -> int:  # pragma: no cover - compiled
    if v < 0:
        out[pos] = 45  # -
        pos += 1
        v = -v
    digits = 1
    x = v
    while x >= 10:
        x //= 10
        digits += 1
    for i in range(digits - 1, -1, -1):
        out[pos + i] = 48 + v % 10
        v //= 10
    return pos + digits


@njit(cache=True, nogil=True)
def _lines(out: np.ndarray, rolls: np.ndarray, held: np.ndarray, n_rolls: np.ndarray, box: np.ndarray,
           scores: np.ndarray, n_turns: np.ndarray, first_game: int, parts: Any) -> int:  # pragma: no cover
    """The logs of every game into `out`; the bytes written. parts = (head, turn_head, keys, key_at,
    meta_head, tail): the line's start up to its first turn, a turn's up to its first roll, the box
    keys (back to back, key b at key_at[b]:key_at[b + 1]), what comes between the last turn and the
    game's number, the line's end."""
    head, turn_head, keys, key_at, meta_head, tail = parts
    held_key = _b_held
    box_key = _b_box
    score_key = _b_score
    pos = 0
    n = rolls.shape[3]
    for g in range(rolls.shape[0]):
        pos = _put(out, pos, head)
        for t in range(n_turns[g]):
            if t:
                out[pos] = 44
                pos += 1
            pos = _put(out, pos, turn_head)
            k = n_rolls[g, t]
            for i in range(k):
                if i:
                    out[pos] = 44
                    pos += 1
                out[pos] = 91
                pos += 1
                for d in range(n):
                    if d:
                        out[pos] = 44
                        pos += 1
                    out[pos] = 48 + rolls[g, t, i, d]
                    pos += 1
                out[pos] = 93
                pos += 1
            out[pos] = 93
            pos += 1
            if k > 1:
                pos = _put(out, pos, held_key)
                for i in range(k - 1):
                    if i:
                        out[pos] = 44
                        pos += 1
                    out[pos] = 91
                    pos += 1
                    first = True
                    for d in range(n):
                        v = held[g, t, i, d]
                        if v:
                            if not first:
                                out[pos] = 44
                                pos += 1
                            first = False
                            out[pos] = 48 + v
                            pos += 1
                    out[pos] = 93
                    pos += 1
                out[pos] = 93
                pos += 1
            pos = _put(out, pos, box_key)
            b = box[g, t]
            if b < 0:
                pos = _put(out, pos, _b_null)
            else:
                pos = _put(out, pos, keys[key_at[b]: key_at[b + 1]])
                pos = _put(out, pos, score_key)
                pos = _int(out, pos, scores[g, 0, b])
            out[pos] = 125
            pos += 1
        pos = _put(out, pos, meta_head)
        pos = _int(out, pos, first_game + g + 1)
        pos = _put(out, pos, tail)
    return pos


_b_held = _b(b',"held":[')
_b_box = _b(b',"box":')
_b_score = _b(b',"score":')
_b_null = _b(b"null")


def compiled(rules: Any, seats: int) -> bool:
    """Whether a run's logs are written here: one seat, one column."""
    return seats == 1 and rules.settings.columns == 1


def applies(rules: Any, batches: Sequence[GameBatch], seed: int | None) -> bool:
    """Whether the compiled writer writes these logs: one seat, one column, a seed to record."""
    return compiled(rules, len(batches)) and seed is not None


def game_logs(spec: Any, keys: Sequence[str], name: str, batch: GameBatch, seed: int,
              strategies: Sequence[str]) -> bytes:
    """simulate.game_logs of one seat on one column (applies), as orjson writes them."""
    assert batch.rolls is not None and batch.held is not None and batch.n_rolls is not None
    assert batch.box is not None and batch.n_turns is not None
    doc = orjson.dumps({"format": "yahtzee-log/1", "rules": spec, "players": [name], "turns": []})
    head = doc[: -len(b"]}")]  # ... "turns":[
    turn_head = orjson.dumps({"player": name, "rolls": []})[: -len(b"]}")]
    encoded = [orjson.dumps(k) for k in keys]
    key_at = np.zeros(len(keys) + 1, dtype=np.int64)
    key_at[1:] = np.cumsum([len(e) for e in encoded])
    meta = orjson.dumps({"seed": seed, "game": 0, "strategies": list(strategies)})
    cut = meta.index(b'"game":') + len(b'"game":')
    meta_head = b"]," + b'"meta":' + meta[:cut]
    tail = meta[cut + 1:] + b"}\n"
    G, T = batch.n_rolls.shape[:2]
    R, n = batch.rolls.shape[2], batch.rolls.shape[3]
    per_turn = len(turn_head) + 2 * R * (2 * n + 2) + 16 + int(key_at[-1]) + 24
    bound = G * (len(head) + len(meta_head) + len(tail) + 24 + T * per_turn)
    out = getattr(_buffers, "out", None)
    if out is None or len(out) < bound:  # (kept: a fresh buffer a chunk cost more in page faults than the writing)
        out = _buffers.out = np.empty(bound, dtype=np.uint8)
    parts = (_b(head), _b(turn_head), _b(b"".join(encoded) or b" "), key_at, _b(meta_head), _b(tail))
    size = _lines(out, batch.rolls, batch.held, batch.n_rolls, batch.box, batch.scores, batch.n_turns,
                  batch.first_game, parts)
    return out[:size].tobytes()
