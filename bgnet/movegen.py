"""Legal move generation: the distinct positions a roll can reach.

This is the hot loop of everything else, compiled with Numba
(``NUMBA_DISABLE_JIT=1`` runs the same code as plain Python for debugging).

Input boards use the convention of :mod:`bgnet.position`: int8, 26 slots,
seen from the player on roll.  **Every resulting position is returned seen
by the opponent, who is now on roll** (already flipped), ready to be
evaluated or played from.  Each result also carries one canonical play that
reaches it, as up to four ``(from, to)`` steps in the mover's numbering
(25 = bar, 0 = off, unused steps -1), in the order they are played.

Rules implemented (standard backgammon):

* checkers on the bar enter first (die ``n`` enters on our point ``25 - n``);
* a point held by two or more opposing checkers is blocked; landing on a
  single opposing checker hits it to the opponent's bar;
* bearing off only with all our checkers in our home board (1..6); a die
  bears off from its own point, a higher die from the highest occupied point;
* forced play: both dice if possible (doubles: as many as possible);
  otherwise one die, the larger if either but not both can be played;
  no legal play is a pass (zero results).

Plays that reach the same position are listed once.  Doubles are enumerated
with non-increasing sources, which reaches every position exactly once (the
steps of a double form a unique flow on each chain of points ``d`` apart);
other rolls are de-duplicated by a Zobrist hash with a full comparison.
No recursion (numba issue 6061 with ``cache=True``); the output buffers are
allocated once by :class:`MoveGenerator` and reused chunk by chunk, with a
bounds check on every write.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from bgnet.position import NUM_SLOTS, Position

MAX_STEPS = 4
_TABLE_MASK = 1023  # de-duplication table of a non-double roll (it has at most ~100 results)

_ZOBRIST = np.random.default_rng(0x6267_6E65).integers(0, 2**63, size=(NUM_SLOTS, 32), dtype=np.int64)
"""Random keys per (slot, count + 16): the hash that de-duplicates results."""


@njit(cache=True)
def _can_move(w, s, d, outside):
    """Whether our checker on ``s`` may move ``d`` pips (``w[s] > 0``, bar rule checked by caller)."""
    t = s - d
    if t >= 1:
        return w[t] >= -1
    if outside > 0:
        return False
    if t == 0:
        return True
    for p in range(s + 1, 7):
        if w[p] > 0:
            return False
    return True


@njit(cache=True)
def _apply(w, s, d):
    """Move one checker from ``s`` by ``d``; return 1 if it hit a blot."""
    w[s] -= 1
    t = s - d
    if t >= 1:
        if w[t] == -1:
            w[t] = 1
            w[0] -= 1
            return 1
        w[t] += 1
    return 0


@njit(cache=True)
def _undo(w, s, d, hit):
    w[s] += 1
    t = s - d
    if t >= 1:
        if hit:
            w[t] = -1
            w[0] += 1
        else:
            w[t] -= 1


@njit(cache=True)
def _outside_after(outside, s, d):
    if s >= 7 and s - d <= 6:
        return outside - 1
    return outside


@njit(cache=True)
def _write(w, src, dice_seq, nsteps, out_pos, out_steps, row):
    for i in range(NUM_SLOTS):
        out_pos[row, i] = -w[NUM_SLOTS - 1 - i]
    for k in range(MAX_STEPS):
        if k < nsteps:
            s = src[k]
            t = s - dice_seq[k]
            out_steps[row, k, 0] = s
            out_steps[row, k, 1] = t if t > 0 else 0
        else:
            out_steps[row, k, 0] = -1
            out_steps[row, k, 1] = -1


@njit(cache=True)
def _gen_double(w, d, out_pos, out_steps, base, cap, src, dseq, hits, nexts, outs, child, cand):
    """Results of a double ``d``; returns how many, or -1 if the buffer is full.

    A depth-first search without recursion over sources in non-increasing
    order.  ``cand`` lists the sources worth trying; ``nexts[k]`` is the
    index in it where level ``k`` goes on.  With no checker on the bar and
    four or more outside the home board no step can bear off and no point
    turns from open to blocked, so only points whose destination is open
    are listed and no further check is needed.
    """
    for k in range(MAX_STEPS):
        dseq[k] = d
    outside = 0
    for p in range(7, NUM_SLOTS):
        if w[p] > 0:
            outside += w[p]
    contact = w[25] == 0 and outside >= MAX_STEPS
    nc = 0
    for p in range(25, 0, -1):
        if not contact or (p - d >= 1 and w[p] >= -1 and w[p - d] >= -1):
            cand[nc] = p
            nc += 1
    n = 0
    maxd = 0
    k = 0
    nexts[0] = 0
    child[0] = False
    while k >= 0:
        i = nexts[k]
        if w[25] > 0:
            # Checkers on the bar (cand[0] == 25) enter before anything else moves.
            if i > 0 or not _can_move(w, 25, d, outside):
                i = nc
        else:
            while i < nc:
                s = cand[i]
                if w[s] > 0 and (contact or _can_move(w, s, d, outside)):
                    break
                i += 1
        if i < nc:
            s = cand[i]
            child[k] = True
            nexts[k] = i + 1
            src[k] = s
            outs[k] = outside
            hits[k] = _apply(w, s, d)
            outside = _outside_after(outside, s, d)
            if k == MAX_STEPS - 1:
                if maxd < MAX_STEPS:
                    maxd = MAX_STEPS
                    n = 0
                if base + n >= cap:
                    return -1
                _write(w, src, dseq, MAX_STEPS, out_pos, out_steps, base + n)
                n += 1
                _undo(w, s, d, hits[k])
                outside = outs[k]
            else:
                k += 1
                nexts[k] = i
                child[k] = False
        else:
            if not child[k] and k > 0 and k >= maxd:
                if k > maxd:
                    maxd = k
                    n = 0
                if base + n >= cap:
                    return -1
                _write(w, src, dseq, k, out_pos, out_steps, base + n)
                n += 1
            k -= 1
            if k >= 0:
                _undo(w, src[k], d, hits[k])
                outside = outs[k]
    return n


@njit(cache=True)
def _hash(w, zob):
    h = 0
    for i in range(NUM_SLOTS):
        h ^= zob[i, w[i] + 16]
    return h


@njit(cache=True)
def _apply_hashed(w, s, d, h, zob):
    """:func:`_apply` that also updates the Zobrist hash ``h``; returns (hit, h)."""
    h ^= zob[s, w[s] + 16] ^ zob[s, w[s] + 15]
    t = s - d
    if t >= 1:
        h ^= zob[t, w[t] + 16]
        if w[t] == -1:
            h ^= zob[t, 17] ^ zob[0, w[0] + 16] ^ zob[0, w[0] + 15]
        else:
            h ^= zob[t, w[t] + 17]
    return _apply(w, s, d), h


@njit(cache=True)
def _gen_mixed(
    w, hi, lo, out_pos, out_steps, base, cap, src, dseq, zob, cand, hashes, table_stamp, table_row, stamp
):
    """Results of a non-double roll ``hi > lo``; returns how many, or -1 if the buffer is full.

    Both orders of the dice are tried and equal results kept once, using an
    open-addressing table keyed by the Zobrist hash (stamps avoid clearing it
    for every roll).  ``cand[k]`` lists the sources worth trying for die k.
    With no checker on the bar and two or more outside the home board (most
    contact positions) no step can bear off, and after a first step
    ``s1 -> t1`` the legal sources of the other die are those of the original
    position (no point turns from open to blocked) plus ``t1`` if it is newly
    ours, so only the original legal sources are listed; and a low-die-first
    play that moves two different checkers is also a high-die-first play.
    """
    outside = 0
    for p in range(7, NUM_SLOTS):
        if w[p] > 0:
            outside += w[p]
    contact = w[25] == 0 and outside >= 2
    nhi = 0
    nlo = 0
    if w[25] > 0:
        cand[0, 0] = 25
        cand[1, 0] = 25
        nhi = 1
        nlo = 1
    for p in range(24, 0, -1):
        if w[p] > 0:
            if not contact or (p - hi >= 1 and w[p - hi] >= -1):
                cand[0, nhi] = p
                nhi += 1
            if not contact or (p - lo >= 1 and w[p - lo] >= -1):
                cand[1, nlo] = p
                nlo += 1
    h0 = _hash(w, zob)
    n = 0
    can_hi = False
    can_lo = False
    for k in range(2):
        d1 = hi if k == 0 else lo
        d2 = lo if k == 0 else hi
        dseq[0] = d1
        dseq[1] = d2
        for a in range(nhi if k == 0 else nlo):
            s1 = cand[k, a]
            if (w[25] > 0) != (s1 == 25) or not _can_move(w, s1, d1, outside):
                continue
            if k == 0:
                can_hi = True
            else:
                can_lo = True
            t1 = s1 - d1
            fresh = t1 >= 1 and w[t1] <= 0  # a point we newly occupy is a new source
            hit1, h1 = _apply_hashed(w, s1, d1, h0, zob)
            out1 = _outside_after(outside, s1, d1)
            src[0] = s1
            # In contact, a low-die-first play whose second step moves another
            # checker is the same position as a high-first play (the swap is
            # legal), so only the same checker going on is new.
            last = 0 if contact and k == 1 else (nlo if k == 0 else nhi)
            for b in range(-1, last):
                s2 = t1 if b < 0 else cand[1 - k, b]
                if b < 0 and not fresh:
                    continue
                if w[s2] <= 0 or (w[25] > 0 and s2 != 25) or not _can_move(w, s2, d2, out1):
                    continue
                hit2, h = _apply_hashed(w, s2, d2, h1, zob)
                src[1] = s2
                slot = h & _TABLE_MASK
                dup = False
                while table_stamp[slot] == stamp:
                    j = table_row[slot]
                    if hashes[j] == h:
                        dup = True
                        for i in range(NUM_SLOTS):
                            if out_pos[base + j, i] != -w[NUM_SLOTS - 1 - i]:
                                dup = False
                                break
                        if dup:
                            break
                    slot = (slot + 1) & _TABLE_MASK
                if not dup:
                    if base + n >= cap or n >= _TABLE_MASK // 2:
                        return -1
                    hashes[n] = h
                    table_stamp[slot] = stamp
                    table_row[slot] = n
                    _write(w, src, dseq, 2, out_pos, out_steps, base + n)
                    n += 1
                _undo(w, s2, d2, hit2)
            _undo(w, s1, d1, hit1)
    if n != 0 or not (can_hi or can_lo):
        return n
    # Only one die can be played: the larger if it can be, else the smaller.
    d = hi if can_hi else lo
    dseq[0] = d
    for s in range(25, 0, -1):
        if w[s] <= 0 or (w[25] > 0 and s != 25) or not _can_move(w, s, d, outside):
            continue
        hit = _apply(w, s, d)
        src[0] = s
        if base + n >= cap:
            return -1
        _write(w, src, dseq, 1, out_pos, out_steps, base + n)
        n += 1
        _undo(w, s, d, hit)
    return n


@njit(cache=True)
def _generate_chunk(boards, dice, start, out_pos, out_steps, offsets, zob):
    """Generate for inputs ``start, start+1, ...`` until the buffers are full.

    Writes ``offsets[0..k]`` (relative to the chunk) and returns ``k``, the
    number of inputs done.
    """
    w = np.empty(NUM_SLOTS, dtype=np.int8)
    src = np.empty(MAX_STEPS, dtype=np.int64)
    dseq = np.empty(MAX_STEPS, dtype=np.int64)
    hits = np.empty(MAX_STEPS, dtype=np.int64)
    nexts = np.empty(MAX_STEPS, dtype=np.int64)
    outs = np.empty(MAX_STEPS, dtype=np.int64)
    child = np.empty(MAX_STEPS, dtype=np.bool_)
    hashes = np.empty(_TABLE_MASK + 1, dtype=np.int64)
    table_row = np.empty(_TABLE_MASK + 1, dtype=np.int64)
    table_stamp = np.zeros(_TABLE_MASK + 1, dtype=np.int64)
    cand = np.empty((2, NUM_SLOTS), dtype=np.int64)
    cap = out_pos.shape[0]
    total = 0
    offsets[0] = 0
    k = 0
    for i in range(start, boards.shape[0]):
        for j in range(NUM_SLOTS):
            w[j] = boards[i, j]
        a = dice[i, 0]
        b = dice[i, 1]
        if a == b:
            n = _gen_double(
                w, a, out_pos, out_steps, total, cap, src, dseq, hits, nexts, outs, child, cand[0]
            )
        else:
            n = _gen_mixed(
                w,
                max(a, b),
                min(a, b),
                out_pos,
                out_steps,
                total,
                cap,
                src,
                dseq,
                zob,
                cand,
                hashes,
                table_stamp,
                table_row,
                i + 1,
            )
        if n < 0:
            break
        total += n
        k += 1
        offsets[k] = total
    return k


class MoveGenerator:
    """Batched move generation into buffers allocated once and reused.

    >>> gen = MoveGenerator()
    >>> for lo, hi, offsets, positions, steps in gen.chunks(boards, dice):  # doctest: +SKIP
    ...     ...  # inputs lo:hi; their results are positions[offsets[i-lo]:offsets[i-lo+1]]

    The arrays yielded by :meth:`chunks` are views into the buffers, valid
    until the next chunk.
    """

    def __init__(self, capacity: int = 1 << 16) -> None:
        self.positions = np.empty((capacity, NUM_SLOTS), dtype=np.int8)
        self.steps = np.empty((capacity, MAX_STEPS, 2), dtype=np.int8)
        self._offsets = np.empty(0, dtype=np.int64)

    def chunks(self, boards: np.ndarray, dice: np.ndarray):
        """Yield ``(lo, hi, offsets, positions, steps)`` chunk by chunk."""
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, NUM_SLOTS)
        dice = np.ascontiguousarray(dice, dtype=np.int64).reshape(-1, 2)
        if len(boards) != len(dice):
            raise ValueError(f"{len(boards)} boards but {len(dice)} rolls")
        if len(self._offsets) < len(boards) + 1:
            self._offsets = np.empty(len(boards) + 1, dtype=np.int64)
        lo = 0
        while lo < len(boards):
            k = _generate_chunk(boards, dice, lo, self.positions, self.steps, self._offsets, _ZOBRIST)
            if k == 0:
                raise RuntimeError(f"one roll has more results than the buffer holds ({len(self.positions)})")
            total = self._offsets[k]
            yield lo, lo + k, self._offsets[: k + 1], self.positions[:total], self.steps[:total]
            lo += k


@dataclass(frozen=True)
class MoveBatch:
    """The legal results of a batch of rolls, with the inputs they came from.

    The results of input ``i`` are rows ``offsets[i]:offsets[i+1]`` of
    ``positions`` (seen by the opponent, now on roll) and ``steps`` (one
    canonical play per result: up to four ``(from, to)`` steps in the mover's
    numbering, unused steps -1).  ``boards[i]`` is input ``i``'s position
    before the move (from the mover) and ``dice[i]`` its roll; :func:`generate`
    fills them, a batch built by hand from buffers may leave them None.

    ``doubles`` and ``again`` (None in every game but acey-deucey) describe
    whole turns with a choice inside (:meth:`bgnet.variants.Variant.generate`):
    per row the double chosen after a 1-2 (0: none) and whether the mover
    rolls again (its result is then seen by the mover, not flipped); such
    batches have more step columns (unused -1).

    :meth:`steps_of` turns a row into its steps and :meth:`input_of` into its
    input; :func:`bgnet.notation.play_of` makes the :class:`Play` of a row
    (with its gnubg notation, which belongs to the formats layer).
    """

    offsets: np.ndarray
    positions: np.ndarray
    steps: np.ndarray
    boards: np.ndarray | None = None
    dice: np.ndarray | None = None
    doubles: np.ndarray | None = None
    again: np.ndarray | None = None

    def __len__(self) -> int:
        """The number of inputs (rolls)."""
        return len(self.offsets) - 1

    def rows(self, i: int) -> range:
        """The rows of input ``i``'s results (empty when it has no legal play)."""
        return range(int(self.offsets[i]), int(self.offsets[i + 1]))

    def steps_of(self, row: int) -> tuple[tuple[int, int], ...]:
        """The play of result ``row`` as ``(from, to)`` steps, in the order played."""
        return tuple((int(f), int(t)) for f, t in self.steps[row] if f >= 0)

    def input_of(self, row: int) -> int:
        """The input whose roll produced result ``row``."""
        return int(np.searchsorted(self.offsets, row, side="right")) - 1

    def select(self, keep: np.ndarray) -> tuple[MoveBatch, np.ndarray]:
        """The inputs ``keep`` (a mask over inputs) as a batch, and the map from its rows to this one's."""
        keep = np.asarray(keep, dtype=bool)
        sizes = np.diff(self.offsets)[keep]
        starts = self.offsets[:-1][keep]
        offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        rows = np.repeat(starts - offsets[:-1], sizes) + np.arange(offsets[-1])
        sub = MoveBatch(
            offsets,
            self.positions[rows],
            self.steps[rows],
            None if self.boards is None else self.boards[keep],
            None if self.dice is None else self.dice[keep],
            None if self.doubles is None else self.doubles[rows],
            None if self.again is None else self.again[rows],
        )
        return sub, rows


