"""End to end: a tiny self-play run, checkpoints, resume, and refusals with clear messages."""

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from boards import TINY_RUN

from bgnet import checkpoint
from bgnet.checkpoint import CheckpointError
from bgnet.evaluator import NetEvaluator
from bgnet.lockstep import play_match
from bgnet.network import ValueNet
from bgnet.position import STARTING
from bgnet_training.config import ConfigError, TrainConfig, load_config, make_config
from bgnet_training.train import Trainer, learning_rate

CONFIGS = Path(__file__).resolve().parent.parent / "configs"

TINY = TINY_RUN


def tiny(**changes) -> TrainConfig:
    return make_config({**TINY, **changes})


def test_a_device_the_machine_lacks_stops_a_run_before_its_directory(tmp_path):
    missing = "cuda:99" if torch.cuda.is_available() else "cuda"
    with pytest.raises(ConfigError, match=f"config field 'device' {missing}: "):
        Trainer(tiny(device=missing), tmp_path / "runs", progress=False)
    assert not (tmp_path / "runs").exists()
    with pytest.raises(ConfigError, match="'device': auto, cpu, cuda or cuda:N"):
        tiny(device="cuda:01")  # torch refuses a leading zero: the name check does too


def test_a_tiny_run_writes_a_checkpoint_that_loads_and_plays(tmp_path):
    st = Trainer(tiny(), tmp_path, progress=False).run()
    assert st.games == 40 and st.updates >= 5 and st.positions > 40 * 20
    ckpts = sorted((tmp_path / "tiny").glob("checkpoint-*.pt"))
    assert len(ckpts) == 2  # keep_checkpoints
    assert (tmp_path / "tiny" / "config.toml").exists() and (tmp_path / "tiny" / "metrics.jsonl").exists()
    model, encoder, state = checkpoint.load_network(ckpts[-1])
    assert state["counters"]["games"] == 40 and state["config"]["hidden"] == [8]
    ev = NetEvaluator(model, encoder)
    points = play_match((ev.choose, ev.choose), 4, np.random.default_rng(0), slots=2)
    assert len(points) == 4 and set(points.tolist()) <= {-3, -2, -1, 1, 2, 3}


def test_running_the_same_command_again_resumes_from_the_last_checkpoint(tmp_path):
    first = Trainer(tiny(games=24), tmp_path, progress=False)
    first.run()
    after = {k: v.clone() for k, v in first.evaluator.model.state_dict().items()}
    again = Trainer(tiny(games=24), tmp_path, progress=False)
    assert again.state.games == 24  # loaded, not restarted
    for k, v in again.evaluator.model.state_dict().items():
        assert torch.equal(v, after[k])
    assert again.rng.bit_generator.state == first.rng.bit_generator.state
    fresh = Trainer(tiny(games=24, name="other"), tmp_path, progress=False)
    assert not all(torch.equal(v, after[k]) for k, v in fresh.evaluator.model.state_dict().items())


def test_a_killed_run_resumes_and_finishes(tmp_path):
    trainer = Trainer(tiny(), tmp_path, progress=False)
    # Simulate a kill after the first checkpoint: run, then delete the later checkpoints.
    trainer.run()
    ckpts = sorted((tmp_path / "tiny").glob("checkpoint-*.pt"))
    ckpts[-1].unlink()
    resumed = Trainer(tiny(), tmp_path, progress=False)
    assert 0 < resumed.state.games < 40
    logged = [json.loads(line)["games"] for line in (tmp_path / "tiny" / "metrics.jsonl").open()]
    assert max(logged) == resumed.state.games  # the metrics of the lost games are dropped
    assert resumed.run().games == 40
    logged = [json.loads(line)["games"] for line in (tmp_path / "tiny" / "metrics.jsonl").open()]
    assert logged == sorted(logged) and logged[-1] == 40


def test_a_run_directory_made_by_another_config_is_refused_naming_the_difference(tmp_path):
    Trainer(tiny(), tmp_path, progress=False)
    with pytest.raises(ConfigError, match=r"lam: 0\.5 != 0\.7"):
        Trainer(tiny(lam=0.5), tmp_path, progress=False)


