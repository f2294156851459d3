"""Tests of bgnet watch, in process through bgnet.cli.main with the shipped networks."""

from __future__ import annotations

import re

import numpy as np

from bgnet import cli
from bgnet.dice import Dice
from bgnet.game import outcome
from bgnet.movegen import generate
from bgnet.notation import legal_plays
from bgnet.position import STARTING, Position, flip

PLAY_LINE = re.compile(
    r"^(X \(bgnet\)|O \(pubeval\)) rolls (\d)(\d)(?: and plays (\S.*?)   \(|: no legal play$)"
)  # one line per ply: the mover, its roll, and its play or none


def recording_duel(log: list[tuple[np.ndarray, np.ndarray, int, np.ndarray | None]]):
    """``bgnet.cli.duel`` that also records each ply: board and dice before it, the mover, the result."""
    real = cli.duel

    def make(choosers):
        inner = real(choosers)

        def choose(batch, player):
            rows = inner(batch, player)
            result = None if rows[0] < 0 else batch.positions[rows[0]].copy()
            log.append((batch.boards[0].copy(), batch.dice[0].copy(), int(player[0]), result))
            return rows

        return choose

    return make


def test_watch_plays_a_whole_legal_game_with_the_shipped_networks(monkeypatch, capsys):
    log: list[tuple[np.ndarray, np.ndarray, int, np.ndarray | None]] = []
    monkeypatch.setattr(cli, "duel", recording_duel(log))
    assert cli.main(["watch", "--delay", "0", "--seed", "3"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    lines = out.splitlines()
    assert re.match(r"^bgnet \(\d+ training games\) plays X; pubeval plays O\.$", lines[0])

    # Every ply, checked against the rules core: it starts from the starting position with an
    # opening roll (no double), each play is one of the roll's legal results, the players alternate.
    board = STARTING.board
    assert len(log) > 10 and log[0][1][0] != log[0][1][1]
    for n, (before, dice, player, result) in enumerate(log):
        assert (before == board).all(), f"ply {n + 1} does not continue the game"
        assert 1 <= min(dice) and max(dice) <= 6
        if n:
            assert player == 1 - log[n - 1][2]
        legal = generate(before[None, :], dice[None, :]).positions
        if result is None:
            assert len(legal) == 0, f"ply {n + 1}: a pass with a legal play"
            board = flip(before)
        else:
            assert (legal == result).all(axis=1).any(), f"ply {n + 1}: not a legal play"
            board = result
        assert outcome(board) is None or n == len(log) - 1, "the game went on after its end"
    end = outcome(board)
    assert end is not None, "the game stopped before its end"

    # The printed game: one line per ply, naming the roll, then the result line.
    plays = [m for m in map(PLAY_LINE.match, lines) if m]
    assert len(plays) == len(log)
    for m, (before, dice, player, result) in zip(plays, log, strict=True):
        assert m.group(1).startswith("X" if player == 0 else "O")
        assert (int(m.group(2)), int(m.group(3))) == (int(max(dice)), int(min(dice)))  # high die first
        if result is None:
            assert m.group(4) is None
        else:  # the play printed is the play made
            legal = legal_plays(Position(before), Dice.of(*dice))
            assert [p.notation for p in legal if (p.position.board == result).all()] == [m.group(4)]
    # The last mover won; its points are the result's kind.
    winner = "X (bgnet)" if log[-1][2] == 0 else "O (pubeval)"
    kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[int(end.kind)]
    points = int(end.kind)
    assert lines[-1] == f"{winner} wins {kind}: {points} point{'s' if points > 1 else ''}."


def test_ctrl_c_during_watch_exits_130_without_a_traceback(monkeypatch, capsys):
    calls = []

    def sleep(seconds: float) -> None:
        calls.append(seconds)
        if len(calls) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(cli.time, "sleep", sleep)
    assert cli.main(["watch", "--delay", "0.5", "--seed", "3"]) == 130
    out, err = capsys.readouterr()
    assert calls == [0.5, 0.5, 0.5]  # the pace between plays, interrupted at the third
    assert len([line for line in out.splitlines() if PLAY_LINE.match(line)]) == 3
    assert "wins" not in out
    assert err == "\nbgnet: interrupted\n" and "Traceback" not in err
