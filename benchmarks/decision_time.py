"""Decision time of whole network files, one decision a call, as a player makes it.

Usage (from the repository root)::

    python benchmarks/decision_time.py FILE [FILE ...] --positions P [--count 16] [--ply 2] [--rounds 3]

Each FILE is loaded as the players load it (``NetEvaluator.from_checkpoint``:
its main, race and crashed networks, the bearoff database, the race search),
so a crashed network's cost shows in crashed positions.  The first
``--count`` decisions of ``--positions`` (a ``.bm`` file or labels written by
``bgnet bench label``; ``--class`` keeps one class of them) are decided one
at a time with the default move filter at ``--ply``.  The files take turns
within each round (the machine is noisy); a file's figure is the median
over ``--rounds`` of its mean seconds a decision, and the line's ratio is
against the first FILE.  One thread (``--threads``); after one untimed
round, so compilation and caches are not counted.

docs/strength.md's seconds a 2-ply crashed decision (stages 13 and 14) come from it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import numpy as np
import torch

from bgnet.benchmark_positions import load_positions
from bgnet.errors import BgnetError
from bgnet.evaluator import NetEvaluator
from bgnet.movegen import generate


def decide_all(evaluator: NetEvaluator, decisions, ply: int) -> float:
    """Seconds to decide every ``(board, dice)`` of ``decisions`` one call at a time."""
    start = time.perf_counter()
    for board, dice in decisions:
        batch = generate(board[None, :], np.asarray([dice], dtype=np.int64))
        evaluator.choose(batch, None, ply, None)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", help="network files (checkpoints) to time")
    parser.add_argument("--positions", required=True, help=".bm file or bgnet bench labels (.jsonl)")
    parser.add_argument("--class", dest="cls", choices=("contact", "crashed", "race"), default=None)
    parser.add_argument("--count", type=int, default=16, help="decisions timed (default 16)")
    parser.add_argument("--ply", type=int, default=2, choices=(0, 1, 2, 3))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    if args.count < 1 or args.rounds < 1 or args.threads < 1:
        parser.error("--count, --rounds and --threads must be at least 1")
    try:
        torch.set_num_threads(args.threads)
        positions = [p for p in load_positions(args.positions) if args.cls is None or p.cls == args.cls][
            : args.count
        ]
        if not positions:
            raise BgnetError(f"no decisions to time in {args.positions}")
        decisions = [(p.board, p.dice) for p in positions]
        evaluators = [NetEvaluator.from_checkpoint(f) for f in args.files]
    except (BgnetError, OSError) as exc:
        print(f"decision_time: {exc}", file=sys.stderr)
        return 2
    for ev in evaluators:
        decide_all(ev, decisions, args.ply)
    times: list[list[float]] = [[] for _ in evaluators]
    for _ in range(args.rounds):
        for i, ev in enumerate(evaluators):
            times[i].append(decide_all(ev, decisions, args.ply) / len(decisions))
    print(
        f"{len(decisions)} decisions of {args.positions}"
        f"{' (' + args.cls + ')' if args.cls else ''} at {args.ply}-ply, one a call, "
        f"{args.threads} thread(s), median of {args.rounds} rounds"
    )
    first = statistics.median(times[0])
    for f, t in zip(args.files, times, strict=True):
        med = statistics.median(t)
        print(f"  {med:.3f} s a decision  ({med / first:.2f}x the first)  {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