def test_a_checkpoint_for_another_encoder_version_or_shape_fails_clearly(tmp_path):
    trainer = Trainer(tiny(), tmp_path, progress=False)
    state = trainer.checkpoint_state()
    bad = dict(state, encoder_version="tesauro198-v0")
    path = checkpoint.save(tmp_path / "old.pt", bad)
    with pytest.raises(CheckpointError, match="encoder version 'tesauro198-v0'"):
        checkpoint.load_network(path)
    wrong_shape = dict(state, shape={**state["shape"], "hidden": [9]})
    path = checkpoint.save(tmp_path / "shape.pt", wrong_shape)
    with pytest.raises(CheckpointError, match="do not match the network shape"):
        checkpoint.load_network(path)


def test_a_corrupt_or_missing_checkpoint_fails_with_a_clear_message(tmp_path):
    trainer = Trainer(tiny(), tmp_path, progress=False)
    path = trainer.save_checkpoint()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="not a readable bgnet checkpoint"):
        checkpoint.load_network(path)
    (tmp_path / "junk.pt").write_bytes(b"hello")
    with pytest.raises(CheckpointError, match="not a readable bgnet checkpoint"):
        checkpoint.load_network(tmp_path / "junk.pt")
    with pytest.raises(CheckpointError, match="no checkpoint file"):
        checkpoint.load_network(tmp_path / "absent.pt")
    state = trainer.checkpoint_state()
    del state["shape"]
    with pytest.raises(CheckpointError, match="lacks its network description"):
        checkpoint.load_network(checkpoint.save(tmp_path / "noshape.pt", state))


def test_checkpoints_are_written_atomically_leaving_no_temporary_file(tmp_path):
    Trainer(tiny(), tmp_path, progress=False).run()
    assert not list((tmp_path / "tiny").glob("*.tmp"))


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"lam": 1.5}, "'lam': must be in [0, 1]"),
        ({"lam": "x"}, "'lam': expected float"),
        ({"hidden": [0]}, "'hidden': positive widths"),
        ({"encoder": "nope"}, "'encoder': one of"),
        ({"games": 2.5}, "'games': expected int"),
        ({"bogus": 1}, "unknown config field(s): bogus"),
        ({"device": "tpu"}, "'device'"),
        ({"narrow": -1}, "'narrow': must be >= 0"),
        ({"target": "ply3"}, "'target': td, ply1 or ply2"),
        ({"train_nets": "both"}, "'train_nets': all, main, race or crashed"),
        ({"train_nets": "race"}, "'train_nets': race needs race_hidden"),
        ({"train_nets": "crashed"}, "'train_nets': crashed needs crashed_hidden"),
        ({"crashed_hidden": [0]}, "'crashed_hidden': positive widths"),
        ({"crashed_encoder": "nope"}, "'crashed_encoder': empty (the main network's) or one of"),
        ({"crashed_hidden": [8], "variant": "portes", "encoder": "variant"}, "'crashed_hidden': empty for"),
        ({"start": "middle"}, "'start': standard, race or a .npz starts file"),
        ({"average": -1}, "'average': must be >= 0"),
        ({"lr_warmup": -5}, "'lr_warmup': must be >= 0"),
        ({"policy_dtype": "float16"}, "'policy_dtype': float32, bfloat16 or auto"),
        ({"start": "race", "variant": "portes"}, "'start': race and crashed starts are for backgammon"),
    ],
)
def test_bad_config_values_name_the_field_and_why(values, words):
    with pytest.raises(ConfigError) as err:
        make_config(values)
    assert words in str(err.value)


