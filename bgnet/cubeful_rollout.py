"""Cubeful rollouts: games played out with the cube, money or match, all games in lockstep.

Each game starts from the rolled-out board with the cube and the score of
the XGID or Match ID (:class:`~bgnet.match.CubeState` and
:class:`~bgnet.match.MatchState`, from the side on roll).  Before every roll
the side on roll, when it may double (:func:`bgnet.match.may_double`),
decides by :func:`bgnet.cube.cube_decision` on the evaluator's probabilities
at the rollout's ply (batched over the games); a double is taken or passed
as the same decision says for the opponent.  Plays are chosen as in the
cubeless rollout (:func:`bgnet.rollout.play_out`), on the same dice streams
(:func:`bgnet.rollout.trial_dice`, stratified first rolls).

A game's result is the points it ends with (a pass wins the cube's value
before the double; a single, gammon or backgammon is 1, 2, 3 x the cube;
money play without the Jacoby rule), turned into the equity of the root's
side on roll normalised to the starting cube: points / cube in money play;
in a match the match winning chances after the result (Kazaross-XG2 table,
:mod:`bgnet.met`) turned into an equity by :func:`bgnet.cube.mwc_to_equity`.
A game truncated after ``truncate`` plies takes the cubeful equity of its
position (:func:`bgnet.cube.cubeful_equity` with the cube action, at the
rollout's ply).  Games are played out to the end (the bearoff database's
values are cubeless: they decide plays and doubles, they do not end a
game), and there is no luck adjustment (the settings' ``luck`` is ignored).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bgnet.cube import cube_decision, cubeful_equity, equity_to_mwc, mwc_to_equity, race_pips
from bgnet.evaluator import Evaluator
from bgnet.game import outcome
from bgnet.match import CubeOwner, CubeState, MatchState, may_double
from bgnet.met import post_crawford, pre_crawford
from bgnet.movegen import generate
from bgnet.position import NUM_SLOTS
from bgnet.position import flip as flip_board
from bgnet.rollout import RolloutSettings, trial_dice
from bgnet.stats import mean_se

__all__ = ["CubefulRollout", "cubeful_rollout", "mwc_after"]

_OWNER = {1: CubeOwner.ME, -1: CubeOwner.OPPONENT, 0: CubeOwner.CENTERED}


def mwc_after(match: MatchState, won: int, lost: int) -> float:
    """Match winning chances of ``match``'s side after it wins ``won`` or loses ``lost`` points.

    The Kazaross-XG2 table; after the Crawford game (or when a side is at
    1-away) the post-Crawford row, as gnubg's ``getME``.
    """
    a, b = match.away - won, match.opp_away - lost
    if a <= 0:
        return 1.0
    if b <= 0:
        return 0.0
    if match.crawford or match.away == 1 or match.opp_away == 1:
        return 1.0 - post_crawford(b) if a == 1 else post_crawford(a)
    return pre_crawford(a, b)


class CubefulRollout:
    """The result of a cubeful rollout: per-trial equities of the root's side on roll (normalised)."""

    def __init__(self, samples: np.ndarray, doubles: int, passes: int) -> None:
        self.samples = np.asarray(samples, dtype=np.float64)
        self.equity, self.equity_se = mean_se(self.samples)
        self.doubles, self.passes = doubles, passes

    @property
    def games(self) -> int:
        return len(self.samples)

    def to_dict(self) -> dict:
        return {
            "games": self.games,
            "cubeful": True,
            "equity": round(self.equity, 6),
            "equity_se": round(self.equity_se, 6),
            "doubles": self.doubles,
            "passes": self.passes,
        }


def cubeful_rollout(
    ev: Evaluator,
    board: np.ndarray,
    cube: CubeState,
    match: MatchState,
    settings: RolloutSettings,
    progress: Callable[[int], None] | None = None,
) -> CubefulRollout:
    """Roll out ``board`` (side on roll about to roll) with ``cube`` and ``match`` from that side."""
    g = settings.games
    trials = np.arange(g)
    boards = np.repeat(np.asarray(board, dtype=np.int8).reshape(1, NUM_SLOTS), g, axis=0)
    own = np.ones(g, dtype=bool)
    value = np.full(g, cube.value, dtype=np.int64)
    owner = np.full(g, {CubeOwner.ME: 1, CubeOwner.OPPONENT: -1, CubeOwner.CENTERED: 0}[cube.owner])
    out = np.zeros(g)
    active = np.ones(g, dtype=bool)
    doubles = passes = 0

    def result(root_points: int) -> float:
        if match.is_money:
            return root_points / cube.value
        mwc = mwc_after(match, root_points, 0) if root_points > 0 else mwc_after(match, 0, -root_points)
        return mwc_to_equity(mwc, cube, match)

    def side_state(i: int) -> tuple[CubeState, MatchState]:
        o = owner[i] if own[i] else -owner[i]
        return CubeState(int(value[i]), _OWNER[int(o)]), (match if own[i] else match.flipped())

    def finish(i: int, eq: float) -> None:
        out[i] = eq
        active[i] = False
        if progress is not None:
            progress(1)

    for t in range(settings.max_plies + 1):
        idx = np.flatnonzero(active)
        if len(idx) == 0:
            break
        if (settings.truncate is not None and t >= settings.truncate) or t == settings.max_plies:
            probs = ev.probabilities(boards[idx], settings.ply)
            for i, p in zip(idx.tolist(), probs, strict=True):
                c, m = side_state(i)
                eq = cubeful_equity(p, c, m, pips=race_pips(boards[i]), cube_action=True)
                if not match.is_money:
                    mwc = equity_to_mwc(eq, c, m)
                    eq = mwc_to_equity(mwc if own[i] else 1.0 - mwc, cube, match)
                else:
                    eq = eq * value[i] / cube.value * (1 if own[i] else -1)
                finish(i, eq)
            break
        # Cube decisions of the sides on roll that may double.
        states = {i: side_state(i) for i in idx.tolist()}
        may = np.array([may_double(*states[int(i)]) for i in idx], dtype=bool)
        if may.any():
            cand = idx[may]
            probs = ev.probabilities(boards[cand], settings.ply)
            for i, p in zip(cand, probs, strict=True):
                c, m = states[int(i)]
                d = cube_decision(p, c, m, pips=race_pips(boards[i]))
                if not d.double:
                    continue
                doubles += 1
                if d.take:
                    value[i] *= 2
                    owner[i] = -1 if own[i] else 1  # the taker owns it (root's view)
                else:
                    passes += 1
                    finish(i, result(int(value[i]) * (1 if own[i] else -1)))
            idx = np.flatnonzero(active)
            if len(idx) == 0:
                break
        dice = trial_dice(settings.seed, t, trials[idx], stratify=settings.stratify, total=g)
        batch = generate(boards[idx], dice)
        rows = ev.choose(batch, None, settings.ply)
        moved = rows >= 0
        new = np.empty((len(idx), NUM_SLOTS), dtype=np.int8)
        new[moved] = batch.positions[rows[moved]]
        new[~moved] = flip_board(boards[idx[~moved]])
        boards[idx] = new
        own[idx] = ~own[idx]
        over = ~(new < 0).any(axis=1)
        for j in np.flatnonzero(over):
            i = idx[j]
            res = outcome(new[j])  # seen from the loser, now on roll
            assert res is not None  # the game is over: `over` says the side that moved has no checker left
            points = int(res.kind) * int(value[i])
            finish(i, result(-points if own[i] else points))
    return CubefulRollout(out, doubles, passes)
