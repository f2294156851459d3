"""Tesauro's pubeval: the public linear evaluation function, as a baseline player.

Gerald Tesauro (IBM Research) posted ``pubeval.c`` in 1993 "as a public
service to the backgammon programming community": a linear score
``W . X`` of a position *after* a move, with one weight vector for contact
positions (``wc``) and one for races (``wr``), 122 weights each.  It makes
obvious mistakes but is the traditional yardstick for backgammon programs.

Sources
-------
The weights and the input encoding are Tesauro's, as published in
``pubeval.c`` (public domain) and reproduced unchanged in GNU Backgammon's
``lib/pub_eval.c`` ("by Gerry Tesauro, modified by Gary Wong for GNU
Backgammon, 1999") and in OpenBSD's ``games/backgammon/common_source/pubeval.c``;
the two copies agree digit for digit.  The arithmetic that decides ties
follows gnubg-nn's ``pubeval1`` (``gnubg/eggmoveg.c`` in the ``gnubg_nn``
Python package), which pre-divides the weights and sums in ``float``; this
module reproduces its scores bit for bit (``gnubg_nn.pub_eval_score``), and
its choice of play (``gnubg_nn.pub_best_move``, i.e. ``FindPubevalMove``).

Encoding (Tesauro's ``setx``)
-----------------------------
``pos[0..27]`` is the board after the move, from the side that moved (the
"computer"): ``pos[1..24]`` its points (it moves 24 -> 1), its checkers
positive, the opponent's negative; ``pos[0]`` the opponent's bar (<= 0),
``pos[25]`` its own bar, ``pos[26]`` its checkers off.  That is exactly
bgnet's board layout seen from the mover, plus the count off.  For each point
``p`` (input block ``k = 24 - p``, five inputs ``5k .. 5k+4``) with count
``n``:

* ``n == -1`` (an opposing blot): input 0 is 1;
* ``n == 1``: input 1 is 1;
* ``n >= 2``: input 2 is 1; ``n == 3``: input 3 is 1 too;
  ``n >= 4``: input 4 is ``(n - 3) / 2``.

Input 120 is ``-pos[0] / 2`` (opponent's checkers on the bar), input 121 is
``pos[26] / 15`` (our checkers off).  Our own bar and the opponent's points
of two or more are not inputs.  A position with all 15 checkers off scores
``99999999`` (the best possible move).

Race or contact
---------------
Tesauro: ``race`` "should be set based on the INITIAL position BEFORE the
move" (1 for a race, i.e. no contact).  gnubg does the same
(``ClassifyPosition(before) <= CLASS_RACE``).  So one weight vector is used
for all the plays of one roll, even those that break contact.
:func:`pubeval_best` recovers the position before the move exactly from each
result and its steps (see :func:`race_before_move`); :func:`pubeval_scores`
takes the flag from the caller, or, if none is given, tests each position
itself (what ``gnubg_nn.pub_eval_score`` does).

Ties
----
gnubg (``FindPubevalMove``) keeps the first play with a strictly greater
score in its own generation order, which tries the dice in the order they
are given; :func:`pubeval_best` keeps the first best row in bgnet's order,
which plays the higher die first.  As the scores are bit-identical to
gnubg's, the two can differ only on exact ties in ``float32``.  On the
35,100 inputs of ``tests/data/movegen_positions.txt`` the choices agree on
all but 6, each a tie between two ways of bearing off the last checker
(both score :data:`ALL_OFF_SCORE`), and gnubg given the high die first
agrees on all 35,100.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from bgnet.movegen import MoveBatch, generate
from bgnet.position import CHECKERS, NUM_SLOTS, Board, flip

__all__ = [
    "ALL_OFF_SCORE",
    "WC",
    "WR",
    "crashed_sides",
    "is_crashed",
    "is_race",
    "pubeval_best",
    "pubeval_choose",
    "pubeval_scores",
    "race_before_move",
]

# Tesauro's weights, one row per point block (points 24, 23, ..., 1), each row
# the five inputs [opposing blot, 1 checker, >= 2, == 3, (n - 3) / 2 for
# n >= 4]; the last row holds inputs 120 (opponent's bar / 2) and 121 (our
# checkers off / 15).
_WC_ROWS = (
    (0.25696, -0.66937, -1.66135, -2.02487, -2.53398),
    (-0.16092, -1.11725, -1.06654, -0.92830, -1.99558),
    (-1.10388, -0.80802, 0.09856, -0.62086, -1.27999),
    (-0.59220, -0.73667, 0.89032, -0.38933, -1.59847),
    (-1.50197, -0.60966, 1.56166, -0.47389, -1.80390),
    (-0.83425, -0.97741, -1.41371, 0.24500, 0.10970),
    (-1.36476, -1.05572, 1.15420, 0.11069, -0.38319),
    (-0.74816, -0.59244, 0.81116, -0.39511, 0.11424),
    (-0.73169, -0.56074, 1.09792, 0.15977, 0.13786),
    (-1.18435, -0.43363, 1.06169, -0.21329, 0.04798),
    (-0.94373, -0.22982, 1.22737, -0.13099, -0.06295),
    (-0.75882, -0.13658, 1.78389, 0.30416, 0.36797),
    (-0.69851, 0.13003, 1.23070, 0.40868, -0.21081),
    (-0.64073, 0.31061, 1.59554, 0.65718, 0.25429),
    (-0.80789, 0.08240, 1.78964, 0.54304, 0.41174),
    (-1.06161, 0.07851, 2.01451, 0.49786, 0.91936),
    (-0.90750, 0.05941, 1.83120, 0.58722, 1.28777),
    (-0.83711, -0.33248, 2.64983, 0.52698, 0.82132),
    (-0.58897, -1.18223, 3.35809, 0.62017, 0.57353),
    (-0.07276, -0.36214, 4.37655, 0.45481, 0.21746),
    (0.10504, -0.61977, 3.54001, 0.04612, -0.18108),
    (0.63211, -0.87046, 2.47673, -0.48016, -1.27157),
    (0.86505, -1.11342, 1.24612, -0.82385, -2.77082),
    (1.23606, -1.59529, 0.10438, -1.30206, -4.11520),
    (5.62596, -2.75800),
)
_WR_ROWS = (
    (0.00000, -0.17160, 0.27010, 0.29906, -0.08471),
    (0.00000, -1.40375, -1.05121, 0.07217, -0.01351),
    (0.00000, -1.29506, -2.16183, 0.13246, -1.03508),
    (0.00000, -2.29847, -2.34631, 0.17253, 0.08302),
    (0.00000, -1.27266, -2.87401, -0.07456, -0.34240),
    (0.00000, -1.34640, -2.46556, -0.13022, -0.01591),
    (0.00000, 0.27448, 0.60015, 0.48302, 0.25236),
    (0.00000, 0.39521, 0.68178, 0.05281, 0.09266),
    (0.00000, 0.24855, -0.06844, -0.37646, 0.05685),
    (0.00000, 0.17405, 0.00430, 0.74427, 0.00576),
    (0.00000, 0.12392, 0.31202, -0.91035, -0.16270),
    (0.00000, 0.01418, -0.10839, -0.02781, -0.88035),
    (0.00000, 1.07274, 2.00366, 1.16242, 0.22520),
    (0.00000, 0.85631, 1.06349, 1.49549, 0.18966),
    (0.00000, 0.37183, -0.50352, -0.14818, 0.12039),
    (0.00000, 0.13681, 0.13978, 1.11245, -0.12707),
    (0.00000, -0.22082, 0.20178, -0.06285, -0.52728),
    (0.00000, -0.13597, -0.19412, -0.09308, -1.26062),
    (0.00000, 3.05454, 5.16874, 1.50680, 5.35000),
    (0.00000, 2.19605, 3.85390, 0.88296, 2.30052),
    (0.00000, 0.92321, 1.08744, -0.11696, -0.78560),
    (0.00000, -0.09795, -0.83050, -1.09167, -4.94251),
    (0.00000, -1.00316, -3.66465, -2.56906, -9.67677),
    (0.00000, -2.77982, -7.26713, -3.40177, -12.32252),
    (0.00000, 3.42040),
)

WC: np.ndarray = np.array([w for row in _WC_ROWS for w in row], dtype=np.float64)
"""Tesauro's 122 contact weights (input ``i`` of the encoding above)."""
WR: np.ndarray = np.array([w for row in _WR_ROWS for w in row], dtype=np.float64)
"""Tesauro's 122 race weights."""
WC.setflags(write=False)
WR.setflags(write=False)

