"""One game (or a match) of a variant, turn by turn: the state machine of the interactive variant games.

:class:`bgnet.game.Game` is backgammon's game with the cube; the variant
games (:mod:`bgnet.variants`) have no cube, so their state is smaller: the
board seen by the side on roll, whose turn it is, the dice, and the result.
:class:`VariantMatch` keeps that state for a person against a bot (the web
board) and knows a match's course: games of one variant, or tavli's three in
turn, either ``count`` games each from an opening roll or games to
``length`` points, the winner of a game starting the next (a draw: the next
game starts from an opening roll).  It decides nothing for a player: the
caller chooses a row of :meth:`VariantMatch.results` and calls
:meth:`VariantMatch.play`.

Turns follow :meth:`bgnet.variants.Variant.generate`'s whole-turn results:
the row's position is seen by the side on roll next, which is the mover
again when the row's ``again`` is set (acey-deucey's 1-2); a roll without
a legal play passes.  The batched engine of self-play is
:class:`bgnet.lockstep.Lockstep`; this is its one-game counterpart for
people.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bgnet.dice import opening_dice, roll
from bgnet.errors import BgnetError
from bgnet.movegen import MoveBatch
from bgnet.variants import Variant

__all__ = ["Turn", "VariantMatch"]


@dataclass(frozen=True)
class Turn:
    """What a turn did: who moved (0 or 1), the dice, the row played (-1: a pass), its steps, and whether
    the mover rolls again; ``board`` is the position before it, from the mover."""

    player: int
    dice: tuple[int, int]
    row: int
    steps: tuple[tuple[int, int], ...]
    again: bool
    board: np.ndarray
    double: int = 0


class VariantMatch:
    """A run of variant games between player 0 and player 1, one turn at a time.

    ``games``: the games played in turn (one, or tavli's three).  ``length``
    0: ``count`` games (0: no end), each from an opening roll; else games
    until a side has ``length`` points, the winner of each starting the next.
    """

    def __init__(
        self, games: list[Variant], rng: np.random.Generator, length: int = 0, count: int = 0
    ) -> None:
        if not games:
            raise BgnetError("a match needs at least one game")
        if length < 0 or count < 0:
            raise BgnetError(f"length and count must be 0 or more, got {length} and {count}")
        self.games = games
        self.rng = rng
        self.length = length
        self.count = count
        self.score = [0, 0]
        self.number = -1  # the game under way (0, 1, ...)
        self.record: list[tuple[str, int | None, int]] = []  # (label, winner or None for a draw, points)
        self.opening: tuple[int, int] | None = None  # player 0's and player 1's opening dice
        self.first = 0
        self.turn = 0
        self.dice: tuple[int, int] = (0, 0)
        self.board = games[0].start.copy()
        self.winner: int | None = None
        self.points = 0
        self.over = True  # no game under way yet
        self._batch: MoveBatch | None = None

    # -- state ---------------------------------------------------------------------

    @property
    def game(self) -> Variant:
        """The game under way (or the last one)."""
        return self.games[max(self.number, 0) % len(self.games)]

    @property
    def match_over(self) -> bool:
        if self.length:
            return max(self.score) >= self.length
        return bool(self.count) and len(self.record) >= self.count

    def board_for(self, player: int) -> np.ndarray:
        """The board seen by ``player``."""
        return self.board.copy() if player == self.turn else self.game.flip(self.board)

    def results(self) -> MoveBatch:
        """The legal whole turns of the side on roll with the dice rolled (computed once per turn)."""
        if self.over:
            raise BgnetError("the game is over: there is nothing to play")
        if self._batch is None:
            self._batch = self.game.generate(self.board[None, :], np.array([self.dice], dtype=np.int64))
        return self._batch

    # -- course ----------------------------------------------------------------------

    def new_game(self) -> None:
        """Start the next game: from an opening roll, or, in a match, with the last winner rolling."""
        if not self.over:
            raise BgnetError("the game is not over yet")
        if self.match_over:
            raise BgnetError("the match is over")
        starter = self.winner if self.length and self.number >= 0 else None
        self.number += 1
        game = self.game
        self.board = game.start.copy()
        self.winner, self.points, self.over = None, 0, False
        if starter is None:
            a, b = opening_dice(self.rng)
            self.opening = (a, b)
            self.turn = 0 if a > b else 1
            self.dice = self._roll() if game.opening == "reroll" else (max(a, b), min(a, b))
        else:
            self.opening = None
            self.turn = starter
            self.dice = self._roll()
        self.first = self.turn
        self._batch = None

    def play(self, row: int) -> Turn:
        """Play row ``row`` of :meth:`results` for the side on roll (-1: a pass, when nothing is legal)."""
        batch = self.results()
        n = int(batch.offsets[1])
        if row == -1:
            if n:
                raise BgnetError(f"{self.dice[0]}-{self.dice[1]} has a legal play: a pass is not allowed")
        elif not 0 <= row < n:
            raise BgnetError(f"row {row} is not one of the {n} legal plays of {self.dice[0]}-{self.dice[1]}")
        game, mover = self.game, self.turn
        again = bool(batch.again[row]) if row >= 0 and batch.again is not None else False
        double = int(batch.doubles[row]) if row >= 0 and batch.doubles is not None else 0
        turn = Turn(mover, self.dice, row, batch.steps_of(row) if row >= 0 else (), again, self.board, double)
        new = batch.positions[row].copy() if row >= 0 else game.flip(self.board)
        # Variant.result reads a board seen by the side on roll after the mover.
        won = game.result(game.flip(new) if again else new)
        self._batch = None
        if won is not None:
            self.board = game.flip(new) if again else new
            self.turn = mover ^ 1
            self.over = True
            self.winner = None if won == 0 else mover
            self.points = won
            if self.winner is not None:
                self.score[self.winner] += won
            self.record.append((game.label, self.winner, won))
            return turn
        self.board = new
        if not again:
            self.turn = mover ^ 1
        self.dice = self._roll()
        return turn

    def _roll(self) -> tuple[int, int]:
        d = roll(self.rng)
        return d.high, d.low
