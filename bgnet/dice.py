"""Dice: the ``Dice`` type, the table of the 21 distinct rolls, and rolling.

Lookahead and rollouts iterate :data:`ALL_ROLLS` (with :data:`ROLL_WEIGHTS`),
never nested ``range(1, 7)`` loops.  All randomness comes from a
``numpy.random.Generator`` handed in by the caller.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from bgnet.errors import InvalidDiceError


class Dice(NamedTuple):
    """Two dice, larger first (``Dice(3, 1)``); a double has ``high == low``."""

    high: int
    low: int

    @classmethod
    def of(cls, a: int, b: int) -> Dice:
        for d in (a, b):
            if not 1 <= d <= 6:
                raise InvalidDiceError(f"a die shows 1 to 6, got {d}")
        return cls(max(a, b), min(a, b))

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Parse ``31``, ``3-1``, ``3 1`` or ``3,1``."""
        m = re.fullmatch(r"\s*([0-9])\s*[-, ]?\s*([0-9])\s*", text)
        if not m:
            raise InvalidDiceError(f"dice must be two digits 1-6 like 31 or 3-1, got {text!r}")
        return cls.of(int(m.group(1)), int(m.group(2)))

    @property
    def is_double(self) -> bool:
        return self.high == self.low

    def __str__(self) -> str:
        return f"{self.high}{self.low}"


ALL_ROLLS: tuple[Dice, ...] = tuple(Dice(a, b) for a in range(1, 7) for b in range(1, a + 1))
"""The 21 distinct rolls."""

ROLL_WEIGHTS = np.array([1.0 / 36 if d.is_double else 2.0 / 36 for d in ALL_ROLLS])
"""Probability of each roll of :data:`ALL_ROLLS` (sums to 1)."""


def roll(rng: np.random.Generator) -> Dice:
    """Roll two dice."""
    a, b = rng.integers(1, 7, size=2)
    return Dice.of(int(a), int(b))


def opening_roll(rng: np.random.Generator) -> tuple[int, Dice]:
    """The opening roll: each side rolls one die, ties re-roll.

    Returns ``(first, dice)``: ``first`` is 0 when the first side's die is
    higher, 1 otherwise; the winner plays both numbers.
    """
    while True:
        a, b = (int(x) for x in rng.integers(1, 7, size=2))
        if a != b:
            return (0 if a > b else 1), Dice.of(a, b)
