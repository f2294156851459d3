"""Hand-written baseline players for every variant: a 1-ply greedy heuristic.

:class:`GreedyPlayer` values every legal result of a roll with a fixed,
hand-written score and plays the best one (the first of equal scores, so it
is deterministic).  It is a yardstick between :class:`bgnet.players.RandomPlayer`
and a trained network: a new variant's network should beat it clearly, and
it must itself beat the random player clearly (``tests/test_variant_play.py``
measures both).  No search, no learning: the weights are round numbers
chosen by hand and checked only by matches against the random player.

The score is computed from the mover's side (results are seen by the
opponent; :meth:`bgnet.variants.Variant.flip` turns them back, except a
result after which the mover rolls again, already seen by the mover), in
pips, one term per idea:

every game
    a won game: 1000 per point (a draw, which only plakoto's mother rule
    makes and only from a bad position, 500); the pip lead (checkers on the
    bar or waiting to enter count 25 pips each); 3 per checker borne off;
    8 for a turn after which the mover rolls again (acey-deucey's 1-2
    played in full: about the pips of one more roll).
hitting games (backgammon, nackgammon, portes, tavla, acey-deucey)
    made points (4 in the home board, 2 on the bar point, 1 elsewhere) and
    primes (the square of the longest run of made points less one), our
    blots weighted by the chance of a shot from the opponent's checkers
    within 12 pips (blocking ignored; the opponent's checkers on the bar or
    waiting to enter shoot from its entry) times what a hit costs (the pips
    the blot has travelled plus a tempo of 8), and 4 more per opposing
    checker on the bar; in a race only the pips and the checkers off count.
plakoto
    pins: 12 plus half the pinned checker's remaining journey for each of
    theirs we pin, the same against us for each of ours pinned; points we
    hold (2 or more, or one on top of a pin) 1.5 each and primes; our
    unpinned blots times the chance to be pinned times 8 plus half their
    distance from home; our mother (a lone checker left on our 24-point)
    times 60 more.
fevga and long nardy (the games without hitting where both sides move the same way)
    each point we hold is worth 2; each opposing checker 1 to 6 pips
    behind one of our points along its way is blocked (+1 per such checker
    and point), ours behind theirs the same against us; checkers piled
    higher than 3 outside our start cost 0.5 each above 3.
"""

from __future__ import annotations

import numpy as np

from bgnet.movegen import MoveBatch
from bgnet.variants import (
    CAPTURE_HIT,
    CAPTURE_PIN,
    OUR_WAITING,
    PIN,
    R_CAPTURE,
    THEIR_WAITING,
    VSLOTS,
    Variant,
    widen,
)

__all__ = ["GreedyPlayer", "hit_chance"]

WIN = 1000.0
DRAW = 500.0
OFF = 3.0
AGAIN = 8.0
ENTRY = 25  # the pips of a checker on the bar or waiting to enter
POINTS = np.arange(1, 25)


def _hit_table() -> np.ndarray:
    """``table[mask]``: the share of the 36 rolls that reach one of the distances in ``mask``.

    Bit ``d - 1`` of ``mask`` is distance ``d`` (1 to 12); a roll reaches a
    die, the sum of a non-double, or 1 to 4 times a double's die (blocks
    along the way ignored: a heuristic).
    """
    reach = np.zeros(36, dtype=np.int64)
    for a in range(1, 7):
        for b in range(1, 7):
            dist = [a, 2 * a, 3 * a, 4 * a] if a == b else [a, b, a + b]
            reach[6 * (a - 1) + b - 1] = sum(1 << (d - 1) for d in dist if d <= 12)
    masks = np.arange(1 << 12)
    return ((masks[:, None] & reach[None, :]) != 0).sum(axis=1) / 36.0


_HIT = _hit_table()


def hit_chance(blots: np.ndarray, shooters: np.ndarray) -> np.ndarray:
    """Per board and point 1..24, the chance that a checker of ``shooters`` reaches point ``p``.

    ``shooters[:, q]`` (``q`` 0..24) marks an opposing checker that moves
    towards higher points of ours and stands on our point ``q`` (0: the
    bar); ``blots`` (``(N, 24)`` bools, points 1..24) says where to look.
    """
    n = len(shooters)
    mask = np.zeros((n, 24), dtype=np.int64)
    for d in range(1, 13):
        # point p (index p - 1) is shot from q = p - d >= 0
        src = shooters[:, 0 : 25 - d]  # q = 0 .. 24 - d  ->  p = d .. 24
        mask[:, d - 1 :] |= src.astype(np.int64) << (d - 1)
    return np.where(blots, _HIT[mask], 0.0)


