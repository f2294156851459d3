"""Players, the arena (duplicate dice, referee, statistics) and ``bgnet bench play``."""

from __future__ import annotations

import argparse
import io
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from bgnet import arena
from bgnet.cli import main
from bgnet.commands import bench
from bgnet.dice import Dice, duplicate_dice
from bgnet.encoding import get_encoder
from bgnet.errors import BgnetError
from bgnet.evaluator import NetEvaluator
from bgnet.formats import board_from_position_id, position_id
from bgnet.lockstep import Lockstep
from bgnet.movegen import MoveBatch, generate
from bgnet.network import ValueNet
from bgnet.notation import legal_plays, parse_play, play_of
from bgnet.players import (
    ILLEGAL,
    MAX_PLY,
    GnubgPlayer,
    HumanPlayer,
    NetPlayer,
    PlayerError,
    PubevalPlayer,
    RandomPlayer,
    make_player,
    supports_cube,
)
from bgnet.position import STARTING, Position
from bgnet.stats import mean_ci, paired_ci
from bgnet.variants import variant


def _roll_batch(boards, dice) -> MoveBatch:
    return generate(np.asarray(boards, dtype=np.int8).reshape(-1, 26), np.asarray(dice).reshape(-1, 2))


def _tiny_net_player(seed: int = 0) -> NetPlayer:
    torch.manual_seed(seed)
    enc = get_encoder("extended")
    return NetPlayer(NetEvaluator(ValueNet(enc.width, [16]), enc), name="tiny-net")


# --------------------------------------------------------------------------
# Reproducibility and duplicate dice
# --------------------------------------------------------------------------


def test_a_seeded_match_is_reproducible_and_independent_of_the_batch_size():
    one = arena.play("pubeval", "random:seed=4", 40, seed=5, slots=64)
    two = arena.play(PubevalPlayer(), RandomPlayer(seed=4), 40, seed=5, slots=7)
    assert np.array_equal(one.points, two.points)
    assert np.array_equal(one.plies, two.plies)
    other = arena.play("pubeval", "random:seed=4", 40, seed=6)
    assert not np.array_equal(one.plies, other.plies)
    assert one.games == 40 and set(np.abs(one.points)) <= {1, 2, 3}


def test_a_network_match_is_reproducible():
    a = arena.play(_tiny_net_player(), PubevalPlayer(), 20, seed=2, slots=20)
    b = arena.play(_tiny_net_player(), PubevalPlayer(), 20, seed=2, slots=20)
    assert np.array_equal(a.points, b.points) and not a.illegal


def test_duplicate_dice_give_each_side_the_other_sides_rolls():
    # The same deterministic player on both seats: the two games of a pair are mirror images.
    res = arena.play("pubeval", "pubeval", 30, seed=9)
    assert np.array_equal(res.points[0::2], -res.points[1::2])
    assert np.array_equal(res.plies[0::2], res.plies[1::2])
    assert res.ppg == 0 and res.ci95 == 0


def test_duplicate_dice_source_swaps_only_the_opening_dice():
    (a, b), rolls = duplicate_dice(3, 0, arena.MAX_PLIES)
    (c, d), rolls2 = duplicate_dice(3, 1, arena.MAX_PLIES)
    assert (c, d) == (b, a) and a != b
    assert np.array_equal(rolls, rolls2) and rolls.shape == (arena.MAX_PLIES, 2)
    assert rolls.min() >= 1 and rolls.max() <= 6
    (e, f), rolls3 = duplicate_dice(3, 2, arena.MAX_PLIES)
    assert not np.array_equal(rolls, rolls3)
    # A worker's game 0 that is the match's game 2 gets game 2's dice.
    assert np.array_equal(arena.game_dice(3, first_game=2)(0)[1], rolls3)
    # Later games of a match draw their own pair sequence.
    (g, h), later = duplicate_dice(3, 1, arena.MAX_PLIES, match_game=1)
    assert (g, h)[::-1] == duplicate_dice(3, 0, arena.MAX_PLIES, match_game=1)[0]
    assert not np.array_equal(later, rolls)


