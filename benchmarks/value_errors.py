"""Where a network's values go wrong: levels across decisions or gaps within them?  (docs/strength.md,
measurement only)

Values every listed play of benchmark decisions (``.jsonl`` files whose plays carry their afterstates and
reference equities, e.g. gnubg-nn 2-ply's) with each networks file at each ``--ply``, from the mover's side,
and splits each play's error (its value less the reference's) in two: the decision's **level** error (the
mean error over its plays) and each play's **gap** error (its error less that mean).  A 0-ply choice
depends on the gaps alone; a search averages the values of the positions after 21 rolls' replies, so the
levels of those positions matter to it as well.  Prints each way's rms level and gap error (mEq, gaps over
decisions with two plays or more) and, for two files, their paired differences in squared error with 95%
CIs (a decision's level; the mean of its plays' gaps).

    .venv/bin/python benchmarks/value_errors.py runs/labels/wildbg-contact-2ply.jsonl \\
        --checkpoint A.pt --checkpoint B.pt --ply 0 --ply 1 --class contact
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
import torch

from bgnet.benchmark_positions import BenchmarkError, load_positions
from bgnet.errors import BgnetError
from bgnet.evaluator import NetEvaluator
from bgnet.probabilities import equity
from bgnet.stats import mean_ci


def split_errors(values: np.ndarray, ref: np.ndarray, decision: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each decision's level error (the mean of its plays' errors) and each play's gap error (its error less
    its decision's level); ``decision`` numbers the plays' decisions 0, 1, ..."""
    err = values - ref
    counts = np.bincount(decision)
    level = np.bincount(decision, err) / np.maximum(counts, 1)
    return level, err - level[decision]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("positions", nargs="+", help="benchmark .jsonl files (plays with afterstates)")
    ap.add_argument("--checkpoint", action="append", required=True, help="a networks file (once or twice)")
    ap.add_argument("--ply", action="append", type=int, choices=(0, 1, 2), help="a ply (default 0)")
    ap.add_argument("--class", dest="cls", help="only decisions of this class (contact, crashed, race)")
    args = ap.parse_args(argv)
    if len(args.checkpoint) > 2:
        ap.error("--checkpoint: once or twice")
    torch.set_num_threads(1)
    plies = args.ply or [0]
    try:
        decisions = [p for f in args.positions for p in load_positions(f) if args.cls in (None, p.cls)]
        if not decisions:
            raise BenchmarkError(
                f"no decisions{f' of class {args.cls}' if args.cls else ''} in {', '.join(args.positions)}"
            )
        after = np.stack([c.position for p in decisions for c in p.candidates])
        ref = np.array([c.equity for p in decisions for c in p.candidates])
        decision = np.repeat(np.arange(len(decisions)), [len(p.candidates) for p in decisions])
        counts = np.bincount(decision)
        several = (counts >= 2)[decision]
        print(f"{len(decisions)} decisions, {len(after)} plays; errors against each play's reference equity")
        found: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        for path in args.checkpoint:
            ev = NetEvaluator.from_checkpoint(path)
            for ply in plies:
                mover = -equity(ev.probabilities(after, ply=ply))  # the afterstates are seen by the opponent
                level, gap = split_errors(mover, ref, decision)
                found[path, ply] = level, gap
                bias, level_rms = 1000 * (mover - ref).mean(), 1000 * np.sqrt(np.mean(level**2))
                gap_rms = 1000 * np.sqrt(np.mean(gap[several] ** 2))
                print(
                    f"{path} at {ply}-ply: mean error {bias:+.1f}, level rms {level_rms:.1f}, "
                    f"gap rms {gap_rms:.1f} mEq",
                    flush=True,
                )
    except (BgnetError, OSError) as e:
        print(f"value_errors.py: {e}", file=sys.stderr)
        return 2
    if len(args.checkpoint) == 2:
        a, b = args.checkpoint
        for ply in plies:
            (la, ga), (lb, gb) = found[a, ply], found[b, ply]
            summed = np.bincount(
                decision[several], ga[several] ** 2 - gb[several] ** 2, minlength=len(counts)
            )
            for name, d in (("level", la**2 - lb**2), ("gap", summed[counts >= 2] / counts[counts >= 2])):
                m, ci = mean_ci(d)
                print(
                    f"{ply}-ply {name} squared error, first less second: {1e6 * m:+.1f} ± {1e6 * ci:.1f} mEq²"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
