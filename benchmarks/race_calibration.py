"""Calibration of the race evaluator: its mean probabilities against games played out, on bgnet's own races.

Takes ``--positions`` race positions at random from ``checkpoints/race-starts.npz``
(the first race position of bgnet's own self-play games, seen by the side on
roll), values each with the networks file's evaluator (races searched one
roll a side unless ``--no-lookahead``), plays each out once with the same
networks at 0-ply, and prints the mean of each probability (win, win gammon,
win backgammon, lose gammon, lose backgammon; gammons include backgammons)
next to the rate played, with its standard error.  A calibrated evaluator's
means lie within about two standard errors of the rates; a decision-error
benchmark does not see a bias common to all the plays of a roll.

    .venv/bin/python benchmarks/race_calibration.py [--networks FILE] [--positions N] [--seed S]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from bgnet.evaluator import NetEvaluator
from bgnet.lockstep import Lockstep
from bgnet.probabilities import equity
from bgnet_training import races

ROOT = Path(__file__).resolve().parent.parent
NAMES = ("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon")


def played_rates(evaluator: NetEvaluator, boards: np.ndarray, seed: int) -> np.ndarray:
    """``(n,)`` points of the side on roll of each board, each played out once by ``evaluator`` at 0-ply."""
    it = iter(range(len(boards)))
    engine = Lockstep(
        256, len(boards), np.random.default_rng(seed), start=lambda rng: boards[next(it)].copy()
    )
    points = np.zeros(len(boards), np.int64)
    choose = evaluator.chooser()
    while engine.running:
        for g in engine.step(choose):  # games are numbered in the order they started: the boards' order
            points[g.game] = g.points if g.first == 0 else -g.points
    return points


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--networks", default=None, help="networks file (default: the shipped one)")
    ap.add_argument("--positions", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-lookahead", action="store_true", help="the race network alone, unsearched")
    args = ap.parse_args()
    starts = races.load(ROOT / "checkpoints" / "race-starts.npz")
    rng = np.random.default_rng(args.seed)
    boards = starts[rng.choice(len(starts), min(args.positions, len(starts)), replace=False)]
    valued = NetEvaluator.from_checkpoint(args.networks, race_lookahead=not args.no_lookahead)
    probs = valued.probabilities(boards)
    player = NetEvaluator.from_checkpoint(args.networks, race_lookahead=False)
    points = played_rates(player, boards, args.seed + 1)
    outcomes = np.stack([points > 0, points >= 2, points == 3, points <= -2, points == -3], axis=1)
    print(f"{len(boards)} race starts of bgnet's own games; evaluator mean against the rate played (s.e.)")
    for k, name in enumerate(NAMES):
        rate = outcomes[:, k].mean()
        se = np.sqrt(rate * (1 - rate) / len(boards))
        print(f"{name:<16} {probs[:, k].mean():.4f}   played {rate:.4f} ({se:.4f})")
    se = points.std() / np.sqrt(len(points))
    print(f"{'equity':<16} {equity(probs).mean():+.4f}   played {points.mean():+.4f} ({se:.4f})")


if __name__ == "__main__":
    main()
