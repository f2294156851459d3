"""A variant game or match against a bot, driven by a browser: ``bgnet web --variant``.

The same API as :class:`bgnet.web.session.WebGame` (``state``, ``act``,
``hint``), on :class:`bgnet.variant_game.VariantMatch`: the person is
player 1 (X, at the bottom, moving 24 -> 1), the bot player 0.  The
variants have no cube, so both sides' dice are rolled at once and the
person's only decisions are the plays; a roll without a legal play passes
by itself.  ``tavli`` plays portes, plakoto and fevga in turn, each with its
own bot.

Boards are the variant's 52 slots seen from the person (slots 26..49 the
pins, 50/51 the checkers waiting to enter; :mod:`bgnet.variants`); ``rules``
tells the page what a landing on a lone checker does and whether the sides
move the same way, so it can walk the person's steps and show the bot's.
Each legal play comes with its board after the play seen from the person
and ``again`` (acey-deucey's 1-2: the person rolls again).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from bgnet.errors import BgnetError, IllegalMoveError
from bgnet.game import GameError
from bgnet.players import Player
from bgnet.variant_format import (
    format_variant_position,
    parse_variant_play,
    plays_of,
    row_notation,
)
from bgnet.variant_game import Turn, VariantMatch
from bgnet.variants import CAPTURE_HIT, CAPTURE_PIN, R_BLOCK, R_CAPTURE, Variant

__all__ = ["ACTIONS", "VariantWebGame"]

ACTIONS = ("move", "next")
"""The person's actions in a variant session (no cube, no resignation: the dice are rolled for both)."""

BOT, PERSON = 0, 1
MAX_LISTED = 2000
"""Legal plays sent with a state at most (a European 1-2 in acey-deucey can have 100,000s: the rest are
typed, ``legal_total`` says how many there are)."""
_WHO = {BOT: "bgnet", PERSON: "you"}


def rules_of(game: Variant) -> dict[str, Any]:
    """What the page needs to know of a game's rules to walk a person's steps and replay the bot's."""
    capture = int(game.rules[R_CAPTURE])
    return {
        "capture": {CAPTURE_HIT: "hit", CAPTURE_PIN: "pin"}.get(capture, "none"),
        "rotate": game.rotate,
        "block": int(game.rules[R_BLOCK]),
    }


