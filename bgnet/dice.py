"""Dice: the ``Dice`` type, the table of the 21 distinct rolls, and rolling.

Lookahead and rollouts iterate :data:`ALL_ROLLS` (with :data:`ROLL_WEIGHTS`),
never nested ``range(1, 7)`` loops.  All randomness comes from a
``numpy.random.Generator`` handed in by the caller, and every dice source of
bgnet is here: a roll (:func:`roll`, :func:`rolls` for many games at once),
the opening roll with ties rolled again (:func:`opening_dice`,
:func:`opening_roll`), and the duplicate dice of the arena
(:func:`duplicate_dice`), where two games share one sequence of rolls.
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

ROLL_DICE = np.array([(d.high, d.low) for d in ALL_ROLLS], dtype=np.int64)
"""The dice of :data:`ALL_ROLLS` as a ``(21, 2)`` array (high die first), as the move generator takes them."""

ROLL_WEIGHTS = np.array([1.0 / 36 if d.is_double else 2.0 / 36 for d in ALL_ROLLS])
"""Probability of each roll of :data:`ALL_ROLLS` (sums to 1)."""

OPENING_WEIGHTS = np.array([0.0 if d.is_double else 1.0 / 15 for d in ALL_ROLLS])
"""Probability of each roll of :data:`ALL_ROLLS` as the opening roll: the 15 non-doubles (ties roll again)."""

ROLL_INDEX = np.full((7, 7), -1, dtype=np.int64)
"""``ROLL_INDEX[a, b]``: the index in :data:`ALL_ROLLS` of the roll ``a-b`` (either order), else -1."""
for _k, _d in enumerate(ALL_ROLLS):
    ROLL_INDEX[_d.high, _d.low] = ROLL_INDEX[_d.low, _d.high] = _k
ROLL_INDEX.setflags(write=False)


def roll(rng: np.random.Generator) -> Dice:
    """Roll two dice."""
    a, b = rng.integers(1, 7, size=2)
    return Dice.of(int(a), int(b))


def rolls(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` rolls at once, an ``(n, 2)`` int64 array (dice in the order rolled)."""
    return rng.integers(1, 7, size=(n, 2))


def opening_dice(rng: np.random.Generator) -> tuple[int, int]:
    """The opening roll as rolled: (player 0's die, player 1's die), ties rolled again."""
    while True:
        a, b = (int(x) for x in rng.integers(1, 7, size=2))
        if a != b:
            return a, b


def opening_roll(rng: np.random.Generator) -> tuple[int, Dice]:
    """The opening roll: each side rolls one die, ties re-roll.

    Returns ``(first, dice)``: ``first`` is 0 when the first side's die is
    higher, 1 otherwise; the winner plays both numbers.
    """
    a, b = opening_dice(rng)
    return (0 if a > b else 1), Dice.of(a, b)


def duplicate_dice(
    seed: int, game: int, max_plies: int, *, match_game: int = 0
) -> tuple[tuple[int, int], np.ndarray]:
    """The dice of game ``game`` on duplicate dice: games ``2k`` and ``2k + 1`` share one sequence.

    Returns ``((a, b), rolls)``: the opening roll (``a`` player 0's die, ``b``
    player 1's, different) and ``rolls[t]`` the roll of ply ``t + 1``, a
    ``(max_plies, 2)`` int8 array.  The sequence is drawn from
    ``numpy.random.default_rng([seed, k])`` for the pair ``k = game // 2``;
    game ``2k + 1`` swaps the opening dice, so each side gets, ply for ply,
    the rolls the other side had in game ``2k``.  ``match_game > 0`` draws the
    later games of a match from ``default_rng([seed, k, match_game])`` (pair
    ``k`` of matches, game ``match_game`` of the match).  The dice depend only
    on these numbers, never on how games are batched or split among processes.
    """
    key = [seed, game // 2] if match_game == 0 else [seed, game // 2, match_game]
    rng = np.random.default_rng(key)
    a, b = opening_dice(rng)
    later = rng.integers(1, 7, size=(max_plies, 2), dtype=np.int8)
    return ((a, b) if game % 2 == 0 else (b, a)), later
