"""``bgnet play --variant``: a person against a bot in one of the variants, and ``watch`` for them.

``bgnet play --variant LABEL [--match N] [--bot SPEC] [--seed S]`` plays a
game of ``LABEL`` (``portes``, ``tavla``, ``plakoto``, ``fevga``,
``long-nardy``, ``acey-deucey``, ``nackgammon``, ... with house rules
``+no-cube``, ``+no-forced-max``, ``+enter-all``, ``+european-1-2``; see
:mod:`bgnet.variants`) against a bot in a plain terminal: the board is drawn
each turn from the person's side (:func:`bgnet.variant_format.draw_variant`;
the person is X, moving 24 -> 1), the dice are rolled for both sides, the
person types a play in gnubg's notation (``24/18 13/11``; ``^`` marks a pin
in plakoto and may be left out; ``in/22`` enters a waiting checker in
acey-deucey), ``?`` lists the legal plays, ``hint`` shows the bot's choice,
``quit`` stops; a roll without a legal play is announced as a pass.  No cube
in any variant game (the cube belongs to ``bgnet play`` without
``--variant``).

An acey-deucey 1-2 is a whole turn: the person types it at once
(``2-1: 13/11 6/5, 6-6: 24/18(2) 13/7(2)``), or the 1 and the 2 first and
then, asked, the double and its moves; a turn played in full rolls again
(the same side gets another roll), for the bot as for the person.

``--match N`` plays games to N points (the winner of a game starts the
next: it rolls for its first turn; the first game starts with the opening
roll).  ``--variant tavli`` is the Greek tavli match: portes, plakoto and
fevga in turn, to N points (5 without ``--match``), each game with its own
bot.  Without ``--match`` one game is played (``--games N``: N games, each
from an opening roll).

The course of the games (opening roll, dice, repeated turns, results, the
winner starting the next game) is :class:`bgnet.variant_game.VariantMatch`'s,
the same as the web board's; this module talks to the person.

The bot is ``--bot SPEC`` (:func:`bgnet.players.make_player` with the game),
by default :func:`default_bot_spec`: the network shipped for the game, or
backgammon's for games with backgammon's moves, else ``greedy``
(:class:`bgnet.baselines.GreedyPlayer`, with a note).

The input is read line by line (a terminal, a pipe or a file; lines read
from a pipe are echoed so the transcript reads like a session).  The end of
the input stops the session cleanly (status 0), Ctrl-C too (status 130).

:func:`watch_variant` plays one game bot against bot, ply by ply, for
``bgnet watch --variant``.
"""

from __future__ import annotations

import argparse
import re
import time
from dataclasses import dataclass, field
from typing import IO

import numpy as np

from bgnet.commands.common import Console, Quit
from bgnet.errors import BgnetError, IllegalMoveError
from bgnet.lockstep import Lockstep, duel
from bgnet.movegen import MoveBatch
from bgnet.players import Player, make_player, variant_network
from bgnet.variant_format import (
    VariantPlay,
    draw_variant,
    legal_variant_plays,
    needs_double,
    parse_variant_play,
    row_notation,
)
from bgnet.variant_game import VariantMatch
from bgnet.variants import TAVLI, Variant, variant

__all__ = [
    "TAVLI_POINTS",
    "VariantSession",
    "add_variant_arguments",
    "default_bot_spec",
    "match_games",
    "run_variant_play",
    "watch_variant",
]

BOT, PERSON = 0, 1
TAVLI_POINTS = 5
"""The length of a tavli match without ``--match``."""
EXIT_INTERRUPTED = 130
DEFAULT_NETWORK_BOT = "bgnet:ply=1"
HELP = (
    "a play like 24/18 13/11 (8/5^ in plakoto, in/22 to enter in acey-deucey), ? (the legal plays), "
    "hint, board, help, quit"
)
LIST_LIMIT = 40
"""``?`` lists at most this many plays; a 1-2 turn with more lists its 1-2 parts."""
DOUBLE_PROMPT = "Now choose a double and play it (like 6-6: 24/18(2) 13/7(2)): "
_EMPTY_ANSWER = re.compile(r"\s*(none|no play|-)?\s*", re.IGNORECASE)
_DICE_MARK = re.compile(r"[1-6]-?[1-6]\s*:")


def default_bot_spec(label: str) -> str:
    """The bot of ``bgnet play --variant LABEL`` by default.

    ``bgnet:ply=1`` (a network, at 1-ply: about 0.1 s a move in plakoto on
    one core, where 2-ply takes 2 s on average and up to 4 s) when one is
    shipped for the game (:func:`bgnet.players.variant_network`) or the
    game moves as backgammon does (backgammon's shipped network plays it);
    else ``greedy``.
    """
    game = variant(label)
    if game.standard or variant_network(game.name) is not None:
        return DEFAULT_NETWORK_BOT
    return "greedy"


