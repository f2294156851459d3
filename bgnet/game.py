"""Games and matches: results, and the state machine of a game with the cube and the score.

A :class:`Match` (money play when its length is 0) starts :class:`Game`\\ s;
a game is a small state machine whose methods are the actions of the
players, each checked against the phase and the rules, raising
:class:`GameError` with a message for a person otherwise:

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
player on roll (bgnet's convention); the cube is a
:class:`bgnet.match.CubeState` seen from player 0 (:meth:`Game.state` gives
the cube and the match from either side); results come from :func:`outcome`.
Every action is recorded (:class:`Action`), so a game can be written as a
match file.

Rules: the opening roll (each side one die, ties rolled again) is the first
move's roll; the cube may be turned by the player on roll before rolling when
:func:`bgnet.match.may_double` allows it (centred or its own, never in the
Crawford game, not once its value already wins the match); a drop loses the
cube's value before the double; a resignation offers a single game, gammon
or backgammon at the cube's value; money play can use the Jacoby rule
(gammons count single while the cube is centred).
The Crawford rule: the first game after a player reaches 1-away is played
without the cube; later games are post-Crawford.

Results: a game ends when one side has borne off all 15 checkers.  It is a
*single* game (1 x cube) if the loser has borne off at least one checker, a
*gammon* (2 x cube) if none, and a *backgammon* (3 x cube) if none and the
loser still has a checker on the bar or in the winner's home board.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from bgnet.dice import Dice, opening_dice, roll
from bgnet.errors import BgnetError
from bgnet.match import CubeState, MatchState, may_double, why_no_double
from bgnet.movegen import Play, generate
from bgnet.position import NUM_SLOTS, STARTING, Board, Position, flip


class ResultKind(enum.IntEnum):
    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True)
class Outcome:
    """The end of a game: ``winner`` is 0 for the side on roll in the final position, 1 for the other."""

    winner: int
    kind: ResultKind

    def points(self, cube: int = 1) -> int:
        return int(self.kind) * cube


def outcome(board: Board) -> Outcome | None:
    """The result of ``board`` (seen from the side on roll), or None while both sides have checkers."""
    b = np.asarray(board, dtype=np.int32)
    ours = b[b > 0].sum()
    theirs = -b[b < 0].sum()
    if ours and theirs:
        return None
    winner = 0 if ours == 0 else 1
    # Seen from the loser's side: its checkers, and those in the winner's home board or on the bar.
    loser = b if winner == 1 else -b[::-1]
    left = loser[loser > 0].sum()
    if left < 15:
        return Outcome(winner, ResultKind.SINGLE)
    if (loser[19:26] > 0).any():
        return Outcome(winner, ResultKind.BACKGAMMON)
    return Outcome(winner, ResultKind.GAMMON)


def final_probabilities(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact probabilities of finished games, vectorised over (N, 26) boards.

    Returns ``(over, probs)``: ``over[i]`` is True when the side *not* on roll
    has borne off all its checkers (the way every game ends: the mover bore
    off its last checker), and ``probs[i]`` are then the exact 5
    probabilities for the side on roll, which lost: (0, 0, 0, gammon,
    backgammon).  Rows not over are zero.
    """
    b = np.asarray(boards).reshape(-1, 26)
    over = np.asarray(~(b < 0).any(axis=1))
    ours = np.where(b > 0, b, 0).astype(np.int32)
    gammon = over & (ours.sum(axis=1) == 15)
    backgammon = gammon & (ours[:, 19:26].sum(axis=1) > 0)
    probs = np.zeros((len(b), 5), dtype=np.float32)
    probs[:, 3] = gammon
    probs[:, 4] = backgammon
    return over, probs


# --------------------------------------------------------------------------
# The game and match state machine
# --------------------------------------------------------------------------

RESULT_NAMES = {1: "single game", 2: "gammon", 3: "backgammon"}
RESIGN_LEVELS = {"single": 1, "normal": 1, "gammon": 2, "backgammon": 3}


