"""Self-play on every core: workers play and label games, one learner trains and publishes weights.

The protocol (one code path, whatever runs the workers)
-------------------------------------------------------
A :class:`SelfPlayWorker` holds its own copy of the networks (built from the
run's config) and its own :class:`~bgnet.lockstep.Lockstep` of
``parallel_games`` games.  It answers two calls:

* ``set_weights(version, weights)``: load the learner's weights of update
  ``version`` (``weights`` maps each trained phase network's name to its state dict
  as numpy arrays);
* ``play(games)``: play on until ``games`` games have ended, compute the
  training targets of all their positions (``training_targets``: the
  lambda-returns, or the 1-ply values) with the weights it holds, and return
  them as a :class:`GameBatch` stamped with that weights ``version``.

The learner (``Trainer``) takes batches as they come, drops a batch whose
version is more than ``max_policy_lag`` updates behind its own (the *policy
lag*: how stale the weights that played and labelled a batch may be), fits
the networks on the rest (one update per batch), and publishes the new
weights.  A worker gets the latest weights with its next ``play`` request,
once per version it has not seen: weights travel once per version per
worker, never with every task.

Who runs the workers
--------------------
* :class:`ProcessPool`: local processes (``multiprocessing``, spawn), one
  per worker, each on one torch thread, talking over a pipe.  A worker that
  dies (even by SIGKILL) is replaced and the run goes on; a worker that
  cannot start sends the reason, which stops the run with that line; when the
  learner dies, its workers see the pipe close and exit.
* :class:`RayPool` (``bgnet[ray]``): the same ``SelfPlayWorker`` as Ray
  actors on an existing cluster (``bgnet train --ray ADDRESS``); the weights
  are put in the object store once per version (``ray.put``).  A worker that
  cannot start for a reason it can name (a missing file ...) says why
  (:class:`RayWorker`), which stops the run with that line; one whose process
  dies is replaced, as one that dies later is.  Workers get the files a
  config names by absolute path (``train.worker_config``): an actor's folder
  is not the learner's.

With workers the order in which batches arrive depends on timing, so a run
does not replay game for game from its seed (the in-process mode,
``workers = 0``, does).
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np

from bgnet.errors import BgnetError

__all__ = [
    "GameBatch",
    "NotStarted",
    "ProcessPool",
    "RayPool",
    "RayWorker",
    "SelfPlayWorker",
    "WorkerError",
    "make_pool",
]

Weights = dict[str, dict[str, np.ndarray]]
"""Each trained phase network's state dict as numpy arrays (``bgnet_training.train.network_weights``)."""

ENDLESS = 1 << 62
"""A worker's lockstep never runs out of games to start."""


class WorkerError(BgnetError):
    """A self-play worker that cannot start or a pool that cannot go on."""


@dataclass
class GameBatch:
    """The positions of ``games`` finished games with their targets, from one worker."""

    boards: np.ndarray
    """(N, 26) int8, each seen from its side on roll."""
    values: np.ndarray
    """(N, 5) the worker's 0-ply probabilities of the boards (for the error measure)."""
    targets: np.ndarray
    """(N, 5) the training targets."""
    games: int
    version: int
    """The learner's update whose weights played and labelled these games."""
    worker: int
    node: str = ""
    """The host name of the worker's machine (Ray clusters: which node played)."""


class SelfPlayWorker:
    """Plays games in lockstep with its copy of the networks and labels their positions."""

    def __init__(self, config: dict[str, Any], worker: int, seed: list[int]) -> None:
        import torch

        from .config import make_config
        from .train import build_evaluator, selfplay

        torch.set_num_threads(1)
        self.cfg = make_config(config)
        self.worker = worker
        self.rng = np.random.default_rng(seed)
        torch.manual_seed(int(self.rng.integers(2**31)))
        self.evaluator = build_evaluator(self.cfg, "cpu")
        self.engine, self.choose = selfplay(self.cfg, self.evaluator, ENDLESS, self.rng)
        self.version = -1
        self.node = _node_name()

    def set_weights(self, version: int, weights: Weights) -> None:
        from .train import load_weights

        load_weights(self.evaluator, weights)
        self.choose.refresh()
        self.version = version

    def play(self, games: int) -> GameBatch:
        from .train import training_targets

        finished: list = []
        while len(finished) < games:
            finished += self.engine.step(self.choose)
        cfg = self.cfg
        boards, values, targets = training_targets(
            self.evaluator,
            finished,
            cfg.lam,
            cfg.target,
            cfg.train_nets,
            cfg.search_share,
            self.rng,
            self.choose.screen,
        )
        return GameBatch(boards, values, targets, len(finished), self.version, self.worker, self.node)


