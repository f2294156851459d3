"""A money session or a match against bgnet, driven by a browser: one :class:`WebGame` per tab.

The rules are those of ``bgnet play`` (:mod:`bgnet.commands.play`), on the
same :class:`bgnet.game.Match` and :class:`bgnet.engine.Engine`: the person
is gnubg's player 1 (X, at the bottom, moving from 24 to 1), the bot player
0.  The engine takes the bot's actions; the person's come from HTTP calls.
As in the terminal game, the person's dice are rolled at once when the
person may not double, and a roll with no legal play passes by itself; a
roll with one legal play is still the person's to make.

Every state is seen from the person: ``board`` is the person's view (the
person's checkers positive, slot 25 the person's bar, slot 0 the bot's).
The bot's actions since the last call come as ``events``, each move with
its steps in the bot's numbering and the board after it, so the page can
show them step by step.

Beavers (money play with ``beavers``): the person may beaver a double (the
cube goes to four times its value and stays with the bot), and the bot
beavers the person's double where :meth:`bgnet.players.NetPlayer.answer`
says so.  :class:`bgnet.game.Game` has no beaver action, so a beaver is
recorded as the take followed by an action of kind ``beaver`` (which
``.mat`` files do not show: the record shows the take, and the points won
count the beavered cube).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from bgnet.commands.analyze import analyze
from bgnet.commands.play import BOT, PERSON, game_ids, result_text
from bgnet.cube import CubeOwner, CubeState
from bgnet.engine import Engine
from bgnet.errors import BgnetError
from bgnet.game import Action, Game, GameError, Match, Phase
from bgnet.matfile import format_mat
from bgnet.notation import legal_plays, parse_play
from bgnet.players import NetPlayer
from bgnet.position import Position, flip

__all__ = ["ACTIONS", "WebGame"]

ACTIONS = ("roll", "double", "take", "drop", "beaver", "move", "resign", "next")
"""The person's actions (``POST /api/games/{id}/{action}``)."""

_WHO = {BOT: "bgnet", PERSON: "you"}


