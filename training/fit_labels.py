"""Fit one network of a networks file to rollout labels, keeping the epoch best on held-out labels.

    .venv/bin/python -m bgnet_training.fit_labels bgnet/networks/bgnet-default.pt \\
        checkpoints/crashed-rollouts.npz OUT.pt --net crashed --epochs 8 --lr 3e-5

reads the labelled positions of a ``bgnet_training.rollout_labels`` file,
keeps those the network ``--net`` values (``main``, ``crashed`` or
``crashed_off``: the evaluator's routing, outside the bearoff database), holds out
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

``--gap W`` adds the decisions' gaps to the loss, for a file of decisions
(``rollout_labels --plays``): W times the mean squared error of each play's
equity relative to its decision's mean (the network's against the label's),
so what is learnt is the order of sibling plays, which a regression on
values alone barely moves (docs/strength.md).  Decisions are then held out
whole, minibatches are whole decisions, and the epoch kept is the one best
on the held-out sum; the held-out gaps' rms error and how often the
network's best play is the labels' best are printed beside it.

``--also MORE.npz`` (repeatable) fits the labelled rows of more files with
the first, as one set whose decisions stay apart (e.g. the same labelling
command at other seeds); ``--layers K`` trains only the last K layers, the
rest frozen; ``--share F`` fits only the first share F of the decisions
not held out, the held-out ones unchanged: the points of a learning curve
(how the held-out error falls as the labels grow).

``--test LABELS`` (repeatable) scores the networks files before and after
on the decisions of other labels files (e.g. 2-ply labels when the fit is
to 1-ply ones): what each file's choice (its whole evaluator at 0-ply, as
it plays) loses by the labels, in mEq a decision, and the two paired, with
95% CIs.  Thousands of decisions make this a far tighter measure than a
benchmark set's, though by bgnet's own search, not an outside reference.
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
from bgnet.probabilities import equity
from bgnet.stats import mean_ci

from .races import writing_command
from .rollout_labels import load

MEQ = 1000.0  # equity printed in thousandths


NETS = ("main", "crashed", "crashed_off")


class FitError(BgnetError):
    """Labels that cannot be fitted (one line for the command line)."""


def combined(paths: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict[str, Any]], np.ndarray]:
    """The labelled rows of several labels files as one set: boards, probs, standard errors, each file's
    settings, and decision numbers that stay apart between files."""
    parts = [load(p) for p in paths]
    offsets = np.cumsum([0] + [int(lab.group[: lab.done].max(initial=-1)) + 1 for lab in parts])
    return (
        np.concatenate([lab.boards[: lab.done] for lab in parts]),
        np.concatenate([lab.probs[: lab.done] for lab in parts]),
        np.concatenate([lab.se[: lab.done] for lab in parts]),
        [lab.settings for lab in parts],
        np.concatenate([lab.group[: lab.done] + off for lab, off in zip(parts, offsets[:-1], strict=True)]),
    )


def choice_loss(evaluator: Any, boards: np.ndarray, probs: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Per decision of two plays or more (``group`` sorted), what the play ``evaluator`` chooses at 0-ply
    loses by the labels ``probs``, in mEq.  Each board is the position after a play, the opponent on roll,
    so the mover's best play leaves the board of least equity."""
    from bgnet.evaluator import segment_argmin

    _, first, counts = np.unique(group, return_index=True, return_counts=True)
    offsets = np.append(first, len(group))
    labels = equity(probs).astype(np.float64)
    mine = segment_argmin(equity(evaluator.probabilities(boards)).astype(np.float64), offsets)
    best = segment_argmin(labels, offsets)
    return (MEQ * (labels[mine] - labels[best]))[counts > 1]


