"""Cube decisions and cubeful equities from the 5 cubeless probabilities.

Pure functions over two frozen dataclasses: :class:`CubeState` (the cube's
value and owner) and :class:`MatchState` (money play with its rules, or a
match: length, score, Crawford).  Everything is seen from the side on roll,
whose probabilities ``(win, win gammon, win backgammon, lose gammon, lose
backgammon)`` are given (gammons include backgammons, as everywhere in bgnet).

Equities are *normalised to the current cube*, the convention of GNU
Backgammon and eXtreme Gammon: "Double, pass" is always +1.0 and a cubeless
single win is +1.0, whatever the cube's value (multiply by ``cube.value`` for
points).  In match play equities are "money equivalents" of match winning
chances (MWC), linear in MWC: -1 is losing ``cube.value`` points, +1 winning
them (:func:`mwc_to_equity`, :func:`equity_to_mwc`).

Sources of the formulas
-----------------------
Rick Janowski, "Take-Points in Money Games" (1993): the cubeful equity of a
money position is interpolated between the dead-cube (cubeless) equity and the
equity of a fully live cube, ``E = (1 - x) E_dead + x E_live``, where ``x`` is
the cube efficiency; ``E_live`` is piecewise linear in the winning chance
between the live-cube take point ``TP = (L - 1/2) / (W + L + 1/2)`` and cash
point ``CP = (L + 1) / (W + L + 1/2)``, ``W`` and ``L`` being the average
cubeless values of the games won and lost.  It gives the take point
``(L' - 1/2) / (W' + L' + x/2)`` for the taker's ``W'``, ``L'`` (25 % for a dead
cube without gammons, 20 % for a fully live one).

GNU Backgammon 1.07, ``eval.c`` and ``matchequity.c`` (read for the facts; the
code here is our own), which this module follows exactly at 0-ply so that
each decision can be checked against the real program:

* ``Cl2CfMoney`` / ``MoneyLive``: Janowski's interpolation above for a
  centred, owned or unavailable cube; with the Jacoby rule and a centred cube
  the dead-cube equity ignores gammons (gammon price 0) and the live-cube
  equity is clamped to -1 / +1 outside the take and cash points.
* ``Cl2CfMatchCentered`` / ``Owned`` / ``Unavailable`` (Joern Thyssen's
  generalisation to match play): the same interpolation in MWC between the
  dead-cube MWC and a live-cube MWC drawn through the cash points of
  ``GetPoints`` (``matchequity.c``), which follows the cube up to the level
  where it dies, with automatic redoubles.
* ``fDoCubeful``: no cubeful evaluation (cubeless MWC) in the Crawford game,
  when the cube is dead for both sides, and at 2-away/2-away with a centred
  cube -- there gnubg treats the cube as dead for the side on roll.
* ``GetDPEq``: Double, pass is +1 in money play and the MET entry for winning
  the cube's value in a match; the cube is available to the side on roll when
  it is centred or its own, and in a match not in the Crawford game, not for
  the leader post-Crawford, and not when its current value already wins the
  match (a dead cube).
* ``FindBestCubeDecision``: the decision from No double (ND), Double/take (DT)
  and Double/pass (DP), its "optional" cases (within 1e-5), too good to double
  only when a gammon is possible, and beavers (money, ``-2 <= DT <= 0``).
* ``EvalEfficiency``: the cube efficiency ``x`` is 0.68 in contact and crashed
  positions and ``0.55 + 0.00125 * pips`` clamped to [0.6, 0.7] in races,
  ``pips`` being the pip count of the side on roll.
* ``getME`` / ``getMEMultiple`` / ``getGammonPrice`` / ``eq2mwc`` / ``mwc2eq``:
  MWC after a result from the Kazaross-XG2 table (:mod:`bgnet.met`; the
  post-Crawford row once a side is at 1-away), gammon prices and the
  MWC <-> equity conversions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeAlias

from bgnet.errors import BgnetError
from bgnet.match import (
    MONEY,
    CubeOwner,
    CubeState,
    InvalidCubeError,
    InvalidMatchError,
    MatchState,
    may_double,
)
from bgnet.met import MAX_AWAY, POST_CRAWFORD, PRE_CRAWFORD

if TYPE_CHECKING:
    import numpy as np

Probabilities: TypeAlias = "Sequence[float] | np.ndarray"
"""Five probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon): a sequence or array."""

__all__ = [
    "CONTACT_EFFICIENCY",
    "CubeDecision",
    "CubeOwner",
    "CubeState",
    "InvalidCubeError",
    "InvalidMatchError",
    "InvalidProbabilitiesError",
    "MatchState",
    "automatic_double",
    "cube_decision",
    "cube_efficiency",
    "cubeful_equity",
    "equity_to_mwc",
    "may_double",
    "mwc_to_equity",
    "race_pips",
    "take_point",
]

CONTACT_EFFICIENCY = 0.68  # gnubg rContactX and rCrashedX
RACE_COEFFICIENT = 0.55  # gnubg rRaceCoefficientX
RACE_FACTOR = 0.00125  # gnubg rRaceFactorX, per pip of the side on roll
RACE_MIN, RACE_MAX = 0.6, 0.7  # gnubg rRaceMin, rRaceMax
OPTIONAL_EPSILON = 1.0e-5  # gnubg isOptional
_PROB_TOLERANCE = 1.0e-6


class InvalidProbabilitiesError(BgnetError):
    """Probabilities that are not 5 consistent numbers in [0, 1]."""


def _match_or_money(match: MatchState | None) -> MatchState:
    if match is None:
        return MONEY
    if not isinstance(match, MatchState):
        raise InvalidMatchError(f"match must be a MatchState or None, got {type(match).__name__}")
    if match.length > MAX_AWAY:
        raise InvalidMatchError(
            f"cube decisions cover matches of 1 to {MAX_AWAY} points (the match equity table), "
            f"got {match.length}"
        )
    return match


def _check_cube(cube: CubeState, match: MatchState) -> None:
    if not isinstance(cube, CubeState):
        raise InvalidCubeError(f"cube must be a CubeState, got {type(cube).__name__}")
    if match.is_money:
        return
    if cube.centered and cube.value != 1:
        raise InvalidCubeError(f"in a match a centred cube is on 1, got {cube.value}")
    if match.crawford and not (cube.centered and cube.value == 1):
        raise InvalidCubeError("no doubling in the Crawford game: the cube stays centred on 1")


def _probs(probs: Probabilities) -> tuple[float, float, float, float, float]:
    """Validated probabilities as floats (small rounding errors are tolerated, not corrected)."""
    try:
        p = [float(x) for x in probs]
    except (TypeError, ValueError):
        raise InvalidProbabilitiesError(f"probabilities must be 5 numbers, got {probs!r}") from None
    if len(p) != 5:
        raise InvalidProbabilitiesError(
            f"probabilities must be 5 numbers (W, WG, WBG, LG, LBG), got {len(p)}"
        )
    if not all(math.isfinite(x) for x in p):
        raise InvalidProbabilitiesError(f"probabilities must be finite, got {p}")
    w, wg, wbg, lg, lbg = p
    t = _PROB_TOLERANCE
    names = ("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon")
    for name, x in zip(names, p, strict=True):
        if not -t <= x <= 1 + t:
            raise InvalidProbabilitiesError(f"the {name} probability must be in [0, 1], got {x}")
    if wg > w + t or wbg > wg + t:
        raise InvalidProbabilitiesError(
            f"wins must include gammons and gammons backgammons: W={w}, WG={wg}, WBG={wbg}"
        )
    if lg > 1 - w + t or lbg > lg + t:
        raise InvalidProbabilitiesError(
            f"losses (1 - W = {1 - w}) must include gammons and gammons backgammons: LG={lg}, LBG={lbg}"
        )
    return w, wg, wbg, lg, lbg


# --------------------------------------------------------------------------
# Cube efficiency (gnubg EvalEfficiency)
# --------------------------------------------------------------------------


def race_pips(board) -> int | None:
    """The side on roll's pip count when ``board`` is a race (no contact), else None: the ``pips``
    argument of :func:`cube_decision` that selects the race cube efficiency."""
    from bgnet.position import Position
    from bgnet.pubeval import is_race

    b = Position(board, validate=False)
    pips = b.pips()[0]
    return pips if pips > 0 and bool(is_race(b.board[None, :])[0]) else None


def cube_efficiency(pips: int | None = None) -> float:
    """Janowski's cube efficiency ``x`` as gnubg 1.07 sets it.

    ``pips=None`` (contact or crashed position): 0.68.  In a race, ``pips`` is
    the pip count of the side on roll: ``0.55 + 0.00125 * pips`` clamped to
    [0.6, 0.7] (gnubg ``EvalEfficiency``, ``CLASS_RACE``).
    """
    if pips is None:
        return CONTACT_EFFICIENCY
    if isinstance(pips, bool) or not isinstance(pips, int) or not 1 <= pips <= 375:
        raise InvalidCubeError(f"pips must be a whole number from 1 to 375, got {pips!r}")
    return min(RACE_MAX, max(RACE_MIN, RACE_COEFFICIENT + RACE_FACTOR * pips))


def _efficiency(pips: int | None, efficiency: float | None) -> float:
    if efficiency is None:
        return cube_efficiency(pips)
    x = float(efficiency)
    if not 0.0 <= x <= 1.0:
        raise InvalidCubeError(f"cube efficiency must be in [0, 1], got {efficiency}")
    return x


# --------------------------------------------------------------------------
# Match equities after a result (gnubg getME), gammon prices, MWC <-> equity
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Score:
    """A match score from the side on roll: points needed, and which table applies."""

    away: int
    opp_away: int
    post: bool  # gnubg getME: the Crawford game or a side at 1-away -> results use the post-Crawford row
    crawford: bool

    @classmethod
    def of(cls, m: MatchState) -> _Score:
        return cls(m.away, m.opp_away, m.crawford or m.away == 1 or m.opp_away == 1, m.crawford)

    def mwc(self, won: int, lost: int) -> float:
        """MWC of the side on roll after it wins ``won`` points or loses ``lost`` (one of them 0)."""
        a = self.away - won
        b = self.opp_away - lost
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if self.post:
            # one side is at 1-away; the row holds the trailer's MWC
            return 1.0 - POST_CRAWFORD[b - 1] if a == 1 else POST_CRAWFORD[a - 1]
        return PRE_CRAWFORD[a - 1][b - 1]

    def win(self, points: int) -> float:
        return self.mwc(points, 0)

    def lose(self, points: int) -> float:
        return self.mwc(0, points)

    def flipped(self) -> _Score:
        return _Score(self.opp_away, self.away, self.post, self.crawford)


def _gammon_prices(sc: _Score, cube: int) -> tuple[float, float, float, float]:
    """(win gammon, lose gammon, win backgammon, lose backgammon) prices: gnubg getGammonPrice.

    The extra value of a gammon (and of a backgammon over a gammon) in units
    where a single game is worth 1, from the MWC of winning and losing 1, 2
    and 3 times the cube; negative prices (a dead cube) are set to 0.
    """
    win, lose = sc.win(cube), sc.lose(cube)
    center = (win + lose) / 2.0
    half = win - center
    if abs(half) <= 1.0e-7:
        return 0.0, 0.0, 0.0, 0.0
    gw = (sc.win(2 * cube) - center) / half - 1.0
    gl = (center - sc.lose(2 * cube)) / half - 1.0
    bw = (sc.win(3 * cube) - center) / half - (gw + 1.0)
    bl = (center - sc.lose(3 * cube)) / half - (gl + 1.0)
    return max(gw, 0.0), max(gl, 0.0), max(bw, 0.0), max(bl, 0.0)


def _utility(p: tuple[float, ...], cube: CubeState, match: MatchState, sc: _Score | None) -> float:
    """Cubeless equity with the gammon prices of the score (gnubg Utility)."""
    w, wg, wbg, lg, lbg = p
    if match.is_money:
        price = 0.0 if (match.jacoby and cube.centered) else 1.0
        return 2.0 * w - 1.0 + (wg - lg) * price + (wbg - lbg) * price
    assert sc is not None
    gw, gl, bw, bl = _gammon_prices(sc, cube.value)
    return 2.0 * w - 1.0 + wg * gw - lg * gl + wbg * bw - lbg * bl


def _eq2mwc(eq: float, sc: _Score, cube: int) -> float:
    win, lose = sc.win(cube), sc.lose(cube)
    return 0.5 * (eq * (win - lose) + (win + lose))


def _mwc2eq(mwc: float, sc: _Score, cube: int) -> float:
    win, lose = sc.win(cube), sc.lose(cube)
    return (2.0 * mwc - (win + lose)) / (win - lose)


def _require_match(cube: CubeState | int, match: MatchState | None) -> tuple[_Score, int]:
    if not isinstance(match, MatchState) or match.is_money:
        raise InvalidMatchError(
            "match winning chances need a match (MatchState with a length), not money play"
        )
    value = cube.value if isinstance(cube, CubeState) else CubeState(cube).value
    return _Score.of(match), value


def equity_to_mwc(equity: float, cube: CubeState | int, match: MatchState) -> float:
    """MWC of the side on roll for an equity normalised to ``cube`` (gnubg eq2mwc).

    Linear: -1 is the MWC after losing ``cube.value`` points, +1 after winning them.
    """
    sc, value = _require_match(cube, match)
    return _eq2mwc(float(equity), sc, value)


def mwc_to_equity(mwc: float, cube: CubeState | int, match: MatchState) -> float:
    """Equity normalised to ``cube`` for an MWC of the side on roll (gnubg mwc2eq).

    The inverse of :func:`equity_to_mwc`.
    """
    sc, value = _require_match(cube, match)
    return _mwc2eq(float(mwc), sc, value)


# --------------------------------------------------------------------------
# Money play: Janowski (gnubg Cl2CfMoney, MoneyLive)
# --------------------------------------------------------------------------


def _money_live(rw: float, rl: float, p: float, owner: CubeOwner, jacoby: bool) -> float:
    """Equity with a fully live cube, piecewise linear in the winning chance ``p``."""
    if owner is CubeOwner.CENTERED:
        tp = (rl - 0.5) / (rw + rl + 0.5)  # opponent's cash point, seen by us
        cp = (rl + 1.0) / (rw + rl + 0.5)  # our cash point
        if p < tp:
            return -1.0 if jacoby else -rl + (-1.0 + rl) * p / tp
        if p < cp:
            return -1.0 + 2.0 * (p - tp) / (cp - tp)
        return 1.0 if jacoby else 1.0 + (rw - 1.0) * (p - cp) / (1.0 - cp)
    if owner is CubeOwner.ME:
        cp = (rl + 1.0) / (rw + rl + 0.5)
        if p < cp:
            return -rl + (1.0 + rl) * p / cp
        return 1.0 + (rw - 1.0) * (p - cp) / (1.0 - cp)
    tp = (rl - 0.5) / (rw + rl + 0.5)
    if p < tp:
        return -rl + (-1.0 + rl) * p / tp
    return -1.0 + (rw + 1.0) * (p - tp) / (1.0 - tp)


def _money_cubeful(p: tuple[float, ...], cube: CubeState, match: MatchState, x: float) -> float:
    """Janowski's cubeful money equity (gnubg Cl2CfMoney), normalised to the cube."""
    w, wg, wbg, lg, lbg = p
    dead = _utility(p, cube, match, None)
    if not w > 1.0e-7 or not w < 0.9999999:  # basically a dead cube
        return dead
    rw = 1.0 + (wg + wbg) / w
    rl = 1.0 + (lg + lbg) / (1.0 - w)
    live = _money_live(rw, rl, w, cube.owner, match.jacoby)
    return dead * (1.0 - x) + live * x