def why(e: BaseException) -> str:
    """The reason a worker could not start, as the run's last line gives it (local processes and Ray)."""
    return f"{type(e).__name__}: {e}"


def _node_name() -> str:
    """The Ray node id inside a Ray actor, else the host name: which machine played a batch."""
    import sys

    if "ray" in sys.modules:
        import ray

        if ray.is_initialized():
            return str(ray.get_runtime_context().get_node_id())
    return os.uname().nodename


# ---------------------------------------------------------------------------
# Local processes


def _worker_main(conn: Connection, config: dict[str, Any], worker: int, seed: list[int]) -> None:
    """A worker process: build the worker, then answer the learner's messages until it goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the learner's to handle; it stops us
    try:
        w = SelfPlayWorker(config, worker, seed)
    except BaseException as e:  # report why, whatever it is, then exit
        conn.send(("error", why(e)))
        return
    conn.send(("ready", os.getpid()))
    while True:
        try:
            kind, arg = conn.recv()
        except (EOFError, OSError):
            return  # the learner is gone
        if kind == "weights":
            w.set_weights(*arg)
        elif kind == "play":
            conn.send(("batch", w.play(arg)))
        else:
            return


@dataclass
class _Slot:
    worker: int
    incarnation: int
    process: Any
    conn: Connection
    version: int = -1
    """The weights version this worker holds."""


class ProcessPool:
    """``count`` local worker processes (see the module docstring).

    ``batches()`` yields :class:`GameBatch` es as they arrive; after each, the
    learner calls :meth:`publish` with its new weights, and the worker that
    sent the batch is given the latest weights and its next ``play``.
    """

    def __init__(
        self, config: dict[str, Any], count: int, games_per_batch: int, seed: int, start_version: int
    ) -> None:
        if count < 1:
            raise WorkerError(f"a worker pool needs at least one worker, got {count}")
        self.config = config
        self.count = count
        self.games = games_per_batch
        self.seed = seed
        self.start_version = start_version
        self.ctx = mp.get_context("spawn")
        self.slots: list[_Slot] = []
        self.latest: tuple[int, Weights] | None = None
        self.restarts = 0

    # -- life cycle -------------------------------------------------------------------
    def _spawn(self, worker: int, incarnation: int) -> _Slot:
        ours, theirs = self.ctx.Pipe()
        seed = [self.seed, worker, incarnation, self.start_version]
        p = self.ctx.Process(
            target=_worker_main,
            args=(theirs, self.config, worker, seed),
            daemon=True,
            name=f"bgnet-w{worker}",
        )
        p.start()
        theirs.close()
        return _Slot(worker, incarnation, p, ours)

    def _await_ready(self, slot: _Slot) -> None:
        try:
            kind, arg = slot.conn.recv()
        except (EOFError, OSError):
            code = slot.process.exitcode if not slot.process.is_alive() else None
            raise WorkerError(
                f"self-play worker {slot.worker} died while starting (exit code {code})"
            ) from None
        if kind == "error":
            raise WorkerError(f"self-play worker {slot.worker} cannot start: {arg}")

    def start(self, version: int, weights: Weights) -> None:
        self.latest = (version, weights)
        self.slots = [self._spawn(i, 0) for i in range(self.count)]
        try:
            for slot in self.slots:
                self._await_ready(slot)
        except BaseException:
            self.stop()
            raise
        for slot in self.slots:
            self._request(slot)

    def stop(self) -> None:
        for slot in self.slots:
            try:
                slot.conn.send(("stop", None))
            except (OSError, ValueError):
                pass
        deadline = time.monotonic() + 5
        for slot in self.slots:
            slot.process.join(max(0.0, deadline - time.monotonic()))
            if slot.process.is_alive():
                slot.process.kill()
                slot.process.join(1)
            slot.conn.close()
        self.slots = []

    def pids(self) -> list[int]:
        return [s.process.pid for s in self.slots]

    # -- the protocol -----------------------------------------------------------------
    def publish(self, version: int, weights: Weights) -> None:
        """The learner's weights of update ``version``; workers get them with their next request."""
        self.latest = (version, weights)

    def _request(self, slot: _Slot) -> None:
        assert self.latest is not None
        version, weights = self.latest
        try:
            if slot.version != version:
                slot.conn.send(("weights", (version, weights)))
                slot.version = version
            slot.conn.send(("play", self.games))
        except OSError:  # it died since its last batch: batches() sees its sentinel and replaces it
            pass

    def _replace(self, slot: _Slot) -> _Slot:
        """A worker died: start another in its place (it says why if it cannot start)."""
        slot.conn.close()
        slot.process.join(1)
        new = self._spawn(slot.worker, slot.incarnation + 1)
        self.slots[self.slots.index(slot)] = new
        self._await_ready(new)
        self.restarts += 1
        self._request(new)
        return new

    def batches(self) -> Iterator[GameBatch]:
        while True:
            by_conn = {s.conn: s for s in self.slots}
            by_sentinel = {s.process.sentinel: s for s in self.slots}
            ready = wait(list(by_conn) + list(by_sentinel))
            for r in ready:
                slot = by_conn.get(r) or by_sentinel.get(r)  # type: ignore[call-overload]
                if slot is None or slot not in self.slots:
                    continue  # replaced already in this round
                try:
                    if r is slot.process.sentinel and not slot.conn.poll():
                        raise EOFError
                    kind, arg = slot.conn.recv()
                except (EOFError, OSError):
                    self._replace(slot)
                    continue
                if kind == "error":
                    raise WorkerError(f"self-play worker {slot.worker} failed: {arg}")
                # Ask for the next batch before the learner fits this one, so the worker never waits
                # on the learner (its next batch is then played with weights one update older).
                self._request(slot)
                yield arg


