"""``bgnet train``: TD(lambda) self-play with B games in lockstep, checkpoints that resume.

The loop (see ``docs/architecture.md``): for the B running games, one
``Lockstep.step`` generates every legal result, encodes them all and runs
ONE network forward (``NetEvaluator.choose``), and plays each game's best.
When ``train_games`` games have ended, the lambda-returns of all their
positions are computed (``bgnet_training.td``: the forward view, values from one
batched forward with the current network) and the network is regressed on
them in minibatches.  Every ``checkpoint_every`` games a checkpoint is
written atomically; every ``eval_every`` games the network plays
``eval_games`` games against pubeval and the points per game (ppg) with its
95% confidence interval are logged.

A run of a variant (``variant`` in the config: portes, tavla, plakoto,
fevga, ...) is the same loop on that game's 52-slot boards: self-play in
``Lockstep(..., variant=V)``, the exact results of ``Variant.result`` at the
end of each game (a plakoto draw is win = 0.5), the ``variant`` encoder, and
evaluation against a uniformly random player (pubeval plays backgammon only).
"""

from __future__ import annotations

import functools
import json
import math
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from bgnet import checkpoint
from bgnet.checkpoint import CheckpointError
from bgnet.encoding import Encoder, get_encoder
from bgnet.errors import DeviceError
from bgnet.evaluator import NetEvaluator
from bgnet.lockstep import FinishedGame, Lockstep, play_match
from bgnet.movegen import MoveBatch
from bgnet.network import RaceNet, ValueNet, pick_device
from bgnet.position import STARTING, Position, random_race
from bgnet.probabilities import equity
from bgnet.pubeval import pubeval_best
from bgnet.stats import mean_ci

from . import races
from .average import WeightAverage, trained_networks
from .config import TARGET_PLY, ConfigError, TrainConfig, load_config, make_config
from .grow import widen_into
from .td import lambda_returns
from .workers import GameBatch


def learning_rate(cfg: TrainConfig, games_done: int) -> float:
    """The learning rate after ``games_done`` games of the run: its schedule, times the warm-up's ramp."""
    frac = min(1.0, games_done / cfg.games)
    ramp = min(1.0, max(games_done, 1) / cfg.lr_warmup) if cfg.lr_warmup else 1.0
    if cfg.lr_schedule == "constant":
        scheduled = cfg.lr
    elif cfg.lr_schedule == "linear":
        scheduled = cfg.lr + (cfg.lr_final - cfg.lr) * frac
    else:
        scheduled = cfg.lr_final + 0.5 * (cfg.lr - cfg.lr_final) * (1 + math.cos(math.pi * frac))
    return scheduled * ramp


def evaluate_vs_pubeval(evaluator: NetEvaluator, games: int, rng: np.random.Generator) -> tuple[float, float]:
    """The network's cubeless ppg against pubeval over ``games`` games, with its 95% CI half-width."""
    return mean_ci(play_match((evaluator.choose, lambda b, _p: pubeval_best(b)), games, rng))


