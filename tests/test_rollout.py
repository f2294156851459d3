"""Rollouts (bgnet/rollout.py, ``bgnet rollout``): exact race values, variance reduction, seeds, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from functools import partial

import numpy as np
import pytest

from bgnet.cli import main
from bgnet.dice import Dice
from bgnet.evaluator import NetEvaluator
from bgnet.formats import position_id
from bgnet.rollout import BLOCK, RolloutSettings, rollout_boards, rollout_plays, trial_dice
from tests.boards import pos

RACES = [
    pos({6: 3, 5: 3, 4: 2, 3: 2, 2: 1}, {6: 3, 5: 2, 4: 3, 2: 2}),
    pos({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5}),  # 15 checkers each: gammons possible
    pos({6: 2, 5: 2, 3: 1, 1: 2}, {6: 3, 4: 3, 3: 3, 2: 2}),
]
"""Pure races inside the one-sided bearoff database."""

POLICY_GAP = 1e-3
"""The database is exact for each side bearing off to minimise its own expected rolls; the rollout's
players play by the two-sided winning chances, which moves the value by a few 1e-4 at most.  It only
shows when the luck adjustment, with this exact evaluator, brings the standard error below it."""


@pytest.fixture(scope="module")
def ev(bearoff_db):
    return NetEvaluator.from_checkpoint(bearoff=bearoff_db)


@pytest.mark.parametrize("board", RACES, ids=["mixed", "gammonish", "short"])
def test_a_race_played_out_without_variance_reduction_lands_within_3_se_of_the_exact_value(ev, board):
    exact = ev.bearoff.probabilities(board.board[None])[0]
    s = RolloutSettings(games=BLOCK, luck=False, stratify=False, bearoff_stop=False, seed=3)
    r = rollout_boards(board.board[None], s, evaluator=ev)[0]
    assert r.games == BLOCK
    assert r.equity_se > 0.005  # the games were really played out, not read from the database
    assert abs(r.probabilities - exact).max() <= 3 * r.probabilities_se.max() + 1e-9
    assert abs(r.equity - (2 * exact[0] - 1 + exact[1] - exact[3] + exact[2] - exact[4])) <= 3 * r.equity_se


@pytest.mark.parametrize(
    "board", [RACES[0], pytest.param(RACES[1], marks=pytest.mark.slow)], ids=["mixed", "gammonish"]
)
def test_luck_adjustment_lands_on_the_exact_value_with_a_far_smaller_standard_error(ev, board):
    exact = ev.bearoff.probabilities(board.board[None])[0]
    plain = RolloutSettings(games=648, luck=False, stratify=False, bearoff_stop=False, seed=5)
    reduced = RolloutSettings(games=648, luck=True, stratify=True, bearoff_stop=False, seed=5)
    a = rollout_boards(board.board[None], plain, evaluator=ev)[0]
    b = rollout_boards(board.board[None], reduced, evaluator=ev)[0]
    assert b.equity_se < a.equity_se / 10
    assert abs(b.probabilities - exact).max() <= 3 * b.probabilities_se.max() + POLICY_GAP


def test_the_bearoff_database_ends_games_at_once_with_the_exact_value(ev):
    board = RACES[0].board
    r = rollout_boards(board[None], RolloutSettings(games=16), evaluator=ev)[0]
    assert np.allclose(r.probabilities, ev.bearoff.probabilities(board[None])[0])
    assert r.equity_se == 0


def test_stratified_dice_cover_the_36_first_and_second_rolls_and_the_1296_first_pairs_evenly():
    trials = np.arange(2 * BLOCK)
    first = trial_dice(7, 0, trials, stratify=True, total=len(trials))
    second = trial_dice(7, 1, trials, stratify=True, total=len(trials))
    code = lambda d: (d[:, 0] - 1) * 6 + d[:, 1] - 1  # noqa: E731
    assert np.bincount(code(first), minlength=36).tolist() == [72] * 36
    for k in (0, 5, 40):  # every run of 36 games sees each first and each second roll once
        assert sorted(code(first[36 * k : 36 * k + 36])) == list(range(36))
        assert sorted(code(second[36 * k : 36 * k + 36])) == list(range(36))
    pairs = code(first[:BLOCK]) * 36 + code(second[:BLOCK])
    assert sorted(pairs.tolist()) == list(range(BLOCK))
    third = trial_dice(7, 2, trials, stratify=True, total=len(trials))
    assert ((third >= 1) & (third <= 6)).all()
    # Trial i's dice never depend on which other trials are asked for (jobs and batches).
    assert (
        trial_dice(7, 5, trials[100:110], stratify=True, total=len(trials))
        == trial_dice(7, 5, trials, stratify=True, total=len(trials))[100:110]
    ).all()


CONTACT = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_the_same_seed_gives_the_same_result_and_another_seed_another(ev):
    board = pos({9: 3, 8: 3, 6: 4, 5: 3, 4: 2}, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}).board  # race, net + db
    s = RolloutSettings(games=72, luck=False, seed=11)
    a = rollout_boards(board[None], s, evaluator=ev)[0]
    b = rollout_boards(board[None], s, evaluator=ev)[0]
    c = rollout_boards(board[None], RolloutSettings(games=72, luck=False, seed=12), evaluator=ev)[0]
    assert np.array_equal(a.samples, b.samples)
    assert not np.array_equal(a.samples, c.samples)


def test_candidate_plays_are_rolled_out_on_common_dice_best_first(ev):
    board = pos({8: 3, 7: 2, 6: 4, 5: 3, 4: 3}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2}).board
    batch, plays = rollout_plays(ev, board, Dice(5, 2), RolloutSettings(games=144, luck=False, seed=2))
    assert len(plays) >= 2
    eqs = [p.result.equity for p in plays]
    assert eqs == sorted(eqs, reverse=True)
    assert plays[0].loss == 0 and all(p.loss >= 0 for p in plays)
    # Common random numbers: the loss is measured more precisely than either equity.
    assert all(p.loss_se <= max(p.result.equity_se, plays[0].result.equity_se) + 1e-12 for p in plays)


def test_rollout_command_json_for_a_position(capsys, tmp_path):
    board = RACES[2].board
    assert (
        main(["rollout", position_id(board), "--games", "36", "--no-bearoff-stop", "--json", "--no-progress"])
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert {"games", "equity", "equity_se", "probabilities", "probabilities_se"} <= set(out)
    assert out["games"] == 36 and len(out["probabilities"]) == 5 and len(out["probabilities_se"]) == 5


def test_rollout_command_json_for_the_plays_of_a_roll(capsys):
    board = pos({8: 3, 7: 2, 6: 4, 5: 3, 4: 3}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2}).board
    assert (
        main(["rollout", position_id(board), "--dice", "52", "--games", "36", "--json", "--no-progress"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    plays = out["plays"]
    assert plays and {"play", "position", "equity", "equity_se", "probabilities", "loss"} <= set(plays[0])
    assert [p["equity"] for p in plays] == sorted((p["equity"] for p in plays), reverse=True)
    assert plays[0]["loss"] == 0


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["rollout", "nonsense"], "position"),
        (["rollout", "4HPwATDgc/ABMA", "--dice", "71"], "1 to 6"),
        (["rollout", "4HPwATDgc/ABMA", "--games", "1"], "at least 2"),
        (["rollout", "4HPwATDgc/ABMA", "--truncate", "0"], "truncate"),
        (["rollout", "4HPwATDgc/ABMA", "--seed", "-1"], "--seed"),
        (["rollout", "4HPwATDgc/ABMA", "--jobs", "-1"], "jobs"),
        (["rollout", "4HPwATDgc/ABMA", "--cube", "--jobs", "2"], "--jobs 1"),
    ],
)
def test_bad_input_gives_one_line_and_exit_2(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err


@pytest.mark.slow
def test_the_result_does_not_depend_on_the_number_of_jobs(ev):
    board = pos({9: 3, 8: 3, 6: 4, 5: 3, 4: 2}, {6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}).board
    s = RolloutSettings(games=40, luck=True, seed=4)
    one = rollout_boards(board[None], s, evaluator=ev)[0]
    two = rollout_boards(board[None], s, make_evaluator=partial(NetEvaluator.from_checkpoint), jobs=2)[0]
    assert np.allclose(one.samples, two.samples, atol=1e-6)


# ---------------------------------------------------------------------------
# Cubeful rollouts (bgnet/cubeful_rollout.py, ``bgnet rollout --cube``)


def test_a_double_pass_position_rolls_out_at_exactly_plus_one(ev):
    from bgnet.cubeful_rollout import cubeful_rollout
    from bgnet.match import CubeState, MatchState

    board = pos({6: 3, 5: 3, 4: 3, 3: 2, 2: 2, 1: 2}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2}).board
    r = cubeful_rollout(ev, board, CubeState(), MatchState.money(), RolloutSettings(games=36))
    assert r.equity == 1.0 and r.equity_se == 0 and r.passes == r.doubles == 36


def test_a_cubeful_money_rollout_of_a_race_agrees_with_the_cube_formulas(ev):
    from bgnet.cube import cube_decision, race_pips
    from bgnet.cubeful_rollout import cubeful_rollout
    from bgnet.match import CubeState, MatchState

    board = pos({8: 2, 7: 2, 6: 3, 5: 3, 4: 3, 3: 2}, {6: 4, 5: 4, 4: 3, 3: 2, 2: 2}).board
    r = cubeful_rollout(ev, board, CubeState(), MatchState.money(), RolloutSettings(games=648, seed=1))
    d = cube_decision(
        ev.probabilities(board[None], 1)[0], CubeState(), MatchState.money(), pips=race_pips(board)
    )
    assert r.doubles > 0  # the cube was used in the games
    assert abs(r.equity - d.optimal) < 0.15  # Janowski's formula is an approximation; the SE is about 0.07


def test_match_winning_chances_after_a_result_follow_the_table():
    from bgnet.cubeful_rollout import mwc_after
    from bgnet.match import MatchState
    from bgnet.met import post_crawford, pre_crawford

    m = MatchState.match(5, (2, 1))  # 3-away, 4-away
    assert mwc_after(m, 3, 0) == 1.0 and mwc_after(m, 0, 4) == 0.0
    assert mwc_after(m, 1, 0) == pre_crawford(2, 4) and mwc_after(m, 0, 2) == pre_crawford(3, 2)
    assert mwc_after(m, 2, 0) == pre_crawford(1, 4)  # we reach 1-away: the Crawford game is next
    crawford = MatchState.match(5, (4, 1), crawford=True)  # after the Crawford game: post-Crawford
    assert mwc_after(crawford, 0, 1) == 1 - post_crawford(3)


def test_cubeful_rollout_command(capsys):
    xgid = "XGID=-BBBCCC------------ddcbb--:0:0:1:00:0:0:0:0:10"
    assert main(["rollout", xgid, "--cube", "--games", "36", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cubeful"] and out["equity"] == 1.0 and out["games"] == 36
    assert main(["rollout", xgid, "--cube", "--dice", "31"]) == 2
    assert "no dice" in capsys.readouterr().err


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command name (state first), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None


def _pool_processes(pid: int) -> dict[int, str]:
    """The pool processes ``pid`` started (multiprocessing's spawn_main, not its resource tracker), each with
    its start time (so that a pid taken again by another process is not mistaken for it)."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) and int(stat[1]) == pid:
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if b"spawn_main" in f.read():
                        found[int(entry)] = stat[19]
            except OSError:
                continue
    return found


def _alive(pid: int, started: str) -> bool:
    stat = _stat(pid)
    return stat is not None and stat[19] == started and stat[0] != "Z"


@pytest.mark.slow
def test_sigterm_stops_a_rollout_on_several_processes_and_its_processes_with_one_line():
    # SIGTERM (kill, a scheduler's stop) used to kill the parent alone and leave its processes computing.
    cmd = [sys.executable, "-m", "bgnet.cli", "rollout", "4HPwATDgc/ABMA", "--games", "20000"]
    proc = subprocess.Popen([*cmd, "--jobs", "2", "--no-progress"], stderr=subprocess.PIPE, text=True)
    kids: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 120
        while len(kids := _pool_processes(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(kids) == 2, "the rollout's two processes never started"
        time.sleep(2.0)  # at work on their trials
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
        deadline = time.monotonic() + 10
        while any(_alive(k, t) for k, t in kids.items()) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [k for k, t in kids.items() if _alive(k, t)]
    finally:  # a failed run leaves nothing behind either
        if proc.poll() is None:
            proc.kill()
        for pid, started in kids.items():
            if _alive(pid, started):
                os.kill(pid, signal.SIGKILL)
    assert proc.returncode == 143 and err == "\nbgnet: terminated\n", (proc.returncode, err)
    assert not left, left
