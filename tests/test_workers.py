"""Parallel self-play: worker processes play and label games, one learner trains (bgnet_training.workers)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from boards import TINY_RUN

from bgnet import checkpoint
from bgnet_training.config import make_config
from bgnet_training.train import Trainer, build_evaluator, network_weights
from bgnet_training.workers import ProcessPool, WorkerError

ROOT = Path(__file__).resolve().parents[1]

TINY = dict(TINY_RUN, name="par", games=48, workers=2)

pytestmark = pytest.mark.slow  # each test starts worker processes (imports torch and numba: seconds)


def test_two_workers_feed_one_learner_within_the_policy_lag(tmp_path):
    trainer = Trainer(make_config(TINY), tmp_path, progress=False)
    st = trainer.run()
    assert st.games >= 48 and st.updates == len(trainer.lags)
    assert max(trainer.lags) <= make_config(TINY).policy_lag() == 4
    logged = [
        line for line in (tmp_path / "par" / "metrics.jsonl").read_text().splitlines() if "policy_lag" in line
    ]
    assert len(logged) == st.updates
    ckpt = checkpoint.read(trainer.latest_checkpoint())
    assert ckpt["counters"]["games"] == st.games


def test_a_policy_lag_of_zero_drops_every_stale_batch(tmp_path):
    trainer = Trainer(make_config(dict(TINY, max_policy_lag=0, games=32)), tmp_path, progress=False)
    trainer.run()
    assert trainer.lags and set(trainer.lags) == {0}


def test_every_worker_plays_and_batches_carry_their_worker_and_version(tmp_path):
    cfg = make_config(TINY)
    ev = build_evaluator(cfg)
    pool = ProcessPool(cfg.to_dict(), 2, 8, seed=5, start_version=0)
    pool.start(0, network_weights(ev))
    try:
        seen = set()
        for i, batch in enumerate(pool.batches()):
            assert batch.version == 0 and batch.games >= 8 and len(batch.boards) == len(batch.targets)
            assert batch.targets.shape[1] == 5 and np.all((batch.targets >= 0) & (batch.targets <= 1))
            seen.add(batch.worker)
            if len(seen) == 2 or i > 20:
                break
        assert seen == {0, 1}
    finally:
        pool.stop()


def test_a_worker_that_cannot_start_says_why():
    cfg = make_config(TINY).to_dict()
    bad = dict(cfg, encoder="no-such-encoder")
    pool = ProcessPool(bad, 1, 8, seed=1, start_version=0)
    with pytest.raises(WorkerError, match="worker 0 cannot start: ConfigError: config field 'encoder'"):
        pool.start(0, network_weights(build_evaluator(make_config(TINY))))
    assert pool.slots == []


def test_a_worker_killed_with_sigkill_is_replaced_and_the_run_goes_on(tmp_path):
    trainer = Trainer(make_config(dict(TINY, games=240)), tmp_path, progress=False)
    rng = np.random.default_rng(7)
    killed = []

    def killer():
        # a random worker, as soon as the learner has trained once: early enough that the run still needs
        # its workers (a worker killed as the run ends is never replaced, and need not be)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            pool = getattr(trainer, "pool", None)
            if pool is not None and pool.slots and trainer.state.updates >= 1:
                if trainer.state.games <= 120:
                    pid = pool.slots[int(rng.integers(len(pool.slots)))].process.pid
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                return
            time.sleep(0.01)

    thread = threading.Thread(target=killer)
    thread.start()
    st = trainer.run()
    thread.join()
    assert killed and st.games >= 240
    assert trainer.pool.restarts >= 1


def _train_command(tmp_path: Path, games: int) -> list[str]:
    cfg = tmp_path / "par.toml"
    cfg.write_text(make_config(dict(TINY, games=games)).to_toml())
    return [
        sys.executable,
        "-m",
        "bgnet.cli",
        "train",
        "--config",
        str(cfg),
        "--runs",
        str(tmp_path / "runs"),
    ]


def test_the_learner_killed_with_sigkill_resumes_from_its_checkpoint(tmp_path):
    cmd = _train_command(tmp_path, 160)
    run_dir = tmp_path / "runs" / "par"
    proc = subprocess.Popen(
        [*cmd, "--no-progress"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and not list(run_dir.glob("checkpoint-*.pt")):
        time.sleep(0.2)
    assert list(run_dir.glob("checkpoint-*.pt")), "no checkpoint was written"
    time.sleep(float(np.random.default_rng(3).uniform(0.0, 1.0)))
    children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(30)
    # The workers see their learner's pipe close and exit.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and any(Path(f"/proc/{pid}").exists() for pid in children):
        time.sleep(0.2)
    assert not any(Path(f"/proc/{pid}").exists() for pid in children), "orphaned workers"
    for path in run_dir.glob("checkpoint-*.pt"):
        checkpoint.read(path)  # every checkpoint left is whole
    done = checkpoint.read(sorted(run_dir.glob("checkpoint-*.pt"))[-1])["counters"]["games"]
    again = subprocess.run([*cmd, "--no-progress"], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    assert f"resuming from {run_dir}" in again.stdout and f"({done} games done)" in again.stdout
    final = checkpoint.read(sorted(run_dir.glob("checkpoint-*.pt"))[-1])["counters"]["games"]
    assert final >= 160
