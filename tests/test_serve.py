"""Tests of bgnet serve: GNU Backgammon's external-player protocol, without gnubg itself.

The lines are written as gnubg 1.07 writes them (bgnet.fibs.gnubg_line, checked
against captured real lines in test_fibs.py); test_gnubg_interop.py plays the real program.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from boards import first_line, tiny_checkpoint

from bgnet.commands.serve import VERSION, Responder, Server
from bgnet.dice import Dice
from bgnet.fibs import gnubg_line
from bgnet.notation import legal_plays, parse_play
from bgnet.players import NetPlayer
from bgnet.position import STARTING
from tests.boards import pos

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    return tiny_checkpoint(tmp_path_factory.mktemp("net") / "tiny.pt")


@pytest.fixture(scope="module")
def responder(checkpoint) -> Responder:
    return Responder(NetPlayer.from_checkpoint(checkpoint))


class StubBot(NetPlayer):
    """A bot with fixed cube answers (plays by a constant evaluator: the first legal play)."""

    def __init__(self, double: bool = True, take: str = "take") -> None:
        from bgnet.evaluator import FunctionEvaluator

        super().__init__(FunctionEvaluator(lambda b: np.full((len(b), 5), 0.2)), 0, "stub")
        self.double_answer = double
        self.take_answer = take

    def double(self, boards, states) -> np.ndarray:
        return np.full(len(boards), self.double_answer)

    def answer(self, board, state) -> str:
        return self.take_answer


def test_every_reply_is_a_legal_play(responder):
    """Random games, lines for both of gnubg's player numbers: each reply is read back as a legal play."""
    rng = np.random.default_rng(11)
    checked = passes = 0
    for game in range(3):
        board = STARTING
        for ply in range(200):
            dice = Dice.of(*(int(x) for x in rng.integers(1, 7, size=2)))
            on_roll = (game + ply) % 2
            line = gnubg_line(board, on_roll, dice=(dice.low, dice.high), match_length=5, score=(1, 2))
            reply = responder.reply(line + "\n\0")
            plays = legal_plays(board, dice)
            if not plays:
                assert reply == ""
                passes += 1
                board = board.flip()
                continue
            play = parse_play(board, dice, reply)  # raises if the reply is not a legal play
            assert play.notation == reply
            checked += 1
            board = play.position
            if not (board.board < 0).any():
                break
    assert checked > 100


def test_cube_answers_follow_the_rules():
    doubler = Responder(StubBot(double=True))
    start = STARTING
    assert doubler.reply(gnubg_line(start, 1, match_length=5)) == "double"
    assert doubler.reply(gnubg_line(start, 0)) == "double"  # money
    # The opponent owns the cube, the Crawford game, a dead cube, the leader post-Crawford: roll.
    assert doubler.reply(gnubg_line(start, 1, cube=2, cube_owner=0, match_length=5)) == "roll"
    assert doubler.reply(gnubg_line(start, 1, score=(4, 0), match_length=5, crawford=True)) == "roll"
    assert doubler.reply(gnubg_line(start, 1, cube=2, cube_owner=1, score=(0, 3), match_length=5)) == "roll"
    post = gnubg_line(start, 1, score=(0, 4), match_length=5, post_crawford=True)
    assert doubler.reply(post) == "roll"
    assert Responder(StubBot(double=False)).reply(gnubg_line(start, 1, match_length=5)) == "roll"
    # Doubled: the stub's answer; a beaver only in money play with --beavers.
    doubled = gnubg_line(start, 0, doubled=True, match_length=5)
    assert Responder(StubBot(take="drop")).reply(doubled) == "drop"
    assert Responder(StubBot(take="take")).reply(doubled) == "take"
    assert Responder(StubBot(take="beaver")).reply(doubled) == "take"
    money = gnubg_line(start, 0, doubled=True)
    assert Responder(StubBot(take="beaver"), beavers=True).reply(money) == "beaver"


def test_real_bot_cube_answers(responder):
    assert responder.reply(gnubg_line(STARTING, 1, match_length=5)) in ("roll", "double")
    # Far ahead in a race: the real bot doubles, or knows it is too good; never an error.
    race = pos({1: 15}, {6: 15})
    assert responder.reply(gnubg_line(race, 1)) in ("roll", "double")
    # Hopeless: take or drop, never an error.
    assert responder.reply(gnubg_line(race, 1, doubled=True)) in ("take", "drop")