def test_lockstep_with_a_dice_source_records_game_numbers_and_plies():
    seen = []

    def dice(game):
        seen.append(game)
        rolls = np.random.default_rng(game // 2).integers(1, 7, size=(500, 2))
        return ((5, 2) if game % 2 == 0 else (2, 5)), rolls

    engine = Lockstep(3, 6, np.random.default_rng(0), max_plies=500, dice=dice)
    finished = []
    while engine.running:
        finished += engine.step(lambda batch, p: PubevalPlayer().choose(batch, p))
    assert sorted(g.game for g in finished) == list(range(6)) and seen == list(range(6))
    assert all(g.plies > 0 for g in finished)
    assert {g.first for g in finished if g.game % 2 == 0} == {0}
    assert {g.first for g in finished if g.game % 2 == 1} == {1}


def test_a_selected_batch_keeps_its_inputs_and_rows_become_plays():
    batch = _roll_batch([STARTING.board, STARTING.board, STARTING.board], [[3, 1], [6, 6], [2, 1]])
    keep = np.array([True, False, True])
    sub, rows = batch.select(keep)
    assert np.array_equal(sub.dice, [[3, 1], [2, 1]]) and len(sub.boards) == 2 and len(sub) == 2
    assert np.array_equal(sub.positions, batch.positions[rows])
    # A row becomes a Play: its input, steps, notation and result.
    row = int(rows[0])
    assert batch.input_of(row) == 0 and batch.input_of(int(batch.offsets[2])) == 2
    play = play_of(batch, row)
    assert play.steps == batch.steps_of(row) and play.position.board.tolist() == batch.positions[row].tolist()
    assert play.notation in {p.notation for p in legal_plays(STARTING, Dice(3, 1))}


@pytest.mark.slow
def test_jobs_split_the_games_without_changing_them():
    one = arena.play("pubeval", "random", 12, seed=8, slots=4)
    two = arena.play("pubeval", "random", 12, seed=8, slots=4, jobs=2)
    assert np.array_equal(one.points, two.points)
    assert np.array_equal(one.plies, two.plies)


# --------------------------------------------------------------------------
# The referee
# --------------------------------------------------------------------------


class Cheater:
    """Plays the first legal play, except every third roll it takes a row of another roll or refuses."""

    name = "cheater"

    def __init__(self) -> None:
        self.calls = 0

    def choose(self, batch, player):
        rows = PubevalPlayer().choose(batch, player)
        self.calls += 1
        if self.calls % 3 == 0:
            rows = rows.copy()
            has = rows >= 0
            rows[has] = np.where(
                batch.offsets[1:][has] < len(batch.positions), batch.offsets[1:][has], -1
            )  # the first row of the next roll: a position this roll cannot reach (or no move)
        return rows


def test_a_cheating_player_is_caught_and_not_trusted():
    res = arena.play(Cheater(), PubevalPlayer(), 10, seed=1)
    assert res.illegal
    assert {x.player for x in res.illegal} == {"cheater"}
    reasons = {x.reason for x in res.illegal}
    assert reasons <= {
        "returned a play that is not a legal play of this roll",
        "did not move although a legal play exists",
    }
    first = res.illegal[0]
    Position(board_from_position_id(first.position))
    assert 1 <= min(first.dice) <= max(first.dice) <= 6
    assert res.games == 10 and set(np.abs(res.points)) <= {1, 2, 3}
    assert res.to_json()["illegal_plays"] == len(res.illegal)
    assert "ILLEGAL PLAYS" in res.summary()


def test_the_referee_checks_each_kind_of_illegal_row():
    no_play = Position.from_points({25: 1}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}).board  # closed out
    batch = _roll_batch([STARTING.board, STARTING.board, no_play], [[3, 1], [3, 1], [6, 6]])
    lo = batch.offsets[:-1]
    log = []
    checked = arena.referee(lambda b, p: np.array([lo[1], -1, 0]), "bad", log)
    rows = checked(batch, np.zeros(3, dtype=np.int64))
    assert [x.reason for x in log] == [
        "returned a play that is not a legal play of this roll",
        "did not move although a legal play exists",
        "moved although no play is legal",
    ]
    assert list(rows) == [lo[0], lo[1], -1]
    assert log[0].position == position_id(STARTING) and log[0].dice == (3, 1)
    log.clear()
    arena.referee(lambda b, p: np.array([ILLEGAL, lo[1], -1]), "engine", log)(batch, np.zeros(3))
    assert len(log) == 1 and log[0].row == ILLEGAL
    with pytest.raises(arena.ArenaError, match="one integer row per roll"):
        arena.referee(lambda b, p: np.zeros(2, dtype=np.int64), "short", [])(batch, np.zeros(3))


