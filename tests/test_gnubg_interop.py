"""Integration with the real GNU Backgammon (Debian package ``gnubg``, /usr/games/gnubg).

* gnubg 0-ply plays a 3-point match against ``bgnet serve`` (gnubg's external
  player protocol) to the end; every play bgnet sent is checked legal, and the
  boards bgnet received are checked against gnubg's own record of the match
  (its exported .mat file, replayed here), which checks the FIBS board
  orientation both ways.
* .mat files written by bgnet (a ``bgnet play --save`` session, and random
  matches with doubles, drops, resignations and Crawford games) are imported
  into gnubg, which must read every move and reach the same games and score.

Skipped, with the reason, where gnubg is not installed (CI installs it when it
can: .ci/run).  Each gnubg run has a time limit, so a hang fails instead of
blocking CI; the server listens on a free loopback port chosen here.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from boards import first_line, tiny_checkpoint

from bgnet.dice import Dice
from bgnet.fibs import decision
from bgnet.matfile import read_mat, write_mat
from bgnet.notation import legal_plays, parse_play
from bgnet.position import STARTING, Position

ROOT = Path(__file__).resolve().parent.parent
GNUBG = shutil.which("gnubg") or "/usr/games/gnubg"
HAVE_GNUBG = os.path.isfile(GNUBG) and os.access(GNUBG, os.X_OK)
pytestmark = [
    pytest.mark.skipif(
        not HAVE_GNUBG,
        reason="GNU Backgammon is not installed (apt-get install gnubg; /usr/games/gnubg): "
        "the interop tests need the real program",
    ),
    pytest.mark.slow,  # whole gnubg sessions and matches
]
GNUBG_TIMEOUT = 240  # seconds for one gnubg run (a 3-point match takes a few)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    return tiny_checkpoint(tmp_path_factory.mktemp("net") / "tiny.pt")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_gnubg(commands: str, timeout: int = GNUBG_TIMEOUT) -> str:
    """Run gnubg headless on ``commands`` (one per line, read from its standard input)."""
    result = subprocess.run(
        [GNUBG, "-t", "-q", "-r"],
        input=commands,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C", "LC_ALL": "C"},
    )
    return result.stdout + result.stderr


def final_score(output: str) -> tuple[int, int, int, str, str]:
    """(games, score 0, score 1, name 0, name 1) from gnubg's last 'The score (after N games) is' line."""
    found = re.findall(r"The score \(after (\d+) games?\) is: (\S+) (\d+), (\S+) (\d+)", output)
    assert found, f"gnubg printed no score:\n{output[-3000:]}"
    games, name0, s0, name1, s1 = found[-1]
    return int(games), int(s0), int(s1), name0, name1


def _replayed_moves(match, player: int) -> list[tuple[np.ndarray, Dice, np.ndarray]]:
    """(board before, dice, board after seen by the opponent) of every move of ``player``, in order."""
    from bgnet.matfile import _apply

    out = []
    for game in match.games:
        board = STARTING.board.copy()
        for a in game.actions:
            if a.kind != "move":
                continue
            after = _apply(board, a.steps)
            if a.player == player:
                out.append((board, Dice.of(*a.dice), after))
            board = after
    return out