def match_games(label: str) -> list[Variant]:
    """The games a match of ``label`` cycles through: one game, or tavli's three (with the house rules)."""
    name, _, house = label.strip().lower().partition("+")
    if name == "tavli":
        return [variant("+".join(filter(None, (game, house)))) for game in TAVLI]
    return [variant(label)]


def add_variant_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--variant`` and ``--bot`` to ``bgnet play``'s parser (the rest of its options are shared)."""
    parser.add_argument(
        "--variant",
        metavar="LABEL",
        help="play a variant instead of backgammon: portes, tavla, plakoto, fevga, long-nardy, "
        "acey-deucey, nackgammon, ... (house rules +no-cube, +no-forced-max, and in acey-deucey "
        "+enter-all, +european-1-2), or tavli (portes, plakoto and fevga in turn, "
        f"to --match points, default {TAVLI_POINTS})",
    )
    parser.add_argument(
        "--bot",
        metavar="SPEC",
        help="with --variant: the bot (bgnet[:ply=N,checkpoint=PATH], greedy, random[:seed=S]); "
        "default: the game's shipped network, else greedy",
    )


def _points_text(points: int) -> str:
    return f"{points} point{'s' if points != 1 else ''}"


@dataclass
class VariantSession:
    """A match (or a run of games) between a bot (player 0, O) and the person (player 1, X).

    ``games`` are the games played in turn (one, or tavli's three); ``bots``
    the bot of each, in the same order.  ``length`` 0: ``count`` games, each
    from an opening roll; else games until a side has ``length`` points, the
    winner of each starting the next.  ``plays`` holds the person's legal
    plays while a play is asked for (a scripted reader can read them).
    """

    games: list[Variant]
    bots: list[Player]
    console: Console
    rng: np.random.Generator
    length: int = 0
    count: int = 1
    plays: list = field(default_factory=list)
    match: VariantMatch | None = None

    @property
    def bot_name(self) -> str:
        return self.bots[0].name

    @property
    def score(self) -> list[int]:
        return self.match.score if self.match is not None else [0, 0]

    @property
    def results(self) -> list[tuple[str, int | None, int]]:
        """The games finished: (label, winner or None for a draw, points)."""
        return self.match.record if self.match is not None else []

    def run(self) -> int:
        """Play the games; 0 when they end or the person quits, 130 after Ctrl-C."""
        c = self.console
        names = ", ".join(f"{g.label} ({b.name})" for g, b in zip(self.games, self.bots, strict=True))
        kind = f"a {self.length}-point match" if self.length else f"{self.count} game{'s' * (self.count > 1)}"
        c.say(f"bgnet play: you (X) against the bot (O): {kind} of {names}.")
        c.say(f"Commands at your turn: {HELP}.")
        code = 0
        self.match = VariantMatch(
            self.games, self.rng, length=self.length, count=0 if self.length else self.count
        )
        try:
            while not self.match.match_over:
                self.play_game(self.match)
                if self.length:
                    c.say(
                        f"Score: you {self.score[PERSON]}, the bot {self.score[BOT]} "
                        f"(match to {self.length})."
                    )
        except Quit as q:
            c.say(f"Quit ({q}).")
        except KeyboardInterrupt:
            c.say("\nInterrupted.")
            code = EXIT_INTERRUPTED
        c.say(self.summary())
        return code

    def summary(self) -> str:
        if not self.results:
            return "No game finished."
        if self.length and max(self.score) >= self.length:
            who = "You win" if self.score[PERSON] > self.score[BOT] else "The bot wins"
            return f"{who} the {self.length}-point match {max(self.score)}-{min(self.score)}."
        you, bot = self.score[PERSON], self.score[BOT]
        return f"Games finished: {len(self.results)}; points: you {you}, the bot {bot}."

    # -- one game --------------------------------------------------------------

    def play_game(self, m: VariantMatch) -> None:
        """The next game of ``m``, turn by turn (its course and dice are :class:`VariantMatch`'s)."""
        c = self.console
        m.new_game()
        game, bot = m.game, self.bots[m.number % len(self.bots)]
        c.say()
        c.say(f"Game {m.number + 1}: {game.label}; the bot is {bot.name}.")
        d = m.dice
        if m.opening is not None:
            who = "You start" if m.turn == PERSON else "The bot starts"
            a, b = m.opening[BOT], m.opening[PERSON]
            how = "and rolls" if game.opening == "reroll" else "with"
            c.say(f"Opening roll: you roll {b}, the bot rolls {a}. {who} {how} {d[0]}-{d[1]}.")
        else:
            c.say(f"{'You' if m.turn == PERSON else 'The bot'} won the last game and start.")
        while not m.over:
            mover = m.turn
            if mover == PERSON:
                row = self.person_turn(game, m.board, m.dice)
            else:
                row = self.bot_turn(game, bot, m.board, m.dice)
            turn = m.play(row)
            if m.over:
                c.say(draw_variant(m.board_for(PERSON), game))
                self._ended(game, mover, m.points)
            elif turn.again:
                c.say(f"{'You roll' if mover == PERSON else 'The bot rolls'} again.")

    def _ended(self, game: Variant, mover: int, won: int) -> None:
        c = self.console
        if won == 0:
            c.say("Both mothers are pinned: the game is a draw (0 points).")
            return
        who = "You win" if mover == PERSON else "The bot wins"
        c.say(f"{who} the game of {game.label}: {_points_text(won)}.")

    def bot_turn(self, game: Variant, bot: Player, board: np.ndarray, dice: tuple[int, int]) -> int:
        """The bot's turn: the row of its play among the roll's results (-1: it passes)."""
        assert self.match is not None
        batch = self.match.results()
        if batch.offsets[1] == 0:
            self.console.say(f"The bot rolls {dice[0]}-{dice[1]}: no legal play, it passes.")
            return -1
        row = int(bot.choose(batch, np.array([BOT]))[0])
        if not 0 <= row < batch.offsets[1]:
            raise BgnetError(
                f"the bot {bot.name} returned row {row}, not a legal play of {dice[0]}-{dice[1]}"
            )
        text = row_notation(game, batch, row)
        self.console.say(f"The bot rolls {dice[0]}-{dice[1]} and plays {text}.")
        return row

    def person_turn(self, game: Variant, board: np.ndarray, dice: tuple[int, int]) -> int:
        """The person's turn: the row of the play typed among the roll's results (-1: a pass)."""
        c = self.console
        c.say()
        c.say(draw_variant(board, game))
        plays = legal_variant_plays(game, board, dice)
        if not plays:
            c.say(f"You roll {dice[0]}-{dice[1]}: no legal play, you pass.")
            return -1
        self.plays = plays
        try:
            while True:
                text = c.ask(f"You roll {dice[0]}-{dice[1]}. Your play: ")
                word = text.lower()
                if word in ("quit", "q", "exit"):
                    raise Quit("you quit")
                if word in ("?", "list"):
                    c.say(_listing(plays))
                    continue
                if word == "hint":
                    c.say(f"The bot would play {self._hint(game, board, dice)}.")
                    continue
                if word == "board":
                    c.say(draw_variant(board, game))
                    continue
                if word in ("help", "h"):
                    c.say(f"Commands: {HELP}.")
                    continue
                if not word:
                    continue
                try:
                    chosen = self._read_turn(text, plays)
                except IllegalMoveError as e:
                    c.say(f"{e} (? lists the legal plays)")
                    continue
                c.say(f"You play {chosen.notation}.")
                return chosen.row
        finally:
            self.plays = []

    def _read_turn(self, text: str, plays: list[VariantPlay]) -> VariantPlay:
        """The play typed; after the 1 and the 2 of an acey-deucey 1-2 alone, ask for the double.

        The answer is ``6-6: 24/18(2) 13/7(2)`` (with the complement after it
        under the European rule), the moves alone when one double makes
        them, or ``none`` for a turn that ends after the 1 and the 2.
        """
        if not needs_double(text, plays):
            return parse_variant_play(text, plays)
        second = self.console.ask(DOUBLE_PROMPT).strip()
        if second.lower() in ("quit", "q", "exit"):
            raise Quit("you quit")
        first = text.strip()
        if not _EMPTY_ANSWER.fullmatch(second) and not _DICE_MARK.search(second):
            # The moves without their double: the one double that makes them.
            found = {}
            for d in range(1, 7):
                try:
                    found[d] = parse_variant_play(f"2-1: {first}, {d}-{d}: {second}", plays)
                except IllegalMoveError:
                    pass
            if len({p.row for p in found.values()}) == 1:
                return next(iter(found.values()))
        if _EMPTY_ANSWER.fullmatch(second):
            return parse_variant_play(first, plays)
        return parse_variant_play(f"2-1: {first}, {second}", plays)

    def _hint(self, game: Variant, board: np.ndarray, dice: tuple[int, int]) -> str:
        """The play the bot of this game would make in the person's place."""
        k = self.games.index(game)
        batch = game.generate(board[None, :], np.array([dice]))
        row = int(self.bots[k].choose(batch, np.array([PERSON]))[0])
        return row_notation(game, batch, row)


