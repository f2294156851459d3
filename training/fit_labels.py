"""Fit one network of a networks file to rollout labels, keeping the epoch best on held-out labels.

    .venv/bin/python -m bgnet_training.fit_labels bgnet/networks/bgnet-default.pt \\
        checkpoints/crashed-rollouts.npz OUT.pt --net crashed --epochs 8 --lr 3e-5

reads the labelled positions of a ``bgnet_training.rollout_labels`` file,
keeps those the network ``--net`` values (``main`` or ``crashed``:
the evaluator's routing, outside the bearoff database), holds out
``--holdout`` of them (drawn with ``--seed``), and regresses the network's 5
probabilities on the labels (mean squared error, Adam, minibatches: a
training run's own pass, ``bgnet_training.train.fit``) from its weights in
the file.  After each epoch it measures the held-out error and
keeps the best epoch's weights (the file's own weights when no epoch beats
them).  The labels are noisy (a rollout's standard error); their mean
variance, printed beside the errors, is about the part of the held-out error
no network can remove (a little less: the standard errors of stratified
dice are conservative).  ``OUT`` is the file's networks (no optimizer state) with
that network replaced; ``NET_source`` records the labels, the settings and
the errors (and, under ``from``, the network's source before).  The held-out
errors pick the epoch kept, so the one printed for it is a little optimistic:
judge the network on benchmark decisions.  A run's checkpoint is refused:
ship it first.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
import torch

from bgnet import checkpoint
from bgnet.errors import BgnetError
from bgnet.network import ValueNet

from .races import writing_command
from .rollout_labels import load

NETS = ("main", "crashed")


class FitError(BgnetError):
    """Labels that cannot be fitted (one line for the command line)."""


def fit(args: argparse.Namespace) -> int:
    from bgnet.evaluator import NetEvaluator

    from .ship import shipped_state
    from .train import fit as train_pass
    from .train import trained_rows

    torch.manual_seed(args.seed)
    state = checkpoint.read(args.checkpoint)
    if "optimizer" in state or "average" in state:
        raise FitError(
            f"{args.checkpoint} is a run's checkpoint: ship it first (python -m bgnet_training.ship), "
            "so that the weights fitted are the ones its networks file would play"
        )
    evaluator = NetEvaluator.from_checkpoint(args.checkpoint, bearoff=True)
    nets = evaluator.networks()
    if args.net not in nets:
        raise FitError(f"{args.checkpoint} has no {args.net} network (it has {', '.join(nets)})")
    model, encoder = nets[args.net]
    if not isinstance(model, ValueNet):
        raise FitError(
            f"{args.checkpoint}: its {args.net} network is an ensemble, which is not trained "
            "(fit a member's file, then ship the ensemble again)"
        )
    boards, probs, se, done, settings = load(args.labels)
    boards, probs, se = boards[:done], probs[:done], se[:done]
    rows = trained_rows(evaluator, boards, args.net)
    if len(rows) < 2:
        raise FitError(f"{args.labels}: {len(rows)} labelled position(s) for the {args.net} network, need 2")
    boards, probs, se = boards[rows], probs[rows], se[rows]
    rng = np.random.default_rng(args.seed)
    order = rng.permutation(len(boards))
    held = min(len(boards) - 1, max(1, int(round(args.holdout * len(boards)))))
    test, train = order[:held], order[held:]
    x = torch.from_numpy(encoder.encode(boards).astype(np.float32))
    y = torch.from_numpy(probs.astype(np.float32))
    noise = float(np.mean(se[test] ** 2))

    def mse(rows: np.ndarray) -> float:
        model.eval()
        with torch.no_grad():
            return float(((model(x[rows]) - y[rows]) ** 2).mean())

    model.requires_grad_(True)
    optimizers = {args.net: torch.optim.Adam(model.parameters(), lr=args.lr)}
    best = mse(test)
    best_epoch = 0
    best_weights = {k: v.clone() for k, v in model.state_dict().items()}
    print(
        f"{len(train)} positions to fit, {held} held out; held-out MSE {best:.6f} "
        f"(the labels' own noise, at most: {noise:.6f})"
    )
    history: list[dict[str, Any]] = [{"epoch": 0, "held_out": best}]
    for epoch in range(1, args.epochs + 1):
        # one pass in minibatches, as a training run regresses its networks (only this one has an optimizer)
        train_pass(evaluator, optimizers, boards[train], probs[train], args.minibatch, rng)
        err, seen = mse(test), mse(train)
        history.append({"epoch": epoch, "train": seen, "held_out": err})
        mark = ""
        if err < best:
            best, best_epoch, mark = err, epoch, " (best)"
            best_weights = {k: v.clone() for k, v in model.state_dict().items()}
        print(f"epoch {epoch}: train MSE {seen:.6f}, held-out {err:.6f}{mark}", flush=True)
    weights = {k: v.detach().cpu() for k, v in best_weights.items()}
    source = {
        "labels": str(args.labels),
        "label_settings": settings,
        "positions": len(train),
        "held_out": held,
        "epochs": args.epochs,
        "lr": args.lr,
        "minibatch": args.minibatch,
        "seed": args.seed,
        "best_epoch": best_epoch,
        "history": history,
        "label_noise": noise,
    }
    out = shipped_state(state)
    key = f"{args.net}_source"
    if isinstance(out.get(key), dict):
        source["from"] = out[key]  # where the network fitted came from
    if args.net == "main":
        entry = {k: v for k, v in out.items() if k != "averaged"}
        out = entry | {"model": weights, key: source}
    else:
        entry = {k: v for k, v in out[args.net].items() if k != "averaged"}
        out = out | {args.net: entry | {"model": weights}, key: source}
    checkpoint.save(args.out, out)
    print(f"epoch {best_epoch} kept (held-out MSE {best:.6f}) -> {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bgnet_training.fit_labels", description=__doc__.split("\n")[0]
    )
    ap.add_argument("checkpoint", help="the networks file whose network is fitted")
    ap.add_argument("labels", help="a rollout labels file (python -m bgnet_training.rollout_labels)")
    ap.add_argument("out", help="the networks file to write")
    ap.add_argument("--net", choices=NETS, default="crashed", help="the network to fit (default crashed)")
    ap.add_argument("--epochs", type=int, default=8, help="passes over the labels (default 8)")
    ap.add_argument("--lr", type=float, default=3e-5, help="Adam's learning rate (default 3e-5)")
    ap.add_argument("--minibatch", type=int, default=128, help="positions a step (default 128)")
    ap.add_argument("--holdout", type=float, default=0.1, help="share held out (default 0.1)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the split and the order (default 1)")
    args = ap.parse_args(argv)
    problems = [
        (args.epochs < 1, "--epochs must be >= 1"),
        (not args.lr > 0, "--lr must be > 0"),
        (args.minibatch < 1, "--minibatch must be >= 1"),
        (not 0 < args.holdout < 1, "--holdout must be in (0, 1)"),
        (args.seed < 0, "--seed must be >= 0"),
    ]
    for bad, why in problems:
        if bad:
            print(f"error: {why}", file=sys.stderr)
            return 2
    return writing_command(Path(args.out), lambda: fit(args))


if __name__ == "__main__":
    sys.exit(main())
