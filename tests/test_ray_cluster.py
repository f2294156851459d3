"""A real two-node Ray cluster on the loopback address trains one run with workers on both nodes; the pool's
handling of dying actors on a stand-in for Ray."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from bgnet import checkpoint
from bgnet_training.config import make_config
from bgnet_training.workers import RayPool, WorkerError, make_pool

ray = pytest.importorskip("ray", reason="Ray is an optional extra (bgnet[ray], in the dev extra)")

RAY = str(Path(sys.executable).parent / "ray")
STARTS = Path(__file__).resolve().parent.parent / "checkpoints" / "crashed-starts.npz"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_a_two_node_ray_cluster_on_loopback_trains_with_games_from_both_nodes(tmp_path):
    port = _free_port()
    short = Path(tempfile.mkdtemp(prefix="bgray"))  # Ray's socket paths must stay under 107 bytes
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_TMPDIR=str(short))
    common = ["--num-cpus=1", "--object-store-memory=100000000", "--disable-usage-stats"]
    started = []
    try:
        head = subprocess.run(
            [RAY, "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}",
             "--include-dashboard=false", f"--temp-dir={short}", *common],
            env=env, capture_output=True, text=True, timeout=180, cwd=short,
        )  # fmt: skip
        started.append(head)
        assert head.returncode == 0, head.stdout + head.stderr
        node = subprocess.run(
            [RAY, "start", f"--address=127.0.0.1:{port}", "--node-ip-address=127.0.0.1", *common],
            env=env, capture_output=True, text=True, timeout=180, cwd=short,
        )  # fmt: skip
        assert node.returncode == 0, node.stdout + node.stderr
        # (Games from crashed starts are short: 1,000 of them, so that the slower node's first batches
        # still come before the run ends.)
        # A starts file named relative to the learner's folder, which is not the nodes' folder: the
        # actors must read the learner's file (their config's paths are made absolute for them).
        shutil.copy(STARTS, tmp_path / "starts.npz")
        cfg = tmp_path / "ray.toml"
        cfg.write_text(
            make_config(
                dict(name="ray", hidden=(8,), games=1000, parallel_games=8, train_games=16, minibatch=64,
                     checkpoint_every=300, eval_every=0, device="cpu", threads=1, workers=2,
                     start="starts.npz")
            ).to_toml()
        )  # fmt: skip
        run = subprocess.run(
            [sys.executable, "-m", "bgnet.cli", "train", "--config", "ray.toml",
             "--runs", "runs", "--ray", f"127.0.0.1:{port}", "--no-progress"],
            env=env, capture_output=True, text=True, timeout=900, cwd=tmp_path,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
        line = next(x for x in run.stdout.splitlines() if x.startswith("games by worker node: "))
        per_node = [
            int(part.rsplit(": ", 1)[1]) for part in line.removeprefix("games by worker node: ").split(", ")
        ]
        assert len(per_node) == 2 and all(g > 0 for g in per_node) and sum(per_node) >= 300
        final = sorted((tmp_path / "runs" / "ray").glob("checkpoint-*.pt"))[-1]
        assert checkpoint.read(final)["counters"]["games"] >= 300
        # An actor that cannot start stops the pool with its reason (not restarted forever).
        bad = make_config(dict(name="bad", hidden=(8,), start=str(tmp_path / "missing.npz"))).to_dict()
        pool = make_pool(bad, 1, 8, 0, 0, f"127.0.0.1:{port}")
        with pytest.raises(
            WorkerError, match=r"self-play worker 0 cannot start: StartsError: .*missing\.npz"
        ):
            pool.start(0, {})  # not waited on: the actor's first answer says why
            next(pool.batches())
    finally:
        ray.shutdown()
        subprocess.run([RAY, "stop", "--force"], env=env, capture_output=True, timeout=120)
        shutil.rmtree(short, ignore_errors=True)


class _Ref:
    def __init__(self, outcome):
        self.outcome = outcome


class _FakeRay:
    """Enough of Ray for RayPool's loop: every ``play`` answers the next outcome of a script."""

    exceptions = ray.exceptions

    def __init__(self, script):
        self.script = list(script)
        self.made = 0
        self.killed = 0

    def put(self, value):
        return value

    def wait(self, refs, num_returns):
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref):
        if isinstance(ref.outcome, BaseException):
            raise ref.outcome
        return ref.outcome

    def kill(self, actor):
        self.killed += 1

    def remote(self, *args):  # the actor class
        self.made += 1
        fake = self

        class Method:
            def __init__(self, answer):
                self.answer = answer

            def remote(self, *args):
                return self.answer()

        class Actor:
            set_weights = Method(lambda: None)
            play = Method(lambda: _Ref(fake.script.pop(0)))

        return Actor()


def test_a_ray_worker_that_keeps_dying_before_a_batch_stops_the_run_and_one_that_plays_is_replaced():
    died = ray.exceptions.RayActorError(error_msg="The actor died unexpectedly before finishing this task.")
    script = [died, died, "batch 1", died, died, "batch 2", died, died, died, "never played"]
    fake = _FakeRay(script)
    pool = RayPool({}, 1, 8, 0, 0)
    pool.ray, pool.actor_class = fake, fake
    pool.start(0, {})
    batches = pool.batches()
    assert next(batches) == "batch 1" and next(batches) == "batch 2"  # two deaths in a row: replaced
    with pytest.raises(WorkerError) as stopped:
        next(batches)
    assert str(stopped.value) == (
        "self-play worker 0 died 3 times in a row without a game batch: "
        "The actor died unexpectedly before finishing this task."
    )
    assert pool.restarts == 6 and fake.made == 7 and script[-1] == "never played"
    assert fake.killed == 7  # each dead actor (one only unreachable would keep its CPU), then the last
