"""``bgnet analyze`` and ``bgnet moves --rank --ply``: ranked plays, cubeful equities, cube decisions."""

import json

import numpy as np
import pytest
from boards import tiny_checkpoint

from bgnet.cli import main
from bgnet.commands.analyze import cube_context
from bgnet.cube import CubeOwner, CubeState, MatchState, cube_decision, cubeful_equity
from bgnet.formats import MatchInfo, parse_position
from bgnet.probabilities import flip as flip_probs

START = "4HPwATDgc/ABMA"
XGID_ROLLED = "XGID=-b----E-C---eE---c-e----B-:1:1:1:31:3:2:0:7:10"
XGID_TO_ROLL = "XGID=-b----E-C---eE---c-e----B-:1:1:1:00:3:2:0:7:10"


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    return str(tiny_checkpoint(tmp_path_factory.mktemp("net") / "tiny.pt"))


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_plays_are_ranked_best_first_with_their_loss(capsys, ckpt):
    code, out, _ = run(capsys, "analyze", START, "--dice", "31", "--checkpoint", ckpt, "--json")
    doc = json.loads(out)
    eqs = [p["equity"] for p in doc["plays"]]
    assert code == 0 and len(eqs) == 16 and eqs == sorted(eqs, reverse=True)
    assert doc["plays"][0]["loss"] == 0 and all(
        p["loss"] == pytest.approx(eqs[0] - p["equity"], abs=2e-6) for p in doc["plays"]
    )
    assert set(doc["plays"][0]) == {"play", "position", "ply", "equity", "probabilities", "loss"}
    assert {p["ply"] for p in doc["plays"]} == {0}


def test_at_2_ply_each_play_has_its_ply_and_losses_compare_like_with_like(capsys, ckpt):
    argv = ("analyze", START, "--dice", "31", "--checkpoint", ckpt, "--json")
    doc = json.loads(run(capsys, *argv, "--ply", "2")[1])
    static = {p["play"]: p["equity"] for p in json.loads(run(capsys, *argv, "--ply", "0")[1])["plays"]}
    plays = doc["plays"]
    plies = [p["ply"] for p in plays]
    # The move filter keeps at most 8 of the 16 plays for 2-ply; the rest keep their 0-ply value.
    assert 1 <= plies.count(2) <= 8 and plies.count(0) == 16 - plies.count(2)
    assert plies == sorted(plies, reverse=True)  # the deepest evaluated first
    deep, shallow = plays[: plies.count(2)], plays[plies.count(2) :]
    for group in (deep, shallow):
        eqs = [p["equity"] for p in group]
        assert eqs == sorted(eqs, reverse=True)
    best = deep[0]
    assert all(p["loss"] == pytest.approx(best["equity"] - p["equity"], abs=2e-6) for p in deep)
    # A 0-ply play's loss is against the best play's 0-ply equity, not its 2-ply one.
    for p in shallow:
        assert p["equity"] == pytest.approx(static[p["play"]], abs=2e-6)
        assert p["loss"] == pytest.approx(static[best["play"]] - p["equity"], abs=2e-6)
    text = run(capsys, *argv[:-1], "--ply", "2")[1]
    first = next(line for line in text.splitlines() if line.lstrip().startswith("1."))
    last = text.rstrip().splitlines()[-1]
    assert best["play"] in first and "2-ply" in first and "(+0.0000)" in first and "0-ply" in last


def test_analyze_agrees_with_moves_rank_at_the_same_ply(capsys, ckpt):
    _, a, _ = run(capsys, "analyze", START, "--dice", "42", "--ply", "1", "--checkpoint", ckpt, "--json")
    _, m, _ = run(capsys, "moves", START, "42", "--rank", "--ply", "1", "--checkpoint", ckpt, "--json")
    assert [p["play"] for p in json.loads(a)["plays"]] == [p["play"] for p in json.loads(m)["plays"]]


def test_an_xgid_gives_cubeful_equities_and_its_dice(capsys, ckpt):
    _, out, _ = run(capsys, "analyze", XGID_ROLLED, "--checkpoint", ckpt, "--json")
    doc = json.loads(out)
    assert doc["dice"] == [3, 1] and doc["cubeful"] is True and doc["cube"] == {"value": 2, "owner": "me"}
    # A play's equity is minus the opponent's cubeful equity after it: the cube (2) is the
    # opponent's to face (owned by us), the score 3-2 seen by the opponent is 2-3.
    for p in doc["plays"][:3]:
        theirs = cubeful_equity(
            flip_probs(np.array(p["probabilities"])),
            CubeState(2, CubeOwner.OPPONENT),
            MatchState.match(7, (2, 3)),
            cube_action=True,
        )
        assert p["equity"] == pytest.approx(-theirs, abs=2e-5)


def test_a_match_id_for_the_second_player_gives_its_score_and_cube_from_its_side():
    info = MatchInfo(cube_value=4, cube_owner=0, player_on_roll=1, turn=1, match_length=9, score=(5, 2))
    cube, match = cube_context(info)
    assert cube == CubeState(4, CubeOwner.OPPONENT) and match.score == (2, 5) and match.length == 9


def test_without_a_roll_the_cube_decision_matches_the_cube_module(capsys, ckpt):
    _, out, _ = run(capsys, "analyze", XGID_TO_ROLL, "--checkpoint", ckpt, "--json")
    doc = json.loads(out)
    position, info = parse_position(XGID_TO_ROLL)
    cube, match = cube_context(info)
    assert cube.owner == CubeOwner.ME and match.length == 7 and match.score == (3, 2)
    expected = cube_decision(np.array(doc["probabilities"]), cube, match).to_dict()
    for key in ("no_double", "double_take", "double_pass"):
        assert doc["cube"][key] == pytest.approx(expected[key], abs=1e-5)
    assert doc["cube"]["action"] == expected["action"] and doc["plays"] == []


def test_batch_analysis_and_bad_lines(capsys, ckpt, tmp_path):
    f = tmp_path / "in.txt"
    f.write_text(f"{START} 31\n{START}\nnonsense 31\n")
    code, out, err = run(capsys, "analyze", "--batch", str(f), "--checkpoint", ckpt)
    docs = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and len(docs) == 3 and len(docs[0]["plays"]) == 16
    assert "no_double" in docs[1]["cube"] and "line 3" in docs[2]["error"] and "line 3" in err


@pytest.mark.parametrize("text", ["AAAAAAAAAAAAAA", "AAAAAAAAAAAAAA:cAkAAAAAAAAA"])
def test_a_finished_game_is_refused_before_the_network_loads(capsys, text):
    code, out, err = run(capsys, "analyze", text, "--checkpoint", "/nonexistent.pt")
    assert code == 2 and out == ""
    assert err == "bgnet: error: the game is over: neither side has a checker on the board\n"