# --------------------------------------------------------------------------
# Match play (gnubg GetPoints, Cl2CfMatch*)
# --------------------------------------------------------------------------


def _ratios(p: tuple[float, ...]) -> tuple[float, float, float, float]:
    """(gammon, backgammon) shares of our wins, then of our losses (gammons here exclude backgammons)."""
    w, wg, wbg, lg, lbg = p
    g0, b0 = ((wg - wbg) / w, wbg / w) if w > 0.0 else (0.0, 0.0)
    g1, b1 = ((lg - lbg) / (1.0 - w), lbg / (1.0 - w)) if w < 1.0 else (0.0, 0.0)
    return g0, b0, g1, b1


def _cube_prime(away_m1: int, opp_away_m1: int, cube: int) -> int:
    """gnubg GetCubePrimeValue: a side that must double at once (automatic redouble) makes the cube 2x."""
    return 2 * cube if away_m1 < 2 * cube and opp_away_m1 >= 2 * cube else cube


def _cash_points(p: tuple[float, ...], sc: _Score, cube: int) -> tuple[float, float]:
    """Live-cube cash points (ours, the opponent's) in each side's winning chance (gnubg GetPoints).

    Follows the cube up from ``cube`` to the level at which it is dead for one
    side, where the cash point is the dead-cube one (with the automatic
    redouble of a side that must double at once); below that level each cash
    point follows from the other side's one level up.
    """
    g0, b0, g1, b1 = _ratios(p)
    gam = (g0, g1)  # gammon share of side k's wins: k = 0 us, 1 the opponent
    bgs = (b0, b1)
    scores = (sc, sc.flipped())  # MWC tables seen by side k
    i, j = sc.away - 1, sc.opp_away - 1
    n_dead, n_max = cube, 0
    while i >= 2 * n_dead and j >= 2 * n_dead:
        n_max += 1
        n_dead *= 2
    live: list[list[float]] = [[0.0] * (n_max + 2), [0.0] * (n_max + 2)]
    value, n = n_dead, n_max
    while value >= cube:
        primes = (_cube_prime(i, j, value), _cube_prime(j, i, value))
        for k in (0, 1):
            s = scores[k]
            g, bg = gam[k], bgs[k]
            og, obg = gam[1 - k], bgs[1 - k]
            if i < 2 * value or j < 2 * value:
                c = primes[k]
                dtl = (1.0 - og - obg) * s.lose(2 * c) + og * s.lose(4 * c) + obg * s.lose(6 * c)
                dp = s.win(value)
                dtw = (1.0 - g - bg) * s.win(2 * c) + g * s.win(4 * c) + bg * s.win(6 * c)
                live[k][n] = (dtl - dp) / (dtl - dtw)
            else:
                rdp = s.lose(2 * value)
                dp = s.win(value)
                dtw = (1.0 - g - bg) * s.win(2 * value) + g * s.win(4 * value) + bg * s.win(6 * value)
                live[k][n] = 1.0 - live[1 - k][n + 1] * (dp - dtw) / (rdp - dtw)
        value //= 2
        n -= 1
    return live[0][0], live[1][0]