# ---------------------------------------------------------------------------
# Ray


class NotStarted(WorkerError):
    """A Ray actor's answer when it could not start (its reason)."""


class RayWorker(SelfPlayWorker):
    """A :class:`SelfPlayWorker` as a Ray actor.  One that cannot start keeps the reason instead of
    dying in its constructor (which Ray reports as a dead actor, restarted forever by the pool), and
    answers its first ``play`` with it: the learner stops the run with that line, as with local
    processes, without waiting on an actor that may not be placed yet."""

    def __init__(self, config: dict[str, Any], worker: int, seed: list[int]) -> None:
        self.reason = ""
        try:
            super().__init__(config, worker, seed)
        except Exception as e:  # report why, whatever it is
            self.reason = why(e)

    def set_weights(self, version: int, weights: Weights) -> None:
        if not self.reason:
            super().set_weights(version, weights)

    def play(self, games: int) -> GameBatch:
        if self.reason:
            raise NotStarted(self.reason)
        return super().play(games)


MAX_DEATHS = 3
"""A Ray worker whose process dies this many times in a row without returning a game batch stops the run
(one that dies now and then, a node lost, is replaced)."""


class RayPool:
    """The same workers as Ray actors on a cluster (``ray.init(address=...)`` done by the caller)."""

    def __init__(
        self, config: dict[str, Any], count: int, games_per_batch: int, seed: int, start_version: int
    ) -> None:
        try:
            import ray
        except ImportError:
            raise WorkerError("Ray is not installed: pip install 'bgnet[ray]'") from None
        self.ray = ray
        self.config = config
        self.count = count
        self.games = games_per_batch
        self.seed = seed
        self.start_version = start_version
        self.actor_class = ray.remote(num_cpus=1)(RayWorker)
        self.actors: list[Any] = []
        self.incarnation: list[int] = []
        self.versions: list[int] = []
        self.latest: tuple[int, Any] | None = None
        self.pending: dict[Any, int] = {}
        self.restarts = 0
        self.deaths: list[int] = []  # each worker's deaths since its last game batch

    def _make(self, i: int) -> Any:
        seed = [self.seed, i, self.incarnation[i], self.start_version]
        return self.actor_class.remote(self.config, i, seed)

    def start(self, version: int, weights: Weights) -> None:
        self.incarnation = [0] * self.count
        self.versions = [-1] * self.count
        self.deaths = [0] * self.count
        self.actors = [self._make(i) for i in range(self.count)]
        self.publish(version, weights)
        for i in range(self.count):
            self._request(i)

    def publish(self, version: int, weights: Weights) -> None:
        self.latest = (version, self.ray.put(weights))  # once per version

    def _request(self, i: int) -> None:
        assert self.latest is not None
        version, ref = self.latest
        if self.versions[i] != version:
            self.actors[i].set_weights.remote(version, ref)
            self.versions[i] = version
        self.pending[self.actors[i].play.remote(self.games)] = i

    def batches(self) -> Iterator[GameBatch]:
        ray = self.ray
        while True:
            (done,), _ = ray.wait(list(self.pending), num_returns=1)
            i = self.pending.pop(done)
            try:
                batch = ray.get(done)
            except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as e:
                self.deaths[i] += 1
                if self.deaths[i] >= MAX_DEATHS:  # dies as it starts (memory, a node without bgnet ...)
                    self.stop()
                    said = " ".join(str(e).split()) or type(e).__name__  # Ray's cause is on later lines
                    raise WorkerError(
                        f"self-play worker {i} died {MAX_DEATHS} times in a row without a game batch: {said}"
                    ) from None
                self.ray.kill(self.actors[i])  # one that is only unreachable would keep its CPU
                self.incarnation[i] += 1
                self.versions[i] = -1
                self.actors[i] = self._make(i)
                self.restarts += 1
                self._request(i)
                continue
            except ray.exceptions.RayTaskError as e:
                self.stop()
                if isinstance(e.cause, NotStarted):
                    raise WorkerError(f"self-play worker {i} cannot start: {e.cause}") from None
                raise WorkerError(f"self-play worker {i} failed: {e.cause}") from None
            self.deaths[i] = 0
            self._request(i)
            yield batch

    def stop(self) -> None:
        for a in self.actors:
            self.ray.kill(a)
        self.actors = []
        self.pending = {}


