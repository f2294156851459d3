"""Whole-match analysis: every checker play and cube decision of a match, its equity loss and the luck.

:func:`analyze_match` replays each game of a :class:`bgnet.game.Match` (read
from a ``.mat`` file by :func:`bgnet.matfile.read_mat`) and evaluates, at
``ply``, cubeful with the cube and the match score of the moment (as
``bgnet analyze`` does; equities normalised to the current cube, in the
mover's favour):

* **checker plays** with more than one legal play (forced plays are not
  decisions): the loss is the best play's equity minus the play made, both
  valued at ``ply`` (the play made is valued at ``ply`` even when the move
  filter dropped it);
* **cube decisions** (:func:`bgnet.cube.cube_decision` on the probabilities
  at ``ply``): a double, a take or a drop is always a decision; not doubling
  is a decision when the player may double and either doubling was right
  or it was close (double-take or double-pass, whichever the opponent
  would choose, within :data:`CLOSE_CUBE` of no double).  A double loses
  ``optimal - min(double-take, double-pass)``, not doubling ``optimal -
  no-double``, a take ``DT - min(DT, DP)`` and a drop ``DP - min(DT, DP)``.

Per player: ``decisions`` (unforced checker plays plus cube decisions),
``error_rate`` (mean equity lost per decision x 1000, gnubg's mEMG),
``pr`` (XG's performance rating: equity lost per unforced decision x 500),
counts of ``doubtful`` plays (loss in [0.04, 0.08)), ``errors`` ([0.08,
0.16)) and ``blunders`` (0.16 or more) -- gnubg 1.07's default thresholds
for "doubtful", "bad" and "very bad" -- and ``luck``: the sum over the
player's rolls (the opening roll left out) of the value of the roll thrown
minus the mean value of the 21 rolls, each roll valued by its best 0-ply play
(cubeless equity: :func:`bgnet.rollout.best_of_rolls`); ``luck_rate`` is
its mean per roll x 1000.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from bgnet.cube import cube_decision, cubeful_equity, race_pips
from bgnet.dice import ROLL_INDEX, ROLL_WEIGHTS, Dice
from bgnet.evaluator import Evaluator
from bgnet.formats import Xgid
from bgnet.game import Match
from bgnet.match import CubeOwner, CubeState, MatchState, may_double
from bgnet.movegen import generate
from bgnet.notation import format_play, parse_play
from bgnet.position import STARTING, Position, flip
from bgnet.probabilities import flip as flip_probs
from bgnet.rollout import roll_luck

__all__ = ["CLOSE_CUBE", "THRESHOLDS", "Decision", "MatchAnalysis", "PlayerStats", "analyze_match"]

THRESHOLDS = {"doubtful": 0.04, "error": 0.08, "blunder": 0.16}
"""Equity lost from which a decision is doubtful, an error, a blunder (gnubg 1.07's defaults)."""

CLOSE_CUBE = 0.16
"""Not doubling counts as a decision when doubling was within this of not doubling (or right)."""


@dataclass
class Decision:
    """One analysed decision: ``kind`` is ``move``, ``double``, ``no double``, ``take`` or ``drop``."""

    game: int
    player: int
    kind: str
    xgid: str
    loss: float
    made: str
    best: str
    equity: float
    best_equity: float

    def to_dict(self, names: tuple[str, str]) -> dict:
        return {
            "game": self.game,
            "player": names[self.player],
            "kind": self.kind,
            "xgid": self.xgid,
            "made": self.made,
            "best": self.best,
            "equity": round(self.equity, 6),
            "best_equity": round(self.best_equity, 6),
            "loss": round(self.loss, 6),
        }


@dataclass
class PlayerStats:
    decisions: int = 0
    checker: int = 0
    cube: int = 0
    lost: float = 0.0
    doubtful: int = 0
    errors: int = 0
    blunders: int = 0
    luck: float = 0.0
    rolls: int = 0

    def add(self, d: Decision) -> None:
        self.decisions += 1
        if d.kind == "move":
            self.checker += 1
        else:
            self.cube += 1
        self.lost += d.loss
        if d.loss >= THRESHOLDS["blunder"]:
            self.blunders += 1
        elif d.loss >= THRESHOLDS["error"]:
            self.errors += 1
        elif d.loss >= THRESHOLDS["doubtful"]:
            self.doubtful += 1

    @property
    def error_rate(self) -> float:
        return 1000 * self.lost / self.decisions if self.decisions else 0.0

    @property
    def pr(self) -> float:
        return 500 * self.lost / self.decisions if self.decisions else 0.0

    def to_dict(self) -> dict:
        return {
            "decisions": self.decisions,
            "checker_decisions": self.checker,
            "cube_decisions": self.cube,
            "equity_lost": round(self.lost, 6),
            "error_rate": round(self.error_rate, 2),
            "pr": round(self.pr, 2),
            "doubtful": self.doubtful,
            "errors": self.errors,
            "blunders": self.blunders,
            "luck": round(self.luck, 4),
            "luck_rate": round(1000 * self.luck / self.rolls, 2) if self.rolls else 0.0,
        }


@dataclass
class MatchAnalysis:
    names: tuple[str, str]
    length: int
    ply: int
    players: tuple[PlayerStats, PlayerStats] = field(default_factory=lambda: (PlayerStats(), PlayerStats()))
    decisions: list[Decision] = field(default_factory=list)

    def worst(self, n: int = 10) -> list[Decision]:
        return sorted((d for d in self.decisions if d.loss > 0), key=lambda d: -d.loss)[:n]

    def to_dict(self, worst: int = 10) -> dict:
        return {
            "match_length": self.length,
            "ply": self.ply,
            "thresholds": THRESHOLDS,
            "players": {self.names[p]: self.players[p].to_dict() for p in (0, 1)},
            "worst": [d.to_dict(self.names) for d in self.worst(worst)],
            "decisions": [d.to_dict(self.names) for d in self.decisions],
        }


def _xgid(board: np.ndarray, cube: CubeState, match: MatchState, dice: Dice | None, doubled=False) -> str:
    """The XGID of a decision, the deciding side at the bottom (``cube``/``match`` from that side)."""
    owner = {CubeOwner.CENTERED: 0, CubeOwner.ME: 1, CubeOwner.OPPONENT: -1}[cube.owner]
    score = (0, 0) if match.is_money else tuple(match.score)
    rules = (1 if match.crawford else 0) if not match.is_money else (1 if match.jacoby else 0)
    xg = Xgid(
        Position(board, validate=False),
        cube_log2=cube.value.bit_length() - 1,
        cube_position=owner,
        dice="D" if doubled else (f"{dice.high}{dice.low}" if dice else "00"),
        score_bottom=score[0],
        score_top=score[1],
        rules=rules,
        match_length=0 if match.is_money else match.length,
    )
    return xg.to_string()


def _mover_equities(probs: np.ndarray, results: np.ndarray, cube: CubeState, match: MatchState) -> np.ndarray:
    """The mover's cubeful equity of each result from its probabilities (the opponent then on roll)."""
    theirs = (cube.flipped(), match.flipped())
    return np.array(
        [
            -cubeful_equity(flip_probs(p), *theirs, pips=race_pips(r), cube_action=True)
            for p, r in zip(probs, results, strict=True)
        ]
    )


def _checker(ev: Evaluator, board, dice: Dice, notation: str, cube, match, ply: int):
    """(loss, made, best, equity made, best equity, after) of a checker play; None when forced."""
    batch = generate(board[None, :], np.array([[dice.high, dice.low]]))
    played = parse_play(board, dice, notation).position.board if notation else flip(board)
    if len(batch.positions) <= 1:
        return None, played
    probs, plies = ev.rank(batch, ply, with_plies=True)
    row = int(np.flatnonzero((batch.positions == played).all(axis=1))[0])
    if plies[row] < ply:
        probs = probs.copy()
        probs[row] = flip_probs(ev.probabilities(batch.positions[row : row + 1], ply)[0])
        plies = plies.copy()
        plies[row] = ply
    eq = _mover_equities(probs, batch.positions, cube, match)
    deep = np.flatnonzero(plies == plies.max())
    best = int(deep[np.argmax(eq[deep])])
    if eq[row] > eq[best]:
        best = row

    def text(r: int) -> str:
        return format_play(board, [(int(f), int(t)) for f, t in batch.steps[r] if f >= 0])

    return (
        max(0.0, float(eq[best] - eq[row])),
        text(row),
        text(best),
        float(eq[row]),
        float(eq[best]),
    ), played


def analyze_match(
    ev: Evaluator, match: Match, ply: int = 0, progress: Callable[[int], None] | None = None
) -> MatchAnalysis:
    """Analyse every game of ``match`` at ``ply``; see the module docstring."""
    out = MatchAnalysis(match.names, match.length, ply)
    for number, game in enumerate(match.games, 1):
        board = STARTING.board.copy()
        cube0 = CubeState()  # seen from player 0
        doubled_this_turn = False
        first_move = True
        for action in game.actions:
            p = action.player
            match_p = game.match_state(p)
            cube_p = cube0 if p == 0 else cube0.flipped()
            if action.kind == "move":
                assert action.dice is not None  # every move records its roll
                dice = Dice.of(*action.dice)
                if not first_move and not doubled_this_turn and may_double(cube_p, match_p):
                    _cube_decision(ev, out, number, p, board, cube_p, match_p, ply, "no double")
                if not first_move:
                    _luck(ev, out, p, board, dice)
                result, played = _checker(ev, board, dice, action.notation, cube_p, match_p, ply)
                if result is not None:
                    loss, made, best, eq_made, eq_best = result
                    d = Decision(
                        number,
                        p,
                        "move",
                        _xgid(board, cube_p, match_p, dice),
                        loss,
                        made,
                        best,
                        eq_made,
                        eq_best,
                    )
                    out.decisions.append(d)
                    out.players[p].add(d)
                board = played
                first_move = False
                doubled_this_turn = False
            elif action.kind == "double":
                _cube_decision(ev, out, number, p, board, cube_p, match_p, ply, "double")
                doubled_this_turn = True
            elif action.kind in ("take", "drop"):
                # the taker's board is the doubler's, flipped; the decision is valued from the doubler's side
                doubler = 1 - p
                cube_d = cube0 if doubler == 0 else cube0.flipped()
                _cube_decision(ev, out, number, p, board, cube_d, game.match_state(doubler), ply, action.kind)
                if action.kind == "take":
                    cube_d = cube_d.doubled()  # from the doubler: the taker owns it
                    cube0 = cube_d if doubler == 0 else cube_d.flipped()
            if progress is not None:
                progress(1)
    return out


def _cube_decision(ev, out: MatchAnalysis, number: int, player: int, board, cube, match, ply, kind) -> None:
    """One cube decision; ``board``, ``cube``, ``match`` from the side on roll (the doubler)."""
    probs = ev.probabilities(board[None, :], ply)[0]
    d = cube_decision(probs, cube, match, pips=race_pips(board))
    cash = min(d.double_take, d.double_pass)
    if kind == "double":
        made, best, eq_made = "Double", d.action, cash
        loss, eq_best = d.optimal - cash, d.optimal
    elif kind == "no double":
        if not (d.optimal - d.no_double > 1e-9 or cash > d.no_double - CLOSE_CUBE):
            return
        made, best, eq_made = "No double", d.action, d.no_double
        loss, eq_best = d.optimal - d.no_double, d.optimal
    else:  # the taker's decision, in its favour
        eq_best = -cash
        eq_made = -d.double_take if kind == "take" else -d.double_pass
        made = kind.capitalize()
        best = "Take" if d.double_take <= d.double_pass else "Drop"
        loss = eq_best - eq_made
    xgid = _xgid(board, cube, match, None, doubled=kind in ("take", "drop"))
    dec = Decision(
        number, player, kind, xgid, max(0.0, float(loss)), made, best, float(eq_made), float(eq_best)
    )
    out.decisions.append(dec)
    out.players[player].add(dec)


def _luck(ev: Evaluator, out: MatchAnalysis, player: int, board: np.ndarray, dice: Dice) -> None:
    luck = float(roll_luck(ev, board[None, :], ROLL_INDEX[dice.high, dice.low][None], ROLL_WEIGHTS)[0])
    out.players[player].luck += luck
    out.players[player].rolls += 1