def _do_cubeful(sc: _Score, cube: int) -> bool:
    """gnubg fDoCubeful: False in the Crawford game, for a cube dead for both sides, and at 2-away/2-away."""
    if sc.away <= cube and sc.opp_away <= cube:
        return False
    if sc.away == 2 and sc.opp_away == 2:
        return False
    return not sc.crawford


def _match_cubeful_mwc(p: tuple[float, ...], cube: CubeState, match: MatchState, x: float) -> float:
    """Cubeful MWC of the side on roll not doubling now (gnubg Cl2CfMatch)."""
    sc = _Score.of(match)
    dead = _eq2mwc(_utility(p, cube, match, sc), sc, cube.value)
    if not _do_cubeful(sc, cube.value):
        return dead
    w = p[0]
    g0, b0, g1, b1 = _ratios(p)
    v = cube.value
    cp_me, cp_opp = _cash_points(p, sc, v)
    cash, opp_cash = sc.win(v), sc.lose(v)
    lose_all = (1.0 - g1 - b1) * sc.lose(v) + g1 * sc.lose(2 * v) + b1 * sc.lose(3 * v)
    win_all = (1.0 - g0 - b0) * sc.win(v) + g0 * sc.win(2 * v) + b0 * sc.win(3 * v)
    opp_tg = 1.0 - cp_opp  # below this the opponent is too good to double
    tg = cp_me  # above this we are too good to double
    if cube.owner is CubeOwner.CENTERED:
        if w <= opp_tg:
            live = lose_all + (opp_cash - lose_all) * w / opp_tg if opp_tg > 0.0 else lose_all
        elif w < tg:
            live = opp_cash + (cash - opp_cash) * (w - opp_tg) / (tg - opp_tg)
        else:
            live = cash + (win_all - cash) * (w - tg) / (1.0 - tg) if tg < 1.0 else win_all
    elif cube.owner is CubeOwner.ME:
        if w <= tg:
            live = lose_all + (cash - lose_all) * w / tg if tg > 0.0 else lose_all
        else:
            live = cash + (win_all - cash) * (w - tg) / (1.0 - tg) if tg < 1.0 else win_all
    else:
        if w <= opp_tg:
            live = lose_all + (opp_cash - lose_all) * w / opp_tg if opp_tg > 0.0 else lose_all
        else:
            live = opp_cash + (win_all - opp_cash) * (w - opp_tg) / (1.0 - opp_tg)
    return dead * (1.0 - x) + live * x


