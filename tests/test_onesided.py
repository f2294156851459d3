"""The one-sided race network and its data (training/onesided.py), checked against brute force."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from boards import TINY_RUN, pos

from bgnet import checkpoint
from bgnet.bearoff import OneSidedBearoff, index_of
from bgnet.encoding import RACE, RACE_DB
from bgnet.evaluator import NetEvaluator
from bgnet.network import OneSidedRaceNet
from bgnet.position import random_race
from bgnet.pubeval import is_race
from bgnet_training import onesided as rl
from bgnet_training.config import make_config
from bgnet_training.races import harvest
from bgnet_training.train import SelfPlayChooser, Trainer

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, 7)]


def lone_checker(pips: int, width: int = 40) -> np.ndarray:
    """P(exactly n rolls) to bear off one checker ``pips`` from off, by brute force over the 36 rolls: with
    no other checker every step is legal, so it is off once the pips rolled (doubles four times) reach it."""
    left = np.zeros(pips + 1)
    left[pips] = 1.0  # P(still on the board with this many pips to go)
    out = np.zeros(width)
    for n in range(1, width):
        nxt = np.zeros_like(left)
        for a, b in ROLLS:
            moved = 4 * a if a == b else a + b
            for r in range(1, pips + 1):
                if r <= moved:
                    out[n] += left[r] / 36
                else:
                    nxt[r - moved] += left[r] / 36
        left = nxt
    return out


@pytest.fixture(scope="module")
def t6(bearoff_db):
    return rl.Tables(6, bearoff_db.rolls, bearoff_db.first)


@pytest.fixture(scope="module")
def t7():
    return rl.Tables.load_or_build(7)  # built (seconds) and cached in the tests' BGNET_CACHE


def test_larger_tables_agree_with_the_bearoff_database_on_its_positions(bearoff_db, t7):
    home = np.array([[2, 3, 0, 4, 1, 5], [0, 0, 0, 0, 0, 15], [1, 0, 0, 0, 0, 0], [3, 3, 3, 2, 2, 2]])
    idx7 = index_of(np.concatenate([home, np.zeros((len(home), 1), np.int64)], axis=1))
    np.testing.assert_allclose(t7.mean[idx7], bearoff_db.expected_rolls(home), atol=1e-9)
    n = bearoff_db.rolls.shape[1]
    np.testing.assert_allclose(t7.rolls[idx7, :n], bearoff_db.distribution(home), atol=1e-6)
    assert not t7.rolls[idx7, n:].any()
    assert t7.rolls.shape == (170_544, t7.rolls.shape[1]) and t7.base == 116_280
    # a lone checker on the 7 point: the table's policy has nothing to choose
    lone = np.zeros((1, 24), np.int64)
    lone[0, 6] = 1
    exact = lone_checker(7)
    got = t7.rolls[t7.index(lone)][0]
    np.testing.assert_allclose(got, exact[: len(got)], atol=1e-6)


def test_one_sided_sampling_matches_brute_force_for_a_lone_checker(t6):
    rng = np.random.default_rng(5)
    counts = np.zeros((2, 24), np.int64)
    counts[0, 11] = 1  # a checker on the 12 point: sampled until it is home, then the table
    counts[1, 3] = 1  # on the 4 point: the table alone
    all_off, first, clear = rl.side_distributions(counts, t6, 4000, rng)
    exact = lone_checker(12)
    mean = all_off[0] @ np.arange(all_off.shape[1])
    spread = np.sqrt(exact @ np.arange(40) ** 2 - (exact @ np.arange(40)) ** 2)
    assert abs(mean - exact @ np.arange(40)) < 4 * spread / np.sqrt(4000)
    np.testing.assert_allclose(all_off[0, :40], exact, atol=0.03)
    np.testing.assert_allclose(all_off[1, :40], lone_checker(4), atol=1e-9)
    # one checker left means one is off: no first checker to bear off, nothing in the other home board
    assert first[:, 0].tolist() == [1.0, 1.0] and clear[:, 0].tolist() == [1.0, 1.0]


def test_sampled_home_board_clear_distributions_follow_the_play_that_saves_the_backgammon(t6):
    rng = np.random.default_rng(6)
    counts = np.zeros((2, 24), np.int64)
    counts[0, 18], counts[0, 7] = 1, 14  # a straggler on the 19 point: either die takes it out
    counts[1, 20], counts[1, 7] = 2, 13  # two on the 21 point: out in one roll with 3-3 or better
    all_off, first, clear = rl.side_distributions(counts, t6, 400, rng)
    assert clear[0, 1] == 1.0
    assert clear[1, 1] > 0 and clear[1, 1] + clear[1, 2] > 0.9 and clear[1, 0] == 0
    assert first[0, 0] == first[1, 0] == 0  # neither has a checker off


def test_labels_of_covered_races_are_the_bearoff_databases(bearoff_db, t7):
    rng = np.random.default_rng(2)
    boards = []
    while len(boards) < 100:
        b = np.zeros(26, np.int8)
        np.add.at(b, rng.integers(1, 7, rng.integers(1, 16)), 1)
        np.add.at(b, rng.integers(19, 25, rng.integers(1, 16)), -1)
        boards.append(b)
    boards = np.array(boards)
    np.testing.assert_allclose(
        rl.race_labels(boards, t7, 4, rng), bearoff_db.probabilities(boards), atol=1e-6
    )


def test_labels_of_a_two_checker_race_by_brute_force(t6):
    # ours: one checker on our 12 point; theirs: one on their 9 point.  We roll first: we win iff
    # X <= Y; with one checker a side nobody can be gammoned.
    b = pos({12: 1}, {9: 1}).board
    x, y = lone_checker(12), lone_checker(9)
    win = sum(x[n] * y[n:].sum() for n in range(40))
    got = rl.race_labels(b[None], t6, 4000, np.random.default_rng(1))[0]
    assert got[0] == pytest.approx(win, abs=0.02)
    assert got[1:].tolist() == [0.0, 0.0, 0.0, 0.0]


def test_gammons_and_backgammons_when_the_other_side_is_far_behind(t6):
    rng = np.random.default_rng(3)
    # we bear off our last two checkers (on our 1 point) with any roll; they have all 15 out, one of
    # them on their 20 point, in our home board, and get no roll: we win a backgammon
    b = pos({1: 2}, {20: 1, 14: 14}).board
    assert is_race(b[None])[0]
    np.testing.assert_allclose(rl.race_labels(b[None], t6, 50, rng)[0], [1, 1, 1, 0, 0], atol=1e-9)
    # seen from them, on roll: they cannot bear a checker off in one roll, so they lose a gammon
    back = rl.race_labels(pos({20: 1, 14: 14}, {1: 2}).board[None], t6, 50, rng)[0]
    assert back[:4].tolist() == pytest.approx([0, 0, 0, 1]) and 0 <= back[4] <= 1


def test_labels_refuse_contact(t6):
    b = pos({24: 2, 6: 13}, {24: 2, 6: 13}).board
    with pytest.raises(rl.RaceLabelError, match="contact"):
        rl.race_labels(b[None], t6, 4, np.random.default_rng(0))


def test_every_race_position_of_self_play_is_harvested():
    ev = NetEvaluator.from_checkpoint()  # the shipped networks (a random one may never end a game)
    runs = []
    for every in (True, False):
        rng = np.random.default_rng(4)
        runs.append(harvest(SelfPlayChooser(ev, 0.0, rng), 6, rng, slots=3, every=every))
    every, first = runs
    assert len(every) > len(first) > 0 and every.dtype == np.int8
    assert is_race(every).all() and not OneSidedBearoff.covers(every).any()
    assert {b.tobytes() for b in first} <= {b.tobytes() for b in every}


def test_command_refuses_bad_arguments_with_one_line(tmp_path, capsys):
    net = str(checkpoint.DEFAULT)
    for extra, message in (
        (["--trials", "0"], "--trials must be >= 1"),
        (["--points", "5"], "--points must be 6 to 12"),
        (["--lr", "-1"], "--lr must be a positive number"),
        (["--rolls", "-1"], "--rolls and --refine must be >= 0"),
    ):
        assert rl.main([net, str(tmp_path / "o.pt"), *extra]) == 2
        err = capsys.readouterr().err
        assert err == f"error: {message}\n"
    assert rl.main([net, str(tmp_path / "no" / "o.pt")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: cannot write") and err.count("\n") == 1
    assert rl.main([net, str(tmp_path / "o.pt"), "--hidden", "x"]) == 2
    assert "hidden layers" in capsys.readouterr().err
    assert rl.main([str(tmp_path / "missing.pt"), str(tmp_path / "o.pt")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert not (tmp_path / "o.pt").exists()


def test_command_writes_networks_whose_race_network_is_one_sided(tmp_path, capsys, monkeypatch):
    # the smallest real run: 4 games, 7-point tables, a tiny network; the result loads and plays
    out = tmp_path / "os.pt"
    args = ["--games", "4", "--points", "7", "--trials", "2", "--rolls", "1", "--table", "500"]
    args += ["--hidden", "8", "--epochs", "1", "--width", "48"]
    assert rl.main([str(checkpoint.DEFAULT), str(out), *args]) == 0
    state = checkpoint.read(out)
    assert state["race"]["shape"]["kind"] == "one-sided" and state["race_source"]["games"] == 4
    ev = NetEvaluator.from_checkpoint(out)
    assert isinstance(ev.race[0], OneSidedRaceNet)
    shipped = checkpoint.read(checkpoint.DEFAULT)
    for k, v in shipped["model"].items():
        assert torch.equal(state["model"][k], v)
    board = pos({9: 5, 8: 5, 3: 5}, {10: 5, 8: 5, 2: 5}).board
    p = ev.probabilities(board[None])[0]
    assert 0 <= p[0] <= 1 and p[2] <= p[1] <= p[0] and p[4] <= p[3] <= 1 - p[0] + 1e-6


# --------------------------------------------------------------------------- the one-sided race network


def _delta_net(all_at: int, first_at: int, clear_at: int, rolls: int = 16) -> OneSidedRaceNet:
    """A one-sided network whose every side needs exactly these roll counts (its heads' biases only)."""
    net = OneSidedRaceNet(RACE.width, [4], "relu", rolls)
    with torch.no_grad():
        net.heads.weight.zero_()
        net.heads.bias.fill_(-60.0)
        for head, at in enumerate((all_at, first_at, clear_at)):
            net.heads.bias[head * rolls + at] = 60.0
    return net.eval()


def _probs(net: OneSidedRaceNet, board: np.ndarray) -> list[float]:
    with torch.no_grad():
        return net(torch.from_numpy(RACE.encode(board[None])))[0].tolist()


def test_one_sided_network_combines_the_two_sides_as_a_race_does():
    # both sides need 5 rolls: we roll first and win; their first checker comes off on their 3rd roll
    both_full = pos({9: 5, 8: 5, 7: 5}, {9: 5, 8: 5, 7: 5}).board
    assert _probs(_delta_net(5, 3, 1), both_full) == pytest.approx([1, 0, 0, 0, 0], abs=1e-6)
    # first checkers off on the 5th roll too: we finish on our 5th, before their 5th -> a gammon;
    # none of theirs is in our home board, so no backgammon whatever the clear head says
    assert _probs(_delta_net(5, 5, 5), both_full) == pytest.approx([1, 1, 0, 0, 0], abs=1e-6)
    # a checker of theirs in our home board (their 20 point) until their 5th roll: a backgammon
    straggler = pos({9: 5, 8: 5, 7: 5}, {20: 1, 9: 4, 8: 5, 7: 5}).board
    assert _probs(_delta_net(5, 5, 5), straggler) == pytest.approx([1, 1, 1, 0, 0], abs=1e-6)
    assert _probs(_delta_net(5, 5, 4), straggler) == pytest.approx([1, 1, 0, 0, 0], abs=1e-6)
    # with a checker off on each side the first and clear heads are not read: plain wins
    some_off = pos({9: 5, 8: 5, 7: 4}, {9: 5, 8: 5, 7: 4}).board
    assert _probs(_delta_net(5, 5, 5), some_off) == pytest.approx([1, 0, 0, 0, 0], abs=1e-6)
    # marginals that no side can have (its first checker off after its last) still give consistent
    # outputs: gammons are capped by the wins and losses they belong to
    p = _probs(_delta_net(5, 6, 6), both_full)
    assert p[1] <= p[0] and p[3] <= 1 - p[0] + 1e-7


def test_one_sided_network_sums_over_the_two_distributions():
    rng = np.random.default_rng(8)
    torch.manual_seed(3)
    net = OneSidedRaceNet(RACE.width, [16], "relu", 24).eval()
    boards = np.stack([random_race(rng) for _ in range(50)])
    with torch.no_grad():
        got = net(torch.from_numpy(RACE.encode(boards))).numpy()
        x = RACE.encode(boards)
        d = net.distributions(torch.from_numpy(np.concatenate([x[:, :112], x[:, 112:]]))).numpy()
    for i in range(50):
        ours, theirs = d[i], d[50 + i]
        win = sum(ours[0, n] * theirs[0, m] for n in range(24) for m in range(n, 24))
        lg = sum(theirs[0, m] * ours[1, n] for m in range(24) for n in range(m + 1, 24))
        assert got[i, 0] == pytest.approx(win, abs=1e-5) and got[i, 3] == pytest.approx(lg, abs=1e-5)
        assert got[i, 2] <= got[i, 1] + 1e-7 <= got[i, 0] + 2e-7 and got[i, 4] <= got[i, 3] + 1e-7


def test_one_sided_network_checkpoint_round_trip_and_its_limits(tmp_path):
    torch.manual_seed(4)
    net = OneSidedRaceNet(RACE.width, [16], "relu", 24).eval()
    state = checkpoint.read(checkpoint.DEFAULT)
    race = {"encoder": "race", "encoder_version": RACE.version, "shape": net.shape, "model": net.state_dict()}
    checkpoint.save(tmp_path / "os.pt", state | {"race": race})
    ev = NetEvaluator.from_checkpoint(tmp_path / "os.pt", race_lookahead=False)  # the network's own figures
    assert isinstance(ev.race[0], OneSidedRaceNet)
    board = pos({9: 5, 8: 5, 3: 5}, {10: 5, 8: 5, 2: 5}).board
    np.testing.assert_allclose(ev.probabilities(board[None])[0], _probs(net, board), atol=1e-6)
    # not as the main network, not on other inputs
    checkpoint.save(
        tmp_path / "main.pt",
        state
        | {"model": net.state_dict(), "shape": net.shape, "encoder": "race", "encoder_version": RACE.version},
    )
    with pytest.raises(checkpoint.CheckpointError, match="one-sided"):
        NetEvaluator.from_checkpoint(tmp_path / "main.pt")
    db_race = race | {
        "encoder": "race-db",
        "encoder_version": RACE_DB.version,
        "shape": net.shape | {"inputs": RACE_DB.width},
    }
    checkpoint.save(tmp_path / "db.pt", state | {"race": db_race})
    with pytest.raises(checkpoint.CheckpointError):
        NetEvaluator.from_checkpoint(tmp_path / "db.pt")


def test_fit_one_sided_learns_exact_distributions(t7):
    rng = np.random.default_rng(6)
    torch.manual_seed(6)
    sides = rl.table_sides(t7, 3000, rng)
    targets = rl.one_sided_targets(sides, t7, 1, rng, 40)
    net = OneSidedRaceNet(RACE.width, [32], "relu", 40)
    curve = rl.fit_one_sided(
        net, sides, targets, 6, 3e-3, rng, minibatch=64, held_out=0.2, log=lambda s: None
    )
    assert curve[-1] < curve[0] / 4


# --------------------------------------------------------------------------- one roll of lookahead


def test_lookahead_on_sides_within_the_tables_gives_the_tables(t7):
    # the tables are the fixed point of the lookahead: best play by expected rolls, then the table
    rng = np.random.default_rng(8)
    sides = rl.table_sides(t7, 400, rng)
    sides = sides[sides.sum(axis=1) >= 5]
    got = rl.backup_targets(None, sides, t7, 40)  # every result is within the tables: no network needed
    idx = t7.index(sides)
    n = t7.rolls.shape[1]
    np.testing.assert_allclose(got[:, 0, :n], t7.rolls[idx], atol=1e-5)
    full = np.flatnonzero(sides.sum(axis=1) == 15)
    assert len(full) > 20
    m = t7.first.shape[1]
    np.testing.assert_allclose(got[full, 1, :m], t7.first[idx[full] - t7.base], atol=1e-5)
    assert (got[sides.sum(axis=1) < 15, 1, 0] == 1).all() and (got[:, 2, 0] == 1).all()


def test_lookahead_mixes_network_tables_and_finished_results_by_brute_force(t7):
    # a lone checker on the 20 point: each roll leaves it beyond the tables (the network: "5 more rolls"),
    # within them (the table: brute force) or off (0 more); the target is their mix, one roll later
    net = _delta_net(5, 3, 2, rolls=40)
    side = np.zeros((1, 24), np.int64)
    side[0, 19] = 1
    got = rl.backup_targets(net, side, t7, 40)[0]
    want = np.zeros(40)
    for a, b in ROLLS:
        left = 20 - (4 * a if a == b else a + b)
        after = np.zeros(40)
        if left <= 0:
            after[0] = 1.0
        elif left <= 7:
            after = lone_checker(left)
        else:
            after[5] = 1.0
        want[1:] += after[:-1] / 36
    np.testing.assert_allclose(got[0], want, atol=1e-6)
    # one checker: none to bear off first; every roll takes it out of points 19..24
    assert got[1, 0] == 1.0 and got[2, 1] == pytest.approx(1.0)


def test_refine_command_changes_only_the_race_network_and_refuses_other_networks(tmp_path, capsys):
    out = tmp_path / "r.pt"
    args = ["--games", "4", "--points", "7", "--rolls", "1", "--table", "300", "--epochs", "1"]
    assert rl.main([str(checkpoint.DEFAULT), str(out), "--refine", "1", *args]) == 0
    state, shipped = checkpoint.read(out), checkpoint.read(checkpoint.DEFAULT)
    assert state["race"]["shape"] == shipped["race"]["shape"] and state["race_source"]["refine"] == 1
    for k, v in shipped["model"].items():
        assert torch.equal(state["model"][k], v)
    assert any(not torch.equal(state["race"]["model"][k], v) for k, v in shipped["race"]["model"].items())
    ev = NetEvaluator.from_checkpoint(out)
    board = pos({9: 5, 8: 5, 3: 5}, {10: 5, 8: 5, 2: 5}).board
    p = ev.probabilities(board[None])[0]
    assert 0 <= p[0] <= 1 and p[2] <= p[1] <= p[0]
    capsys.readouterr()
    # a networks file whose race network is not one-sided has nothing to refine
    td = shipped | {"race": {**shipped["race"], "shape": {"kind": "value", "inputs": 1}}}
    checkpoint.save(tmp_path / "td.pt", td)
    assert rl.main([str(tmp_path / "td.pt"), str(tmp_path / "x.pt"), "--refine", "1"]) == 1
    err = capsys.readouterr().err
    assert "no one-sided race network to refine" in err and err.count("\n") == 1
    for extra, message in (
        (["--refine", "-1"], "--rolls and --refine must be >= 0"),
        (["--prune", "0"], "--prune must be >= 1"),
    ):
        assert rl.main([str(checkpoint.DEFAULT), str(tmp_path / "x.pt"), *extra]) == 2
        assert capsys.readouterr().err == f"error: {message}\n"
    assert not (tmp_path / "x.pt").exists()


def test_self_play_refuses_to_start_from_a_one_sided_race_network(tmp_path):
    torch.manual_seed(5)
    net = OneSidedRaceNet(RACE.width, [8], "relu", 24)
    state = checkpoint.read(checkpoint.DEFAULT)
    race = {"encoder": "race", "encoder_version": RACE.version, "shape": net.shape, "model": net.state_dict()}
    checkpoint.save(tmp_path / "os.pt", state | {"race": race})
    cfg = dict(  # the run's main network is the shipped one's shape, whatever it is
        TINY_RUN,
        encoder=state["encoder"],
        race_hidden=(6,),
        hidden=tuple(state["shape"]["hidden"]),
        init=str(tmp_path / "os.pt"),
    )
    with pytest.raises(checkpoint.CheckpointError, match="one-sided, which self-play does not train"):
        Trainer(make_config(cfg), tmp_path, progress=False)
