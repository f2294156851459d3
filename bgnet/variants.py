"""The games of our rule documents: variant definitions and their one move generator.

A :class:`Variant` states a game's rules as data: its start, how the
sides' numberings relate (``mirror``: they move in opposite directions, as
in backgammon; ``rotate``: both move the same way round the board, as in
fevga and long nardy), what a landing on a lone opposing checker does (hit
it, pin it, or nothing because a single checker already blocks), the
opening roll, the forced-play rule, the games' own rules (fevga's start,
quarter and prime rules, long nardy's head rule, acey-deucey's entering
and 1-2 turn), the cube and the scoring.  :func:`generate` is the one
compiled generator for all of them, driven by :attr:`Variant.rules`; for
standard backgammon with the forced-play rule the specialised kernels of
:mod:`bgnet.movegen` give the same results faster (a test compares them),
and :meth:`Variant.generate` uses them.

Variant boards
--------------
A variant board is an int8 array of :data:`VSLOTS` = 52 slots seen from
the side on roll, a superset of :mod:`bgnet.position`'s 26 slots:

========= ==============================================================
slot      meaning
========= ==============================================================
0..25     as a backgammon board: points 1..24 numbered from the side on
          roll (it moves 24 -> 1, home 1..6), positive ours, negative
          theirs (in plakoto the checkers on *top* of a point); 25 our
          bar, 0 theirs
26..49    pins (plakoto): slot ``25 + p`` is +1 when one of our checkers
          is pinned under the opponent's on point ``p``, -1 when one of
          theirs is pinned under ours, else 0
50, 51    checkers waiting to enter (acey-deucey): ours (>= 0), theirs
          (<= 0); with die ``n`` one enters on point ``25 - n`` exactly as
          from the bar, after any checker on the bar
========= ==============================================================

Checkers off are implicit (15 minus the rest).  :meth:`Variant.flip` is
the only change of side: a reversal for ``mirror`` games, a rotation by 12
points for ``rotate`` games (our point ``p`` is the opponent's point
``p + 12``, modulo 24).

Results of :func:`generate` (one roll) are seen by the opponent (already
flipped), with one canonical play each as up to four ``(from, to)`` steps
(25 = bar, 26 = a waiting checker, 0 = off), like
:func:`bgnet.movegen.generate`.

Long nardy's head rule (:data:`R_HEAD`): at most one checker leaves point
24 in a turn, two when the roll is 6-6, 4-4 or 3-3 and all 15 stand there
(the first roll).  The kernel enforces it with the frozen counts it keeps
for tavla: ``frozen[24]`` is set to the head's count less that limit.

Whole turns
-----------
:meth:`Variant.generate` returns whole turns.  For every game but
acey-deucey a turn is one roll and the batch is :func:`generate`'s.  In
acey-deucey a roll of 1-2 is played as the 1 and the 2 (the forced-play
rule), then a double ``d`` of the mover's choice four times (as many as can
be played), European rule: then ``7 - d`` four times, and the mover rolls
again if every step was played.  Each stage is one call of the kernel over
the whole batch.  Acey-deucey's batches carry per row ``doubles`` (the
double chosen, 0 for none) and ``again`` (the mover rolls again), and
:data:`VMAX_STEPS` = 10 step columns (the 1-2 in columns 0-1, the double
in 2-5, its complement in 6-9; unused -1).  A result is seen by the side on
roll next: the opponent (flipped), or the mover when ``again``; each
(position, again) pair appears once, as its first play in the order of the
kernel's rows, then the doubles 1..6.  Choices where the contract of issue
13 left room:

* a double that cannot be played at all may still be chosen: the row is the
  position after the 1-2, with that double (0 steps of it) and no re-roll;
  rows that reach the same position keep the first double;
* a turn whose last step bears off the mover's last checker does not roll
  again (the game is over): ``again`` is false and the row is flipped;
* without the forced-play rule (``+no-forced-max``) a 1-2 of which only one
  die is played ends the turn, and a double played fewer than four times
  gives no re-roll.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
from numba import njit

from bgnet.errors import InvalidPositionError
from bgnet.movegen import MAX_STEPS, MoveBatch, collect
from bgnet.movegen import generate as standard_generate
from bgnet.position import NACKGAMMON, NUM_SLOTS, STARTING

VSLOTS = 52
PIN = 25  # the pin of point p is slot PIN + p
OUR_WAITING = 50
THEIR_WAITING = 51
VMAX_STEPS = 10  # the step columns of acey-deucey's batches: a European 1-2 turn's 2 + 4 + 4
WAITING_STEP = 26  # the source of an entering step in ``steps`` (a checker that waited to enter)

# Indices of Variant.rules (an int64 array the kernel reads).
R_ROTATE = 0  # 1: both sides move the same way (flip by rotation)
R_CAPTURE = 1  # CAPTURE_*: what landing on a lone opposing checker does
R_BLOCK = 2  # opposing checkers that block a point (2, or 1 in fevga)
R_FORCED = 3  # 1: the forced-play rule (use both dice / the larger); 0: any play of one or more dice
R_NO_HIT_RUN = 4  # 1: a checker that hits in our home board stops there (tavla)
R_FIRST_PASS = 5  # 1: no second checker leaves our start before the first passed theirs (fevga)
R_QUARTER = 6  # 1: we may not hold all six points 19..24 (fevga)
R_PRIME = 7  # 1: no six consecutive points unless an opposing checker is ahead of them (fevga)
R_HEAD = (
    8  # 1: at most one checker leaves our 24 (the head) per turn, two on a first 6-6, 4-4, 3-3 (long nardy)
)
R_ENTER = 9  # 1: checkers wait off the board (slot 50) and enter like bar checkers (acey-deucey)
R_ENTER_ALL = 10  # 1: no checker on the points moves while any of ours wait to enter (house rule enter-all)
R_ACEY = 11  # the 1-2 turn (ACEY_*), composed by Variant.generate around the kernel
NUM_RULES = 12

ACEY_NONE = 0
ACEY_AMERICAN = 1  # 1-2, then any double four times, then roll again
ACEY_EUROPEAN = 2  # 1-2, then any double four times and its complement to 7 four times, then roll again
NARROW_KEEP = 4  # a narrowed 1-2 (Variant.generate's ``narrow``) goes on from its best 4 plays of the 1-2

CAPTURE_NONE = 0
CAPTURE_HIT = 1
CAPTURE_PIN = 2

_TABLE = 8191  # mask of the per-roll tables (visited nodes, results)
# A roll has at most 3,875 states (the multisets of up to four steps from at most 15 source
# points), so the table stays at most half full; small tables stay in the cache.
_MAX_RESULTS = 4096

_ZOB = np.random.default_rng(0x7661_7269).integers(0, 2**63, size=(VSLOTS + 26, 48), dtype=np.int64)
"""Zobrist keys per (slot, value + 24); rows VSLOTS.. key the frozen counts and the depth."""


@njit(cache=True)
def _outside(w):
    """Our checkers that keep us from bearing off: outside home, on the bar, waiting or pinned."""
    n = w[25] + w[OUR_WAITING]
    for p in range(7, 25):
        if w[p] > 0:
            n += w[p]
    for p in range(1, 25):
        if w[PIN + p] > 0:
            n += 1
    return n


@njit(cache=True)
def _start_ok(w, rules):
    """Fevga: a second checker may leave our start (24) only once the first passed the opponent's (12)."""
    if rules[R_FIRST_PASS] == 0 or w[24] != 14:
        return True
    for p in range(1, 12):
        if w[p] > 0:
            return True
    return False