@pytest.mark.parametrize("seat", [1, 0])
def test_gnubg_plays_a_match_against_bgnet_serve(checkpoint, tmp_path, seat):
    """bgnet as gnubg's player 1 (the usual seat), then as player 0 (the board comes from the other side)."""
    other = 1 - seat
    names = ["gnubg", "gnubg"]
    names[seat] = "bgnet"
    port = free_port()
    log = tmp_path / "serve.jsonl"
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bgnet.cli",
            "serve",
            "--port",
            str(port),
            "--checkpoint",
            str(checkpoint),
            "--log",
            str(log),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = first_line(server)
        assert line.startswith("bgnet serve: listening"), server.stderr.read() if server.poll() else line
        exported = tmp_path / "gnubg.mat"
        commands = "\n".join(
            [
                "set rng mersenne",
                f"set seed {13 + seat}",
                f"set player {other} gnubg",
                f"set player {other} chequerplay evaluation plies 0",
                f"set player {other} cubedecision evaluation plies 0",
                f"set player {seat} external 127.0.0.1:{port}",
                f"set defaultnames {names[0]} {names[1]}",
                "new match 3",
                "show score",
                f"export match mat {exported}",
                "",
            ]
        )
        started = time.monotonic()
        output = run_gnubg(commands)
        elapsed = time.monotonic() - started
    finally:
        server.terminate()
        server.wait(30)
    print(f"gnubg vs bgnet serve (bgnet is player {seat}), 3-point match: {elapsed:.1f} s")

    assert "has won the match" in output, output[-3000:]
    for bad in ("Error", "badly formed", "Warning", "External connection closed"):
        assert bad not in output, output[-3000:]
    games, s0, s1, name0, name1 = final_score(output)
    assert [name0, name1] == names and max(s0, s1) >= 3

    # gnubg's own record of the match, replayed with bgnet's rules: every play of both sides legal.
    match = read_mat(exported)
    assert match.score == [s0, s1] and len(match.games) == games

    # What bgnet was sent and answered, in order, against that record.
    records = [json.loads(x) for x in log.read_text().splitlines()]
    assert records and all(not r["reply"].startswith("Error") for r in records)
    moves = [r for r in records if r["kind"] == "move"]
    played = _replayed_moves(match, seat)
    assert len(moves) == len(played)
    for r, (before, dice, after) in zip(moves, played, strict=True):
        d = decision(r["line"])
        assert np.array_equal(d.board, before), "the board gnubg sent is not the board of its record"
        assert d.dice == dice
        legal = legal_plays(Position(before), dice)
        if not legal:
            assert r["reply"] == ""
            continue
        play = parse_play(before, dice, r["reply"])  # legal, or this raises
        assert play.position == Position(after), f"gnubg recorded another play than {r['reply']!r}"
    # Cube actions: bgnet's answers are those gnubg recorded.
    cube_replies = [r["reply"] for r in records if r["kind"] in ("double", "take")]
    cube = ("double", "take", "drop")
    recorded = [a.kind for g in match.games for a in g.actions if a.player == seat and a.kind in cube]
    assert [x for x in cube_replies if x != "roll"] == recorded
    counts = {x: cube_replies.count(x) for x in sorted(set(cube_replies))}
    print(f"  {games} games, {len(moves)} bgnet plays checked, cube answers {counts}")
    assert len(moves) >= 10


def _import(path: Path, back: Path) -> str:
    return run_gnubg(f"import mat {path}\nshow score\nexport match mat {back}\n")


def test_gnubg_imports_a_saved_play_session(checkpoint, tmp_path):
    saved = tmp_path / "session.mat"
    script = "roll\n#1\ntake\n" * 400  # each prompt takes the line it understands (as test_play's SCRIPT)
    started = time.monotonic()
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "bgnet.cli",
            "play",
            "--match",
            "3",
            "--seed",
            "21",
            "--ply",
            "0",
            "--checkpoint",
            str(checkpoint),
            "--save",
            str(saved),
        ],
        cwd=ROOT,
        input=script,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    ours = read_mat(saved)
    assert ours.over
    back = tmp_path / "back.mat"
    output = _import(saved, back)
    elapsed = time.monotonic() - started
    print(f"bgnet play session + gnubg import: {elapsed:.1f} s")
    for bad in ("WARNING", "Warning", "Invalid", "Unrecognised", "not a valid"):
        assert bad not in output, output[-3000:]
    assert final_score(output) == (len(ours.games), ours.score[0], ours.score[1], "bgnet", "you")
    again = read_mat(back)
    assert _results(again) == _results(ours)


def _results(match) -> tuple:
    """Each game's result, and every play as (dice, resulting board) for both players."""
    games = [(g.winner, g.points, g.result, g.crawford) for g in match.games]
    plays = {p: [(d, after.tobytes()) for _, d, after in _replayed_moves(match, p)] for p in (0, 1)}
    return games, plays


def test_gnubg_imports_random_matches_with_cube_and_resignations(tmp_path):
    from tests.test_matfile import random_match

    started = time.monotonic()
    checked = 0
    for seed in (2, 5, 7):
        m = random_match(seed, 5)
        path = write_mat(m, tmp_path / f"random{seed}.mat")
        output = _import(path, tmp_path / f"back{seed}.mat")
        for bad in ("WARNING", "Warning", "Invalid", "Unrecognised"):
            assert bad not in output, output[-3000:]
        assert final_score(output) == (len(m.games), m.score[0], m.score[1], "bgnet", "you")
        assert _results(read_mat(tmp_path / f"back{seed}.mat")) == _results(m)
        checked += len(m.games)
    print(f"gnubg imported 3 random matches ({checked} games): {time.monotonic() - started:.1f} s")