# --------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------


def test_the_paired_confidence_interval_on_a_known_distribution():
    rng = np.random.default_rng(0)
    # Independent fair +-1 games: a pair mean has variance 1/2, so the half-width is 1.96 * sqrt(0.5 / K).
    k = 20_000
    pts = rng.choice([-1, 1], size=2 * k)
    mean, ci = paired_ci(pts)
    assert ci == pytest.approx(1.959964 * math.sqrt(0.5 / k), rel=0.02)
    assert abs(mean) < 3 * ci
    # Coverage: about 95% of intervals contain the true mean 0.25 of a skewed distribution.
    values, probs = np.array([-2, -1, 1, 2, 3]), np.array([0.1, 0.3, 0.35, 0.2, 0.05])
    true = float(values @ probs)
    hits = 0
    trials = 400
    for _ in range(trials):
        m, c = paired_ci(rng.choice(values, p=probs, size=400))
        hits += abs(m - true) <= c
    assert 0.91 <= hits / trials <= 0.98
    # Pairs whose luck cancels: the paired interval is much narrower than the unpaired one.
    x = rng.choice([-2, -1, 1, 2], size=k)
    paired = np.stack([x, -x + rng.choice([-1, 0, 1], size=k)], axis=1).ravel()
    assert paired_ci(paired)[1] < 0.5 * mean_ci(paired)[1] == 0.5 * arena.unpaired_ci(paired)


def test_paired_ci_needs_pairs():
    with pytest.raises(ValueError, match="pairs"):
        paired_ci(np.array([1, -1, 2]))
    assert paired_ci(np.array([1, -1]))[1] == math.inf
    assert mean_ci(np.array([2.0]))[1] == math.inf and mean_ci(np.array([1.0, 3.0]))[0] == 2.0
    with pytest.raises(arena.ArenaError, match="even"):
        arena.play("pubeval", "random", 7)


def test_result_rates_and_json():
    res = arena.MatchResult("a", "b", 1, np.array([1, -1, 2, 3, -2, 1]), np.full(6, 50), seconds=2.0)
    assert res.rates("a") == pytest.approx({"win": 4 / 6, "gammon": 2 / 6, "backgammon": 1 / 6})
    assert res.rates("b") == pytest.approx({"win": 2 / 6, "gammon": 1 / 6, "backgammon": 0})
    js = res.to_json()
    for key in ("games", "ppg", "ci95", "win_rate", "rates", "games_per_second"):
        assert key in js
    assert js["games"] == 6 and js["ppg"] == pytest.approx(4 / 6) and js["games_per_second"] == 3.0


# --------------------------------------------------------------------------
# Players
# --------------------------------------------------------------------------


def test_pubeval_and_random_players_pass_through_the_arena():
    res = arena.play("pubeval", "random", 40, seed=3)
    assert not res.illegal
    assert res.ppg > 1.0  # pubeval crushes random play


def test_gnubg_player_passes_through_the_arena():
    pytest.importorskip("gnubg_nn")
    res = arena.play("gnubg:ply=0", "pubeval", 10, seed=4)
    assert not res.illegal and res.games == 10


def test_gnubg_player_agrees_with_gnubg_on_its_choice():
    g = pytest.importorskip("gnubg_nn")
    from bgnet.formats import board_from_gnubg, board_to_gnubg

    player = GnubgPlayer(ply=0)
    batch = _roll_batch([STARTING.board] * 3, [[3, 1], [6, 5], [4, 4]])
    rows = player.choose(batch, np.zeros(3, dtype=np.int64))
    for i, (d1, d2) in enumerate([(3, 1), (6, 5), (4, 4)]):
        key = g.best_move(board_to_gnubg(STARTING), d1, d2, n=0, b=1)[1]
        want = board_from_gnubg([list(s) for s in g.board_from_position_key(key)])
        assert batch.offsets[i] <= rows[i] < batch.offsets[i + 1]
        assert np.array_equal(batch.positions[rows[i]], want)


