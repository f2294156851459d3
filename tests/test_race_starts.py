"""The race network's database inputs (encoder race-db) and race starts from bgnet's own self-play."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from boards import TINY_RUN, pos

from bgnet.bearoff import OneSidedBearoff
from bgnet.checkpoint import CheckpointError
from bgnet.encoding import ENCODERS, RACE, RACE_DB
from bgnet.evaluator import NetEvaluator
from bgnet.position import random_race
from bgnet.pubeval import is_crashed, is_race
from bgnet_training import races
from bgnet_training.config import ConfigError, make_config
from bgnet_training.train import SelfPlayChooser, Trainer

TINY = dict(TINY_RUN, race_hidden=(6,), games=16, checkpoint_every=8)


@pytest.fixture(scope="module")
def db():
    return OneSidedBearoff.load_or_build()


def by_hand(db, side: np.ndarray) -> list[float]:
    """The three database units of one side (a board seen by that side) computed from the database's API."""
    ours = np.maximum(side, 0).astype(np.int64)
    home = ours[1:7].copy()
    home[5] += ours[7:26].sum()
    outside = sum(int(ours[p]) * (p - 6) for p in range(7, 26))
    first = db.first_distribution(home) @ np.arange(db.first.shape[1]) if home.sum() == 15 else 0.0
    return [db.expected_rolls(home) / 10, first / 10, outside / 40]


def test_race_db_units_are_the_databases_expected_rolls_after_races_columns(db):
    rng = np.random.default_rng(3)
    boards = np.stack([random_race(rng) for _ in range(300)])
    x = RACE_DB.encode(boards)
    assert x.shape == (300, RACE.width + 6) and ENCODERS["race-db"] is RACE_DB
    np.testing.assert_array_equal(x[:, : RACE.width], RACE.encode(boards))
    for b, row in zip(boards[:60], x[:60], strict=True):
        theirs = np.zeros_like(b)
        theirs[1:25] = -b[24:0:-1]  # the opponent's view of its own checkers
        np.testing.assert_allclose(row[RACE.width :], by_hand(db, b) + by_hand(db, theirs), rtol=1e-6)
    # all 15 home on 4..6, none off: the first checker goes off at once unless 1-1 or 2-2 is rolled
    # (neither reaches the edge from the 4 point); a side with a checker off has no first unit
    full = pos({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 9: 5})
    one_off = pos({6: 5, 5: 5, 4: 4}, {18: 15})
    a, b = RACE_DB.encode(np.stack([full.board, one_off.board]))[:, RACE.width :]
    assert a[1] == pytest.approx(0.1 * (1 + 2 / 36)) and b[1] == 0.0
    assert a[2] == 0.0 and a[5] == pytest.approx(15 / 40)  # their 5 on 9: 3 pips each to the 6 point
    assert b[3] == pytest.approx(db.expected_rolls(np.array([0, 0, 0, 0, 0, 15])) / 10)
    assert b[5] == pytest.approx(15 * 12 / 40)


def _race_db_run(tmp_path, init, **extra):
    cfg = {**TINY, "name": "db", "race_encoder": "race-db", "init": str(init), **extra}
    return Trainer(make_config(cfg), tmp_path, progress=False)


def test_a_race_network_grows_into_race_db_inputs_with_the_same_values(tmp_path):
    first = Trainer(make_config(dict(TINY, games=8)), tmp_path, progress=False)
    first.run()
    grown = _race_db_run(tmp_path, first.latest_checkpoint())
    model, encoder = grown.evaluator.race
    assert encoder is RACE_DB and model.shape["inputs"] == RACE_DB.width
    rng = np.random.default_rng(1)
    boards = np.stack([random_race(rng) for _ in range(50)])
    assert is_race(boards).all()
    np.testing.assert_allclose(
        grown.evaluator.probabilities(boards), first.evaluator.probabilities(boards), atol=1e-6
    )
    assert torch.count_nonzero(model.layers[0].weight[:, RACE.width :]) == 0  # the new inputs start unheard
    # the other way (fewer inputs) and encoders that do not extend each other are refused
    back = Trainer(
        make_config(dict(TINY, name="back", games=8, race_encoder="race-db")), tmp_path, progress=False
    )
    back.run()
    with pytest.raises(CheckpointError, match="encoder race-db, this run's race network race"):
        Trainer(
            make_config(dict(TINY, name="b2", init=str(back.latest_checkpoint()))), tmp_path, progress=False
        )
    with pytest.raises(CheckpointError, match="encoder race, this run's race network extended"):
        _race_db_run(tmp_path, first.latest_checkpoint(), name="c", race_encoder="extended")


