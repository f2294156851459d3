"""Exact race endgames: a one-sided bearoff database (6 home points, up to 15 checkers).

What it holds
-------------
For every way to place up to 15 checkers of one side on its home points
1..6 (``C(21, 6) = 54,264`` positions, the empty board included):

* ``rolls[r, n]``: the probability of needing exactly ``n`` rolls to bear off
  **all** checkers of position ``r`` (``n = 0, 1, ...``; only the empty
  board has ``n = 0``);
* for the 15,504 positions with all 15 checkers on the board,
  ``first[r - FULL_BASE, n]``: the probability of needing exactly ``n`` rolls
  to bear off the **first** checker (what decides gammons).

Optimisation criterion
----------------------
Each distribution is that of a fixed policy: on every roll, play the legal
play whose resulting position has the smallest **expected number of rolls**
still needed (for ``rolls``: to bear off all checkers; for ``first``: to bear
off one checker, which is 0 once one is off).  Ties in the expectation (as
floats) go to the result of the smaller index.  gnubg's one-sided database
(``makebearoff``) uses the same criterion; the tests compare bgnet's
distributions with its ``gnubg_os0.bd`` (shipped with ``gnubg_nn``): they
agree to gnubg's 16-bit rounding up to 8 checkers, and beyond it within
0.003 per probability and 2e-4 in expectation (gnubg builds each level from
rounded values, which flips a few near-ties between plays).

Index (ranking)
---------------
A position ``c = (c1, ..., c6)`` (checkers on points 1..6, ``sum <= 15``) is
a composition of 15 into 7 parts (the 7th: ``15 - sum``, the checkers off).
Stars and bars: put the 6 bars at ``p_j = c1 + ... + c_{j+1} + j`` for
``j = 0..5`` (``0 <= p_0 < ... < p_5 <= 20``), and rank the 6-subset
``{p_j}`` of ``{0..20}`` in the combinatorial number system::

    index(c) = sum_{j=0..5} C(p_j, j + 1)

This is a bijection onto ``0 .. 54,263``; the empty board is 0, and the
positions with at most ``k`` checkers are exactly the indices below
``C(k + 6, 6)`` (so the 15,504 full positions are ``38,760 .. 54,263``).

Building and the cache
----------------------
The tables are built by bgnet itself with :func:`bgnet.movegen.generate` on
boards that hold only our checkers (an empty opponent side), level by level
in increasing pip count (every play lowers it), in about 10 seconds on one
core.  They are cached as a compressed ``.npz`` at
``$BGNET_CACHE/bearoff-os15.npz`` (default ``BGNET_CACHE``:
``$XDG_CACHE_HOME/bgnet`` or ``~/.cache/bgnet``), rebuilt when missing,
unreadable or of another :data:`VERSION`, and written atomically (a
temporary file in the same folder, then a rename).  A file given by path
(``--path``) is treated more carefully: its folder must exist (none is
created), and a file there that is not a bgnet bearoff database of any
version is never overwritten (:class:`BearoffFileError`).

Probabilities
-------------
For a covered board (no contact: our checkers all on 1..6, the opponent's all
in its home board, nobody on the bar), with ``X`` our number of rolls and
``Y`` the opponent's, we (on roll) win iff ``X <= Y``; we win a gammon iff
the opponent has all 15 checkers on the board and ``X <= Y1`` (``Y1``: its
rolls to bear off its first checker); we lose a gammon iff we have all 15 on
the board and ``Y < X1``.  Backgammons are impossible (every checker is in
its own home board).  The two sides' rolls are independent, so these are
sums over the two distributions.  They are exact for the policies above;
caveats: a player maximising its chance to win (rather than minimising its
expected rolls) may do very slightly better, and the gammon figures use the
"first checker" policy while the win figure uses the "all checkers" one (the
same approximation gnubg makes).
"""

from __future__ import annotations

import functools
import itertools
import os
import warnings
import zipfile
from math import comb
from pathlib import Path
from typing import Self

import numpy as np
from numba import njit

from bgnet.atomic import write_atomic
from bgnet.dice import ALL_ROLLS, ROLL_WEIGHTS
from bgnet.errors import BgnetError
from bgnet.movegen import generate
from bgnet.position import NUM_SLOTS