@njit(cache=True)
def _can(w, frozen, s, d, rules):
    """Whether one of our checkers on slot ``s`` may move ``d`` pips now."""
    if s == 25:
        if w[25] <= 0:
            return False
        t = 25 - d
    elif s == OUR_WAITING:
        # A waiting checker enters as one from the bar, after the bar.
        if w[25] > 0 or w[s] <= 0:
            return False
        t = 25 - d
    else:
        if w[25] > 0 or w[s] <= frozen[s]:
            return False
        if s == 24 and not _start_ok(w, rules):
            return False
        if w[OUR_WAITING] > 0 and rules[R_ENTER_ALL] == 1:
            return False
        t = s - d
    if t >= 1:
        v = w[t]
        if v < 0 and (v <= -rules[R_BLOCK] or w[PIN + t] != 0):
            return False
        return True
    if s == 25 or _outside(w) > 0:
        return False
    if t == 0:
        return True
    for p in range(s + 1, 7):
        if w[p] > 0:
            return False
    return True


@njit(cache=True)
def _move(w, frozen, s, d, rules):
    """Move one checker from ``s`` by ``d`` in place (legality checked by :func:`_can`)."""
    w[s] -= 1
    if s <= 24 and w[s] == 0 and w[PIN + s] < 0:
        # We left a point where one of theirs was pinned: it is free again.
        w[s] = -1
        w[PIN + s] = 0
    t = (25 if s == OUR_WAITING else s) - d
    if t < 1:
        return
    if w[t] == -1 and w[PIN + t] == 0 and rules[R_BLOCK] >= 2:
        capture = rules[R_CAPTURE]
        if capture == CAPTURE_HIT:
            w[t] = 1
            w[0] -= 1
            if rules[R_NO_HIT_RUN] == 1 and t <= 6:
                frozen[t] += 1
            return
        if capture == CAPTURE_PIN:
            w[t] = 1
            w[PIN + t] = -1
            return
    w[t] += 1


@njit(cache=True)
def _path_point(rotate, j):
    """The opponent's ``j``-th point along its way (j = 0 its start), in our numbering."""
    if rotate == 1:
        return 12 - j if j < 12 else 36 - j
    return j + 1