class VariantWebGame:
    """A session of ``games`` (one game's label, or tavli's three) against ``bots`` (one per game)."""

    def __init__(
        self,
        label: str,
        games: list[Variant],
        bots: list[Player],
        length: int = 0,
        *,
        seed: int | None = None,
        lock: threading.Lock | None = None,
    ) -> None:
        if not 0 <= length <= 25:
            raise BgnetError(f"a match is 1 to 25 points (0: one game after another), got {length}")
        self.label = label
        self.bots = bots
        self.match = VariantMatch(games, np.random.default_rng(seed), length=length)
        self.eval_lock = lock or threading.Lock()
        self.lock = threading.Lock()
        self.events: list[dict] = []
        self.message = ""
        self._start_game()

    @property
    def bot(self) -> Player:
        return self.bots[self.match.number % len(self.bots)]

    # -- views -----------------------------------------------------------------------

    def _plays(self):
        m = self.match
        return plays_of(m.game, m.results())  # the turn's cached batch: a 1-2 is generated once

    def state(self) -> dict:
        """The JSON state from the person's side; the pending events are handed over."""
        m = self.match
        game = m.game
        legal = []
        total = 0
        mine = not m.over and m.turn == PERSON
        if mine:
            batch = m.results()
            plays = self._plays()
            total = len(plays)
            for p in plays[:MAX_LISTED]:
                again = bool(batch.again[p.row]) if batch.again is not None else False
                after = p.position if again else game.flip(p.position)
                legal.append({"play": p.notation, "board": [int(x) for x in after], "again": again})
        out: dict[str, Any] = {
            "variant": game.label,
            "session": self.label,
            "rules": rules_of(game),
            "phase": "over" if m.over else "move",
            "actor": None if m.over else _WHO[m.turn],
            "board": [int(x) for x in m.board_for(PERSON)],
            "dice": None if m.over else [m.dice[0], m.dice[1]],
            "cube": None,
            "may_double": False,
            "may_beaver": False,
            "resigned": 0,
            "match": {
                "length": m.length,
                "score": {"you": m.score[PERSON], "bgnet": m.score[BOT]},
                "game": m.number + 1,
                "over": m.match_over,
                "winner": None if not m.match_over else _WHO[int(m.score[PERSON] > m.score[BOT])],
            },
            "legal": legal,
            "legal_total": total,
            "result": None,
            "position": format_variant_position(m.board_for(PERSON), game),
            "bot": self.bot.name,
            "message": self.message,
            "events": self.events,
        }
        if m.over:
            out["result"] = {
                "winner": None if m.winner is None else _WHO[m.winner],
                "points": m.points,
                "text": self._result_text(),
            }
        self.events = []
        self.message = ""
        return out

    def _result_text(self) -> str:
        m = self.match
        if m.winner is None:
            return f"The game of {m.game.label} is a draw (0 points)."
        who = "You win" if m.winner == PERSON else "bgnet wins"
        return f"{who} the game of {m.game.label}: {m.points} point{'s' * (m.points != 1)}."

    def hint(self) -> dict:
        """The play the game's bot would make in the person's place."""
        m = self.match
        if m.over or m.turn != PERSON:
            raise GameError("a hint is for your decisions: it is not your turn")
        batch = m.results()
        with self.eval_lock:
            row = int(self.bot.choose(batch, np.array([PERSON]))[0])
        play = row_notation(m.game, batch, row) if row >= 0 else ""
        return {
            "for": "you",
            "variant": m.game.label,
            "dice": list(m.dice),
            "best": play,
            "bot": self.bot.name,
        }

    def mat(self) -> str:
        raise GameError(".mat files record backgammon games; a variant session has no .mat record")

    # -- actions -----------------------------------------------------------------------

    def act(self, action: str, body: dict) -> None:
        m = self.match
        if action == "next":
            if not m.over:
                raise GameError("the game is not over: finish it first")
            if m.match_over:
                raise GameError("the match is over: start a new one")
            self._start_game()
            return
        if action not in ACTIONS:
            raise GameError(
                f"{action!r} is not an action of a variant game (no cube): one of {', '.join(ACTIONS)}"
            )
        if m.over:
            raise GameError("the game is over: start the next game")
        if m.turn != PERSON:
            raise GameError("it is bgnet's turn")
        text = body.get("play")
        if not isinstance(text, str):
            raise GameError('give the play as {"play": "24/18 13/11"} (one of the state\'s legal plays)')
        plays = self._plays()
        wanted = " ".join(text.split())
        chosen = next((p for p in plays if p.notation == wanted), None)
        if chosen is None:
            try:
                chosen = parse_variant_play(wanted, plays)
            except IllegalMoveError as e:
                raise GameError(str(e)) from None
        dice = list(m.dice)
        turn = m.play(chosen.row)
        self.events.append(
            {"kind": "move", "who": "you", "dice": dice, "play": chosen.notation, "again": turn.again}
        )
        self._settle()

    def _start_game(self) -> None:
        m = self.match
        m.new_game()
        event: dict[str, Any] = {
            "kind": "opening",
            "game": m.number + 1,
            "variant": m.game.label,
            "first": _WHO[m.turn],
            "dice_first": list(m.dice),
        }
        if m.opening is not None:
            event["dice"] = {"you": m.opening[PERSON], "bgnet": m.opening[BOT]}
        self.events.append(event)
        self._settle()

    def _settle(self) -> None:
        """The bot's turns due now, then the person's passes, as events."""
        m = self.match
        while not m.over:
            batch = m.results()
            if m.turn == BOT:
                if batch.offsets[1] == 0:
                    row = -1
                else:
                    with self.eval_lock:
                        row = int(self.bot.choose(batch, np.array([BOT]))[0])
                    if not 0 <= row < batch.offsets[1]:
                        raise BgnetError(f"the bot {self.bot.name} returned row {row}, not a legal play")
                text = row_notation(m.game, batch, row) if row >= 0 else ""
                self._record(m.play(row), text)
                continue
            if batch.offsets[1] == 0:
                dice = list(m.dice)
                m.play(-1)
                self.events.append({"kind": "move", "who": "you", "dice": dice, "play": "", "again": False})
                self.message = f"You rolled {dice[0]}-{dice[1]}: no legal play."
                continue
            break
        if m.over:
            self.events.append({"kind": "over", "text": self._result_text()})

    def _record(self, turn: Turn, text: str) -> None:
        """The event of the bot's ``turn`` (written ``text``), with the board after it seen by the person."""
        m = self.match
        self.events.append(
            {
                "kind": "move",
                "who": "bgnet",
                "dice": list(turn.dice),
                "play": text,
                "steps": [[int(f), int(t)] for f, t in turn.steps],
                "again": turn.again,
                "board": [int(x) for x in m.board_for(PERSON)],
            }
        )
