"""Evaluation at 0, 1, 2... plies: probabilities of positions, ranking and choice of plays.

Perspectives (the convention of all of bgnet)
---------------------------------------------
* :meth:`Evaluator.probabilities` takes ``(N, 26)`` boards (``(N, 52)`` for a variant), each seen from
  its side **on roll** (about to roll the dice), and returns ``(N, 5)``
  probabilities **for that side** (win, win gammon, win backgammon, lose
  gammon, lose backgammon; see :mod:`bgnet.probabilities`).
* A :class:`~bgnet.movegen.MoveBatch` holds the results of rolls, each
  **seen by the side on roll next**: the opponent, or the mover itself
  when the row's ``again`` is true (acey-deucey's 1-2: the mover rolls
  again).  :meth:`Evaluator.rank` returns, for every result row, the
  probabilities **for the mover** (the side that played the roll): the
  flip of the result's own probabilities, or those probabilities as they
  are for a row with ``again`` (:func:`for_mover`).
* :meth:`Evaluator.choose` returns, per roll, the absolute row of the
  mover's best result (-1 when the roll has no legal play).

Plies
-----
The 0-ply value of a position is the static one: the exact result of a
finished game (:func:`bgnet.game.final_probabilities`; the side not on roll
has borne off), else the exact bearoff database when one is given and
covers the position, else the network (or any 0-ply function).

The n-ply value (n >= 1) of a position P with side S on roll is the average,
over the 21 rolls weighted by :data:`~bgnet.dice.ROLL_WEIGHTS`, of the value
for S of the result S plays with that roll: S's plays of the roll are ranked
at ply n - 1 (with the ``inner`` move filters, below) and the best for S is
taken, its (n-1)-ply value (a value for the opponent, now on roll) flipped
back to S (not flipped when S rolls again: the value is already S's).  A
roll with no legal play passes: the result is ``flip(P)`` with the opponent
on roll, valued at ply n - 1.  Finished games and positions
the bearoff database covers are exact and never searched, at every ply.
So the 1-ply value is the average over the rolls of the best 0-ply reply's
value, flipped; the 2-ply value averages, over S's rolls, the 1-ply value
of the play S picks (by default its best 0-ply play, see ``inner``), and
each of those averages the opponent's best 0-ply replies.  An evaluator's
optional :attr:`Evaluator.screen` (training sets it to a bfloat16 copy of
the network) picks the plays of the last ply instead, and only the plays it
picks are valued, at 0-ply, by the evaluator.

Move filters
------------
Ranking the plays of a roll at ply n (:meth:`Evaluator.rank`) works as in
gnubg: every play is evaluated at 0-ply; a :class:`MoveFilter` keeps the
few best (the ``accept`` best, then more up to ``keep`` in all while within
``window`` equity of the best); the survivors are evaluated deeper, and so
on up to ply n.  ``filters[k]`` is the filter applied to the plays evaluated
at ply k (levels past the end of the tuple, or ``None``, are skipped: no
evaluation at that ply, the survivors go on).  Rows filtered out keep the
value of the deepest ply they were evaluated at; ``rank(..., with_plies=True)``
says which ply that is, and :meth:`Evaluator.choose` picks among the rows
evaluated deepest.

* :data:`DEFAULT_FILTERS` (used to rank and choose at the top): gnubg's
  default "normal" filter: at 0-ply keep up to 8 plays within 0.16 equity of
  the best; skip 1-ply; at 2-ply (for 3-ply) keep up to 2 within 0.04.
* :data:`INNER_FILTERS` (how each side picks its play *inside* an n-ply
  evaluation): the best 0-ply play only, valued at ply n - 1, which is what
  gnubg's own n-ply evaluation does (``FindBestMoveInEval``).  ``inner=()``
  (no filter) gives the full expectimax, each side picking its play by its
  (n-1)-ply value: about 20x slower at 2-ply (0.7 s instead of 0.03 s for
  the 2-ply value of the starting position on one CPU thread).

Variants
--------
With ``variant=`` (a :class:`bgnet.variants.Variant`) an evaluator values
that game's 52-slot boards instead: a finished game takes its exact value
from :meth:`~bgnet.variants.Variant.result` (:func:`variant_final_probabilities`;
a plakoto draw is win = 0.5, the rest 0), plays come from
:meth:`~bgnet.variants.Variant.generate`, and there is no bearoff database
and no phase networks (their inputs are backgammon's).  The n-ply search is
the same code; a game with repeated turns (acey-deucey) is searched over
:meth:`~bgnet.variants.Variant.generate`'s whole turns.

Everything is batched: the M x 21 (position, roll) pairs of an n-ply
evaluation are generated in one stream of :class:`~bgnet.movegen.MoveGenerator`
chunks, each chunk's results evaluated in one forward, reduced per pair by a
compiled segment maximum, and averaged with the roll weights.  Work
grows about 21 x (plays kept) per ply: 1-ply decisions take milliseconds,
2-ply ones about 0.2 s on one CPU thread (``benchmarks/eval.py``).  An
evaluator keeps one move-generator buffer per depth: use one instance per
thread.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol, overload

import numpy as np
import torch
from numba import njit

from bgnet.bearoff import OneSidedBearoff
from bgnet.dice import ALL_ROLLS, ROLL_DICE, ROLL_WEIGHTS
from bgnet.encoding import Encoder
from bgnet.game import final_probabilities
from bgnet.movegen import MoveBatch, MoveGenerator
from bgnet.network import MainNet, OneSidedRaceNet, RaceNet, pick_device
from bgnet.position import NUM_SLOTS
from bgnet.position import flip as flip_board
from bgnet.probabilities import equity
from bgnet.probabilities import flip as flip_probs
from bgnet.pubeval import crashed_sides, is_race
from bgnet.race import RaceLookahead, network_probabilities
from bgnet.variants import ACEY_NONE, PIN, R_ACEY, VSLOTS, Variant, VariantGenerator, widen

__all__ = [
    "DEFAULT_FILTERS",
    "INNER_FILTERS",
    "BearoffDatabase",
    "Evaluator",
    "FunctionEvaluator",
    "MoveFilter",
    "NO_FILTER",
    "NetEvaluator",
    "for_mover",
    "segment_argmin",
    "variant_final_probabilities",
]

_CHUNK = 1 << 16
"""Rows per move-generator chunk (the capacity of its buffers), and per network forward on a GPU."""
_CPU_FORWARD = 1 << 12
"""Rows per network forward on the CPU: a 384-wide network's activations then stay in the caches, which
made 1-ply labels about 1.4x faster than forwards of :data:`_CHUNK` rows (bit-identical labels in that
measurement; docs/strength.md)."""
_TURN_INPUTS = 256
"""Inputs per :meth:`Variant.generate` call in the search of a game with repeated turns (a 1-2 of
acey-deucey has hundreds of whole turns)."""


def _repeats(variant: Variant) -> bool:
    """Whether ``variant`` has repeated turns (acey-deucey's 1-2), so its search needs whole turns."""
    return bool(variant.rules[R_ACEY] != ACEY_NONE)


@dataclass(frozen=True)
class MoveFilter:
    """Which plays of one roll go on to a deeper evaluation (gnubg's move filter).

    Of the plays of a roll, sorted by equity for the mover at the ply just
    evaluated, the ``accept`` best always go on; further plays go on while
    they are within ``window`` equity of the best and ``keep`` are not yet
    reached.  gnubg's default at 0-ply is ``MoveFilter(keep=8, window=0.16)``.
    """

    keep: int = 8
    window: float = 0.16
    accept: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.accept <= self.keep:
            raise ValueError(f"need 1 <= accept <= keep, got accept={self.accept}, keep={self.keep}")
        if not self.window >= 0:
            raise ValueError(f"window must be >= 0, got {self.window}")


Filters = Sequence[MoveFilter | None]

DEFAULT_FILTERS: tuple[MoveFilter | None, ...] = (MoveFilter(8, 0.16), None, MoveFilter(2, 0.04))
"""gnubg's "normal" move filter, for ranking and choosing the plays of a roll."""

INNER_FILTERS: tuple[MoveFilter | None, ...] = (MoveFilter(1, 0.0),)
"""Inside an n-ply evaluation each side plays its best 0-ply play (as gnubg does)."""

NO_FILTER = MoveFilter(keep=2**62, window=math.inf)
"""Keeps every play."""

SEARCH_FILTER = MoveFilter(keep=3, window=0.05, accept=2)
"""Which of a roll's plays a static search (a race's one-sided lookahead, :mod:`bgnet.race`) re-values when
the plays are ranked or chosen; the rest keep the network's value and rank below them."""


class BearoffDatabase(Protocol):
    """What the evaluator needs of an exact bearoff database (``bgnet.bearoff``)."""

    def covers(self, boards: np.ndarray) -> np.ndarray:
        """Bool mask over (N, 26) boards: True where the database holds the exact value."""
        ...

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) exact probabilities of covered boards, for the side on roll."""
        ...


# ---------------------------------------------------------------------------
# Segment reductions (compiled)


@njit(cache=True)
def _segment_argmin(values, offsets, rows):
    for i in range(len(offsets) - 1):
        lo, hi = offsets[i], offsets[i + 1]
        best = -1
        for r in range(lo, hi):
            if best < 0 or values[r] < values[best]:
                best = r
        rows[i] = best


@njit(cache=True)
def _segment_best(values, plies, offsets, rows):
    """Per segment the row of largest ``plies``, then largest ``values``; first on ties; -1 if empty."""
    for i in range(len(offsets) - 1):
        lo, hi = offsets[i], offsets[i + 1]
        best = -1
        for r in range(lo, hi):
            if best < 0 or plies[r] > plies[best] or (plies[r] == plies[best] and values[r] > values[best]):
                best = r
        rows[i] = best


@njit(cache=True)
def _filter(values, alive, offsets, accept, keep, window, order):
    """Apply one move filter in place on ``alive`` (``values``: equity for the mover).

    ``order`` is scratch space of the size of the largest segment.
    """
    for i in range(len(offsets) - 1):
        lo, hi = offsets[i], offsets[i + 1]
        n = 0
        for r in range(lo, hi):
            if alive[r]:
                # insertion sort, descending, stable
                j = n
                while j > 0 and values[order[j - 1]] < values[r]:
                    order[j] = order[j - 1]
                    j -= 1
                order[j] = r
                n += 1
        if n == 0:
            continue
        best = values[order[0]]
        for k in range(n):
            r = order[k]
            alive[r] = k < accept or (k < keep and values[r] >= best - window)


def segment_argmin(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For each segment ``offsets[i]:offsets[i+1]``, the absolute row of its smallest value (-1 if empty).

    Ties go to the first row (the generator's canonical order).
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    rows = np.empty(len(offsets) - 1, dtype=np.int64)
    _segment_argmin(np.ascontiguousarray(values), offsets, rows)
    return rows


def _mover_equity(theirs: np.ndarray, again: np.ndarray | None) -> np.ndarray:
    """The mover's equity of results valued for their side on roll (negated unless it rolls again)."""
    value = -equity(theirs)
    if again is not None:
        value[again] = -value[again]
    return value