# --------------------------------------------------------------------------
# The decision
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class _Equities:
    nd: float
    dt: float
    dp: float
    mwc: dict[str, float] | None


def _equities(p: tuple[float, ...], cube: CubeState, match: MatchState, x: float) -> _Equities:
    """ND, DT and DP normalised to the current cube (gnubg GeneralCubeDecisionE at 0-ply)."""
    taken = cube.doubled()
    if match.is_money:
        return _Equities(
            _money_cubeful(p, cube, match, x), 2.0 * _money_cubeful(p, taken, match, x), 1.0, None
        )
    sc = _Score.of(match)
    nd = _match_cubeful_mwc(p, cube, match, x)
    dt = _match_cubeful_mwc(p, taken, match, x)
    dp = sc.win(cube.value)
    mwc = {"no_double": nd, "double_take": dt, "double_pass": dp}
    return _Equities(_mwc2eq(nd, sc, cube.value), _mwc2eq(dt, sc, cube.value), 1.0, mwc)


@dataclass(frozen=True)
class CubeDecision:
    """The cube decision of the side on roll and what each action is worth.

    Equities are normalised to the current cube (Double, pass = +1.0).

    Attributes:
        no_double, double_take, double_pass: cubeful equities of the three
            outcomes for the side on roll (Double/take is the equity after the
            double and take, counted in units of the current cube).
        optimal: the side on roll's equity when both sides act right.
        action: the decision in gnubg's words ("No double, take",
            "Double, pass", "Too good to redouble, pass", "Redouble, beaver",
            "Never double, take (dead cube)", ...).
        doubler_action: the side on roll's part ("No double", "Redouble",
            "Too good to double", "Optional double", ...).
        taker_action: the opponent's answer to a double: "take", "pass" or
            "beaver"; None when the cube is not available.
        double: doubling (or redoubling) is right and strictly better than not.
        take: the opponent should take (or beaver) a double.
        too_good: too good to double: playing on for a gammon beats cashing.
        beaver: the opponent should beaver (money play with beavers only).
        optional: doubling and not doubling are worth the same (within 1e-5).
        available: the side on roll may double now.
        costs: equity lost by each action against the right one, given the
            other side acts right: ``no_double`` and ``double`` for the side
            on roll; ``take``, ``pass`` (and ``beaver`` when beavers are
            allowed) for the opponent, whose equity is minus ours.  0 for the
            right action.  As in gnubg, a beaver counts only for
            ``-2 <= double_take <= 0``.  The costs of doubling and of the
            answers are None when the cube is not available.
        mwc: in a match, the match winning chances of ``no_double``,
            ``double_take`` and ``double_pass``; None in money play.
        cube: the cube state decided on.
        efficiency: the cube efficiency used.
    """

    no_double: float
    double_take: float
    double_pass: float
    optimal: float
    action: str
    doubler_action: str
    taker_action: str | None
    double: bool
    take: bool
    too_good: bool
    beaver: bool
    optional: bool
    available: bool
    costs: dict[str, float | None] = field(hash=False)
    mwc: dict[str, float] | None = field(hash=False)
    cube: CubeState = CubeState()
    efficiency: float = CONTACT_EFFICIENCY

    def to_dict(self) -> dict:
        """A JSON-ready dict (the ``bgnet cube --json`` object)."""
        d = {
            "no_double": self.no_double,
            "double_take": self.double_take,
            "double_pass": self.double_pass,
            "optimal": self.optimal,
            "action": self.action,
            "doubler_action": self.doubler_action,
            "taker_action": self.taker_action,
            "double": self.double,
            "take": self.take,
            "too_good": self.too_good,
            "beaver": self.beaver,
            "optional": self.optional,
            "available": self.available,
            "costs": dict(self.costs),
            "cube": {"value": self.cube.value, "owner": self.cube.owner.value},
            "efficiency": self.efficiency,
        }
        if self.mwc is not None:
            d["mwc"] = dict(self.mwc)
        return d