class GameError(BgnetError):
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
        self.score = (match.score[0], match.score[1])  # at the start of this game
        self.crawford = crawford
        self.post_crawford = post_crawford
        self.first = first
        self.opening = dice
        self.opening_dice = opening_dice or ((dice.high, dice.low) if first == 0 else (dice.low, dice.high))
        self.board = start.board.copy()
        self.turn = first
        self.dice: Dice | None = dice
        self.phase = Phase.MOVE
        self.cube = CubeState()  # seen from player 0; cube_state(player) from either side
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

    @property
    def to_play(self) -> Dice:
        """The roll to play (phase ``move``); GameError in any other phase."""
        if self.phase is not Phase.MOVE or self.dice is None:
            raise GameError(f"there is no roll to play now (the game is in phase {self.phase})")
        return self.dice

    def board_for(self, player: int) -> np.ndarray:
        """The board seen by ``player`` (its checkers positive, numbered from its side)."""
        return self.board.copy() if player == self.turn else flip(self.board)

    def position_for(self, player: int) -> Position:
        return Position(self.board_for(player), validate=False)

    def pips(self, player: int) -> tuple[int, int]:
        """Pip counts (``player``'s, the other's)."""
        return self.position_for(player).pips()

    def cube_state(self, player: int | None = None) -> CubeState:
        """The cube seen from ``player`` (default: the player on roll)."""
        player = self.turn if player is None else player
        return self.cube if player == 0 else self.cube.flipped()

    def match_state(self, player: int | None = None) -> MatchState:
        """The match (or money play with its rules) seen from ``player`` (default: the player on roll)."""
        player = self.turn if player is None else player
        m = self.match
        if not m.length:
            return MatchState.money(jacoby=m.jacoby, beavers=m.beavers)
        score = (self.score[player], self.score[1 - player])
        return MatchState.match(m.length, score, crawford=self.crawford)

    def state(self, player: int | None = None) -> tuple[CubeState, MatchState]:
        """``(cube_state(player), match_state(player))``: what :mod:`bgnet.cube` decides on."""
        return self.cube_state(player), self.match_state(player)

    def may_double(self, player: int | None = None) -> bool:
        """May ``player`` (default: the player on roll) double now? (:func:`bgnet.match.may_double`)."""
        player = self.turn if player is None else player
        if self.phase is not Phase.ROLL or player != self.turn:
            return False
        return may_double(*self.state(player))

    def legal_results(self) -> np.ndarray:
        """The distinct positions the roll can reach (phase ``move``), seen by the opponent."""
        if self.phase is not Phase.MOVE or self.dice is None:
            return np.empty((0, NUM_SLOTS), dtype=np.int8)
        return generate(self.board[None, :], np.array([[self.dice.high, self.dice.low]])).positions

    # -- actions --------------------------------------------------------------

    def _expect(self, phase: Phase, player: int | None, what: str) -> None:
        if self.phase is Phase.OVER:
            raise GameError(f"the game is over: you cannot {what}")
        if self.phase is not phase:
            now = {
                Phase.ROLL: "it is time to roll (or double)",
                Phase.MOVE: "the dice are rolled: a play is due",
                Phase.DOUBLED: "a double is waiting for take or drop",
                Phase.RESIGNED: "a resignation is waiting to be accepted or rejected",
            }[self.phase]
            raise GameError(f"you cannot {what} now: {now}")
        if player is not None and player != self.actor:
            raise GameError(f"it is not player {player}'s turn to {what}")

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
        """Play ``play`` (a legal play of the roll; None when there is none) and pass the turn.

        ``checked=True`` skips the legality check, for a caller that already
        checked the play against the move generator (the arena's referee).
        """
        self._expect(Phase.MOVE, player, "move")
        assert self.dice is not None
        legal = np.empty((0, NUM_SLOTS), dtype=np.int8) if checked else self.legal_results()
        if play is None:
            if len(legal):
                raise GameError(f"{self.dice.high}-{self.dice.low} can be played: a play is required")
            steps: tuple[tuple[int, int], ...] = ()
            notation = ""
            after = flip(self.board)
        else:
            if not checked and not (legal == play.position.board).all(axis=1).any():
                raise GameError(f"{play.notation} is not a legal play of {self.dice.high}-{self.dice.low}")
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
            if self.match.jacoby and not self.match.length and self.cube.centered:
                kind = 1
            self._end(winner, kind * self.cube.value, RESULT_NAMES[kind])
        else:
            self.phase = Phase.ROLL

    def double(self, player: int | None = None) -> None:
        """The player on roll doubles (before rolling): phase ``roll`` -> ``doubled``."""
        self._expect(Phase.ROLL, player, "double")
        if not self.may_double():
            raise GameError(why_no_double(*self.state()))
        self.actions.append(Action(self.turn, "double", value=self.cube.value * 2))
        self.phase = Phase.DOUBLED

    def take(self, player: int | None = None) -> None:
        """The doubled player takes: the cube doubles and is theirs; phase ``doubled`` -> ``roll``."""
        self._expect(Phase.DOUBLED, player, "take")
        taker = 1 - self.turn
        self.actions.append(Action(taker, "take", value=self.cube.value * 2))
        taken = self.cube_state(self.turn).doubled()  # from the doubler: the taker owns it
        self.cube = taken if self.turn == 0 else taken.flipped()
        self.phase = Phase.ROLL

    def drop(self, player: int | None = None) -> None:
        """The doubled player drops: the doubler wins the cube's value (before the double)."""
        self._expect(Phase.DOUBLED, player, "drop")
        self.actions.append(Action(1 - self.turn, "drop", value=self.cube.value))
        self._end(self.turn, self.cube.value, "drop")

    def resign(self, level: int | str = 1, player: int | None = None) -> None:
        """The player on roll offers to resign a single game (1), a gammon (2) or a backgammon (3)."""
        if isinstance(level, str):
            key = level.strip().lower()
            if key not in RESIGN_LEVELS:
                raise GameError(f"resign single, gammon or backgammon, not {level!r}")
            level = RESIGN_LEVELS[key]
        if level not in (1, 2, 3):
            raise GameError(f"a resignation is 1 (single), 2 (gammon) or 3 (backgammon), not {level}")
        if self.phase not in (Phase.ROLL, Phase.MOVE):
            self._expect(Phase.ROLL, player, "resign")
        if player is not None and player != self.turn:
            raise GameError(f"it is not player {player}'s turn: resign on your turn")
        self.actions.append(Action(self.turn, "resign", value=level))
        self._before_resign = self.phase
        self.resigned = level
        self.phase = Phase.RESIGNED

    def accept(self, player: int | None = None) -> None:
        """The resignation is accepted: the other player wins ``level * cube`` points."""
        self._expect(Phase.RESIGNED, player, "accept a resignation")
        self.actions.append(Action(1 - self.turn, "accept", value=self.resigned))
        self._end(1 - self.turn, self.resigned * self.cube.value, "resign")

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
        beavers: bool = False,
        games: int | None = None,
        start: Position = STARTING,
    ) -> None:
        if length < 0:
            raise GameError(f"the match length must be 0 (money play) or more, got {length}")
        if games is not None and games < 1:
            raise GameError(f"a session plays at least one game, got {games}")
        self.length = length
        first, second = names
        self.names = (first, second)
        self.rng = rng if rng is not None else np.random.default_rng()
        if length and (jacoby or beavers):
            raise GameError("the Jacoby rule and beavers apply to money play, not to a match")
        self.jacoby = jacoby
        self.beavers = beavers
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
            raise GameError("the score can only be set before the first game")
        a, b = (int(x) for x in score)
        if a < 0 or b < 0 or (self.length and max(a, b) >= self.length):
            raise GameError(f"score {a}-{b} is not below the match length {self.length}")
        if not self.length and (a or b):
            raise GameError("money play has no score")
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
                raise GameError("the current game is not over")
            self.games[-1].abandoned = True
        if self.over:
            raise GameError("the match is over")
        if opening is None:
            opening = opening_dice(self.rng)
        a, b = (int(x) for x in opening)
        if a == b or not (1 <= a <= 6 and 1 <= b <= 6):
            raise GameError(f"the opening roll needs two different dice 1-6, got {a}-{b}")
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