class WebGame:
    """A session against ``bot``: a ``length``-point match (0: money play, one game after another)."""

    def __init__(
        self,
        bot: NetPlayer,
        length: int = 0,
        *,
        jacoby: bool = False,
        beavers: bool = False,
        seed: int | None = None,
        lock: threading.Lock | None = None,
    ) -> None:
        if not 0 <= length <= 25:
            raise BgnetError(f"a match is 1 to 25 points (0: money play), got {length}")
        self.bot = bot
        self.match = Match(
            length, ("bgnet", "you"), np.random.default_rng(seed), jacoby=jacoby, beavers=beavers
        )
        self.engine = Engine((bot, None))
        self.eval_lock = lock or threading.Lock()  # the network is shared by every session
        self.lock = threading.Lock()  # one action of this session at a time
        self.events: list[dict] = []
        self.message = ""
        self._start_game()

    # -- views -------------------------------------------------------------------

    @property
    def game(self) -> Game:
        game = self.match.game
        assert game is not None
        return game

    def state(self) -> dict:
        """The JSON state of the session from the person's side; the pending events are handed over."""
        g = self.game
        m = self.match
        board = g.board_for(PERSON)
        pips = g.pips(PERSON)
        owner = g.cube_state(PERSON).owner
        pid, mid = game_ids(g)
        legal = []
        if g.phase is Phase.MOVE and g.actor == PERSON and g.dice is not None:
            legal = [
                {"play": p.notation, "board": [int(x) for x in flip(p.position.board)]}
                for p in legal_plays(Position(g.board, validate=False), g.dice)
            ]
        out: dict[str, Any] = {
            "phase": g.phase.value,
            "actor": None if g.actor is None else _WHO[g.actor],
            "board": [int(x) for x in board],
            "dice": None if g.dice is None else _dice_for(g),
            "pips": {"you": pips[0], "bgnet": pips[1]},
            "cube": {
                "value": g.cube.value,
                "owner": {CubeOwner.CENTERED: "centered", CubeOwner.ME: "you", CubeOwner.OPPONENT: "bgnet"}[
                    owner
                ],
            },
            "may_double": g.may_double(PERSON),
            "may_beaver": g.phase is Phase.DOUBLED and g.actor == PERSON and self._beavers(),
            "resigned": g.resigned,
            "match": {
                "length": m.length,
                "score": {"you": m.score[PERSON], "bgnet": m.score[BOT]},
                "game": g.number + 1,
                "crawford": g.crawford,
                "post_crawford": g.post_crawford,
                "jacoby": m.jacoby,
                "beavers": m.beavers,
                "over": m.over,
                "winner": None if m.winner is None else _WHO[m.winner],
            },
            "legal": legal,
            "result": None,
            "position_id": pid,
            "match_id": mid,
            "ply": self.bot.ply,
            "message": self.message,
            "events": self.events,
        }
        if g.over:
            out["result"] = {
                "winner": _WHO[g.winner] if g.winner is not None else None,
                "points": g.points,
                "how": g.result,
                "text": result_text(g, "bgnet"),
            }
        self.events = []
        self.message = ""
        return out

    def mat(self) -> str:
        """The session's record as a ``.mat`` file (gnubg imports it)."""
        return format_mat(self.match)

    def hint(self) -> dict:
        """What ``bgnet analyze`` says about the person's decision now, at the bot's ply.

        With the dice rolled: the plays ranked (cubeful where the cube module
        covers the match); before the roll: the person's cube decision; when
        doubled: the doubler's cube decision (its ``taker_action`` is the advice).
        """
        g = self.game
        if g.actor != PERSON:
            raise GameError("a hint is for your decisions: it is not your turn")
        if g.phase is Phase.MOVE:
            side, dice = PERSON, g.dice
        elif g.phase is Phase.ROLL:
            side, dice = PERSON, None
        elif g.phase is Phase.DOUBLED:
            side, dice = BOT, None
        else:
            raise GameError("no hint while a resignation is pending")
        position = g.position_for(side)
        with self.eval_lock:
            try:
                result = analyze(self.bot.evaluator, position, dice, g.state(side), self.bot.ply)
            except BgnetError:  # a state the cube module cannot judge: cubeless
                result = analyze(self.bot.evaluator, position, dice, None, self.bot.ply)
        result["for"] = {PERSON: "you", BOT: "bgnet"}[side]
        return result

    # -- actions -----------------------------------------------------------------

    def act(self, action: str, body: dict) -> None:
        """The person's ``action`` (one of :data:`ACTIONS`) with its JSON ``body``; GameError if refused."""
        g = self.game
        if action == "next":
            if not g.over:
                raise GameError("the game is not over: finish it (or resign) first")
            if self.match.over:
                raise GameError("the match is over: start a new one")
            self._start_game()
            return
        if g.over:
            raise GameError("the game is over: start the next game")
        if g.actor != PERSON:
            raise GameError("it is bgnet's turn")
        if action == "roll":
            dice = g.roll(player=PERSON)
            self.events.append({"kind": "roll", "who": "you", "dice": [dice.high, dice.low]})
        elif action == "double":
            g.double(PERSON)
            self.events.append({"kind": "double", "who": "you", "value": g.cube.value * 2})
            self._bot_answers_double()
        elif action == "take":
            g.take(PERSON)
            self.events.append({"kind": "take", "who": "you", "value": g.cube.value})
        elif action == "drop":
            g.drop(PERSON)
            self.events.append({"kind": "drop", "who": "you"})
        elif action == "beaver":
            if g.phase is not Phase.DOUBLED:
                raise GameError("there is no double to beaver")
            if not self._beavers():
                raise GameError("beavers are allowed only in a money session started with beavers")
            self._beaver(PERSON)
        elif action == "move":
            self._move(body.get("play"))
        elif action == "resign":
            level = body.get("level", "single")
            g.resign(level if isinstance(level, (int, str)) else "single", PERSON)
            self.events.append({"kind": "resign", "who": "you", "value": g.resigned})
        else:
            raise GameError(f"unknown action {action!r}: one of {', '.join(ACTIONS)}")
        self._settle()

    def _move(self, text: object) -> None:
        g = self.game
        if g.phase is not Phase.MOVE or g.dice is None:
            raise GameError("roll first: there are no dice to play")
        if not isinstance(text, str):
            raise GameError('give the play as {"play": "24/18 13/11"} (one of the state\'s legal plays)')
        plays = legal_plays(Position(g.board, validate=False), g.dice)
        wanted = " ".join(text.split())
        chosen = next((p for p in plays if p.notation == wanted), None)
        if chosen is None:
            chosen = parse_play(g.board, g.dice, wanted)  # typed plays as the terminal reads them
        dice = _dice_for(g)
        g.move(chosen, PERSON)
        self.events.append({"kind": "move", "who": "you", "dice": dice, "play": chosen.notation})

    def _beavers(self) -> bool:
        return not self.match.length and self.match.beavers

    def _beaver(self, who: int) -> None:
        """``who`` (the doubled side) takes and redoubles at once, keeping the cube with the doubler."""
        g = self.game
        g.take(who)
        doubler = g.turn
        value = g.cube.value * 2
        self.events.append({"kind": "beaver", "who": _WHO[who], "value": value})
        g.actions.append(Action(who, "beaver", value=value))
        owner = CubeOwner.ME if doubler == 0 else CubeOwner.OPPONENT  # seen from player 0
        g.cube = CubeState(value, owner)
        # The doubler has doubled this turn: it rolls now (it may not turn the cube it got back again).
        dice = g.roll(player=doubler)
        if doubler == PERSON:
            self.events.append({"kind": "roll", "who": "you", "dice": [dice.high, dice.low]})

    def _bot_answers_double(self) -> None:
        g = self.game
        with self.eval_lock:
            answer = self.bot.answer(g.board, g.state())  # from the doubler (the person), on roll
        if answer == "beaver" and self._beavers():
            self._beaver(BOT)
        elif answer in ("take", "beaver"):
            g.take(BOT)
            self.events.append({"kind": "take", "who": "bgnet", "value": g.cube.value})
        else:
            g.drop(BOT)
            self.events.append({"kind": "drop", "who": "bgnet"})

    def _start_game(self) -> None:
        game = self.match.new_game()
        a, b = game.opening_dice
        self.events.append(
            {
                "kind": "opening",
                "game": game.number + 1,
                "dice": {"you": b, "bgnet": a},
                "first": _WHO[game.first],
                "crawford": game.crawford,
            }
        )
        self._settle()

    def _settle(self) -> None:
        """The bot's actions due now, then the person's automatic ones (as ``bgnet play``), recorded."""
        g = self.game
        while not g.over:
            if g.actor == BOT:
                before = len(g.actions)
                with self.eval_lock:
                    due = self.engine.advance_round([g])
                for action in g.actions[before:]:
                    self._record(g, action)
                if due:
                    continue
            if g.actor == PERSON and g.phase is Phase.ROLL and not g.may_double(PERSON):
                dice = g.roll(player=PERSON)
                self.events.append({"kind": "roll", "who": "you", "dice": [dice.high, dice.low]})
                continue
            if g.actor == PERSON and g.phase is Phase.MOVE and not len(g.legal_results()):
                rolled = _dice_for(g)
                g.move(None, PERSON)
                self.events.append({"kind": "move", "who": "you", "dice": rolled, "play": ""})
                self.message = f"You rolled {rolled[0]}-{rolled[1]}: no legal play."
                continue
            break
        if g.over:
            self.events.append({"kind": "over", "text": result_text(g, "bgnet")})

    def _record(self, g: Game, a: Action) -> None:
        """An event for the action ``a`` the engine just took in ``g`` (always the bot's)."""
        event: dict = {"kind": a.kind, "who": _WHO[a.player]}
        if a.kind == "move":
            assert a.dice is not None
            event.update(
                dice=[a.dice[0], a.dice[1]],
                play=a.notation,
                steps=[[int(f), int(t)] for f, t in a.steps],
                board=[int(x) for x in g.board_for(PERSON)],
            )
        elif a.kind in ("double", "take", "resign", "accept", "reject"):
            event["value"] = a.value
        self.events.append(event)


def _dice_for(g: Game) -> list[int]:
    assert g.dice is not None
    return [g.dice.high, g.dice.low]
