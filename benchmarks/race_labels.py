"""How much a run's 1-ply labels of contact positions depend on the race network that values their replies.

A run holds trainable networks only, so its 1-ply labels value every reply
that is a race with the run's own race network (TD-trained, ``race_hidden``),
not the shipped one-sided race network and its race search
(``bgnet.race``), which err about a tenth as much on races
(docs/strength.md).  This script plays ``--games`` self-play games of a
run's checkpoint, keeps their contact positions (not races), and labels each
at 1-ply three ways with the same main (and crashed) network: with the run's
race network, with ``--race``'s, and with ``--race``'s and its search.  It
prints how many labels move and by how much (equity x 1000).

    .venv/bin/python benchmarks/race_labels.py checkpoints/runs/refine-ply1-384x3.pt \\
        --config configs/refine-ply1-384x3.toml --race bgnet/networks/bgnet-default.pt
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import torch

from bgnet.errors import BgnetError
from bgnet.evaluator import NetEvaluator
from bgnet.probabilities import equity
from bgnet.pubeval import is_race
from bgnet_training.config import ConfigError, load_config
from bgnet_training.train import selfplay


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint", type=Path, help="the run's checkpoint (its last weights)")
    ap.add_argument("--config", required=True, help="the run's config (self-play settings)")
    ap.add_argument("--race", type=Path, required=True, help="a networks file: its race network")
    ap.add_argument("--games", type=int, default=48)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    try:
        run(args)
    except (BgnetError, ConfigError, OSError) as e:
        raise SystemExit(f"race_labels.py: {e}") from None


def run(args: argparse.Namespace) -> None:
    torch.set_num_threads(1)
    cfg = load_config(args.config, {"parallel_games": args.games})
    own = NetEvaluator.from_checkpoint(args.checkpoint, race_lookahead=False)
    other = NetEvaluator.from_checkpoint(args.race)
    if other.race is None:
        raise SystemExit(f"race_labels.py: {args.race} has no race network")

    def with_race(search: bool) -> NetEvaluator:
        return own.replaced(race=other.race, race_lookahead=search)

    engine, choose = selfplay(cfg, own, args.games, np.random.default_rng(args.seed))
    games: list = []
    while engine.running:
        games += engine.step(choose)
    boards = np.concatenate([g.history for g in games])
    boards = boards[~is_race(boards)]
    print(f"{len(boards)} contact positions of {len(games)} self-play games ({args.checkpoint})")
    base = equity(own.probabilities(boards, ply=1))
    for name, search in (("its race network", False), ("its race network and search", True)):
        d = 1000 * (equity(with_race(search).probabilities(boards, ply=1)) - base)
        moved = np.abs(d) > 0.01
        among = "none"
        if moved.any():
            among = f"mean |d| {np.abs(d[moved]).mean():.2f}, mean {d[moved].mean():+.2f}"
        print(
            f"  {args.race.name}, {name}: labels moved {moved.mean():.1%} (by more than 0.01); "
            f"all: mean |d| {np.abs(d).mean():.3f}, max {np.abs(d).max():.1f}; among those moved: {among}"
        )


if __name__ == "__main__":
    main()