def _listing(plays: list[VariantPlay]) -> str:
    """The answer to ``?``: the legal plays, or for a 1-2 turn with many, its 1-2 parts and an example."""
    if len(plays) <= LIST_LIMIT or not any(p.double for p in plays):
        return "Legal plays: " + ", ".join(p.notation for p in plays)
    firsts = list(dict.fromkeys(p.parts[0].notation for p in plays))
    example = next(p.notation for p in plays if p.double)
    return (
        f"Legal turns: {len(plays)}. Play the 1 and the 2 ({', '.join(firsts)}), then choose a double "
        f"and play it, like {example}"
    )


def run_variant_play(
    args: argparse.Namespace, *, out: IO[str] | None = None, stdin: IO[str] | None = None
) -> int:
    """``bgnet play --variant``: the session of ``args`` (``variant``, ``match``, ``bot``, ``seed``, ...).

    ``out`` and ``stdin`` default to the terminal's (tests pass their own).
    The options of ``bgnet play`` that belong to backgammon (``--position``,
    ``--save``, ``--jacoby``, ``--checkpoint``) are refused with a one-line
    error.
    """
    for option, attr in (
        ("--position", "position"),
        ("--save", "save"),
        ("--jacoby", "jacoby"),
        ("--checkpoint", "checkpoint"),
    ):
        if getattr(args, attr, None):
            hint = " (give the bot as --bot bgnet:checkpoint=PATH)" if attr == "checkpoint" else ""
            raise BgnetError(f"{option} is for backgammon; it does not go with --variant{hint}")
    label = args.variant
    games = match_games(label)
    length = getattr(args, "match", None)
    count = getattr(args, "games", None)
    if length is not None and length < 1:
        raise BgnetError(f"--match takes a length of 1 point or more, got {length}")
    if length is not None and count is not None:
        raise BgnetError("--games is for single games; a --match ends when a side has its points")
    if count is not None and count < 1:
        raise BgnetError(f"--games must be 1 or more, got {count}")
    if length is None and len(games) > 1:
        length = TAVLI_POINTS
    console = Console(out, stdin=stdin)
    bots = []
    for game in games:
        spec = getattr(args, "bot", None)
        if spec is None:
            spec = default_bot_spec(game.label)
            if spec == "greedy":
                console.say(
                    f"(No network is shipped for {game.name} yet: the bot is greedy, a simple heuristic.)"
                )
        bots.append(make_player(spec, game))
    session = VariantSession(
        games, bots, console, np.random.default_rng(getattr(args, "seed", None)), length or 0, count or 1
    )
    return session.run()


