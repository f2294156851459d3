"""Which of bgnet's own values is the better training target: 0-ply, 1-ply or a rollout?  (docs/strength.md)

For ``--decisions`` decisions drawn from a benchmark file with a reference
(e.g. gnubg-nn's 2-ply labels of the larger crashed set), takes the
reference's ``--top`` best plays of each and values their results three ways
with a networks file: at 0-ply, at 1-ply, and by rolling each out
``--trials`` times (:mod:`bgnet.rollout`: the networks' 0-ply play, no luck
adjustment, the plays of a decision on common dice).  A training target is
judged by how it orders sibling plays, so each way is scored by the error of
the equity difference between the reference's best play and each other one,
against the reference's difference (mEMG, equity x 1000).  It prints the mean
squared error of each way, with the rollouts' own noise (the variance of
their paired differences) taken off, and 95% bootstrap intervals over the
decisions.  Every position's value is the networks' own: the reference only
measures.

    .venv/bin/python benchmarks/label_quality.py runs/labels/crashed-7e92e61a560a-2ply.jsonl \\
        --decisions 60 --trials 1296 --top 4 --seed 0
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import torch

from bgnet.benchmark_positions import load_positions
from bgnet.errors import BgnetError
from bgnet.evaluator import NetEvaluator
from bgnet.probabilities import equity
from bgnet.rollout import RolloutSettings, rollout_boards


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("positions", help="a benchmark file with a reference (.jsonl or .bm)")
    ap.add_argument("--checkpoint", default="bgnet/networks/bgnet-default.pt")
    ap.add_argument("--decisions", type=int, default=60)
    ap.add_argument("--trials", type=int, default=1296)
    ap.add_argument("--top", type=int, default=4, help="the reference's best plays valued a decision")
    ap.add_argument("--seed", type=int, default=0, help="which decisions (the rollouts' dice: 1, 2, ...)")
    args = ap.parse_args()
    if args.decisions < 1 or args.trials < 2 or args.top < 2:
        raise SystemExit("label_quality.py: --decisions must be >= 1, --trials and --top >= 2")
    try:
        run(args)
    except (BgnetError, OSError) as e:
        raise SystemExit(f"label_quality.py: {e}") from None


def run(args: argparse.Namespace) -> None:
    torch.set_num_threads(1)
    pool = [p for p in load_positions(args.positions) if len(p.candidates) >= args.top]
    if len(pool) < args.decisions:
        raise SystemExit(
            f"label_quality.py: {len(pool)} decisions with {args.top} plays, need {args.decisions}"
        )
    pick = np.random.default_rng(args.seed).choice(len(pool), size=args.decisions, replace=False)
    ev = NetEvaluator.from_checkpoint(args.checkpoint)
    per: list[tuple[float, float, float]] = []  # a decision's mean squared error of each way
    started = time.perf_counter()
    for n, i in enumerate(pick):
        p = pool[i]
        boards = np.array([c.position for c in p.candidates[: args.top]], dtype=np.int8)
        ref = np.array([c.equity for c in p.candidates[: args.top]])
        v0 = -equity(ev.probabilities(boards, 0))  # the mover's: the results are seen by the opponent
        v1 = -equity(ev.probabilities(boards, 1))
        settings = RolloutSettings(games=args.trials, seed=1 + n, luck=False)
        samples = np.stack([-equity(r.samples) for r in rollout_boards(boards, settings, evaluator=ev)])
        vr = samples.mean(axis=1)
        k = np.arange(1, args.top)
        noise = np.array([np.var(samples[0] - samples[j], ddof=1) / args.trials for j in k])
        gaps = ref[0] - ref[k]
        errors = [1000 * ((v[0] - v[k]) - gaps) for v in (v0, v1, vr)]
        per.append(
            (
                float(np.mean(errors[0] ** 2)),
                float(np.mean(errors[1] ** 2)),
                float(np.mean(errors[2] ** 2 - 1e6 * noise)),
            )
        )
        print(f"{n + 1} of {args.decisions} decisions ({time.perf_counter() - started:.0f} s)", flush=True)
    table = np.array(per)
    rng = np.random.default_rng(0)
    boot = np.array([table[rng.integers(len(table), size=len(table))].mean(axis=0) for _ in range(4000)])
    print(f"{args.decisions} decisions of {args.positions}, the reference's {args.top} best plays each")
    names = ("0-ply", "1-ply", f"rollout, {args.trials} trials (noise taken off)")
    for j, name in enumerate(names):
        lo, hi = np.percentile(boot[:, j], [2.5, 97.5])
        mse = table[:, j].mean()
        rms = np.sqrt(max(mse, 0))
        print(f"  {name}: mean squared error {mse:.0f} [{lo:.0f}, {hi:.0f}], rms {rms:.1f} mEMG")


if __name__ == "__main__":
    main()