_default = MoveGenerator()


def collect(chunks, boards: np.ndarray, dice: np.ndarray, width: int) -> MoveBatch:
    """One :class:`MoveBatch` from a generator's ``chunks`` (copied out of its reused buffers).

    Also used by :mod:`bgnet.variants` for its own generator (``width`` 52).
    """
    offsets = [np.zeros(1, dtype=np.int64)]
    positions, steps = [], []
    base = 0
    for _lo, _hi, off, pos, st in chunks:
        offsets.append(off[1:] + base)
        positions.append(pos.copy())
        steps.append(st.copy())
        base += len(pos)
    if not positions:
        positions = [np.empty((0, width), np.int8)]
        steps = [np.empty((0, MAX_STEPS, 2), np.int8)]
    return MoveBatch(np.concatenate(offsets), np.concatenate(positions), np.concatenate(steps), boards, dice)


def generate(boards: np.ndarray, dice: np.ndarray) -> MoveBatch:
    """Legal results of ``dice[i]`` for ``boards[i]``, for every ``i``; see :class:`MoveBatch`."""
    boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, NUM_SLOTS)
    dice = np.ascontiguousarray(dice, dtype=np.int64).reshape(-1, 2)
    return collect(_default.chunks(boards, dice), boards, dice, NUM_SLOTS)


@dataclass(frozen=True)
class Play:
    """One legal play: its gnubg notation, its steps, and the result seen by the opponent.

    Made by :func:`bgnet.notation.play_of` (a row of a :class:`MoveBatch`) and
    :func:`bgnet.notation.legal_plays`; the notation is written by the formats layer.
    """

    notation: str
    steps: tuple[tuple[int, int], ...]
    position: Position
