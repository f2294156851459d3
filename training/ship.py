"""Make a shipped network file from a run's checkpoint: the networks, their config and counters, no optimizer.

    .venv/bin/python -m bgnet_training.ship checkpoints/runs/refine-ply1.pt bgnet/networks/bgnet-default.pt
    .venv/bin/python -m bgnet_training.ship MAIN.pt OUT.pt --race RACE.pt   # the race network of another run

The result loads everywhere a checkpoint does (``NetEvaluator.from_checkpoint``,
``--checkpoint``); it is about half the size of the training checkpoint.  With
``--race``, the race network comes from that checkpoint instead (a run that
trained only it, ``train_nets = "race"``); its run's name and counters are kept
under ``race_source``.  A run that keeps a weight average (``average`` in its
config, ``training/average.py``) ships the average, from each file; ``--live``
ships the last weights instead.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from bgnet import checkpoint
from bgnet.errors import BgnetError

TRAINING_ONLY = ("optimizer", "rng", "average")


def averaged(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` with its networks replaced by the run's weight average, when it keeps one
    (``training/average.py``); the shipped file notes the average's time constant under ``averaged``."""
    average = state.get("average")
    if not isinstance(average, dict):
        return state
    out = state | {"model": average["main"], "averaged": {"games": average.get("games")}}
    if isinstance(state.get("race"), dict) and "race" in average:
        out["race"] = state["race"] | {"model": average["race"]}
    return out


def shipped_state(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` without what only training needs (optimizer states, RNG states), checked to load."""
    out = {k: v for k, v in state.items() if k not in TRAINING_ONLY and k != "format"}
    if isinstance(out.get("race"), dict):
        out["race"] = {k: v for k, v in out["race"].items() if k not in TRAINING_ONLY}
    checkpoint.network_from(out, "the shipped state")
    checkpoint.race_network_from(out, "the shipped state")
    return out


def with_race(state: dict[str, Any], other: dict[str, Any], source: str) -> dict[str, Any]:
    """``state`` with the race network of ``other`` (a checkpoint dict read from ``source``)."""
    race = other.get("race")
    if not isinstance(race, dict):
        raise checkpoint.CheckpointError(f"{source}: has no race network")
    config = other.get("config")
    name = config.get("name", "") if isinstance(config, dict) else ""
    return state | {
        "race": race,
        "race_source": {"run": name, "counters": other.get("counters", {})},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", type=Path, help="a training checkpoint")
    ap.add_argument("target", type=Path, help="the shipped network file to write")
    ap.add_argument("--race", type=Path, metavar="FILE", help="take the race network from this checkpoint")
    ap.add_argument(
        "--live",
        action="store_true",
        help="ship the last weights, not the run's weight average where it keeps one",
    )
    args = ap.parse_args(argv)
    pick = (lambda s: s) if args.live else averaged
    try:
        state = pick(checkpoint.read(args.source))
        if args.race is not None:
            state = with_race(state, pick(checkpoint.read(args.race)), str(args.race))
        path = checkpoint.save(args.target, shipped_state(state))
    except (BgnetError, OSError) as e:
        print(f"bgnet-ship: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