class BearoffFileError(BgnetError):
    """A database path that bgnet will not write: its folder is missing, or it holds another file."""


VERSION = "bgnet-bearoff-os15-v1"
"""Tag of the file format and the build; a cached file with another tag is rebuilt."""

POINTS = 6
MAX_CHECKERS = 15
N_POSITIONS = comb(MAX_CHECKERS + POINTS, POINTS)  # 54,264
FULL_BASE = comb(MAX_CHECKERS - 1 + POINTS, POINTS)  # 38,760: first index of a 15-checker position
N_FULL = N_POSITIONS - FULL_BASE  # 15,504
FILE_NAME = "bearoff-os15.npz"


@functools.cache
def binomials(points: int) -> np.ndarray:
    """``C(n, k)`` for ``n < 15 + points``, ``k <= points``: the index table of ``points``-point positions."""
    return np.array([[comb(n, k) for k in range(points + 1)] for n in range(MAX_CHECKERS + points)], np.int64)


BINOM = binomials(POINTS)
"""``BINOM[n, k] = C(n, k)``: the table of the index (:func:`index_of`; also the race-db encoder's kernel)."""
_MAX_ROLLS = 64  # build buffer; the tables are trimmed to the longest distribution


# --------------------------------------------------------------------------- index


def index_of(counts: np.ndarray) -> np.ndarray:
    """Indices of ``(..., P)`` checker counts on points 1..P (each side's sum at most 15; P = 6 here,
    more for :func:`build_tables`' larger tables)."""
    c = np.asarray(counts, dtype=np.int64)
    points = c.shape[-1]
    binom = BINOM if points == POINTS else binomials(points)
    p = np.cumsum(c, axis=-1) + np.arange(points)
    return binom[p, np.arange(1, points + 1)].sum(axis=-1)


def _all_positions(points: int = POINTS) -> np.ndarray:
    """``(C(15 + P, P), P)`` int8: row ``r`` is the position of index ``r``."""
    bars = np.array(list(itertools.combinations(range(MAX_CHECKERS + points), points)), dtype=np.int8)
    counts = (np.diff(bars.astype(np.int64), axis=1, prepend=-1) - 1).astype(np.int8)
    del bars
    out = np.empty((comb(MAX_CHECKERS + points, points), points), dtype=np.int8)
    out[index_of(counts)] = counts
    return out


_POSITIONS: np.ndarray | None = None


def position_of(index: int | np.ndarray) -> np.ndarray:
    """Checker counts on points 1..6 of an index (or an array of them): the inverse of :func:`index_of`."""
    global _POSITIONS
    if _POSITIONS is None:
        _POSITIONS = _all_positions()
        _POSITIONS.setflags(write=False)
    return _POSITIONS[index].copy()


# --------------------------------------------------------------------------- build


@njit(cache=True)
def _result_index(results: np.ndarray, points: int, binom: np.ndarray) -> np.ndarray:
    """:func:`index_of` of the mover's checkers in ``(n, 26)`` results seen by the (empty) opponent:
    the mover's point ``j`` is their slot ``25 - j``, negated; checkers beyond point ``points`` (none when
    the tables are built) are counted on it."""
    out = np.empty(len(results), dtype=np.int64)
    for i in range(len(results)):
        beyond = 0
        for j in range(points, 24):
            beyond -= results[i, 24 - j]
        total = 0
        rank = 0
        for j in range(points):
            total -= results[i, 24 - j]
            if j == points - 1:
                total += beyond
            rank += binom[total + j, j + 1]
        out[i] = rank
    return out


