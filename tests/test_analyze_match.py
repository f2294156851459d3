"""``bgnet analyze-match`` (bgnet/analysis.py): a match against a random player, bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bgnet.analysis import THRESHOLDS, PlayerStats, analyze_match
from bgnet.cli import main
from bgnet.evaluator import NetEvaluator
from bgnet.formats import parse_xgid
from bgnet.matfile import read_mat


@pytest.fixture(scope="module")
def random_match(tmp_path_factory) -> Path:
    """A 3-point match of bgnet (player 0) against a random player (plays, doubles and takes at random)."""
    folder = tmp_path_factory.mktemp("mat")
    argv = ["bench", "play", "--a", "bgnet", "--b", "random", "--games", "2", "--match", "3"]
    assert main([*argv, "--save", str(folder / "m.mat"), "--seed", "1", "--no-progress"]) == 0
    return folder / "m-0001.mat"


@pytest.mark.slow
def test_the_random_side_errs_far_more_than_bgnet(capsys, random_match):
    capsys.readouterr()
    assert main(["analyze-match", str(random_match), "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    bot, rnd = out["players"]["bgnet"], out["players"]["random"]
    for s in (bot, rnd):
        assert {"decisions", "error_rate", "pr", "blunders", "luck"} <= set(s)
        assert s["decisions"] > 10
        assert s["pr"] == pytest.approx(s["error_rate"] / 2, abs=0.01)
    assert rnd["error_rate"] > 30
    assert rnd["error_rate"] > 5 * bot["error_rate"]
    assert rnd["blunders"] > bot["blunders"]
    worst = out["worst"]
    assert worst and worst[0]["loss"] == max(d["loss"] for d in out["decisions"])
    for d in worst:
        parse_xgid(d["xgid"])  # every listed decision names its position in a readable XGID
        assert d["made"] and d["best"]


@pytest.mark.slow
def test_a_checker_decision_loses_the_best_equity_minus_the_equity_made(random_match, bearoff_db):
    ev = NetEvaluator.from_checkpoint(bearoff=bearoff_db)
    result = analyze_match(ev, read_mat(random_match), 0)
    moves = [d for d in result.decisions if d.kind == "move"]
    assert moves
    for d in moves:
        assert d.loss == pytest.approx(max(0.0, d.best_equity - d.equity), abs=1e-9)
        assert (d.loss == 0) == (d.made == d.best) or d.loss < 1e-9
    # the per player counts add up
    for p in (0, 1):
        s = result.players[p]
        assert s.decisions == sum(1 for d in result.decisions if d.player == p)


def test_loss_thresholds_sort_decisions_into_doubtful_errors_and_blunders():
    s = PlayerStats()
    from bgnet.analysis import Decision

    for loss in (0.0, 0.039, THRESHOLDS["doubtful"], 0.1, THRESHOLDS["blunder"], 0.5):
        s.add(Decision(1, 0, "move", "", loss, "", "", 0.0, loss))
    assert (s.doubtful, s.errors, s.blunders) == (1, 1, 2)
    assert s.error_rate == pytest.approx(1000 * (0.039 + 0.04 + 0.1 + 0.16 + 0.5) / 6)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "cannot read"),
        ("hello\n", "point match"),
        (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 52: 24/10\n", "line 5"),
        (b"\x00\x01\xff\xfe", "point match"),
    ],
)
def test_a_bad_file_gives_one_line_naming_the_problem_and_exit_2(capsys, tmp_path, content, words):
    path = tmp_path / "bad.mat"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content)
    assert main(["analyze-match", str(path), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, err
