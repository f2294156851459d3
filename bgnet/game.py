"""Game results.

Results: a game ends when one side has borne off all 15 checkers.  It is a
*single* game (1 x cube) if the loser has borne off at least one checker, a
*gammon* (2 x cube) if none, and a *backgammon* (3 x cube) if none and the
loser still has a checker on the bar or in the winner's home board.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from bgnet.position import Board


class ResultKind(enum.IntEnum):
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True)
class Outcome:
    """The end of a game: ``winner`` is 0 for the side on roll in the final position, 1 for the other."""

    winner: int
    kind: ResultKind

    def points(self, cube: int = 1) -> int:
        return int(self.kind) * cube


def outcome(board: Board) -> Outcome | None:
    """The result of ``board`` (seen from the side on roll), or None while both sides have checkers."""
    b = np.asarray(board, dtype=np.int32)
    ours = b[b > 0].sum()
    theirs = -b[b < 0].sum()
    if ours and theirs:
        return None
    winner = 0 if ours == 0 else 1
    # Seen from the loser's side: its checkers, and those in the winner's home board or on the bar.
    loser = b if winner == 1 else -b[::-1]
    left = loser[loser > 0].sum()
    if left < 15:
        return Outcome(winner, ResultKind.SINGLE)
    if (loser[19:26] > 0).any():
        return Outcome(winner, ResultKind.BACKGAMMON)
    return Outcome(winner, ResultKind.GAMMON)


def final_probabilities(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact probabilities of finished games, vectorised over (N, 26) boards.

    Returns ``(over, probs)``: ``over[i]`` is True when the side *not* on roll
    has borne off all its checkers (the way every game ends: the mover bore
    off its last checker), and ``probs[i]`` are then the exact 5
    probabilities for the side on roll, which lost: (0, 0, 0, gammon,
    backgammon).  Rows not over are zero.
    """
    b = np.asarray(boards).reshape(-1, 26)
    over = ~(b < 0).any(axis=1)
    ours = np.where(b > 0, b, 0).astype(np.int32)
    gammon = over & (ours.sum(axis=1) == 15)
    backgammon = gammon & (ours[:, 19:26].sum(axis=1) > 0)
    probs = np.zeros((len(b), 5), dtype=np.float32)
    probs[:, 3] = gammon
    probs[:, 4] = backgammon
    return over, probs
