"""Phase networks and the strength recipe: routing, race nets, 1-ply targets, growth, snapshots."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
import torch
from boards import TINY_RUN, Marker, pos

from bgnet import checkpoint
from bgnet.encoding import CONTACT, EXTENDED, RACE
from bgnet.evaluator import FunctionEvaluator, NetEvaluator
from bgnet.lockstep import FinishedGame, Lockstep
from bgnet.network import EnsembleNet, ValueNet, build_network
from bgnet.position import STARTING, flip
from bgnet.pubeval import is_race
from bgnet_training.config import ConfigError, make_config
from bgnet_training.grow import widen_into
from bgnet_training.train import SelfPlayChooser, Trainer, training_targets

TINY = dict(TINY_RUN, race_hidden=(6,), games=24, checkpoint_every=8)

RACE_BOARD = pos({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 9: 5})  # no contact, not all home: no database value
CONTACT_BOARD = STARTING


def constant(value):
    """A 0-ply function that gives every board the same probabilities (marks which net answered)."""
    return lambda boards: np.tile(np.asarray(value, dtype=np.float32), (len(boards), 1))


def test_races_go_to_the_race_network_and_contact_to_the_main_one():
    ev = NetEvaluator(Marker(EXTENDED.width, 0.25), EXTENDED, race=(Marker(RACE.width, 0.75), RACE))
    boards = np.stack([RACE_BOARD.board, CONTACT_BOARD.board, RACE_BOARD.flip().board])
    assert is_race(boards).tolist() == [True, False, True]
    np.testing.assert_allclose(ev.probabilities(boards)[:, 0], [0.75, 0.25, 0.75])
    assert ev.phases(boards).tolist() == [1, 0, 1]
    alone = NetEvaluator(Marker(EXTENDED.width, 0.25), EXTENDED)
    np.testing.assert_allclose(alone.probabilities(boards)[:, 0], [0.25, 0.25, 0.25])
    assert alone.phases(boards).tolist() == [0, 0, 0]


def test_a_checkpoint_with_a_race_network_loads_with_routing_and_the_bearoff_database(tmp_path):
    trainer = Trainer(make_config(TINY), tmp_path, progress=False)
    trainer.run()
    ev = NetEvaluator.from_checkpoint(trainer.latest_checkpoint(), bearoff=False)
    assert ev.race is not None and ev.race[1] is RACE and ev.race[0].shape["hidden"] == [6]
    boards = np.stack([RACE_BOARD.board, CONTACT_BOARD.board])
    np.testing.assert_allclose(ev.probabilities(boards), trainer.evaluator.probabilities(boards), atol=1e-6)
    race_only = ev.race[0](torch.from_numpy(RACE.encode(RACE_BOARD.board))).detach().numpy()
    np.testing.assert_allclose(ev.probabilities(RACE_BOARD.board[None])[0], race_only[0], atol=1e-6)


def test_training_updates_each_phase_network_on_its_own_positions(tmp_path):
    trainer = Trainer(make_config(dict(TINY, games=16)), tmp_path, progress=False)
    before = {n: [p.clone() for p in m.parameters()] for n, (m, _) in trainer.evaluator.networks().items()}
    trainer.run()
    for name, (model, _) in trainer.evaluator.networks().items():
        changed = any(not torch.equal(a, b) for a, b in zip(before[name], model.parameters(), strict=True))
        assert changed, f"the {name} network was not trained"


def test_the_1ply_target_of_a_short_bearoff_is_its_brute_force_value():
    # We (on roll) have two checkers on our 2 point; they will bear off their last checker next turn
    # whatever they roll.  We win iff this roll takes both off: both dice >= 2, or 1-1 (2/1/off twice).
    board = pos({2: 2}, {1: 1}).board
    wins = sum(1 for a, b in product(range(1, 7), repeat=2) if min(a, b) >= 2 or a == b == 1)
    # The 0-ply function says the side on roll of any unfinished position wins: true after our miss.
    ev = FunctionEvaluator(constant([1, 0, 0, 0, 0]))
    # The game as it went: we rolled high and bore both off; the final board is seen by the loser (them).
    game = FinishedGame(history=board[None, :], final=pos({1: 1}, {}).board, points=1, first=0)
    boards, values, targets = training_targets(ev, [game], lam=0.7, target="ply1")
    np.testing.assert_allclose(targets[0], [wins / 36, 0, 0, 0, 0], atol=1e-6)
    assert wins == 26 and values[0, 0] == 1.0
    # The TD target of the same one-position game is the game's result: a single win for us.
    _, _, td = training_targets(ev, [game], lam=0.7, target="td")
    np.testing.assert_allclose(td[0], [1, 0, 0, 0, 0], atol=1e-6)


def test_the_2ply_target_of_a_short_race_to_bear_off_is_its_brute_force_value():
    # We (on roll) have two checkers on our 2 point, they have two on their 3 point; nobody can be gammoned.
    # We win now with 26 of the 36 rolls (as above).  Otherwise they win with 17 (both dice >= 3, or 2-2:
    # 3/1(2), 1/off(2)), and else we are on roll again: the 0-ply function says the side on roll wins.
    board = pos({2: 2}, {3: 2}).board
    ours = sum(1 for a, b in product(range(1, 7), repeat=2) if min(a, b) >= 2 or a == b == 1)
    theirs = sum(1 for a, b in product(range(1, 7), repeat=2) if min(a, b) >= 3 or a == b == 2)
    assert (ours, theirs) == (26, 17)
    ev = FunctionEvaluator(constant([1, 0, 0, 0, 0]))
    game = FinishedGame(history=board[None, :], final=pos({1: 1}, {}).board, points=1, first=0)
    _, _, ply2 = training_targets(ev, [game], lam=0.7, target="ply2")
    win = ours / 36 + (1 - ours / 36) * (1 - theirs / 36)
    np.testing.assert_allclose(ply2[0], [win, 0, 0, 0, 0], atol=1e-6)
    _, _, ply1 = training_targets(ev, [game], lam=0.7, target="ply1")  # 1-ply: they win whenever we miss
    np.testing.assert_allclose(ply1[0], [ours / 36, 0, 0, 0, 0], atol=1e-6)


def test_a_search_share_labels_that_share_of_the_positions_by_search_and_the_rest_by_td(tmp_path):
    torch.manual_seed(1)
    ev = NetEvaluator(ValueNet(EXTENDED.width, (8,)), EXTENDED)
    rng = np.random.default_rng(2)
    engine = Lockstep(2, 2, rng, record=True)
    games = []
    while engine.running:
        games += engine.step(SelfPlayChooser(ev, 0.0, rng))
    _, _, td = training_targets(ev, games, lam=0.7, target="td")
    boards, values, ply1 = training_targets(ev, games, lam=0.7, target="ply1")
    assert len(boards) > 40 and not np.allclose(td, ply1, atol=1e-3)
    _, mixed_values, mixed = training_targets(
        ev, games, lam=0.7, target="ply1", share=0.3, rng=np.random.default_rng(7)
    )
    picked = np.random.default_rng(7).random(len(boards)) < 0.3
    assert 0 < picked.sum() < len(boards)
    np.testing.assert_allclose(mixed_values, values)
    np.testing.assert_allclose(mixed[picked], ply1[picked], atol=1e-6)
    np.testing.assert_allclose(mixed[~picked], td[~picked], atol=1e-6)
    with pytest.raises(ValueError, match="needs an rng"):
        training_targets(ev, games, lam=0.7, target="ply1", share=0.3)
    for bad in (dict(search_share=0.0), dict(search_share=1.5), dict(search_share=0.5, target="td")):
        with pytest.raises(ConfigError, match="search_share"):
            make_config(dict(TINY, **bad))
    # a run with a search share trains, and resumes
    cfg = make_config(dict(TINY, games=8, target="ply1", search_share=0.25))
    assert Trainer(cfg, tmp_path, progress=False).run().games == 8
    again = Trainer(
        make_config(dict(TINY, games=16, target="ply1", search_share=0.25)), tmp_path, progress=False
    )
    assert again.state.games == 8 and again.run().games == 16


class CoversOne:
    """A 'bearoff database' that holds one board, with a made-up value."""

    def __init__(self, board: np.ndarray) -> None:
        self.board = board

    def covers(self, boards: np.ndarray) -> np.ndarray:
        return (np.asarray(boards) == self.board).all(axis=1)

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        return constant([0.5, 0, 0, 0, 0])(boards)


@pytest.mark.parametrize("target", ["td", "ply1"])
def test_training_one_phase_network_labels_only_its_positions(target):
    covered = pos({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5}).board  # a race the 'database' holds
    ev = NetEvaluator(
        Marker(EXTENDED.width, 0.25),
        EXTENDED,
        race=(Marker(RACE.width, 0.75), RACE),
        bearoff=CoversOne(covered),
    )
    history = np.stack([CONTACT_BOARD.board, RACE_BOARD.board, covered, RACE_BOARD.flip().board])
    game = FinishedGame(history=history, final=pos({1: 1}, {}).board, points=1, first=0)
    everything = training_targets(ev, [game], lam=0.7, target=target)
    for nets, rows in (("race", [1, 3]), ("main", [0])):
        boards, values, targets = training_targets(ev, [game], lam=0.7, target=target, nets=nets)
        np.testing.assert_array_equal(boards, history[rows])
        np.testing.assert_allclose(values, everything[1][rows])
        np.testing.assert_allclose(targets, everything[2][rows], atol=1e-6)
    alone = NetEvaluator(Marker(EXTENDED.width, 0.25), EXTENDED)
    with pytest.raises(ValueError, match="no race network"):
        training_targets(alone, [game], lam=0.7, target=target, nets="race")


def test_a_race_only_run_trains_the_race_network_and_leaves_the_main_one(tmp_path):
    trainer = Trainer(
        make_config(dict(TINY, games=16, target="ply1", train_nets="race")), tmp_path, progress=False
    )
    before = {n: [p.clone() for p in m.parameters()] for n, (m, _) in trainer.evaluator.networks().items()}
    trainer.run()
    nets = trainer.evaluator.networks()
    moved = {
        n: any(not torch.equal(a, b) for a, b in zip(before[n], m.parameters(), strict=True))
        for n, (m, _) in nets.items()
    }
    assert moved == {"main": False, "race": True}


def test_widening_keeps_the_function_and_the_wider_net_trains():
    rng = np.random.default_rng(0)
    small, wide = ValueNet(EXTENDED.width, [16]), ValueNet(EXTENDED.width, [40])
    widen_into(wide, small, rng)
    x = torch.from_numpy(EXTENDED.encode(np.stack([STARTING.board, RACE_BOARD.board])))
    torch.testing.assert_close(wide(x), small(x))
    deep_small, deep_wide = ValueNet(EXTENDED.width, [16, 8]), ValueNet(EXTENDED.width, [32, 12])
    widen_into(deep_wide, deep_small, rng)
    torch.testing.assert_close(deep_wide(x), deep_small(x))
    with pytest.raises(checkpoint.CheckpointError, match="cannot shrink"):
        widen_into(small, wide, rng)
    with pytest.raises(checkpoint.CheckpointError, match="as many hidden layers or more"):
        widen_into(small, deep_wide, rng)


def test_deepening_keeps_the_function_and_every_layer_trains():
    rng = np.random.default_rng(1)
    torch.manual_seed(3)
    small = ValueNet(EXTENDED.width, [16])
    boards = np.stack([STARTING.board, RACE_BOARD.board, flip(STARTING.board)])
    x = torch.from_numpy(EXTENDED.encode(boards))
    for hidden in ([16, 16], [24, 20, 32]):
        deep = ValueNet(EXTENDED.width, hidden)
        widen_into(deep, small, rng)
        torch.testing.assert_close(deep(x), small(x))
        # One gradient step moves the weights of every layer, the added ones too.
        before = [p.detach().clone() for p in deep.parameters()]
        opt = torch.optim.SGD(deep.parameters(), lr=0.1)
        opt.zero_grad()
        ((deep(x) - torch.tensor([[1.0, 0, 0, 0, 0]])) ** 2).sum().backward()
        opt.step()
        after = list(deep.parameters())
        moved = [not torch.equal(a, b) for a, b in zip(before, after, strict=True) if a.dim() == 2]
        assert len(moved) == len(hidden) + 1 and all(moved)
    with pytest.raises(checkpoint.CheckpointError, match="cannot shrink"):
        widen_into(ValueNet(EXTENDED.width, [16, 8]), small, rng)
    with pytest.raises(checkpoint.CheckpointError, match="only a ReLU network"):
        widen_into(ValueNet(EXTENDED.width, [16, 16], "tanh"), ValueNet(EXTENDED.width, [16], "tanh"), rng)


def test_a_new_run_starts_from_init_widened(tmp_path):
    first = Trainer(make_config(dict(TINY, games=8)), tmp_path, progress=False)
    first.run()
    grown = Trainer(
        make_config(dict(TINY, name="grown", hidden=(12,), init=str(first.latest_checkpoint()))),
        tmp_path,
        progress=False,
    )
    assert grown.state.games == 0 and grown.resumed_from is None
    boards = np.stack([STARTING.board, RACE_BOARD.board])
    np.testing.assert_allclose(
        grown.evaluator.probabilities(boards), first.evaluator.probabilities(boards), atol=1e-6
    )
    deeper = make_config(dict(TINY, name="deeper", hidden=(12, 12), init=str(first.latest_checkpoint())))
    deep = Trainer(deeper, tmp_path, progress=False)
    np.testing.assert_allclose(
        deep.evaluator.probabilities(boards), first.evaluator.probabilities(boards), atol=1e-6
    )
    assert deep.run().games == TINY["games"]
    # gnubg's contact inputs appended (encoder contact extends extended): zero weights, the same values
    ext = Trainer(make_config(dict(TINY, name="ext", games=8, encoder="extended")), tmp_path, progress=False)
    ext.run()
    grown_inputs = make_config(
        dict(TINY, name="contact", encoder="contact", init=str(ext.latest_checkpoint()))
    )
    wider = Trainer(grown_inputs, tmp_path, progress=False)
    assert wider.evaluator.model.shape["inputs"] == CONTACT.width
    many = np.stack([STARTING.board, RACE_BOARD.board, pos({25: 1, 6: 14}, {1: 2, 2: 2, 20: 11}).board])
    np.testing.assert_allclose(
        wider.evaluator.probabilities(many), ext.evaluator.probabilities(many), atol=1e-6
    )
    assert wider.run().games == TINY["games"]


def test_a_run_resumes_from_its_committed_snapshot_on_a_fresh_machine(tmp_path):
    snap = tmp_path / "committed" / "tiny.pt"
    cfg = make_config(dict(TINY, games=16, snapshot=str(snap)))
    first = Trainer(cfg, tmp_path / "machine1", progress=False)
    first.run()
    assert snap.is_file()
    # Another machine: an empty runs folder, the snapshot from the repository; more games asked for.
    again = Trainer(
        make_config(dict(TINY, games=24, snapshot=str(snap))), tmp_path / "machine2", progress=False
    )
    assert again.resumed_from == snap and again.state.games == 16
    for a, b in zip(first.evaluator.model.parameters(), again.evaluator.model.parameters(), strict=True):
        assert torch.equal(a, b)
    assert again.run().games == 24


def test_ctrl_c_writes_a_checkpoint_before_stopping(tmp_path, monkeypatch):
    trainer = Trainer(make_config(dict(TINY, games=40, checkpoint_every=1000)), tmp_path, progress=False)
    import bgnet_training.train as train_module

    calls = {"n": 0}
    real = train_module.fit

    def interrupted(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(train_module, "fit", interrupted)
    with pytest.raises(KeyboardInterrupt):
        trainer.run()
    latest = trainer.latest_checkpoint()
    assert latest is not None and checkpoint.read(latest)["counters"]["games"] == 16
    assert Trainer(make_config(dict(TINY, games=40, checkpoint_every=1000)), tmp_path).state.games == 16


def test_minutes_stops_a_run_early_with_a_checkpoint_that_resumes(tmp_path):
    trainer = Trainer(make_config(dict(TINY, games=400, checkpoint_every=1000)), tmp_path, progress=False)
    st = trainer.run(minutes=1e-4)  # out of time after the first update
    assert st.updates == 1 and 0 < st.games < 400
    assert checkpoint.read(trainer.latest_checkpoint())["counters"]["games"] == st.games
    again = Trainer(make_config(dict(TINY, games=400, checkpoint_every=1000)), tmp_path, progress=False)
    assert again.state.games == st.games


def test_a_shipped_file_keeps_the_networks_and_drops_the_training_state(tmp_path):
    from bgnet_training.ship import main as ship

    trainer = Trainer(make_config(TINY), tmp_path, progress=False)
    trainer.run()
    out = tmp_path / "shipped.pt"
    assert ship([str(trainer.latest_checkpoint()), str(out)]) == 0
    state = checkpoint.read(out)
    assert "optimizer" not in state and "rng" not in state and "optimizer" not in state["race"]
    assert state["counters"]["games"] == trainer.state.games
    boards = np.stack([STARTING.board, RACE_BOARD.board])
    shipped = NetEvaluator.from_checkpoint(out, bearoff=False)
    np.testing.assert_allclose(
        shipped.probabilities(boards), trainer.evaluator.probabilities(boards), atol=1e-6
    )
    assert ship([str(tmp_path / "absent.pt"), str(out)]) == 2


def test_a_shipped_file_can_take_its_race_network_from_another_run(tmp_path):
    from bgnet_training.ship import main as ship

    main_run = Trainer(make_config(dict(TINY, games=8)), tmp_path, progress=False)
    main_run.run()
    race_run = Trainer(
        make_config(dict(TINY, name="race", games=8, seed=4, train_nets="race")), tmp_path, progress=False
    )
    race_run.run()
    out = tmp_path / "shipped.pt"
    assert (
        ship([str(main_run.latest_checkpoint()), str(out), "--race", str(race_run.latest_checkpoint())]) == 0
    )
    shipped = NetEvaluator.from_checkpoint(out, bearoff=False)
    boards = np.stack([STARTING.board, RACE_BOARD.board])
    got = shipped.probabilities(boards)
    np.testing.assert_allclose(got[0], main_run.evaluator.probabilities(boards)[0], atol=1e-6)
    np.testing.assert_allclose(got[1], race_run.evaluator.probabilities(boards)[1], atol=1e-6)
    assert not np.allclose(got[1], main_run.evaluator.probabilities(boards)[1])
    source = checkpoint.read(out)["race_source"]
    assert source["run"] == "race" and source["counters"]["games"] == race_run.state.games
    assert ship([str(main_run.latest_checkpoint()), str(out), "--race", str(tmp_path / "absent.pt")]) == 2


def test_an_ensemble_gives_the_mean_of_its_members_probabilities_consistently():
    torch.manual_seed(3)
    a, b = ValueNet(EXTENDED.width, (8,)), ValueNet(EXTENDED.width, (6, 4))
    x = torch.rand(50, EXTENDED.width)
    pair = EnsembleNet.of([a, b])
    with torch.no_grad():
        got, pa, pb = pair(x), a(x), b(x)
    assert not torch.allclose(pa, pb, atol=1e-3)
    torch.testing.assert_close(got, (pa + pb) / 2)
    win, wg, wbg, lg, lbg = got.T
    assert bool((wbg <= wg).all() and (wg <= win).all() and (lbg <= lg).all() and (lg <= 1 - win).all())
    trio = EnsembleNet.of([pair, a])  # an ensemble's members join, not the ensemble as one
    assert len(trio.nets) == 3
    with torch.no_grad():
        torch.testing.assert_close(trio(x), (2 * pa + pb) / 3)
    rebuilt = build_network(trio.shape)
    rebuilt.load_state_dict(trio.state_dict())
    with torch.no_grad():
        torch.testing.assert_close(rebuilt(x), trio(x))
    with pytest.raises(ValueError, match="same inputs"):
        EnsembleNet([a.shape, ValueNet(CONTACT.width, (8,)).shape])


def test_a_shipped_ensemble_averages_the_main_networks_of_its_files(tmp_path, capsys):
    from bgnet_training.ship import main as ship

    first = Trainer(make_config(dict(TINY, games=8, encoder="contact")), tmp_path, progress=False)
    first.run()
    other = Trainer(
        make_config(dict(TINY, name="other", games=8, seed=5, encoder="extended", hidden=(6, 6))),
        tmp_path,
        progress=False,
    )
    other.run()
    out = tmp_path / "ensemble.pt"
    assert ship([str(first.latest_checkpoint()), str(out), "--ensemble", str(other.latest_checkpoint())]) == 0
    shipped = NetEvaluator.from_checkpoint(out, bearoff=False)
    assert isinstance(shipped.model, EnsembleNet) and shipped.encoder.name == "contact"
    contact = np.stack([STARTING.board, pos({25: 1, 6: 14}, {1: 2, 2: 2, 20: 11}).board])
    mean = (first.evaluator.probabilities(contact) + other.evaluator.probabilities(contact)) / 2
    np.testing.assert_allclose(shipped.probabilities(contact), mean, atol=1e-6)
    # races keep the source's race network
    race = RACE_BOARD.board[None]
    np.testing.assert_allclose(shipped.probabilities(race), first.evaluator.probabilities(race), atol=1e-6)
    sources = checkpoint.read(out)["ensemble_sources"]
    assert [s["run"] for s in sources] == ["tiny", "other"]
    # an ensemble joins as its members, grown like any other (here the extended pair into contact)
    pair = tmp_path / "pair.pt"
    assert (
        ship([str(other.latest_checkpoint()), str(pair), "--ensemble", str(other.latest_checkpoint())]) == 0
    )
    assert ship([str(first.latest_checkpoint()), str(out), "--ensemble", str(pair)]) == 0
    trio = NetEvaluator.from_checkpoint(out, bearoff=False)
    assert isinstance(trio.model, EnsembleNet) and len(trio.model.nets) == 3
    third = (first.evaluator.probabilities(contact) + 2 * other.evaluator.probabilities(contact)) / 3
    np.testing.assert_allclose(trio.probabilities(contact), third, atol=1e-6)
    assert [s["run"] for s in checkpoint.read(out)["ensemble_sources"]] == ["tiny", "other", "other"]
    # a malformed ensemble description is one CheckpointError, not a KeyError
    state = checkpoint.read(out)
    broken = state | {"shape": state["shape"] | {"members": [{"hidden": [8]}]}}
    with pytest.raises(checkpoint.CheckpointError, match="do not match the network shape"):
        checkpoint.network_from(broken)
    wider = state | {"shape": state["shape"] | {"inputs": CONTACT.width + 1}}
    with pytest.raises(checkpoint.CheckpointError):
        checkpoint.network_from(wider)
    # a member must read the source's inputs or inputs the source's encoder extends
    capsys.readouterr()
    assert ship([str(other.latest_checkpoint()), str(out), "--ensemble", str(first.latest_checkpoint())]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "encoder contact" in err and "does not extend it" in err
    # an ensemble is evaluated, never trained: a run refuses it as its start
    with pytest.raises(checkpoint.CheckpointError, match="an ensemble, which self-play does not train"):
        Trainer(
            make_config(dict(TINY, name="again", encoder="contact", init=str(out))), tmp_path, progress=False
        )


def test_shipping_averaged_weights_gives_one_network_with_the_mean_of_its_files_weights(tmp_path, capsys):
    from bgnet_training.ship import main as ship

    first = Trainer(make_config(dict(TINY, games=8)), tmp_path, progress=False)
    first.run()
    other = Trainer(make_config(dict(TINY, name="other", games=8, seed=5)), tmp_path, progress=False)
    other.run()
    out = tmp_path / "averaged.pt"
    args = [str(first.latest_checkpoint()), str(out), "--average-weights", str(other.latest_checkpoint())]
    assert ship(args) == 0
    shipped = NetEvaluator.from_checkpoint(out, bearoff=False)
    assert isinstance(shipped.model, ValueNet)  # one network, not an ensemble
    theirs = [first.evaluator.model.state_dict(), other.evaluator.model.state_dict()]
    for key, value in shipped.model.state_dict().items():
        assert not torch.equal(theirs[0][key], theirs[1][key])
        torch.testing.assert_close(value, (theirs[0][key] + theirs[1][key]) / 2)
    # races keep the source's race network
    race = RACE_BOARD.board[None]
    np.testing.assert_allclose(shipped.probabilities(race), first.evaluator.probabilities(race), atol=1e-6)
    members = checkpoint.read(out)["main_source"]["weights_of"]
    assert [m["run"] for m in members] == ["tiny", "other"]
    assert [m["file"] for m in members] == [str(first.latest_checkpoint()), str(other.latest_checkpoint())]
    # another shape, other inputs, an ensemble or another game: no weights to average with (one line, exit 2)
    wider = Trainer(make_config(dict(TINY, name="wider", games=8, hidden=(6, 6))), tmp_path, progress=False)
    wider.run()
    contact = Trainer(
        make_config(dict(TINY, name="contact", games=8, encoder="contact")), tmp_path, progress=False
    )
    contact.run()
    pair = tmp_path / "pair.pt"
    assert (
        ship([str(first.latest_checkpoint()), str(pair), "--ensemble", str(other.latest_checkpoint())]) == 0
    )
    variants = checkpoint.DEFAULT.parent / "variants"
    source = str(first.latest_checkpoint())
    for args, says in [
        ([source, "--average-weights", str(wider.latest_checkpoint())], "(6-6 relu on"),
        ([source, "--average-weights", str(contact.latest_checkpoint())], "on contact)"),
        ([source, "--average-weights", str(pair)], "is an ensemble, which has no weights to average"),
        ([str(pair), "--average-weights", source], "is an ensemble, which has no weights to average"),
        ([str(variants / "portes.pt"), "--average-weights", str(variants / "plakoto.pt")], "plays plakoto"),
    ]:
        capsys.readouterr()
        assert ship([args[0], str(out), *args[1:]]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and says in err, err


def test_the_shipped_networks_load_with_a_race_network_and_play_legal_games():
    from bgnet import arena
    from bgnet.players import NetPlayer

    ev = NetEvaluator.from_checkpoint()  # the shipped set, with the bearoff database
    assert ev.race is not None and ev.bearoff is not None
    assert ev.phases(np.stack([RACE_BOARD.board, CONTACT_BOARD.board])).tolist() == [1, 0]
    result = arena.play(NetPlayer(ev), "pubeval", games=4, seed=9)  # the referee checks every play
    assert not result.illegal and len(result.points) == 4
    assert set(result.points.tolist()) <= {-3, -2, -1, 1, 2, 3}


@pytest.mark.slow
def test_sigterm_stops_a_training_command_with_a_checkpoint(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    cfg = tmp_path / "t.toml"
    cfg.write_text(make_config(dict(TINY, games=100_000, checkpoint_every=10_000)).to_toml())
    cmd = [sys.executable, "-m", "bgnet.cli", "train", "--config", str(cfg), "--runs", str(tmp_path / "runs")]
    proc = subprocess.Popen(
        [*cmd, "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    metrics = tmp_path / "runs" / "tiny" / "metrics.jsonl"
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not (metrics.exists() and metrics.read_text().count("\n") >= 3):
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "stopped: checkpoint" in out and "Traceback" not in err
    (latest,) = sorted((tmp_path / "runs" / "tiny").glob("checkpoint-*.pt"))[-1:]
    assert checkpoint.read(latest)["counters"]["games"] >= 24  # written at the stop, not at 10,000


def test_the_replay_buffer_keeps_the_newest_positions_and_samples_only_them():
    from bgnet_training.train import Replay

    rng = np.random.default_rng(0)
    replay = Replay(5, 26)
    assert len(replay.sample(3, rng)[0]) == 0
    boards = np.arange(7 * 26, dtype=np.int8).reshape(7, 26) % 15
    targets = np.arange(7 * 5, dtype=np.float32).reshape(7, 5)
    replay.add(boards[:3], targets[:3])
    got_boards, got_targets = replay.sample(200, rng)
    assert {int(t[0]) // 5 for t in got_targets} == {0, 1, 2}
    replay.add(boards[3:], targets[3:])  # 7 in all: the 2 oldest go
    got_boards, got_targets = replay.sample(400, rng)
    rows = {int(t[0]) // 5 for t in got_targets}
    assert rows == {2, 3, 4, 5, 6}
    for b, t in zip(got_boards, got_targets, strict=True):
        np.testing.assert_array_equal(b, boards[int(t[0]) // 5])
    replay.add(boards, targets)  # more than it holds at once: the newest 5
    assert {int(t[0]) // 5 for t in replay.sample(400, rng)[1]} == {2, 3, 4, 5, 6}


@pytest.mark.parametrize("extra", [dict(epochs=3), dict(epochs=2, replay=50)])
def test_epochs_and_replay_take_more_steps_on_the_same_games(tmp_path, extra):
    steps = {}
    for name, more in (("once", {}), ("more", extra)):
        trainer = Trainer(make_config(dict(TINY, name=name, games=16, **more)), tmp_path, progress=False)
        trainer.run()
        steps[name] = sum(
            int(s["step"]) for opt in trainer.optimizers.values() for s in opt.state_dict()["state"].values()
        )
    assert steps["more"] > 1.5 * steps["once"]


def test_random_race_positions_are_legal_races_of_every_length():
    from bgnet.position import CHECKERS, Position, check_board, random_race

    rng = np.random.default_rng(3)
    boards = np.stack([random_race(rng) for _ in range(3000)])
    assert is_race(boards).all()
    assert (boards[:, 0] == 0).all() and (boards[:, 25] == 0).all()  # nobody on the bar
    for b in boards:
        check_board(b)
    ours = np.where(boards > 0, boards, 0).sum(axis=1)
    theirs = -np.where(boards < 0, boards, 0).sum(axis=1)
    assert ((ours >= CHECKERS - 8) & (ours <= CHECKERS)).all()
    assert ((theirs >= CHECKERS - 8) & (theirs <= CHECKERS)).all()
    assert 0.1 < (ours < CHECKERS).mean() < 0.3  # one side in five has borne some off
    pips = np.array([Position(b).pips()[0] for b in boards])
    assert pips.min() < 30 and pips.max() > 140  # short races and long ones
    rears = np.array([np.flatnonzero(b[1:25] > 0).max() + 1 for b in boards])
    assert set(range(3, 22)) <= set(rears.tolist())
    again = np.random.default_rng(3)
    np.testing.assert_array_equal(random_race(again), boards[0])  # a seed replays the positions


def test_lockstep_games_from_random_starts_start_there_and_end_legally():
    from bgnet.lockstep import Lockstep
    from bgnet.position import random_race

    starts = []

    def start(rng):
        starts.append(random_race(rng))
        return starts[-1]

    ev = NetEvaluator(Marker(EXTENDED.width, 0.25), EXTENDED, race=(Marker(RACE.width, 0.5), RACE))
    engine = Lockstep(4, 6, np.random.default_rng(5), start=start, record=True)
    done = []
    while engine.running:
        done += engine.step(ev.chooser())
    assert len(done) == 6 and len(starts) == 6
    for g in done:
        np.testing.assert_array_equal(g.history[0], starts[g.game])  # seen by the side on roll
        assert is_race(g.history).all() and abs(g.points) in (1, 2, 3)
    assert {g.first for g in done} == {0, 1}  # either side may start
    with pytest.raises(ValueError, match="random starts"):
        Lockstep(1, 1, np.random.default_rng(1), start=random_race, dice=lambda g: ((3, 1), []))


def test_a_race_start_run_trains_only_the_race_network(tmp_path):
    init = Trainer(make_config(dict(TINY, games=8)), tmp_path, progress=False)
    init.run()
    cfg = dict(
        TINY, name="races", games=16, start="race", train_nets="race", init=str(init.latest_checkpoint())
    )
    run = Trainer(make_config(cfg), tmp_path, progress=False)

    def contact_seen(module, inputs):
        raise AssertionError("the main network was asked: a game reached contact")

    run.evaluator.model.register_forward_pre_hook(contact_seen)  # standard starts would trip it at once
    main_before = {k: v.clone() for k, v in run.evaluator.model.state_dict().items()}
    race_before = {k: v.clone() for k, v in run.evaluator.race[0].state_dict().items()}
    run.run()
    assert run.state.games == 16
    for k, v in run.evaluator.model.state_dict().items():
        assert torch.equal(v, main_before[k])  # never asked: no contact arises
    assert any(not torch.equal(v, race_before[k]) for k, v in run.evaluator.race[0].state_dict().items())


def test_shipping_weight_averages_takes_each_network_from_its_own_file(tmp_path):
    from bgnet_training.ship import main as ship

    main_run = Trainer(make_config(dict(TINY, games=16, average=4)), tmp_path, progress=False)
    main_run.run()
    race_run = Trainer(
        make_config(dict(TINY, name="race", games=8, seed=4, train_nets="race")), tmp_path, progress=False
    )
    race_run.run()
    main_file, race_file, out = main_run.latest_checkpoint(), race_run.latest_checkpoint(), tmp_path / "s.pt"
    assert ship([str(main_file), str(out)]) == 0
    shipped = checkpoint.read(out)
    assert main_run.average is not None
    for k, v in shipped["model"].items():
        torch.testing.assert_close(v, main_run.average.weights["main"][k])
    for k, v in shipped["race"]["model"].items():
        torch.testing.assert_close(v, main_run.average.weights["race"][k])
    assert shipped["averaged"] == shipped["race"]["averaged"] == {"games": 4, "since": 0, "at": 16}
    # the race network of a run without an average: its last weights, and no note says otherwise
    assert ship([str(main_file), str(out), "--race", str(race_file)]) == 0
    shipped = checkpoint.read(out)
    assert shipped["averaged"]["games"] == 4 and "averaged" not in shipped["race"]
    assert race_run.evaluator.race is not None
    for k, v in shipped["race"]["model"].items():
        torch.testing.assert_close(v, race_run.evaluator.race[0].state_dict()[k])
    NetEvaluator.from_checkpoint(out, bearoff=False)  # and it loads


def test_an_ensemble_is_only_made_of_networks_of_one_game(tmp_path, capsys):
    from bgnet_training.ship import main as ship

    networks = checkpoint.DEFAULT.parent / "variants"
    out = tmp_path / "mixed.pt"
    assert ship([str(networks / "portes.pt"), str(out), "--ensemble", str(networks / "plakoto.pt")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "plays plakoto; the source plays portes" in err
    assert not out.exists()