def test_the_learning_rate_follows_its_schedule_after_a_linear_warm_up():
    base = {"games": 1000, "lr": 1e-3, "lr_final": 1e-4}
    for schedule in ("cosine", "linear", "constant"):
        plain = make_config({**base, "lr_schedule": schedule})
        warm = make_config({**base, "lr_schedule": schedule, "lr_warmup": 200})
        assert learning_rate(plain, 0) == pytest.approx(1e-3)
        for games in (1, 50, 100, 199):
            assert learning_rate(warm, games) == pytest.approx(learning_rate(plain, games) * games / 200)
        for games in (200, 500, 1000, 5000):
            assert learning_rate(warm, games) == pytest.approx(learning_rate(plain, games))
    cosine = make_config(base)
    assert learning_rate(cosine, 500) == pytest.approx(5.5e-4)
    assert learning_rate(cosine, 1000) == pytest.approx(1e-4)
    assert learning_rate(make_config({**base, "lr_schedule": "linear"}), 250) == pytest.approx(7.75e-4)


def test_shipped_configs_load_and_command_line_overrides_apply():
    for name in ("default", "quick", "gpu"):
        cfg = load_config(CONFIGS / f"{name}.toml")
        assert cfg.name == name
    cfg = load_config(CONFIGS / "quick.toml", {"lam": "0.9", "hidden": "32,16"})
    assert cfg.lam == 0.9 and cfg.hidden == (32, 16)
    with pytest.raises(ConfigError, match="cannot read config"):
        load_config(CONFIGS / "absent.toml")


def test_every_recipe_config_loads_and_starts_from_a_committed_checkpoint():
    # The strength recipe must run from a fresh clone: each stage's `init` is a file in the repository.
    root = CONFIGS.parent
    found = sorted(CONFIGS.rglob("*.toml"))
    assert len(found) >= 8
    for path in found:
        cfg = load_config(path)
        assert cfg.name, path
        if cfg.init:
            assert (root / cfg.init).is_file(), f"{path.name}: init {cfg.init} is not in the repository"
        if cfg.start.endswith(".npz"):
            assert (root / cfg.start).is_file(), f"{path.name}: start {cfg.start} is not in the repository"


def test_probabilities_are_consistent_for_random_weights():
    from bgnet.encoding import TESAURO_198
    from bgnet.network import ValueNet

    torch.manual_seed(0)
    model = ValueNet(TESAURO_198.width, (16,))
    p = NetEvaluator(model, TESAURO_198).probabilities(np.stack([STARTING.board] * 3))
    assert (p[:, 1] <= p[:, 0]).all() and (p[:, 2] <= p[:, 1]).all()
    assert (p[:, 3] <= 1 - p[:, 0] + 1e-6).all() and (p[:, 4] <= p[:, 3]).all()


def test_the_weight_average_is_an_exponential_average_with_a_time_constant_in_games():
    import math

    from bgnet.encoding import TESAURO_198
    from bgnet.network import ValueNet
    from bgnet_training.average import WeightAverage

    net = ValueNet(TESAURO_198.width, (3,))
    ev = NetEvaluator(net, TESAURO_198, device="cpu")
    w0 = {k: v.clone() for k, v in net.state_dict().items()}
    avg = WeightAverage(ev, games=100)
    history = [w0]
    for step, games in enumerate((50, 20)):
        with torch.no_grad():
            for p in net.parameters():
                p.add_(float(step + 1))
        history.append({k: v.clone() for k, v in net.state_dict().items()})
        avg.update(ev, games)
    d1, d2 = math.exp(-50 / 100), math.exp(-20 / 100)
    for k in w0:  # by hand: ((w0 d1 + w1 (1 - d1)) d2 + w2 (1 - d2))
        expected = (history[0][k] * d1 + history[1][k] * (1 - d1)) * d2 + history[2][k] * (1 - d2)
        torch.testing.assert_close(avg.weights["main"][k], expected)
    with pytest.raises(ValueError):
        WeightAverage(ev, games=0)