def _is_optional(a: float, b: float) -> bool:
    return abs(a - b) <= OPTIONAL_EPSILON


def _decide(
    e: _Equities, p: tuple[float, ...], cube: CubeState, match: MatchState
) -> tuple[str, str, str | None]:
    """(kind, doubler's words, taker's answer) following gnubg FindBestCubeDecision.

    ``kind`` is one of: double, optional_double, no_double, too_good, dead,
    not_available.
    """
    nd, dt, dp = e.nd, e.dt, e.dp
    re = not cube.centered
    dbl = "Redouble" if re else "Double"
    gammon_possible = p[1] > 0.0
    beaver_range = match.is_money and match.beavers and -2.0 <= dt <= 0.0
    if not may_double(cube, match):
        if not match.is_money and cube.owner is not CubeOwner.OPPONENT:
            return "dead", ("Never redouble" if re else "Never double") + " (dead cube)", "take"
        return "not_available", "No double (cube not available)", None
    if dt >= nd and dp >= nd:
        if dp > dt:  # Double, take
            optional = _is_optional(dt, nd)
            if beaver_range:
                if dt * 2.0 < nd:
                    return "no_double", "No redouble" if re else "No double", "beaver"
                return (
                    ("optional_double" if optional else "double"),
                    (f"Optional {dbl.lower()}" if optional else dbl),
                    "beaver",
                )
            return (
                ("optional_double" if optional else "double"),
                (f"Optional {dbl.lower()}" if optional else dbl),
                "take",
            )
        # DT >= DP >= ND: Double, pass
        if _is_optional(nd, dp) and gammon_possible and (not match.is_money or re or not match.jacoby):
            return "optional_double", f"Optional {dbl.lower()}", "pass"
        return "double", dbl, "pass"
    if nd > dt:
        if dt > dp:  # ND > DT > DP
            if gammon_possible:
                return "too_good", f"Too good to {dbl.lower()}", "pass"
            return "double", dbl, "pass"
        if nd > dp:  # ND > DP >= DT
            if gammon_possible:
                return "too_good", f"Too good to {dbl.lower()}", "take"
            return "no_double", "No redouble" if re else "No double", "take"
        # DP >= ND > DT
        answer = "beaver" if beaver_range else "take"
        return "no_double", "No redouble" if re else "No double", answer
    # DT >= ND > DP
    if gammon_possible:
        return "too_good", f"Too good to {dbl.lower()}", "pass"
    return "double", dbl, "pass"


