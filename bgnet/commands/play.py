"""``bgnet play``: a game or match against the bot in a plain terminal.

The person plays X at the bottom of the board (gnubg's player 1, points
numbered from the person's side, moving from 24 down to 1); the bot plays O
(gnubg's player 0).  Everything is plain text with one prompt per line, so
it works in any terminal, under tmux and with input piped from a file (the
input is echoed when it does not come from a terminal, so the transcript
reads like a session).

At the roll prompt (only when you may double): ``roll`` (or an empty line),
``double``, ``hint`` (the cube decision), ``resign [single|gammon|backgammon]``;
a play typed there is refused: roll first, you have not seen the dice.
At the move prompt: a play in gnubg notation (``24/18 13/11``, ``bar/22``,
``6/off``, ``8/5(2)``, ``13/7/5``, ``24/13``), ``list`` (or ``?``) for the
numbered legal plays and ``#N`` to play the N-th, ``hint`` (the bot's best
plays with equities), ``resign``.  A play is shown on the board and
committed by the next command: Enter (or ``ok``) confirms it, ``undo`` takes
it back and asks for the move again, any other command confirms it and is
then carried out.  When doubled: ``take``, ``drop``, ``hint``.  Anywhere:
``board``, ``help``, ``quit``.  A bad or illegal input gets a message and a
new prompt; the end of the input quits (after confirming a play waiting for
it).
"""

from __future__ import annotations

import argparse

import numpy as np

from bgnet.commands.common import Console, Quit
from bgnet.commands.variant_play import add_variant_arguments, run_variant_play
from bgnet.cube import CubeOwner, cubeful_equity, equity_to_mwc, race_pips
from bgnet.engine import Engine
from bgnet.errors import BgnetError, IllegalMoveError
from bgnet.formats import GameState, MatchInfo, match_id, position_id
from bgnet.game import Action, Game, GameError, Match, Phase
from bgnet.movegen import Play
from bgnet.notation import legal_plays, parse_play
from bgnet.players import DEFAULT_PLAY_PLY, MAX_PLY, NetPlayer, check_ply
from bgnet.position import STARTING, Position, draw, flip
from bgnet.probabilities import flip as flip_probs

BOT, PERSON = 0, 1
HELP = {
    "roll": "roll (or Enter), double, hint, resign [single|gammon|backgammon], board, help, quit",
    "move": "a play like 24/18 13/11, bar/22, 6/off, 8/5(2), 13/7/5 or 24/13; list (or ?) and #N; "
    "hint, resign [single|gammon|backgammon], board, help, quit; after a play, Enter confirms it "
    "and undo takes it back",
    "confirm": "Enter (or ok) confirms the play, undo takes it back; any other command confirms it and "
    "is carried out next; board, help, quit",
    "doubled": "take, drop, hint, board, help, quit",
}
CONFIRM_WORDS = ("", "ok", "confirm", "yes", "y")


# --------------------------------------------------------------------------
# The board and the state, from the person's side
# --------------------------------------------------------------------------


def render(game: Game, names: tuple[str, str]) -> str:
    """The board from the person (X) with pips, the cube and the score."""
    board = game.board_for(PERSON)
    lines = [draw(board)]
    owner = {
        CubeOwner.CENTERED: "centred",
        CubeOwner.ME: "you own it",
        CubeOwner.OPPONENT: f"{names[BOT]} owns it",
    }[game.cube_state(PERSON).owner]
    cube = f" Cube: {game.cube.value} ({owner})"
    m = game.match
    if m.length:
        tag = ", Crawford game" if game.crawford else ", post-Crawford" if game.post_crawford else ""
        score = f"Score: you {m.score[PERSON]}, {names[BOT]} {m.score[BOT]} ({m.length}-point match{tag})"
    else:
        score = f"Money session: you {m.score[PERSON]:+d}, {names[BOT]} {m.score[BOT]:+d}"
        if m.jacoby:
            score += " (Jacoby rule)"
    lines.append(f"{cube}    {score}")
    lines.append(f" You are X (moving from 24 to 1); {names[BOT]} is O.")
    pid, mid = game_ids(game)
    lines.append(f" Position ID: {pid}   Match ID: {mid}")
    return "\n".join(lines)