@pytest.mark.parametrize(
    "line",
    [
        "hello",
        "board:a:b:3",
        "board:" + ":".join(["x"] * 52),
        gnubg_line(STARTING, 1, dice=(3, 1)).replace(":1:-1:0:25:", ":1:-1:0:x:"),
        gnubg_line(STARTING, 1, dice=(3, 1)).replace(":0:0:0:0:-2:", ":0:0:0:0:-9:"),
    ],
)
def test_malformed_lines_get_an_error_reply(responder, line):
    assert responder.reply(line).startswith("Error: ")


def test_other_commands(responder):
    assert responder.reply("version") == VERSION
    assert responder.reply("   ") == ""
    assert responder.reply("exit") is None


@pytest.fixture()
def server(responder):
    srv = Server(("127.0.0.1", 0), responder)
    thread = threading.Thread(target=srv.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _connect(srv) -> socket.socket:
    s = socket.create_connection(srv.server_address[:2], timeout=10)
    return s


def _ask(s: socket.socket, line: str) -> str:
    s.sendall((line + "\n\0").encode())
    data = b""
    while not data.endswith(b"\n"):
        chunk = s.recv(4096)
        assert chunk, "the server closed the connection"
        data += chunk
    return data.decode().rstrip("\n")


def test_server_serves_clients_at_once_and_survives_bad_ones(server):
    line = gnubg_line(STARTING, 1, dice=(3, 1), match_length=3)
    a, b = _connect(server), _connect(server)
    try:
        ra = _ask(a, line)
        rb = _ask(b, line)
        assert ra == rb and parse_play(STARTING, "31", ra)
        assert _ask(a, "this is not a board").startswith("Error: ")
        assert _ask(a, line) == ra  # the connection stays up after an error
        # Two lines in one packet, then one split over two packets.
        a.sendall((line + "\n\0" + line + "\n\0").encode())
        got = b""
        while got.count(b"\n") < 2:
            got += a.recv(4096)
        assert got.decode().splitlines() == [ra, ra]
        half = len(line) // 2
        a.sendall(line[:half].encode())
        time.sleep(0.05)
        assert _ask(a, line[half:]) == ra
        # A client that vanishes mid-line does not take the server down.
        c = _connect(server)
        c.sendall(line[:20].encode())
        c.close()
        b.close()
        d = _connect(server)
        assert _ask(d, line) == ra
        d.sendall(b"exit\n")
        assert d.recv(100) == b""  # closed by the server
        d.close()
        assert _ask(a, line) == ra
    finally:
        a.close()


def test_many_clients_in_parallel(server):
    line = gnubg_line(STARTING, 0, dice=(6, 4), match_length=3)
    results: list[str] = []
    errors: list[BaseException] = []

    def client() -> None:
        try:
            s = _connect(server)
            with s:
                for _ in range(5):
                    results.append(_ask(s, line))
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=client) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors and len(results) == 30 and len(set(results)) == 1


@pytest.mark.slow
def test_cli_serves_and_reports_bad_arguments(checkpoint):
    proc = subprocess.Popen(
        [sys.executable, "-m", "bgnet.cli", "serve", "--port", "0", "--checkpoint", str(checkpoint)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = first_line(proc)
        assert first.startswith("bgnet serve: listening on 127.0.0.1:")
        port = int(first.split("127.0.0.1:")[1].split()[0])
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            reply = _ask(s, gnubg_line(STARTING, 1, dice=(2, 1)))
            legal = {p.position for p in legal_plays(STARTING, Dice(2, 1))}
            assert parse_play(STARTING, "21", reply).position in legal
    finally:
        proc.terminate()
        code = proc.wait(20)
    assert code == 0, proc.stderr.read()  # SIGTERM shuts the server down cleanly
    bad = subprocess.run(
        [sys.executable, "-m", "bgnet.cli", "serve", "--port", "70000", "--checkpoint", str(checkpoint)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "--port" in bad.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "bgnet.cli", "serve", "--port", "0", "--checkpoint", "/nonexistent.pt"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and "no checkpoint file" in missing.stderr