def tested(before: str, after: str, scoring: tuple[np.ndarray, np.ndarray, np.ndarray]) -> dict[str, Any]:
    """The choice losses of the networks files ``before`` and ``after`` on the decisions ``scoring`` (boards,
    labels, decision numbers: ``--test``), each as a mean with its 95% CI, and paired."""
    from bgnet.evaluator import NetEvaluator

    losses = [choice_loss(NetEvaluator.from_checkpoint(f), *scoring) for f in (before, after)]
    return {
        "decisions": len(losses[0]),
        "before": list(mean_ci(losses[0])),
        "after": list(mean_ci(losses[1])),
        "paired": list(mean_ci(losses[1] - losses[0])),
    }


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
    files = [args.labels, *args.also]
    boards, probs, se, settings, group = combined(files)
    scoring = None  # the --test decisions: boards, labels, decision numbers
    if args.test:  # read before the fit: a bad file fails fast
        test_boards, test_probs, _, _, test_group = combined(args.test)
        if not (np.unique(test_group, return_counts=True)[1] > 1).any():
            raise FitError(f"{', '.join(args.test)}: no decision with two plays to test on")
        scoring = (test_boards, test_probs, test_group)
    rows = trained_rows(evaluator, boards, args.net)
    if len(rows) < 2:
        raise FitError(
            f"{', '.join(files)}: {len(rows)} labelled position(s) for the {args.net} network, need 2"
        )
    boards, probs, se = boards[rows], probs[rows], se[rows]
    # the decisions left, numbered 0, 1, 2 ... (a board whose siblings went to another network is alone)
    group = np.unique(group[rows], return_inverse=True)[1]
    rng = np.random.default_rng(args.seed)
    decisions = int(group[-1]) + 1
    if args.gap and decisions == len(boards):
        raise FitError(
            f"{', '.join(files)}: no decision with two plays for the {args.net} network: --gap needs them"
        )
    order = rng.permutation(decisions)
    held = min(decisions - 1, max(1, int(round(args.holdout * decisions))))
    starts = np.searchsorted(group, np.arange(decisions + 1))
    members = [np.arange(starts[g], starts[g + 1]) for g in range(decisions)]
    # the training decisions: all those not held out, or the first share of them (a learning curve's point;
    # the held-out decisions are the same whatever the share)
    fitted = order[held : held + max(1, int(round(args.share * (decisions - held))))]
    test, train = (np.concatenate([members[g] for g in part]) for part in (order[:held], fitted))
    x = torch.from_numpy(encoder.encode(boards).astype(np.float32))
    y = torch.from_numpy(probs.astype(np.float32))
    g = torch.from_numpy(group)
    noise = float(np.mean(se[test] ** 2))

    def gap_errors(pred: torch.Tensor, rows: np.ndarray | torch.Tensor) -> torch.Tensor:
        """Per row, the network's equity error less its decision's mean error (the error of its gaps)."""
        err = equity(pred) - equity(y[rows])
        local = torch.unique(g[rows], return_inverse=True)[1]
        sums = torch.zeros(int(local.max()) + 1).index_add_(0, local, err)
        counts = torch.zeros_like(sums).index_add_(0, local, torch.ones_like(err))
        return err - (sums / counts)[local]

    def loss(pred: torch.Tensor, rows: np.ndarray | torch.Tensor) -> torch.Tensor:
        value = ((pred - y[rows]) ** 2).sum() / len(pred)  # as a training run's pass (train.fit)
        if args.gap:
            value = value + args.gap * (gap_errors(pred, rows) ** 2).sum() / len(pred)
        return value

    def error(pred: torch.Tensor, rows: np.ndarray) -> float:
        """What the epoch kept is chosen by: the loss with ``--gap``, else the MSE."""
        return float(loss(pred, rows)) if args.gap else float(((pred - y[rows]) ** 2).mean())

    def predict(rows: np.ndarray) -> torch.Tensor:
        model.eval()
        with torch.no_grad():
            return model(x[rows])

    # the held-out rows are their decisions' boards, one decision after another
    cuts = np.cumsum([len(members[d]) for d in order[:held]])[:-1]

    def held_out() -> tuple[float, str]:
        """The held-out error, and with ``--gap`` its gaps' rms error (mEq) and the share of decisions
        whose best play the network finds."""
        pred = predict(test)
        if not args.gap:
            return error(pred, test), ""
        rms = float((gap_errors(pred, test) ** 2).mean().sqrt()) * MEQ
        pairs = zip(
            np.split(equity(pred).numpy(), cuts), np.split(equity(y[test]).numpy(), cuts), strict=True
        )
        # the boards are the opponent's: the mover's best play leaves them the least
        found = [np.argmin(ours) == np.argmin(theirs) for ours, theirs in pairs if len(ours) > 1]
        return error(pred, test), f" (gaps' rms error {rms:.1f} mEq, best play found in {np.mean(found):.1%})"

    def train_pass_gap() -> None:
        """One pass over the training decisions in minibatches of whole decisions."""
        model.train()
        per = max(1, round(args.minibatch * decisions / len(boards)))  # decisions a step
        picked = rng.permutation(fitted)
        for lo in range(0, len(picked), per):
            idx = torch.from_numpy(np.concatenate([members[d] for d in picked[lo : lo + per]]))
            value = loss(model(x[idx]), idx)
            optimizers[args.net].zero_grad(set_to_none=True)
            value.backward()
            optimizers[args.net].step()
        model.eval()

    linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
    model.requires_grad_(False)
    for layer in linears[-args.layers :] if args.layers else linears:
        layer.requires_grad_(True)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizers = {args.net: torch.optim.Adam(trainable, lr=args.lr)}
    best, figures = held_out()
    best_epoch = 0
    best_weights = {k: v.clone() for k, v in model.state_dict().items()}
    # with --gap: squared errors summed over the 5 outputs, plus W x the gap's, a position (the loss itself)
    what = f"loss (squared error + {args.gap} x the gap's, a position)" if args.gap else "MSE"
    print(
        f"{len(train)} positions to fit, {len(test)} held out ({held} decisions); held-out {what} {best:.6f}"
        f"{figures} (the labels' own noise, at most: {noise:.6f})"
    )
    history: list[dict[str, Any]] = [{"epoch": 0, "held_out": best}]
    for epoch in range(1, args.epochs + 1):
        # one pass in minibatches, as a training run regresses its networks (only this one has an optimizer)
        if args.gap:
            train_pass_gap()
        else:
            train_pass(evaluator, optimizers, boards[train], probs[train], args.minibatch, rng)
        (err, figures), seen = held_out(), error(predict(train), train)
        history.append({"epoch": epoch, "train": seen, "held_out": err})
        mark = ""
        if err < best:
            best, best_epoch, mark = err, epoch, " (best)"
            best_weights = {k: v.clone() for k, v in model.state_dict().items()}
        print(
            f"epoch {epoch}: train {what} {seen:.6f}, held-out {err:.6f}{figures}{mark}",
            flush=True,
        )
    weights = {k: v.detach().cpu() for k, v in best_weights.items()}
    source = {
        "labels": files[0] if len(files) == 1 else files,
        "label_settings": settings[0] if len(settings) == 1 else settings,
        "positions": len(train),
        "held_out": len(test),
        "held_out_decisions": held,
        "share": args.share,
        "gap": args.gap,
        "epochs": args.epochs,
        "lr": args.lr,
        "minibatch": args.minibatch,
        "layers": args.layers,
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
    print(f"epoch {best_epoch} kept (held-out {what} {best:.6f}) -> {args.out}")
    if scoring is not None:
        scored = {"files": args.test} | tested(args.checkpoint, str(args.out), scoring)
        (b, bci), (a, aci), (d, dci) = scored["before"], scored["after"], scored["paired"]
        print(
            f"test, {scored['decisions']} decisions of {', '.join(args.test)}: the choices lose "
            f"{b:.3f} +- {bci:.3f} mEq a decision by the labels before, {a:.3f} +- {aci:.3f} after; "
            f"paired {d:+.3f} +- {dci:.3f} (95% CIs)"
        )
        source["test"] = scored
        checkpoint.save(args.out, out)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bgnet_training.fit_labels", description=__doc__.split("\n")[0]
    )
    ap.add_argument("checkpoint", help="the networks file whose network is fitted")
    ap.add_argument("labels", help="a rollout labels file (python -m bgnet_training.rollout_labels)")
    ap.add_argument("out", help="the networks file to write")
    ap.add_argument(
        "--also",
        action="append",
        default=[],
        metavar="LABELS",
        help="another labels file fitted with the first (repeatable; e.g. the same command at another seed)",
    )
    ap.add_argument(
        "--test",
        action="append",
        default=[],
        metavar="LABELS",
        help="decision labels, not fitted, to score the networks files before and after on (repeatable)",
    )
    ap.add_argument("--net", choices=NETS, default="crashed", help="the network to fit (default crashed)")
    ap.add_argument("--epochs", type=int, default=8, help="passes over the labels (default 8)")
    ap.add_argument("--lr", type=float, default=3e-5, help="Adam's learning rate (default 3e-5)")
    ap.add_argument("--minibatch", type=int, default=128, help="positions a step (default 128)")
    ap.add_argument("--holdout", type=float, default=0.1, help="share held out (default 0.1)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the split and the order (default 1)")
    ap.add_argument(
        "--gap",
        type=float,
        default=0.0,
        help="weight of the decisions' gaps in the loss (a file of decisions, rollout_labels --plays; "
        "default 0: values alone)",
    )
    ap.add_argument(
        "--share",
        type=float,
        default=1.0,
        help="fit on this share of the decisions not held out, the held-out ones unchanged (a point of a "
        "learning curve; default 1: all)",
    )
    ap.add_argument(
        "--layers",
        type=int,
        default=0,
        help="train only the last this many layers (weights and biases), the rest frozen (default 0: all)",
    )
    args = ap.parse_args(argv)
    problems = [
        (args.layers < 0, "--layers must be >= 0"),
        (args.epochs < 1, "--epochs must be >= 1"),
        (not args.lr > 0, "--lr must be > 0"),
        (args.minibatch < 1, "--minibatch must be >= 1"),
        (not 0 < args.holdout < 1, "--holdout must be in (0, 1)"),
        (args.seed < 0, "--seed must be >= 0"),
        (not args.gap >= 0, "--gap must be >= 0"),
        (not 0 < args.share <= 1, "--share must be in (0, 1]"),
    ]
    for bad, why in problems:
        if bad:
            print(f"error: {why}", file=sys.stderr)
            return 2
    return writing_command(Path(args.out), lambda: fit(args))


if __name__ == "__main__":
    sys.exit(main())