def test_gnubg_player_without_gnubg_nn_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)  # import gnubg_nn now raises ImportError
    with pytest.raises(PlayerError, match=r"pip install 'bgnet\[gnubg\]'"):
        make_player("gnubg:ply=1")


def test_net_player_at_ply_0_is_the_evaluators_choice():
    player = _tiny_net_player()
    batch = _roll_batch([STARTING.board] * 2, [[3, 1], [6, 6]])
    assert np.array_equal(player.choose(batch, np.zeros(2)), player.evaluator.choose(batch))


def test_net_player_plays_at_its_ply_and_the_ply_is_bounded():
    class Recorder:
        def choose(self, batch, player=None, ply=0):
            self.ply = ply
            return np.zeros(len(batch.offsets) - 1, dtype=np.int64)

    ev = Recorder()
    NetPlayer(ev, ply=2).choose(_roll_batch(STARTING.board, [3, 1]), np.zeros(1))
    assert ev.ply == 2
    for bad in (-1, MAX_PLY + 1, 9):
        with pytest.raises(PlayerError, match=f"ply must be 0 to {MAX_PLY}"):
            NetPlayer(ev, ply=bad)
    with pytest.raises(PlayerError, match=f"ply must be 0 to {MAX_PLY}, got 9"):
        make_player("bgnet:ply=9")


def test_random_player_is_a_function_of_position_and_dice():
    boards = [STARTING.board] * 4
    dice = [[3, 1], [6, 5], [3, 1], [4, 4]]
    batch = _roll_batch(boards, dice)
    rows = RandomPlayer(seed=1).choose(batch, np.zeros(4))
    lo = batch.offsets[:-1]
    assert rows[0] - lo[0] == rows[2] - lo[2]
    assert ((rows >= lo) & (rows < batch.offsets[1:])).all()
    alone = RandomPlayer(seed=1).choose(_roll_batch(boards[1], dice[1]), np.zeros(1))
    assert alone[0] == rows[1] - lo[1]
    picks = {int(RandomPlayer(seed=s).choose(batch, np.zeros(4))[0]) for s in range(30)}
    assert len(picks) > 3


def test_player_specs():
    assert make_player("pubeval").name == "pubeval"
    assert isinstance(make_player("random:seed=3"), RandomPlayer)
    assert make_player("random:seed=3").seed == 3
    with pytest.raises(PlayerError, match="unknown player 'xg'"):
        make_player("xg")
    with pytest.raises(PlayerError, match="bad option 'depth=2' for player bgnet"):
        make_player("bgnet:depth=2")
    with pytest.raises(PlayerError, match="must be an integer"):
        make_player("gnubg:ply=two")
    with pytest.raises(BgnetError, match="no checkpoint file"):
        make_player("bgnet:checkpoint=/nonexistent/net.pt")
    assert supports_cube(PubevalPlayer()) and supports_cube(RandomPlayer())
    assert not supports_cube(HumanPlayer(io.StringIO(), io.StringIO()))


def test_a_device_that_is_none_or_missing_is_one_clear_error_everywhere(tmp_path, capsys):
    import torch

    from bgnet.cli import main as bgnet
    from bgnet.errors import DeviceError
    from bgnet.evaluator import NetEvaluator
    from bgnet.network import pick_device

    assert pick_device("cpu") == torch.device("cpu")
    assert pick_device("auto").type == ("cuda" if torch.cuda.is_available() else "cpu")
    for name in ("tpu", "cuda:x", "cuda:01", "CPU", ""):
        with pytest.raises(DeviceError, match=f"--flag must be auto, cpu, cuda or cuda:N, not {name!r}"):
            pick_device(name, "--flag")
    with pytest.raises(PlayerError, match="option device of player bgnet must be auto, cpu, cuda or cuda:N"):
        make_player("bgnet:device=xyz")
    with pytest.raises(DeviceError, match="device must be"):
        NetEvaluator.from_checkpoint(tmp_path / "absent.pt", device="gpu")  # the device before the file
    missing = "cuda:99" if torch.cuda.is_available() else "cuda"
    with pytest.raises(DeviceError, match=f"device {missing}: "):
        pick_device(missing)
    capsys.readouterr()
    assert bgnet(["bench", "play", "--a", f"bgnet:device={missing}", "--b", "pubeval", "--games", "2"]) != 0
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"option device of player bgnet {missing}: " in err, err


