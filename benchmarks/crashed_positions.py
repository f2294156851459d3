"""A larger crashed set: crashed positions (gnubg's test) drawn from bgnet's own self-play; with
``--kind contact``, a larger contact set the same way.

The 300-position sample holds about a hundred crashed decisions, and
wildbg's lists hold contact and race positions only, so crashed positions
(one side with few checkers left in play outside its deepest points; gnubg's
``classify``) are too few to compare networks on.  This script plays
``--games`` self-play games of a network at 0-ply (default: the shipped one),
keeps each distinct crashed position (:func:`bgnet.pubeval.is_crashed`,
gnubg's ``ClassifyPosition`` test), seen by the side on roll, draws
``--positions`` of them with ``--seed`` and writes their Position IDs, one
a line, for ``bgnet bench label`` (gnubg-nn 2-ply, as the larger contact and
race sets; ``benchmarks/candidate.py`` does it once and
keeps the labels in ``runs/labels``).  ``--kind contact`` keeps the contact
positions that are neither races nor crashed (those the main network values)
instead.  The positions are bgnet's; gnubg only labels them, to measure.

    .venv/bin/python benchmarks/crashed_positions.py --out benchmarks/data/crashed-positions.txt
    .venv/bin/python benchmarks/crashed_positions.py --kind contact --positions 4000 --seed 11 \
        --checkpoint S23.pt --out benchmarks/data/contact-positions-s11.txt   # S23.pt: git show ca4c1e0:...
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from bgnet.evaluator import NetEvaluator
from bgnet.formats import position_ids
from bgnet.pubeval import is_crashed
from bgnet_training.races import harvest, is_contact


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--checkpoint", help="the network that plays (default: the shipped one)")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--kind", choices=("crashed", "contact"), default="crashed", help="which positions")
    args = ap.parse_args()
    ev = NetEvaluator.from_checkpoint(args.checkpoint)
    rng = np.random.default_rng(args.seed)
    where = is_crashed if args.kind == "crashed" else is_contact
    found = harvest(ev.chooser(0), args.games, rng, every=True, where=where)
    ids = list(dict.fromkeys(position_ids(found)))  # distinct, in the order the games reached them
    picked = [ids[i] for i in sorted(rng.permutation(len(ids))[: args.positions])]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(p + "\n" for p in picked), encoding="utf-8")
    print(
        f"{len(ids)} distinct of {len(found)} {args.kind} positions in {args.games} self-play games; "
        f"{len(picked)} written to {args.out}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