@njit(cache=True)
def _final_ok(w, rules):
    """The rules on the position a play ends in (fevga's starting quarter and primes)."""
    if rules[R_QUARTER] == 1:
        held = 0
        for p in range(19, 25):
            if w[p] > 0:
                held += 1
        if held == 6:
            return False
    if rules[R_PRIME] == 1:
        rot = rules[R_ROTATE]
        run = 0
        for j in range(24):
            if w[_path_point(rot, j)] > 0:
                run += 1
            else:
                run = 0
            if run >= 6:
                ahead = False
                for k in range(j + 1, 24):
                    if w[_path_point(rot, k)] < 0:
                        ahead = True
                        break
                if not ahead:
                    return False
    return True


@njit(cache=True)
def _key(w, frozen, zob):
    h = 0
    for i in range(VSLOTS):
        if w[i] != 0:
            h ^= zob[i, w[i] + 24]
    for i in range(1, 7):
        if frozen[i] != 0:
            h ^= zob[VSLOTS + i, frozen[i]]
    return h


@njit(cache=True)
def _flip_into(w, rotate, out, row):
    if rotate == 1:
        for q in range(1, 25):
            r = (q + 11) % 24 + 1
            out[row, q] = -w[r]
            out[row, PIN + q] = -w[PIN + r]
    else:
        for q in range(1, 25):
            out[row, q] = -w[25 - q]
            out[row, PIN + q] = -w[PIN + 25 - q]
    out[row, 0] = -w[25]
    out[row, 25] = -w[0]
    out[row, OUR_WAITING] = -w[THEIR_WAITING]
    out[row, THEIR_WAITING] = -w[OUR_WAITING]


@njit(cache=True)
def _gen_roll(
    root,
    a,
    b,
    rules,
    zob,
    out_pos,
    out_steps,
    base,
    cap,
    st,
    fr,
    nexts,
    src,
    ds,
    vstamp,
    vkey,
    rstamp,
    rrow,
    rlen,
    rdie,
    stamp,
):
    """All legal results of roll ``a, b`` from ``root``; returns how many, or -1 if a buffer is full.

    A depth-first search without recursion over every order of the dice and
    every source, with a transposition table (a node is its position, the
    frozen checkers, the depth and the dice left), so each distinct state is
    expanded once.  Every node after one or more steps whose position passes
    :func:`_final_ok` is a candidate play; the rules then keep the candidates
    of the most dice (and of the larger die when only one can be played), or
    all of them without the forced-play rule.
    """
    double = a == b
    # A double's steps can be taken from non-increasing sources (they reach every
    # position: moving a higher checker first never takes a lower one's step away),
    # except under fevga's start rule, where the runner must go on before a second
    # checker leaves the start.  The last source is then part of a node's state.
    ordered = double and rules[R_FIRST_PASS] == 0
    nd = 4 if double else 2
    norders = 1 if double else 2
    hi = max(a, b)
    lo = min(a, b)
    # Sources are tried by rank, from `top` down to 1: 26 the bar and 25 the waiting
    # checkers when checkers wait to enter (so the bar comes first), else 25 the bar.
    top = 26 if rules[R_ENTER] == 1 else 25
    head = 0
    if rules[R_HEAD] == 1:
        head = 2 if double and root[24] == 15 and (a == 6 or a == 4 or a == 3) else 1
    n = 0
    nodes = 0
    for o in range(norders):
        for k in range(nd):
            ds[k] = hi if (double or (k == 0) == (o == 0)) else lo
        for i in range(VSLOTS):
            st[0, i] = root[i]
        for i in range(26):
            fr[0, i] = 0
        if head > 0:
            # A checker on slot s may move only while w[s] > frozen[s], so this lets at
            # most `head` checkers leave the head; constant within the roll, so the
            # transposition key needs no term for it.
            fr[0, 24] = max(root[24] - head, 0)
        k = 0
        nexts[0] = top
        while k >= 0:
            s = nexts[k]
            pushed = False
            while s >= 1:
                cur = s
                s -= 1
                sl = cur
                if top == 26 and cur >= 25:
                    sl = 25 if cur == 26 else OUR_WAITING
                if st[k, sl] <= 0 or not _can(st[k], fr[k], sl, ds[k], rules):
                    continue
                for i in range(VSLOTS):
                    st[k + 1, i] = st[k, i]
                for i in range(26):
                    fr[k + 1, i] = fr[k, i]
                _move(st[k + 1], fr[k + 1], sl, ds[k], rules)
                key = _key(st[k + 1], fr[k + 1], zob) ^ zob[VSLOTS + 8 + k, 0]
                if k + 1 < nd and not double:
                    key ^= zob[VSLOTS + 8 + k, 1 + o]
                if ordered and k + 1 < nd:
                    key ^= zob[VSLOTS + 12 + k, cur]
                slot = key & _TABLE
                seen = False
                while vstamp[slot] == stamp:
                    if vkey[slot] == key:
                        seen = True
                        break
                    slot = (slot + 1) & _TABLE
                if seen:
                    continue
                vstamp[slot] = stamp
                vkey[slot] = key
                nodes += 1
                if nodes > _TABLE // 2:
                    return -1  # more distinct states than the table holds: never on a real position
                src[k] = sl
                if _final_ok(st[k + 1], rules):
                    # A candidate: keep it once per position (full comparison on equal hashes).
                    hb = 0
                    for i in range(VSLOTS):
                        if st[k + 1, i] != 0:
                            hb ^= zob[i, st[k + 1, i] + 24]
                    rs = hb & _TABLE
                    dup = False
                    while rstamp[rs] == stamp:
                        j = rrow[rs]
                        same = True
                        for i in range(VSLOTS):
                            if out_pos[base + j, i] != st[k + 1, i]:
                                same = False
                                break
                        if same:
                            dup = True
                            break
                        rs = (rs + 1) & _TABLE
                    row = -1
                    if dup:
                        # The same position by more dice (a bear-off with a larger die can
                        # equal one with fewer steps): keep the longer play.
                        if rlen[j] < k + 1:
                            row = j
                    else:
                        if base + n >= cap or n >= _MAX_RESULTS:
                            return -1
                        rstamp[rs] = stamp
                        rrow[rs] = n
                        row = n
                        n += 1
                    if row >= 0:
                        rlen[row] = k + 1
                        rdie[row] = ds[0]
                        for i in range(VSLOTS):
                            out_pos[base + row, i] = st[k + 1, i]
                        for m in range(MAX_STEPS):
                            if m <= k:
                                if src[m] == OUR_WAITING:
                                    out_steps[base + row, m, 0] = WAITING_STEP
                                    t = 25 - ds[m]
                                else:
                                    out_steps[base + row, m, 0] = src[m]
                                    t = src[m] - ds[m]
                                out_steps[base + row, m, 1] = t if t > 0 else 0
                            else:
                                out_steps[base + row, m, 0] = -1
                                out_steps[base + row, m, 1] = -1
                if k + 1 < nd:
                    nexts[k] = s
                    k += 1
                    nexts[k] = cur if ordered else top
                    pushed = True
                    break
            if not pushed:
                k -= 1
    if n == 0:
        return 0
    # Which candidates the rules keep.
    best = 0
    for j in range(n):
        if rlen[j] > best:
            best = rlen[j]
    keep_die = 0
    if rules[R_FORCED] == 1 and best == 1 and not double:
        for j in range(n):
            if rdie[j] == hi:
                keep_die = hi
                break
    m = 0
    rot = rules[R_ROTATE]
    for j in range(n):
        if rules[R_FORCED] == 1 and (rlen[j] != best or (keep_die != 0 and rdie[j] != keep_die)):
            continue
        for i in range(VSLOTS):
            st[nd, i] = out_pos[base + j, i]
        _flip_into(st[nd], rot, out_pos, base + m)
        for q in range(MAX_STEPS):
            out_steps[base + m, q, 0] = out_steps[base + j, q, 0]
            out_steps[base + m, q, 1] = out_steps[base + j, q, 1]
        m += 1
    return m