def test_harvest_keeps_each_games_first_race_outside_the_database_seen_by_the_side_on_roll():
    ev = NetEvaluator.from_checkpoint()  # the shipped networks (a random one may never end a game)
    rng = np.random.default_rng(4)
    boards = races.harvest(SelfPlayChooser(ev, 0.0, rng), 12, rng, slots=4)
    assert 0 < len(boards) <= 12 and boards.dtype == np.int8 and boards.shape[1] == 26
    assert is_race(boards).all() and not OneSidedBearoff.covers(boards).any()
    assert len({b.tobytes() for b in boards}) == len(boards)  # one a game
    assert np.array_equal(races.check_boards(boards, "x"), boards)
    again = races.harvest(SelfPlayChooser(ev, 0.0, rng), 12, np.random.default_rng(4), slots=4)
    np.testing.assert_array_equal(again, boards)  # the same dice replay the same starts


def test_race_starts_files_round_trip_and_bad_ones_are_named(tmp_path):
    rng = np.random.default_rng(7)
    boards = np.stack([random_race(rng) for _ in range(20)])
    f = tmp_path / "r.npz"
    races.save(f, boards, "test", 99)
    np.testing.assert_array_equal(races.load(f), boards)
    draw = races.starts(f)
    drawn = {draw(np.random.default_rng(s)).tobytes() for s in range(200)}
    assert drawn <= {b.tobytes() for b in boards} and len(drawn) > 10
    with pytest.raises(races.StartsError, match="not found"):
        races.load(tmp_path / "missing.npz")
    (tmp_path / "text.npz").write_text("not a zip")
    with pytest.raises(races.StartsError, match="is not a starts file .not a numpy .npz archive"):
        races.load(tmp_path / "text.npz")
    np.savez(tmp_path / "other.npz", positions=boards)
    with pytest.raises(races.StartsError, match="it has no boards array"):
        races.load(tmp_path / "other.npz")
    contact = boards.copy()
    contact[3] = pos({24: 2, 6: 13}, {24: 2, 6: 13}).board
    races.save(tmp_path / "c.npz", contact, "test", 1)
    with pytest.raises(races.StartsError, match="board 3 is not a race"):
        races.load(tmp_path / "c.npz")
    np.savez(tmp_path / "shape.npz", boards=boards[:, :10])
    with pytest.raises(races.StartsError, match="must be a non-empty"):
        races.load(tmp_path / "shape.npz")
    with pytest.raises(ConfigError, match="start"):
        make_config(dict(TINY, start="races.txt"))
    with pytest.raises(races.StartsError, match="not found"):
        Trainer(make_config(dict(TINY, start=str(tmp_path / "none.npz"))), tmp_path / "runs", progress=False)
    assert not (tmp_path / "runs").exists()  # nothing left behind


def test_a_run_from_a_race_starts_file_plays_only_races_and_trains_the_race_db_network(tmp_path):
    init = Trainer(make_config(dict(TINY, games=8)), tmp_path, progress=False)
    init.run()
    rng = np.random.default_rng(9)
    f = tmp_path / "starts.npz"
    races.save(f, np.stack([random_race(rng) for _ in range(5)]), "test", 5)
    run = _race_db_run(tmp_path, init.latest_checkpoint(), start=str(f), train_nets="race")

    def contact_seen(module, inputs):
        raise AssertionError("the main network was asked: a game reached contact")

    run.evaluator.model.register_forward_pre_hook(contact_seen)
    model = run.evaluator.race[0]
    before = model.layers[0].weight.detach().clone()
    run.run()
    assert run.state.games == 16
    assert torch.count_nonzero(model.layers[0].weight[:, RACE.width :]) > 0  # the database inputs learn
    assert not torch.equal(before[:, : RACE.width], model.layers[0].weight[:, : RACE.width].detach())
    # its checkpoint loads everywhere with the race-db race network, and values races as the run does
    loaded = NetEvaluator.from_checkpoint(run.latest_checkpoint(), bearoff=False)  # as the run (TINY)
    assert loaded.race is not None and loaded.race[1] is RACE_DB
    boards = races.load(f)
    np.testing.assert_allclose(loaded.probabilities(boards), run.evaluator.probabilities(boards), atol=1e-6)