def test_a_run_with_a_weight_average_trains_the_same_and_ships_the_average(tmp_path, capsys):
    from bgnet_training.ship import main as ship

    plain = Trainer(tiny(games=24), tmp_path / "a", progress=False)
    plain.run()
    run = Trainer(tiny(games=24, average=16), tmp_path / "b", progress=False)
    run.run()
    for a, b in zip(plain.evaluator.model.parameters(), run.evaluator.model.parameters(), strict=True):
        assert torch.equal(a, b)  # training never reads the average
    saved = checkpoint.read(run.latest_checkpoint())
    assert saved["average"]["games"] == 16
    for k, v in saved["average"]["main"].items():
        torch.testing.assert_close(v, run.average.weights["main"][k])
    assert any(not torch.equal(v, saved["model"][k]) for k, v in saved["average"]["main"].items())

    out, live = tmp_path / "avg.pt", tmp_path / "live.pt"
    assert ship([str(run.latest_checkpoint()), str(out)]) == 0
    assert "covers 24 games, under 3 time constants (48)" in capsys.readouterr().err  # still young
    assert ship([str(run.latest_checkpoint()), str(live), "--live"]) == 0
    assert "warning" not in capsys.readouterr().err
    shipped = checkpoint.read(out)
    assert "average" not in shipped and shipped["averaged"] == {"games": 16, "since": 0, "at": 24}
    assert "averaged" not in checkpoint.read(live)
    for k, v in shipped["model"].items():
        torch.testing.assert_close(v, saved["average"]["main"][k])
    for k, v in checkpoint.read(live)["model"].items():
        torch.testing.assert_close(v, saved["model"][k])
    boards = np.stack([STARTING.board, STARTING.flip().board])
    assert not np.allclose(
        NetEvaluator.from_checkpoint(out).probabilities(boards),
        NetEvaluator.from_checkpoint(live).probabilities(boards),
    )

    # resuming (with another time constant: not part of the run's identity) goes on from the saved average
    again = Trainer(tiny(games=32, average=8), tmp_path / "b", progress=False)
    for k, v in again.average.weights["main"].items():
        torch.testing.assert_close(v, saved["average"]["main"][k])
    again.run()
    assert again.state.games == 32
    assert again.average.since == 0  # the average's start travels with it
    # a session without averaging carries the saved average forward unchanged
    kept = checkpoint.read(again.latest_checkpoint())["average"]
    off = Trainer(tiny(games=40), tmp_path / "b", progress=False)
    off.run()
    carried = checkpoint.read(off.latest_checkpoint())
    assert carried["counters"]["games"] == 40 and carried["average"]["since"] == 0
    for k, v in carried["average"]["main"].items():
        torch.testing.assert_close(v, kept["main"][k])
    # a run resumed from a checkpoint without one starts its average there, from the resumed weights
    later = Trainer(tiny(games=40, average=8), tmp_path / "a", progress=False)
    assert later.average.since == 24
    for k, v in later.average.weights["main"].items():
        torch.testing.assert_close(v, later.evaluator.model.state_dict()[k])


def test_a_bfloat16_copy_of_a_network_values_close_to_it_consistently_and_follows_its_updates():
    from bgnet.encoding import EXTENDED
    from bgnet.network import ValueNet

    torch.manual_seed(1)
    model = ValueNet(EXTENDED.width, (64, 64))
    twin = model.cast_copy(torch.bfloat16)
    assert twin.layers[0].weight.dtype == torch.bfloat16 and model.layers[0].weight.dtype == torch.float32
    boards = np.stack([STARTING.board] * 2 + [STARTING.flip().board])
    x = torch.from_numpy(EXTENDED.encode(boards))
    with torch.no_grad():
        exact, low = model(x), twin(x)
        assert low.dtype == torch.float32
        assert (low - exact).abs().max() < 0.02
        assert (low[:, 1] <= low[:, 0]).all() and (low[:, 4] <= low[:, 3]).all()
        for p in model.parameters():  # an update of the original...
            p.add_(0.05 * torch.randn_like(p))
        moved = model(x)
        assert (twin(x) - moved).abs().max() > 0.001  # ...that the copy does not see until refreshed
        twin.copy_weights_from(model)
        assert (twin(x) - moved).abs().max() < 0.02


