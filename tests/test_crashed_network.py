"""The crashed network: a third phase network for gnubg's crashed positions, trained, stored and shipped."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from boards import TINY_RUN, Marker, pos

from bgnet import checkpoint
from bgnet.encoding import EXTENDED, RACE, TESAURO_198
from bgnet.evaluator import NetEvaluator
from bgnet.network import ValueNet
from bgnet.position import STARTING
from bgnet.pubeval import crashed_sides, is_crashed, is_race
from bgnet.variants import variant
from bgnet_training import races
from bgnet_training.config import make_config
from bgnet_training.train import Trainer

TINY = dict(TINY_RUN, race_hidden=(6,), games=8, checkpoint_every=8)

RACE_BOARD = pos({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 9: 5})
# crashed: nine of our checkers on the ace point, two back (gnubg: n - a <= 6 with n = 15, a = 9)
CRASHED = [
    pos({1: 9, 2: 2, 3: 2, 24: 2}, {20: 2, 13: 5, 8: 3, 6: 5}),
    pos({1: 10, 2: 3, 24: 2}, {20: 2, 13: 5, 8: 3, 6: 5}),
    pos({1: 9, 3: 2, 4: 2, 20: 2}, {23: 2, 12: 4, 8: 4, 6: 5}),
    pos({20: 2, 13: 5, 8: 3, 6: 5}, {1: 9, 2: 2, 3: 2, 24: 2}),  # the other side crashed
]


def crashed_boards() -> np.ndarray:
    boards = np.stack([p.board for p in CRASHED])
    assert is_crashed(boards).all()
    return boards


def test_crashed_positions_go_to_the_crashed_network_races_to_the_race_one_and_the_rest_to_main():
    boards = np.concatenate([crashed_boards(), np.stack([STARTING.board, RACE_BOARD.board])])
    assert is_race(boards).tolist() == [False] * 5 + [True]
    main = Marker(EXTENDED.width, 0.25)
    race, crashed = (Marker(RACE.width, 0.75), RACE), (Marker(EXTENDED.width, 0.5), EXTENDED)
    ev = NetEvaluator(main, EXTENDED, race=race, crashed=crashed)
    assert list(ev.networks()) == ["main", "race", "crashed"]
    np.testing.assert_allclose(ev.probabilities(boards)[:, 0], [0.5] * 4 + [0.25, 0.75])
    assert ev.phases(boards).tolist() == [2] * 4 + [0, 1]
    no_race = NetEvaluator(main, EXTENDED, crashed=crashed)
    np.testing.assert_allclose(no_race.probabilities(boards)[:, 0], [0.5] * 4 + [0.25, 0.25])
    assert no_race.phases(boards).tolist() == [1] * 4 + [0, 0]
    # at 1-ply the replies are valued by their own phase's network: with nine checkers on our ace point
    # every reply is crashed still (0.5 for the opponent), where the main network would give 0.25
    np.testing.assert_allclose(ev.probabilities(boards[:1], ply=1)[0, 0], 0.5)
    np.testing.assert_allclose(NetEvaluator(main, EXTENDED).probabilities(boards[:1], ply=1)[0, 0], 0.75)
    with pytest.raises(ValueError, match="phase networks value backgammon boards"):
        NetEvaluator(main, EXTENDED, crashed=crashed, variant=variant("portes"))


def test_a_crashed_off_network_values_the_crashed_positions_whose_crashed_side_is_off_roll():
    boards = np.concatenate([crashed_boards(), np.stack([STARTING.board, RACE_BOARD.board])])
    both = pos({1: 9, 2: 2, 3: 2, 20: 2}, {1: 9, 2: 2, 3: 2, 20: 2}).board  # both sides crashed
    boards = np.concatenate([boards, both[None]])
    assert crashed_sides(boards).tolist() == [[True, False]] * 3 + [[False, True]] + [[False, False]] * 2 + [
        [True, True]
    ]
    main = Marker(EXTENDED.width, 0.25)
    race, crashed = (Marker(RACE.width, 0.75), RACE), (Marker(EXTENDED.width, 0.5), EXTENDED)
    off = (Marker(EXTENDED.width, 0.125), EXTENDED)
    ev = NetEvaluator(main, EXTENDED, race=race, crashed=crashed, crashed_off=off)
    assert list(ev.networks()) == ["main", "race", "crashed", "crashed_off"]
    # the fourth board's crashed side is the one off roll; where both are, the crashed network values it
    assert ev.phases(boards).tolist() == [2, 2, 2, 3, 0, 1, 2]
    np.testing.assert_allclose(ev.probabilities(boards)[:, 0], [0.5] * 3 + [0.125, 0.25, 0.75, 0.5])
    # at 1-ply the crashed side's own plays leave it off roll (the crashed_off network values them), its
    # opponent's leave it on roll (the crashed network)
    np.testing.assert_allclose(ev.probabilities(boards[:1], ply=1)[0, 0], 1 - 0.125)
    np.testing.assert_allclose(ev.probabilities(boards[3:4], ply=1)[0, 0], 1 - 0.5)
    with pytest.raises(ValueError, match="a crashed_off network needs a crashed network"):
        NetEvaluator(main, EXTENDED, race=race, crashed_off=off)


def test_a_replaced_evaluator_keeps_every_network_and_setting_but_the_ones_changed():
    import inspect

    from bgnet.evaluator import INNER_FILTERS
    from bgnet_training.train import low_precision

    boards = np.concatenate([crashed_boards(), np.stack([STARTING.board, RACE_BOARD.board])])
    main = Marker(EXTENDED.width, 0.25)
    race, crashed = (Marker(RACE.width, 0.75), RACE), (Marker(EXTENDED.width, 0.5), EXTENDED)
    off = (Marker(EXTENDED.width, 0.125), EXTENDED)
    filters = ((4, 0.08),)
    ev = NetEvaluator(main, EXTENDED, race=race, crashed=crashed, crashed_off=off, filters=filters)
    copy = ev.replaced()
    for name in inspect.signature(NetEvaluator).parameters:  # a constructor field the copy drops fails here
        mine = getattr(ev, name)
        theirs = getattr(copy, name)
        if name == "race_lookahead":  # rebuilt from the race network, not shared
            assert (theirs is None) == (mine is None), name
        else:
            assert theirs is mine or theirs == mine, name
    assert copy.filters == filters and copy.inner == tuple(INNER_FILTERS)
    np.testing.assert_allclose(copy.probabilities(boards), ev.probabilities(boards))
    other = (Marker(RACE.width, 0.625), RACE)
    swapped = ev.replaced(race=other)
    np.testing.assert_allclose(swapped.probabilities(boards)[:, 0], [0.5] * 3 + [0.125, 0.25, 0.625])
    # the bfloat16 screen of self-play and of screened labels is such a copy: its crashed_off network kept
    net = NetEvaluator(ValueNet(EXTENDED.width, (8,)), EXTENDED, crashed=crashed, crashed_off=off)
    screen = low_precision(net, torch.bfloat16)
    assert screen is not None and screen.crashed_off is off
    assert next(screen.model.parameters()).dtype == torch.bfloat16
    with pytest.raises(TypeError, match="no field colour"):
        ev.replaced(colour=1)


def test_a_checkpoint_names_a_bad_crashed_entry(tmp_path):
    trainer = Trainer(make_config(dict(TINY, crashed_hidden=(8,))), tmp_path, progress=False)
    state = trainer.checkpoint_state()
    assert checkpoint.phase_network_from(state, "crashed") is not None
    with pytest.raises(checkpoint.CheckpointError, match="its crashed network entry is not a network"):
        checkpoint.phase_network_from(state | {"crashed": [1, 2]}, "crashed", "x.pt")
    one_sided = checkpoint.read(checkpoint.DEFAULT)["race"]  # the shipped one-sided race network
    assert checkpoint.phase_network_from(state | {"race": one_sided}, "race") is not None
    with pytest.raises(checkpoint.CheckpointError, match="one-sided network can only be a race network"):
        checkpoint.phase_network_from(state | {"crashed": one_sided}, "crashed", "x.pt")
    portes = dict(TINY_RUN, name="portes", variant="portes", encoder="variant")
    variant_state = Trainer(make_config(portes), tmp_path, progress=False).checkpoint_state()
    variant_state["crashed"] = state["crashed"]
    with pytest.raises(checkpoint.CheckpointError, match="a portes network cannot have phase networks"):
        NetEvaluator.from_checkpoint(checkpoint.save(tmp_path / "v.pt", variant_state), bearoff=False)
    with pytest.raises(ValueError, match="no phase network called 'opening'"):
        checkpoint.phase_network_from(state, "opening")


def test_a_crashed_run_starts_from_the_main_network_trains_only_it_and_ships_beside_another_main(tmp_path):
    from bgnet_training.ship import main as ship

    init = Trainer(make_config(TINY), tmp_path, progress=False)
    init.run()
    assert "crashed" not in init.evaluator.networks()
    starts = tmp_path / "crashed.npz"
    races.save(starts, crashed_boards(), "test", 4, kind="crashed")
    cfg = dict(
        TINY,
        name="crashed",
        games=16,
        seed=5,
        init=str(init.latest_checkpoint()),
        crashed_hidden=TINY["hidden"],
        train_nets="crashed",
        start=str(starts),
    )
    run = Trainer(make_config(cfg), tmp_path, progress=False)
    boards = crashed_boards()
    others = np.stack([STARTING.board, RACE_BOARD.board])
    crashed_model, encoder = run.evaluator.crashed
    assert encoder is TESAURO_198  # the main network's encoder (crashed_encoder empty)
    # it starts as a copy of the init's main network: the same values of crashed positions
    main_of_init = ValueNet(TESAURO_198.width, TINY["hidden"])
    main_of_init.load_state_dict(init.evaluator.model.state_dict())
    with torch.no_grad():
        want = main_of_init(torch.from_numpy(TESAURO_198.encode(boards))).numpy()
    np.testing.assert_allclose(run.evaluator.probabilities(boards), want, atol=1e-6)
    frozen = {n: [p.clone() for p in m.parameters()] for n, (m, _) in run.evaluator.networks().items()}
    run.run()
    for name, (model, _) in run.evaluator.networks().items():
        same = all(torch.equal(a, b) for a, b in zip(frozen[name], model.parameters(), strict=True))
        assert same == (name != "crashed"), name
    assert not np.allclose(run.evaluator.probabilities(boards), want, atol=1e-4)
    # its checkpoint loads with the crashed network routed
    loaded = NetEvaluator.from_checkpoint(run.latest_checkpoint(), bearoff=False)
    assert loaded.crashed is not None
    np.testing.assert_allclose(loaded.probabilities(boards), run.evaluator.probabilities(boards), atol=1e-6)
    # shipped beside the init's networks: crashed positions by the crashed run, the rest as before
    out = tmp_path / "shipped.pt"
    assert ship([str(init.latest_checkpoint()), str(out), "--crashed", str(run.latest_checkpoint())]) == 0
    shipped = NetEvaluator.from_checkpoint(out, bearoff=False)
    np.testing.assert_allclose(shipped.probabilities(boards), run.evaluator.probabilities(boards), atol=1e-6)
    np.testing.assert_allclose(shipped.probabilities(others), init.evaluator.probabilities(others), atol=1e-6)
    state = checkpoint.read(out)
    assert "optimizer" not in state["crashed"]
    assert state["crashed_source"]["run"] == "crashed"
    assert state["crashed_source"]["counters"]["games"] == 16
    assert ship([str(init.latest_checkpoint()), str(out), "--crashed", str(init.latest_checkpoint())]) == 2
    # a new run from a checkpoint that has a crashed network starts from that one, not from its main network
    again = Trainer(
        make_config(dict(cfg, name="again", init=str(run.latest_checkpoint()))), tmp_path, progress=False
    )
    np.testing.assert_allclose(
        again.evaluator.probabilities(boards), run.evaluator.probabilities(boards), atol=1e-6
    )
    # one that cannot hold the init's main network says which network it tried
    narrow = dict(cfg, name="narrow", crashed_hidden=(4,))
    with pytest.raises(
        checkpoint.CheckpointError, match=r"its main network \(where the crashed network starts\)"
    ):
        Trainer(make_config(narrow), tmp_path, progress=False)


def test_a_shipped_crashed_ensemble_averages_the_crashed_network_with_other_main_networks(tmp_path, capsys):
    from bgnet_training.ship import main as ship

    first = Trainer(make_config(dict(TINY, crashed_hidden=(8,))), tmp_path, progress=False)
    first.run()
    other = Trainer(make_config(dict(TINY, name="other", seed=5, hidden=(6,))), tmp_path, progress=False)
    other.run()
    assert "crashed" not in other.evaluator.networks()
    out = tmp_path / "shipped.pt"
    argv = [str(first.latest_checkpoint()), str(out), "--crashed-ensemble", str(other.latest_checkpoint())]
    assert ship(argv) == 0
    shipped = NetEvaluator.from_checkpoint(out, bearoff=False)
    boards = crashed_boards()
    # crashed positions: the mean of the crashed network's and the other run's main network's probabilities
    mean = (first.evaluator.probabilities(boards) + other.evaluator.probabilities(boards)) / 2
    np.testing.assert_allclose(shipped.probabilities(boards), mean, atol=1e-6)
    assert not np.allclose(mean, first.evaluator.probabilities(boards), atol=1e-4)
    # the rest as before: the main and race networks are the source's
    others = np.stack([STARTING.board, RACE_BOARD.board])
    np.testing.assert_allclose(
        shipped.probabilities(others), first.evaluator.probabilities(others), atol=1e-6
    )
    entry = checkpoint.read(out)["crashed"]
    assert [m["run"] for m in entry["ensemble_sources"]] == ["tiny", "other"]
    assert entry["ensemble_sources"][1]["counters"]["games"] == 8
    # shipping the file again with --crashed keeps the ensemble as it is
    again = tmp_path / "again.pt"
    assert ship([str(other.latest_checkpoint()), str(again), "--crashed", str(out)]) == 0
    np.testing.assert_allclose(
        NetEvaluator.from_checkpoint(again, bearoff=False).probabilities(boards), mean, atol=1e-6
    )
    # a source without a crashed network has nothing to ensemble: one line, exit 2
    capsys.readouterr()
    assert ship([str(other.latest_checkpoint()), str(again), "--crashed-ensemble", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no crashed network to ensemble" in err
    # an ensemble is evaluated, never trained: a crashed run refuses it as its start
    with pytest.raises(checkpoint.CheckpointError, match="ensemble"):
        Trainer(
            make_config(dict(TINY, name="refit", crashed_hidden=(8,), train_nets="crashed", init=str(out))),
            tmp_path,
            progress=False,
        )


def test_a_shipped_crashed_off_network_is_another_files_crashed_one_and_is_kept_when_shipped_again(
    tmp_path, capsys
):
    from bgnet_training.ship import main as ship

    first = Trainer(make_config(dict(TINY, crashed_hidden=(8,))), tmp_path, progress=False)
    first.run()
    other = Trainer(
        make_config(dict(TINY, name="other", seed=5, crashed_hidden=(8,))), tmp_path, progress=False
    )
    other.run()
    out = tmp_path / "shipped.pt"
    assert (
        ship([str(first.latest_checkpoint()), str(out), "--crashed-off", str(other.latest_checkpoint())]) == 0
    )
    shipped = NetEvaluator.from_checkpoint(out, bearoff=False)
    assert list(shipped.networks()) == ["main", "race", "crashed", "crashed_off"]
    boards = np.concatenate([crashed_boards(), np.stack([STARTING.board, RACE_BOARD.board])])
    own, theirs = first.evaluator.probabilities(boards), other.evaluator.probabilities(boards)
    assert not np.allclose(own[3], theirs[3], atol=1e-4)
    # the board whose crashed side is off roll by the other run's crashed network, the rest as the source's
    want = np.concatenate([own[:3], theirs[3:4], own[4:]])
    np.testing.assert_allclose(shipped.probabilities(boards), want, atol=1e-6)
    assert checkpoint.read(out)["crashed_off_source"]["run"] == "other"
    # shipped again from the file: its crashed_off network is taken, not its crashed one
    again = tmp_path / "again.pt"
    assert ship([str(first.latest_checkpoint()), str(again), "--crashed-off", str(out)]) == 0
    np.testing.assert_allclose(
        NetEvaluator.from_checkpoint(again, bearoff=False).probabilities(boards), want, atol=1e-6
    )
    # given twice: their ensemble, the mean of the two crashed networks' probabilities
    mean = tmp_path / "mean.pt"
    argv = [str(first.latest_checkpoint()), str(mean), "--crashed-off", str(first.latest_checkpoint())]
    assert ship([*argv, "--crashed-off", str(out)]) == 0
    averaged = NetEvaluator.from_checkpoint(mean, bearoff=False).probabilities(boards)
    np.testing.assert_allclose(averaged[3], (own[3] + theirs[3]) / 2, atol=1e-6)
    np.testing.assert_allclose(np.delete(averaged, 3, axis=0), np.delete(want, 3, axis=0), atol=1e-6)
    entry = checkpoint.read(mean)["crashed_off"]
    assert [m["run"] for m in entry["ensemble_sources"]] == ["tiny", "other"]
    # a file without a crashed network lends none; a crashed_off network needs a crashed one: one line each
    plain = Trainer(make_config(dict(TINY, name="plain")), tmp_path, progress=False)
    plain.run()
    capsys.readouterr()
    assert (
        ship([str(first.latest_checkpoint()), str(again), "--crashed-off", str(plain.latest_checkpoint())])
        == 2
    )
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has no crashed network" in err
    assert ship([str(plain.latest_checkpoint()), str(again), "--crashed-off", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "a crashed_off network needs a crashed network" in err
    lone = checkpoint.save(tmp_path / "lone.pt", checkpoint.read(out) | {"crashed": None})
    with pytest.raises(checkpoint.CheckpointError, match="crashed_off network has no crashed network"):
        NetEvaluator.from_checkpoint(lone, bearoff=False)


def test_the_shipped_networks_route_crashed_positions_to_their_crashed_networks():
    ev = NetEvaluator.from_checkpoint()
    assert list(ev.networks()) == ["main", "race", "crashed", "crashed_off"]
    boards = crashed_boards()  # the last one's crashed side is off roll
    assert ev.phases(boards).tolist() == [2, 2, 2, 3]
    model, encoder = ev.crashed
    off, off_encoder = ev.crashed_off
    with torch.no_grad():
        want = model(torch.from_numpy(encoder.encode(boards))).numpy()
        want[3] = off(torch.from_numpy(off_encoder.encode(boards[3:]))).numpy()[0]
        own = model(torch.from_numpy(encoder.encode(boards[3:]))).numpy()[0]
        assert not np.allclose(own, want[3], atol=1e-3)
    np.testing.assert_allclose(ev.probabilities(boards), want, atol=1e-6)
    main, main_encoder = ev.networks()["main"]
    with torch.no_grad():
        assert not np.allclose(main(torch.from_numpy(main_encoder.encode(boards))).numpy(), want, atol=1e-3)


def test_crashed_starts_files_hold_crashed_positions_only(tmp_path):
    f = tmp_path / "c.npz"
    races.save(f, crashed_boards(), "test", 4, kind="crashed")
    np.testing.assert_array_equal(races.load(f), crashed_boards())
    races.save(f, crashed_boards(), "test", 4)  # kind race
    with pytest.raises(races.StartsError, match="board 0 is not a race position"):
        races.load(f)
    races.save(f, np.stack([STARTING.board, *crashed_boards()]), "test", 4, kind="crashed")
    with pytest.raises(races.StartsError, match="board 0 is not a crashed position"):
        races.load(f)
    illegal = crashed_boards()
    illegal[1, 0] = 1  # one of ours on the opponent's bar
    races.save(f, illegal, "test", 4, kind="crashed")
    with pytest.raises(races.StartsError, match="board 1 is not a crashed position .* .a legal board."):
        races.load(f)
    races.save(f, crashed_boards(), "test", 4, kind="opening")
    with pytest.raises(races.StartsError, match="unknown kind of starts 'opening'"):
        races.load(f)