def make_pool(
    config: dict[str, Any], count: int, games_per_batch: int, seed: int, start_version: int, ray: str = ""
) -> ProcessPool | RayPool:
    """Local processes, or Ray actors when ``ray`` names a cluster address (``auto``, ``HOST:PORT``).

    On a cluster, ``count`` 0 means one worker per CPU the cluster has.
    """
    if ray:
        try:
            import ray as ray_module
        except ImportError:
            raise WorkerError("Ray is not installed: pip install 'bgnet[ray]'") from None
        if not ray_module.is_initialized():
            ours = signal.getsignal(signal.SIGTERM)
            try:
                ray_module.init(address=ray, log_to_driver=False)
            except (ConnectionError, RuntimeError, ValueError) as e:
                raise WorkerError(f"cannot connect to the Ray cluster at {ray}: {e}") from None
            finally:  # Ray installs its own SIGTERM handler (sys.exit): keep bgnet's, which checkpoints first
                if ours is not None and threading.current_thread() is threading.main_thread():
                    signal.signal(signal.SIGTERM, ours)
        if count < 1:  # one worker per CPU of the cluster
            count = max(1, int(ray_module.cluster_resources().get("CPU", 1)))
        return RayPool(config, count, games_per_batch, seed, start_version)
    return ProcessPool(config, count, games_per_batch, seed, start_version)
