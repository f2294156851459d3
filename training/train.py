"""``bgnet train``: TD(lambda) self-play with B games in lockstep, checkpoints that resume.

The loop (see ``docs/architecture.md``): for the B running games, one
``Lockstep.step`` generates every legal result, encodes them all and runs
ONE network forward (``NetEvaluator.choose``), and plays each game's best.
When ``train_games`` games have ended, the lambda-returns of all their
positions are computed (``training.td``: the forward view, values from one
batched forward with the current network) and the network is regressed on
them in minibatches.  Every ``checkpoint_every`` games a checkpoint is
written atomically; every ``eval_every`` games the network plays
``eval_games`` games against pubeval and the points per game (ppg) with its
95% confidence interval are logged.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from bgnet import checkpoint
from bgnet.encoding import get_encoder
from bgnet.evaluator import NetEvaluator
from bgnet.game import final_probabilities
from bgnet.lockstep import FinishedGame, Lockstep, play_match
from bgnet.movegen import MoveBatch
from bgnet.network import ValueNet
from bgnet.pubeval import pubeval_best
from training.config import ConfigError, TrainConfig, make_config
from training.td import lambda_returns


def pick_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError(f"config field 'device': {name!r} asked for but CUDA is not available")
    return torch.device(name)


def learning_rate(cfg: TrainConfig, games_done: int) -> float:
    frac = min(1.0, games_done / cfg.games)
    if cfg.lr_schedule == "constant":
        return cfg.lr
    if cfg.lr_schedule == "linear":
        return cfg.lr + (cfg.lr_final - cfg.lr) * frac
    return cfg.lr_final + 0.5 * (cfg.lr - cfg.lr_final) * (1 + math.cos(math.pi * frac))


def ppg_ci(points: np.ndarray) -> tuple[float, float]:
    """Mean points per game and the half-width of its 95% confidence interval."""
    return float(points.mean()), float(1.96 * points.std(ddof=1) / math.sqrt(len(points)))


def evaluate_vs_pubeval(evaluator: NetEvaluator, games: int, rng: np.random.Generator) -> tuple[float, float]:
    """The network's cubeless ppg against pubeval over ``games`` games, with its 95% CI half-width."""
    return ppg_ci(play_match((evaluator.choose, lambda b, _p: pubeval_best(b)), games, rng))