def cube_decision(
    probs: Probabilities,
    cube: CubeState | None = None,
    match: MatchState | None = None,
    *,
    pips: int | None = None,
    efficiency: float | None = None,
) -> CubeDecision:
    """The cube decision of the side on roll from its cubeless probabilities.

    Args:
        probs: (win, win gammon, win backgammon, lose gammon, lose backgammon)
            of the side on roll, before it rolls.
        cube: the cube (default: centred on 1).
        match: the match state (default: money play without Jacoby or beavers).
        pips: the pip count of the side on roll in a race; sets the cube
            efficiency by :func:`cube_efficiency` (default: 0.68, contact).
        efficiency: the cube efficiency ``x`` in [0, 1], overriding ``pips``.

    Follows gnubg 1.07's 0-ply ``GeneralCubeDecisionE`` + ``FindCubeDecision``
    (see the module docstring); equities are normalised to the current cube.
    """
    cube = CubeState() if cube is None else cube
    match = _match_or_money(match)
    _check_cube(cube, match)
    p = _probs(probs)
    x = _efficiency(pips, efficiency)
    e = _equities(p, cube, match, x)
    kind, doubler, taker = _decide(e, p, cube, match)
    available = kind != "not_available" and kind != "dead"
    nd, dt, dp = e.nd, e.dt, e.dp

    # gnubg counts a beaver only for -2 <= DT <= 0 (FindBestCubeDecision); so do the costs
    may_beaver = match.is_money and match.beavers
    beaver_counts = may_beaver and -2.0 <= dt <= 0.0
    if available:
        answer = min(dt, dp, 2.0 * dt) if beaver_counts else min(dt, dp)
        best = max(nd, answer)
        costs: dict[str, float | None] = {"no_double": best - nd, "double": best - answer}
        taker_best = max(-dt, -dp, -2.0 * dt) if beaver_counts else max(-dt, -dp)
        costs["take"] = taker_best + dt
        costs["pass"] = taker_best + dp
        if may_beaver:
            costs["beaver"] = max(0.0, taker_best + 2.0 * dt)
    else:
        best = nd
        costs = {"no_double": 0.0, "double": None, "take": None, "pass": None}
        if may_beaver:
            costs["beaver"] = None

    if taker is None:
        action = doubler
    else:
        action = f"{doubler}, {taker}"
        if doubler.endswith("(dead cube)"):
            action = doubler.replace(" (dead cube)", f", {taker} (dead cube)")
    return CubeDecision(
        no_double=nd,
        double_take=dt,
        double_pass=dp,
        optimal=best,
        action=action,
        doubler_action=doubler,
        taker_action=taker,
        double=kind == "double",
        take=taker != "pass",
        too_good=kind == "too_good",
        beaver=taker == "beaver",
        optional=kind == "optional_double",
        available=available,
        costs=costs,
        mwc=e.mwc,
        cube=cube,
        efficiency=x,
    )