@njit(cache=True)
def _best_results(keys: np.ndarray, result_idx: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Per segment of ``result_idx`` (bounds ``offsets``), the index minimising ``keys`` (ties: smallest)."""
    out = np.empty(len(offsets) - 1, dtype=np.int64)
    for s in range(len(offsets) - 1):
        best = result_idx[offsets[s]]
        for r in range(offsets[s] + 1, offsets[s + 1]):
            j = result_idx[r]
            if keys[j] < keys[best] or (keys[j] == keys[best] and j < best):
                best = j
        out[s] = best
    return out


def build_tables(points: int = POINTS, chunk: int = 8192) -> tuple[np.ndarray, np.ndarray]:
    """Compute ``(rolls, first)`` (see the module docstring) with the move generator.

    ``points`` > 6 builds the same tables over checkers on points 1..``points``
    (``C(15 + points, points)`` positions; ``first`` from index
    ``C(14 + points, points)``): what the race labeller
    (``training/race_labels.py``) reads; minutes and gigabytes from 9 points.
    """
    positions = position_of(np.arange(N_POSITIONS)) if points == POINTS else _all_positions(points)
    n_positions = len(positions)
    full_base = comb(MAX_CHECKERS - 1 + points, points)
    binom = BINOM if points == POINTS else binomials(points)
    pips = positions.astype(np.int64) @ np.arange(1, points + 1)
    full = np.arange(n_positions) >= full_base
    dice = np.array([[d.high, d.low] for d in ALL_ROLLS], dtype=np.int64)
    ways = np.rint(ROLL_WEIGHTS * 36)  # 1 for a double, 2 otherwise: sums in 36ths, then one division

    # All-off: value tables over every index.  First-off: over every index too, where a
    # position with fewer than 15 checkers has already borne one off (0 more rolls).
    rolls = np.zeros((n_positions, _MAX_ROLLS))
    mean = np.zeros(n_positions)
    first = np.zeros((n_positions, _MAX_ROLLS))
    first_mean = np.zeros(n_positions)
    rolls[0, 0] = 1.0
    first[~full, 0] = 1.0

    order = np.argsort(pips, kind="stable")
    bounds = np.searchsorted(pips[order], np.arange(pips.max() + 2))
    for pip in range(1, pips.max() + 1):
        level = order[bounds[pip] : bounds[pip + 1]]
        for lo in range(0, len(level), chunk):
            ranks = level[lo : lo + chunk]
            k = len(ranks)
            boards = np.zeros((k, len(dice), NUM_SLOTS), dtype=np.int8)
            boards[:, :, 1 : points + 1] = positions[ranks][:, None, :]
            batch = generate(boards.reshape(-1, NUM_SLOTS), np.tile(dice, (k, 1)))
            if (np.diff(batch.offsets) == 0).any():
                # Cannot happen: the highest checker can always move or bear off.
                raise RuntimeError("a bear-off roll with no legal play")
            result_idx = _result_index(batch.positions, points, binom)

            best = _best_results(mean, result_idx, batch.offsets).reshape(k, len(dice))
            rolls[ranks, 1:] = np.einsum("r,krn->kn", ways, rolls[best, :-1]) / 36
            mean[ranks] = 1.0 + (mean[best] @ ways) / 36

            f = full[ranks]
            if f.any():
                fbest = _best_results(first_mean, result_idx, batch.offsets).reshape(k, len(dice))[f]
                franks = ranks[f]
                first[franks, 1:] = np.einsum("r,krn->kn", ways, first[fbest, :-1]) / 36
                first_mean[franks] = 1.0 + (first_mean[fbest] @ ways) / 36

    if rolls[:, -1].any() or first[:, -1].any():
        raise RuntimeError("bear-off distribution longer than the build buffer")
    n = int(np.flatnonzero(rolls.any(axis=0))[-1]) + 1
    m = int(np.flatnonzero(first[full].any(axis=0))[-1]) + 1
    return rolls[:, :n].copy(), first[full_base:, :m].copy()


# --------------------------------------------------------------------------- cache


def default_path() -> Path:
    """``$BGNET_CACHE/bearoff-os15.npz``; by default ``$XDG_CACHE_HOME/bgnet`` or ``~/.cache/bgnet``."""
    cache = os.environ.get("BGNET_CACHE")
    if cache:
        return Path(cache).expanduser() / FILE_NAME
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "bgnet" / FILE_NAME


def _read(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """The tables of a cache file, or None if it is missing, unreadable, malformed or of another version."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if str(z["version"]) != VERSION:
                return None
            rolls, first = z["rolls"], z["first"]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    if rolls.ndim != 2 or rolls.shape[0] != N_POSITIONS or first.ndim != 2 or first.shape[0] != N_FULL:
        return None
    return rolls, first


def _is_database(path: Path) -> bool:
    """Whether ``path`` is a bgnet bearoff database file, of any version (else: not ours to overwrite)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            return str(z["version"]).startswith("bgnet-bearoff")
    except (OSError, KeyError, ValueError, EOFError, AttributeError, zipfile.BadZipFile):
        return False


def check_path(path: Path) -> None:
    """Raise :class:`BearoffFileError` if a path given by the user has no folder or holds another file."""
    if not path.parent.is_dir():
        raise BearoffFileError(f"cannot write {path}: the folder {path.parent} does not exist")
    if path.exists() and not _is_database(path):
        raise BearoffFileError(f"{path} exists and is not a bgnet bearoff database; not overwriting it")


def _write(path: Path, rolls: np.ndarray, first: np.ndarray) -> None:
    """Write atomically (:func:`bgnet.atomic.write_atomic`)."""
    write_atomic(path, lambda f: np.savez_compressed(f, version=np.array(VERSION), rolls=rolls, first=first))


# --------------------------------------------------------------------------- the database


def _survival(dist: np.ndarray) -> np.ndarray:
    """``S[..., n] = P(N >= n)`` of ``(..., L)`` distributions."""
    return np.flip(np.cumsum(np.flip(dist, axis=-1), axis=-1), axis=-1)


def _pad(a: np.ndarray, width: int) -> np.ndarray:
    return a if a.shape[-1] == width else np.pad(a, [(0, 0)] * (a.ndim - 1) + [(0, width - a.shape[-1])])


class OneSidedBearoff:
    """The one-sided bearoff database: per-side roll distributions and exact race probabilities.

    >>> db = OneSidedBearoff.load_or_build()  # doctest: +SKIP
    >>> db.probabilities(boards[db.covers(boards)])  # doctest: +SKIP
    """

    def __init__(self, rolls: np.ndarray, first: np.ndarray, path: Path | None = None) -> None:
        if rolls.shape[0] != N_POSITIONS or first.shape[0] != N_FULL:
            raise ValueError(f"tables of shape {rolls.shape}, {first.shape}")
        self.rolls = np.ascontiguousarray(rolls, dtype=np.float64)
        """``(54264, L)``: P(bear off all checkers in exactly n rolls)."""
        self.first = np.ascontiguousarray(first, dtype=np.float64)
        """``(15504, M)``: for index ``FULL_BASE + i``, P(bear off the first checker in exactly n rolls)."""
        self.path = path
        width = max(self.rolls.shape[1], self.first.shape[1] + 1)
        rolls_p = _pad(self.rolls, width)
        self._rolls = rolls_p
        self._rolls_surv = _survival(rolls_p)  # P(all off needs >= n)
        self._rolls_cdf = np.cumsum(rolls_p, axis=1)  # P(all off needs <= n)
        self._first = _pad(self.first, width)
        self._first_surv = _survival(self._first)  # P(first off needs >= n)
        self.mean_rolls = rolls_p @ np.arange(width)
        """``(54264,)``: the expected number of rolls to bear off all checkers of each position."""
        self.mean_first = self._first @ np.arange(width)
        """``(15504,)``: for index ``FULL_BASE + i``, the expected number of rolls to bear off the first."""

    @classmethod
    def build(cls) -> Self:
        """Build the tables in memory (no cache)."""
        return cls(*build_tables())

    @classmethod
    def load_or_build(cls, path: str | os.PathLike | None = None, *, rebuild: bool = False) -> Self:
        """Load the cached database (:func:`default_path` unless ``path``); build and save it if needed.

        An unwritable cache only warns (the database is still built and
        returned); a ``path`` whose folder is missing or that holds a file
        other than a bearoff database raises :class:`BearoffFileError` before
        anything is built.
        """
        p = Path(path).expanduser() if path is not None else default_path()
        tables = None if rebuild else _read(p)
        if tables is not None:
            return cls(*tables, path=p)
        if path is not None:
            check_path(p)
        db = cls(*build_tables())
        try:
            db.save(path)
        except OSError as e:
            warnings.warn(f"cannot cache the bearoff database at {p}: {e}", stacklevel=2)
        return db

    def save(self, path: str | os.PathLike | None = None) -> Path:
        """Write the tables atomically to ``path`` (default: :func:`default_path`); return the path.

        The default cache folder is created when missing; a ``path`` given is
        checked first (see :class:`BearoffFileError`).
        """
        if path is None:
            p = default_path()
            p.parent.mkdir(parents=True, exist_ok=True)
        else:
            p = Path(path).expanduser()
            check_path(p)
        _write(p, self.rolls, self.first)
        self.path = p
        return p

    # ----------------------------------------------------------------- one side

    @staticmethod
    def _side_counts(board_side: np.ndarray) -> np.ndarray:
        a = np.asarray(board_side)
        if a.shape[-1] == NUM_SLOTS:
            a = a[..., 1 : POINTS + 1]
        elif a.shape[-1] != POINTS:
            raise ValueError(f"expected (..., 26) boards or (..., 6) counts, got shape {a.shape}")
        a = a.astype(np.int64)
        if (a < 0).any() or (a.sum(axis=-1) > MAX_CHECKERS).any():
            raise ValueError("counts must be >= 0 with at most 15 checkers")
        return a

    def distribution(self, board_side: np.ndarray) -> np.ndarray:
        """P(exactly n rolls to bear off all): ``(..., 26)`` boards (our slots 1..6) or ``(..., 6)``."""
        return self.rolls[index_of(self._side_counts(board_side))]

    def first_distribution(self, board_side: np.ndarray) -> np.ndarray:
        """P(exactly n rolls to bear off the first checker); only for sides with all 15 on the board."""
        idx = index_of(self._side_counts(board_side))
        if (idx < FULL_BASE).any():
            raise ValueError("the first-checker distribution needs all 15 checkers on the board")
        return self.first[idx - FULL_BASE]

    def expected_rolls(self, board_side: np.ndarray) -> float | np.ndarray:
        """Expected rolls to bear off all of our checkers (``(26,)`` board or ``(6,)`` counts, or batches)."""
        out = self.mean_rolls[index_of(self._side_counts(board_side))]
        return float(out) if np.ndim(out) == 0 else out

    # ----------------------------------------------------------------- both sides

    @staticmethod
    def covers(boards: np.ndarray) -> np.ndarray:
        """Which ``(N, 26)`` boards are pure bear-off races (both sides in the database), as a bool mask.

        Ours all on points 1..6, the opponent's all on our 19..24 (its home
        board), nobody on the bar, at most 15 a side.
        """
        b = np.asarray(boards).reshape(-1, NUM_SLOTS).astype(np.int16)
        ours = np.maximum(b, 0)
        theirs = np.maximum(-b, 0)
        return (
            (ours[:, POINTS + 1 :].sum(axis=1) == 0)
            & (theirs[:, : NUM_SLOTS - 1 - POINTS].sum(axis=1) == 0)
            & (ours.sum(axis=1) <= MAX_CHECKERS)
            & (theirs.sum(axis=1) <= MAX_CHECKERS)
        )

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """Exact cubeless (win, wg, wbg, lg, lbg) of the side on roll of covered ``(N, 26)`` boards (float64).

        Raises ``ValueError`` if a board is not covered (see :meth:`covers`).
        """
        b = np.asarray(boards).reshape(-1, NUM_SLOTS)
        if not self.covers(b).all():
            raise ValueError("probabilities of a position outside the bearoff database (contact or bar)")
        ours = b[:, 1 : POINTS + 1].astype(np.int64)
        theirs = -b[:, NUM_SLOTS - 2 : NUM_SLOTS - 2 - POINTS : -1].astype(np.int64)
        x = index_of(ours)
        y = index_of(theirs)
        px = self._rolls[x]
        out = np.zeros((len(b), 5))
        # We roll first: our n-th roll comes before their n-th, so we win iff X <= Y.
        out[:, 0] = np.einsum("ij,ij->i", px, self._rolls_surv[y])
        their_full = y >= FULL_BASE
        if their_full.any():
            yf = y[their_full] - FULL_BASE
            out[their_full, 1] = np.einsum("ij,ij->i", px[their_full], self._first_surv[yf])
        our_full = x >= FULL_BASE
        if our_full.any():
            # We lose a gammon iff they finish (Y = m) before our first checker is off (X1 = n): m <= n - 1.
            xf = x[our_full] - FULL_BASE
            cdf = self._rolls_cdf[y[our_full]]
            out[our_full, 3] = np.einsum("ij,ij->i", self._first[xf, 1:], cdf[:, :-1])
        return out