def selfplay_chooser(evaluator: NetEvaluator, epsilon: float, rng: np.random.Generator):
    """The network's best play for every game; with probability ``epsilon`` a random play instead."""

    def choose(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        rows = evaluator.choose(batch, player)
        if epsilon > 0:
            sizes = np.diff(batch.offsets)
            explore = (rng.random(len(rows)) < epsilon) & (sizes > 0)
            rows[explore] = batch.offsets[:-1][explore] + (rng.random(explore.sum()) * sizes[explore]).astype(
                np.int64
            )
        return rows

    return choose


def td_update(
    evaluator: NetEvaluator,
    optimizer: torch.optim.Optimizer,
    games: list[FinishedGame],
    lam: float,
    minibatch: int,
    rng: np.random.Generator,
) -> float:
    """One round of updates on the positions of ``games``; returns the mean squared TD error."""
    model, device = evaluator.model, evaluator.device
    lengths = np.array([len(g.history) for g in games])
    boards = np.concatenate([g.history for g in games])
    x = torch.from_numpy(evaluator.encoder.encode(boards)).to(device)
    with torch.no_grad():
        model.eval()
        flat = model(x).float().cpu().numpy()
    values = np.zeros((len(games), lengths.max(), 5), dtype=np.float32)
    valid = np.arange(lengths.max())[None, :] < lengths[:, None]
    values[valid] = flat
    _, finals = final_probabilities(np.stack([g.final for g in games]))
    targets = torch.from_numpy(lambda_returns(values, lengths, finals, lam)[valid]).to(device)
    td_error = float(((targets.cpu().numpy() - flat) ** 2).sum(axis=1).mean())
    model.train()
    order = torch.from_numpy(rng.permutation(len(boards))).to(device)
    for lo in range(0, len(boards), minibatch):
        idx = order[lo : lo + minibatch]
        loss = torch.nn.functional.mse_loss(model(x[idx]), targets[idx], reduction="sum") / len(idx)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    return td_error


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
        self._check_run_dir()
        self.device = pick_device(cfg.device)
        if cfg.threads:
            torch.set_num_threads(cfg.threads)
        self.rng = np.random.default_rng(cfg.seed)
        torch.manual_seed(cfg.seed)
        encoder = get_encoder(cfg.encoder)
        model = ValueNet(encoder.width, cfg.hidden, cfg.activation).to(self.device)
        self.evaluator = NetEvaluator(model, encoder, self.device)
        opt_class = torch.optim.Adam if cfg.optimizer == "adam" else torch.optim.SGD
        self.optimizer = opt_class(model.parameters(), lr=cfg.lr)
        self.state = RunState()
        latest = self.latest_checkpoint()
        if latest is not None:
            self._resume(latest)

    # -- run directory and checkpoints -------------------------------------------------
    def _check_run_dir(self) -> None:
        saved = self.dir / "config.toml"
        if saved.exists():
            from training.config import load_config

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
        model, encoder = self.evaluator.model, self.evaluator.encoder
        return {
            "model": {k: v.detach().cpu() for k, v in model.state_dict().items()},
            "optimizer": self.optimizer.state_dict(),
            "shape": model.shape,
            "encoder": encoder.name,
            "encoder_version": encoder.version,
            "config": self.cfg.to_dict(),
            "counters": vars(self.state).copy(),
            "rng": {"numpy": self.rng.bit_generator.state, "torch": torch.get_rng_state()},
        }

    def save_checkpoint(self) -> Path:
        path = checkpoint.save(self.dir / f"checkpoint-{self.state.games:09d}.pt", self.checkpoint_state())
        for old in self.checkpoints()[: -self.cfg.keep_checkpoints]:
            old.unlink()
        return path

    def _resume(self, path: Path) -> None:
        state = checkpoint.read(path)
        saved_cfg = make_config(state["config"])
        diff = self.cfg.differences(saved_cfg)
        if diff:
            raise ConfigError(f"checkpoint {path} was made by a different config: {'; '.join(diff)}")
        model, _ = checkpoint.network_from(state, str(path))
        self.evaluator.model.load_state_dict(model.state_dict())
        self.optimizer.load_state_dict(state["optimizer"])
        self.state = RunState(**state["counters"])
        self._truncate_metrics()
        self.rng.bit_generator.state = state["rng"]["numpy"]
        torch.set_rng_state(state["rng"]["torch"])

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

    def run(self) -> RunState:
        cfg, st = self.cfg, self.state
        if st.games >= cfg.games:
            return st
        try:
            from torch.utils.tensorboard import SummaryWriter

            writer = SummaryWriter(str(self.dir / "tb"))
        except ImportError:  # tensorboard is a dependency, but training works without it
            writer = None
        engine = Lockstep(cfg.parallel_games, cfg.games - st.games, self.rng, record=True)
        choose = selfplay_chooser(self.evaluator, cfg.epsilon, self.rng)
        bar = tqdm(total=cfg.games, initial=st.games, unit="game", disable=not self.progress, smoothing=0.05)
        pending: list[FinishedGame] = []
        next_ckpt = (st.games // cfg.checkpoint_every + 1) * cfg.checkpoint_every
        next_eval = (st.games // cfg.eval_every + 1) * cfg.eval_every if cfg.eval_every else None
        t0, g0 = time.perf_counter(), st.games
        while engine.running:
            pending += engine.step(choose)
            if len(pending) < cfg.train_games and engine.running:
                continue
            lr = learning_rate(cfg, st.games)
            for group in self.optimizer.param_groups:
                group["lr"] = lr
            td_error = td_update(self.evaluator, self.optimizer, pending, cfg.lam, cfg.minibatch, self.rng)
            now = time.perf_counter()
            st.games += len(pending)
            st.updates += 1
            st.positions += sum(len(g.history) for g in pending)
            st.seconds += now - t0
            speed = (st.games - g0) / max(now - t0, 1e-9)
            t0, g0 = now, st.games
            bar.update(len(pending))
            pending = []
            self.log({"loss/td_error": td_error, "train/lr": lr, "speed/games_per_s": speed}, writer)
            if next_eval is not None and st.games >= next_eval:
                st.last_ppg, st.last_ci = evaluate_vs_pubeval(self.evaluator, cfg.eval_games, self.rng)
                self.log({"play/ppg_vs_pubeval": st.last_ppg, "play/ppg_ci95": st.last_ci}, writer)
                next_eval = (st.games // cfg.eval_every + 1) * cfg.eval_every
                t0 = time.perf_counter()
            if st.games >= next_ckpt or st.games >= cfg.games:
                self.save_checkpoint()
                next_ckpt = (st.games // cfg.checkpoint_every + 1) * cfg.checkpoint_every
            ppg = "" if st.last_ppg is None else f"{st.last_ppg:+.3f}±{st.last_ci:.3f}"
            bar.set_postfix_str(f"{speed:.0f} games/s, ppg vs pubeval {ppg or 'n/a'}")
        bar.close()
        if writer is not None:
            writer.close()
        return st
