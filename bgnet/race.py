"""One roll of one-sided lookahead in races: each side's roll distributions, searched.

In a race (no contact) the two sides never meet again, so each side's number
of rolls to bear off is a random variable of its own checkers and the dice
(:class:`bgnet.network.OneSidedRaceNet`, :mod:`bgnet.bearoff`).  Searching
one side is cheap: one roll of it is 21 rolls of one side, not 21 x 21 of
both.  :func:`one_roll` gives, for each side, the mix over the 21 rolls of
the distributions of its best play (by the known distributions' expected
rolls), one roll later; :class:`RaceLookahead` values race boards with it at
run time (the bearoff database exact within its points, the one-sided race
network beyond), and the training module ``bgnet_training.onesided`` regresses
networks on the same backup (its ``backup_targets``, with larger tables).

Each distribution follows its own policy: the all-off distribution the play
with the smallest expected rolls to bear off all (the bearoff database's), the
first-off distribution the smallest expected rolls to bear off the first
checker (saving the gammon), and the home-board-clear distribution the
smallest expected rolls to bring the last checker out of the other side's
home board (saving the backgammon).  Only the ``prune`` best plays of each
roll by each of the policies' keys (:func:`policy_keys`: a table's
expectation with the checkers beyond its points counted on its last, plus
their pips beyond it in rolls; for the clear policy the pips still to go to
leave points 19..24) are valued (a move filter, as the evaluator's).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from numba import njit

from bgnet.bearoff import (
    FULL_BASE,
    MAX_CHECKERS,
    N_POSITIONS,
    POINTS,
    OneSidedBearoff,
    _best_results,
    _result_index,
    binomials,
    index_of,
)
from bgnet.dice import ALL_ROLLS, ROLL_WEIGHTS
from bgnet.encoding import RACE
from bgnet.movegen import generate
from bgnet.network import OneSidedRaceNet
from bgnet.position import NUM_SLOTS

PIPS_PER_ROLL = 49 / 6
"""The mean pips of a roll: the policies' keys count pips beyond a table in rolls (an effective pip count)."""

_DICE = np.array([[d.high, d.low] for d in ALL_ROLLS], dtype=np.int64)

Distributions = Callable[[np.ndarray], np.ndarray]
"""``(n, 24)`` one-side checker counts -> ``(n, 3, width)``: all-off, first-off, home-board-clear."""
Keys = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray, np.ndarray]]
"""``(n, 26)`` one-sided results of the move generator -> the three policies' keys (smaller is better)."""


def side_counts(boards: np.ndarray) -> np.ndarray:
    """``(2N, 24)`` checker counts of both sides of ``(N, 26)`` boards, each in its own numbering (the side
    on roll's first)."""
    b = np.asarray(boards, dtype=np.int64)
    return np.concatenate([np.maximum(b[:, 1:25], 0), np.maximum(-b[:, 24:0:-1], 0)])


