"""1-ply label speed: search targets labelled in float32 against labels whose replies a bfloat16 copy picks.

Plays ``--games`` self-play games of a config's networks (from its ``init``
checkpoint, or ``--checkpoint``), then labels every position of them at
1-ply three ways, one after the other in this one process, ``--rounds``
times:

* ``float32, one forward a chunk``: every reply valued in float32, one network forward per
  move-generator chunk (65,536 rows), as before forwards were split;
* ``float32``: every reply valued in float32, forwards of the CPU's
  smaller blocks (``bgnet.evaluator._CPU_FORWARD``);
* ``screened``: the config's ``policy_dtype`` copy (bfloat16 where the CPU
  computes in it) picks each roll's reply and only the replies picked are
  valued in float32 (``Evaluator.screen``, ``SelfPlayChooser.screen``), what training does.

It prints labels a second of each and how far the screened labels are from
float32's (equity, mEMG).  The machine is noisy: read the ratios.

    .venv/bin/python benchmarks/labels.py --config configs/refine-ply1-384x3.toml
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

import bgnet.evaluator as evaluator_module
from bgnet.evaluator import NetEvaluator
from bgnet.probabilities import equity
from bgnet_training.config import load_config
from bgnet_training.train import selfplay

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "configs" / "refine-ply1-384x3.toml"))
    ap.add_argument("--checkpoint", help="the networks to label with (default: the config's init)")
    ap.add_argument("--games", type=int, default=24)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    torch.set_num_threads(1)
    cfg = load_config(args.config, {"parallel_games": args.games})
    source = args.checkpoint or cfg.init
    if not source:
        raise SystemExit("labels.py: the config has no init checkpoint; give --checkpoint")
    ev = NetEvaluator.from_checkpoint(ROOT / source, race_lookahead=False)
    engine, choose = selfplay(cfg, ev, args.games, np.random.default_rng(args.seed))
    screen = choose.screen
    if screen is None:
        raise SystemExit(f"labels.py: policy_dtype {cfg.policy_dtype!r} gives no low-precision copy here")
    games: list = []
    while engine.running:
        games += engine.step(choose)
    boards = np.concatenate([g.history for g in games])
    print(f"{len(boards)} positions of {len(games)} self-play games ({source})")
    forward = evaluator_module._CPU_FORWARD
    ways = {
        "float32, one forward a chunk": (None, evaluator_module._CHUNK),
        "float32": (None, forward),
        "screened": (screen, forward),
    }
    labels: dict[str, np.ndarray] = {}
    for _ in range(args.rounds):
        for name, (scr, rows) in ways.items():
            evaluator_module._CPU_FORWARD = rows
            with ev.screened(scr):
                t = time.perf_counter()
                labels[name] = ev.probabilities(boards, ply=1)
                dt = time.perf_counter() - t
            print(f"  {name:30s} {len(boards) / dt:7.1f} labels/s")
    evaluator_module._CPU_FORWARD = forward
    same = np.abs(labels["float32"] - labels["float32, one forward a chunk"]).max()
    d = 1000 * (equity(labels["screened"]) - equity(labels["float32"]))
    print(f"float32 labels of both forward sizes differ by at most {same:.2g}")
    print(
        f"screened - float32 equity, mEMG: mean {d.mean():+.3f}, mean |d| {np.abs(d).mean():.3f}, "
        f"max |d| {np.abs(d).max():.2f}; {np.mean(np.abs(d) > 1e-3):.0%} of the labels moved"
    )


if __name__ == "__main__":
    main()