ALL_OFF_SCORE = np.float32(99999999.0)
"""The score of a position with all our checkers off (in float32: 1e8)."""

_MAX_COUNT = CHECKERS  # counts index the tables as n + 15, n in -15..15
_BLOCK_BASE = (np.arange(24, dtype=np.int16) * (2 * _MAX_COUNT + 1) + _MAX_COUNT)[:, None]


def _tables(w: np.ndarray) -> tuple[np.ndarray, np.float32, np.float32]:
    """Per point block ``k`` and count ``n``, the float32 term gnubg adds; and the two scalar weights.

    gnubg-nn stores the weights as ``float`` with inputs 4, 120 and 121
    pre-divided (``-2.53398 / 2.0`` is evaluated in double, then rounded),
    then adds ``w2 + w3`` for three checkers and ``w2 + w4 * (n - 3)`` for
    more, each in float32.  The same roundings here make the scores
    bit-identical.
    """
    w32 = w.astype(np.float32)
    w4 = (w[4:120:5] / 2.0).astype(np.float32)
    table = np.zeros((24, 2 * _MAX_COUNT + 1), dtype=np.float32)
    for k in range(24):
        blot, one, two, three = w32[5 * k : 5 * k + 4]
        table[k, _MAX_COUNT - 1] = blot
        table[k, _MAX_COUNT + 1] = one
        table[k, _MAX_COUNT + 2] = two
        table[k, _MAX_COUNT + 3] = np.float32(two + three)
        for n in range(4, _MAX_COUNT + 1):
            table[k, _MAX_COUNT + n] = np.float32(two + np.float32(w4[k] * np.float32(n - 3)))
    table.setflags(write=False)
    return table, np.float32(w[120] / 2.0), np.float32(w[121] / 15.0)


