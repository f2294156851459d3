"""The ``bgnet moves`` command: text and JSON output, batches, bad input."""

import json
import subprocess
import sys

import pytest

from bgnet.cli import main
from bgnet.formats import board_from_position_id, board_to_gnubg, position_id
from bgnet.position import Position, flip

START = "4HPwATDgc/ABMA"
FINISHED = position_id(Position.from_points({}, {1: 2, 6: 1}).board)  # the side on roll has no checker


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_moves_lists_one_play_per_line_with_the_resulting_id(capsys):
    code, out, _ = run(capsys, "moves", START, "31")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 16
    plays = {line.split()[-1]: " ".join(line.split()[:-1]) for line in lines}
    assert plays["sGfwATDgc/ABMA"] == "8/5 6/5"


def test_moves_json_matches_gnubg_and_ids_are_seen_by_the_opponent(capsys):
    gnubg_nn = pytest.importorskip("gnubg_nn")
    code, out, _ = run(capsys, "moves", START, "3-1", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["position"] == START and doc["dice"] == [3, 1]
    assert {"8/5 6/5", "24/21 6/5", "13/9"} <= {p["play"] for p in doc["plays"]}
    # Each resulting ID, seen by the opponent now on roll, flipped back, is one of gnubg's results.
    theirs = {
        tuple(map(tuple, gnubg_nn.board_from_position_key(k)))
        for k in gnubg_nn.moves(board_to_gnubg(board_from_position_id(START)), 3, 1)
    }
    ours = {
        tuple(map(tuple, board_to_gnubg(flip(board_from_position_id(p["position"]))))) for p in doc["plays"]
    }
    assert ours == theirs


def test_an_xgid_is_accepted_and_gives_the_same_plays_as_its_position_id(capsys):
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    _, out_x, _ = run(capsys, "moves", xgid, "52", "--json")
    doc = json.loads(out_x)
    _, out_p, _ = run(capsys, "moves", doc["position"], "52", "--json")
    assert json.loads(out_p)["plays"] == doc["plays"] and doc["position"] == START


def test_no_legal_play_gives_an_empty_list(capsys):
    # One of ours on the bar against their closed home board (our points 19-24).
    closed = Position.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
    code, out, _ = run(capsys, "moves", position_id(closed.board), "66", "--json")
    assert code == 0 and json.loads(out)["plays"] == []


def test_batch_writes_one_object_per_line_in_order(capsys, tmp_path):
    gnubg_nn = pytest.importorskip("gnubg_nn")
    f = tmp_path / "in.txt"
    f.write_text(f"{START} 66\n\n{START} 2-1\n")
    code, out, _ = run(capsys, "moves", "--batch", str(f))
    docs = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and [d["dice"] for d in docs] == [[6, 6], [2, 1]]
    start = board_to_gnubg(board_from_position_id(START))
    assert len(docs[0]["plays"]) == len(gnubg_nn.moves(start, 6, 6))
    assert len(docs[1]["plays"]) == len(gnubg_nn.moves(start, 2, 1))


def test_batch_reports_a_bad_line_in_place_and_exits_2(capsys, tmp_path):
    f = tmp_path / "in.txt"
    f.write_text(f"{START} 31\nnot-an-id 31\n{START} 71\n{START} 44\n")
    code, out, err = run(capsys, "moves", "--batch", str(f))
    docs = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and len(docs) == 4
    assert "plays" in docs[0] and "plays" in docs[3]
    assert "line 2" in docs[1]["error"] and "line 3" in docs[2]["error"] and "1 to 6" in docs[2]["error"]
    assert "line 2" in err


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["moves", "4HPwATDgc/AB!A", "31"], "bad character"),
        (["moves", "4HPwATDgc/AB", "31"], "14 characters"),
        (["moves", "/////////////w", "31"], "more than 15 checkers"),
        (["moves", START, "71"], "1 to 6"),
        (["moves", START, "x"], "two digits"),
        (["moves", START], "dice"),
        (["moves", "--batch", "/nonexistent/file"], "cannot read"),
        (["moves", "AAAAAAAAAAAAAA", "31"], "the game is over: neither side has a checker"),
        (["moves", FINISHED, "31"], "the game is over: the side on roll has borne off all 15"),
        (["analyze", "AAAAAAAAAAAAAA"], "the game is over"),
        (["analyze", FINISHED, "--dice", "31"], "the game is over"),
        (["bearoff", "show", FINISHED], "the game is over"),
        (["bearoff", "show", position_id(flip(Position.from_points({}, {1: 1}).board))], "the opponent has"),
        (["watch", "--delay", "-1"], "--delay"),
        (["analyze", "--batch", "-", "--xgid", "x"], "--batch"),
    ],
)
def test_bad_input_exits_2_with_one_line_naming_the_problem(capsys, argv, words):
    code, out, err = run(capsys, *argv)  # an exception escaping main would fail the test
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("bgnet: error: ") and words in err


def test_bad_input_from_the_command_line_gives_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "bgnet.cli", "moves", START, "71"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2 and proc.stderr == "bgnet: error: a die shows 1 to 6, got 7\n"


def test_the_dice_of_an_xgid_are_used_when_none_are_typed(capsys):
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0:10"
    _, typed, _ = run(capsys, "moves", xgid, "52", "--json")
    _, implied, _ = run(capsys, "moves", xgid, "--json")
    assert json.loads(implied) == json.loads(typed)


def test_a_finished_game_in_a_batch_is_an_error_line(capsys, tmp_path):
    f = tmp_path / "in.txt"
    f.write_text(f"{FINISHED} 31\n{START} 31\n")
    code, out, err = run(capsys, "moves", "--batch", str(f))
    docs = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and "the game is over" in docs[0]["error"] and len(docs[1]["plays"]) == 16
    assert err.count("\n") == 1


@pytest.mark.parametrize("command", [["moves", "--batch"], ["analyze", "--batch"]])
def test_a_binary_batch_file_is_one_line_naming_it(tmp_path, command):
    f = tmp_path / "board.png"
    f.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    proc = subprocess.run(
        [sys.executable, "-m", "bgnet.cli", *command, str(f)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1
    assert f"cannot read {f}: not a UTF-8 text file (byte 0x89 at offset 0)" in proc.stderr


def test_binary_standard_input_is_one_line():
    # Depending on the locale, Python reads such bytes as text with escapes or refuses them: either
    # way one line and exit 2.
    proc = subprocess.run(
        [sys.executable, "-m", "bgnet.cli", "moves", "--batch", "-"],
        input=b"\xff\xfe\x00",
        capture_output=True,
        timeout=120,
    )
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode == 2 and err.count("\n") == 1 and err.startswith("bgnet: error: ")


def test_a_binary_benchmark_file_is_one_line(capsys, tmp_path):
    f = tmp_path / "positions.bm"
    f.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    code, out, err = run(capsys, "bench", "positions", str(f), "--player", "pubeval")
    assert code == 2 and out == ""
    assert err == f"bgnet: error: cannot read {f}: not a UTF-8 text file (byte 0x89 at offset 0)\n"
    # bench label reads its input itself (bgnet/commands/bench.py): main still answers with one line.
    code, out, err = run(capsys, "bench", "label", str(f), "--out", str(tmp_path / "out.jsonl"))
    assert code == 2 and err.count("\n") == 1 and err.startswith("bgnet: error: ") and "UTF-8" in err