def _segment_best_rows(values: np.ndarray, plies: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    rows = np.empty(len(offsets) - 1, dtype=np.int64)
    _segment_best(np.ascontiguousarray(values), plies, np.asarray(offsets, dtype=np.int64), rows)
    return rows


def for_mover(theirs: np.ndarray, again: np.ndarray | None) -> np.ndarray:
    """The mover's probabilities of results valued for their side on roll (``theirs``, (N, 5)).

    The side on roll of a result is the opponent (flip) unless the row's
    ``again`` is true (the mover rolls again: its own value, as it is).
    """
    out = flip_probs(theirs)
    if again is not None and again.any():
        out[again] = theirs[again]
    return out


def _again(batch: MoveBatch) -> np.ndarray | None:
    """The batch's ``again`` flags when any row has one (games with repeated turns), else None."""
    if batch.again is None or not batch.again.any():
        return None
    return np.asarray(batch.again, dtype=bool)


def variant_final_probabilities(variant: Variant, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact probabilities of finished variant games, as :func:`bgnet.game.final_probabilities`.

    ``boards`` (N, 52) are seen by the side on roll; :meth:`Variant.result`
    gives the points the side that just moved won, so the side on roll lost
    them: (0, 0, 0, gammon, backgammon), or (0.5, 0, 0, 0, 0) for a draw
    (equity 0).  Only boards that may be over (the mover has no checker left,
    or a plakoto mother is pinned) go through ``result``, one by one.
    """
    b = np.asarray(boards, dtype=np.int8).reshape(-1, VSLOTS)
    _, theirs = variant.checkers(b)
    maybe = theirs == 0
    if variant.mother:
        maybe |= (b[:, PIN + 1] != 0) | (b[:, PIN + 24] != 0)
    over = np.zeros(len(b), dtype=bool)
    probs = np.zeros((len(b), 5), dtype=np.float32)
    for i in np.flatnonzero(maybe):
        won = variant.result(b[i])
        if won is None:
            continue
        over[i] = True
        if won == 0:
            probs[i, 0] = 0.5
        else:
            probs[i, 3] = won >= 2
            probs[i, 4] = won >= 3
    return over, probs


# ---------------------------------------------------------------------------
# The evaluator


class Evaluator:
    """n-ply lookahead over a 0-ply function; see the module docstring.

    Subclasses implement :meth:`_evaluate`, the 0-ply probabilities of
    boards that are neither finished nor covered by the bearoff database.

    Args:
        bearoff: an exact bearoff database (:class:`BearoffDatabase`) or None;
            the boards it covers take its value at every ply.
        variant: the game of the boards (:class:`bgnet.variants.Variant`,
            52-slot boards), or None for backgammon (26-slot boards).
        filters: the move filters of :meth:`rank` and :meth:`choose`.
        inner: the move filters each side uses inside an n-ply evaluation.
    """

    def __init__(
        self,
        *,
        bearoff: BearoffDatabase | None = None,
        filters: Filters = DEFAULT_FILTERS,
        inner: Filters = INNER_FILTERS,
        variant: Variant | None = None,
    ) -> None:
        if variant is not None and bearoff is not None:
            raise ValueError(f"the bearoff database values backgammon boards, not {variant.label}'s")
        self.bearoff = bearoff
        self.filters = tuple(filters)
        self.inner = tuple(inner)
        self.variant = variant
        self.slots = NUM_SLOTS if variant is None else VSLOTS
        self._gens: dict[int, MoveGenerator] = {}
        self._vgens: dict[int, VariantGenerator] = {}
        self.screen: Evaluator | None = None
        """An evaluator of the same game (e.g. a low-precision copy of this one's networks) that picks each
        roll's best reply at the last ply of a lookahead: this one values only the replies it picks, at
        0-ply, instead of all of them.  None (the default): this one picks too.  Set it for a call with
        :meth:`screened`."""

    @contextmanager
    def screened(self, screen: Evaluator | None) -> Iterator[Evaluator]:
        """This evaluator with :attr:`screen` set to ``screen`` inside the ``with`` block (restored after)."""
        before, self.screen = self.screen, screen
        try:
            yield self
        finally:
            self.screen = before

    def finished(self, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(over, probs)``: which boards are finished games and their exact probabilities (side on roll)."""
        if self.variant is None:
            return final_probabilities(boards)
        return variant_final_probabilities(self.variant, boards)

    def flip(self, boards: np.ndarray) -> np.ndarray:
        """The boards seen by the other side (the game's flip)."""
        return flip_board(boards) if self.variant is None else self.variant.flip(boards)

    # -- 0-ply --------------------------------------------------------------

    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) float32 0-ply probabilities for the side on roll of unfinished, uncovered boards."""
        raise NotImplementedError

    searches: bool = False
    """Whether :meth:`_searched` picks boards for a static search (:meth:`_search`)."""

    def _searched(self, boards: np.ndarray) -> np.ndarray:
        """Which of these unfinished, uncovered boards the static search re-values (when :attr:`searches`)."""
        raise NotImplementedError

    def _search(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) float32 searched probabilities of boards :meth:`_searched` picks."""
        raise NotImplementedError

    def _static(self, boards: np.ndarray) -> np.ndarray:
        """0-ply probabilities: exact where finished or covered, else :meth:`_evaluate`'s, the boards
        :meth:`_searched` picks re-valued by :meth:`_search`."""
        out, rows = self._unsearched(boards)
        if len(rows):
            out[rows] = self._search(boards[rows])
        return out

    def _unsearched(self, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(0-ply probabilities without the search, the rows :meth:`_searched` picks)."""
        none = np.empty(0, dtype=np.int64)
        n = len(boards)
        if n == 0:
            return np.empty((0, 5), dtype=np.float32), none
        over, out = self.finished(boards)
        todo = ~over
        if self.bearoff is not None and todo.any():
            todo[todo] = ~np.asarray(self.bearoff.covers(boards[todo]), dtype=bool)
            covered = ~over & ~todo
            if covered.any():
                out[covered] = self.bearoff.probabilities(boards[covered])
        if not todo.any():
            return out, none
        rows = np.flatnonzero(todo)
        if len(rows) == n:
            out = np.asarray(self._evaluate(boards), dtype=np.float32)
        else:
            out[rows] = self._evaluate(boards[rows])
        return out, (rows[self._searched(boards[rows])] if self.searches else none)

    # -- positions ----------------------------------------------------------

    def probabilities(self, boards: np.ndarray, ply: int = 0) -> np.ndarray:
        """(N, 5) float32 ``ply``-ply probabilities of ``boards`` (N, 26 or 52), each for its side on roll.

        The side on roll is about to roll; see the module docstring for the
        n-ply value.  Finished games (the side not on roll has no checker
        left) get their exact result at every ply, and so do the boards the
        bearoff database covers.
        """
        if ply < 0:
            raise ValueError(f"ply must be >= 0, got {ply}")
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, self.slots)
        if ply == 0:
            return self._static(boards)
        n = len(boards)
        out = np.empty((n, 5), dtype=np.float32)
        if n == 0:
            return out
        over, exact = self.finished(boards)
        known = over.copy()
        out[over] = exact[over]
        if self.bearoff is not None and (~over).any():
            covered = np.zeros(n, dtype=bool)
            covered[~over] = np.asarray(self.bearoff.covers(boards[~over]), dtype=bool)
            if covered.any():
                out[covered] = self.bearoff.probabilities(boards[covered])
                known |= covered
        rest = np.flatnonzero(~known)
        step = max(1, _CHUNK // len(ALL_ROLLS))
        for lo in range(0, len(rest), step):
            idx = rest[lo : lo + step]
            out[idx] = self._lookahead(boards[idx], ply)
        return out

    def _generator(self, ply: int) -> MoveGenerator:
        # One generator per depth: a chunk of depth n stays valid while depth n - 1 runs.
        gen = self._gens.get(ply)
        if gen is None:
            gen = self._gens[ply] = MoveGenerator(_CHUNK)
        return gen

    def _chunks(self, ply: int, boards: np.ndarray, dice: np.ndarray):
        """The legal results ``(lo, hi, batch)`` of inputs ``lo:hi``, chunk by chunk, for this game.

        Games with repeated turns go through :meth:`Variant.generate` (whole
        turns, with their ``again`` flags), :data:`_TURN_INPUTS` inputs at a time.
        """
        variant = self.variant
        if variant is None:
            for lo, hi, offsets, positions, steps in self._generator(ply).chunks(boards, dice):
                yield lo, hi, MoveBatch(offsets, positions, steps)
        elif variant.standard:
            # The game's moves are backgammon's: the fast generator, its results widened.
            narrow = np.ascontiguousarray(boards[:, :NUM_SLOTS])
            for lo, hi, offsets, positions, steps in self._generator(ply).chunks(narrow, dice):
                yield lo, hi, MoveBatch(offsets, widen(positions), steps)
        elif _repeats(variant):
            for lo in range(0, len(boards), _TURN_INPUTS):
                hi = min(lo + _TURN_INPUTS, len(boards))
                yield lo, hi, variant.generate(boards[lo:hi], dice[lo:hi])
        else:
            gen = self._vgens.get(ply)
            if gen is None:
                gen = self._vgens[ply] = VariantGenerator(_CHUNK)
            for lo, hi, offsets, positions, steps in gen.chunks(boards, dice, variant.rules):
                yield lo, hi, MoveBatch(offsets, positions, steps)

    def _lookahead(self, boards: np.ndarray, ply: int) -> np.ndarray:
        """The ``ply``-ply (>= 1) value of unfinished, uncovered boards, for their side on roll."""
        m = len(boards)
        k = len(ALL_ROLLS)
        pairs = np.repeat(boards, k, axis=0)
        dice = np.tile(ROLL_DICE, (m, 1))
        # Per (board, roll): the probabilities of the result played, for the mover.
        ours = np.empty((m * k, 5), dtype=np.float32)
        passed = []
        screen = self.screen if ply == 1 else None
        picker = self if screen is None else screen
        for lo, hi, batch in self._chunks(ply, pairs, dice):
            results, depth = picker._rank(batch, ply - 1, self.inner, full=True)
            again = _again(batch)
            # The mover's best: deepest evaluated, then the highest equity for the mover.
            rows = _segment_best_rows(_mover_equity(results, again), depth, batch.offsets)
            moved = rows >= 0
            if screen is not None:
                # the screen picked; the picks take this evaluator's values
                results[rows[moved]] = self._static(batch.positions[rows[moved]])
            ours[lo:hi][moved] = for_mover(
                results[rows[moved]], None if again is None else again[rows[moved]]
            )
            passed.append(lo + np.flatnonzero(~moved))
        passes = np.concatenate(passed) if passed else np.empty(0, dtype=np.int64)
        if len(passes):
            # No legal play: the opponent is on roll in the same position.
            ours[passes] = flip_probs(self.probabilities(self.flip(pairs[passes]), ply - 1))
        weighted = ours.reshape(m, k, 5).astype(np.float64)
        return np.einsum("mkj,k->mj", weighted, ROLL_WEIGHTS.astype(np.float64)).astype(np.float32)

    # -- plays --------------------------------------------------------------

    def _rank(
        self, batch: MoveBatch, ply: int, filters: Filters, full: bool, search_all: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """(probabilities **of each result**, for its side on roll; the depth of each) of every row.

        The depth is twice the ply a row was valued at, plus one once a static
        search re-valued it (or it needs none); a roll's best is taken among its
        deepest rows.  At 0-ply the evaluator's search (:meth:`_search`, a
        race's one-sided lookahead) re-values the :data:`SEARCH_FILTER` best
        of each roll's searchable rows (every one with ``search_all``); only
        they and the rows that need no search go deeper.  See :meth:`rank` (which turns them to the mover's,
        :func:`for_mover`).  With ``full=False`` a roll left with a single
        candidate is not evaluated deeper (enough to choose, not to value).
        """
        offsets = np.asarray(batch.offsets, dtype=np.int64)
        positions = batch.positions
        again = _again(batch)
        order = np.empty(int(np.diff(offsets).max(initial=1)), dtype=np.int64)
        # depth: 2 x the ply a row was valued at, + 1 once searched (or when it needs no search)
        theirs, searchable = self._unsearched(positions)
        depth = np.ones(len(positions), dtype=np.int64)
        if len(searchable):
            # the search re-values the best few of each roll's searchable rows (a move filter)
            kept = np.zeros(len(positions), dtype=bool)
            kept[searchable] = True
            if not search_all:
                sf = SEARCH_FILTER
                _filter(_mover_equity(theirs, again), kept, offsets, sf.accept, sf.keep, sf.window, order)
            rows = np.flatnonzero(kept)
            theirs[rows] = self._search(positions[rows])
            depth[searchable] = 0
            depth[rows] = 1
        if ply == 0 or len(positions) == 0:
            return theirs, depth
        alive = depth == 1
        done = 0
        for level in range(ply):
            f = filters[level] if level < len(filters) else None
            if f is None:
                continue
            if level > done:
                rows = np.flatnonzero(alive)
                theirs[rows] = self.probabilities(positions[rows], level)
                depth[rows] = 2 * level + 1
                done = level
            _filter(_mover_equity(theirs, again), alive, offsets, f.accept, f.keep, f.window, order)
        if not full:
            cum = np.concatenate(([0], np.cumsum(alive)))
            counts = cum[offsets[1:]] - cum[offsets[:-1]]
            alive &= ~np.repeat(counts == 1, np.diff(offsets))
        rows = np.flatnonzero(alive)
        theirs[rows] = self.probabilities(positions[rows], ply)
        depth[rows] = 2 * ply + 1
        return theirs, depth

    @overload
    def rank(
        self,
        batch: MoveBatch,
        ply: int = 0,
        filters: Filters | None = None,
        *,
        with_plies: Literal[False] = ...,
    ) -> np.ndarray: ...

    @overload
    def rank(
        self,
        batch: MoveBatch,
        ply: int = 0,
        filters: Filters | None = None,
        *,
        with_plies: Literal[True],
    ) -> tuple[np.ndarray, np.ndarray]: ...

    def rank(
        self,
        batch: MoveBatch,
        ply: int = 0,
        filters: Filters | None = None,
        *,
        with_plies: bool = False,
    ) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """(N_results, 5) probabilities **for the mover** of every result row of ``batch``.

        The rows of each roll are evaluated at 0-ply, filtered with
        ``filters`` (default: the evaluator's, :data:`DEFAULT_FILTERS`), and
        the survivors evaluated at ``ply``; every row the evaluator's static
        search applies to (a race) is searched.  **Rows filtered out keep their
        lower-ply value** (the deepest ply they reached); with
        ``with_plies=True`` the ply of each row comes back too, as
        ``(probs, plies)``.
        """
        if ply < 0:
            raise ValueError(f"ply must be >= 0, got {ply}")
        # every play valued, searched too: what analysis and hints show, and how a play made is judged
        filters = self.filters if filters is None else tuple(filters)
        theirs, depth = self._rank(batch, ply, filters, True, search_all=True)
        probs = for_mover(theirs, _again(batch))
        return (probs, depth // 2) if with_plies else probs

    def choose(
        self,
        batch: MoveBatch,
        player: np.ndarray | None = None,
        ply: int = 0,
        filters: Filters | None = None,
    ) -> np.ndarray:
        """Each roll's best result for the mover (absolute rows; -1 when there is no legal play).

        At ``ply`` > 0 the best is taken among the rows evaluated deepest
        (those that passed the filters), as gnubg does; a roll whose filter
        leaves a single play is not evaluated deeper.  ``player`` is unused
        (the :data:`bgnet.lockstep.Chooser` signature).
        """
        return self.best(batch, ply, filters)[0]

    def best(
        self, batch: MoveBatch, ply: int = 0, filters: Filters | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, theirs)``: each roll's best result as :meth:`choose` picks it (-1: no legal play), and
        its probabilities for its side on roll at the depth it was picked by (``(n_rolls, 5)``; NaN where
        there is no play).  At 0-ply a race's search values only the few best plays of a roll
        (:data:`SEARCH_FILTER`), not all of them as :meth:`probabilities` of every result would."""
        theirs, depth = self._rank(batch, ply, self.filters if filters is None else tuple(filters), False)
        rows = _segment_best_rows(_mover_equity(theirs, _again(batch)), depth, batch.offsets)
        values = np.full((len(rows), 5), np.nan, dtype=np.float32)
        values[rows >= 0] = theirs[rows[rows >= 0]]
        return rows, values

    def chooser(
        self, ply: int = 0, filters: Filters | None = None
    ) -> Callable[[MoveBatch, np.ndarray], np.ndarray]:
        """A :data:`bgnet.lockstep.Chooser` that plays at ``ply``."""

        def choose(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
            return self.choose(batch, player, ply, filters)

        return choose


class FunctionEvaluator(Evaluator):
    """An evaluator over any vectorised 0-ply function ``(N, 26) boards -> (N, 5)`` (tests, heuristics).

    The function sees only unfinished boards the bearoff database does not
    cover, each from its side on roll, and returns probabilities for that side.
    """

    def __init__(self, fn: Callable[[np.ndarray], np.ndarray], **kwargs) -> None:
        super().__init__(**kwargs)
        self.fn = fn

    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        return np.asarray(self.fn(boards), dtype=np.float32).reshape(len(boards), 5)


class NetEvaluator(Evaluator):
    """Networks and their encoders, evaluating batches of positions on one device.

    ``model``/``encoder`` is the main network, for every position not given
    to another phase network.  With ``race`` (a ``(model, encoder)`` pair),
    positions without contact (:func:`bgnet.pubeval.is_race`) go to the race
    network instead; with ``crashed``, gnubg's crashed positions
    (:func:`bgnet.pubeval.is_crashed`, which are never races) go to the
    crashed network: the phase networks of strong engines
    (:data:`bgnet.checkpoint.PHASES`).  With ``crashed_off`` as well, the
    crashed positions in which only the side off roll is crashed
    (:func:`bgnet.pubeval.crashed_sides`) go to that network instead: the
    positions a search reaches after the crashed side's replies.  The bearoff database, when given,
    takes precedence over all of them where it is exact.

    ``probabilities(boards)`` and ``choose(batch, player)`` at their default
    ply 0 are the trainer's and the arena's one-forward calls.
    """

    def __init__(
        self,
        model: MainNet,
        encoder: Encoder,
        device: str | torch.device = "cpu",
        *,
        race: tuple[RaceNet, Encoder] | None = None,
        crashed: tuple[RaceNet, Encoder] | None = None,
        crashed_off: tuple[RaceNet, Encoder] | None = None,
        bearoff: BearoffDatabase | None = None,
        filters: Filters = DEFAULT_FILTERS,
        inner: Filters = INNER_FILTERS,
        variant: Variant | None = None,
        race_lookahead: bool = False,
    ) -> None:
        if variant is not None and (race is not None or crashed is not None):
            raise ValueError(f"phase networks value backgammon boards, not {variant.label}'s")
        if crashed_off is not None and crashed is None:
            raise ValueError("a crashed_off network needs a crashed network beside it")
        if encoder.slots != (NUM_SLOTS if variant is None else VSLOTS):
            game = "backgammon" if variant is None else variant.label
            raise ValueError(f"encoder {encoder.name} reads {encoder.slots}-slot boards, not {game}'s")
        super().__init__(bearoff=bearoff, filters=filters, inner=inner, variant=variant)
        self.model = model
        self.encoder = encoder
        self.race = race
        self.crashed = crashed
        self.crashed_off = crashed_off
        self.device = torch.device(device)
        self._bufs: dict[str, np.ndarray] = {}
        self.race_lookahead: RaceLookahead | None = None
        """Races valued by one roll of one-sided lookahead (:mod:`bgnet.race`), when asked and the race
        network is one-sided."""
        if race_lookahead and race is not None and isinstance(race[0], OneSidedRaceNet):
            db = bearoff if isinstance(bearoff, OneSidedBearoff) else None
            self.race_lookahead = RaceLookahead(race[0], db, self.device)

    @classmethod
    def from_checkpoint(
        cls,
        path: str | Path | None = None,
        *,
        device: str | torch.device = "cpu",
        bearoff: BearoffDatabase | bool = True,
        race_lookahead: bool = True,
        **kwargs,
    ) -> NetEvaluator:
        """The evaluator of a checkpoint file (default: the shipped networks), on ``device``.

        ``bearoff=True`` loads (or builds and caches) the one-sided bearoff
        database; ``False`` uses none; a database object is used as it is.
        A checkpoint that holds a race network routes races to it (and a crashed
        network, crashed positions); a one-sided race network searches each
        side one roll (:mod:`bgnet.race`) unless ``race_lookahead`` is False.
        A checkpoint of a variant (its ``variant`` entry) gives an evaluator of
        that game (:attr:`variant`), without bearoff database.  Raises
        :class:`bgnet.checkpoint.CheckpointError` naming the problem (:class:`bgnet.errors.DeviceError`
        for a name that is no device or a GPU this machine lacks: :func:`bgnet.network.pick_device`).
        """
        from bgnet import checkpoint

        device = pick_device(str(device))  # before the file is read: a bad device name says so first
        source = str(checkpoint.DEFAULT if path is None else path)
        state = checkpoint.read(source)
        model, encoder = checkpoint.network_from(state, source)
        variant = checkpoint.variant_from(state, source)
        checkpoint.check_encoder(variant, encoder, source)
        race = checkpoint.phase_network_from(state, "race", source)
        crashed = checkpoint.phase_network_from(state, "crashed", source)
        crashed_off = checkpoint.phase_network_from(state, "crashed_off", source)
        if variant is not None:
            if race is not None or crashed is not None:
                raise checkpoint.CheckpointError(
                    f"{source}: a {variant.label} network cannot have phase networks"
                )
            bearoff = False
        for net in (model, race and race[0], crashed and crashed[0], crashed_off and crashed_off[0]):
            if net is not None:
                net.to(device).eval()
        if bearoff is True:
            bearoff = OneSidedBearoff.load_or_build()
        return cls(
            model,
            encoder,
            device,
            race=race,
            crashed=crashed,
            crashed_off=crashed_off,
            bearoff=bearoff or None,
            variant=variant,
            race_lookahead=race_lookahead,
            **kwargs,
        )

    def replaced(self, **changes: Any) -> NetEvaluator:
        """A new evaluator with this one's networks, database, filters and settings but for ``changes``
        (any of the constructor's arguments, by name): the one place that copies an evaluator, so a
        field added to the constructor is copied everywhere (a copy that missed ``crashed_off`` would
        route those positions to the crashed network without a word)."""
        fields: dict[str, Any] = {
            "model": self.model,
            "encoder": self.encoder,
            "device": self.device,
            "race": self.race,
            "crashed": self.crashed,
            "crashed_off": self.crashed_off,
            "bearoff": self.bearoff,
            "filters": self.filters,
            "inner": self.inner,
            "variant": self.variant,
            "race_lookahead": self.race_lookahead is not None,
        }
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"NetEvaluator has no field {', '.join(sorted(unknown))}")
        fields.update(changes)
        return NetEvaluator(**fields)

    def networks(self) -> dict[str, tuple[RaceNet, Encoder]]:
        """The phase networks by name: ``main`` and, when present, ``race``, ``crashed`` and ``crashed_off``,
        in that order."""
        nets: dict[str, tuple[RaceNet, Encoder]] = {"main": (self.model, self.encoder)}
        if self.race is not None:
            nets["race"] = self.race
        if self.crashed is not None:
            nets["crashed"] = self.crashed
        if self.crashed_off is not None:
            nets["crashed_off"] = self.crashed_off
        return nets

    def phases(self, boards: np.ndarray) -> np.ndarray:
        """For each board, the index in :meth:`networks` of the network that values it (0: main)."""
        boards = np.asarray(boards).reshape(-1, self.slots)
        phases = np.zeros(len(boards), dtype=np.int64)
        names = list(self.networks())
        if len(names) == 1:
            return phases  # also every variant's boards (52 slots; no phase networks)
        race = is_race(boards)
        if self.race is not None:
            phases[race] = names.index("race")
        if self.crashed is not None:
            sides = crashed_sides(boards, race)
            phases[sides.any(axis=1)] = names.index("crashed")
            if self.crashed_off is not None:
                phases[sides[:, 1] & ~sides[:, 0]] = names.index("crashed_off")
        return phases

    def inputs(self, boards: np.ndarray, encoder: Encoder | None = None) -> torch.Tensor:
        """The encoded ``boards`` on the device (a reused buffer: valid until the next call)."""
        encoder = encoder or self.encoder
        buf = self._bufs.get(encoder.name)
        if buf is None or len(buf) < len(boards):
            size = max(len(boards), 2 * (0 if buf is None else len(buf)))
            buf = self._bufs[encoder.name] = np.empty((size, encoder.width), dtype=np.float32)
        x = encoder.encode(boards, out=buf[: len(boards)])
        return torch.from_numpy(x).to(self.device, non_blocking=True)

    def _forward(self, model: RaceNet, encoder: Encoder, boards: np.ndarray) -> np.ndarray:
        model.eval()
        out = np.empty((len(boards), 5), dtype=np.float32)
        step = _CPU_FORWARD if self.device.type == "cpu" else _CHUNK
        for lo in range(0, len(boards), step):
            out[lo : lo + step] = model(self.inputs(boards[lo : lo + step], encoder)).float().cpu().numpy()
        return out

    @torch.no_grad()
    def _evaluate(self, boards: np.ndarray) -> np.ndarray:
        nets = self.networks()
        if len(nets) == 1:
            return self._forward(self.model, self.encoder, boards)
        phases = self.phases(boards)
        out = np.empty((len(boards), 5), dtype=np.float32)
        for k, (model, encoder) in enumerate(nets.values()):
            rows = phases == k
            if not rows.any():
                continue
            if isinstance(model, OneSidedRaceNet):
                out[rows] = network_probabilities(model, boards[rows], self.device)
            else:
                out[rows] = self._forward(model, encoder, boards[rows])
        return out

    @property
    def searches(self) -> bool:  # type: ignore[override]
        return self.race_lookahead is not None

    def _searched(self, boards: np.ndarray) -> np.ndarray:
        return is_race(boards)

    def _search(self, boards: np.ndarray) -> np.ndarray:
        assert self.race_lookahead is not None
        return self.race_lookahead.probabilities(boards)