@njit(cache=True)
def _generate_chunk(boards, dice, rules, start, out_pos, out_steps, offsets, zob, tables):
    """Generate for inputs ``start, start+1, ...`` until the buffers are full; returns the inputs done."""
    st = np.empty((5, VSLOTS), dtype=np.int8)
    fr = np.empty((5, 26), dtype=np.int8)
    nexts = np.empty(5, dtype=np.int64)
    src = np.empty(MAX_STEPS, dtype=np.int64)
    ds = np.empty(MAX_STEPS, dtype=np.int64)
    vstamp, vkey, rstamp, rrow, rlen, rdie = tables[0], tables[1], tables[2], tables[3], tables[4], tables[5]
    cap = out_pos.shape[0]
    total = 0
    offsets[0] = 0
    k = 0
    for i in range(start, boards.shape[0]):
        tables[6, 0] += 1
        n = _gen_roll(
            boards[i],
            dice[i, 0],
            dice[i, 1],
            rules,
            zob,
            out_pos,
            out_steps,
            total,
            cap,
            st,
            fr,
            nexts,
            src,
            ds,
            vstamp,
            vkey,
            rstamp,
            rrow,
            rlen,
            rdie,
            tables[6, 0],
        )
        if n < 0:
            break
        total += n
        k += 1
        offsets[k] = total
    return k


class VariantGenerator:
    """Batched move generation for variants, into buffers allocated once (as ``MoveGenerator``)."""

    def __init__(self, capacity: int = 1 << 15) -> None:
        self.positions = np.empty((capacity, VSLOTS), dtype=np.int8)
        self.steps = np.empty((capacity, MAX_STEPS, 2), dtype=np.int8)
        self._offsets = np.empty(0, dtype=np.int64)
        # visited stamp/key, result stamp/row, result length/die, and the stamp counter
        self._tables = np.zeros((7, _TABLE + 1), dtype=np.int64)

    def chunks(self, boards: np.ndarray, dice: np.ndarray, rules: np.ndarray):
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, VSLOTS)
        dice = np.ascontiguousarray(dice, dtype=np.int64).reshape(-1, 2)
        if len(boards) != len(dice):
            raise ValueError(f"{len(boards)} boards but {len(dice)} rolls")
        if len(self._offsets) < len(boards) + 1:
            self._offsets = np.empty(len(boards) + 1, dtype=np.int64)
        lo = 0
        while lo < len(boards):
            k = _generate_chunk(
                boards, dice, rules, lo, self.positions, self.steps, self._offsets, _ZOB, self._tables
            )
            if k == 0:
                raise RuntimeError(f"one roll has more results than the buffer holds ({len(self.positions)})")
            total = self._offsets[k]
            yield lo, lo + k, self._offsets[: k + 1], self.positions[:total], self.steps[:total]
            lo += k