def cubeful_equity(
    probs: Probabilities,
    cube: CubeState | None = None,
    match: MatchState | None = None,
    *,
    pips: int | None = None,
    efficiency: float | None = None,
    cube_action: bool = False,
) -> float:
    """Cubeful equity of the side on roll, normalised to the cube.

    By default the equity when the side on roll does not double now (gnubg
    Cl2CfMoney / Cl2CfMatch: the "No double" equity, which still counts the
    cube's later use).  With ``cube_action=True`` the side on roll takes its
    best cube action first, the opponent answering right (gnubg GetECF3, the
    cubeful equity gnubg gives a position when ranking plays): that is the
    equity to report for a play, evaluated from the opponent's side after it.
    In a match the equity is an MWC converted by :func:`mwc_to_equity`.
    """
    cube = CubeState() if cube is None else cube
    match = _match_or_money(match)
    _check_cube(cube, match)
    p = _probs(probs)
    x = _efficiency(pips, efficiency)
    if not cube_action or not may_double(cube, match):
        if match.is_money:
            return _money_cubeful(p, cube, match, x)
        sc = _Score.of(match)
        return _mwc2eq(_match_cubeful_mwc(p, cube, match, x), sc, cube.value)
    e = _equities(p, cube, match, x)
    if e.dt >= e.nd and e.dp >= e.nd:
        return e.dp if e.dt >= e.dp else e.dt
    return e.nd