def test_a_gpu_index_the_machine_lacks_is_refused_as_written(monkeypatch):
    import torch

    from bgnet.errors import DeviceError
    from bgnet.network import pick_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)  # a machine with one GPU
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    assert pick_device("cuda") == torch.device("cuda")
    assert pick_device("cuda:0") == torch.device("cuda:0")
    for name in ("cuda:1", "cuda:256", "cuda:9999"):  # torch would read the last two as cuda:0, cuda:15
        with pytest.raises(DeviceError, match=f"device {name}: this machine has 1 GPU"):
            pick_device(name)


def test_gnubg_spec_checks_the_ply():
    pytest.importorskip("gnubg_nn")
    assert make_player("gnubg:ply=1").name == "gnubg:ply=1"
    with pytest.raises(PlayerError, match="ply 0, 1 or 2"):
        make_player("gnubg:ply=3")


def test_human_player_reads_and_checks_plays():
    batch = _roll_batch([STARTING.board], [[3, 1]])
    out = io.StringIO()
    human = HumanPlayer(io.StringIO("junk\n13/9 6/5\n?\n6/5 8/5\n"), out)
    row = human.choose(batch, np.zeros(1))[0]
    assert np.array_equal(batch.positions[row], parse_play(STARTING.board, (3, 1), "8/5 6/5").position.board)
    text = out.getvalue()
    assert text.count("Your play") == 4 and "Legal plays: " in text
    assert "'junk' is not a checker move" in text
    with pytest.raises(PlayerError, match="input ended"):
        HumanPlayer(io.StringIO(""), io.StringIO()).choose(batch, np.zeros(1))


# --------------------------------------------------------------------------
# bgnet bench play
# --------------------------------------------------------------------------


def _run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_bench_play_json(capsys):
    code, out, _ = _run(
        ["bench", "play", "--a", "pubeval", "--b", "random", "--games", "20", "--json"], capsys
    )
    assert code == 0
    obj = json.loads(out)
    for key in ("games", "ppg", "ci95", "win_rate"):
        assert key in obj
    assert obj["games"] == 20 and obj["illegal_plays"] == 0
    code, out2, _ = _run(
        ["bench", "play", "--a", "pubeval", "--b", "random", "--games", "20", "--json"], capsys
    )
    assert json.loads(out2)["results"] == obj["results"]


def test_bench_play_text(capsys):
    code, out, _ = _run(
        ["bench", "play", "--a", "random:seed=1", "--b", "random:seed=2", "--games", "4"], capsys
    )
    assert code == 0 and "points per game" in out and "games/s" in out


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--cube", "--jobs", "2"], "use --jobs 1"),
        (["--match", "0"], "1 or more points"),
        (["--save", "x.mat"], "--save needs --cube or --match"),
        (["--cube", "--a", "human"], "takes no cube decisions"),
        (["--games", "5"], "even"),
        (["--a", "nobody"], "unknown player"),
        (["--luck", "no-such-network.pt"], "--luck: no network file at no-such-network.pt"),
        (["--luck", "--cube"], "--luck is for cubeless backgammon"),
        (["--luck", "--variant", "portes"], "--luck is for cubeless backgammon"),
    ],
)
def test_bench_play_refuses_what_it_cannot_do(capsys, flags, message):
    code, _, err = _run(["bench", "play", "--b", "random", *flags], capsys)
    assert code == 2 and message in err


def test_register_returns_the_bench_parser():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    assert bench.register(sub).prog.endswith("bench")


# --------------------------------------------------------------------------
# Cubeful money games and matches
# --------------------------------------------------------------------------


