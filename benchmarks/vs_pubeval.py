"""The shipped network against pubeval: cubeless money ppg over many games, with its 95% CI.

The network plays its 0-ply best play; pubeval (Tesauro 1993) plays its own
choice; each game starts with a fresh opening roll, seats by the roll.

    make bench-pubeval      # or: .venv/bin/python benchmarks/vs_pubeval.py [--checkpoint P] [--games N]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bgnet.checkpoint import DEFAULT, load_network
from bgnet.evaluator import NetEvaluator
from bgnet.lockstep import play_match
from bgnet.pubeval import pubeval_best
from bgnet.stats import mean_ci


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default=str(DEFAULT))
    ap.add_argument("--games", type=int, default=50_000)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    model, encoder, state = load_network(args.checkpoint)
    ev = NetEvaluator(model, encoder)
    t = time.perf_counter()
    pts = play_match((ev.choose, lambda b, _p: pubeval_best(b)), args.games, np.random.default_rng(args.seed))
    elapsed = time.perf_counter() - t
    ppg, ci = mean_ci(pts)
    counts = {k: int((pts == k).sum()) for k in (3, 2, 1, -1, -2, -3)}
    print(f"checkpoint: {args.checkpoint} ({state['counters']['games']} training games, {encoder.name})")
    print(f"games: {len(pts)} in {elapsed:.0f} s ({len(pts) / elapsed:.0f} games/s), seed {args.seed}")
    print(f"results for bgnet: {counts}")
    print(f"win rate: {(pts > 0).mean():.4f}")
    print(f"ppg vs pubeval: {ppg:+.4f} +- {ci:.4f} (95% CI)")


if __name__ == "__main__":
    main()
