"""Fixes of issue 14 (item 9) in play, serve and bench, and one answer for bgnet everywhere (item 2)."""

from __future__ import annotations

import io

import numpy as np
import pytest
from boards import tiny_checkpoint

from bgnet import arena
from bgnet.cli import main
from bgnet.commands.analyze import analyze
from bgnet.commands.play import Console, PlaySession
from bgnet.dice import Dice
from bgnet.evaluator import FunctionEvaluator, NetEvaluator
from bgnet.formats import parse_position, position_id
from bgnet.game import Match
from bgnet.movegen import generate
from bgnet.players import MAX_PLY, NetPlayer, PubevalPlayer, make_player
from tests.boards import pos


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    return tiny_checkpoint(tmp_path_factory.mktemp("net") / "tiny.pt")


class ConstantBot(NetPlayer):
    def __init__(self) -> None:
        super().__init__(FunctionEvaluator(lambda b: np.tile([0.55, 0.15, 0.01, 0.1, 0.01], (len(b), 1))))


def _session(match: Match, lines: list[str]) -> str:
    queue = list(lines)
    out = io.StringIO()
    console = Console(out=out, reader=lambda p: queue.pop(0) if queue else None)
    PlaySession(match, ConstantBot(), console).run()
    return out.getvalue()


def test_a_play_typed_at_the_roll_prompt_asks_for_the_roll_first():
    class BotOpens:  # the opening roll 6-1: bgnet (player 0) moves first; then seeded rolls
        def __init__(self):
            self.first, self.rng = True, np.random.default_rng(0)

        def integers(self, low, high, size=None):
            if self.first:
                self.first = False
                return np.array([6, 1])
            return self.rng.integers(low, high, size=size)

    match = Match(0, ("bgnet", "you"), BotOpens(), games=1)
    text = _session(match, ["24/18", "quit"])
    assert "roll or double? 24/18" in text
    assert "Roll first (roll, or press Enter): you have not seen the dice yet." in text
    assert "You roll" not in text and len(match.games[0].actions) == 1  # only bgnet's opening move


def test_the_board_shows_the_position_id_and_the_match_id():
    match = Match(5, ("bgnet", "you"), np.random.default_rng(2))
    text = _session(match, ["quit"])
    assert "Position ID: " in text and "Match ID: " in text
    pid = text.split("Position ID: ")[1].split()[0]
    mid = text.split("Match ID: ")[1].split()[0]
    _position, info = parse_position(f"{pid}:{mid}")
    assert info.match_length == 5 and info.score == (0, 0)


def test_hint_in_a_match_gives_cubeful_equity_and_match_winning_chances():
    match = Match(5, ("bgnet", "you"), np.random.default_rng(3))
    text = _session(match, ["hint", "hint", "quit"] * 2)
    assert "cubeful" in text and ("MWC" in text or "Match winning chance" in text)


def test_ctrl_c_in_play_stops_cleanly_with_the_summary():
    def reader(prompt):
        raise KeyboardInterrupt

    out = io.StringIO()
    match = Match(0, ("bgnet", "you"), np.random.default_rng(0), games=1)
    PlaySession(match, ConstantBot(), Console(out=out, reader=reader)).run()
    assert "Interrupted." in out.getvalue() and "Score: bgnet" in out.getvalue()


@pytest.mark.parametrize(
    "argv, message",
    [
        (["play", "--match", "3", "--games", "2"], "--games apply to money play, not to a 3-point match"),
        (["play", "--match", "3", "--jacoby"], "--jacoby apply to money play"),
        (["play", "--ply", "9"], f"ply must be 0 to {MAX_PLY}, got 9"),
        (["serve", "--port", "0", "--ply", "9"], f"ply must be 0 to {MAX_PLY}, got 9"),
        (["bench", "play", "--a", "bgnet:ply=9", "--games", "2"], f"ply must be 0 to {MAX_PLY}, got 9"),
    ],
)
def test_bad_options_get_one_line_and_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_play_save_is_checked_before_the_match(tmp_path, capsys):
    assert main(["play", "--save", str(tmp_path)]) == 2  # a directory
    assert "is a directory" in capsys.readouterr().err
    assert main(["play", "--save", str(tmp_path / "no" / "such" / "m.mat")]) == 2
    assert "cannot write the match" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_ctrl_c_in_bench_play_keeps_the_finished_pairs():
    class Interrupting(PubevalPlayer):
        calls = 0

        def choose(self, batch, player):
            Interrupting.calls += 1
            if Interrupting.calls > 400:
                raise KeyboardInterrupt
            return super().choose(batch, player)

    res = arena.play(Interrupting(), PubevalPlayer(), 40, seed=3, slots=4, interruptible=True)
    assert 0 < res.games < 40 and res.games % 2 == 0
    with pytest.raises(KeyboardInterrupt):
        Interrupting.calls = 10_000
        arena.play(Interrupting(), PubevalPlayer(), 4, seed=3, interruptible=True)


def test_bench_and_analyze_value_a_race_the_same(checkpoint):
    """bench's bgnet (make_player) and analyze's evaluator agree on a race at 2-ply (bearoff too)."""
    race = pos({6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2})
    dice = Dice(6, 3)
    player = make_player(f"bgnet:ply=2,checkpoint={checkpoint}")
    ev = NetEvaluator.from_checkpoint(checkpoint)
    assert player.evaluator.bearoff is not None and ev.bearoff is not None
    ours = analyze(ev, race, dice, None, 2)
    batch = generate(race.board[None, :], np.array([[6, 3]]))
    chosen = int(player.choose(batch, np.zeros(1))[0])
    assert position_id(batch.positions[chosen]) == ours["plays"][0]["position"]
    p_bench = player.probabilities(race.board[None, :])[0]
    p_analyze = ev.probabilities(race.board[None, :], 2)[0]
    assert np.allclose(p_bench, p_analyze)