class _CubePubeval(PubevalPlayer):
    """pubeval's plays with a fixed cube policy."""

    def __init__(self, name: str, doubles: bool, takes: bool) -> None:
        super().__init__(name)
        self.doubles, self.takes = doubles, takes

    def double(self, boards, state):
        return np.full(len(boards), self.doubles)

    def take(self, boards, state):
        return np.full(len(boards), self.takes)


def _actions(result):
    return [[(a.player, a.kind, a.dice, a.steps) for a in g.actions] for m in result.matches for g in m.games]


def test_a_cubeful_money_session_is_reproducible_with_the_same_seed():
    one = arena.play_cubeful("pubeval", "random:seed=3", 20, seed=5, slots=64)
    two = arena.play_cubeful(PubevalPlayer(), RandomPlayer(seed=3), 20, seed=5, slots=3)
    assert np.array_equal(one.points, two.points) and _actions(one) == _actions(two)
    assert one.cube_stats()["doubles"] > 0
    other = arena.play_cubeful("pubeval", "random:seed=3", 20, seed=6)
    assert _actions(other) != _actions(one)


def test_cubeful_points_are_multiples_of_the_cube():
    res = arena.play_cubeful(_tiny_net_player(), RandomPlayer(seed=1), 30, seed=3)
    assert res.count == 30 and not res.illegal
    for m, pts in zip(res.matches, res.points, strict=True):
        (g,) = m.games
        assert g.over and abs(pts) == g.points and g.points % g.cube.value == 0
        assert g.points // g.cube.value in (1, 2, 3)
        assert (pts > 0) == (g.winner == 0)
        if g.result == "drop":
            assert g.points == g.cube.value


def test_a_player_that_never_takes_loses_the_cube_value_each_time_it_is_doubled():
    doubler = _CubePubeval("doubler", doubles=True, takes=True)
    dropper = _CubePubeval("dropper", doubles=True, takes=False)
    res = arena.play_cubeful(doubler, dropper, 20, seed=7)
    cubes = set()
    for m, pts in zip(res.matches, res.points, strict=True):
        (g,) = m.games
        offered = [a for a in g.actions if a.kind == "double" and a.player == 0]
        assert len(offered) == 1 and g.actions[-1].kind == "drop" and g.result == "drop"
        assert pts == g.cube.value == offered[0].value // 2
        cubes.add(g.cube.value)
    assert cubes == {1, 2}  # dropped at once, or after the dropper's own double was taken


def test_a_three_point_match_has_its_crawford_game():
    res = arena.play_cubeful("pubeval", "pubeval", 20, seed=4, length=3)  # no doubles: cube-1 games
    crawfords = 0
    for m in res.matches:
        assert max(m.score) >= 3 and m.over
        seen = False
        for g in m.games:
            should = not seen and (2 in g.score) and max(g.score) < 3 and g.score != (2, 2)
            assert g.crawford == should, (g.score, [x.score for x in m.games])
            if g.crawford:
                seen = True
                crawfords += 1
                assert not any(a.kind == "double" for a in g.actions)
            assert g.post_crawford == (seen and not g.crawford)
    assert crawfords > 0
    assert res.metric == "match_win_rate" and 0 <= res.headline()[0] <= 1


def test_cube_with_pubeval_follows_its_documented_policy(capsys):
    res = arena.play_cubeful("pubeval", "random:seed=9", 20, seed=1)
    acts = [a for m in res.matches for g in m.games for a in g.actions]
    assert not [a for a in acts if a.kind == "double" and a.player == 0]  # pubeval never doubles
    assert [a for a in acts if a.kind == "double"]  # random does
    assert not [a for a in acts if a.kind == "drop" and a.player == 0]  # and pubeval always takes
    code, out, _ = _run(
        ["bench", "play", "--a", "pubeval", "--b", "random", "--games", "10", "--cube", "--json"], capsys
    )
    obj = json.loads(out)
    assert code == 0 and obj["metric"] == "ppg" and obj["cube"] and obj["games"] == 10
    code, out, _ = _run(
        ["bench", "play", "--a", "pubeval", "--b", "random", "--games", "4", "--match", "3"], capsys
    )
    assert code == 0 and "match win rate" in out and "3-point matches" in out


