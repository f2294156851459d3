"""Network inputs: boards turned into float32 feature vectors.

Every encoder sees the position from the side **on roll** (the convention of
:mod:`bgnet.position`); the network evaluates it for that side, so no input
says whose turn it is.  An :class:`Encoder` is a named list of
:class:`FeatureBlock` (name, width, doc); its width is the sum of the blocks'
widths and its ``version`` string is what a checkpoint stores.  Blocks named
``our_*`` describe the side on roll and ``their_*`` the opponent, computed by
the same code on the flipped board, so encoding ``flip(board)`` swaps every
``our_X`` with ``their_X`` and leaves the other blocks as they are.

``encode`` runs a Numba kernel over the batch, writing into a buffer the
caller may reuse (self-play encodes every candidate position).

TESAURO_198 (``tesauro198-v1``)
-------------------------------
The raw encoding of TD-Gammon: G. Tesauro, "Practical issues in temporal
difference learning", Machine Learning 8 (1992) 257-277, with the exact 198
units as described in R. S. Sutton and A. G. Barto, "Reinforcement Learning:
An Introduction" (1998, section 11.1; 2nd ed. 2018, section 16.1): for each
side and each of the 24 points four units (``n >= 1``, ``n >= 2``,
``n >= 3``, ``(n - 3) / 2`` when ``n > 3``), the checkers on the bar ``/ 2``
and borne off ``/ 15`` for each side, and two units for the side to move.
The publications give no index order; ours is side-major:

=================  ===========================================================
index              unit
=================  ===========================================================
``4(p-1) + k``     our checkers ``n`` on our point ``p`` (1..24, slot ``p``):
                   ``k=0``: ``n>=1``; ``k=1``: ``n>=2``; ``k=2``: ``n>=3``;
                   ``k=3``: ``(n-3)/2`` if ``n>3`` else 0  (0..95)
96                 our checkers on the bar / 2
97                 our checkers borne off / 15
``98 + 4(p-1)+k``  the opponent's checkers on *their* point ``p`` (their
                   numbering: our slot ``25 - p``), same four units (98..193)
194                the opponent's checkers on the bar / 2
195                the opponent's checkers borne off / 15
196                turn unit of the first side ("us"): always 1, we are on roll
197                turn unit of the second side: always 0
=================  ===========================================================

The two turn units are constant in our convention (they act as a bias); they
are kept so that the layout is Tesauro's, unit for unit.  Values lie in
``[0, 7.5]`` (``(15 - 3) / 2 = 6`` on a point, ``15 / 2`` on the bar).

EXTENDED (``extended-v1``)
--------------------------
Indices 0..197 are TESAURO_198 exactly; then ``race`` (198) and, from 199,
thirteen units for us followed by the same thirteen for the opponent
(hand-crafted features in the spirit of gnubg's ``CalculateHalfInputs``),
each scaled to about ``[0, 1]``:

{extended_table}

``race`` (1 unit, shared) is 1 when no contact is left: every checker of
ours is in front of every checker of theirs (the bars count as points 25/0).

*Exposure* is close to gnubg's ``I_P1`` (rolls that hit at least one
checker, / 36) and ``hit_loss`` to its ``I_PIPLOSS`` (gnubg adds up the
pips of every checker a roll hits and divides by 12 * 36; we charge each
roll the costliest single blot it can hit and divide by 24 * 36).  For each
of the 36 rolls we ask whether some sequence of their steps lands on one of
our blots: their checkers on the bar enter first (two or more on the bar
with a non-double: only entering hits; a double enters up to four and any
checker may play the steps left); a point we hold blocks a landing and so
an indirect shot through it; a non-double moves one checker with both dice
through either open intermediate point; a double moves one checker up to
the steps it has left.  This ignores the rule that a play must use as many
dice as possible (a hit after which the other die cannot be played is
illegal when another play uses both), so it can count a roll too many: on
the positions of ``tests/data/movegen_positions.txt`` it equals the count
from the move generator's legal plays for about 99.7% of them.  A blot 6
pips in front of a lone checker with nothing between is hit by 17 rolls
(11 sixes, 5-1, 4-2, 3-3, 2-2).  Without checkers of theirs on the bar the
count uses precomputed 36-bit roll masks per (distance, blocked points),
otherwise a roll-by-roll search.

*Escapes* are those of gnubg's ``Escapes()``: the number of the 36 rolls with
which our rearmost checker (the bar is point 25) can move the whole roll
without landing on a point they hold, looking at the 12 points in front of
it (points past our 1 point count as open) and playing a double as two steps
only.  A full prime in front gives 0, an open board 36; despite the name it
counts rolls that move the checker in full, not rolls that pass every
opposing point.  It is 36 when we have no checker left on the board.

CONTACT (``contact-v1``)
------------------------
EXTENDED's 225 units unchanged, then eighteen units for us and the same
eighteen for the opponent: gnubg's contact inputs (``CalculateHalfInputs`` of
its eval.c, the inputs of its contact and crashed networks) that EXTENDED
lacks, each describing a side against the other, scaled as gnubg scales
them:

{contact_table}

Points are counted as gnubg counts them (a side's point ``p`` is its index
``p - 1``, the bar 24), and the values follow gnubg's arithmetic, including
its integer rounding of ``moment2`` and ``backbone``'s spacing measured from
the side's rearmost point.  One departure: a side without a point or a
checker gets 0 for ``back_anchor`` and ``back_checker`` (gnubg: -1/24), so
that every unit is non-negative.  gnubg's other contact inputs are EXTENDED's
already or close to them (``escapes`` is its ``BACKESCAPES`` seen from the
other side, ``exposure`` and ``hit_loss`` its ``P1`` and ``PIPLOSS``); its
``P2`` is not here.  Because the first 225 columns are EXTENDED's, an
EXTENDED network grows into a CONTACT one with zero weights on the new
inputs (:func:`training.grow.widen_into`) and computes the same function.

RACE (``race-v1``)
-----------------
The inputs of the race network (phase networks, :mod:`bgnet.evaluator`),
after gnubg's race inputs: for each side (``our_`` then ``their_``, each in
its own numbering) 24 points of four units (``n == 1``, ``n == 2``,
``n >= 3``, ``(n - 3) / 2`` when ``n > 3``), 14 units "exactly k checkers
off" (k = 1..14), the crossovers still to make (each checker counts the
quadrants between it and its home board: 0 for points 1..6, 1 for 7..12, 2
for 13..18, 3 for 19..24) / 10, and the pip count / 100.  It is meant for
positions without contact (nobody on the bar); a checker on the bar is
counted as if on point 25 in the pips and crossovers only.

RACE_DB (``race-db-v1``)
------------------------
RACE followed by three units per side (``our_`` then ``their_``) that look
at the home board as the one-sided bearoff database (:mod:`bgnet.bearoff`)
does.  Each side's checkers outside its home board (bar included) are
counted as if on its 6 point, which gives a database position ``H``:

* ``db_rolls``: the expected number of rolls to bear off all checkers of
  ``H`` / 10 (a checker on the 6 point counts once, however far it is);
* ``db_first``: with no checker off, the expected rolls to bear off the
  first checker of ``H`` / 10 (what decides gammons), else 0;
* ``outside_pips``: the pips still to go to the 6 point of the checkers
  outside the home board / 40 (at most 7.1).

``10 * db_rolls + 40 * outside_pips / 8.2`` is a rough count of the rolls
still needed (8.2 pips a roll); the network learns how the stragglers and
the home board's shape interact.  The database is loaded (or built once, about 10 s) on the
first encode.  Its first 224 columns are RACE's, so a RACE network grows
into a RACE_DB one with zero weights on the new inputs
(:func:`training.grow.widen_into`) and computes the same function.

VARIANT (``variant-v1``) and VARIANT_ROTATE (``variant-rotate-v1``)
--------------------------------------------------------------------
The inputs of the variant networks (:mod:`bgnet.variants`: portes, tavla,
plakoto, fevga, ...), over 52-slot variant boards seen from the side on
roll.  One declaration of blocks for both; they differ only in how the
opponent's view is made (the opponent's own numbering): a reversal for the
games where the sides move in opposite directions (``variant``), a rotation
by 12 points for fevga (``variant-rotate``; :meth:`bgnet.variants.Variant.flip`).
A network is trained for one game, so the game is not an input.  For each
side, in its own numbering:

{variant_table}

Speed (one core, ``_bench`` in ``tests/test_encoding.py``): about 7 million
positions per second for TESAURO_198 and 0.7-0.9 million for EXTENDED.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from bgnet.bearoff import BINOM, FULL_BASE, OneSidedBearoff
from bgnet.errors import BgnetError
from bgnet.position import CHECKERS, NUM_SLOTS
from bgnet.variants import OUR_WAITING, PIN, THEIR_WAITING, VSLOTS

__all__ = [
    "CONTACT",
    "ENCODERS",
    "EXTENDED",
    "RACE",
    "TESAURO_198",
    "VARIANT",
    "VARIANT_ENCODERS",
    "VARIANT_ROTATE",
    "Encoder",
    "FeatureBlock",
    "UnknownEncoderError",
    "get_encoder",
    "variant_encoder",
]


class UnknownEncoderError(BgnetError):
    """An encoder name that is not in :data:`ENCODERS`."""


@dataclass(frozen=True)
class FeatureBlock:
    """A named run of ``width`` consecutive inputs."""

    name: str
    width: int
    doc: str


@dataclass(frozen=True)
class Encoder:
    """A board -> float32 vector mapping made of named blocks.

    ``encode(boards)`` takes an ``(N, slots)`` int8 array (or one ``(slots,)``
    board, giving one row) and returns ``(N, width)`` float32; ``slots`` is 26
    (backgammon boards) or 52 (variant boards, :data:`bgnet.variants.VSLOTS`).  With ``out``
    (float32, ``width`` columns, at least ``N`` rows, C-contiguous) the rows
    are written there and ``out[:N]`` is returned, so one buffer can serve
    batches of any size up to its length.
    """

    name: str
    version: str
    blocks: tuple[FeatureBlock, ...]
    kernel: Callable[[np.ndarray, np.ndarray], None] = field(repr=False, compare=False)
    slots: int = NUM_SLOTS
    extends: str = ""
    """The encoder (by name) whose columns are this one's first columns, unchanged; empty: none."""
    width: int = field(init=False)

    def __post_init__(self) -> None:
        names = [b.name for b in self.blocks]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate block names in encoder {self.name}")
        object.__setattr__(self, "width", sum(b.width for b in self.blocks))

    def slices(self) -> dict[str, slice]:
        """The columns of each block, by name, in order."""
        out, start = {}, 0
        for b in self.blocks:
            out[b.name] = slice(start, start + b.width)
            start += b.width
        return out

    def layout(self) -> str:
        """A text table of the blocks: columns, name, doc."""
        lines = []
        for b, s in zip(self.blocks, self.slices().values(), strict=True):
            cols = f"{s.start}" if b.width == 1 else f"{s.start}..{s.stop - 1}"
            lines.append(f"{cols:>9}  {b.name:<18} {b.doc}")
        return "\n".join(lines)

    def encode(self, boards: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Encode boards seen from the side on roll; see the class docstring."""
        boards = np.asarray(boards)
        if boards.ndim == 1:
            boards = boards[None, :]
        if boards.ndim != 2 or boards.shape[1] != self.slots:
            raise ValueError(f"boards must have shape (N, {self.slots}), got {boards.shape}")
        boards = np.ascontiguousarray(boards, dtype=np.int8)
        n = boards.shape[0]
        if out is None:
            out = np.empty((n, self.width), dtype=np.float32)
        else:
            if out.dtype != np.float32 or out.ndim != 2 or out.shape[1] != self.width:
                raise ValueError(
                    f"out must be float32 of shape (>= {n}, {self.width}), got {out.dtype} {out.shape}"
                )
            if out.shape[0] < n:
                raise ValueError(f"out has {out.shape[0]} rows for {n} boards")
            if not out.flags.c_contiguous:
                raise ValueError("out must be C-contiguous")
            out = out[:n]
        self.kernel(boards, out)
        return out


# ---------------------------------------------------------------------------
# Tesauro's units

_UNITS = np.zeros((CHECKERS + 1, 4), dtype=np.float32)
for _n in range(CHECKERS + 1):
    _UNITS[_n] = (_n >= 1, _n >= 2, _n >= 3, (_n - 3) / 2 if _n > 3 else 0.0)
_UNITS.setflags(write=False)
"""The four point units of ``n`` checkers, row ``n``."""

_HALF = 4 * 24 + 2  # one side's units: 96 point units, bar, off
_TURN = 2 * _HALF  # index of the first turn unit


def _tesauro_blocks() -> tuple[FeatureBlock, ...]:
    blocks = []
    for side, who in (("our", "the side on roll"), ("their", "the opponent")):
        blocks += [
            FeatureBlock(
                f"{side}_points",
                96,
                f"{who}'s checkers n on each of its points 1..24 (its own numbering), "
                "4 units each: n>=1, n>=2, n>=3, (n-3)/2 if n>3",
            ),
            FeatureBlock(f"{side}_bar", 1, f"{who}'s checkers on the bar / 2"),
            FeatureBlock(f"{side}_off", 1, f"{who}'s checkers borne off / 15"),
        ]
    blocks.append(
        FeatureBlock("turn", 2, "Tesauro's turn units; constant (1, 0): the first side (us) is on roll")
    )
    return tuple(blocks)


@njit(cache=True)
def _flip_into(boards, i, w, f):
    """Copy row ``i`` to ``w`` and its flip (the opponent's view) to ``f``."""
    for j in range(NUM_SLOTS):
        v = boards[i, j]
        w[j] = v
        f[NUM_SLOTS - 1 - j] = -v


@njit(cache=True)
def _tesauro_half(w, units, out, i, col):
    """The 98 units of the side whose checkers are positive in ``w``, from column ``col``."""
    on_board = 0
    for p in range(1, 25):
        n = w[p]
        if n < 0:
            n = 0
        on_board += n
        c = col + 4 * (p - 1)
        out[i, c] = units[n, 0]
        out[i, c + 1] = units[n, 1]
        out[i, c + 2] = units[n, 2]
        out[i, c + 3] = units[n, 3]
    bar = w[25]
    out[i, col + 96] = bar * 0.5
    out[i, col + 97] = (15 - on_board - bar) * (1.0 / 15.0)


@njit(cache=True)
def _tesauro_row(w, f, units, out, i):
    _tesauro_half(w, units, out, i, 0)
    _tesauro_half(f, units, out, i, _HALF)
    out[i, _TURN] = 1.0
    out[i, _TURN + 1] = 0.0


@njit(cache=True)
def _encode_tesauro(boards, out):
    w = np.empty(NUM_SLOTS, dtype=np.int64)
    f = np.empty(NUM_SLOTS, dtype=np.int64)
    for i in range(boards.shape[0]):
        _flip_into(boards, i, w, f)
        _tesauro_row(w, f, _UNITS, out, i)


# ---------------------------------------------------------------------------
# Hand-crafted features


def _escape_table(past_nearest: bool = False) -> np.ndarray:
    """gnubg's ``anEscapes``: rolls of 36 that move a checker in full, per 12-bit mask.

    Bit ``j`` of the mask: the point ``j + 1`` pips in front is held by the
    opponent.  Roll ``a-b`` escapes when the point ``a + b`` in front is open
    and so is the point ``a`` or ``b`` in front (a double: two steps).
    ``past_nearest``: gnubg's ``anEscapes1``, where a roll counts only if the
    whole move also goes past the nearest point held (the lowest set bit), and
    the empty mask gives 0.
    """
    masks = np.arange(1 << 12)
    nearest = np.array([(m & -m).bit_length() - 1 for m in range(1 << 12)])  # lowest set bit (-1: none)
    table = np.zeros(1 << 12, dtype=np.int64)
    for a in range(1, 7):
        for b in range(1, a + 1):
            land = (masks >> (a + b - 1)) & 1
            via_a = (masks >> (a - 1)) & 1
            via_b = (masks >> (b - 1)) & 1
            ok = (land == 0) & ((via_a == 0) | (via_b == 0))
            if past_nearest:
                ok &= a + b - 1 > nearest
            table += ok * (1 if a == b else 2)
    if past_nearest:
        table[0] = 0
    table.setflags(write=False)
    return table


_ESCAPES = _escape_table()


def _roll_bit(a: int, b: int) -> int:
    """The bit of the ordered roll ``(a, b)`` in a 36-bit roll mask."""
    return 1 << (6 * (a - 1) + (b - 1))


def _shot_tables() -> tuple[np.ndarray, np.ndarray]:
    """Roll masks of the shots at distance 1..12, and of each double.

    ``shots[2**(dist-1) - 1 + m]`` is the 36-bit mask of the ordered rolls
    with which a checker hits a blot ``dist`` pips away when bit ``j`` of
    ``m`` says whether the point ``j + 1`` pips away is blocked: a die equal
    to ``dist``; two different dice summing to it with either intermediate
    point open; a double ``d`` with ``k * d == dist`` (``k <= 4``) and the
    points ``d, 2d, ..`` before it open.  ``doubles[d]`` is the bit of ``d-d``.
    """
    shots = np.zeros((1 << 12) - 1, dtype=np.int64)
    for dist in range(1, 13):
        ms = np.arange(1 << (dist - 1))
        acc = np.zeros(len(ms), dtype=np.int64)

        def is_open(x: int, ms: np.ndarray = ms) -> np.ndarray:
            return ((ms >> (x - 1)) & 1) == 0

        for a in range(1, 7):
            for b in range(1, 7):
                if a != b:
                    if dist in (a, b):
                        ok = np.ones(len(ms), dtype=bool)
                    elif dist == a + b:
                        ok = is_open(a) | is_open(b)
                    else:
                        continue
                else:
                    k = dist // a
                    if k * a != dist or k > 4:
                        continue
                    ok = np.ones(len(ms), dtype=bool)
                    for j in range(1, k):
                        ok &= is_open(j * a)
                acc |= np.where(ok, _roll_bit(a, b), 0)
        shots[(1 << (dist - 1)) - 1 :][: len(ms)] = acc
    doubles = np.array([0] + [_roll_bit(d, d) for d in range(1, 7)], dtype=np.int64)
    shots.setflags(write=False)
    doubles.setflags(write=False)
    return shots, doubles


_SHOT_MASKS, _DOUBLE_MASKS = _shot_tables()

_SIDE_FEATURES: tuple[tuple[str, int, str], ...] = (
    ("pips", 1, "the side's pip count / 167 (1.0 at the start; max 2.25)"),
    ("pip_lead", 1, "max(0, other side's pips - the side's pips) / 167"),
    ("off3", 3, "the side's checkers off: min(off,5)/5, clip(off-5,0,5)/5, clip(off-10,0,5)/5"),
    ("home", 1, "the side's checkers in its home board (points 1..6) / 15"),
    ("blots", 1, "the side's blots (single checkers on points 1..24) / 6"),
    ("exposure", 1, "rolls of 36 on which the other side can hit one of the side's blots / 36"),
    ("hit_loss", 1, "mean over 36 rolls of the pips lost to the costliest hit (25 - p), / 24"),
    ("anchors", 1, "the side's points (2+ checkers) in the other side's home board (19..24) / 3"),
    ("prime", 1, "the side's longest run of consecutive points held / 6"),
    ("prime_loc", 1, "highest point of that run / 24 (the lowest run on ties; 0 if none)"),
    ("escapes", 1, "gnubg Escapes() of the side's rearmost checker: rolls moving it in full / 36"),
)
"""The ONE declaration of the hand-crafted units of a side (``our_``/``their_`` + name): the encoder's
blocks, the kernel's column offsets and the module docstring's table all come from it."""


def _extended_blocks() -> tuple[FeatureBlock, ...]:
    blocks = list(_tesauro_blocks())
    blocks.append(FeatureBlock("race", 1, "1 when no contact is left (a pure race), else 0"))
    for side in ("our", "their"):
        blocks += [FeatureBlock(f"{side}_{name}", width, doc) for name, width, doc in _SIDE_FEATURES]
    return tuple(blocks)


def _columns(blocks: tuple[FeatureBlock, ...]) -> dict[str, int]:
    """The first column of each block."""
    out, start = {}, 0
    for b in blocks:
        out[b.name] = start
        start += b.width
    return out


_EXT_COLUMNS = _columns(_extended_blocks())
_RACE = _EXT_COLUMNS["race"]  # column of the race flag
_OUR_EXT = _EXT_COLUMNS["our_pips"]  # first column of our hand-crafted block
_THEIR_EXT = _EXT_COLUMNS["their_pips"]
_SIDE_WIDTH = _THEIR_EXT - _OUR_EXT
# The kernel's offsets of each unit inside a side's block (compile-time constants for Numba).
(_F_PIPS, _F_LEAD, _F_OFF3, _F_HOME, _F_BLOTS, _F_EXPOSURE, _F_HIT_LOSS, _F_ANCHORS, _F_PRIME, _F_PRIME_LOC,
 _F_ESCAPES) = (_EXT_COLUMNS[f"our_{name}"] - _OUR_EXT for name, _, _ in _SIDE_FEATURES)  # fmt: skip


@njit(cache=True)
def _pips(w):
    """Pip count of the side whose checkers are positive in ``w``."""
    s = 0
    for p in range(1, NUM_SLOTS):
        if w[p] > 0:
            s += p * w[p]
    return s


@njit(cache=True)
def _blot_loss(w, t):
    """Pips we lose if our checker on ``t`` is hit: ``25 - t`` for a blot on 1..24, else 0."""
    if t <= 24 and w[t] == 1:
        return 25 - t
    return 0


@njit(cache=True)
def _best_hit(w, d1, d2, nbar):
    """The largest pip loss among our blots that their roll ``d1-d2`` can hit (0: none).

    ``w`` is our view; their checkers (negative) move up our numbering and
    enter from their bar (slot 0) with die ``d`` on our point ``d``.
    """
    best = 0
    if d1 != d2:
        if nbar >= 2:
            return max(_blot_loss(w, d1), _blot_loss(w, d2))
        if nbar == 1:
            for k in range(2):
                a = d1 if k == 0 else d2
                b = d2 if k == 0 else d1
                best = max(best, _blot_loss(w, a))
                if w[a] < 2:  # enter with a, then b with any checker
                    best = max(best, _blot_loss(w, a + b))
                    for q in range(1, 25 - b):
                        if w[q] < 0:
                            best = max(best, _blot_loss(w, q + b))
            return best
        for q in range(1, 24):
            if w[q] < 0:
                best = max(best, _blot_loss(w, q + d1))
                best = max(best, _blot_loss(w, q + d2))
                t = q + d1 + d2
                if t <= 24 and w[t] == 1 and (w[q + d1] < 2 or w[q + d2] < 2):
                    best = max(best, 25 - t)
        return best
    d = d1
    steps = 4
    if nbar > 0:
        if w[d] >= 2:
            return 0  # they cannot enter, so they cannot move
        best = _blot_loss(w, d)
        steps = 4 - min(nbar, 4)
    if steps == 0:
        return best
    for q in range(0, 24):
        if q == 0:
            if nbar == 0:
                continue
            t = d  # a checker just entered
        elif w[q] < 0:
            t = q
        else:
            continue
        for _ in range(steps):
            t += d
            if t > 24 or w[t] >= 2:
                break
            best = max(best, _blot_loss(w, t))
    return best


@njit(cache=True)
def _exposure_by_roll(w):
    """(rolls of 36 that hit one of our blots, sum over them of the costliest loss), roll by roll.

    The general search, used when they have checkers on the bar.
    """
    nbar = -w[0]
    rolls = 0
    loss = 0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            best = _best_hit(w, d1, d2, nbar)
            if best > 0:
                weight = 1 if d1 == d2 else 2
                rolls += weight
                loss += weight * best
    return rolls, loss


@njit(cache=True)
def _popcount(x):
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    x = x + (x >> 8)
    x = x + (x >> 16)
    x = x + (x >> 32)
    return x & 0x7F


@njit(cache=True)
def _exposure(w, shot_masks, double_masks):
    """(rolls of 36 that hit one of our blots, sum over them of the costliest loss).

    Without checkers of theirs on the bar (the usual case) each pair (their
    checker on ``q``, our blot on ``p > q``) contributes the set of rolls
    that move ``q`` onto ``p`` (a 36-bit mask of ordered rolls; from
    ``_SHOT_MASKS`` for ``p - q <= 12``, by hand for the long doubles).
    Blots are taken from the costliest (lowest ``p``) so each roll is charged
    the largest loss it can inflict.  The same rules as :func:`_best_hit`.
    """
    blocked = 0
    blots = 0
    for p in range(1, 25):
        if w[p] >= 2:
            blocked |= 1 << p
        elif w[p] == 1:
            blots += 1
    if blots == 0:
        return 0, 0
    if w[0] < 0:
        return _exposure_by_roll(w)
    covered = 0
    rolls = 0
    loss = 0
    for p in range(2, 25):
        if w[p] != 1:
            continue
        hits = 0
        for q in range(1, p):
            if w[q] >= 0:
                continue
            dist = p - q
            if dist <= 12:
                base = (1 << (dist - 1)) - 1
                hits |= shot_masks[base + ((blocked >> (q + 1)) & base)]
            else:
                for d in range(3, 7):
                    k = dist // d
                    if k * d == dist and k <= 4:
                        ok = True
                        for j in range(1, k):
                            if (blocked >> (q + j * d)) & 1:
                                ok = False
                                break
                        if ok:
                            hits |= double_masks[d]
        new = hits & ~covered
        if new != 0:
            c = _popcount(new)
            rolls += c
            loss += c * (25 - p)
            covered |= hits
    return rolls, loss


@njit(cache=True)
def _side_row(w, opp_pips, escapes, shot_masks, double_masks, out, i, col):
    """The hand-crafted units of the side positive in ``w``, from column ``col``.

    Writes each at the offset derived from ``_SIDE_FEATURES``.
    """
    pips = 0
    on_board = 0
    home = 0
    blots = 0
    anchors = 0
    run = 0
    best_run = 0
    best_top = 0
    back = 0
    for p in range(1, 25):
        n = w[p]
        if n > 0:
            pips += p * n
            on_board += n
            back = p
            if p <= 6:
                home += n
            if n == 1:
                blots += 1
        if n >= 2:
            run += 1
            if run > best_run:
                best_run = run
                best_top = p
            if p >= 19:
                anchors += 1
        else:
            run = 0
    if w[25] > 0:
        pips += 25 * w[25]
        on_board += w[25]
        back = 25
    off = 15 - on_board
    out[i, col + _F_PIPS] = pips * (1.0 / 167.0)
    out[i, col + _F_LEAD] = max(0, opp_pips - pips) * (1.0 / 167.0)
    out[i, col + _F_OFF3] = min(off, 5) * 0.2
    out[i, col + _F_OFF3 + 1] = min(max(off - 5, 0), 5) * 0.2
    out[i, col + _F_OFF3 + 2] = max(off - 10, 0) * 0.2
    out[i, col + _F_HOME] = home * (1.0 / 15.0)
    out[i, col + _F_BLOTS] = blots * (1.0 / 6.0)
    rolls, loss = _exposure(w, shot_masks, double_masks)
    out[i, col + _F_EXPOSURE] = rolls * (1.0 / 36.0)
    out[i, col + _F_HIT_LOSS] = loss * (1.0 / (36.0 * 24.0))
    out[i, col + _F_ANCHORS] = anchors * (1.0 / 3.0)
    out[i, col + _F_PRIME] = best_run * (1.0 / 6.0)
    out[i, col + _F_PRIME_LOC] = best_top * (1.0 / 24.0)
    esc = 36
    if back > 0:
        mask = 0
        for j in range(12):
            t = back - 1 - j
            if t < 1:
                break
            if w[t] <= -2:
                mask |= 1 << j
        esc = escapes[mask]
    out[i, col + _F_ESCAPES] = esc * (1.0 / 36.0)


@njit(cache=True)
def _is_race(w):
    """No contact: our rearmost checker is in front of their rearmost one."""
    back = 0
    for p in range(NUM_SLOTS - 1, 0, -1):
        if w[p] > 0:
            back = p
            break
    for s in range(0, back):
        if w[s] < 0:
            return False
    return True


@njit(cache=True)
def _encode_extended(boards, out):
    w = np.empty(NUM_SLOTS, dtype=np.int64)
    f = np.empty(NUM_SLOTS, dtype=np.int64)
    for i in range(boards.shape[0]):
        _flip_into(boards, i, w, f)
        _tesauro_row(w, f, _UNITS, out, i)
        out[i, _RACE] = 1.0 if _is_race(w) else 0.0
        ours = _pips(w)
        theirs = _pips(f)
        _side_row(w, theirs, _ESCAPES, _SHOT_MASKS, _DOUBLE_MASKS, out, i, _OUR_EXT)
        _side_row(f, ours, _ESCAPES, _SHOT_MASKS, _DOUBLE_MASKS, out, i, _THEIR_EXT)


# ---------------------------------------------------------------------------
# gnubg's contact inputs (the ``contact`` encoder)


_ESCAPES1 = _escape_table(past_nearest=True)

_CONTACT_FEATURES: tuple[tuple[str, int, str], ...] = (
    ("break_contact", 1, "pips the side's checkers behind the other's rearmost checker need to pass it "
     "(gnubg BREAK_CONTACT) / 167"),
    ("free_pips", 1, "pips of the side's checkers already past the other's rearmost checker / 100"),
    ("timing", 1, "gnubg TIMING: pips the side can play without breaking its home points / 100"),
    ("back_checker", 1, "the side's rearmost checker: its point - 1 (the bar 24) / 24"),
    ("back_anchor", 1, "the side's rearmost point held: its point - 1 / 24 (0 if none)"),
    ("forward_anchor", 1, "the side's most forward point held in the other's home board, else its point held "
     "on 13..18 nearest that board: 25 - the point, / 6; 2 if none"),
    ("contain_back", 1, "1 - fewest escapes / 36 of a checker of the other side on its points 16 to its "
     "rearmost, through the side's points (gnubg ACONTAIN)"),
    ("contain_back2", 1, "contain_back squared"),
    ("contain", 1, "the same over the other side's points 16..24 (gnubg CONTAIN)"),
    ("contain2", 1, "contain squared"),
    ("mobility", 1, "sum over the side's checkers outside its home board of (point - 6) x escapes through "
     "the other's points / 3600"),
    ("moment2", 1, "mean squared distance of the side's checkers beyond its own mean point (rounded up) "
     "/ 400"),
    ("enter", 1, "pips lost over the 36 rolls by the side's checkers on the bar to the other's closed "
     "home points / (36 x 49/6)"),
    ("enter2", 1, "(36 - (closed points of the other's home board - 6)^2) / 36"),
    ("backbone", 1, "gnubg BACKBONE: 1 - how well the side's points are spaced behind its rearmost one"),
    ("backgame", 1, "with 2+ points in the other's home board: (the side's checkers there and on the bar "
     "- 3) / 4, else 0"),
    ("backgame1", 1, "with 1 point there: those checkers / 8, else 0"),
    ("back_rescapes", 1, "gnubg BACKRESCAPES of the other's rearmost checker through the side's points / 36"),
)  # fmt: skip
"""The units per side that ``contact`` adds to ``extended`` (``our_``/``their_`` + name)."""


def _contact_blocks() -> tuple[FeatureBlock, ...]:
    blocks = list(_extended_blocks())
    for side in ("our", "their"):
        blocks += [FeatureBlock(f"{side}_{name}", width, doc) for name, width, doc in _CONTACT_FEATURES]
    return tuple(blocks)


_CONTACT_COLUMNS = _columns(_contact_blocks())
_OUR_CONTACT = _CONTACT_COLUMNS["our_break_contact"]
_THEIR_CONTACT = _CONTACT_COLUMNS["their_break_contact"]
_CONTACT_SIDE = _THEIR_CONTACT - _OUR_CONTACT
(_C_BREAK, _C_FREE, _C_TIMING, _C_BACK, _C_BACK_ANCHOR, _C_FORWARD, _C_ACONTAIN, _C_ACONTAIN2, _C_CONTAIN,
 _C_CONTAIN2, _C_MOBILITY, _C_MOMENT2, _C_ENTER, _C_ENTER2, _C_BACKBONE, _C_BACKG, _C_BACKG1,
 _C_RESCAPES) = (_CONTACT_COLUMNS[f"our_{n}"] - _OUR_CONTACT for n, _, _ in _CONTACT_FEATURES)  # fmt: skip


@njit(cache=True)
def _gnubg_sides(w, b, o):
    """The side positive in ``w`` and the other side as gnubg's half-boards (index 0..23 = the side's own
    points 1..24, 24 = its bar, checker counts)."""
    for k in range(24):
        b[k] = max(w[k + 1], 0)
        o[k] = max(-w[24 - k], 0)
    b[24] = max(w[25], 0)
    o[24] = max(-w[0], 0)


@njit(cache=True)
def _held(b):
    """Bit ``k`` set where the side holds its index ``k`` (two checkers or more), k = 0..23."""
    held = 0
    for k in range(24):
        if b[k] >= 2:
            held |= 1 << k
    return held


@njit(cache=True)
def _escapes_of(held, n, table):
    """Escapes (``table``: :data:`_ESCAPES` or :data:`_ESCAPES1`) of the other side's checker on its index
    ``n`` (0..24) through the points ``held`` (:func:`_held`) of a side (gnubg's ``Escapes(anBoard, n)``:
    bit ``j`` of the mask is the side's index ``24 + j - n``, for ``j < min(n, 12)``)."""
    if n <= 0:
        return table[0]
    return table[(held >> (24 - n)) & ((1 << min(n, 12)) - 1)]


@njit(cache=True)
def _contact_half(b, o, held, opp_held, escapes, escapes1, out, i, col):
    """gnubg's contact inputs of the side ``b`` against ``o`` (gnubg's ``CalculateHalfInputs``); ``held``
    and ``opp_held`` are their points held (:func:`_held`)."""
    ob = -1  # the other side's rearmost checker, its own index
    for k in range(24, -1, -1):
        if o[k] > 0:
            ob = k
            break
    opp_back = 23 - ob  # the same point in the side's numbering (-1: the other side is on the bar)
    n = 0
    for k in range(opp_back + 1, 25):
        n += (k + 1 - opp_back) * b[k]
    out[i, col + _C_BREAK] = n / 167.0
    p = 0
    for k in range(min(opp_back, 24)):
        p += (k + 1) * b[k]
    out[i, col + _C_FREE] = p / 100.0
    # timing: pips playable outside the home board, home points beyond two, less the gaps of the board
    t = 24 * b[24]
    spare = b[24]
    m = max(opp_back, 11)
    k = 23
    while k > m:
        if b[k] > 0 and b[k] != 2:
            c = b[k] - 2 if b[k] > 2 else 1
            spare += c
            t += k * c
        k -= 1
    while k >= 6:
        spare += b[k]
        t += k * b[k]
        k -= 1
    while k >= 0:
        if b[k] > 2:
            t += k * (b[k] - 2)
            spare += b[k] - 2
        elif b[k] < 2:
            c = 2 - b[k]
            if spare >= c:
                t -= k * c
                spare -= c
        k -= 1
    out[i, col + _C_TIMING] = max(t, 0) / 100.0
    back = -1
    for k in range(24, -1, -1):
        if b[k] > 0:
            back = k
            break
    out[i, col + _C_BACK] = max(back, 0) / 24.0
    anchor = -1
    for k in range(23 if back == 24 else back, -1, -1):
        if b[k] >= 2:
            anchor = k
            break
    out[i, col + _C_BACK_ANCHOR] = max(anchor, 0) / 24.0
    fwd = 0
    for k in range(18, anchor + 1):
        if b[k] >= 2:
            fwd = 24 - k
            break
    if fwd == 0:
        for k in range(17, 11, -1):
            if b[k] >= 2:
                fwd = 24 - k
                break
    out[i, col + _C_FORWARD] = 2.0 if fwd == 0 else fwd / 6.0
    out[i, col + _C_RESCAPES] = (_escapes_of(held, ob, escapes1) if ob >= 0 else 0) / 36.0
    # containment: the fewest escapes from the other side's points 16 to its rearmost (ACONTAIN), then on
    # to its 24 point (CONTAIN; its bar, index 24, only counts for ACONTAIN)
    least = 36
    for k in range(15, min(ob, 23) + 1):
        least = min(least, _escapes_of(held, k, escapes))
    behind = least if ob < 24 else min(least, _escapes_of(held, 24, escapes))
    a = (36 - behind) / 36.0
    out[i, col + _C_ACONTAIN] = a
    out[i, col + _C_ACONTAIN2] = a * a
    for k in range(max(ob + 1, 15), 24):
        least = min(least, _escapes_of(held, k, escapes))
    a = (36 - least) / 36.0
    out[i, col + _C_CONTAIN] = a
    out[i, col + _C_CONTAIN2] = a * a
    mob = 0
    for k in range(6, 25):
        if b[k] > 0:
            mob += (k - 5) * b[k] * _escapes_of(opp_held, k, escapes)
    out[i, col + _C_MOBILITY] = mob / 3600.0
    count = 0
    total = 0
    for k in range(25):
        count += b[k]
        total += k * b[k]
    mean = (total + count - 1) // count if count > 0 else 0
    count = 0
    moment = 0
    for k in range(mean + 1, 25):
        count += b[k]
        moment += b[k] * (k - mean) * (k - mean)
    if count > 0:
        moment = (moment + count - 1) // count
    out[i, col + _C_MOMENT2] = moment / 400.0
    loss = 0
    if b[24] > 0:
        two = b[24] > 1
        for k in range(6):
            if o[k] > 1:
                loss += 4 * (k + 1)  # any double with this number loses
                for j in range(k + 1, 6):
                    if o[j] > 1:
                        loss += 2 * (k + j + 2)
                    elif two:
                        loss += 2 * (k + 1)
            elif two:
                for j in range(k + 1, 6):
                    if o[j] > 1:
                        loss += 2 * (j + 1)
    out[i, col + _C_ENTER] = loss / (36.0 * 49.0 / 6.0)
    closed = 0
    for k in range(6):
        if o[k] > 1:
            closed += 1
    out[i, col + _C_ENTER2] = (36 - (closed - 6) * (closed - 6)) / 36.0
    first = -1
    spaced = 0
    weight = 0
    for k in range(23, 0, -1):
        if b[k] >= 2:
            if first == -1:
                first = k
                continue
            d = first - k
            c = 11 if d <= 6 else (13 - d if d <= 11 else 0)
            spaced += c * b[first]
            weight += b[first]
    out[i, col + _C_BACKBONE] = 1.0 - spaced / (weight * 11.0) if weight > 0 else 0.0
    anchors = 0
    for k in range(18, 24):
        if b[k] > 1:
            anchors += 1
    there = 0
    for k in range(18, 25):
        there += b[k]
    out[i, col + _C_BACKG] = (there - 3) / 4.0 if anchors > 1 else 0.0
    out[i, col + _C_BACKG1] = there / 8.0 if anchors == 1 else 0.0


@njit(cache=True)
def _encode_contact_kernel(boards, out, escapes, escapes1):
    w = np.empty(NUM_SLOTS, dtype=np.int64)
    b = np.empty(25, dtype=np.int64)
    o = np.empty(25, dtype=np.int64)
    for i in range(boards.shape[0]):
        for j in range(NUM_SLOTS):
            w[j] = boards[i, j]
        _gnubg_sides(w, b, o)
        ours, theirs = _held(b), _held(o)
        _contact_half(b, o, ours, theirs, escapes, escapes1, out, i, _OUR_CONTACT)
        _contact_half(o, b, theirs, ours, escapes, escapes1, out, i, _THEIR_CONTACT)


def _encode_contact(boards: np.ndarray, out: np.ndarray) -> None:
    _encode_extended(boards, out)
    _encode_contact_kernel(boards, out, _ESCAPES, _ESCAPES1)


# ---------------------------------------------------------------------------
# Race inputs

_RACE_POINTS = 4 * 24
_RACE_OFF = 14
_RACE_SIDE = _RACE_POINTS + _RACE_OFF + 2  # points, exactly-k-off, crossovers, pips


def _race_blocks() -> tuple[FeatureBlock, ...]:
    blocks = []
    for side, who in (("our", "the side on roll"), ("their", "the opponent")):
        blocks += [
            FeatureBlock(
                f"{side}_points",
                _RACE_POINTS,
                f"{who}'s checkers n on each of its points 1..24 (its own numbering), "
                "4 units each: n==1, n==2, n>=3, (n-3)/2 if n>3",
            ),
            FeatureBlock(
                f"{side}_off", _RACE_OFF, f"{who}'s checkers off: unit k-1 is 1 when exactly k are off"
            ),
            FeatureBlock(f"{side}_crossovers", 1, f"{who}'s crossovers still to make / 10"),
            FeatureBlock(f"{side}_pips", 1, f"{who}'s pip count / 100"),
        ]
    return tuple(blocks)


@njit(cache=True)
def _race_half(w, out, i, col):
    on_board = 0
    cross = 0
    pips = 0
    for p in range(1, 25):
        n = w[p]
        if n < 0:
            n = 0
        c = col + 4 * (p - 1)
        out[i, c] = 1.0 if n == 1 else 0.0
        out[i, c + 1] = 1.0 if n == 2 else 0.0
        out[i, c + 2] = 1.0 if n >= 3 else 0.0
        out[i, c + 3] = (n - 3) * 0.5 if n > 3 else 0.0
        on_board += n
        cross += n * ((p - 1) // 6)
        pips += n * p
    bar = w[25] if w[25] > 0 else 0
    on_board += bar
    cross += 4 * bar
    pips += 25 * bar
    off = 15 - on_board
    c = col + _RACE_POINTS
    for k in range(1, _RACE_OFF + 1):
        out[i, c + k - 1] = 1.0 if off == k else 0.0
    out[i, c + _RACE_OFF] = cross * 0.1
    out[i, c + _RACE_OFF + 1] = pips * 0.01


@njit(cache=True)
def _encode_race(boards, out):
    w = np.empty(NUM_SLOTS, dtype=np.int64)
    f = np.empty(NUM_SLOTS, dtype=np.int64)
    for i in range(boards.shape[0]):
        _flip_into(boards, i, w, f)
        _race_half(w, out, i, 0)
        _race_half(f, out, i, _RACE_SIDE)


# ---------------------------------------------------------------------------
# Race inputs with the one-sided bearoff database

_DB_SIDE = 3  # db_rolls, db_first, outside_pips


def _race_db_blocks() -> tuple[FeatureBlock, ...]:
    blocks = list(_race_blocks())
    for side, who in (("our", "the side on roll"), ("their", "the opponent")):
        blocks += [
            FeatureBlock(
                f"{side}_db_rolls",
                1,
                f"{who}'s expected rolls to bear off all, outside checkers counted on its 6 point, / 10",
            ),
            FeatureBlock(
                f"{side}_db_first",
                1,
                f"{who}'s expected rolls to bear off the first checker, the same way, / 10 (0 if one is off)",
            ),
            FeatureBlock(
                f"{side}_outside_pips", 1, f"{who}'s pips to its 6 point of checkers outside home / 40"
            ),
        ]
    return tuple(blocks)


@njit(cache=True)
def _race_db_half(w, mean, first_mean, out, i, col):
    counts = np.zeros(6, dtype=np.int64)
    outside = 0
    for p in range(1, 26):
        n = w[p]
        if n <= 0:
            continue
        if p <= 6:
            counts[p - 1] += n
        else:
            counts[5] += n
            outside += n * (p - 6)
    idx = 0
    total = 0
    for j in range(6):
        total += counts[j]
        idx += BINOM[total + j, j + 1]
    out[i, col] = mean[idx] * 0.1
    out[i, col + 1] = first_mean[idx - FULL_BASE] * 0.1 if idx >= FULL_BASE else 0.0
    out[i, col + 2] = outside * 0.025


@njit(cache=True)
def _encode_race_db_kernel(boards, out, mean, first_mean):
    _encode_race(boards, out)
    w = np.empty(NUM_SLOTS, dtype=np.int64)
    f = np.empty(NUM_SLOTS, dtype=np.int64)
    col = 2 * _RACE_SIDE
    for i in range(boards.shape[0]):
        _flip_into(boards, i, w, f)
        _race_db_half(w, mean, first_mean, out, i, col)
        _race_db_half(f, mean, first_mean, out, i, col + _DB_SIDE)


_DB: OneSidedBearoff | None = None


def _encode_race_db(boards: np.ndarray, out: np.ndarray) -> None:
    global _DB
    if _DB is None:  # loaded (or built) on the first encode
        _DB = OneSidedBearoff.load_or_build()
    _encode_race_db_kernel(boards, out, _DB.mean_rolls, _DB.mean_first)


# ---------------------------------------------------------------------------
# Variant inputs (52-slot boards)

_VARIANT_PIPS = 360.0
"""Pips scale: a side's count at the start of plakoto or fevga (15 checkers on its 24-point)."""

_VARIANT_SIDE: tuple[tuple[str, int, str], ...] = (
    (
        "points",
        96,
        "the side's checkers n on top of each of its points 1..24, 4 units: n>=1, n>=2, n>=3, (n-3)/2 if n>3",
    ),
    (
        "pinned",
        24,
        "1 where one of the side's checkers is pinned under the other side's on its point p (plakoto)",
    ),
    ("bar", 1, "the side's checkers on the bar / 2"),
    ("waiting", 1, "the side's checkers not yet entered / 15"),
    ("off", 1, "the side's checkers borne off / 15"),
    ("pips", 1, f"the side's pip count / {_VARIANT_PIPS:.0f} (pinned checkers count; bar and waiting 25)"),
    ("home", 1, "the side's checkers on top in its home board (points 1..6) / 15"),
    (
        "can_bear_off",
        1,
        "1 when the side may bear off: all its checkers home, none on the bar, waiting or pinned",
    ),
    ("at_start", 1, "1 while the side has a checker on its 24-point (plakoto: its mother is still home)"),
    (
        "start_rule",
        1,
        "1 while fevga's start rule holds: 14 or 15 of the side's checkers on its 24-point, none on 1..11",
    ),
)
"""The ONE declaration of a side's variant units (``our_``/``their_`` + name): blocks, offsets, docs."""


def _variant_blocks() -> tuple[FeatureBlock, ...]:
    blocks: list[FeatureBlock] = []
    for side in ("our", "their"):
        blocks += [FeatureBlock(f"{side}_{name}", width, doc) for name, width, doc in _VARIANT_SIDE]
    return tuple(blocks)


_V_COLUMNS = _columns(_variant_blocks())
_V_SIDE = _V_COLUMNS["their_points"]
(_V_POINTS, _V_PINNED, _V_BAR, _V_WAITING, _V_OFF, _V_PIPS, _V_HOME, _V_BEAR, _V_START,
 _V_START_RULE) = (_V_COLUMNS[f"our_{name}"] for name, _, _ in _VARIANT_SIDE)  # fmt: skip


@njit(cache=True)
def _vflip_into(boards, i, rotate, w, f):
    """Copy variant row ``i`` to ``w`` and the opponent's view of it to ``f`` (as ``Variant.flip``)."""
    for j in range(VSLOTS):
        w[j] = boards[i, j]
    for q in range(1, 25):
        r = (q + 11) % 24 + 1 if rotate else 25 - q
        f[q] = -w[r]
        f[PIN + q] = -w[PIN + r]
    f[0] = -w[25]
    f[25] = -w[0]
    f[OUR_WAITING] = -w[THEIR_WAITING]
    f[THEIR_WAITING] = -w[OUR_WAITING]


@njit(cache=True)
def _variant_half(w, units, out, i, col):
    """The units of the side positive in ``w`` (its own numbering), from column ``col``."""
    checkers = 0
    pips = 0
    home = 0
    outside = 0
    start = 0
    early = 0
    for p in range(1, 25):
        n = w[p]
        if n < 0:
            n = 0
        c = col + _V_POINTS + 4 * (p - 1)
        out[i, c] = units[n, 0]
        out[i, c + 1] = units[n, 1]
        out[i, c + 2] = units[n, 2]
        out[i, c + 3] = units[n, 3]
        pinned = 1 if w[PIN + p] > 0 else 0
        out[i, col + _V_PINNED + p - 1] = pinned
        checkers += n + pinned
        pips += p * (n + pinned)
        outside += pinned
        if p <= 6:
            home += n
        else:
            outside += n
        if p <= 11:
            early += n
    bar = w[25] if w[25] > 0 else 0
    waiting = w[OUR_WAITING] if w[OUR_WAITING] > 0 else 0
    checkers += bar + waiting
    pips += 25 * (bar + waiting)
    outside += bar + waiting
    if w[24] > 0 or w[PIN + 24] > 0:
        start = 1
    out[i, col + _V_BAR] = bar * 0.5
    out[i, col + _V_WAITING] = waiting * (1.0 / 15.0)
    out[i, col + _V_OFF] = (15 - checkers) * (1.0 / 15.0)
    out[i, col + _V_PIPS] = pips * (1.0 / _VARIANT_PIPS)
    out[i, col + _V_HOME] = home * (1.0 / 15.0)
    out[i, col + _V_BEAR] = 1.0 if outside == 0 else 0.0
    out[i, col + _V_START] = start
    out[i, col + _V_START_RULE] = 1.0 if w[24] >= 14 and early == 0 else 0.0


@njit(cache=True)
def _encode_variant_any(boards, out, rotate):
    w = np.empty(VSLOTS, dtype=np.int64)
    f = np.empty(VSLOTS, dtype=np.int64)
    for i in range(boards.shape[0]):
        _vflip_into(boards, i, rotate, w, f)
        _variant_half(w, _UNITS, out, i, 0)
        _variant_half(f, _UNITS, out, i, _V_SIDE)


@njit(cache=True)
def _encode_variant(boards, out):
    _encode_variant_any(boards, out, False)


@njit(cache=True)
def _encode_variant_rotate(boards, out):
    _encode_variant_any(boards, out, True)


TESAURO_198 = Encoder("tesauro198", "tesauro198-v1", _tesauro_blocks(), _encode_tesauro)
"""Tesauro's 198 raw inputs; the index table is in the module docstring."""

EXTENDED = Encoder("extended", "extended-v1", _extended_blocks(), _encode_extended)
"""TESAURO_198 followed by a race flag and 13 hand-crafted units per side."""

CONTACT = Encoder("contact", "contact-v1", _contact_blocks(), _encode_contact, extends="extended")
"""EXTENDED followed by 18 of gnubg's contact inputs per side (see the module docstring)."""

RACE = Encoder("race", "race-v1", _race_blocks(), _encode_race)
"""The race network's inputs: gnubg-style race units per side (see the module docstring)."""

RACE_DB = Encoder("race-db", "race-db-v1", _race_db_blocks(), _encode_race_db, extends="race")
"""RACE followed by three units per side from the one-sided bearoff database (see the module docstring)."""

# The kernels write fixed columns; the declared blocks must match them.
if (
    TESAURO_198.width != _TURN + 2
    or EXTENDED.width != _THEIR_EXT + _SIDE_WIDTH
    or CONTACT.width != _THEIR_CONTACT + _CONTACT_SIDE
):
    raise AssertionError("encoder blocks do not match the columns the kernels write")
if RACE.width != 2 * _RACE_SIDE or RACE_DB.width != RACE.width + 2 * _DB_SIDE:
    raise AssertionError("race encoder blocks do not match the columns its kernel writes")

VARIANT = Encoder("variant", "variant-v1", _variant_blocks(), _encode_variant, VSLOTS)
"""Inputs of the variant networks on 52-slot boards, for games whose sides move in opposite directions."""

VARIANT_ROTATE = Encoder(
    "variant-rotate", "variant-rotate-v1", _variant_blocks(), _encode_variant_rotate, VSLOTS
)
"""VARIANT for games whose sides move the same way round the board (fevga): the opponent's view rotates."""

if VARIANT.width != 2 * _V_SIDE:
    raise AssertionError("variant encoder blocks do not match the columns its kernel writes")

ENCODERS: dict[str, Encoder] = {e.name: e for e in (TESAURO_198, EXTENDED, CONTACT, RACE, RACE_DB)}
"""The encoders of backgammon boards (26 slots) by name."""

VARIANT_ENCODERS: dict[str, Encoder] = {e.name: e for e in (VARIANT, VARIANT_ROTATE)}
"""The encoders of variant boards (52 slots) by name."""


def _units_table(features: tuple[tuple[str, int, str], ...]) -> str:
    """A docstring table of the units of a side, from their one declaration."""
    rows = (f"    {'our_/their_' + name:<28} {width:>2}  {doc}" for name, width, doc in features)
    return "\n".join(["::", "", *rows])


if __doc__:  # the docstring's tables of units, from the same declarations as the kernels
    for _key, _features in (
        ("{variant_table}", _VARIANT_SIDE),
        ("{contact_table}", _CONTACT_FEATURES),
        ("{extended_table}", _SIDE_FEATURES),
    ):
        __doc__ = __doc__.replace(_key, _units_table(_features))


def get_encoder(name: str) -> Encoder:
    """The encoder called ``name``; :class:`UnknownEncoderError` names the known ones otherwise."""
    found = ENCODERS.get(name) or VARIANT_ENCODERS.get(name)
    if found is None:
        known = ", ".join(sorted(ENCODERS) + sorted(VARIANT_ENCODERS))
        raise UnknownEncoderError(f"unknown encoder {name!r}; known encoders: {known}")
    return found


def variant_encoder(rotate: bool) -> Encoder:
    """The variant encoder for a game whose sides move the same way (``rotate``, fevga) or not."""
    return VARIANT_ROTATE if rotate else VARIANT
