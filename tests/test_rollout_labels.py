"""Rollout labels of bgnet's own positions (training/rollout_labels.py) and fitting a network to them
(training/fit_labels.py)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from test_crashed_network import crashed_boards

from bgnet import checkpoint
from bgnet.encoding import EXTENDED
from bgnet.evaluator import NetEvaluator
from bgnet.network import EnsembleNet, ValueNet
from bgnet.probabilities import equity
from bgnet.pubeval import is_crashed, is_race
from bgnet.rollout import RolloutSettings, rollout_boards
from bgnet_training import fit_labels, races
from bgnet_training import rollout_labels as rl


def entry(model: ValueNet) -> dict:
    return {
        "model": model.state_dict(),
        "shape": model.shape,
        "encoder": EXTENDED.name,
        "encoder_version": EXTENDED.version,
    }


def networks_file(path: Path, crashed: bool = True, seed: int = 0) -> Path:
    """A small networks file: a main network and (``crashed``) a crashed one, random weights."""
    torch.manual_seed(seed)
    state = entry(ValueNet(EXTENDED.width, (8,)))
    if crashed:
        state["crashed"] = entry(ValueNet(EXTENDED.width, (8,)))
    return checkpoint.save(path, state)


@pytest.fixture
def files(tmp_path):
    nets = networks_file(tmp_path / "nets.pt")
    starts = tmp_path / "crashed.npz"
    races.save(starts, crashed_boards(), "tests", 1, kind="crashed")
    return tmp_path, nets, starts


def command(nets: Path, starts: Path, out: Path, *more: str) -> list[str]:
    return [
        str(nets),
        str(out),
        "--starts",
        str(starts),
        "--games",
        "4",
        "--positions",
        "5",
        "--chunk",
        "2",
    ] + list(more)


def test_labels_are_rollouts_of_crashed_self_play_positions_and_a_stopped_file_resumes_to_the_same(files):
    tmp, nets, starts = files
    out = tmp / "labels.npz"
    assert rl.main(command(nets, starts, out, "--trials", "6")) == 0
    boards, probs, se, done, settings, _ = rl.load(out)
    assert done == len(boards) == 5
    assert is_crashed(boards).all()
    assert len(np.unique(boards, axis=0)) == 5
    assert settings["trials"] == 6 and settings["kind"] == "crashed"
    # the second chunk (positions 2 and 3) is their rollout on the chunk's own dice
    ev = NetEvaluator.from_checkpoint(nets, bearoff=True)
    results = rollout_boards(
        boards[2:4], RolloutSettings(games=6, luck=False, seed=1_000_003 + 2), evaluator=ev
    )
    np.testing.assert_allclose(probs[2:4], [r.probabilities for r in results])
    np.testing.assert_allclose(se[2:4], [r.probabilities_se for r in results])
    assert not np.allclose(probs[0], probs[1])
    # a file stopped after its first chunk goes on to the same labels
    stopped = tmp / "stopped.npz"
    partial = probs.copy()
    partial[2:] = np.nan
    rl.save(stopped, boards, partial, se, 2, settings)
    assert rl.main(command(nets, starts, stopped, "--trials", "6")) == 0
    np.testing.assert_array_equal(rl.load(stopped)[1], probs)


def test_luck_adjusted_labels_are_the_luck_adjusted_rollouts_and_files_before_the_flag_resume(files, capsys):
    tmp, nets, starts = files
    out = tmp / "luck.npz"
    assert rl.main(command(nets, starts, out, "--trials", "6", "--luck")) == 0
    boards, probs, se, done, settings, _ = rl.load(out)
    assert done == 5 and settings["luck"] is True
    ev = NetEvaluator.from_checkpoint(nets, bearoff=True)
    lucky, plain = (
        rollout_boards(boards[2:4], RolloutSettings(games=6, luck=luck, seed=1_000_003 + 2), evaluator=ev)
        for luck in (True, False)
    )
    np.testing.assert_allclose(probs[2:4], np.clip([r.probabilities for r in lucky], 0, 1))
    np.testing.assert_allclose(se[2:4], [r.probabilities_se for r in lucky])
    assert not np.allclose(probs[2:4], [r.probabilities for r in plain])
    assert rl.main(command(nets, starts, out, "--trials", "6")) == 1  # without --luck: other settings
    assert "luck: True != False" in capsys.readouterr().err
    # a file written before the flag (no "luck" in its settings) resumes without it
    old = tmp / "old.npz"
    assert rl.main(command(nets, starts, old, "--trials", "6")) == 0
    b, p, e, _, saved, _ = rl.load(old)
    del saved["luck"]
    partial = p.copy()
    partial[2:] = np.nan
    rl.save(old, b, partial, e, 2, saved)
    assert rl.main(command(nets, starts, old, "--trials", "6")) == 0
    np.testing.assert_array_equal(rl.load(old)[1], p)


def test_other_settings_and_bad_files_are_one_line_errors(files, capsys):
    tmp, nets, starts = files
    out = tmp / "labels.npz"
    assert rl.main(command(nets, starts, out, "--trials", "4")) == 0
    capsys.readouterr()
    assert rl.main(command(nets, starts, out, "--trials", "8")) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "other settings (trials: 4 != 8)" in err
    junk = tmp / "junk.npz"
    junk.write_bytes(b"not an archive")
    assert rl.main(command(nets, starts, junk, "--trials", "4")) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is not a rollout labels file" in err
    assert rl.main(command(nets, starts, tmp / "none" / "x.npz")) == 1
    assert "does not exist" in capsys.readouterr().err
    assert rl.main(command(nets, starts, out, "--trials", "1")) == 2
    capsys.readouterr()
    # the networks file changed since the labels were made: refused, nothing lost
    before = out.read_bytes()
    networks_file(nets, seed=1)
    assert rl.main(command(nets, starts, out, "--trials", "4")) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the networks file's contents (SHA-256)" in err
    assert out.read_bytes() == before


@pytest.mark.parametrize(
    "damage, message",
    [
        (
            lambda p, s: (np.where(np.arange(p.size).reshape(p.shape) == 0, np.nan, p), s),
            "is not a probability",
        ),
        (lambda p, s: (p, "[1, 2]"), "not a JSON object"),
        (lambda p, s: (p, "{not json"), "not a JSON object"),
    ],
)
def test_a_damaged_labels_file_is_one_line(files, capsys, damage, message):
    tmp, nets, starts = files
    out = tmp / "labels.npz"
    assert rl.main(command(nets, starts, out, "--trials", "4")) == 0
    boards, probs, se, done, settings, _ = rl.load(out)
    probs, text = damage(probs.copy(), json.dumps(settings))
    with open(out, "wb") as f:
        np.savez(
            f,
            format=np.array(rl.FORMAT),
            boards=boards,
            probs=probs,
            se=se,
            done=np.array(done),
            settings=np.array(text),
        )
    capsys.readouterr()
    assert rl.main(command(nets, starts, out, "--trials", "4")) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert fit_labels.main([str(nets), str(out), str(tmp / "o.pt")]) == 1
    assert message in capsys.readouterr().err


def teacher_labels(tmp: Path, nets: Path, starts: Path, teacher: ValueNet | None) -> Path:
    """A labels file of crashed self-play positions whose labels are ``teacher``'s values (or, with None,
    the file's own crashed network's): a target a network can learn exactly, no noise."""
    boards = rl.positions(str(nets), "crashed", 40, 600, 1, str(starts))
    assert len(boards) >= 100
    if teacher is None:
        probs = NetEvaluator.from_checkpoint(nets).probabilities(boards)
    else:
        with torch.no_grad():
            probs = teacher(torch.from_numpy(EXTENDED.encode(boards))).numpy()
    out = tmp / "teacher.npz"
    settings = {"kind": "crashed"}
    rl.save(
        out, boards, probs.astype(np.float64), np.zeros_like(probs, dtype=np.float64), len(boards), settings
    )
    return out


def test_fitting_learns_the_labels_on_held_out_positions_and_changes_only_that_network(files):
    tmp, nets, starts = files
    torch.manual_seed(5)
    labels = teacher_labels(tmp, nets, starts, ValueNet(EXTENDED.width, (8,)))
    out = tmp / "fitted.pt"
    args = [str(nets), str(labels), str(out), "--epochs", "30", "--lr", "3e-3", "--holdout", "0.25"]
    assert fit_labels.main(args) == 0
    before, after = checkpoint.read(nets), checkpoint.read(out)
    source = after["crashed_source"]
    history = [h["held_out"] for h in source["history"]]
    assert source["best_epoch"] > 0
    assert min(history) < 0.3 * history[0]
    for k, v in before["model"].items():  # the main network is untouched
        assert torch.equal(v, after["model"][k])
    assert any(
        not torch.equal(v, after["crashed"]["model"][k]) for k, v in before["crashed"]["model"].items()
    )
    assert "optimizer" not in after and "optimizer" not in after["crashed"]
    ev = NetEvaluator.from_checkpoint(out)
    boards, probs = rl.load(labels)[:2]
    held = np.random.default_rng(1).permutation(len(boards))[: source["held_out"]]
    err = float(((ev.probabilities(boards[held]) - probs[held]) ** 2).mean())
    assert err == pytest.approx(min(history), rel=1e-4)


def test_no_epoch_better_than_the_start_keeps_the_files_weights(files):
    tmp, nets, starts = files
    labels = teacher_labels(tmp, nets, starts, None)  # the crashed network's own values: nothing to learn
    out = tmp / "fitted.pt"
    assert fit_labels.main([str(nets), str(labels), str(out), "--epochs", "2", "--lr", "1e-2"]) == 0
    after = checkpoint.read(out)
    assert after["crashed_source"]["best_epoch"] == 0
    for k, v in checkpoint.read(nets)["crashed"]["model"].items():
        assert torch.equal(v, after["crashed"]["model"][k])


def test_main_network_fit_keeps_the_crashed_one_and_a_tiny_set_still_holds_one_out(files):
    tmp, nets, starts = files
    labels = teacher_labels(tmp, nets, starts, None)
    boards, probs, se, _, settings, _ = rl.load(labels)
    plain = networks_file(tmp / "plain.pt", crashed=False)  # crashed positions go to its main network
    rl.save(labels, boards[:3], probs[:3], se[:3], 3, settings)
    out = tmp / "fitted.pt"
    args = [str(plain), str(labels), str(out), "--net", "main", "--epochs", "1", "--holdout", "0.9"]
    assert fit_labels.main(args) == 0
    source = checkpoint.read(out)["main_source"]
    assert (source["positions"], source["held_out"]) == (1, 2)


def test_a_run_checkpoint_is_refused(files, capsys):
    tmp, nets, starts = files
    labels = teacher_labels(tmp, nets, starts, None)
    run = tmp / "run.pt"
    checkpoint.save(run, checkpoint.read(nets) | {"optimizer": {}})
    assert fit_labels.main([str(run), str(labels), str(tmp / "o.pt")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a run's checkpoint: ship it first" in err


def test_a_file_without_the_network_is_a_one_line_error(files, capsys):
    tmp, nets, starts = files
    labels = tmp / "labels.npz"
    assert rl.main(command(nets, starts, labels, "--trials", "4")) == 0
    capsys.readouterr()
    plain = networks_file(tmp / "plain.pt", crashed=False)
    assert fit_labels.main([str(plain), str(labels), str(tmp / "o.pt")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "has no crashed network" in err
    assert not (tmp / "o.pt").exists()
    assert fit_labels.main([str(nets), str(tmp / "missing.npz"), str(tmp / "o.pt")]) == 1
    assert "not found" in capsys.readouterr().err


def test_ctrl_c_keeps_the_chunks_written_and_says_how_to_go_on(files, monkeypatch, capsys):
    tmp, nets, starts = files
    out = tmp / "labels.npz"
    calls = []

    def stop_on_second(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    import bgnet.rollout

    real = bgnet.rollout.rollout_boards
    monkeypatch.setattr(bgnet.rollout, "rollout_boards", stop_on_second)
    assert rl.main(command(nets, starts, out, "--trials", "4")) == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "interrupted: 2 of 5 labelled" in err
    boards, probs, _, done, _, _ = rl.load(out)
    assert done == 2 and np.isfinite(probs[:2]).all() and np.isnan(probs[2:]).all()


def race_command(nets: Path, out: Path, *more: str) -> list[str]:
    return [str(nets), str(out), "--kind", "race", "--games", "6", "--positions", "4", "--chunk", "2"] + list(
        more
    )


@pytest.mark.slow
def test_race_labels_on_two_processes_are_those_of_one(files):
    tmp, nets, _ = files
    one, two = tmp / "one.npz", tmp / "two.npz"
    assert rl.main(race_command(nets, one, "--trials", "4")) == 0
    assert rl.main(race_command(nets, two, "--trials", "4", "--jobs", "2")) == 0
    boards, probs, se, done, settings, _ = rl.load(one)
    assert done == len(boards) == 4 and settings["kind"] == "race"
    assert is_race(boards).all()  # pubeval's test: no contact left
    boards2, probs2, se2, done2, settings2, _ = rl.load(two)
    np.testing.assert_array_equal(boards2, boards)
    np.testing.assert_allclose(probs2, probs)
    np.testing.assert_allclose(se2, se)
    assert done2 == 4 and settings2 == settings
    assert not np.allclose(probs[0], probs[1])


@pytest.mark.slow
def test_ctrl_c_with_two_processes_stops_them_and_keeps_the_chunks_written(files, monkeypatch, capsys):
    import concurrent.futures

    import bgnet.rollout

    tmp, nets, _ = files
    out = tmp / "race.npz"
    pools: list[concurrent.futures.ProcessPoolExecutor] = []
    children: list = []
    real_wait = bgnet.rollout.wait

    class Recorded(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            pools.append(self)

    def stop_in_second_chunk(*args, **kwargs):
        if len(pools) == 2:  # Ctrl-C while the second chunk's processes play
            children.extend(pools[1]._processes.values())
            raise KeyboardInterrupt
        return real_wait(*args, **kwargs)

    monkeypatch.setattr(bgnet.rollout, "ProcessPoolExecutor", Recorded)
    monkeypatch.setattr(bgnet.rollout, "wait", stop_in_second_chunk)
    assert rl.main(race_command(nets, out, "--trials", "4", "--jobs", "2")) == 130
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "interrupted: 2 of 4 labelled" in err, err
    assert len(children) == 2, children
    assert not [p for p in children if p.is_alive()]  # stopped, not left to finish their work
    assert all(p.exitcode is not None and p.exitcode < 0 for p in children), [p.exitcode for p in children]
    boards, probs, _, done, _, _ = rl.load(out)
    assert done == 2 and np.isfinite(probs[:2]).all() and np.isnan(probs[2:]).all()


def test_sigterm_stops_a_training_command_as_ctrl_c_does_and_the_handler_is_put_back(tmp_path, capsys):
    import os
    import signal

    before = signal.getsignal(signal.SIGTERM)

    def killed() -> int:
        os.kill(os.getpid(), signal.SIGTERM)  # delivered here, in the main thread
        raise AssertionError("SIGTERM did not stop the command")

    assert races.writing_command(tmp_path / "out.npz", killed) == 130
    assert capsys.readouterr().err == "interrupted: nothing written\n"
    assert signal.getsignal(signal.SIGTERM) is before


def test_an_ensemble_crashed_network_is_not_fitted_and_says_so(files, capsys):
    tmp, nets, starts = files
    labels = teacher_labels(tmp, nets, starts, None)
    state = checkpoint.read(nets)
    pair = EnsembleNet.of([ValueNet(EXTENDED.width, (8,)), ValueNet(EXTENDED.width, (6,))])
    ensemble = checkpoint.save(tmp / "ensemble.pt", state | {"crashed": entry(pair)})
    out = tmp / "fitted.pt"
    capsys.readouterr()
    assert fit_labels.main([str(ensemble), str(labels), str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "its crashed network is an ensemble, which is not trained" in err
    assert not out.exists()


def test_decision_labels_are_the_best_plays_of_a_roll_rolled_out_on_their_decisions_dice(files, capsys):
    from bgnet.movegen import generate
    from bgnet.probabilities import equity

    tmp, nets, starts = files
    out = tmp / "decisions.npz"
    args = command(nets, starts, out, "--trials", "4", "--plays", "3")
    assert rl.main(args) == 0
    boards, probs, se, done, settings, group = rl.load(out)
    assert settings["plays"] == 3 and done == len(boards)
    sizes = np.bincount(group)
    assert len(sizes) >= 3 and ((sizes >= 2) & (sizes <= 3)).all()
    # each decision's boards are the 0-ply best plays of one roll of a crashed self-play position
    roots = rl.positions(str(nets), "crashed", 4, 5, 1, str(starts))
    ev = NetEvaluator.from_checkpoint(nets, bearoff=True)
    matched = 0
    for root in roots:
        for high in range(1, 7):
            for low in range(1, high + 1):
                batch = generate(root[None, :], np.array([[high, low]]))
                after = batch.positions
                for d in range(len(sizes)):
                    mine = boards[group == d]
                    rows = [
                        int(np.flatnonzero((after == b).all(axis=1))[0])
                        for b in mine
                        if (after == b).all(axis=1).any()
                    ]
                    if len(rows) != len(mine):
                        continue
                    if len(after) > len(mine):
                        eq = equity(ev.rank(batch, 0))
                        assert eq[rows].min() >= np.delete(eq, rows).max() - 1e-9
                    matched += 1
    assert matched >= len(sizes)
    # a chunk is whole decisions (--chunk 2: decisions 2 and 3), rolled out on the chunk's dice
    lo, hi = int(np.argmax(group == 2)), int(np.flatnonzero(group == 3)[-1]) + 1
    results = rollout_boards(
        boards[lo:hi], RolloutSettings(games=4, luck=False, seed=1_000_003 + lo), evaluator=ev
    )
    np.testing.assert_allclose(probs[lo:hi], [r.probabilities for r in results])
    # another --plays is another file's settings; --plays 1 is refused
    capsys.readouterr()
    assert rl.main(command(nets, starts, out, "--trials", "4", "--plays", "4")) == 1
    assert "plays: 3 != 4" in capsys.readouterr().err
    assert rl.main(command(nets, starts, tmp / "one.npz", "--plays", "1")) == 2
    assert "--plays must be 0 or >= 2" in capsys.readouterr().err


def test_decision_numbers_out_of_order_are_a_one_line_error(files, capsys):
    tmp, nets, starts = files
    out = tmp / "decisions.npz"
    assert rl.main(command(nets, starts, out, "--trials", "4", "--plays", "3")) == 0
    boards, probs, se, done, settings, group = rl.load(out)
    rl.save(out, boards, probs, se, done, settings, group[::-1].copy())
    capsys.readouterr()
    assert fit_labels.main([str(nets), str(out), str(tmp / "o.pt"), "--gap", "1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "decision numbers are not 0, 1, 2" in err


def test_fitting_the_gaps_learns_which_play_is_best_on_held_out_decisions(files, capsys):
    tmp, nets, starts = files
    made = gap_file(tmp, nets, starts)
    labels = rl.load(made)
    boards, group = labels.boards, labels.group
    assert int(group[-1]) + 1 >= 100
    out = tmp / "fitted.pt"
    args = [
        str(nets),
        str(made),
        str(out),
        "--epochs",
        "30",
        "--lr",
        "3e-3",
        "--holdout",
        "0.25",
        "--gap",
        "4",
    ]
    assert fit_labels.main(args) == 0
    printed = capsys.readouterr().out
    found = [float(s.split("%")[0]) for s in printed.split("best play found in ")[1:]]
    rms = [float(s.split(" mEq")[0]) for s in printed.split("gaps' rms error ")[1:]]
    source = checkpoint.read(out)["crashed_source"]
    assert source["best_epoch"] > 0 and source["gap"] == 4
    kept = source["best_epoch"]
    assert rms[kept] < 0.5 * rms[0] and found[kept] > found[0]
    # a quarter of the decisions the crashed network values (after a play, some are not crashed)
    from bgnet_training.train import trained_rows

    valued = trained_rows(NetEvaluator.from_checkpoint(nets, bearoff=True), boards, "crashed")
    assert source["held_out_decisions"] == round(0.25 * len(np.unique(group[valued])))
    # values alone on a file of positions: --gap needs decisions
    plain = teacher_labels(tmp, nets, starts, None)
    assert fit_labels.main([str(nets), str(plain), str(tmp / "o.pt"), "--gap", "1"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no decision with two plays" in err


def test_a_copy_of_the_networks_file_elsewhere_goes_on_with_the_labels(files):
    import shutil

    tmp, nets, starts = files
    out = tmp / "labels.npz"
    assert rl.main(command(nets, starts, out, "--trials", "4")) == 0
    boards, probs, se, done, settings, group = rl.load(out)
    partial = probs.copy()
    partial[2:] = np.nan
    rl.save(out, boards, partial, se, 2, settings, group)
    copy = shutil.copy(nets, tmp / "elsewhere.pt")
    assert rl.main(command(Path(copy), starts, out, "--trials", "4")) == 0
    after = rl.load(out)
    np.testing.assert_array_equal(after.probs, probs)
    assert after.settings["checkpoint"] == nets.name  # the name its networks first had
    assert settings["checkpoint"] == nets.name and nets.name != str(nets)  # no directory recorded


def test_search_labels_are_the_networks_own_values_of_the_same_decisions(files):
    tmp, nets, starts = files
    rolled, searched = tmp / "rolled.npz", tmp / "searched.npz"
    assert rl.main(command(nets, starts, rolled, "--trials", "4", "--plays", "3")) == 0
    assert rl.main(command(nets, starts, searched, "--trials", "4", "--plays", "3", "--search", "1")) == 0
    a, b = rl.load(rolled), rl.load(searched)
    np.testing.assert_array_equal(a.boards, b.boards)
    np.testing.assert_array_equal(a.group, b.group)
    assert b.settings["search"] == 1 and (b.se == 0).all()
    ev = NetEvaluator.from_checkpoint(nets, bearoff=True)
    np.testing.assert_allclose(b.probs, np.clip(ev.probabilities(b.boards, ply=1), 0, 1), atol=1e-6)
    assert not np.allclose(b.probs, ev.probabilities(b.boards, ply=0), atol=1e-3)


def test_contact_positions_are_those_the_main_network_values_and_other_kinds_are_refused(files, capsys):
    from bgnet_training.train import training_phases

    tmp, nets, _ = files
    boards = rl.positions(str(nets), "contact", 6, 400, 1, None)  # from the opening
    assert len(boards) >= 100 and len(np.unique(boards, axis=0)) == len(boards)
    ev = NetEvaluator.from_checkpoint(nets, bearoff=True)
    names = list(ev.networks())
    assert (training_phases(ev, boards) == names.index("main")).all()
    assert not is_race(boards).any() and not is_crashed(boards).any()
    # a starts file of contact positions takes them and refuses a crashed or a race board in one line
    races.save(tmp / "contact.npz", boards, "tests", 6, kind="contact")
    np.testing.assert_array_equal(races.load(tmp / "contact.npz"), boards)
    for bad in (crashed_boards()[:1], race_boards()[:1]):
        with pytest.raises(races.StartsError, match="not a contact position that is not crashed"):
            races.check_boards(bad, "x", "contact")


def race_boards() -> np.ndarray:
    from bgnet.position import random_race

    rng = np.random.default_rng(3)
    return np.array([random_race(rng) for _ in range(4)])


def gap_file(tmp: Path, nets: Path, starts: Path) -> Path:
    """A decisions file labelled by a random teacher network (something to learn, no noise)."""
    roots = rl.positions(str(nets), "crashed", 40, 600, 1, str(starts))
    boards, group = rl.decisions(str(nets), roots, 4, 1)
    torch.manual_seed(5)
    teacher = ValueNet(EXTENDED.width, (8,))
    with torch.no_grad():
        probs = teacher(torch.from_numpy(EXTENDED.encode(boards))).numpy().astype(np.float64)
    made = tmp / "decisions.npz"
    rl.save(made, boards, probs, np.zeros_like(probs), len(boards), {"kind": "crashed", "plays": 4}, group)
    return made


def test_only_the_last_layers_train_with_layers(files):
    tmp, nets, starts = files
    made = gap_file(tmp, nets, starts)
    out = tmp / "fitted.pt"
    args = [str(nets), str(made), str(out), "--epochs", "5", "--lr", "3e-3", "--gap", "4", "--layers", "1"]
    assert fit_labels.main(args) == 0
    before, after = checkpoint.read(nets)["crashed"]["model"], checkpoint.read(out)["crashed"]["model"]
    assert checkpoint.read(out)["crashed_source"]["best_epoch"] > 0
    # layers.0 is the hidden layer (frozen), layers.2 the output layer (trained)
    for k in ("layers.0.weight", "layers.0.bias"):
        assert torch.equal(before[k], after[k])
    assert not torch.equal(before["layers.2.weight"], after["layers.2.weight"])
    assert fit_labels.main([*args[:3], "--layers", "-1"]) == 2


def test_files_given_with_also_are_fitted_as_one_file_of_their_decisions(files):
    tmp, nets, starts = files
    whole = rl.load(gap_file(tmp, nets, starts))
    cut = int(np.searchsorted(whole.group, whole.group[len(whole.group) // 2]))  # a decision boundary
    first, second = tmp / "a.npz", tmp / "b.npz"
    settings = whole.settings
    rl.save(first, whole.boards[:cut], whole.probs[:cut], whole.se[:cut], cut, settings, whole.group[:cut])
    rest = whole.group[cut:] - whole.group[cut]  # the second file numbers its decisions from 0
    n = len(rest)
    rl.save(second, whole.boards[cut:], whole.probs[cut:], whole.se[cut:], n, settings, rest)
    common = ["--epochs", "3", "--lr", "3e-3", "--gap", "4"]
    assert fit_labels.main([str(nets), str(tmp / "decisions.npz"), str(tmp / "one.pt"), *common]) == 0
    assert fit_labels.main([str(nets), str(first), str(tmp / "two.pt"), "--also", str(second), *common]) == 0
    one, two = checkpoint.read(tmp / "one.pt"), checkpoint.read(tmp / "two.pt")
    for k, v in one["crashed"]["model"].items():
        assert torch.equal(v, two["crashed"]["model"][k])
    assert two["crashed_source"]["labels"] == [str(first), str(second)]
    assert two["crashed_source"]["held_out_decisions"] == one["crashed_source"]["held_out_decisions"]


def test_a_share_of_the_training_decisions_is_fitted_and_the_held_out_ones_stay(files, capsys):
    tmp, nets, starts = files
    made = gap_file(tmp, nets, starts)
    common = [str(nets), str(made)]
    opts = ["--epochs", "2", "--lr", "3e-3", "--gap", "4"]
    assert fit_labels.main([*common, str(tmp / "all.pt"), *opts]) == 0
    assert fit_labels.main([*common, str(tmp / "half.pt"), *opts, "--share", "0.5"]) == 0
    whole, half = (checkpoint.read(tmp / f)["crashed_source"] for f in ("all.pt", "half.pt"))
    assert half["share"] == 0.5 and whole["share"] == 1.0
    # the same held-out decisions, valued the same before fitting; about half the decisions fitted
    assert (half["held_out"], half["held_out_decisions"]) == (whole["held_out"], whole["held_out_decisions"])
    assert half["history"][0] == whole["history"][0]
    assert 0.3 * whole["positions"] < half["positions"] < 0.7 * whole["positions"]
    capsys.readouterr()
    assert fit_labels.main([*common, str(tmp / "x.pt"), "--share", "0"]) == 2
    assert capsys.readouterr().err.strip() == "error: --share must be in (0, 1]"


def test_screened_search_labels_pick_replies_in_low_precision_and_are_their_own_settings(
    files, capsys, monkeypatch
):
    from bgnet_training.train import low_precision, policy_dtype

    tmp, nets, starts = files
    plain, screened = tmp / "plain.npz", tmp / "screened.npz"
    assert rl.main(command(nets, starts, plain, "--plays", "3", "--search", "1")) == 0
    # the screen each search ran with (this small network's labels hardly differ with it)
    seen: list = []
    search = NetEvaluator.probabilities

    def spy(self, boards, ply=0):
        if ply:
            seen.append(self.screen)
        return search(self, boards, ply)

    monkeypatch.setattr(NetEvaluator, "probabilities", spy)
    assert rl.main(command(nets, starts, screened, "--plays", "3", "--search", "1", "--screen")) == 0
    monkeypatch.undo()
    ev = NetEvaluator.from_checkpoint(nets, bearoff=True)
    dtype = policy_dtype("auto", ev.device)
    assert seen and all(
        s is None if dtype == torch.float32 else next(s.model.parameters()).dtype == dtype for s in seen
    )
    a, b = rl.load(plain), rl.load(screened)
    np.testing.assert_array_equal(a.boards, b.boards)
    assert b.settings["screen"] is True and a.settings["screen"] is False
    screen = low_precision(ev, dtype)
    with ev.screened(screen):
        expected = np.clip(ev.probabilities(b.boards, ply=1), 0, 1)
    np.testing.assert_allclose(b.probs, expected, atol=1e-6)
    np.testing.assert_allclose(b.probs, a.probs, atol=0.05)  # the same labels but for a few replies
    # a file made without it does not go on with it, and rollouts have nothing to screen
    capsys.readouterr()
    assert rl.main(command(nets, starts, plain, "--plays", "3", "--search", "1", "--screen")) == 1
    assert "screen: False != True" in capsys.readouterr().err
    assert rl.main(command(nets, starts, tmp / "x.npz", "--trials", "4", "--screen")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--screen needs --search" in err


def test_a_fit_is_scored_by_its_choices_on_decisions_of_other_files_before_and_after(files, capsys):
    tmp, nets, starts = files
    made = gap_file(tmp, nets, starts)
    out = tmp / "fitted.pt"
    common = [str(nets), str(made), str(out), "--epochs", "30", "--lr", "3e-3", "--gap", "4"]
    assert fit_labels.main([*common, "--test", str(made)]) == 0
    printed = capsys.readouterr().out.splitlines()[-1]
    test = checkpoint.read(out)["crashed_source"]["test"]
    # by hand: each decision's play that the whole evaluator prefers, and what it loses by the labels
    labels = rl.load(made)
    ref = -equity(labels.probs)
    by_hand = {}
    for path, when in ((nets, "before"), (out, "after")):
        mover = -equity(NetEvaluator.from_checkpoint(path).probabilities(labels.boards))
        losses = []
        for g in np.unique(labels.group):
            rows = np.flatnonzero(labels.group == g)
            if len(rows) > 1:
                losses.append(1000 * (ref[rows].max() - ref[rows[np.argmax(mover[rows])]]))
        by_hand[when] = np.array(losses)
        assert test[when][0] == pytest.approx(np.mean(losses))
        assert test["decisions"] == len(losses) > 50
    # fitted to these very decisions' gaps, it chooses their best plays more often
    assert test["after"][0] < 0.7 * test["before"][0]
    # paired: the mean and interval of the decisions' differences
    diff = by_hand["after"] - by_hand["before"]
    ci = 1.96 * diff.std(ddof=1) / np.sqrt(len(diff))
    assert test["paired"] == pytest.approx([diff.mean(), ci], rel=1e-4)
    assert test["files"] == [str(made)]
    assert printed.startswith(f"test, {test['decisions']} decisions of {made}") and "paired" in printed
    # a test file that is not a labels file fails before any fitting, in one line, writing nothing
    bad = tmp / "bad.npz"
    bad.write_bytes(b"not a labels file")
    assert fit_labels.main([*common[:2], str(tmp / "none.pt"), "--test", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(bad) in err and not (tmp / "none.pt").exists()
    # so does a file of positions, not decisions: nothing to choose between
    plain = teacher_labels(tmp, nets, starts, None)
    assert fit_labels.main([*common[:2], str(tmp / "none.pt"), "--test", str(plain)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no decision with two plays to test on" in err
    assert not (tmp / "none.pt").exists()


def test_the_device_is_checked_before_anything_is_written_and_cpu_labels_as_the_default(files, capsys):
    tmp, nets, starts = files
    default, on_cpu = tmp / "default.npz", tmp / "cpu.npz"
    args = ("--trials", "4", "--plays", "3", "--search", "1")
    assert rl.main(command(nets, starts, default, *args)) == 0
    assert rl.main(command(nets, starts, on_cpu, *args, "--device", "cpu")) == 0
    np.testing.assert_array_equal(rl.load(default).probs, rl.load(on_cpu).probs)
    capsys.readouterr()
    bad = tmp / "bad.npz"
    assert rl.main(command(nets, starts, bad, *args, "--device", "gpu")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--device must be auto, cpu, cuda or cuda:N, not 'gpu'" in err
    if not torch.cuda.is_available():
        assert rl.main(command(nets, starts, bad, *args, "--device", "cuda:0")) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "CUDA is not available" in err
    assert not bad.exists()