def take_point(
    probs: Probabilities,
    cube: CubeState | None = None,
    match: MatchState | None = None,
    *,
    pips: int | None = None,
    efficiency: float | None = None,
) -> float:
    """The taker's take point: its lowest cubeless winning chance for which taking is right.

    Solved in this module's model (Double/take equal to Double/pass) with the
    gammon and backgammon shares of ``probs`` held fixed, for a double by the
    side on roll from ``cube``.  In money play this is Janowski's
    ``(L' - 1/2) / (W' + L' + x/2)``, with the taker's average win ``W'`` and
    loss ``L'``.
    """
    cube = CubeState() if cube is None else cube
    match = _match_or_money(match)
    _check_cube(cube, match)
    w, wg, wbg, lg, lbg = _probs(probs)
    x = _efficiency(pips, efficiency)
    g0, b0, g1, b1 = _ratios((w, wg, wbg, lg, lbg))

    def dt_minus_dp(q: float) -> float:
        pq = (q, (g0 + b0) * q, b0 * q, (g1 + b1) * (1 - q), b1 * (1 - q))
        e = _equities(pq, cube, match, x)
        return e.dt - e.dp

    lo, hi = 0.0, 1.0  # doubler's winning chance; DT - DP rises with it
    if dt_minus_dp(hi) < 0.0:
        return 0.0
    if dt_minus_dp(lo) >= 0.0:
        return 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if dt_minus_dp(mid) < 0.0:
            lo = mid
        else:
            hi = mid
    return 1.0 - 0.5 * (lo + hi)


def automatic_double(cube: CubeState, match: MatchState | None = None) -> CubeState:
    """The cube after the opening roll ties, in money play with automatic doubles.

    The cube is doubled and stays centred while fewer than
    ``match.auto_doubles`` automatic doubles have been made (the cube's value
    counts them); otherwise, and in a match, it is unchanged.  An automatic
    double does not turn the cube: the Jacoby rule still applies to a centred
    cube on 2 or 4.
    """
    match = _match_or_money(match)
    if not isinstance(cube, CubeState):
        raise InvalidCubeError(f"cube must be a CubeState, got {type(cube).__name__}")
    if not match.is_money or not cube.centered:
        return cube
    if cube.value.bit_length() - 1 >= match.auto_doubles:
        return cube
    return CubeState(cube.value * 2, CubeOwner.CENTERED)