_CONTACT = _tables(WC)
_RACE = _tables(WR)


def _as_boards(boards: np.ndarray) -> np.ndarray:
    b = np.asarray(boards)
    if b.ndim == 1:
        b = b[None, :]
    if b.ndim != 2 or b.shape[1] != NUM_SLOTS:
        raise ValueError(f"expected boards of shape (N, {NUM_SLOTS}), got {np.shape(boards)}")
    return b.astype(np.int8, copy=False)


def _backs(b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per board: the highest slot with a checker of the side on roll (0: none)
    and the lowest slot with an opposing checker (25: none)."""
    ours = np.empty(len(b), dtype=np.int8)
    theirs = np.empty(len(b), dtype=np.int8)
    _backs_kernel(np.ascontiguousarray(b), ours, theirs)
    return ours, theirs


@njit(cache=True)
def _backs_kernel(b: np.ndarray, ours: np.ndarray, theirs: np.ndarray) -> None:
    for i in range(b.shape[0]):
        ours[i] = 0
        for s in range(NUM_SLOTS - 1, 0, -1):
            if b[i, s] > 0:
                ours[i] = s
                break
        theirs[i] = NUM_SLOTS - 1
        for s in range(NUM_SLOTS - 1):
            if b[i, s] < 0:
                theirs[i] = s
                break


def is_race(boards: np.ndarray) -> np.ndarray:
    """Whether each board is a race (no contact), gnubg's ``ClassifyPosition <= CLASS_RACE``.

    Contact means some checker of one side still has to pass a checker of
    the other: the rearmost checker of the side on roll (bar = slot 25) is
    on a higher slot than the opponent's rearmost (their bar = slot 0).  A
    board where a side has no checkers left counts as a race (gnubg's
    ``CLASS_OVER``).  The test is symmetric, so either side's view gives the
    same answer.  Takes ``(N, 26)`` or ``(26,)`` boards, returns ``(N,)`` bools.
    """
    ours, theirs = _backs(_as_boards(boards))
    return ours <= theirs


CRASHED_IN_PLAY = 6
"""gnubg's ``N`` of its crashed test: the checkers a side keeps in play outside its deepest points."""


@njit(cache=True)
def _crashed_side(in_play: int, ace: int, deuce: int) -> bool:
    """gnubg's test of one side (its ``ClassifyPosition``), from the side's checkers in play (bar
    included) and on its ace and deuce points."""
    n = CRASHED_IN_PLAY
    if in_play <= n:
        return True
    if ace > 1:
        return in_play <= n + ace or (deuce > 1 and 1 + in_play - (ace + deuce) <= n)
    return in_play <= n + deuce - 1


@njit(cache=True)
def _crashed_sides(b: np.ndarray, out: np.ndarray) -> None:
    """``out[i, 0]`` / ``out[i, 1]``: whether the side on roll / off roll of board ``i`` is crashed
    (:func:`_crashed_side`)."""
    for i in range(b.shape[0]):
        ours = 0
        theirs = 0
        for s in range(NUM_SLOTS):
            if b[i, s] > 0:
                ours += b[i, s]
            else:
                theirs -= b[i, s]
        out[i, 0] = _crashed_side(ours, max(b[i, 1], 0), max(b[i, 2], 0))
        out[i, 1] = _crashed_side(theirs, max(-b[i, NUM_SLOTS - 2], 0), max(-b[i, NUM_SLOTS - 3], 0))


def crashed_sides(boards: np.ndarray, race: np.ndarray | None = None) -> np.ndarray:
    """``(N, 2)`` bools: whether the side on roll (column 0) and the side off roll (column 1) of each
    board is crashed by gnubg's test of one side (:func:`is_crashed`), both False in races.  Takes
    ``(N, 26)`` or ``(26,)`` boards (and, when known, their :func:`is_race`)."""
    b = np.ascontiguousarray(_as_boards(boards), dtype=np.int8)
    sides = np.empty((len(b), 2), dtype=np.bool_)
    _crashed_sides(b, sides)
    race = is_race(b) if race is None else np.asarray(race, dtype=bool)
    if race.shape != (len(b),):
        raise ValueError(f"race marks {race.shape} boards, not {(len(b),)}")
    sides[race] = False
    return sides


def is_crashed(boards: np.ndarray, race: np.ndarray | None = None) -> np.ndarray:
    """Whether each board is crashed, gnubg's ``ClassifyPosition == CLASS_CRASHED`` (checked against
    gnubg-nn's ``classify``): contact is left (not :func:`is_race`) and a side has few checkers left to
    play with.  With ``n`` checkers in play, ``a`` on its ace point and ``d`` on its deuce point, a side
    is crashed when ``n <= 6``; or, with ``a >= 2``, when ``n - a <= 6`` or (``d >= 2``)
    ``n - a - d <= 5``; or, with ``a <= 1``, when ``n - d <= 5``.  gnubg values these positions with its
    crashed network.  Symmetric in the two sides (:func:`crashed_sides` tells them apart); takes
    ``(N, 26)`` or ``(26,)`` boards (and, when known, their :func:`is_race`), returns ``(N,)`` bools."""
    return np.asarray(crashed_sides(boards, race).any(axis=1))


def race_before_move(positions: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Whether the position *before* each move was a race, from the results alone.

    ``positions`` and ``steps`` are rows of a :class:`~bgnet.movegen.MoveBatch`
    (results seen by the opponent, steps in the mover's numbering).  Exact:
    the mover's rearmost checker before the move is the farther of its
    rearmost checker now and the highest source of the steps; the opponent's
    checkers are unchanged unless a step hit, and a hit needs contact before
    the move, which the hit checker on the bar (slot 0) still shows.
    """
    mover = flip(_as_boards(positions))
    ours, theirs = _backs(mover)
    st = np.asarray(steps)
    src = st[:, :, 0].max(axis=1) if len(st) else np.zeros(0, np.int8)
    return np.maximum(ours, src.astype(np.int8)) <= theirs


def pubeval_scores(results: np.ndarray, race: bool | np.ndarray | None = None) -> np.ndarray:
    """Pubeval's scores (float32) of positions reached by a move, the mover's view.

    ``results`` is ``(N, 26)`` (or one ``(26,)`` board) as the move generator
    returns them: seen by the opponent, now on roll; they are flipped back
    to the side that moved.  ``race`` picks the weights: a bool for all, or
    one per position (Tesauro sets it from the position *before* the move;
    see :func:`race_before_move`).  ``None`` tests each position itself with
    :func:`is_race`, as ``gnubg_nn.pub_eval_score`` does.  Higher is better
    for the mover; a position with all its checkers off scores
    :data:`ALL_OFF_SCORE`.
    """
    mover = flip(_as_boards(results))
    n = len(mover)
    if race is None:
        race_flags = is_race(mover)
    else:
        race_flags = np.broadcast_to(np.asarray(race, dtype=bool), (n,))
    out = np.empty(n, dtype=np.float32)
    off = CHECKERS - np.where(mover > 0, mover, np.int8(0)).sum(axis=1, dtype=np.int16)
    bar = (-mover[:, 0]).astype(np.float32)
    # Points 24, 23, ..., 1 are input blocks 0..23: flat index k * 31 + n + 15 into a table.
    flat = mover[:, 24:0:-1].T.astype(np.int16) + _BLOCK_BASE
    for flag, (table, w_bar, w_off) in ((False, _CONTACT), (True, _RACE)):
        found = np.flatnonzero(race_flags == flag)
        if len(found) == 0:
            continue
        rows: np.ndarray | slice = slice(None) if len(found) == n else found  # a slice is a view: faster
        # gnubg's order: both scalar inputs first, then points 24 down to 1.
        s = w_bar * bar[rows] + w_off * off[rows].astype(np.float32)
        terms = table.ravel().take(flat[:, rows])
        for k in range(24):
            s += terms[k]
        out[rows] = s
    out[off == CHECKERS] = ALL_OFF_SCORE
    return out


def pubeval_best(batch: MoveBatch, race: bool | np.ndarray | None = None) -> np.ndarray:
    """Pubeval's play for every input of ``batch``: an absolute row of ``batch.positions``.

    Returns an ``(N,)`` int64 array: for input ``i`` the row in
    ``offsets[i]:offsets[i+1]`` with the highest :func:`pubeval_scores`
    (the first such row on a tie), or -1 when there is no legal play.
    ``race`` (a bool, or one per input) chooses the weights; by default it is
    derived from the batch with :func:`race_before_move`, which equals
    pubeval's (and gnubg's) test on the position before the move.
    """
    offsets = np.asarray(batch.offsets, dtype=np.int64)
    counts = np.diff(offsets)
    total = int(offsets[-1])
    best = np.full(len(counts), -1, dtype=np.int64)
    if total == 0:
        return best
    if race is None:
        flags = race_before_move(batch.positions[:total], batch.steps[:total])
    else:
        flags = np.repeat(np.broadcast_to(np.asarray(race, dtype=bool), counts.shape), counts)
    scores = pubeval_scores(batch.positions[:total], flags)
    nonempty = counts > 0
    starts = offsets[:-1][nonempty]
    group_max = np.maximum.reduceat(scores, starts)
    group = np.repeat(np.arange(len(starts)), counts[nonempty])
    rows = np.arange(total, dtype=np.int64)
    candidates = np.where(scores == group_max[group], rows, total)
    best[nonempty] = np.minimum.reduceat(candidates, starts)
    return best


def pubeval_choose(board: Board, dice: tuple[int, int]) -> Board | None:
    """Pubeval's play of ``dice`` on ``board`` (seen from the side on roll).

    Returns the resulting position, seen by the opponent (like the move
    generator), or None when there is no legal play.
    """
    batch = generate(np.asarray(board, dtype=np.int8)[None, :], np.array([dice], dtype=np.int64))
    row = int(pubeval_best(batch)[0])
    return None if row < 0 else batch.positions[row].copy()
