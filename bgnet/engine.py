"""One game engine: games and matches with the cube and the score, for two seats, many games at once.

:class:`Engine` drives :class:`bgnet.game.Game`\\ s (the rules: turns, the
cube, the score, Crawford, resignations) for two seats, each a player of
:mod:`bgnet.players` or None for a seat whose actions the caller takes (a
person at a terminal).  :meth:`Engine.advance` takes every action due from a
seat with a player, batched over the games:

1. a pending resignation is answered (``player.accept``, when it has one;
   else accepted);
2. a pending double is answered (``player.take``);
3. before a roll where the side on roll may double
   (:func:`bgnet.match.may_double`), ``player.double`` is asked; a double is
   answered at once by the other seat when it has a player; otherwise the
   side rolls (dice from ``roll(game)``, or the match's generator);
4. all the rolls to play are generated in one call and chosen in one batch
   per seat (``player.choose``, through the ``chooser`` when one is given:
   the arena's referee), then played (``Game.move(checked=True)``).

until every game is over or waits for a seat without a player.  ``bgnet
play`` (one game, the person's seat without a player), ``bench play --cube``
and ``--match`` (:func:`bgnet.arena.play_cubeful`, many games, both seats
players) run through it, and ``serve`` asks the same player methods for
gnubg's decisions.  Cubeless self-play and the arena's cubeless games use
:class:`bgnet.lockstep.Lockstep`, this engine's cubeless core without a
state machine per game (it must stay as fast as possible).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from bgnet.dice import Dice
from bgnet.game import Game, Phase
from bgnet.lockstep import Chooser, duel
from bgnet.movegen import MoveBatch, generate
from bgnet.notation import play_of

if TYPE_CHECKING:
    from bgnet.players import CubePlayer

__all__ = ["MAX_PLIES", "Engine"]

MAX_PLIES = 2000
"""A game longer than this is taken to be a player looping (real games last about 60 plies)."""


def _no_chooser(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
    raise RuntimeError("a seat without a player was asked to move")


def _chooser_of(player: CubePlayer | None) -> Chooser:
    return player.choose if player is not None else _no_chooser


class Engine:
    """Plays the seats that have players in any number of games; see the module docstring.

    Args:
        players: the player of seat 0 and seat 1 (gnubg's player numbers), or
            None for a seat the caller plays.
        chooser: the chooser of plays for both seats (:data:`bgnet.lockstep.Chooser`,
            called with each input's seat); default: each player's ``choose``.
        roll: ``roll(game)`` gives the dice of a game's next roll; default:
            the game's match rolls them.
        max_plies: a game longer than this raises RuntimeError.
    """

    def __init__(
        self,
        players: Sequence[CubePlayer | None],
        *,
        chooser: Chooser | None = None,
        roll: Callable[[Game], Dice | None] | None = None,
        max_plies: int = MAX_PLIES,
    ) -> None:
        self.players = tuple(players)
        if len(self.players) != 2:
            raise ValueError("an engine has two seats")
        self.chooser = chooser or duel((_chooser_of(self.players[0]), _chooser_of(self.players[1])))
        self.roll = roll
        self.max_plies = max_plies

    def automatic(self, game: Game) -> bool:
        """Whether the actor of ``game`` now is a seat with a player."""
        actor = game.actor
        return actor is not None and self.players[actor] is not None

    def advance(self, games: Sequence[Game]) -> None:
        """Take every action due from a seat with a player, until each game is over or waits for the caller.

        Returns when no game has an action due from a seat with a player.
        """
        while self.advance_round(games):
            pass

    def advance_round(self, games: Sequence[Game]) -> bool:
        """One round: each game takes the actions due up to and including at most one play.

        The arena calls this to start new games between rounds, so batches stay
        full; returns whether any game had an action due.
        """
        due = [g for g in games if self.automatic(g)]
        if not due:
            return False
        # Each stage takes the games whose action is due from a seat with a player *now*
        # (an earlier stage may have passed the turn to the other seat).
        self._resignations(self._due(due, Phase.RESIGNED))
        self._answers(self._due(due, Phase.DOUBLED))
        self._rolls(self._due(due, Phase.ROLL))
        self._moves(self._due(games, Phase.MOVE))
        return True

    def _due(self, games: Sequence[Game], phase: Phase) -> list[Game]:
        return [g for g in games if g.phase is phase and self.automatic(g)]

    def _by_seat(self, games: list[Game]) -> list[tuple[int, CubePlayer, list[Game]]]:
        """The games grouped by the seat that acts now (fixed before any of them acts), seats with players."""
        out = []
        for seat in (0, 1):
            player = self.players[seat]
            mine = [g for g in games if g.actor == seat]
            if mine and player is not None:
                out.append((seat, player, mine))
        return out

    def _resignations(self, games: list[Game]) -> None:
        for _seat, player, mine in self._by_seat(games):
            boards = np.stack([g.board for g in mine])  # from the resigning side, on roll
            levels = np.array([g.resigned for g in mine])
            accept = getattr(player, "accept", None)
            answers = np.ones(len(mine), dtype=bool) if accept is None else np.asarray(accept(boards, levels))
            for g, yes in zip(mine, answers, strict=True):
                g.accept() if yes else g.reject()

    def _answers(self, games: list[Game]) -> None:
        for _seat, player, mine in self._by_seat(games):
            boards = np.stack([g.board for g in mine])  # from the doubler, on roll
            takes = np.asarray(player.take(boards, [g.state() for g in mine]), dtype=np.bool_)
            for g, yes in zip(mine, takes, strict=True):
                g.take() if yes else g.drop()

    def _rolls(self, games: list[Game]) -> None:
        asking = [g for g in games if g.may_double()]
        doubled: set[int] = set()
        for _seat, player, mine in self._by_seat(asking):
            boards = np.stack([g.board for g in mine])
            wants = np.asarray(player.double(boards, [g.state() for g in mine]), dtype=np.bool_)
            for g, yes in zip(mine, wants, strict=True):
                if yes:
                    g.double()
                    doubled.add(id(g))
        # A double is answered at once when the other seat has a player.
        self._answers([g for g in games if id(g) in doubled and self.automatic(g)])
        for g in games:
            if g.phase is Phase.ROLL and id(g) not in doubled:
                if g.plies >= self.max_plies:
                    raise RuntimeError(f"a game passed {self.max_plies} plies; a player may be looping")
                g.roll(self.roll(g) if self.roll is not None else None)

    def _moves(self, games: list[Game]) -> None:
        if not games:
            return
        boards = np.stack([g.board for g in games])
        dice = np.array([[g.to_play.high, g.to_play.low] for g in games], dtype=np.int64)
        batch = generate(boards, dice)
        rows = self.chooser(batch, np.array([g.turn for g in games], dtype=np.int64))
        for g, r in zip(games, rows, strict=True):
            g.move(play_of(batch, int(r)) if r >= 0 else None, checked=True)