def game_ids(game: Game) -> tuple[str, str]:
    """The GNUBG Position ID and Match ID of the game now (gnubg's player numbers are the game's)."""
    owner = game.cube_state(0).owner
    info = MatchInfo(
        cube_value=game.cube.value,
        cube_owner={CubeOwner.CENTERED: -1, CubeOwner.ME: 0, CubeOwner.OPPONENT: 1}[owner],
        player_on_roll=game.turn,
        crawford=game.crawford,
        game_state=GameState.OVER if game.over else GameState.PLAYING,
        turn=game.turn if game.actor is None else game.actor,
        double_offered=game.phase is Phase.DOUBLED,
        resignation=game.resigned if game.phase is Phase.RESIGNED else 0,
        dice=(game.dice.high, game.dice.low) if game.dice is not None and not game.over else (0, 0),
        match_length=game.match.length,
        score=game.score if game.match.length else (0, 0),  # at the start of this game
        jacoby=game.match.jacoby,
    )
    return position_id(game.board), match_id(info)


def _sentence(error: Exception) -> str:
    text = str(error)
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def _roll_text(dice) -> str:
    return f"{dice.high}-{dice.low}"


# --------------------------------------------------------------------------
# The session
# --------------------------------------------------------------------------


class PlaySession:
    """One ``bgnet play`` session: the match loop between the bot (player 0) and the person (player 1).

    The bot's actions are the game engine's (:class:`bgnet.engine.Engine`
    with the person's seat left to this session), narrated from the actions
    the game records.
    """

    def __init__(self, match: Match, bot: NetPlayer, console: Console) -> None:
        self.match = match
        self.bot = bot
        self.engine = Engine((bot, None))
        self.c = console
        self.names = match.names
        self.shown = False  # the board was shown this turn

    def run(self) -> int:
        names = self.names
        m = self.match
        kind = f"a {m.length}-point match" if m.length else "money play"
        self.c.say(f"bgnet play: you against {names[BOT]} ({kind}; ply {self.bot.ply}).")
        self.c.say("Type help at any prompt for the commands.")
        try:
            while not m.over:
                self.play_game(m.new_game())
                if m.max_games is None and not m.length and not self._another():
                    break
        except Quit as q:
            self.c.say(f"Quit ({q}).")
        except KeyboardInterrupt:
            self.c.say("\nInterrupted.")
        self.c.say()
        self.c.say(m.summary())
        return 0

    def _another(self) -> bool:
        while True:
            answer = self.c.ask("Another game? (yes/no) ").lower()
            if answer in ("y", "yes", ""):
                return True
            if answer in ("n", "no", "quit", "q"):
                return False
            self.c.say("Answer yes or no.")

    def play_game(self, game: Game) -> None:
        names = self.names
        a, b = game.opening_dice
        self.c.say()
        tag = " (the Crawford game: no doubling)" if game.crawford else ""
        self.c.say(f"Game {game.number + 1}{tag}.")
        who = "You move" if game.first == PERSON else f"{names[BOT]} moves"
        self.c.say(
            f"Opening roll: you roll {b}, {names[BOT]} rolls {a}. {who} first with {_roll_text(game.dice)}."
        )
        while not game.over:
            if game.actor == BOT:
                self.bot_acts(game)
            else:
                self.person_acts(game)
        self.c.say(render(game, names))
        self.c.say(result_text(game, names[BOT]))

    # -- the bot ---------------------------------------------------------------

    def bot_acts(self, game: Game) -> None:
        """The engine takes the bot's actions due now; each is narrated."""
        before = len(game.actions)
        self.engine.advance([game])
        for action in game.actions[before:]:
            text = self.narrate(game, action)
            if text:
                self.c.say(text)

    def narrate(self, game: Game, a: Action) -> str:
        name = self.names[BOT]
        if a.player != BOT:
            return ""
        if a.kind == "move":
            first = next(x for x in game.actions if x.kind == "move") is a
            rolled = "" if first or a.dice is None else f"{name} rolls {a.dice[0]}-{a.dice[1]}.\n"
            return rolled + (f"{name} plays {a.notation}." if a.steps else f"{name} cannot move.")
        return {
            "double": f"{name} doubles to {a.value}.",
            "take": f"{name} takes: the cube is on {a.value}, {name} owns it.",
            "drop": f"{name} drops.",
            "accept": f"{name} accepts.",
            "reject": f"{name} rejects: play on.",
        }.get(a.kind, "")

    # -- the person ------------------------------------------------------------

    def person_acts(self, game: Game) -> None:
        if game.phase is Phase.ROLL:
            if not game.may_double():
                dice = game.roll()
                self.c.say(f"You roll {_roll_text(dice)}.")
                return
            self.c.say(render(game, self.names))
            self.shown = True
            self.roll_prompt(game)
        elif game.phase is Phase.MOVE:
            self.move_prompt(game)
        elif game.phase is Phase.DOUBLED:
            self.take_prompt(game)

    def _common(self, game: Game, word: str, phase: str) -> bool:
        """Commands valid at every prompt; True when handled."""
        if word in ("help", "h"):
            self.c.say("Commands: " + HELP[phase])
            return True
        if word == "board":
            self.c.say(render(game, self.names))
            return True
        if word in ("quit", "q", "exit"):
            raise Quit("quit")
        return False

    def _resign(self, game: Game, arg: str) -> bool:
        try:
            game.resign(arg or "single")
        except GameError as e:
            self.c.say(_sentence(e))
            return False
        what = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[game.resigned]
        points = game.resigned * game.cube.value
        self.c.say(f"You offer to resign {what} ({points} point{'s' if points != 1 else ''}).")
        self.bot_acts(game)
        return True

    def roll_prompt(self, game: Game) -> None:
        while True:
            text = self.c.ask(f"Your turn (cube {game.cube.value}): roll or double? ")
            word, _, arg = text.lower().partition(" ")
            if word in ("", "roll", "r"):
                dice = game.roll()
                self.c.say(f"You roll {_roll_text(dice)}.")
                return
            if word in ("double", "d", "redouble"):
                game.double()
                self.c.say(f"You double to {game.cube.value * 2}.")
                return
            if word == "hint":
                self.c.say(self.cube_hint(game))
                continue
            if word == "resign":
                if self._resign(game, arg.strip()):
                    return
                continue
            if self._common(game, word, "roll"):
                continue
            if text.startswith("#") or "/" in text:
                # A play typed before rolling: the person has not seen the dice; ask for the roll.
                self.c.say("Roll first (roll, or press Enter): you have not seen the dice yet.")
                continue
            self.c.say(f"Not a command here: {text!r}. Type roll, double, hint, resign or help.")

    def move_prompt(self, game: Game) -> None:
        assert game.dice is not None
        roll = _roll_text(game.dice)
        legal = legal_plays(Position(game.board, validate=False), game.dice)
        if not self.shown:
            self.c.say(render(game, self.names))
        self.shown = False
        if not legal:
            self.c.say(f"You rolled {roll}: no legal play.")
            game.move(None)
            return
        while True:
            text = self.c.ask(f"You rolled {roll}. Your move: ")
            word, _, arg = text.lower().partition(" ")
            if word in ("list", "?"):
                for i, play in enumerate(legal, 1):
                    self.c.say(f"  #{i:<3d} {play.notation}")
                continue
            if word == "hint":
                self.c.say(self.move_hint(game))
                continue
            if word == "resign":
                if self._resign(game, arg.strip()):
                    return
                continue
            if word == "undo":
                self.c.say("Nothing to undo: a play can be taken back right after it is typed.")
                continue
            if self._common(game, word, "move"):
                continue
            if text.startswith("#"):
                try:
                    n = int(text[1:])
                except ValueError:
                    n = 0
                if not 1 <= n <= len(legal):
                    self.c.say(f"Choose #1 to #{len(legal)} (list shows them).")
                    continue
                play = legal[n - 1]
            else:
                try:
                    play = parse_play(game.board, game.dice, text)
                except IllegalMoveError as e:
                    self.c.say(_sentence(e))
                    continue
            if self.confirm(game, play):
                return

    def confirm(self, game: Game, play: Play) -> bool:
        """Show ``play`` on the board and commit it on the next command; False when it is undone.

        Enter (or ok) commits it; ``undo`` leaves the game as it was, at the
        move prompt; any other command commits it and is handed on to the
        next prompt (``quit`` and the end of the input commit it and quit).
        """
        self.c.say(f"You play {play.notation}.")
        after = draw(flip(play.position.board))  # from the person, whose play it was
        self.c.say(after)
        while True:
            try:
                text = self.c.ask("Confirm (Enter) or undo? ")
            except Quit:
                game.move(play)
                raise
            word = text.lower().partition(" ")[0]
            if word == "undo":
                self.c.say(f"Undone: {play.notation}.")
                self.c.say(render(game, self.names))
                return False
            if word in ("help", "h"):
                self.c.say("Commands: " + HELP["confirm"])
                continue
            if word == "board":
                self.c.say(after)
                continue
            game.move(play)
            if word in ("quit", "q", "exit"):
                raise Quit("quit")
            if word not in CONFIRM_WORDS:
                self.c.push_back(text)
            return True

    def take_prompt(self, game: Game) -> None:
        self.c.say(render(game, self.names))
        while True:
            text = self.c.ask(f"Take or drop (the cube to {game.cube.value * 2})? ")
            word = text.lower().split(" ")[0] if text else ""
            if word in ("take", "t", "accept", "yes", "y"):
                game.take()
                self.c.say(f"You take: the cube is on {game.cube.value}, you own it.")
                return
            if word in ("drop", "d", "pass", "p", "reject", "no", "n"):
                game.drop()
                self.c.say("You drop.")
                return
            if word == "hint":
                self.c.say(self.take_hint(game))
                continue
            if self._common(game, word, "doubled"):
                continue
            self.c.say(f"Not a command here: {text!r}. Type take, drop, hint or help.")

    # -- hints -----------------------------------------------------------------

    def move_hint(self, game: Game) -> str:
        assert game.dice is not None
        ranked = self.bot.ranked(game.board, game.dice, n=5)
        title = f"{self.names[BOT]}'s best plays of {_roll_text(game.dice)}"
        cube, match = game.state(PERSON)
        what = "your cubeless and cubeful equity, per cube"
        what += "" if match.is_money else "; match winning chance"
        lines = [f"{title} (ply {self.bot.ply}; {what}):"]
        theirs = (cube.flipped(), match.flipped())
        for i, (play, eq, p) in enumerate(ranked, 1):
            extra = ""
            try:  # after the play the opponent is on roll, with its cube action first
                after = play.position.board
                cf = -cubeful_equity(flip_probs(p), *theirs, pips=race_pips(after), cube_action=True)
                extra = f"  cubeful {cf:+.3f}"
                if not match.is_money:
                    extra += f"  MWC {100 * equity_to_mwc(cf, cube, match):5.1f}%"
            except BgnetError:
                pass  # a match longer than the cube module's table: cubeless only
            lines.append(
                f"  {i}. {play.notation:<24s} {eq:+.3f}{extra}   win {100 * p[0]:5.1f}%  "
                f"gammon {100 * p[1]:4.1f}%  lose gammon {100 * p[3]:4.1f}%"
            )
        return "\n".join(lines)

    def cube_hint(self, game: Game) -> str:
        d = self.bot.cube_decision(game.board_for(PERSON), game.state(PERSON))
        if d is None:
            p = self.bot.probabilities(game.board_for(PERSON))[0]
            return f"No cube advice for this match length; you win {100 * p[0]:.1f}% (cubeless)."
        text = (
            f"Cube: {d.action}.  No double {d.no_double:+.3f}, double/take {d.double_take:+.3f}, "
            f"double/pass {d.double_pass:+.3f} (your cubeful equity, per cube)."
        )
        if d.mwc is not None:
            m = d.mwc
            text += (
                f"  Match winning chance: no double {100 * m['no_double']:.1f}%, "
                f"double/take {100 * m['double_take']:.1f}%, double/pass {100 * m['double_pass']:.1f}%."
            )
        return text

    def take_hint(self, game: Game) -> str:
        d = self.bot.cube_decision(game.board_for(BOT), game.state(BOT))
        if d is None:
            p = self.bot.probabilities(game.board_for(BOT))[0]
            return f"You win {100 * (1 - p[0]):.1f}% (cubeless): take with 25% or more."
        answer = "take" if d.take else "drop"
        text = (
            f"Advice: {answer}.  After a take your equity is {-d.double_take:+.3f} per cube; "
            f"dropping is {-d.double_pass:+.3f}."
        )
        if d.mwc is not None:
            text += (
                f"  Your match winning chance: {100 * (1 - d.mwc['double_take']):.1f}% after a take, "
                f"{100 * (1 - d.mwc['double_pass']):.1f}% after a drop."
            )
        return text


