"""Many games in lockstep: the batched game loop of self-play and matches.

``Lockstep`` keeps ``slots`` games running side by side.  Each :meth:`step`
rolls for every game, generates all their legal results in one call, asks a
*chooser* for one result per game (one network forward over all candidate
positions, for instance), applies the choices and returns the games that
ended.  A finished slot starts a new game until ``games`` have been started.

Player 0 and player 1 alternate by the opening roll; positions are always
stored seen from the side on roll (``bgnet.position`` convention).  A row
whose ``batch.again`` is true (acey-deucey's 1-2: the mover rolls again)
keeps the mover on roll: its position is already seen by the mover and is
played from as it is.  So sides need not alternate ply by ply; a
:class:`FinishedGame` says who was on roll at every ply (``movers``).

Dice come from the ``rng`` shared by all games (:mod:`bgnet.dice`), or,
with ``dice=`` (a :data:`GameDice`), from a sequence fixed per game number:
the arena's duplicate dice (:func:`bgnet.dice.duplicate_dice`) replay one
sequence in two games with the seats swapped.  Choosers receive the
:class:`~bgnet.movegen.MoveBatch` of :func:`~bgnet.movegen.generate`, which
holds the positions before the move and the dice, for players that need
them (GNU Backgammon, a human).

This is the cubeless engine of self-play and the arena's cubeless games;
:mod:`bgnet.engine` runs games with the cube and the score on top of it.

With ``variant=`` (a :class:`bgnet.variants.Variant`) it plays that game
instead: boards are the variant's 52-slot boards, moves come from
:meth:`~bgnet.variants.Variant.generate`, the opening follows the variant
(``"reroll"``: the opening roll only says who starts, whose first roll is
then the game's first row of dice), and a game ends as
:meth:`~bgnet.variants.Variant.result` says (a draw scores 0).  With
``narrow=`` (a scorer, self-play's shortcut) acey-deucey's 1-2 goes on to
its doubles from only the ``keep`` best plays of its 1 and 2
(:meth:`~bgnet.variants.Variant.generate`): the choosers then see a subset
of the legal turns.  ``start=`` is the set-up, or a function of the
generator that returns a board (e.g. :func:`bgnet.position.random_race`):
then each game starts from a board of its own, a random side on roll with
any roll.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from bgnet.dice import opening_dice, rolls
from bgnet.game import outcome
from bgnet.movegen import MoveBatch, generate
from bgnet.position import NUM_SLOTS, STARTING, Position, flip
from bgnet.variants import NARROW_KEEP, PIN, VSLOTS, Variant

GameDice = Callable[[int], tuple[tuple[int, int], np.ndarray]]
"""``dice(game) -> ((a, b), rolls)`` for game number ``game`` (0, 1, ... in the
order games start): the opening roll, ``a`` player 0's die and ``b`` player
1's (``a != b``; the higher moves first and plays both), and ``rolls[t]``
the roll of ply ``t + 1``, an array of at least ``max_plies`` rows of two dice."""

Chooser = Callable[[MoveBatch, np.ndarray], np.ndarray]
"""``choose(batch, player) -> rows``: for input ``i`` (whose side on roll is
``player[i]``), the absolute row in ``batch.positions`` of the chosen result,
or -1 when ``batch.offsets[i] == batch.offsets[i + 1]`` (no legal play)."""


@dataclass(frozen=True)
class FinishedGame:
    """A game that ended: its positions and the result.

    ``history[t]`` is the position with a player on roll at ply ``t``
    (``history[0]`` is the opening position of the player who moved first);
    ``final`` is the terminal position, seen by the loser (on roll).
    ``points`` is player 0's score (+-1, 2, 3; 0 for a draw); ``first`` is the player who
    moved first.  ``game`` is the game's number in the order games started (0, 1,
    ...) and ``plies`` the number of plies played.

    ``movers[t]`` is the player on roll at ply ``t`` (``t = 0 .. plies``; the
    last entry is the side on roll in ``final``).  Without ``movers`` (a game
    built by hand) the sides alternate from ``first``, as they do in every
    game without a repeated turn; :meth:`on_roll` gives the array either way.
    """

    history: np.ndarray
    final: np.ndarray
    points: int
    first: int
    game: int = -1
    plies: int = 0
    movers: np.ndarray | None = None

    def on_roll(self) -> np.ndarray:
        """The player on roll at each ply ``0 .. plies`` (the last: the loser, on roll in ``final``)."""
        if self.movers is not None:
            return self.movers
        plies = max(self.plies, len(self.history))
        return (self.first + np.arange(plies + 1)) % 2

    def same_side(self) -> np.ndarray:
        """``same[t]``: ply ``t + 1`` (or the final position) has the side on roll of ply ``t``."""
        sides = self.on_roll()
        return sides[1:] == sides[:-1]


class Lockstep:
    def __init__(
        self,
        slots: int,
        games: int,
        rng: np.random.Generator,
        *,
        start: Position | Callable[[np.random.Generator], np.ndarray] = STARTING,
        max_plies: int = 2000,
        record: bool = False,
        dice: GameDice | None = None,
        variant: Variant | None = None,
        narrow: Callable[[np.ndarray], np.ndarray] | None = None,
        keep: int = NARROW_KEEP,
    ) -> None:
        if slots < 1 or games < 1:
            raise ValueError("slots and games must be positive")
        # a function: each game starts from a board of its own (the set-up is then never used)
        self.starts = None if isinstance(start, Position) else start
        setup = start if isinstance(start, Position) else STARTING
        if self.starts is not None and (variant is not None or dice is not None):
            raise ValueError("random starts are for backgammon self-play, without fixed dice")
        self.rng = rng
        self.variant = variant
        self.narrow = narrow
        self.keep = keep
        width = NUM_SLOTS if variant is None else VSLOTS
        self.start = setup.board if variant is None else variant.start
        self.reroll = variant is not None and variant.opening == "reroll"
        self.max_plies = max_plies
        self.record = record
        self.slots = min(slots, games)
        self.to_start = games
        self.started = 0
        self.game_dice = dice
        self.game = np.zeros(self.slots, dtype=np.int64)
        self.rolls = np.zeros((self.slots, max_plies + 1, 2), dtype=np.int8) if dice is not None else None
        self.boards = np.zeros((self.slots, width), dtype=np.int8)
        self.dice = np.zeros((self.slots, 2), dtype=np.int64)
        self.player = np.zeros(self.slots, dtype=np.int64)
        self.first = np.zeros(self.slots, dtype=np.int64)
        self.plies = np.zeros(self.slots, dtype=np.int64)
        self.active = np.zeros(self.slots, dtype=bool)
        self.history = np.zeros((self.slots, max_plies, width), dtype=np.int8) if record else None
        self.movers = np.zeros((self.slots, max_plies + 1), dtype=np.int8)
        for i in range(self.slots):
            self._new_game(i)

    @property
    def running(self) -> bool:
        return bool(self.active.any())

    def _new_game(self, i: int) -> None:
        if self.to_start == 0:
            self.active[i] = False
            return
        self.to_start -= 1
        self.game[i] = self.started
        self.started += 1
        if self.starts is not None:
            # a random start (a race, say): a random side on roll with any roll, doubles included
            first = int(self.rng.integers(2))
            self.boards[i] = self.starts(self.rng)
            self.dice[i] = rolls(self.rng, 1)[0]
        else:
            first = self._opening(i)
        self.player[i] = self.first[i] = first
        self.plies[i] = 0
        self.active[i] = True

    def _opening(self, i: int) -> int:
        """Set up game slot ``i`` at the start position with its opening roll; return who moves first."""
        if self.game_dice is None:
            a, b = opening_dice(self.rng)
        else:
            (a, b), sequence = self.game_dice(int(self.game[i]))
            if a == b or not (1 <= a <= 6 and 1 <= b <= 6):
                raise ValueError(
                    f"game {self.game[i]}: the opening roll needs two different dice, got {a}-{b}"
                )
            assert self.rolls is not None  # allocated with game_dice
            self.rolls[i] = 0
            self.rolls[i, : min(len(sequence), self.max_plies + 1)] = sequence[: self.max_plies + 1]
        self.boards[i] = self.start
        if not self.reroll:
            self.dice[i] = (max(a, b), min(a, b))
        elif self.rolls is None:
            self.dice[i] = rolls(self.rng, 1)[0]
        else:
            self.dice[i] = self.rolls[i, 0]
        return 0 if a > b else 1

    def step(self, choose: Chooser) -> list[FinishedGame]:
        """Play one ply in every running game; return the games that ended."""
        idx = np.flatnonzero(self.active)
        if self.history is not None:  # recording
            self.history[idx, self.plies[idx]] = self.boards[idx]
        self.movers[idx, self.plies[idx]] = self.player[idx]
        boards, dice = self.boards[idx], self.dice[idx]
        variant = self.variant
        batch = (
            generate(boards, dice)
            if variant is None
            else variant.generate(boards, dice, self.narrow, self.keep)
        )
        rows = choose(batch, self.player[idx])
        moved = rows >= 0
        new = np.empty((len(idx), self.boards.shape[1]), dtype=np.int8)
        new[moved] = batch.positions[rows[moved]]
        unmoved = self.boards[idx[~moved]]
        new[~moved] = flip(unmoved) if variant is None else variant.flip(unmoved)
        # The mover stays on roll after a row with ``again`` (never a row that ends the game).
        again = np.zeros(len(idx), dtype=bool)
        if batch.again is not None:
            again[moved] = batch.again[rows[moved]]
        self.boards[idx] = new
        self.player[idx] ^= (~again).astype(np.int64)
        self.plies[idx] += 1
        self.movers[idx, self.plies[idx]] = self.player[idx]
        if self.rolls is None:
            self.dice[idx] = rolls(self.rng, len(idx))
        else:
            self.dice[idx] = self.rolls[idx, self.plies[idx] - 1 + int(self.reroll)]
        if variant is None:
            # A game ends when the side that just moved has no checker left: the new side on
            # roll then has no negative slot.
            done = idx[~(new < 0).any(axis=1)]
        else:
            ending = variant.checkers(new)[1] == 0
            if variant.mother:
                ending |= (new[:, PIN + 1] != 0) | (new[:, PIN + 24] != 0)
            done = idx[ending]
        finished = []
        for i in done:
            if variant is None:
                result = outcome(self.boards[i])
                assert result is not None  # the side not on roll has no checker left
                # Seen from the loser on roll: player[i] lost.
                pts = result.points()
                points = -pts if self.player[i] == 0 else pts
            else:
                won = variant.result(self.boards[i])
                if won is None:
                    continue
                # The side that just moved (not player[i]) won ``won`` points.
                points = won if self.player[i] == 1 else -won
            hist = (
                self.history[i, : self.plies[i]].copy()
                if self.history is not None
                else np.empty((0, self.boards.shape[1]), np.int8)
            )
            finished.append(
                FinishedGame(
                    hist,
                    self.boards[i].copy(),
                    points,
                    int(self.first[i]),
                    int(self.game[i]),
                    int(self.plies[i]),
                    self.movers[i, : self.plies[i] + 1].copy(),
                )
            )
            self._new_game(i)
        too_long = idx[self.plies[idx] >= self.max_plies]
        for i in too_long:
            if self.active[i] and self.plies[i] >= self.max_plies:
                raise RuntimeError(f"a game passed {self.max_plies} plies; the chooser may be looping")
        return finished


def duel(choose: tuple[Chooser, Chooser]) -> Chooser:
    """A chooser that lets ``choose[p]`` move for player ``p``, each on its own rolls only."""

    def both(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        out = np.full(len(player), -1, dtype=np.int64)
        for p in (0, 1):
            mine = player == p
            if mine.any():
                sub, rows = batch.select(mine)
                picked = choose[p](sub, player[mine])
                moved = picked >= 0
                out[np.flatnonzero(mine)[moved]] = rows[picked[moved]]
        return out

    return both


def play_match(
    choose: tuple[Chooser, Chooser],
    games: int,
    rng: np.random.Generator,
    slots: int = 256,
    variant: Variant | None = None,
) -> np.ndarray:
    """Play ``games`` cubeless games of ``choose[0]`` against ``choose[1]``; player 0's points per game."""
    engine = Lockstep(slots, games, rng, variant=variant)
    chooser = duel(choose)
    points = []
    while engine.running:
        points += [g.points for g in engine.step(chooser)]
    return np.array(points, dtype=np.int64)