_default = VariantGenerator()


def generate(boards: np.ndarray, dice: np.ndarray, rules: np.ndarray) -> MoveBatch:
    """Legal results of ``dice[i]`` for variant boards ``boards[i]`` under ``rules`` (the general kernel)."""
    boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, VSLOTS)
    dice = np.ascontiguousarray(dice, dtype=np.int64).reshape(-1, 2)
    return collect(_default.chunks(boards, dice, rules), boards, dice, VSLOTS)


@njit(cache=True)
def _first_rows(keys, positions, zob):
    """Indices of the first row of each distinct (keys, position) pair, in order.

    An open-addressing table keyed by a Zobrist hash, with a full comparison:
    linear in the rows (1-2 turns of acey-deucey have 10^4..10^6 of them).
    """
    n = positions.shape[0]
    size = 2
    while size < 2 * n:
        size *= 2
    mask = size - 1
    table = np.full(size, -1, dtype=np.int64)
    out = np.empty(n, dtype=np.int64)
    m = 0
    for r in range(n):
        h = 0
        for i in range(VSLOTS):
            if positions[r, i] != 0:
                h ^= zob[i, positions[r, i] + 24]
        for j in range(keys.shape[1]):
            x = keys[r, j] * -7046029254386353131 + j  # splitmix64's steps, wrapping
            x = (x ^ (x >> 31)) * -4658895280553007687
            h ^= x ^ (x >> 29)
        slot = h & mask
        while True:
            t = table[slot]
            if t < 0:
                table[slot] = r
                out[m] = r
                m += 1
                break
            same = True
            for j in range(keys.shape[1]):
                if keys[t, j] != keys[r, j]:
                    same = False
                    break
            if same:
                for i in range(VSLOTS):
                    if positions[t, i] != positions[r, i]:
                        same = False
                        break
            if same:
                break
            slot = (slot + 1) & mask
    return out[:m]