def side_inputs(sides: np.ndarray) -> np.ndarray:
    """The one-side half of the race encoder's inputs of ``(n, 24)`` counts (what the network reads)."""
    boards = np.zeros((len(sides), NUM_SLOTS), np.int8)
    boards[:, 1:25] = sides
    return np.ascontiguousarray(RACE.encode(boards)[:, : RACE.width // 2])


def policy_keys(
    results: np.ndarray, mean: np.ndarray, first_mean: np.ndarray, points: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The policies' keys of the mover's side in ``(n, 26)`` one-sided results of the move generator (seen
    by the empty opponent): a table's expected rolls to bear off all (``mean``), and the first
    (``first_mean``, by the same index), with the checkers beyond its ``points`` counted on its last point,
    plus their pips beyond it in rolls; and the pips its checkers on points 19..24 still need to leave them
    (ties, and sides with none there, by the all-off key)."""
    return _keys(results, points, binomials(points), mean, first_mean)


@njit(cache=True)
def _keys(results, points, binom, mean, first_mean):
    idx = _result_index(results, points, binom)
    k0 = np.empty(len(results))
    k1 = np.empty(len(results))
    k2 = np.empty(len(results))
    for i in range(len(results)):
        pips = 0
        back = 0
        for q in range(points + 1, 25):  # our point q is the opponent's slot 25 - q, negated
            pips -= results[i, 25 - q] * (q - points)
            if q > 18:
                back -= results[i, 25 - q] * (q - 18)
        extra = pips / PIPS_PER_ROLL
        k0[i] = mean[idx[i]] + extra
        k1[i] = first_mean[idx[i]] + extra
        k2[i] = back + 1e-3 * k0[i]  # whole pips first (k0 < 1000)
    return k0, k1, k2


@njit(cache=True)
def _smallest(keys: np.ndarray, offsets: np.ndarray, k: int, keep: np.ndarray) -> None:
    """Set ``keep`` for the ``k`` smallest ``keys`` of each segment (bounds ``offsets``; ties: first)."""
    for s in range(len(offsets) - 1):
        a, b = offsets[s], offsets[s + 1]
        if b - a <= k:
            keep[a:b] = True
            continue
        taken = np.zeros(b - a, np.bool_)
        for _ in range(k):
            best = -1
            for r in range(b - a):
                if not taken[r] and (best < 0 or keys[a + r] < keys[a + best]):
                    best = r
            taken[best] = True
            keep[a + best] = True


def one_roll(
    sides: np.ndarray, known: Distributions, keys: Keys, width: int, prune: int = 4, chunk: int = 2048
) -> np.ndarray:
    """``(n, 3, width)`` float32: one roll of lookahead on ``(n, 24)`` counts of one side.

    For each of the 21 rolls the side plays the best play by ``known``'s expected rolls (for each
    distribution the smallest of its own: to bear off all, the first, to clear points 19..24), whose
    distributions move one roll later; the result is their mix over the rolls.  Only the ``prune`` best
    plays of a roll by each of ``keys`` are valued.  A side that has borne a checker off needs 0 rolls for
    the first, and one with nothing on points 19..24 none to clear them.  Mass shifted past ``width``
    stays in its last count.
    """
    sides = np.asarray(sides, dtype=np.int64)
    ar = np.arange(width)
    out = np.zeros((len(sides), 3, width), np.float32)
    for lo in range(0, len(sides), chunk):
        part = sides[lo : lo + chunk]
        k = len(part)
        boards = np.zeros((k * len(_DICE), NUM_SLOTS), np.int8)
        boards[:, 1:25] = np.repeat(part, len(_DICE), axis=0)
        batch = generate(boards, np.tile(_DICE, (k, 1)))
        keep = np.zeros(len(batch.positions), np.bool_)
        for key in keys(batch.positions):
            _smallest(key, batch.offsets, prune, keep)
        res = -batch.positions[keep][:, 24:0:-1].astype(np.int64)
        offsets = np.concatenate([[0], np.cumsum(keep)])[batch.offsets]
        if (np.diff(offsets) == 0).any():
            raise ValueError("one_roll of a side with no checker left (it has no play)")
        # distinct results by their rank among all 24-point sides (< C(39, 24), an int64)
        _, first, inverse = np.unique(index_of(res), return_index=True, return_inverse=True)
        dist = known(res[first])
        means = dist @ ar  # (u, 3): all-off, first-off, clear
        acc = np.zeros((k, 3, width))
        for head in range(3):
            chosen = _best_results(means[inverse, head], np.arange(len(res)), offsets)
            d = dist[inverse[chosen], head].reshape(k, len(_DICE), width)
            acc[:, head, 1:] = np.einsum("r,krn->kn", ROLL_WEIGHTS, d[:, :, :-1])
            acc[:, head, -1] += d[:, :, -1] @ ROLL_WEIGHTS  # (mass past the width stays at its end)
        acc[part.sum(axis=1) < MAX_CHECKERS, 1] = np.eye(1, width)
        acc[part[:, 18:].sum(axis=1) == 0, 2] = np.eye(1, width)
        out[lo : lo + k] = acc
    return out


def network_probabilities(net: OneSidedRaceNet, boards: np.ndarray, device: torch.device) -> np.ndarray:
    """``(N, 5)`` float32: the one-sided race network's own (unsearched) probabilities of ``(N, 26)`` race
    boards, as its forward pass gives them, each distinct side valued once (the side not moving is the
    same in all of a roll's plays)."""
    n = len(boards)
    sides = side_counts(boards)
    _, first, inverse = np.unique(index_of(sides), return_index=True, return_inverse=True)
    with torch.no_grad():
        d = _net_distributions(net, sides[first], device)[torch.from_numpy(inverse.reshape(-1)).to(device)]
        return net.combine(d[:n], d[n:]).float().cpu().numpy()


def _net_distributions(net: OneSidedRaceNet, sides: np.ndarray, device: torch.device) -> torch.Tensor:
    """The network's ``(n, 3, rolls)`` distributions of ``(n, 24)`` counts, on ``device`` (no gradients)."""
    with torch.no_grad():
        return net.distributions(torch.from_numpy(side_inputs(sides)).to(device))


class RaceLookahead:
    """Race boards valued by one roll of one-sided lookahead (:func:`one_roll`) on each side.

    The known distributions are the bearoff database's within its points (exact: a side there is not
    searched) and the one-sided race network's beyond.  The sides' distributions are cached by side (a
    race's sides recur from move to move, and one side is common to all of a decision's plays), up to
    ``cache`` sides.  Cubeless ``(win, wg, wbg, lg, lbg)`` come from the two sides' distributions as in
    the network's forward pass (:meth:`OneSidedRaceNet.combine`).
    """

    def __init__(
        self,
        net: OneSidedRaceNet,
        bearoff: OneSidedBearoff | None = None,
        device: str | torch.device = "cpu",
        prune: int = 4,
        cache: int = 1 << 16,
    ) -> None:
        self.net = net
        self.bearoff = bearoff
        self.device = torch.device(device)
        self.prune = prune
        self.width = net.rolls
        self.cache_size = cache
        self._cache: dict[int, np.ndarray] = {}
        if bearoff is not None:
            self._mean = bearoff.mean_rolls
            self._first_mean = np.zeros(N_POSITIONS)
            self._first_mean[FULL_BASE:] = bearoff.mean_first
            self._points = POINTS
        else:  # keys by pips alone: a 1-point "table" of k checkers (index k) needs k pips
            self._mean = self._first_mean = np.arange(N_POSITIONS) / PIPS_PER_ROLL
            self._points = 1

    def _inside(self, sides: np.ndarray) -> np.ndarray:
        if self.bearoff is None:
            return np.zeros(len(sides), bool)
        return sides[:, POINTS:].sum(axis=1) == 0

    def known(self, sides: np.ndarray) -> np.ndarray:
        """``(n, 3, width)``: the database's distributions of the sides within its points (and 0 rolls of an
        empty side), the network's of the rest."""
        sides = np.asarray(sides, dtype=np.int64)
        out = np.zeros((len(sides), 3, self.width), np.float32)
        empty = sides.sum(axis=1) == 0
        out[empty, :, 0] = 1.0
        inside = self._inside(sides) & ~empty
        if inside.any():
            assert self.bearoff is not None
            rows = np.flatnonzero(inside)
            idx = index_of(sides[rows, :POINTS])
            table = self.bearoff.rolls
            out[rows, 0, : min(self.width, table.shape[1])] = table[idx, : self.width]
            out[rows, 1, 0] = 1.0
            out[rows, 2, 0] = 1.0
            full = idx >= FULL_BASE
            if full.any():
                f = rows[full]
                first = self.bearoff.first
                out[f, 1] = 0.0
                out[f, 1, : min(self.width, first.shape[1])] = first[idx[full] - FULL_BASE, : self.width]
        rest = np.flatnonzero(~inside & ~empty)
        if len(rest):
            out[rest] = _net_distributions(self.net, sides[rest], self.device).float().cpu().numpy()
        return out

    def keys(self, results: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The policies' keys (:func:`policy_keys`) by the database's expectations."""
        return policy_keys(results, self._mean, self._first_mean, self._points)

    def distributions(self, sides: np.ndarray) -> np.ndarray:
        """``(n, 3, width)`` of ``(n, 24)`` counts: exact within the database, else one roll of lookahead."""
        sides = np.asarray(sides, dtype=np.int64)
        keys, first, inverse = np.unique(index_of(sides), return_index=True, return_inverse=True)
        dist = np.empty((len(keys), 3, self.width), np.float32)
        missing = []
        for j, key in enumerate(keys.tolist()):
            got = self._cache.get(key)
            if got is None:
                missing.append(j)
            else:
                dist[j] = got
        if missing:
            m = np.array(missing)
            todo = sides[first[m]]
            inside = self._inside(todo) | (todo.sum(axis=1) == 0)
            new = np.empty((len(m), 3, self.width), np.float32)
            if inside.any():
                new[inside] = self.known(todo[inside])
            if (~inside).any():
                new[~inside] = one_roll(todo[~inside], self.known, self.keys, self.width, self.prune)
            dist[m] = new
            if len(self._cache) + len(m) > self.cache_size:
                self._cache.clear()
            for j, d in zip(keys[m].tolist(), new, strict=True):
                self._cache[j] = d
        return dist[inverse.reshape(-1)]

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """``(N, 5)`` float32 cubeless probabilities of the side on roll of ``(N, 26)`` race boards."""
        n = len(boards)
        d = torch.from_numpy(self.distributions(side_counts(boards)))
        return OneSidedRaceNet.combine(d[:n], d[n:]).numpy()
