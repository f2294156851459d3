"""Game and match state for play: turns, the cube, the score, Crawford, resignations; and the bot.

A :class:`Match` (money play when its length is 0) starts :class:`Game`\\ s;
a game is a small state machine whose methods are the actions of the
players, each checked against the phase and the rules, raising
:class:`SessionError` with a message for a person otherwise:

========== ================================== ====================================
phase      who acts (:attr:`Game.actor`)      actions
========== ================================== ====================================
``roll``   the player on roll                 :meth:`Game.double` (when allowed), :meth:`Game.roll`,
                                              :meth:`Game.resign`
``move``   the player on roll (dice rolled)   :meth:`Game.move`, :meth:`Game.resign`
``doubled`` the other player                  :meth:`Game.take`, :meth:`Game.drop`
``resigned`` the other player                 :meth:`Game.accept`, :meth:`Game.reject`
``over``   nobody                             (the match starts the next game)
========== ================================== ====================================

Players are numbered 0 and 1 as in GNU Backgammon (player 0 is the left
column of a ``.mat`` file; :mod:`bgnet.matfile`).  The board is kept from the
player on roll (bgnet's convention); results come from
:func:`bgnet.game.outcome`.  Every action is recorded (:class:`Action`), so a
game can be written as a match file.

Rules: the opening roll (each side one die, ties rolled again) is the first
move's roll; the cube may be turned by the player on roll before rolling when
it is centred or its own, never in the Crawford game, not by the leader
post-Crawford, and not once its value already wins the match (gnubg's
``GetDPEq``); a drop loses the cube's value before the double; a resignation
offers a single game, gammon or backgammon at the cube's value; money play
can use the Jacoby rule (gammons count single while the cube is centred).
The Crawford rule: the first game after a player reaches 1-away is played
without the cube; later games are post-Crawford.

:class:`Bot` is bgnet's side of a session (used by ``bgnet play`` and
``bgnet serve``): its plays from the evaluator at a ply, its cube actions by
:mod:`bgnet.cube`, and its answer to a resignation.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import numpy as np

from bgnet.dice import Dice, opening_roll, roll
from bgnet.errors import BgnetError
from bgnet.game import outcome
from bgnet.movegen import Play, generate, legal_plays
from bgnet.notation import format_play
from bgnet.position import STARTING, Position, flip

__all__ = [
    "Action",
    "Bot",
    "Game",
    "Match",
    "Phase",
    "RESULT_NAMES",
    "SessionError",
]

MAX_CUBE = 1 << 15


def may_double(
    *, opponent_owns: bool, crawford: bool, post_crawford: bool, cube: int, length: int, mine: int
) -> bool:
    """May the side on roll double (gnubg ``GetDPEq``)?  ``mine`` is its score, ``length`` 0 for money.

    Not when the opponent owns the cube, in the Crawford game, at the largest cube, when the
    cube is dead (its value already wins the match), or post-Crawford for the side at match point.
    """
    if opponent_owns or crawford or cube >= MAX_CUBE:
        return False
    if length and (mine + cube >= length or (post_crawford and mine == length - 1)):
        return False
    return True


RESULT_NAMES = {1: "single game", 2: "gammon", 3: "backgammon"}
RESIGN_LEVELS = {"single": 1, "normal": 1, "gammon": 2, "backgammon": 3}


class SessionError(BgnetError):
    """An action that is not allowed now (wrong phase, wrong player, against the rules)."""


class Phase(StrEnum):
    ROLL = "roll"
    MOVE = "move"
    DOUBLED = "doubled"
    RESIGNED = "resigned"
    OVER = "over"


@dataclass(frozen=True)
class Action:
    """One recorded action of a game.

    ``kind`` is ``move`` (``dice`` and ``steps``, empty when no play was
    possible, in the mover's numbering, in the order played; ``notation`` in
    gnubg's notation), ``double`` (``value`` the cube after it), ``take``,
    ``drop``, ``resign`` (``value`` 1 single, 2 gammon, 3 backgammon),
    ``accept`` or ``reject``.
    """

    player: int
    kind: str
    dice: tuple[int, int] | None = None
    steps: tuple[tuple[int, int], ...] = ()
    notation: str = ""
    value: int = 0


class Game:
    """One game of a match; see the module docstring for phases and actions."""

    def __init__(
        self,
        match: Match,
        number: int,
        first: int,
        dice: Dice,
        *,
        crawford: bool = False,
        post_crawford: bool = False,
        start: Position = STARTING,
        opening_dice: tuple[int, int] | None = None,
    ) -> None:
        self.match = match
        self.number = number
        self.score = tuple(match.score)
        self.crawford = crawford
        self.post_crawford = post_crawford
        self.first = first
        self.opening = dice
        self.opening_dice = opening_dice or ((dice.high, dice.low) if first == 0 else (dice.low, dice.high))
        self.board = start.board.copy()
        self.turn = first
        self.dice: Dice | None = dice
        self.phase = Phase.MOVE
        self.cube = 1
        self.owner = -1
        self.actions: list[Action] = []
        self.winner: int | None = None
        self.points = 0
        self.result = ""  # "single game", "gammon", "backgammon", "drop", "resign"
        self.resigned = 0  # the level offered while phase is RESIGNED
        self._before_resign = Phase.ROLL
        self.plies = 0
        self.abandoned = False  # left unfinished when the next game started

    # -- views ----------------------------------------------------------------

    @property
    def actor(self) -> int | None:
        """The player who must act now (None when the game is over)."""
        if self.phase in (Phase.ROLL, Phase.MOVE):
            return self.turn
        if self.phase in (Phase.DOUBLED, Phase.RESIGNED):
            return 1 - self.turn
        return None

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def board_for(self, player: int) -> np.ndarray:
        """The board seen by ``player`` (its checkers positive, numbered from its side)."""
        return self.board.copy() if player == self.turn else flip(self.board)

    def position_for(self, player: int) -> Position:
        return Position(self.board_for(player), validate=False)

    def pips(self, player: int) -> tuple[int, int]:
        """Pip counts (``player``'s, the other's)."""
        return self.position_for(player).pips()

    def cube_owner_for(self, player: int) -> str:
        """``"centre"``, ``"me"`` or ``"opponent"`` from ``player``'s side."""
        if self.owner < 0:
            return "centre"
        return "me" if self.owner == player else "opponent"

    def may_double(self, player: int | None = None) -> bool:
        """May ``player`` (default: the player on roll) double now? (gnubg ``GetDPEq``)."""
        player = self.turn if player is None else player
        if self.phase is not Phase.ROLL or player != self.turn:
            return False
        return may_double(
            opponent_owns=self.owner not in (-1, player),
            crawford=self.crawford,
            post_crawford=self.post_crawford,
            cube=self.cube,
            length=self.match.length,
            mine=self.score[player],
        )

    def legal_plays(self) -> list[Play]:
        """The legal plays of the roll (phase ``move``), from the player on roll."""
        if self.phase is not Phase.MOVE or self.dice is None:
            return []
        return legal_plays(Position(self.board, validate=False), self.dice)

    # -- actions --------------------------------------------------------------

    def _expect(self, phase: Phase, player: int | None, what: str) -> None:
        if self.phase is Phase.OVER:
            raise SessionError(f"the game is over: you cannot {what}")
        if self.phase is not phase:
            now = {
                Phase.ROLL: "it is time to roll (or double)",
                Phase.MOVE: "the dice are rolled: a play is due",
                Phase.DOUBLED: "a double is waiting for take or drop",
                Phase.RESIGNED: "a resignation is waiting to be accepted or rejected",
            }[self.phase]
            raise SessionError(f"you cannot {what} now: {now}")
        if player is not None and player != self.actor:
            raise SessionError(f"it is not player {player}'s turn to {what}")

    def roll(self, dice: Dice | tuple[int, int] | None = None, player: int | None = None) -> Dice:
        """Roll (the match's dice unless ``dice`` is given); phase ``roll`` -> ``move``."""
        self._expect(Phase.ROLL, player, "roll")
        if dice is None:
            dice = self.match.roll()
        elif not isinstance(dice, Dice):
            dice = Dice.of(*dice)
        self.dice = dice
        self.phase = Phase.MOVE
        return dice

    def move(self, play: Play | None, player: int | None = None, *, checked: bool = False) -> None:
        """Play ``play`` (one of :meth:`legal_plays`; None when there is none) and pass the turn.

        ``checked=True`` skips the legality check, for a caller that already
        checked the play against the move generator (the arena's referee).
        """
        self._expect(Phase.MOVE, player, "move")
        assert self.dice is not None
        legal = [] if checked else self.legal_plays()
        if play is None:
            if legal:
                raise SessionError(f"{self.dice.high}-{self.dice.low} can be played: a play is required")
            steps: tuple[tuple[int, int], ...] = ()
            notation = ""
            after = flip(self.board)
        else:
            if not checked and not any(p.position == play.position for p in legal):
                raise SessionError(f"{play.notation} is not a legal play of {self.dice.high}-{self.dice.low}")
            steps = tuple(play.steps)
            notation = play.notation
            after = play.position.board.copy()
        self.actions.append(Action(self.turn, "move", (self.dice.high, self.dice.low), steps, notation))
        self.board = np.array(after, dtype=np.int8)
        self.turn = 1 - self.turn
        self.dice = None
        self.plies += 1
        result = outcome(self.board)
        if result is not None:
            winner = self.turn if result.winner == 0 else 1 - self.turn
            kind = int(result.kind)
            if self.match.jacoby and not self.match.length and self.owner < 0:
                kind = 1
            self._end(winner, kind * self.cube, RESULT_NAMES[kind])
        else:
            self.phase = Phase.ROLL

    def double(self, player: int | None = None) -> None:
        """The player on roll doubles (before rolling): phase ``roll`` -> ``doubled``."""
        self._expect(Phase.ROLL, player, "double")
        if not self.may_double():
            raise SessionError(self._why_no_double())
        self.actions.append(Action(self.turn, "double", value=self.cube * 2))
        self.phase = Phase.DOUBLED

    def _why_no_double(self) -> str:
        if self.crawford:
            return "no doubling in the Crawford game"
        if self.owner not in (-1, self.turn):
            return "your opponent owns the cube: only the owner may redouble"
        if self.cube >= MAX_CUBE:
            return f"the cube is at its limit ({MAX_CUBE})"
        if self.match.length and self.score[self.turn] + self.cube >= self.match.length:
            return "the cube is dead: its value already wins you the match"
        return "the leader may not double after the Crawford game"

    def take(self, player: int | None = None) -> None:
        """The doubled player takes: the cube doubles and is theirs; phase ``doubled`` -> ``roll``."""
        self._expect(Phase.DOUBLED, player, "take")
        taker = 1 - self.turn
        self.actions.append(Action(taker, "take", value=self.cube * 2))
        self.cube *= 2
        self.owner = taker
        self.phase = Phase.ROLL

    def drop(self, player: int | None = None) -> None:
        """The doubled player drops: the doubler wins the cube's value (before the double)."""
        self._expect(Phase.DOUBLED, player, "drop")
        self.actions.append(Action(1 - self.turn, "drop", value=self.cube))
        self._end(self.turn, self.cube, "drop")

    def resign(self, level: int | str = 1, player: int | None = None) -> None:
        """The player on roll offers to resign a single game (1), a gammon (2) or a backgammon (3)."""
        if isinstance(level, str):
            key = level.strip().lower()
            if key not in RESIGN_LEVELS:
                raise SessionError(f"resign single, gammon or backgammon, not {level!r}")
            level = RESIGN_LEVELS[key]
        if level not in (1, 2, 3):
            raise SessionError(f"a resignation is 1 (single), 2 (gammon) or 3 (backgammon), not {level}")
        if self.phase not in (Phase.ROLL, Phase.MOVE):
            self._expect(Phase.ROLL, player, "resign")
        if player is not None and player != self.turn:
            raise SessionError(f"it is not player {player}'s turn: resign on your turn")
        self.actions.append(Action(self.turn, "resign", value=level))
        self._before_resign = self.phase
        self.resigned = level
        self.phase = Phase.RESIGNED

    def accept(self, player: int | None = None) -> None:
        """The resignation is accepted: the other player wins ``level * cube`` points."""
        self._expect(Phase.RESIGNED, player, "accept a resignation")
        self.actions.append(Action(1 - self.turn, "accept", value=self.resigned))
        self._end(1 - self.turn, self.resigned * self.cube, "resign")

    def reject(self, player: int | None = None) -> None:
        """The resignation is rejected: play goes on where it stopped."""
        self._expect(Phase.RESIGNED, player, "reject a resignation")
        self.actions.append(Action(1 - self.turn, "reject", value=self.resigned))
        self.phase = self._before_resign
        self.resigned = 0

    def _end(self, winner: int, points: int, result: str) -> None:
        self.winner = winner
        self.points = points
        self.result = result
        self.phase = Phase.OVER
        self.match._finished(self)

    # -- text ------------------------------------------------------------------

    def describe_result(self, names: tuple[str, str] | None = None) -> str:
        names = names or self.match.names
        if self.winner is None:
            return "the game is not over"
        how = {"drop": "by a drop", "resign": "by resignation"}.get(self.result, f"a {self.result}")
        s = "s" if self.points != 1 else ""
        return f"{names[self.winner]} wins {how}: {self.points} point{s}"


class Match:
    """A match to ``length`` points (0: money play for ``games`` games, or until stopped).

    Dice come from ``rng`` (a ``numpy.random.Generator``; seed it for a
    reproducible session).
    """

    def __init__(
        self,
        length: int = 0,
        names: tuple[str, str] = ("bgnet", "you"),
        rng: np.random.Generator | None = None,
        *,
        jacoby: bool = False,
        games: int | None = None,
        start: Position = STARTING,
    ) -> None:
        if length < 0:
            raise SessionError(f"the match length must be 0 (money play) or more, got {length}")
        if games is not None and games < 1:
            raise SessionError(f"a session plays at least one game, got {games}")
        self.length = length
        self.names = tuple(names)
        self.rng = rng if rng is not None else np.random.default_rng()
        self.jacoby = jacoby
        self.max_games = games
        self.start = start
        self.score = [0, 0]
        self.games: list[Game] = []
        self.crawford_played = False
        self._next_crawford = False

    @property
    def over(self) -> bool:
        if self.games and not self.games[-1].over and not self.games[-1].abandoned:
            return False
        if self.length:
            return max(self.score) >= self.length
        return self.max_games is not None and len(self.games) >= self.max_games

    @property
    def winner(self) -> int | None:
        if self.length and max(self.score) >= self.length:
            return 0 if self.score[0] >= self.length else 1
        return None

    @property
    def game(self) -> Game | None:
        """The current (last started) game."""
        return self.games[-1] if self.games else None

    def roll(self) -> Dice:
        return roll(self.rng)

    def set_score(self, score: tuple[int, int]) -> None:
        """Start the match from ``score`` (before its first game).

        As gnubg's match-file import does, a first game with exactly one
        player at 1-away is the Crawford game.
        """
        if self.games:
            raise SessionError("the score can only be set before the first game")
        a, b = (int(x) for x in score)
        if a < 0 or b < 0 or (self.length and max(a, b) >= self.length):
            raise SessionError(f"score {a}-{b} is not below the match length {self.length}")
        if not self.length and (a or b):
            raise SessionError("money play has no score")
        self.score = [a, b]
        one_away = [s == self.length - 1 for s in self.score]
        self._next_crawford = bool(self.length) and one_away[0] != one_away[1]

    def new_game(self, opening: tuple[int, int] | None = None, *, abandon: bool = False) -> Game:
        """Start the next game with the opening roll (``opening``: player 0's and player 1's die).

        With ``abandon``, an unfinished current game is left as it is (no result,
        no points), as a match file may hold a game cut short.
        """
        if self.games and not self.games[-1].over:
            if not abandon:
                raise SessionError("the current game is not over")
            self.games[-1].abandoned = True
        if self.over:
            raise SessionError("the match is over")
        if opening is None:
            first, dice = opening_roll(self.rng)
            # opening_roll reports the dice high first; keep who rolled what for the record.
            opening = (dice.high, dice.low) if first == 0 else (dice.low, dice.high)
        a, b = (int(x) for x in opening)
        if a == b or not (1 <= a <= 6 and 1 <= b <= 6):
            raise SessionError(f"the opening roll needs two different dice 1-6, got {a}-{b}")
        first = 0 if a > b else 1
        crawford = self._next_crawford
        post = bool(self.length) and not crawford and self.crawford_played
        game = Game(
            self,
            len(self.games),
            first,
            Dice.of(a, b),
            crawford=crawford,
            post_crawford=post,
            start=self.start,
            opening_dice=(a, b),
        )
        if crawford:
            self.crawford_played = True
        self._next_crawford = False
        self.games.append(game)
        return game

    def _finished(self, game: Game) -> None:
        assert game.winner is not None
        self.score[game.winner] += game.points
        if self.length and not self.crawford_played and not game.crawford:
            if self.score[game.winner] == self.length - 1 and self.score[1 - game.winner] < self.length - 1:
                self._next_crawford = True

    def summary(self) -> str:
        """A few lines: each game's result and the final score."""
        lines = []
        for g in self.games:
            tag = " (Crawford game)" if g.crawford else ""
            if g.over:
                lines.append(f"Game {g.number + 1}{tag}: {g.describe_result()} ({g.plies} moves)")
            else:
                lines.append(f"Game {g.number + 1}{tag}: not finished{' (abandoned)' if g.abandoned else ''}")
        a, b = self.names
        kind = f"{self.length}-point match" if self.length else "money session"
        lines.append(f"Score: {a} {self.score[0]}, {b} {self.score[1]} ({kind})")
        if self.winner is not None:
            lines.append(f"{self.names[self.winner]} wins the match.")
        return "\n".join(lines)


# --------------------------------------------------------------------------
# The bot
# --------------------------------------------------------------------------


@dataclass
class CubeView:
    """The cube from one player's side, for :class:`Bot` (cube owner: 0 me, 1 the opponent, -1 centred)."""

    value: int = 1
    owner: int = -1
    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False


@dataclass
class Bot:
    """bgnet's player: plays by ``evaluator`` at ``ply``, cube actions by :mod:`bgnet.cube`."""

    evaluator: Any
    ply: int = 0
    name: str = "bgnet"
    _cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_checkpoint(
        cls, checkpoint: str | Path | None = None, ply: int = 0, name: str = "bgnet", *, bearoff: bool = True
    ) -> Bot:
        """The network of ``checkpoint`` (default: the shipped one), with the exact bearoff database."""
        from bgnet.commands.common import load_evaluator

        if ply < 0:
            raise SessionError(f"ply must be 0 or more, got {ply}")
        return cls(load_evaluator(checkpoint, bearoff=bearoff), ply, name)

    # -- checker play ----------------------------------------------------------

    def _choose(self, batch) -> int:
        if self.ply == 0:
            return int(self.evaluator.choose(batch)[0])
        return int(self.evaluator.choose(batch, None, ply=self.ply)[0])

    def best_play(self, board: np.ndarray, dice: Dice) -> Play | None:
        """The bot's play of ``dice`` from ``board`` (from the mover); None when there is no legal play."""
        b = np.asarray(board, dtype=np.int8)
        batch = generate(b[None, :], np.array([[dice.high, dice.low]]))
        if batch.offsets[1] == 0:
            return None
        row = self._choose(batch)
        steps = tuple((int(f), int(t)) for f, t in batch.steps[row] if f >= 0)
        return Play(format_play(b, steps), steps, Position(batch.positions[row], validate=False))

    def ranked(self, board: np.ndarray, dice: Dice, n: int = 5) -> list[tuple[Play, float, np.ndarray]]:
        """The ``n`` best plays with the mover's cubeless equity and probabilities, best first."""
        from bgnet.probabilities import equity

        b = np.asarray(board, dtype=np.int8)
        batch = generate(b[None, :], np.array([[dice.high, dice.low]]))
        if batch.offsets[1] == 0:
            return []
        probs = self.evaluator.rank(batch, self.ply)
        eq = equity(probs)
        order = np.argsort(-eq, kind="stable")[:n]
        out = []
        for row in order:
            steps = tuple((int(f), int(t)) for f, t in batch.steps[row] if f >= 0)
            play = Play(format_play(b, steps), steps, Position(batch.positions[row], validate=False))
            out.append((play, float(eq[row]), probs[row]))
        return out

    # -- evaluation of a position before the roll --------------------------------

    def probabilities(self, board: np.ndarray) -> np.ndarray:
        """The 5 probabilities of the side on roll of ``board``, before it rolls, at the bot's ply."""
        b = np.asarray(board, dtype=np.int8).reshape(1, -1)
        key = (b.tobytes(), self.ply)
        if key not in self._cache:
            if self.ply:
                p = self.evaluator.probabilities(b, self.ply)[0]
            else:
                p = self.evaluator.probabilities(b)[0]
            if len(self._cache) > 256:
                self._cache.clear()
            self._cache[key] = np.asarray(p, dtype=np.float64)
        return self._cache[key]

    def cube_decision(self, board: np.ndarray, view: CubeView):
        """The cube decision (:class:`bgnet.cube.CubeDecision`) of the side on roll of ``board``.

        ``view`` is seen from the side on roll.  None when the cube module
        cannot judge the state (a match longer than its table), in which
        case the callers fall back to cubeless rules.
        """
        from bgnet.cube import CubeOwner, CubeState, MatchState, cube_decision, race_pips
        from bgnet.errors import BgnetError as _Err

        b = np.asarray(board, dtype=np.int8)
        owner = {-1: CubeOwner.CENTERED, 0: CubeOwner.ME, 1: CubeOwner.OPPONENT}[view.owner]
        try:
            if view.length:
                match = MatchState.match(view.length, view.score, crawford=view.crawford)
            else:
                match = MatchState.money(jacoby=view.jacoby, beavers=view.beavers)
            cube = CubeState(view.value, owner)
            return cube_decision(self.probabilities(b), cube, match, pips=race_pips(b))
        except _Err:
            return None

    def wants_to_double(self, board: np.ndarray, view: CubeView) -> bool:
        """Should the side on roll of ``board`` (the bot) double now?"""
        d = self.cube_decision(board, view)
        if d is None:
            return False
        return bool(d.double and d.available)

    def takes(self, doubler_board: np.ndarray, view: CubeView) -> str:
        """The bot's answer to a double: ``"take"``, ``"drop"`` or ``"beaver"``.

        ``doubler_board`` and ``view`` are seen from the doubler (on roll).
        """
        d = self.cube_decision(doubler_board, view)
        if d is None:
            # Cubeless fallback: take with 25% or more.
            p = self.probabilities(doubler_board)
            return "take" if 1.0 - p[0] >= 0.25 else "drop"
        if d.beaver and view.beavers:
            return "beaver"
        return "take" if d.take else "drop"

    def accepts_resignation(self, resigner_board: np.ndarray, level: int, cube: int) -> bool:
        """Accept ``level`` (1-3) x ``cube`` points when it is at least what the bot expects by playing on.

        ``resigner_board`` is from the resigning side (on roll).  The bot's
        expectation is cubeless: ``cube`` x its cubeless equity.
        """
        from bgnet.probabilities import equity

        p = self.probabilities(resigner_board)
        theirs = float(equity(np.asarray(p, dtype=np.float32)[None, :])[0])
        return level >= -theirs - 1e-9
