"""The position type: a board seen from the player on roll.

Convention (the only one in bgnet)
----------------------------------
A position is a ``numpy.int8`` array of 26 slots, always seen from the player
on roll ("we", "us"):

====== ==========================================================
slot   meaning
====== ==========================================================
1..24  points numbered from our side: we move from 24 towards 1,
       our home board is 1..6.  A positive count is our checkers,
       a negative count the opponent's.
25     our bar (count >= 0)
0      the opponent's bar (count <= 0)
====== ==========================================================

Checkers borne off are not stored: ``15 - (our checkers on the board)``.
Point ``p`` for us is point ``25 - p`` for the opponent, so :func:`flip`
(reverse the array and negate it) switches the sides; it is the only way
to change perspective.

:class:`Position` wraps such an array as a small immutable value type with an
ASCII board, pip counts and validation.  The hot loops (move generation,
encoding) work on raw ``(N, 26)`` int8 arrays of the same layout.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

import numpy as np

from bgnet.errors import InvalidPositionError

Board: TypeAlias = np.ndarray
"""An int8 array of shape (26,) in the layout above."""

NUM_SLOTS = 26
CHECKERS = 15
OUR_BAR = 25
THEIR_BAR = 0


def _board(points: dict[int, int]) -> Board:
    b = np.zeros(NUM_SLOTS, dtype=np.int8)
    for slot, n in points.items():
        b[slot] = n
    return b


def flip(board: Board) -> Board:
    """The same position seen by the other player (works on (..., 26) arrays)."""
    return -board[..., ::-1]


class Position:
    """An immutable backgammon position seen from the player on roll.

    Build one with :meth:`from_points` (the syntax of ``repr``), from an
    array with ``Position(array)``, or from an ID with
    :func:`bgnet.formats.parse_position`.

    >>> p = Position.from_points({6: 5, 8: 3, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    >>> p == STARTING
    True
    """

    __slots__ = ("_b",)

    def __init__(self, board: Board | list[int], *, validate: bool = True) -> None:
        b = np.array(board, dtype=np.int8).reshape(-1)
        if validate:
            check_board(b)
        b.setflags(write=False)
        self._b = b

    @classmethod
    def from_points(cls, ours: dict[int, int], theirs: dict[int, int]) -> Position:
        """Build from checker counts per point, each side numbering from its own side.

        Point 25 is that side's bar.  ``Position.from_points({6: 2}, {25: 1})``
        is two of ours on our 6 point and one of theirs on the bar.
        """
        b = np.zeros(NUM_SLOTS, dtype=np.int32)
        for p, n in ours.items():
            if not 1 <= p <= 25 or n < 0:
                raise InvalidPositionError(f"bad entry {p}: {n} for the side on roll")
            b[p] += n
        for p, n in theirs.items():
            if not 1 <= p <= 25 or n < 0:
                raise InvalidPositionError(f"bad entry {p}: {n} for the opponent")
            slot = 25 - p
            if b[slot] > 0 and n > 0:
                raise InvalidPositionError(f"both sides have checkers on point {slot}")
            b[slot] -= n
        return cls(b)

    @property
    def board(self) -> Board:
        """The read-only int8 array of 26 slots."""
        return self._b

    def ours(self) -> dict[int, int]:
        """Our checkers per point (25 = bar)."""
        return {p: int(self._b[p]) for p in range(1, 26) if self._b[p] > 0}

    def theirs(self) -> dict[int, int]:
        """The opponent's checkers per point, numbered from their side (25 = bar)."""
        return {25 - s: int(-self._b[s]) for s in range(0, 25) if self._b[s] < 0}

    def flip(self) -> Position:
        """The position seen by the opponent."""
        return Position(flip(self._b), validate=False)

    def off(self) -> tuple[int, int]:
        """Checkers borne off: (ours, theirs)."""
        b = self._b.astype(np.int32)
        return CHECKERS - int(b[b > 0].sum()), CHECKERS + int(b[b < 0].sum())

    def pips(self) -> tuple[int, int]:
        """Pip counts: (ours, theirs)."""
        b = self._b.astype(np.int32)
        idx = np.arange(NUM_SLOTS)
        ours = int((np.where(b > 0, b, 0) * idx).sum())
        theirs = int((np.where(b < 0, -b, 0) * (25 - idx)).sum())
        return ours, theirs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and bool(np.array_equal(self._b, other._b))

    def __hash__(self) -> int:
        return hash(self._b.tobytes())

    def __repr__(self) -> str:
        return f"Position.from_points({self.ours()}, {self.theirs()})"

    def __str__(self) -> str:
        return draw(self._b)


def check_board(b: Board) -> None:
    """Raise :class:`InvalidPositionError` unless ``b`` is a legal board."""
    if b.shape != (NUM_SLOTS,):
        raise InvalidPositionError(f"a board has {NUM_SLOTS} slots, got shape {b.shape}")
    if b[OUR_BAR] < 0:
        raise InvalidPositionError("the opponent's checkers cannot be on our bar (slot 25)")
    if b[THEIR_BAR] > 0:
        raise InvalidPositionError("our checkers cannot be on the opponent's bar (slot 0)")
    ours = int(b[b > 0].astype(np.int32).sum())
    theirs = int(-b[b < 0].astype(np.int32).sum())
    if ours > CHECKERS:
        raise InvalidPositionError(f"the side on roll has {ours} checkers; at most {CHECKERS}")
    if theirs > CHECKERS:
        raise InvalidPositionError(f"the opponent has {theirs} checkers; at most {CHECKERS}")


def in_play(boards: np.ndarray) -> np.ndarray:
    """Per ``(N, 26)`` board, whether it is legal (:func:`check_board`) with the game still in play
    (:func:`check_in_play`: each side has a checker on the board)."""
    b = np.asarray(boards).astype(np.int32)
    ours, theirs = np.maximum(b, 0).sum(axis=1), np.maximum(-b, 0).sum(axis=1)
    bars = (b[:, OUR_BAR] >= 0) & (b[:, THEIR_BAR] <= 0)
    return bars & (ours >= 1) & (ours <= CHECKERS) & (theirs >= 1) & (theirs <= CHECKERS)


def check_in_play(b: Board) -> None:
    """Raise :class:`InvalidPositionError` if the game of ``b`` is over: a side has no checker left.

    Such a position has no play, no cube decision and no race to value (the
    game ended when the last checker came off), so the commands refuse it.
    """
    ours, theirs = bool((b > 0).any()), bool((b < 0).any())
    if ours and theirs:
        return
    if not ours and not theirs:
        raise InvalidPositionError("the game is over: neither side has a checker on the board")
    who = "the side on roll" if not ours else "the opponent"
    raise InvalidPositionError(f"the game is over: {who} has borne off all 15 checkers")


def frame(cell: Callable[[int, int], str], their_bar: int, our_bar: int) -> list[str]:
    """The lines of an ASCII board from X's side: ``cell(point, row)`` draws row 0..4 of a point.

    Shared by :func:`draw` and the variants' drawing (which adds pins).
    """
    top = list(range(13, 19)), list(range(19, 25))
    bottom = list(range(12, 6, -1)), list(range(6, 0, -1))
    lines = [" +" + "".join(f"{p:^3d}" for p in top[0]) + "|BAR|" + "".join(f"{p:^3d}" for p in top[1]) + "+"]
    for row in range(5):
        lines.append(
            " |"
            + "".join(cell(p, row) for p in top[0])
            + "|   |"
            + "".join(cell(p, row) for p in top[1])
            + "|"
        )
    lines.append(" |" + " " * 18 + f"|{their_bar:^3d}|" + " " * 18 + "|  O bar")
    lines.append(" |" + " " * 18 + f"|{our_bar:^3d}|" + " " * 18 + "|  X bar")
    for row in range(4, -1, -1):
        lines.append(
            " |"
            + "".join(cell(p, row) for p in bottom[0])
            + "|   |"
            + "".join(cell(p, row) for p in bottom[1])
            + "|"
        )
    lines.append(
        " +" + "".join(f"{p:^3d}" for p in bottom[0]) + "|---|" + "".join(f"{p:^3d}" for p in bottom[1]) + "+"
    )
    return lines


def draw(b: Board) -> str:
    """An ASCII board from the side of X, who moves 24 -> 1 (for a Position: the side on roll)."""

    def cell(slot: int, row: int) -> str:
        n = int(b[slot])
        ch = "X" if n > 0 else "O"
        n = abs(n)
        if row < 4:
            return f" {ch} " if n > row else "   "
        if n > 5:
            return f"{n:^3d}"
        return f" {ch} " if n > row else "   "

    lines = frame(cell, -int(b[0]), int(b[25]))
    pos = Position(b, validate=False)
    (px, po), (ox, oo) = pos.pips(), pos.off()
    lines.append(f" X: pips {px}, off {ox}    O: pips {po}, off {oo}")
    return "\n".join(lines)


STARTING = Position(_board({6: 5, 8: 3, 13: 5, 24: 2, 19: -5, 17: -3, 12: -5, 1: -2}))
"""The standard 2-5-3-5 set-up."""

NACKGAMMON = Position(_board({6: 4, 8: 3, 13: 4, 23: 2, 24: 2, 19: -4, 17: -3, 12: -4, 2: -2, 1: -2}))
"""The nackgammon set-up: 2 on 24, 2 on 23, 4 on 13, 3 on 8, 4 on 6."""


_HOME_WEIGHTS = np.arange(1, 7, dtype=np.float64) / 21.0  # point p of the home board: weight p


def _race_side(rng: np.random.Generator, rear: int) -> np.ndarray:
    """One side's checkers on its points ``1..rear`` (its own numbering), one of them on ``rear``."""
    counts = np.zeros(25, dtype=np.int64)
    counts[rear] = 1
    off = int(rng.integers(1, 9)) if rng.random() < 0.2 else 0
    home = rng.uniform(0.4, 0.9)  # the share of the other checkers already home
    top = min(rear, 6)
    weights = _HOME_WEIGHTS[:top] / _HOME_WEIGHTS[:top].sum()
    for _ in range(CHECKERS - 1 - off):
        if rear <= 6 or rng.random() < home:
            counts[1 + rng.choice(top, p=weights)] += 1
        else:
            counts[rng.integers(7, rear + 1)] += 1
    return counts


def random_race(rng: np.random.Generator) -> Board:
    """A random race position (no contact left, nobody on the bar), for training the race network.

    The two rearmost checkers are drawn first: their points (each side's own
    numbering) sum to ``s``, uniform in 12..24, so that no checker has to
    pass another, with the split uniform (each at least 3).  Every other
    checker is home with a probability drawn per side from 0.4..0.9 (on
    point ``p`` with weight ``p``), else uniform between point 7 and its
    rearmost checker; one side in five has already borne off 1..8, whatever
    its rearmost checker (so stragglers with checkers off, which games reach
    only after a late hit, are common here).  The positions are bgnet's own,
    like a self-play game's: no other engine's.
    """
    s = int(rng.integers(12, 25))
    ours = int(rng.integers(max(3, s - 21), min(21, s - 3) + 1))
    mine, theirs = _race_side(rng, ours), _race_side(rng, s - ours)
    b = np.zeros(NUM_SLOTS, dtype=np.int8)
    b[1:25] = mine[1:25]
    b[1:25] -= theirs[24:0:-1].astype(np.int8)
    return b
