"""Tests of bgnet play: scripted sessions, in process and through piped input to the command."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from boards import tiny_checkpoint

from bgnet.commands.play import Console, PlaySession
from bgnet.dice import Dice
from bgnet.evaluator import FunctionEvaluator
from bgnet.game import Match
from bgnet.matfile import read_mat
from bgnet.notation import legal_plays
from bgnet.players import NetPlayer
from bgnet.position import STARTING
from tests.boards import pos

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    return tiny_checkpoint(tmp_path_factory.mktemp("net") / "tiny.pt")


class ScriptedBot(NetPlayer):
    """Plays the first legal play; cube and resignation answers from lists (then the defaults)."""

    def __init__(self, doubles=(), takes=(), accepts=(), double_default=False, take_default="take"):
        super().__init__(FunctionEvaluator(lambda b: np.full((len(b), 5), 0.1)), 0, "bgnet")
        self.doubles = list(doubles)
        self.takes_ = list(takes)
        self.accepts = list(accepts)
        self.double_default = double_default
        self.take_default = take_default

    def double(self, boards, states) -> np.ndarray:
        return np.array([self.doubles.pop(0) if self.doubles else self.double_default for _ in boards])

    def take(self, boards, states) -> np.ndarray:
        answers = [self.takes_.pop(0) if self.takes_ else self.take_default for _ in boards]
        return np.array([a != "drop" for a in answers])

    def accept(self, boards, levels) -> np.ndarray:
        return np.array([self.accepts.pop(0) if self.accepts else True for _ in boards])


class ScriptedDice:
    """An rng whose first rolls are given (opening rolls: player 0's die, player 1's die)."""

    def __init__(self, rolls, seed: int = 0) -> None:
        self.rolls = [tuple(r) for r in rolls]
        self.rng = np.random.default_rng(seed)

    def integers(self, low, high, size=None):
        if self.rolls:
            return np.array(self.rolls.pop(0))
        return self.rng.integers(low, high, size=size)


def person(answers: dict[str, list[str]] | None = None, default: dict[str, str] | None = None):
    """A scripted person: for a prompt containing KEY, the next of answers[KEY], else default[KEY]."""
    answers = {k: list(v) for k, v in (answers or {}).items()}
    default = {
        "Your move": "#1",
        "or undo": "",
        "roll or double": "roll",
        "Take or drop": "take",
        "Another game": "no",
    } | (default or {})
    asked: list[str] = []

    def reader(prompt: str) -> str | None:
        asked.append(prompt)
        if len(asked) > 5000:
            return None
        for key, queue in answers.items():
            if key in prompt and queue:
                return queue.pop(0)
        for key, value in default.items():
            if key in prompt:
                return value
        raise AssertionError(f"unexpected prompt {prompt!r}")

    reader.asked = asked  # type: ignore[attr-defined]
    return reader


def run(match: Match, bot: NetPlayer, reader) -> str:
    out = io.StringIO()
    PlaySession(match, bot, Console(out=out, reader=reader)).run()
    return out.getvalue()


def test_a_legal_game_to_its_end(checkpoint):
    bot = NetPlayer.from_checkpoint(checkpoint)
    match = Match(0, ("bgnet", "you"), np.random.default_rng(4), games=1)
    text = run(match, bot, person())
    assert match.over and match.games[0].over
    assert ("You win" in text) or ("bgnet wins" in text)
    assert "Score: bgnet" in text and "Opening roll:" in text
    assert text.count(" +13 14 15 16 17 18 |BAR|19 20 21 22 23 24 +") > 5
    assert "Cube: 1 (centred)" in text and "X: pips" in text


def test_illegal_incomplete_and_ambiguous_input_is_prompted_again():
    # The person (player 1) wins the opening roll with 6-5; blots on its 18 and 19.
    start = pos({24: 2, 6: 13}, {7: 1, 6: 1, 24: 13})
    match = Match(0, ("bgnet", "you"), ScriptedDice([(5, 6)]), games=1, start=start)
    reader = person(
        {"Your move": ["24/13", "hello", "24/18", "24/30", "#99", "6/2 6/off", "list", "help", "24/19/13"]},
        {"Your move": "quit", "roll or double": "quit"},
    )
    text = run(match, ScriptedBot(), reader)
    assert "'24/13' is ambiguous with 6-5: it could be 24/18*/13 or 24/19*/13" in text
    assert "'hello' is not a checker move" in text
    assert "'24/18' is incomplete" in text
    assert "'24/30': '30' is not a point" in text
    assert "Choose #1 to #" in text
    assert "cannot bear off" in text
    assert "  #1 " in text and "Commands:" in text
    assert "You play 24/19*/13." in text
    assert sum("Your move" in p for p in reader.asked) >= 9
    assert "Quit (quit)." in text


def test_cube_offered_taken_then_redoubled_and_dropped():
    # bgnet opens; the person doubles at once, bgnet takes; later bgnet redoubles, the person drops.
    match = Match(0, ("bgnet", "you"), ScriptedDice([(6, 1)], seed=3), games=1)
    bot = ScriptedBot(doubles=[False, False, True], takes=["take"])
    reader = person({"roll or double": ["double"], "Take or drop": ["hint", "drop"]})
    text = run(match, bot, reader)
    g = match.games[0]
    assert "You double to 2." in text and "bgnet takes: the cube is on 2, bgnet owns it." in text
    assert "bgnet doubles to 4." in text and "You drop." in text
    assert "Advice:" in text  # the hint at the take prompt
    assert g.winner == 0 and g.points == 2 and g.result == "drop"
    assert [a.kind for a in g.actions if a.kind != "move"] == ["double", "take", "double", "drop"]
    assert "bgnet wins by a drop: 2 points." in text


def test_cube_offered_and_dropped_by_the_bot():
    match = Match(0, ("bgnet", "you"), ScriptedDice([(6, 1)]), games=1)
    text = run(match, ScriptedBot(takes=["drop"]), person({"roll or double": ["hint", "double"]}))
    assert "Cube: " in text and "You double to 2." in text and "bgnet drops." in text
    assert "You win by a drop: 1 point." in text
    assert match.score == [0, 1]


def test_match_with_a_crawford_game():
    """3 points: the person cashes two doubles (2-0), the Crawford game, then post-Crawford games."""
    dice = [(6, 1), (6, 1)]  # games 1 and 2: bgnet opens, the person doubles at once, bgnet drops
    dice += [(6, 1), (3, 2), (4, 1), (5, 2)]  # game 3 (Crawford): the person plays, bgnet, then resigns
    dice += [(6, 1), (4, 2)]  # game 4: the person plays; bgnet (trailing) doubles, the person drops
    dice += [(6, 1), (5, 3)]  # game 5 (2-2): no cube; the person resigns
    match = Match(3, ("bgnet", "you"), ScriptedDice(dice))
    bot = ScriptedBot(takes=["drop", "drop"], double_default=True)
    reader = person(
        {"roll or double": ["double", "double"], "Your move": ["#1", "resign", "#1", "resign"]},
        {"Take or drop": "drop"},
    )
    text = run(match, bot, reader)
    games = match.games
    assert [g.crawford for g in games] == [False, False, True, False, False]
    assert [g.post_crawford for g in games] == [False, False, False, True, True]
    assert [(g.winner, g.points, g.result) for g in games] == [
        (1, 1, "drop"),
        (1, 1, "drop"),
        (0, 1, "resign"),
        (0, 1, "drop"),
        (0, 1, "resign"),
    ]
    assert "Game 3 (the Crawford game: no doubling)." in text
    assert "(3-point match, Crawford game)" in text and "(3-point match, post-Crawford)" in text
    # bgnet always wants to double: not in the Crawford game, but in game 4 (trailing, post-Crawford).
    assert not any(a.kind == "double" for a in games[2].actions)
    assert [a.kind for a in games[3].actions if a.kind != "move"] == ["double", "drop"]
    # The person, leading at 1-away post-Crawford or with a dead cube, is never asked to roll or double.
    assert sum("roll or double" in p for p in reader.asked) == 2
    assert match.over and match.winner == 0 and match.score == [3, 2]
    assert "bgnet wins the match." in text and "Game 3 (Crawford game):" in text


def test_resignation_rejected_then_accepted():
    match = Match(0, ("bgnet", "you"), ScriptedDice([(6, 1)]), games=1)
    bot = ScriptedBot(accepts=[False, True])
    reader = person({"roll or double": ["resign backgammon", "resign"]})
    text = run(match, bot, reader)
    assert "You offer to resign a backgammon (3 points)." in text and "bgnet rejects: play on." in text
    assert "You offer to resign a single game (1 point)." in text
    assert "bgnet wins by resignation: 1 point." in text


def _opening_65() -> Match:
    """A money game from the start in which the person (player 1) opens with 6-5."""
    return Match(0, ("bgnet", "you"), ScriptedDice([(5, 6)]), games=1, start=STARTING)


def _person_moves(match: Match) -> list[str]:
    return [a.notation for a in match.games[0].actions if a.kind == "move" and a.player == 1]


def test_undo_takes_back_a_play_before_it_is_confirmed():
    match = _opening_65()
    reader = person(
        {"Your move": ["help", "undo", "24/13", "13/7 13/8"], "or undo": ["help", "board", "undo", ""]},
        {"Your move": "quit"},
    )
    text = run(match, ScriptedBot(), reader)
    assert "Nothing to undo" in text and "after a play, Enter confirms it and undo takes it back" in text
    assert "You play 24/13." in text and "Undone: 24/13." in text
    assert "You play 13/8 13/7." in text
    assert "Commands: Enter (or ok) confirms the play, undo takes it back" in text
    # The undone play was never made: the person's first move is the second play, then the bot moved.
    assert _person_moves(match) == ["13/8 13/7"]
    first = match.games[0].actions[0]
    assert (first.player, first.dice, first.notation) == (1, (6, 5), "13/8 13/7")
    assert match.games[0].actions[1].player == 0
    # After the undo the move prompt is asked again, on the same roll.
    moves = [p for p in reader.asked if "Your move" in p]
    assert moves[:4] == ["You rolled 6-5. Your move: "] * 4


def piped(match: Match, script: str) -> str:
    out = io.StringIO()
    PlaySession(match, ScriptedBot(), Console(out=out, stdin=io.StringIO(script))).run()
    return out.getvalue()


def test_undo_with_piped_input_and_a_command_typed_at_the_confirm_prompt():
    match = _opening_65()
    text = piped(match, "24/13\nundo\n#2\nhint\nquit\n")
    assert "Confirm (Enter) or undo? undo\nUndone: 24/13." in text
    # hint confirms #2 and is carried out at the next prompt (the person may double: the cube hint).
    second = legal_plays(STARTING, Dice.of(6, 5))[1].notation
    assert f"You play {second}.\n" in text and "Confirm (Enter) or undo? hint\n" in text
    assert "roll or double? hint\nCube: " in text
    assert _person_moves(match) == [second] and second != "24/13"
    assert match.games[0].actions[1].player == 0 and "Quit (quit)." in text


def test_quit_or_the_end_of_the_input_at_the_confirm_prompt_keeps_the_play():
    match = _opening_65()
    text = piped(match, "24/13\n")
    assert "Quit (the input ended)." in text and _person_moves(match) == ["24/13"]
    match = _opening_65()
    text = piped(match, "24/13\nundo\n13/7 13/8\nquit\n")
    assert "Quit (quit)." in text and _person_moves(match) == ["13/8 13/7"]
    assert len(match.games[0].actions) == 1  # quit at once: the bot did not move


def test_the_end_of_the_input_quits_cleanly():
    match = Match(3, ("bgnet", "you"), np.random.default_rng(1))
    text = run(match, ScriptedBot(), lambda prompt: None)
    assert "Quit (the input ended)." in text and "not finished" in text


# --------------------------------------------------------------------------
# The command, with input piped from a file
# --------------------------------------------------------------------------


def play_cli(args: list[str], stdin: str, timeout: int = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bgnet.cli", "play", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# "#1" plays the first listed play (and rolls first at the roll prompt); "take" answers a double.
# Alternating them moves every prompt on (a wrong one is answered with a message, then the next line fits).
SCRIPT = "roll\n#1\ntake\n" * 400  # each prompt takes the line it understands and asks again


@pytest.mark.slow
def test_piped_game_runs_to_the_end_and_is_reproducible(checkpoint, tmp_path):
    args = ["--money", "--games", "1", "--seed", "5", "--checkpoint", str(checkpoint)]
    first = play_cli([*args, "--save", str(tmp_path / "game.mat")], SCRIPT)
    assert first.returncode == 0, first.stderr
    assert "Traceback" not in first.stderr
    out = first.stdout
    assert "You win" in out or "bgnet wins" in out
    assert "Your move: #1" in out  # the input is echoed when it is piped
    assert f"Saved the match to {tmp_path / 'game.mat'}." in out
    second = play_cli(args, SCRIPT)
    assert second.stdout == out.replace(f"Saved the match to {tmp_path / 'game.mat'}.\n", "")
    m = read_mat(tmp_path / "game.mat")
    g = m.games[0]
    assert g.over and f"{'You win' if g.winner == 1 else 'bgnet wins'}" in out


@pytest.mark.slow
def test_piped_bad_input_is_answered_and_prompted_again(checkpoint):
    script = "24/30\nhello\n#99\nlist\nhint\n" + SCRIPT
    r = play_cli(["--match", "1", "--seed", "2", "--checkpoint", str(checkpoint)], script)
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert "'24/30': '30' is not a point" in r.stdout
    assert "'hello' is not a checker move" in r.stdout
    assert "Choose #1 to #" in r.stdout
    assert "  #1 " in r.stdout and "best plays of" in r.stdout
    assert "wins the match." in r.stdout


@pytest.mark.slow
def test_piped_input_that_ends_early_and_bad_arguments(checkpoint):
    r = play_cli(["--match", "3", "--seed", "1", "--checkpoint", str(checkpoint)], "#1\n")
    assert r.returncode == 0 and "Quit (the input ended)." in r.stdout and "Traceback" not in r.stderr
    r = play_cli(["--match", "30", "--checkpoint", str(checkpoint)], "")
    assert r.returncode == 2 and "--match takes a length from 1 to 25" in r.stderr
    r = play_cli(["--match", "3", "--money"], "")
    assert r.returncode == 2 and "not allowed with" in r.stderr


@pytest.mark.slow
def test_piped_undo_is_not_played_nor_saved(checkpoint, tmp_path):
    # Seed 5: the person opens with 5-1. #1 is typed and undone, #2 is confirmed with Enter.
    save = tmp_path / "undo.mat"
    args = ["--money", "--seed", "5", "--checkpoint", str(checkpoint), "--save", str(save)]
    r = play_cli(args, "#1\nundo\n#2\n\nquit\n")
    assert r.returncode == 0 and "Traceback" not in r.stderr
    first, second = (p.notation for p in legal_plays(STARTING, Dice.of(5, 1))[:2])
    assert "You move first with 5-1." in r.stdout
    assert f"Confirm (Enter) or undo? undo\nUndone: {first}." in r.stdout
    assert f"You play {second}.\n" in r.stdout and "Quit (quit)." in r.stdout
    moves = [a for a in read_mat(save).games[0].actions if a.kind == "move"]
    assert moves[0].player == 1 and moves[0].notation == second


def test_board_is_drawn_from_the_person():
    match = Match(0, ("bgnet", "you"), ScriptedDice([(1, 6)]), games=1, start=STARTING)
    text = run(match, ScriptedBot(), person({}, {"Your move": "quit"}))
    # The person moves first: the board shows its 24 point at the top right with two X checkers.
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith(" +13 14"))
    assert lines[top + 1].endswith(" X |")
