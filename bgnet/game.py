"""Game results and a plain game loop.

Results: a game ends when one side has borne off all 15 checkers.  It is a
*single* game (1 x cube) if the loser has borne off at least one checker, a
*gammon* (2 x cube) if none, and a *backgammon* (3 x cube) if none and the
loser still has a checker on the bar or in the winner's home board.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bgnet.dice import Dice, opening_roll, roll
from bgnet.movegen import generate
from bgnet.position import STARTING, Board, Position, flip


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


Chooser = Callable[[Board, Dice, np.ndarray], int]
"""Picks one of the legal results (an (n, 26) array seen by the opponent); returns its row."""


@dataclass
class GameRecord:
    """A finished game: every (position on roll, dice) and the outcome for the first player."""

    turns: list[tuple[Position, Dice]]
    first_player_points: int


def play_game(
    choose: tuple[Chooser, Chooser],
    rng: np.random.Generator,
    start: Position = STARTING,
    max_turns: int = 10_000,
) -> GameRecord:
    """Play one cubeless game between two choosers, from the opening roll.

    ``choose[0]`` moves for player 0.  Returns the turns played and player
    0's points (positive when it wins).
    """
    player, dice = opening_roll(rng)
    board = start.board.copy() if player == 0 else flip(start.board)
    turns: list[tuple[Position, Dice]] = []
    for _ in range(max_turns):
        turns.append((Position(board, validate=False), dice))
        batch = generate(board[None, :], np.array([[dice.high, dice.low]]))
        results = batch.positions[batch.offsets[0] : batch.offsets[1]]
        board = flip(board) if len(results) == 0 else results[choose[player](board, dice, results)].copy()
        player = 1 - player
        done = outcome(board)
        if done is not None:
            # ``board`` is seen by ``player``; done.winner == 1 means the other side won.
            winner = player if done.winner == 0 else 1 - player
            pts = done.points()
            return GameRecord(turns, pts if winner == 0 else -pts)
        dice = roll(rng)
    raise RuntimeError(f"game did not end in {max_turns} turns")


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