def test_a_bfloat16_policy_plays_self_play_and_is_refreshed_after_every_update(tmp_path, monkeypatch):
    from bgnet_training.train import SelfPlayChooser, policy_dtype

    assert policy_dtype("bfloat16", "cpu") == torch.bfloat16
    assert policy_dtype("float32", "cpu") == torch.float32
    trainer = Trainer(tiny(policy_dtype="bfloat16", games=24), tmp_path, progress=False)
    refreshed = []
    original = SelfPlayChooser.refresh

    def refresh(self):
        original(self)
        low = self.policy.model
        assert low is not self.evaluator.model and low.layers[0].weight.dtype == torch.bfloat16
        for mine, theirs in zip(low.parameters(), self.evaluator.model.parameters(), strict=True):
            assert torch.equal(mine, theirs.to(torch.bfloat16))
        refreshed.append(trainer.state.updates)

    monkeypatch.setattr(SelfPlayChooser, "refresh", refresh)
    st = trainer.run()
    # after each update that more games follow (the last one ends the run)
    assert st.games == 24 and st.updates >= 3 and refreshed == list(range(1, st.updates))
    # a run may switch its policy's precision between sessions (a setting, like the device)
    assert Trainer(tiny(policy_dtype="float32", games=24), tmp_path, progress=False).state.games == 24
    # auto falls back to float32 on a CPU that does not compute in bfloat16
    monkeypatch.setattr(torch.backends.mkldnn, "is_available", lambda: False)
    assert policy_dtype("auto", "cpu") == torch.float32


def test_a_self_play_worker_refreshes_its_bfloat16_policy_with_the_weights_it_is_sent(tmp_path):
    from bgnet_training.train import network_weights
    from bgnet_training.workers import SelfPlayWorker

    worker = SelfPlayWorker(tiny(policy_dtype="bfloat16").to_dict(), 0, [3])
    learner = Trainer(tiny(policy_dtype="bfloat16"), tmp_path, progress=False)
    for p in learner.evaluator.model.parameters():
        torch.nn.init.normal_(p)
    worker.set_weights(7, network_weights(learner.evaluator))
    low = worker.choose.policy.model
    assert low.layers[0].weight.dtype == torch.bfloat16
    for mine, theirs in zip(low.parameters(), learner.evaluator.model.parameters(), strict=True):
        assert torch.equal(mine, theirs.to(torch.bfloat16))
    batch = worker.play(8)
    assert batch.games >= 8 and batch.version == 7
    assert SelfPlayWorker(tiny().to_dict(), 1, [3]).choose.screen is None  # float32: no screen


def test_a_bfloat16_policy_picks_the_replies_of_the_1_ply_targets_with_the_weights_just_sent(tmp_path):
    from bgnet_training.train import network_weights
    from bgnet_training.workers import SelfPlayWorker

    cfg = tiny(policy_dtype="bfloat16", target="ply1")
    worker = SelfPlayWorker(cfg.to_dict(), 0, [5])
    learner = Trainer(cfg, tmp_path, progress=False)
    torch.manual_seed(1)
    for p in learner.evaluator.model.parameters():
        torch.nn.init.normal_(p, std=0.5)
    worker.set_weights(1, network_weights(learner.evaluator))
    batch = worker.play(4)
    ev = learner.evaluator  # the same weights, float32
    model = ev.model
    assert isinstance(model, ValueNet)
    low = NetEvaluator(model.cast_copy(torch.bfloat16), ev.encoder, race=ev.race, bearoff=ev.bearoff)
    with ev.screened(low):
        screened = ev.probabilities(batch.boards, 1)
    plain = ev.probabilities(batch.boards, 1)
    np.testing.assert_allclose(batch.targets, screened, atol=1e-6)
    assert np.abs(batch.targets - plain).max() > 1e-4, "the bfloat16 copy picked some other reply"
    assert worker.evaluator.screen is None, "the screen is set for the labels only"


def test_train_help_lists_every_config_field(capsys):
    from bgnet.cli import main
    from bgnet_training.config import FIELDS

    with pytest.raises(SystemExit) as done:
        main(["train", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert all(f"--{name.replace('_', '-')}" in out for name in FIELDS)
    assert "3% of" in " ".join(out.split())  # a docstring's % is text, not a format