def test_a_player_without_cube_decisions_is_refused():
    with pytest.raises(arena.ArenaError, match="takes no cube decisions"):
        arena.play_cubeful(PubevalPlayer(), HumanPlayer(io.StringIO(), io.StringIO()), 2)
    with pytest.raises(arena.ArenaError, match="even"):
        arena.play_cubeful("pubeval", "random", 3)


@pytest.mark.parametrize("length", [0, 3])
def test_saved_games_read_back_and_import_into_gnubg(tmp_path, capsys, length):
    from bgnet.matfile import read_mat

    path = tmp_path / "games.mat"
    flags = ["--match", str(length)] if length else ["--cube"]
    games = "2" if length else "6"
    code, out, _ = _run(
        [
            "bench",
            "play",
            "--a",
            "pubeval",
            "--b",
            "random",
            "--games",
            games,
            *flags,
            "--json",
            "--save",
            str(path),
        ],
        capsys,
    )
    assert code == 0
    files = json.loads(out)["saved"]
    assert len(files) == (2 if length else 1)
    ours = read_mat(files[0])
    assert all(g.over for g in ours.games) and (ours.over or not length)
    if not length:
        assert len(ours.games) == 6 and any(a.kind == "double" for g in ours.games for a in g.actions)
    import os

    gnubg = "/usr/games/gnubg"
    if not (os.path.isfile(gnubg) and os.access(gnubg, os.X_OK)):
        pytest.skip("GNU Backgammon is not installed (/usr/games/gnubg): the import check needs it")
    from tests.test_gnubg_interop import _results, final_score, run_gnubg

    back = tmp_path / "back.mat"
    output = run_gnubg(f"import mat {files[0]}\nshow score\nexport match mat {back}\n")
    for bad in ("WARNING", "Warning", "Invalid", "Unrecognised", "not a valid"):
        assert bad not in output, output[-3000:]
    assert final_score(output)[:3] == (len(ours.games), ours.score[0], ours.score[1])
    assert _results(read_mat(back)) == _results(ours)


# --- luck-adjusted results ---------------------------------------------------------------------------


def roll_table(value: np.ndarray):
    """A stand-in for ``best_of_rolls``: every board's value after roll ``k`` is ``value[k]`` to its mover."""

    def best_of_rolls(ev, boards):
        out = np.zeros((len(boards), 21, 5))
        out[:, :, 0] = (np.asarray(value)[None, :] + 1) / 2  # equity 2w - 1 = value
        return out, None, None

    return best_of_rolls


def test_game_luck_by_hand_with_a_reference_that_values_the_rolls_only(monkeypatch):
    from bgnet.dice import ALL_ROLLS, ROLL_WEIGHTS
    from bgnet.lockstep import FinishedGame

    value = np.linspace(-0.5, 0.5, 21)  # roll k is worth value[k] to its mover, wherever it is rolled
    index = {(d.high, d.low): k for k, d in enumerate(ALL_ROLLS)}
    later = np.array([[6, 6], [2, 5], [1, 1]], dtype=np.int8)

    def dice(game):
        return ((3, 1) if game == 0 else (1, 3)), later

    boards = np.zeros((4, 26), dtype=np.int8)
    # Player 1 opens with 3-1 (its die is 3), then player 0 rolls 6-6, player 1 5-2, player 0 1-1.
    g = FinishedGame(boards, boards[0], points=1, first=1, game=1, plies=4)
    opening_mean = value[[not d.is_double for d in ALL_ROLLS]].mean()
    mean = float(value @ ROLL_WEIGHTS)
    by_hand = (
        -(value[index[3, 1]] - opening_mean)
        + (value[index[6, 6]] - mean)
        - (value[index[5, 2]] - mean)
        + (value[index[1, 1]] - mean)
    )
    monkeypatch.setattr("bgnet.rollout.best_of_rolls", roll_table(value))
    (got,) = arena.game_luck(None, [g], dice)
    assert got == pytest.approx(by_hand, abs=1e-6)
    # A reference that sees no difference between the rolls finds no luck.
    monkeypatch.setattr("bgnet.rollout.best_of_rolls", roll_table(np.full(21, 0.3)))
    assert arena.game_luck(None, [g], dice)[0] == pytest.approx(0, abs=1e-6)