def test_the_races_command_writes_a_file_and_refuses_bad_arguments(tmp_path, capsys):
    from bgnet_training.races import main

    out = tmp_path / "r.npz"
    assert main(["bgnet/networks/bgnet-default.pt", str(out), "--games", "6", "--seed", "2"]) == 0
    boards = races.load(out)
    assert 0 < len(boards) <= 6
    assert main(["bgnet/networks/bgnet-default.pt", str(tmp_path / "no" / "r.npz"), "--games", "2"]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert main(["bgnet/networks/bgnet-default.pt", str(out), "--games", "0"]) == 2
    assert main([str(tmp_path / "none.pt"), str(out), "--games", "2"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and err[-1].startswith("error:")


def test_the_races_command_keeps_crashed_positions_with_kind_crashed(tmp_path, capsys, monkeypatch):
    from bgnet_training.races import main

    out = tmp_path / "c.npz"
    assert main(["bgnet/networks/bgnet-default.pt", str(out), "--kind", "crashed", "--games", "16"]) == 0
    boards = races.load(out)  # checked to be crashed positions
    assert 0 < len(boards) <= 16 and is_crashed(boards).all()
    assert "crashed starts from 16 games" in capsys.readouterr().out
    none = tmp_path / "none.npz"
    monkeypatch.setattr(races, "harvest", lambda *a, **k: np.zeros((0, 26), dtype=np.int8))
    assert main(["bgnet/networks/bgnet-default.pt", str(none), "--kind", "crashed", "--games", "3"]) == 1
    assert "no crashed position in 3 game(s): nothing written" in capsys.readouterr().err
    assert not none.exists()


def test_harvest_anywhere_draws_one_position_of_the_kind_from_each_game_not_its_first():
    ev = NetEvaluator.from_checkpoint()
    rng = np.random.default_rng(6)
    first = races.harvest(SelfPlayChooser(ev, 0.0, rng), 8, rng, slots=4, where=races.is_contact)
    # a game's first contact position is the opening, seen by the side on roll
    assert len({b.tobytes() for b in first}) == 1
    rng = np.random.default_rng(6)
    drawn = races.harvest(
        SelfPlayChooser(ev, 0.0, rng), 8, rng, slots=4, where=races.is_contact, anywhere=True
    )
    assert len(drawn) == 8 and races.is_contact(drawn).all()
    pips = [int(np.maximum(b, 0) @ np.arange(26)) for b in drawn]
    assert len(set(pips)) > 4 and min(pips) < 167  # from all over the games, not one place
    rng = np.random.default_rng(6)
    again = races.harvest(
        SelfPlayChooser(ev, 0.0, rng), 8, rng, slots=4, where=races.is_contact, anywhere=True
    )
    np.testing.assert_array_equal(again, drawn)  # the same seed draws the same starts


def test_self_play_with_epsilon_makes_random_plays_and_the_command_takes_it(tmp_path, capsys):
    from bgnet.lockstep import Lockstep
    from bgnet_training.races import main

    ev = NetEvaluator.from_checkpoint()
    rng = np.random.default_rng(2)
    engine = Lockstep(16, 16, rng, record=True)
    greedy, explore = SelfPlayChooser(ev, 0.0, rng), SelfPlayChooser(ev, 0.9, rng)
    differ = total = 0

    def both(batch, player):
        nonlocal differ, total
        best, played = greedy(batch, player), explore(batch, player)
        assert ((played >= batch.offsets[:-1]) & (played < batch.offsets[1:])).all()  # one of its own plays
        sizes = np.diff(batch.offsets)
        differ += int((best != played)[sizes > 1].sum())
        total += int((sizes > 1).sum())
        return played

    engine.step(both)
    assert total > 8 and differ > total // 2  # 90% at random: most differ from the network's best

    out = tmp_path / "e.npz"
    args = ["bgnet/networks/bgnet-default.pt", str(out), "--kind", "contact", "--games", "6"]
    assert main([*args, "--anywhere", "--epsilon", "0.2"]) == 0
    assert len(races.load(out)) == 6 and "6 contact starts from 6 games" in capsys.readouterr().out
    assert main([*args, "--epsilon", "1.5"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["error: --epsilon must be in [0, 1), got 1.5"]
