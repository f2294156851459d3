"""A run whose races are valued by another file's race network, frozen (the config's ``race_network``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from boards import TINY_RUN, pos, tiny_checkpoint

from bgnet import checkpoint
from bgnet.evaluator import NetEvaluator
from bgnet.network import OneSidedRaceNet
from bgnet.pubeval import is_race
from bgnet_training.average import trained_networks
from bgnet_training.config import ConfigError, make_config
from bgnet_training.train import Trainer, build_evaluator, network_weights

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "bgnet" / "networks" / "bgnet-default.pt"

FROZEN = dict(
    TINY_RUN,
    name="frozen",
    race_network=str(SHIPPED),
    train_nets="main",
    target="ply1",
    bearoff=True,
    games=16,
    checkpoint_every=8,
    average=100,
)

RACE = pos({6: 5, 5: 5, 9: 5}, {6: 5, 5: 5, 4: 3, 10: 2})
# contact: our last checker on our 22-point, behind their checkers (their 4-6 points are our 19-21); a
# 4 or more runs it past them into a race
BREAKING = pos({22: 1, 6: 5, 5: 5, 4: 4}, {6: 5, 5: 5, 4: 5})


def test_races_are_valued_and_labelled_by_the_frozen_race_network_with_its_search(tmp_path):
    run = Trainer(make_config(FROZEN), tmp_path, progress=False)
    ev = run.evaluator
    shipped = NetEvaluator.from_checkpoint(SHIPPED)
    assert isinstance(ev.race[0], OneSidedRaceNet) and ev.race_lookahead is not None
    assert set(run.optimizers) == {"main"} and set(trained_networks(ev)) == {"main"}
    race = RACE.board[None, :]
    assert is_race(race).all() and not is_race(BREAKING.board[None, :]).any()
    np.testing.assert_allclose(ev.probabilities(race), shipped.probabilities(race), atol=1e-6)
    # a 1-ply label of a position about to break contact values its race replies the same way
    same = NetEvaluator(ev.model, ev.encoder, race=shipped.race, bearoff=ev.bearoff, race_lookahead=True)
    unsearched = NetEvaluator(ev.model, ev.encoder, race=shipped.race, bearoff=ev.bearoff)
    without = NetEvaluator(ev.model, ev.encoder, bearoff=ev.bearoff)
    board = BREAKING.board[None, :]
    label = ev.probabilities(board, ply=1)
    np.testing.assert_allclose(label, same.probabilities(board, ply=1), atol=1e-6)
    assert not np.allclose(label, unsearched.probabilities(board, ply=1), atol=1e-4)
    assert not np.allclose(label, without.probabilities(board, ply=1), atol=1e-4)
    # the self-play policy's low-precision copy (which picks the labels' replies) searches races too
    from bgnet_training.train import SelfPlayChooser

    chooser = SelfPlayChooser(ev, 0.0, np.random.default_rng(0), torch.bfloat16)
    assert chooser.screen is not None and chooser.screen.race_lookahead is not None


def test_a_run_with_a_frozen_race_network_trains_only_main_resumes_and_ships_the_race_network(tmp_path):
    from bgnet_training.ship import main as ship

    run = Trainer(make_config(FROZEN), tmp_path, progress=False)
    before = {n: [p.clone() for p in m.parameters()] for n, (m, _) in run.evaluator.networks().items()}
    run.run()
    for name, (model, _) in run.evaluator.networks().items():
        same = all(torch.equal(a, b) for a, b in zip(before[name], model.parameters(), strict=True))
        assert same == (name == "race"), name
    state, mine = checkpoint.read(run.latest_checkpoint()), checkpoint.read(SHIPPED)
    assert set(state["average"]) == {"games", "since", "main"} and state["counters"]["positions"] > 0
    # the checkpoint keeps a copy of the race network played (no optimizer), so its file values races so
    assert "optimizer" not in state["race"] and state["race_source"] == mine["race_source"]
    race = RACE.board[None, :]
    np.testing.assert_allclose(
        NetEvaluator.from_checkpoint(run.latest_checkpoint()).probabilities(race),
        NetEvaluator.from_checkpoint(SHIPPED).probabilities(race),
        atol=1e-6,
    )
    # resumed with more games, it goes on with the same frozen race network
    again = Trainer(make_config(dict(FROZEN, games=24)), tmp_path, progress=False)
    assert again.resumed_from == run.latest_checkpoint()
    assert again.run().games >= 24
    kept = mine["race"]["model"]
    assert all(torch.equal(v, kept[k]) for k, v in again.evaluator.race[0].state_dict().items())
    # shipped, the file carries the race network it played with, and values races as that file does
    out = tmp_path / "shipped.pt"
    assert ship([str(again.latest_checkpoint()), str(out)]) == 0
    shipped = checkpoint.read(out)
    assert shipped["race_source"] == mine["race_source"] and "averaged" not in shipped["race"]
    np.testing.assert_allclose(
        NetEvaluator.from_checkpoint(out).probabilities(race),
        NetEvaluator.from_checkpoint(SHIPPED).probabilities(race),
        atol=1e-6,
    )


@pytest.mark.parametrize(
    "change, message",
    [
        (dict(race_hidden=(8,)), "'race_hidden': empty with race_network"),
        (dict(train_nets="all"), "'train_nets': main or crashed with race_network"),
        (dict(bearoff=False), "'bearoff': true with race_network"),
        (dict(start="race"), "'start': not race with race_network"),
        (dict(variant="portes", encoder="variant"), "'race_network': empty for portes"),
    ],
)
def test_bad_configs_with_a_race_network_are_one_clear_line(change, message):
    with pytest.raises(ConfigError, match=message):
        make_config(dict(FROZEN, **change))


def test_a_race_network_file_that_is_missing_or_has_none_is_named_and_leaves_no_run_behind(tmp_path):
    with pytest.raises(ConfigError, match=r"'race_network': .*nowhere\.pt"):
        Trainer(
            make_config(dict(FROZEN, race_network=str(tmp_path / "nowhere.pt"))), tmp_path, progress=False
        )
    assert not (tmp_path / "frozen").exists()  # the corrected config starts the run afresh
    plain = tiny_checkpoint(tmp_path / "plain.pt")
    with pytest.raises(ConfigError, match=r"'race_network': .*plain\.pt has no race network"):
        build_evaluator(make_config(dict(FROZEN, race_network=str(plain))))


@pytest.mark.slow  # starts a worker process (imports torch and numba: seconds)
def test_a_worker_loads_the_frozen_race_network_itself_and_gets_only_the_trained_weights(tmp_path):
    run = Trainer(make_config(dict(FROZEN, workers=1)), tmp_path, progress=False)
    st = run.run()
    assert st.games >= 16 and st.positions > 0 and run.nodes
    kept = checkpoint.read(SHIPPED)["race"]["model"]
    assert all(torch.equal(v, kept[k]) for k, v in run.evaluator.race[0].state_dict().items())
    assert set(network_weights(run.evaluator)) == {"main"}  # the workers get the trained weights only


def test_a_run_resumed_after_its_race_network_file_changed_stops_with_one_line(tmp_path):
    frozen = tmp_path / "race.pt"
    state = checkpoint.read(SHIPPED)
    checkpoint.save(frozen, state)
    cfg = dict(FROZEN, race_network=str(frozen), target="td", games=8, checkpoint_every=8)
    Trainer(make_config(cfg), tmp_path, progress=False).run()
    race = state["race"]["model"]
    first = next(k for k, v in race.items() if v.is_floating_point())
    race[first] = race[first] + 0.01
    checkpoint.save(frozen, state)
    with pytest.raises(checkpoint.CheckpointError, match=r"another race network than .*race\.pt holds now"):
        Trainer(make_config(dict(cfg, games=16)), tmp_path, progress=False)
