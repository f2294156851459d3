"""A larger crashed set: positions gnubg classifies as crashed, drawn from bgnet's own self-play.

The 300-position sample holds about a hundred crashed decisions, and
wildbg's lists hold contact and race positions only, so crashed positions
(one side with few checkers left in play outside its deepest points; gnubg's
``classify``) are too few to compare networks on.  This script plays
``--games`` self-play games of a network at 0-ply (default: the shipped one),
keeps each distinct position whose side on roll gnubg-nn classifies as
crashed, draws ``--positions`` of them with ``--seed`` and writes their
Position IDs, one a line, for ``bgnet bench label`` (gnubg-nn 2-ply, as the
larger contact and race sets; ``benchmarks/candidate.py`` does it once and
keeps the labels in ``runs/labels``).  The positions are bgnet's; gnubg only
classifies and labels them, to measure.

    .venv/bin/python benchmarks/crashed_positions.py --out benchmarks/data/crashed-positions.txt
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from bgnet.evaluator import NetEvaluator
from bgnet.formats import board_to_gnubg, position_ids
from bgnet.lockstep import Lockstep
from bgnet.players import import_gnubg


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--checkpoint", help="the network that plays (default: the shipped one)")
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--positions", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    g = import_gnubg()
    ev = NetEvaluator.from_checkpoint(args.checkpoint)
    rng = np.random.default_rng(args.seed)
    engine = Lockstep(256, args.games, rng, record=True)
    choose = ev.chooser(0)
    found: dict[str, None] = {}
    seen = 0
    while engine.running:
        for game in engine.step(choose):
            seen += len(game.history)
            crashed = [g.classify(board_to_gnubg(b)) == g.c_crashed for b in game.history]
            for pid in position_ids(game.history[np.array(crashed, dtype=bool)]):
                found[pid] = None
    ids = list(found)
    picked = [ids[i] for i in sorted(rng.permutation(len(ids))[: args.positions])]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("".join(p + "\n" for p in picked), encoding="utf-8")
    print(
        f"{len(ids)} distinct crashed positions among {seen} of {args.games} self-play games; "
        f"{len(picked)} written to {args.out}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