def test_luck_adjusted_points_are_close_to_the_raw_ones_with_a_narrower_interval():
    # The stage 1 network (225-128) as the reference: cheap, and it follows the games well enough.
    stage1 = Path(__file__).resolve().parent.parent / "checkpoints" / "runs" / "phase-td.pt"
    result = arena.play("bgnet", "pubeval", 100, seed=5, luck=str(stage1))
    assert result.luck is not None and result.luck.shape == (100,)
    ppg, ci = result.adjusted()
    assert ci < result.ci95 / 1.5  # the luck taken out: a sign or roll slip would widen it instead
    # Both estimate the same ppg: they differ by the mean luck, whose every term has mean zero.  Bounded by
    # twice its own 95% interval (about four standard errors: a fair draw misses it once in 15,000), not by
    # the raw interval, which a fair draw of this size misses one time in twenty or so.
    luck, luck_ci = paired_ci(result.luck)
    assert ppg == pytest.approx(result.ppg - luck)
    assert abs(luck) < 2 * luck_ci
    assert result.to_json()["luck_adjusted"]["ci95"] == pytest.approx(ci, abs=1e-6)
    with pytest.raises(arena.ArenaError, match="variants"):
        arena.play("random", "random", 2, luck="", variant=variant("portes"))


def test_luck_is_valued_as_games_finish_and_a_stop_keeps_the_finished_pairs_luck(monkeypatch):
    # A match values the luck of its finished games in batches as they finish (before: all at the end, so
    # a Ctrl-C near the end of a long match waited minutes for it); the batches change no game's luck.
    stage1 = Path(__file__).resolve().parent.parent / "checkpoints" / "runs" / "phase-td.pt"
    ref = arena.luck_reference(str(stage1))
    a, b = arena.make_player("pubeval"), arena.make_player("random")
    monkeypatch.setattr(arena, "_LUCK_GAMES", 10**9)
    *_, whole = arena._play_range(a, b, 0, 24, 3, 8, None, luck=ref)
    valued = []
    real_game_luck = arena.game_luck

    def counted(reference, games, dice):
        valued.append(len(games))
        return real_game_luck(reference, games, dice)

    monkeypatch.setattr(arena, "game_luck", counted)
    monkeypatch.setattr(arena, "_LUCK_GAMES", 5)
    *_, batched = arena._play_range(a, b, 0, 24, 3, 8, None, luck=ref)
    assert len(valued) > 2 and sum(valued) == 24
    np.testing.assert_allclose(batched, whole, atol=1e-6)

    # A stop part way: the pairs finished by then come back, each with its luck in the whole run.
    class Stopping:
        name = "pubeval"

        def __init__(self) -> None:
            self.calls = 0

        def choose(self, batch, player):
            self.calls += 1
            if self.calls == 60:
                raise KeyboardInterrupt
            return a.choose(batch, player)

    valued.clear()
    got = arena._play_range(Stopping(), b, 0, 24, 3, 8, None, interruptible=True, luck=ref)
    points, plies, _, kept = got
    assert 0 < len(points) < 24 and len(kept) == len(points)
    assert valued and valued[-1] < 5  # at the stop, what was left of one batch at most
    full_points, full_plies, _, _ = arena._play_range(a, b, 0, 24, 3, 8, None)

    def among_the_whole_runs(points, plies, luck) -> bool:
        return all(
            np.any((full_points == p) & (full_plies == n) & (np.abs(whole - x) < 1e-6))
            for p, n, x in zip(points, plies, luck, strict=True)
        )

    assert among_the_whole_runs(points, plies, kept)

    # A stop while a batch's luck is valued: that batch is valued again at the stop, for the pairs kept.
    def stopped_once(reference, games, dice):
        if len(valued) == 1:
            valued.append(-1)
            raise KeyboardInterrupt
        valued.append(len(games))
        return real_game_luck(reference, games, dice)

    valued.clear()
    monkeypatch.setattr(arena, "game_luck", stopped_once)
    points, plies, _, kept = arena._play_range(a, b, 0, 24, 3, 8, None, interruptible=True, luck=ref)
    assert valued[1] == -1 and len(valued) == 3 and 0 < len(points) < 24
    assert among_the_whole_runs(points, plies, kept)