def watch_variant(
    label: str, bot_spec: str, opponent_spec: str, seed: int | None, out: IO[str], delay: float = 0.0
) -> int:
    """Play one game of ``label``, ``bot_spec`` (X) against ``opponent_spec`` (O), printing every ply.

    Each ply shows the board from X's side, the roll and the play (or the
    pass), then waits ``delay`` seconds (``bgnet watch --delay``); the
    game's result ends it.  Returns 0.
    """
    games = match_games(label)
    if len(games) > 1:
        raise BgnetError(f"watch plays one game: give one of {', '.join(TAVLI)}, not {label}")
    game = games[0]
    players = (make_player(bot_spec, game), make_player(opponent_spec, game))
    print(f"{game.label}: {players[0].name} plays X, {players[1].name} plays O.\n", file=out)
    engine = Lockstep(1, 1, np.random.default_rng(seed), variant=game)
    choose = duel((players[0].choose, players[1].choose))

    def show(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        assert batch.boards is not None and batch.dice is not None
        board = batch.boards[0]
        dice = (int(max(batch.dice[0])), int(min(batch.dice[0])))
        rows = choose(batch, player)
        print(draw_variant(board if player[0] == 0 else game.flip(board), game), file=out)
        who = f"{'XO'[player[0]]} ({players[player[0]].name})"
        if rows[0] < 0:
            print(f"{who} rolls {dice[0]}-{dice[1]}: no legal play\n", file=out)
        else:
            text = row_notation(game, batch, int(rows[0]))
            print(f"{who} rolls {dice[0]}-{dice[1]} and plays {text}\n", file=out)
        out.flush()
        if delay > 0:
            time.sleep(delay)
        return rows

    finished = []
    while engine.running:
        finished += engine.step(show)
    last = finished[0]
    points = last.points
    # The final position is seen by the loser (on roll); a draw (plakoto) has no repeated turns.
    on_roll = 1 if points > 0 else 0 if points < 0 else int(last.on_roll()[-1])
    print(draw_variant(last.final if on_roll == 0 else game.flip(last.final), game), file=out)
    if points == 0:
        print("The game is a draw (both mothers pinned): 0 points.", file=out)
    else:
        winner = f"X ({players[0].name})" if points > 0 else f"O ({players[1].name})"
        print(f"{winner} wins: {_points_text(abs(points))}.", file=out)
    return 0