def result_text(game: Game, bot_name: str) -> str:
    """``You win a gammon: 2 points.`` / ``bgnet wins by a drop: 1 point.``"""
    s = "s" if game.points != 1 else ""
    how = {"drop": "by a drop", "resign": "by resignation"}.get(game.result, f"a {game.result}")
    if game.winner == PERSON:
        return f"You win {how}: {game.points} point{s}."
    return f"{bot_name} wins {how}: {game.points} point{s}."


# --------------------------------------------------------------------------
# The command
# --------------------------------------------------------------------------


def _cmd_play(args: argparse.Namespace) -> int:
    if args.variant:
        return run_variant_play(args)
    import torch  # here, not at the top: start-up time of the other commands

    from bgnet.formats import parse_position
    from bgnet.matfile import check_writable, write_mat
    from bgnet.position import check_in_play

    length = 0 if args.money or args.match is None else args.match
    if args.match is not None and not 1 <= args.match <= 25:
        raise BgnetError(f"--match takes a length from 1 to 25, got {args.match}")
    if length and (args.games is not None or args.jacoby):
        options = (("--games", args.games is not None), ("--jacoby", args.jacoby))
        given = " and ".join(o for o, on in options if on)
        raise BgnetError(f"{given} apply to money play, not to a {length}-point match")
    check_ply(args.ply)
    if args.games is not None and args.games < 1:
        raise BgnetError(f"--games must be 1 or more, got {args.games}")
    start = None
    if args.position is not None:
        start = parse_position(args.position)[0]
        check_in_play(start.board)
    save = check_writable(args.save) if args.save else None  # now, not after the match
    if args.threads:
        torch.set_num_threads(args.threads)
    bot = NetPlayer.from_checkpoint(args.checkpoint, ply=args.ply)
    games = None if length else (args.games or 1)
    rng = np.random.default_rng(args.seed)
    first = start if start is not None else STARTING
    match = Match(length, ("bgnet", args.name), rng, jacoby=args.jacoby, games=games, start=first)
    session = PlaySession(match, bot, Console())
    if start is not None:
        session.c.say(f"Starting from {position_id(start.board)} (the winner of the opening roll on roll).")
    try:
        code = session.run()
    finally:
        if save is not None and match.games:
            try:
                path = write_mat(match, save)
            except OSError as e:
                raise BgnetError(f"cannot write {save}: {e.strerror}") from None
            print(f"Saved the match to {path}.", flush=True)
    return code


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "play",
        help="play a game or match against the bot in the terminal",
        description="Play against bgnet in a plain terminal (works under tmux and with input piped "
        "from a file). You are X, moving from 24 to 1. Type help at any prompt for the commands.",
    )
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--match", type=int, metavar="L", help="play a match to L points (1-25), Crawford rule")
    kind.add_argument("--money", action="store_true", help="money play (the default)")
    p.add_argument("--games", type=int, metavar="N", help="money play: games to play (default 1)")
    p.add_argument("--jacoby", action="store_true", help="money play: the Jacoby rule")
    p.add_argument(
        "--ply",
        type=int,
        default=DEFAULT_PLAY_PLY,
        help=f"the bot's lookahead in plies, 0 to {MAX_PLY} (default {DEFAULT_PLAY_PLY}: full strength, "
        "about 0.3 s a move on one core)",
    )
    p.add_argument(
        "--position", metavar="ID", help="start each game from this position (GNUBG Position ID or XGID)"
    )
    p.add_argument("--checkpoint", metavar="PATH", help="the bot's network (default: the shipped one)")
    p.add_argument(
        "--seed", type=int, default=None, help="seed of the dice (both sides), for a reproducible session"
    )
    p.add_argument("--name", default="you", help="your name in the match file (default: you)")
    p.add_argument("--save", metavar="FILE.mat", help="save the match as a .mat file gnubg can import")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    add_variant_arguments(p)
    p.set_defaults(func=_cmd_play)
    return p