def random_chooser(rng: np.random.Generator):
    """A uniformly random legal play of every roll (-1 where there is none): any game's baseline."""

    def choose(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        sizes = np.diff(batch.offsets)
        rows = batch.offsets[:-1] + (rng.random(len(sizes)) * sizes).astype(np.int64)
        return np.where(sizes > 0, rows, -1)

    return choose


def evaluate_vs_random(evaluator: NetEvaluator, games: int, rng: np.random.Generator) -> tuple[float, float]:
    """The network's ppg in its game (``evaluator.variant``) against a random player, with the 95% CI."""
    chooser = (evaluator.choose, random_chooser(rng))
    return mean_ci(play_match(chooser, games, rng, variant=evaluator.variant))


def opponent(cfg: TrainConfig) -> str:
    """Whom the evaluations during training play: pubeval (backgammon) or a random player (variants)."""
    return "pubeval" if cfg.game() is None else "random"


def policy_dtype(name: str, device: torch.device | str) -> torch.dtype:
    """The dtype of the config value ``policy_dtype`` on ``device`` (``auto``: bfloat16 where the hardware
    computes in it, CUDA or a CPU that oneDNN runs bfloat16 on, else float32)."""
    if name == "auto":
        device = torch.device(device)
        if device.type == "cuda":
            fast = torch.cuda.is_bf16_supported()
        else:
            fast = torch.backends.mkldnn.is_available() and torch.ops.mkldnn._is_mkldnn_bf16_supported()
        return torch.bfloat16 if fast else torch.float32
    return {"float32": torch.float32, "bfloat16": torch.bfloat16}[name]


def low_precision(evaluator: NetEvaluator, dtype: torch.dtype) -> NetEvaluator | None:
    """``evaluator`` with its main network copied to ``dtype`` (:meth:`bgnet.network.ValueNet.cast_copy`;
    the other phase networks and the bearoff database shared), or None for float32: what picks plays, or
    screens a search's replies, where the hardware computes faster in low precision."""
    if dtype == torch.float32:
        return None
    model = evaluator.model
    if not isinstance(model, ValueNet):
        raise ValueError("a low-precision copy is of one value network, not an ensemble")
    return evaluator.replaced(model=model.cast_copy(dtype))


class SelfPlayChooser:
    """Self-play's chooser (a :data:`bgnet.lockstep.Chooser`): the network's best play for every game;
    with probability ``epsilon`` a random play instead.

    With ``dtype`` other than float32 the plays are chosen by a copy of the
    main network in that precision (:meth:`bgnet.network.ValueNet.cast_copy`;
    the other phase networks and the bearoff database are shared), which :meth:`refresh`
    brings up to date after each update; the trained network stays float32.
    """

    def __init__(
        self,
        evaluator: NetEvaluator,
        epsilon: float,
        rng: np.random.Generator,
        dtype: torch.dtype = torch.float32,
    ) -> None:
        self.evaluator = evaluator
        self.epsilon = epsilon
        self.rng = rng
        self.policy = evaluator
        self._copy: tuple[ValueNet, ValueNet] | None = None  # (the low-precision copy, the trained network)
        low = low_precision(evaluator, dtype)
        if low is not None:
            assert isinstance(low.model, ValueNet) and isinstance(evaluator.model, ValueNet)
            self._copy = (low.model, evaluator.model)
            self.policy = low

    @property
    def screen(self) -> NetEvaluator | None:
        """The evaluator of the low-precision copy (None in float32): search targets pick each roll's reply
        with it, as self-play picks its plays (``training_targets``' ``screen``)."""
        return None if self._copy is None else self.policy

    def refresh(self) -> None:
        """Copy the trained network's weights into the low-precision copy (nothing to do in float32)."""
        if self._copy is not None:
            copy, trained = self._copy
            copy.copy_weights_from(trained)

    def __call__(self, batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        rows = self.policy.choose(batch, player)
        if self.epsilon > 0:
            rng = self.rng
            sizes = np.diff(batch.offsets)
            explore = (rng.random(len(rows)) < self.epsilon) & (sizes > 0)
            rows[explore] = batch.offsets[:-1][explore] + (rng.random(explore.sum()) * sizes[explore]).astype(
                np.int64
            )
        return rows


def selfplay_narrow(evaluator: NetEvaluator, keep: int) -> Callable[[np.ndarray], np.ndarray] | None:
    """The scorer that narrows acey-deucey's 1-2 in self-play (``narrow`` in the config; 0: none).

    A 1-2 goes on to its doubles only from the ``keep`` plays of its 1 and 2
    whose positions the network values best for the mover still on roll.
    """
    if keep == 0:
        return None

    def score(boards: np.ndarray) -> np.ndarray:
        return equity(evaluator.probabilities(boards))

    return score


def start_of(start: str) -> Position | Callable[[np.random.Generator], np.ndarray]:
    """The lockstep ``start`` of a config's ``start``: the set-up, random races, or a race starts file's."""
    if start == "standard":
        return STARTING
    if start == "race":
        return random_race
    return races.starts(start)


def selfplay(
    cfg: TrainConfig, evaluator: NetEvaluator, games: int, rng: np.random.Generator
) -> tuple[Lockstep, SelfPlayChooser]:
    """The engine and chooser of self-play (the learner's in-process mode and every worker's): ``games``
    recorded games of the run's game in lockstep (from the config's ``start``), with its exploration, 1-2
    narrowing and policy precision (refresh the chooser after each update; its :attr:`SelfPlayChooser.screen`
    is what :func:`training_targets` picks the search targets' replies with)."""
    engine = Lockstep(
        cfg.parallel_games,
        games,
        rng,
        record=True,
        start=start_of(cfg.start),
        variant=cfg.game(),
        narrow=selfplay_narrow(evaluator, cfg.narrow),
        keep=cfg.narrow,
    )
    return engine, SelfPlayChooser(
        evaluator, cfg.epsilon, rng, policy_dtype(cfg.policy_dtype, evaluator.device)
    )


def training_targets(
    evaluator: NetEvaluator,
    games: list[FinishedGame],
    lam: float,
    target: str,
    nets: str = "all",
    share: float = 1.0,
    rng: np.random.Generator | None = None,
    screen: NetEvaluator | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The positions of ``games``, their current 0-ply values and their targets, each for its side on roll.

    ``target="td"``: the lambda-returns of each game (``bgnet_training.td``);
    ``"ply1"`` / ``"ply2"``: the 1-ply / 2-ply value of each position (the
    average over the 21 rolls of the mover's best reply, flipped back unless
    the mover rolls again), the search-bootstrapped target.  Across a repeated
    turn (a game's ``same_side``) the TD targets are not flipped.  Values come
    from the evaluator as it plays: exact where the game is over or the
    bearoff database covers the position.  ``nets`` other than ``"all"``
    keeps only the positions that phase network values and the bearoff
    database does not cover (only they are labelled).  A search ``share``
    under 1 labels only that share of the positions by the search, drawn with
    ``rng``; the others keep their lambda-returns.  A ``screen`` (the self-play
    policy's low-precision copy, :attr:`SelfPlayChooser.screen`) picks each
    roll's reply at the search's last ply; the replies picked keep
    ``evaluator``'s values (:attr:`bgnet.evaluator.Evaluator.screen`).
    """
    lengths = np.array([len(g.history) for g in games])
    boards = np.concatenate([g.history for g in games])
    rows = None if nets == "all" else trained_rows(evaluator, boards, nets)
    ply = TARGET_PLY[target]
    if ply and share >= 1:
        if rows is not None:
            boards = boards[rows]
        if len(boards) == 0:
            return boards, np.empty((0, 5), np.float32), np.empty((0, 5), np.float32)
        with evaluator.screened(screen):
            targets = evaluator.probabilities(boards, ply=ply)
        return boards, evaluator.probabilities(boards), targets
    flat = evaluator.probabilities(boards)
    values = np.zeros((len(games), lengths.max(), 5), dtype=np.float32)
    valid = np.arange(lengths.max())[None, :] < lengths[:, None]
    values[valid] = flat
    _, finals = evaluator.finished(np.stack([g.final for g in games]))
    same = np.zeros((len(games), lengths.max()), dtype=bool)
    for k, g in enumerate(games):
        same[k, : lengths[k]] = g.same_side()[: lengths[k]]
    targets = lambda_returns(values, lengths, finals, lam, same if same.any() else None)[valid]
    if rows is not None:
        boards, flat, targets = boards[rows], flat[rows], targets[rows]
    if ply:
        if rng is None:
            raise ValueError("a search share under 1 needs an rng to draw the positions it labels")
        pick = np.flatnonzero(rng.random(len(boards)) < share)
        if len(pick):
            with evaluator.screened(screen):
                targets[pick] = evaluator.probabilities(boards[pick], ply=ply)
    return boards, flat, targets


def trained_rows(evaluator: NetEvaluator, boards: np.ndarray, nets: str) -> np.ndarray:
    """Indices of the ``boards`` that the phase network ``nets`` trains on (:func:`training_phases`)."""
    names = list(evaluator.networks())
    if nets not in names:
        raise ValueError(f"no {nets} network to train (the evaluator has {', '.join(names)})")
    return np.flatnonzero(training_phases(evaluator, boards) == names.index(nets))


def training_phases(evaluator: NetEvaluator, boards: np.ndarray) -> np.ndarray:
    """For each board, the index in ``evaluator.networks()`` of the network it trains (``evaluator.phases``),
    or -1 where its value is exact (the game is over, or the bearoff database covers it)."""
    phases = evaluator.phases(boards)
    exact = evaluator.finished(boards)[0]
    if evaluator.bearoff is not None:
        exact |= np.asarray(evaluator.bearoff.covers(boards), dtype=bool)
    phases[exact] = -1
    return phases


def fit(
    evaluator: NetEvaluator,
    optimizers: Mapping[str, torch.optim.Optimizer],
    boards: np.ndarray,
    targets: np.ndarray,
    minibatch: int,
    rng: np.random.Generator,
) -> None:
    """Regress each trained phase network on its positions of ``boards`` towards ``targets`` (one pass,
    minibatches).

    Each position trains the phase network that values it
    (``evaluator.phases``), with that network's optimizer; positions whose
    value is exact, or valued by a frozen network (no optimizer), train nothing
    (:func:`training_phases`).
    """
    phases = training_phases(evaluator, boards)
    for k, (name, (model, encoder)) in enumerate(evaluator.networks().items()):
        rows = np.flatnonzero(phases == k)
        if len(rows) == 0 or name not in optimizers:  # none, or a frozen network's (``race_network``)
            continue
        x = torch.from_numpy(encoder.encode(boards[rows])).to(evaluator.device)
        y = torch.from_numpy(np.ascontiguousarray(targets[rows], dtype=np.float32)).to(evaluator.device)
        optimizer = optimizers[name]
        model.train()
        order = torch.from_numpy(rng.permutation(len(rows))).to(evaluator.device)
        for lo in range(0, len(rows), minibatch):
            idx = order[lo : lo + minibatch]
            loss = torch.nn.functional.mse_loss(model(x[idx]), y[idx], reduction="sum") / len(idx)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()
        model.eval()


class Replay:
    """The last ``size`` labelled positions (a ring buffer), to train on more than once."""

    def __init__(self, size: int, slots: int) -> None:
        self.boards = np.zeros((size, slots), dtype=np.int8)
        self.targets = np.zeros((size, 5), dtype=np.float32)
        self.count = 0  # positions held
        self.at = 0  # where the next one goes

    def add(self, boards: np.ndarray, targets: np.ndarray) -> None:
        size = len(self.boards)
        boards, targets = boards[-size:], targets[-size:]  # more than fits: the newest
        idx = (self.at + np.arange(len(boards))) % size
        self.boards[idx], self.targets[idx] = boards, targets
        self.at = (self.at + len(boards)) % size
        self.count = min(self.count + len(boards), size)

    def sample(self, count: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``count`` positions and their targets drawn uniformly (with replacement) from the buffer."""
        idx = rng.integers(0, self.count, count) if self.count else np.zeros(0, dtype=np.int64)
        return self.boards[idx], self.targets[idx]


def worker_config(cfg: TrainConfig) -> dict[str, Any]:
    """The config as self-play workers get it: the files it names (a starts file's ``start``, the
    ``race_network``) by absolute path, since a Ray actor's folder is not the learner's."""
    d = cfg.to_dict()
    if cfg.start.endswith(".npz"):
        d["start"] = os.path.abspath(cfg.start)  # not resolved: a shared folder's link stays a link
    if cfg.race_network:
        d["race_network"] = os.path.abspath(cfg.race_network)
    return d


def build_evaluator(cfg: TrainConfig, device: torch.device | str = "cpu") -> NetEvaluator:
    """The freshly initialised networks of a config (main, race when ``race_hidden``, crashed when
    ``crashed_hidden``), as an evaluator of the config's game."""
    encoder = get_encoder(cfg.encoder)
    model = ValueNet(encoder.width, cfg.hidden, cfg.activation).to(device)

    def phase(hidden: tuple[int, ...], name: str) -> tuple[RaceNet, Encoder] | None:
        if not hidden:
            return None
        enc = get_encoder(name) if name else encoder
        return ValueNet(enc.width, hidden, cfg.activation).to(device), enc

    race = phase(cfg.race_hidden, cfg.race_encoder)
    if cfg.race_network:
        race = frozen_race_network(cfg.race_network, device)
    crashed = phase(cfg.crashed_hidden, cfg.crashed_encoder)
    bearoff = None
    if cfg.bearoff:
        from bgnet.bearoff import OneSidedBearoff

        bearoff = OneSidedBearoff.load_or_build()
    return NetEvaluator(
        model,
        encoder,
        device,
        race=race,
        crashed=crashed,
        bearoff=bearoff,
        variant=cfg.game(),
        race_lookahead=bool(cfg.race_network),
    )


def frozen_race_network(path: str, device: torch.device | str) -> tuple[RaceNet, Encoder]:
    """The race network of the networks file ``path`` (a config's ``race_network``), its parameters frozen
    (:func:`bgnet_training.average.trained_networks` leaves it out: no optimizer or average; checkpoints keep
    a copy)."""
    try:
        race = checkpoint.phase_network_from(checkpoint.read(Path(path)), "race", path)
    except CheckpointError as e:
        raise ConfigError(f"config field 'race_network': {e}") from None
    if race is None:
        raise ConfigError(f"config field 'race_network': {path} has no race network")
    model, encoder = race
    model.to(device).eval().requires_grad_(False)
    return model, encoder


def network_weights(evaluator: NetEvaluator) -> dict[str, dict[str, np.ndarray]]:
    """The trained phase networks' weights by name as numpy copies: what the learner publishes to workers
    (plain pickles, no shared-memory handles between processes; a frozen race network each loads itself)."""
    return {
        name: {k: v.detach().cpu().numpy().copy() for k, v in model.state_dict().items()}
        for name, (model, _) in trained_networks(evaluator).items()
    }


def load_weights(evaluator: NetEvaluator, weights: dict[str, dict[str, np.ndarray]]) -> None:
    for name, (model, _) in trained_networks(evaluator).items():
        model.load_state_dict({k: torch.from_numpy(v) for k, v in weights[name].items()})


@dataclass
class RunState:
    games: int = 0
    updates: int = 0
    positions: int = 0
    seconds: float = 0.0
    last_ppg: float | None = None
    last_ci: float | None = None


class Trainer:
    """One training run in ``runs/<name>/``; building it resumes from the latest checkpoint."""

    def __init__(self, cfg: TrainConfig, runs: str | Path = "runs", *, progress: bool = True) -> None:
        self.cfg = cfg
        self.dir = Path(runs) / cfg.name
        self.progress = progress
        try:  # before the run directory: a bad device leaves nothing behind
            self.device = pick_device(cfg.device, "config field 'device'")
        except DeviceError as e:
            raise ConfigError(str(e)) from None
        if cfg.start.endswith(".npz"):
            races.load(cfg.start)  # a bad race starts file, too
        if cfg.threads:
            torch.set_num_threads(cfg.threads)
        self.rng = np.random.default_rng(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.evaluator = build_evaluator(cfg, self.device)  # and a bad race_network file
        self._check_run_dir()
        opt_class = torch.optim.Adam if cfg.optimizer == "adam" else torch.optim.SGD
        trained = trained_networks(self.evaluator)
        self.optimizers = {name: opt_class(m.parameters(), lr=cfg.lr) for name, (m, _) in trained.items()}
        self.replay = Replay(cfg.replay, self.evaluator.slots) if cfg.replay else None
        self.state = RunState()
        self.resumed_from: Path | None = None
        self.saved_average: object = None  # the weight average of the checkpoint resumed, if it has one
        latest = self.latest_checkpoint()
        if latest is None and cfg.snapshot and Path(cfg.snapshot).is_file():
            latest = Path(cfg.snapshot)
        if latest is not None:
            self._resume(latest)
            self.resumed_from = latest
        elif cfg.init:
            self._start_from(Path(cfg.init))
        self.average = WeightAverage(self.evaluator, cfg.average, self.state.games) if cfg.average else None
        if self.average is not None and isinstance(self.saved_average, dict):
            self.average.load(self.saved_average, str(latest))

    # -- run directory and checkpoints -------------------------------------------------
    def _check_run_dir(self) -> None:
        saved = self.dir / "config.toml"
        if saved.exists():
            old = load_config(saved)
            diff = self.cfg.differences(old)
            if diff:
                raise ConfigError(
                    f"run directory {self.dir} was made by a different config ({'; '.join(diff)}); "
                    "use another --name or the same config to resume"
                )
        else:
            self.dir.mkdir(parents=True, exist_ok=True)
            tmp = saved.with_suffix(".tmp")
            tmp.write_text(self.cfg.to_toml())
            tmp.replace(saved)

    def checkpoints(self) -> list[Path]:
        return sorted(self.dir.glob("checkpoint-*.pt"))

    def latest_checkpoint(self) -> Path | None:
        found = self.checkpoints()
        return found[-1] if found else None

    def checkpoint_state(self) -> dict[str, Any]:
        nets: dict[str, dict[str, Any]] = {}
        for name, (model, encoder) in self.evaluator.networks().items():
            nets[name] = {
                "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
                "shape": model.shape,
                "encoder": encoder.name,
                "encoder_version": encoder.version,
            }
            if name in self.optimizers:  # a frozen race network (``race_network``) has none: a copy
                nets[name]["optimizer"] = self.optimizers[name].state_dict()
        state = nets.pop("main")
        state.update(nets)  # the phase networks, if any, under "race" and "crashed"
        if self.cfg.race_network:
            state["race_source"] = self.frozen_race_source
        if self.average is not None:
            state["average"] = self.average.state()
        elif isinstance(self.saved_average, dict):
            state["average"] = self.saved_average  # a session without averaging keeps the run's average
        game = self.cfg.game()
        return {
            **state,
            "variant": "backgammon" if game is None else game.label,
            "config": self.cfg.to_dict(),
            "counters": vars(self.state).copy(),
            "rng": {"numpy": self.rng.bit_generator.state, "torch": torch.get_rng_state()},
        }

    def save_checkpoint(self) -> Path:
        state = self.checkpoint_state()
        path = checkpoint.save(self.dir / f"checkpoint-{self.state.games:09d}.pt", state)
        for old in self.checkpoints()[: -self.cfg.keep_checkpoints]:
            old.unlink()
        if self.cfg.snapshot:
            checkpoint.save(self.cfg.snapshot, state)
        return path

    def _resume(self, path: Path) -> None:
        state = checkpoint.read(path)
        try:
            saved_cfg = make_config(state["config"])
            counters = RunState(**state["counters"])
            rng_state = state["rng"]
        except (KeyError, TypeError) as e:
            raise CheckpointError(f"{path} lacks its training state ({type(e).__name__}: {e})") from None
        diff = self.cfg.differences(saved_cfg)
        if diff:
            raise ConfigError(f"checkpoint {path} was made by a different config: {'; '.join(diff)}")
        self._load_networks(state, str(path), with_optimizers=True)
        if self.cfg.race_network:
            self._check_frozen_race(state, str(path))
        self.saved_average = state.get("average")
        self.state = counters
        self._truncate_metrics()
        self.rng.bit_generator.state = rng_state["numpy"]
        torch.set_rng_state(rng_state["torch"])

    @functools.cached_property
    def frozen_race_source(self) -> dict[str, Any]:
        """Where the config's frozen race network (``race_network``) comes from, as its checkpoints record
        it: the file's own ``race_source``, or the file's name."""
        source = checkpoint.read(Path(self.cfg.race_network)).get("race_source")
        return source if isinstance(source, dict) else {"file": self.cfg.race_network}

    def _check_frozen_race(self, state: dict[str, Any], source: str) -> None:
        """A resumed run's frozen race network must be the one its checkpoint says it played."""
        saved = state.get("race")
        model = self.evaluator.race[0]  # type: ignore[index]
        mine = model.state_dict()
        theirs = saved.get("model") if isinstance(saved, dict) else None
        if not isinstance(theirs, dict) or set(theirs) != set(mine):
            raise CheckpointError(f"{source} has no copy of the race network its run played (race_network)")
        if not all(torch.equal(mine[k].cpu(), theirs[k].cpu()) for k in mine):
            raise CheckpointError(
                f"{source}: its run played another race network than {self.cfg.race_network} holds now "
                "(race_network); restore that file or start a new run"
            )

    def _load_networks(self, state: dict[str, Any], source: str, *, with_optimizers: bool) -> None:
        """Copy a checkpoint's networks into this run's (widened where ours are wider).  A new run's crashed
        network starts from the checkpoint's main network where the checkpoint has no crashed network."""
        theirs, ours = checkpoint.variant_from(state, source), self.cfg.game()
        theirs_label = "backgammon" if theirs is None else theirs.label
        ours_label = "backgammon" if ours is None else ours.label
        if theirs_label != ours_label:
            raise CheckpointError(f"{source} plays {theirs_label}; this run plays {ours_label}")
        loaded: dict[str, tuple[RaceNet, Encoder]] = {"main": checkpoint.network_from(state, source)}
        for name in checkpoint.PHASES:
            net = checkpoint.phase_network_from(state, name, source)
            if net is not None:
                loaded[name] = net
        described = {name: f"{name} network" for name in loaded}
        if not with_optimizers and "crashed" not in loaded:
            loaded["crashed"] = loaded["main"]
            described["crashed"] = "main network (where the crashed network starts)"
        for name, (model, encoder) in trained_networks(self.evaluator).items():
            if name not in loaded:
                if with_optimizers:
                    raise CheckpointError(f"{source} has no {name} network")
                continue
            src_model, src_encoder = loaded[name]
            if src_encoder.name != encoder.name and (with_optimizers or encoder.extends != src_encoder.name):
                raise CheckpointError(
                    f"{source}: its {described[name]} uses encoder {src_encoder.name}, "
                    f"this run's {name} network {encoder.name}"
                )
            if not isinstance(src_model, ValueNet) or not isinstance(model, ValueNet):
                kind = {"ensemble": "an ensemble"}.get(src_model.shape.get("kind", ""), "one-sided")
                raise CheckpointError(
                    f"{source}: its {described[name]} is {kind}, which self-play does not train"
                )
            try:
                widen_into(model, src_model, self.rng)
            except CheckpointError as e:
                raise CheckpointError(f"{source}: its {described[name]} ({e})") from None
            if with_optimizers:
                opt = state["optimizer"] if name == "main" else state[name]["optimizer"]
                self.optimizers[name].load_state_dict(opt)

    def _start_from(self, path: Path) -> None:
        """A new run's networks start from another run's checkpoint (``init``)."""
        self._load_networks(checkpoint.read(path), str(path), with_optimizers=False)

    def _truncate_metrics(self) -> None:
        """Drop the metrics logged after the checkpoint being resumed (those games are played again)."""
        path = self.dir / "metrics.jsonl"
        if not path.exists():
            return
        kept = [
            line
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip() and json.loads(line).get("games", 0) <= self.state.games
        ]
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
        tmp.replace(path)

    # -- the loop -------------------------------------------------------------------------
    def log(self, record: dict[str, Any], writer: Any) -> None:
        record = {"games": self.state.games, **record}
        with open(self.dir / "metrics.jsonl", "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        if writer is not None:
            for k, v in record.items():
                if k != "games" and isinstance(v, int | float):
                    writer.add_scalar(k, v, self.state.games)

    def run(self, *, ray: str = "", minutes: float | None = None) -> RunState:
        """Train until ``cfg.games`` games; with workers (``cfg.workers``) or on a Ray cluster (``ray``).

        With ``minutes``, stop after that much wall time (with a checkpoint): a
        short window on a borrowed machine still ends in a resumable run.
        """
        self.deadline = None if minutes is None else time.monotonic() + 60.0 * minutes
        cfg, st = self.cfg, self.state
        if st.games >= cfg.games:
            return st
        try:
            from torch.utils.tensorboard import SummaryWriter

            writer = SummaryWriter(str(self.dir / "tb"))
        except ImportError:  # tensorboard is a dependency, but training works without it
            writer = None
        bar = tqdm(total=cfg.games, initial=st.games, unit="game", disable=not self.progress, smoothing=0.05)
        self.pool = None
        try:
            count = cfg.worker_count()
            if ray or count > 0:
                from .workers import make_pool

                if ray and cfg.workers == -1:
                    count = 0  # one worker per CPU of the cluster
                seed = int(self.rng.integers(2**31))
                self.pool = make_pool(worker_config(cfg), count, cfg.train_games, seed, st.updates, ray)
                self.pool.start(st.updates, network_weights(self.evaluator))
                source = self.pool.batches()
            else:
                source = self._local_batches()
            self._loop(source, bar, writer)
        except KeyboardInterrupt:
            # Ctrl-C: keep what is trained (the games still in play are lost), then stop.
            self.save_checkpoint()
            raise
        finally:
            if self.pool is not None:
                self.pool.stop()
            bar.close()
            if writer is not None:
                writer.close()
        return st

    def _local_batches(self) -> Iterator[GameBatch]:
        """Self-play in this process: the same protocol as a worker's, deterministic from the seed."""
        cfg, st = self.cfg, self.state
        engine, choose = selfplay(cfg, self.evaluator, cfg.games - st.games, self.rng)
        pending: list[FinishedGame] = []
        while engine.running:
            pending += engine.step(choose)
            if len(pending) < cfg.train_games and engine.running:
                continue
            boards, values, targets = training_targets(
                self.evaluator,
                pending,
                cfg.lam,
                cfg.target,
                cfg.train_nets,
                cfg.search_share,
                self.rng,
                choose.screen,
            )
            yield GameBatch(boards, values, targets, len(pending), st.updates, -1)
            choose.refresh()  # the batch has been trained on
            pending = []

    def train_on(self, batch: GameBatch) -> None:
        """One round of updates: ``epochs`` passes over the batch, or as many positions drawn from the
        replay buffer once the batch has joined it."""
        cfg = self.cfg
        if self.replay is None:
            for _ in range(cfg.epochs):
                fit(self.evaluator, self.optimizers, batch.boards, batch.targets, cfg.minibatch, self.rng)
            return
        self.replay.add(batch.boards, batch.targets)
        boards, targets = self.replay.sample(cfg.epochs * len(batch.boards), self.rng)
        fit(self.evaluator, self.optimizers, boards, targets, cfg.minibatch, self.rng)

    def _loop(self, source: Iterator[GameBatch], bar: Any, writer: Any) -> None:
        cfg, st = self.cfg, self.state
        next_ckpt = (st.games // cfg.checkpoint_every + 1) * cfg.checkpoint_every
        next_eval = (st.games // cfg.eval_every + 1) * cfg.eval_every if cfg.eval_every else None
        max_lag = cfg.policy_lag()
        self.lags: list[int] = []
        self.nodes: dict[str, int] = {}
        t0, g0 = time.perf_counter(), st.games
        for batch in source:
            lag = st.updates - batch.version
            if lag > max_lag:
                self.log({"train/dropped_lag": lag}, writer)
                continue
            self.lags.append(lag)
            self.nodes[batch.node] = self.nodes.get(batch.node, 0) + batch.games
            lr = learning_rate(cfg, st.games)
            for name, optimizer in self.optimizers.items():
                for group in optimizer.param_groups:
                    group["lr"] = lr * (cfg.race_lr_scale if name == "race" else 1.0)
            self.train_on(batch)
            if self.average is not None:
                self.average.update(self.evaluator, batch.games)
            error = (
                float(((batch.targets - batch.values) ** 2).sum(axis=1).mean()) if len(batch.boards) else 0.0
            )
            now = time.perf_counter()
            st.games += batch.games
            st.updates += 1
            st.positions += len(batch.boards)
            st.seconds += now - t0
            speed = (st.games - g0) / max(now - t0, 1e-9)
            t0, g0 = now, st.games
            if self.pool is not None:
                self.pool.publish(st.updates, network_weights(self.evaluator))
            bar.update(batch.games)
            record = {"loss/td_error": error, "train/lr": lr, "speed/games_per_s": speed}
            if self.pool is not None:
                record["train/policy_lag"] = lag
            self.log(record, writer)
            if next_eval is not None and st.games >= next_eval:
                if self.evaluator.variant is None:
                    st.last_ppg, st.last_ci = evaluate_vs_pubeval(self.evaluator, cfg.eval_games, self.rng)
                else:
                    st.last_ppg, st.last_ci = evaluate_vs_random(self.evaluator, cfg.eval_games, self.rng)
                key = f"play/ppg_vs_{opponent(cfg)}"
                self.log({key: st.last_ppg, "play/ppg_ci95": st.last_ci}, writer)
                next_eval = (st.games // cfg.eval_every + 1) * cfg.eval_every
                t0 = time.perf_counter()
            out_of_time = self.deadline is not None and time.monotonic() >= self.deadline
            if st.games >= next_ckpt or st.games >= cfg.games or out_of_time:
                self.save_checkpoint()
                next_ckpt = (st.games // cfg.checkpoint_every + 1) * cfg.checkpoint_every
            ppg = "" if st.last_ppg is None else f"{st.last_ppg:+.3f}±{st.last_ci:.3f}"
            bar.set_postfix_str(f"{speed:.0f} games/s, ppg vs {opponent(cfg)} {ppg or 'n/a'}")
            if st.games >= cfg.games or out_of_time:
                break