def _first_unique(keys: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Indices of the first row of each distinct (keys, position) pair, in order (keys: (n, k) ints)."""
    keys = np.ascontiguousarray(keys, dtype=np.int64).reshape(len(positions), keys.shape[1])
    return _first_rows(keys, np.ascontiguousarray(positions, dtype=np.int8), _ZOB)


def _best_per_input(rows: np.ndarray, inputs: np.ndarray, score: np.ndarray, keep: int) -> np.ndarray:
    """The ``keep`` highest-scored of ``rows`` for each input (``inputs`` ascending), in their order."""
    order = np.lexsort((-np.asarray(score, dtype=np.float64), inputs))
    ranked = inputs[order]
    first = np.searchsorted(ranked, ranked, side="left")
    chosen = order[np.arange(len(order)) - first < keep]
    return rows[np.sort(chosen)]


@njit(cache=True)
def _flip_rows(boards, rotate):
    """:meth:`Variant.flip` of (n, 52) boards, compiled (the 1-2 turns flip 10^5 rows and more)."""
    out = np.empty_like(boards)
    for r in range(boards.shape[0]):
        _flip_into(boards[r], rotate, out, r)
    return out


def widen(boards: np.ndarray) -> np.ndarray:
    """Backgammon boards (..., 26) as variant boards (..., 52)."""
    boards = np.asarray(boards, dtype=np.int8)
    out = np.zeros(boards.shape[:-1] + (VSLOTS,), dtype=np.int8)
    out[..., :NUM_SLOTS] = boards
    return out


def _rules(**kw: int) -> np.ndarray:
    r = np.zeros(NUM_RULES, dtype=np.int64)
    r[R_CAPTURE] = CAPTURE_HIT
    r[R_BLOCK] = 2
    r[R_FORCED] = 1
    names = {
        "rotate": R_ROTATE,
        "capture": R_CAPTURE,
        "block": R_BLOCK,
        "forced": R_FORCED,
        "no_hit_run": R_NO_HIT_RUN,
        "first_pass": R_FIRST_PASS,
        "quarter": R_QUARTER,
        "prime": R_PRIME,
        "head": R_HEAD,
        "enter": R_ENTER,
        "enter_all": R_ENTER_ALL,
        "acey": R_ACEY,
    }
    for k, v in kw.items():
        r[names[k]] = v
    r.setflags(write=False)
    return r


def _start(ours: dict[int, int], theirs: dict[int, int], rotate: bool) -> np.ndarray:
    """A variant board from each side's own point numbers."""
    b = np.zeros(VSLOTS, dtype=np.int8)
    for p, n in ours.items():
        b[p] += n
    for p, n in theirs.items():
        q = (p + 11) % 24 + 1 if rotate else 25 - p
        b[q] -= n
    b.setflags(write=False)
    return b


@dataclass(frozen=True)
class Variant:
    """One game's rules as data (see the module docstring and ``docs/variants.md``).

    ``name`` is the game (``backgammon``, ``nackgammon``, ``portes``,
    ``tavla``, ``plakoto``, ``fevga``, ``long-nardy``, ``acey-deucey``);
    ``house`` the house rules on top of it (``no-cube``, ``no-forced-max``,
    and acey-deucey's ``enter-all`` and ``european-1-2``).  ``opening``: ``"play"`` (the
    opening roll's winner plays those two dice; ties rolled again) or
    ``"reroll"`` (the winner rolls again for the first turn, so doubles can
    open).  ``max_result``: 3 when backgammons count, else 2.  ``mother``:
    plakoto's rule on a pinned starting checker.
    """

    name: str
    rules: np.ndarray = field(repr=False, compare=False)
    start: np.ndarray = field(repr=False, compare=False)
    opening: str = "play"
    cube: bool = False
    max_result: int = 3
    mother: bool = False
    house: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """The name with its house rules, as typed after ``--variant``."""
        return "+".join((self.name, *self.house))

    @property
    def rotate(self) -> bool:
        return bool(self.rules[R_ROTATE])

    @property
    def standard(self) -> bool:
        """Whether :mod:`bgnet.movegen` (26-slot boards, forced play, hitting) plays this game's moves."""
        r = self.rules
        return (
            r[R_ROTATE] == 0
            and r[R_CAPTURE] == CAPTURE_HIT
            and r[R_BLOCK] == 2
            and r[R_FORCED] == 1
            and not r[R_NO_HIT_RUN]
            and not r[R_FIRST_PASS]
            and not r[R_QUARTER]
            and not r[R_PRIME]
            and not r[R_HEAD]
            and not r[R_ENTER]
            and not r[R_ENTER_ALL]
            and not r[R_ACEY]
        )

    def generate(
        self,
        boards: np.ndarray,
        dice: np.ndarray,
        narrow: Callable[[np.ndarray], np.ndarray] | None = None,
        keep: int = NARROW_KEEP,
    ) -> MoveBatch:
        """Legal whole turns of variant boards (N, 52) and dice (N, 2).

        Results are seen by the side on roll next: the opponent (flipped),
        or the mover itself when it rolls again (``again``, acey-deucey's 1-2).

        ``narrow`` (a bot's shortcut for acey-deucey's 1-2, whose whole turns
        run to tens of thousands): a scorer of boards (M, 52) for their side
        on roll (higher is better).  A 1-2 then goes on to its doubles from
        only the ``keep`` best positions after its 1 and 2 (scored as the
        mover still on roll), so the answer is a subset of the legal turns;
        without it, all of them.
        """
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, VSLOTS)
        dice = np.ascontiguousarray(dice, dtype=np.int64).reshape(-1, 2)
        if not self.standard:
            batch = generate(boards, dice, self.rules)
            return batch if self.rules[R_ACEY] == ACEY_NONE else self._whole_turns(batch, narrow, keep)
        batch = standard_generate(boards[:, :NUM_SLOTS], dice)
        return MoveBatch(batch.offsets, widen(batch.positions), batch.steps, boards, dice)

    def _whole_turns(
        self,
        batch: MoveBatch,
        narrow: Callable[[np.ndarray], np.ndarray] | None = None,
        best: int = NARROW_KEEP,
    ) -> MoveBatch:
        """``batch`` (the kernel's results of single rolls) with every 1-2 played out as a whole turn.

        After a 1-2 played in full, each double d in 1..6 is played from the
        result (and, European, its complement 7 - d after four d's): one kernel
        call per stage for the whole batch.  Every row of the answer carries its
        double (0: none) and whether the mover rolls again (all steps played,
        and the game not over); rows of other rolls pass through.  A row's place
        is kept by sorting the pieces on (kernel row, double, later rows), so
        the inputs' rows stay in order.
        """
        boards, dice = batch.boards, batch.dice
        assert boards is not None and dice is not None
        sizes = np.diff(batch.offsets)
        row_input = np.repeat(np.arange(len(sizes)), sizes)
        one_two = np.repeat((dice.min(1) == 1) & (dice.max(1) == 2), sizes)
        cont = one_two & ((batch.steps[:, :, 0] >= 0).sum(1) == 2)
        steps = np.full((len(batch.positions), VMAX_STEPS, 2), -1, np.int8)
        steps[:, :MAX_STEPS] = batch.steps
        # The pieces of the answer: (kernel row, double, stage-2 row, stage-3 row, position, steps, again).
        pieces: list[tuple[np.ndarray, ...]] = []

        def add(a, d, c, e, positions, st, again):
            n = len(a)
            pieces.append(
                tuple(np.broadcast_to(x, n) for x in (a, d, c, e))
                + (positions, st, np.broadcast_to(again, n))
            )

        def rolled_again(a, d, c, e, positions, st):
            """Rows with every step played: seen by the mover, who rolls again, unless it has won."""
            # Seen by the opponent, the mover's checkers are the negative ones (no pins in this game).
            over = ~((positions[:, :THEIR_WAITING] < 0).any(1) | (positions[:, THEIR_WAITING] < 0))
            add(a[over], d[over], c[over], e[over], positions[over], st[over], False)
            live = ~over
            add(a[live], d[live], c[live], e[live], _flip_rows(positions[live], rot), st[live], True)

        def played_all(st):
            return (st[:, :, 0] >= 0).sum(1) == MAX_STEPS

        european = self.rules[R_ACEY] == ACEY_EUROPEAN
        rot = self.rules[R_ROTATE]
        keep = ~cont
        add(np.flatnonzero(keep), 0, -1, -1, batch.positions[keep], steps[keep], False)
        # Stage 2: every double from every 1-2 played in full (or from the ``keep`` best, narrowed).
        a_rows = np.flatnonzero(cont)
        if narrow is not None and len(a_rows):
            score = narrow(_flip_rows(batch.positions[a_rows], rot))
            a_rows = _best_per_input(a_rows, row_input[a_rows], score, best)
        src = np.repeat(a_rows, 6)
        d = np.tile(np.arange(1, 7), len(a_rows))
        b = generate(
            np.repeat(_flip_rows(batch.positions[a_rows], rot), 6, 0), np.stack([d, d], 1), self.rules
        )
        bsizes = np.diff(b.offsets)
        none = bsizes == 0  # the chosen double cannot be played: the turn ends after the 1-2
        add(src[none], d[none], -1, -1, batch.positions[src[none]], steps[src[none]], False)
        b_in = np.repeat(np.arange(len(src)), bsizes)
        full = played_all(b.steps)
        # Each stage drops its repeated results before anything is copied (the kernel rows' order
        # is the answer's order, so the first of each is the one the final pass keeps); a
        # European double played in full goes on with its complement, so its double is kept apart.
        group = np.where(full, d[b_in], 0) if european else full
        kb = _first_unique(np.stack([row_input[src[b_in]], group], 1), b.positions)
        b_a, b_d, full, b_pos = src[b_in[kb]], d[b_in[kb]], full[kb], b.positions[kb]
        b_steps = steps[b_a]
        b_steps[:, 2 : 2 + MAX_STEPS] = b.steps[kb]
        part = ~full
        add(b_a[part], b_d[part], kb[part], -1, b_pos[part], b_steps[part], False)
        if not european:
            rolled_again(
                b_a[full], b_d[full], kb[full], np.full(int(full.sum()), -1), b_pos[full], b_steps[full]
            )
        else:
            # Stage 3 (European): the complement 7 - d after four d's.
            f = np.flatnonzero(full)
            c_d = 7 - b_d[f]
            c = generate(_flip_rows(b_pos[f], rot), np.stack([c_d, c_d], 1), self.rules)
            csizes = np.diff(c.offsets)
            g = f[csizes == 0]
            add(b_a[g], b_d[g], kb[g], -1, b_pos[g], b_steps[g], False)
            c_in = np.repeat(np.arange(len(f)), csizes)
            full = played_all(c.steps)
            kc = _first_unique(np.stack([row_input[b_a[f[c_in]]], full], 1), c.positions)
            g, full, c_pos = f[c_in[kc]], full[kc], c.positions[kc]
            c_steps = b_steps[g]
            c_steps[:, 2 + MAX_STEPS :] = c.steps[kc]
            part = ~full
            add(b_a[g][part], b_d[g][part], kb[g][part], kc[part], c_pos[part], c_steps[part], False)
            rolled_again(b_a[g][full], b_d[g][full], kb[g][full], kc[full], c_pos[full], c_steps[full])
        a, dd, cc, ee, positions, st, again = (np.concatenate(x) for x in zip(*pieces, strict=True))
        order = np.lexsort((ee, cc, dd, a))
        inputs = row_input[a[order]]
        order = order[_first_unique(np.stack([inputs, again[order]], 1), positions[order])]
        offsets = np.concatenate(([0], np.cumsum(np.bincount(row_input[a[order]], minlength=len(sizes)))))
        return MoveBatch(
            offsets.astype(np.int64),
            positions[order],
            st[order],
            boards,
            dice,
            dd[order].astype(np.int8),
            again[order].astype(bool),
        )

    def flip(self, boards: np.ndarray) -> np.ndarray:
        """The same positions seen by the other side (works on (..., 52) arrays)."""
        b = np.asarray(boards, dtype=np.int8)
        out = np.empty_like(b)
        q = np.arange(1, 25)
        r = (q + 11) % 24 + 1 if self.rotate else 25 - q
        out[..., q] = -b[..., r]
        out[..., PIN + q] = -b[..., PIN + r]
        out[..., 0] = -b[..., 25]
        out[..., 25] = -b[..., 0]
        out[..., OUR_WAITING] = -b[..., THEIR_WAITING]
        out[..., THEIR_WAITING] = -b[..., OUR_WAITING]
        return out

    def with_house(self, rule: str) -> Variant:
        """This game with a house rule added (one of :data:`HOUSE_RULES`; acey-deucey's only for it)."""
        if rule in self.house:
            return self
        if rule == "no-cube":
            return replace(self, cube=False, house=(*self.house, rule))
        if rule == "no-forced-max":
            rules = self.rules.copy()
            rules[R_FORCED] = 0
            rules.setflags(write=False)
            return replace(self, rules=rules, house=(*self.house, rule))
        if rule in ("enter-all", "european-1-2"):
            flag, value = (R_ENTER_ALL, 1) if rule == "enter-all" else (R_ACEY, ACEY_EUROPEAN)
            if not self.rules[R_ENTER if rule == "enter-all" else R_ACEY]:
                raise InvalidPositionError(f"house rule {rule!r} is for acey-deucey, not {self.name}")
            rules = self.rules.copy()
            rules[flag] = value
            rules.setflags(write=False)
            return replace(self, rules=rules, house=(*self.house, rule))
        raise InvalidPositionError(f"unknown house rule {rule!r}; known: {', '.join(HOUSE_RULES)}")

    # -- results -------------------------------------------------------------

    def checkers(self, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Checkers still in play (not borne off) of the side on roll and of the other, per board."""
        b = np.asarray(boards, dtype=np.int32).reshape(-1, VSLOTS)
        main = b[:, :26]
        pins = b[:, PIN + 1 : PIN + 25]
        ours = np.where(main > 0, main, 0).sum(1) + (pins > 0).sum(1) + b[:, OUR_WAITING]
        theirs = np.where(main < 0, -main, 0).sum(1) + (pins < 0).sum(1) - b[:, THEIR_WAITING]
        return ours, theirs

    def result(self, board: np.ndarray) -> int | None:
        """The end of a game after a move, from ``board`` (seen by the side now on roll).

        None while the game goes on; otherwise the points won by the side that
        just moved (0: a draw).
        """
        b = np.asarray(board, dtype=np.int32)
        ours, theirs = (int(x[0]) for x in self.checkers(b))
        if theirs == 0:  # the mover bore off its last checker; we (on roll) lost
            if ours < 15:
                return 1
            if self.max_result >= 3 and ((b[19:26] > 0).any() or b[OUR_WAITING] > 0):
                return 3
            return 2
        if self.mother:
            # Seen by us (on roll): our start is 24, the mover's is 1.
            mover_mother_pinned = b[PIN + 1] < 0
            our_mother_pinned = b[PIN + 24] > 0
            mover_at_home = b[1] < 0 or mover_mother_pinned
            if our_mother_pinned and mover_mother_pinned:
                return 0
            if our_mother_pinned and not mover_at_home:
                return 2
        return None


HOUSE_RULES = ("no-cube", "no-forced-max", "enter-all", "european-1-2")

_BG = np.concatenate([STARTING.board, np.zeros(VSLOTS - NUM_SLOTS, np.int8)])
_NACK = np.concatenate([NACKGAMMON.board, np.zeros(VSLOTS - NUM_SLOTS, np.int8)])

_ACEY = np.zeros(VSLOTS, np.int8)
_ACEY[OUR_WAITING], _ACEY[THEIR_WAITING] = 15, -15

VARIANTS: dict[str, Variant] = {
    "backgammon": Variant("backgammon", _rules(), _BG, cube=True),
    "nackgammon": Variant("nackgammon", _rules(), _NACK, cube=True),
    "portes": Variant("portes", _rules(), _BG, max_result=2),
    "tavla": Variant("tavla", _rules(no_hit_run=1), _BG, opening="reroll", max_result=2),
    "plakoto": Variant(
        "plakoto",
        _rules(capture=CAPTURE_PIN),
        _start({24: 15}, {24: 15}, False),
        opening="reroll",
        max_result=2,
        mother=True,
    ),
    "fevga": Variant(
        "fevga",
        _rules(rotate=1, capture=CAPTURE_NONE, block=1, first_pass=1, quarter=1, prime=1),
        _start({24: 15}, {24: 15}, True),
        opening="reroll",
        max_result=2,
    ),
    "long-nardy": Variant(
        "long-nardy",
        _rules(rotate=1, capture=CAPTURE_NONE, block=1, prime=1, head=1),
        _start({24: 15}, {24: 15}, True),
        opening="reroll",
        max_result=2,
    ),
    "acey-deucey": Variant("acey-deucey", _rules(enter=1, acey=ACEY_AMERICAN), _ACEY),
}
for _v in VARIANTS.values():
    _v.start.setflags(write=False)

TAVLI = ("portes", "plakoto", "fevga")
"""A tavli match: these three games in turn."""


def variant(label: str) -> Variant:
    """The variant named ``label``: a game and any house rules (``backgammon+no-cube+no-forced-max``)."""
    name, *house = label.strip().lower().split("+")
    if name not in VARIANTS:
        raise InvalidPositionError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}")
    v = VARIANTS[name]
    for rule in house:
        v = v.with_house(rule)
    return v