def _longest_run(held: np.ndarray) -> np.ndarray:
    """The longest run of consecutive True per row."""
    run = np.zeros(len(held), dtype=np.int64)
    best = np.zeros(len(held), dtype=np.int64)
    for j in range(held.shape[1]):
        run = np.where(held[:, j], run + 1, 0)
        best = np.maximum(best, run)
    return best


class GreedyPlayer:
    """The best result of each roll by a hand-written score (module docstring); deterministic.

    Plays any variant's boards (52 slots) and backgammon's 26-slot boards
    (widened first), so it serves both the standard arena and the variant one.
    """

    def __init__(self, variant: Variant, name: str = "greedy") -> None:
        self.variant = variant
        self.name = name

    def choose(self, batch: MoveBatch, player: np.ndarray | None = None) -> np.ndarray:
        sizes = np.diff(batch.offsets)
        rows = np.full(len(sizes), -1, dtype=np.int64)
        if not len(batch.positions):
            return rows
        score = self.score(batch.positions, batch.again)
        has = np.flatnonzero(sizes > 0)
        starts = batch.offsets[has]
        best = np.maximum.reduceat(score, starts)
        seg = np.repeat(np.arange(len(has)), sizes[has])
        index = np.arange(len(score))
        # the first best row of each roll
        rows[has] = np.minimum.reduceat(np.where(score >= best[seg], index, len(score)), starts)
        return rows

    def score(self, results: np.ndarray, again: np.ndarray | None = None) -> np.ndarray:
        """The mover's score of each result (as generated: seen by the opponent, or by the mover where
        ``again`` says it rolls again)."""
        r = np.asarray(results, dtype=np.int8)
        if r.shape[-1] != VSLOTS:
            r = widen(r)
        v = self.variant
        m = v.flip(r).astype(np.int64)  # the mover's side
        repeat = np.zeros(len(r), dtype=bool) if again is None else np.asarray(again, dtype=bool)
        if repeat.any():
            m[repeat] = r[repeat]
            r = r.copy()
            r[repeat] = v.flip(r[repeat])  # every result seen by the opponent, for the end of the game
        capture = int(v.rules[R_CAPTURE])
        if capture == CAPTURE_HIT:
            s = self._hitting(m)
        elif capture == CAPTURE_PIN:
            s = self._plakoto(m)
        else:
            s = self._fevga(m)
        return s + self._ended(r) + AGAIN * repeat

    # -- the terms -------------------------------------------------------------

    def _ended(self, r: np.ndarray) -> np.ndarray:
        """WIN per point for results that end the game (DRAW for a draw), else 0."""
        v = self.variant
        out = np.zeros(len(r))
        cand = v.checkers(r)[1] == 0  # the mover (not on roll in r) has borne off its last checker
        if v.mother:  # the mother rule ends a game only with the opponent's mother pinned
            cand |= r[:, PIN + 24] > 0
        for i in np.flatnonzero(cand):
            won = v.result(r[i])
            if won is not None:
                out[i] = WIN * won if won else DRAW
        return out

    def _common(self, m: np.ndarray, ours: np.ndarray, theirs_pips: np.ndarray) -> np.ndarray:
        """The pip lead and the checkers off (``ours``: our checkers per point 1..24, pinned included)."""
        our_pips = (ours * POINTS).sum(1) + ENTRY * (
            np.maximum(m[:, 25], 0) + np.maximum(m[:, OUR_WAITING], 0)
        )
        left = self.variant.checkers(m)[0]
        return (theirs_pips - our_pips) + OFF * (15 - left)

    def _hitting(self, m: np.ndarray) -> np.ndarray:
        pts = m[:, 1:25]
        ours = np.maximum(pts, 0)
        theirs = np.maximum(-pts, 0)
        their_bar = np.maximum(-m[:, 0], 0)
        their_waiting = np.maximum(-m[:, THEIR_WAITING], 0)
        their_pips = (theirs * (25 - POINTS)).sum(1) + ENTRY * (their_bar + their_waiting)
        s = self._common(m, ours, their_pips).astype(np.float64)
        # Contact: one of our checkers still has an opposing one ahead of it.
        our_entry = (m[:, 25] > 0) | (m[:, OUR_WAITING] > 0)
        our_back = np.where(our_entry, 25, np.where(ours > 0, POINTS, 0).max(1))
        their_back = np.where(
            (their_bar > 0) | (their_waiting > 0), 0, np.where(theirs > 0, POINTS, 25).min(1)
        )
        contact = our_back > their_back
        made = ours >= 2
        weights = np.ones(24)
        weights[:6] = 4.0
        weights[6] = 2.0
        shape = (made * weights).sum(1) + (np.maximum(_longest_run(made) - 1, 0) ** 2)
        shooters = np.concatenate([((their_bar + their_waiting) > 0)[:, None], theirs > 0], axis=1)
        shots = hit_chance(ours == 1, shooters)
        blots = (shots * (25 - POINTS + 8)).sum(1)
        positional = shape - blots + 4.0 * their_bar
        return s + np.where(contact, positional, 0.0)

    def _plakoto(self, m: np.ndarray) -> np.ndarray:
        pts = m[:, 1:25]
        pins = m[:, PIN + 1 : PIN + 25]
        ours = np.maximum(pts, 0)
        theirs = np.maximum(-pts, 0)
        ours_pinned = pins > 0
        theirs_pinned = pins < 0
        their_pips = ((theirs + theirs_pinned) * (25 - POINTS)).sum(1)
        s = self._common(m, ours + ours_pinned, their_pips).astype(np.float64)
        s += (theirs_pinned * (12 + 0.5 * (25 - POINTS))).sum(1)
        s -= (ours_pinned * (12 + 0.5 * POINTS)).sum(1)
        held = (ours >= 2) | ((ours == 1) & theirs_pinned)
        s += 1.5 * held.sum(1) + np.maximum(_longest_run(held) - 1, 0) ** 2
        blots = (ours == 1) & (pins == 0)
        shooters = np.concatenate([np.zeros((len(m), 1), bool), theirs > 0], axis=1)
        shots = hit_chance(blots, shooters)
        s -= (shots * (8 + 0.5 * POINTS)).sum(1)
        s -= 60.0 * shots[:, 23]  # our mother, alone on our 24-point
        return s

    def _fevga(self, m: np.ndarray) -> np.ndarray:
        pts = m[:, 1:25]
        ours = np.maximum(pts, 0)
        theirs = np.maximum(-pts, 0)
        # Their point for our point p is p + 12 (mod 24, in 1..24); they move from our 12 down to
        # our 1, then from our 24 down to our 13, as we move from 24 down to 1.
        their_point = (POINTS + 11) % 24 + 1
        their_pips = (theirs * their_point).sum(1)
        s = self._common(m, ours, their_pips).astype(np.float64)
        held = ours > 0
        s += 2.0 * held.sum(1)
        s += self._blocked(held, theirs, their_point) - self._blocked(theirs > 0, ours, POINTS)
        outside = ours.copy()
        outside[:, 23] = 0
        s -= 0.5 * np.maximum(outside - 3, 0).sum(1)
        return s

    @staticmethod
    def _blocked(held: np.ndarray, movers: np.ndarray, numbering: np.ndarray) -> np.ndarray:
        """Checkers of ``movers`` 1 to 6 pips before a point of ``held`` on their way, summed over points.

        ``numbering[p - 1]`` is the movers' own number of our point ``p``
        (they move from their 24 down to 1).
        """
        by_own = np.zeros((len(held), 25), dtype=np.int64)  # index: the movers' point number
        hold = np.zeros((len(held), 25), dtype=bool)
        by_own[:, numbering] = movers
        hold[:, numbering] = held
        out = np.zeros(len(held))
        for d in range(1, 7):
            # a held point at their number t blocks their checkers at t + d
            out += (hold[:, 1 : 25 - d] * by_own[:, 1 + d : 25]).sum(1)
        return out
