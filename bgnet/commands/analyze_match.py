"""``bgnet analyze-match``: every checker play and cube decision of a match file, evaluated by the network.

::

    bgnet analyze-match FILE.mat [--ply 0|1|2] [--worst N] [--json]

Reads a ``.mat`` match file (gnubg's export or bgnet's ``--save``), replays
every game and evaluates each unforced checker play and each cube decision
at ``--ply``, cubeful with the cube and the score of the moment.  Per
player: the error rate (mean equity lost per decision x 1000), the
performance rating (XG's scale: x 500), counts of doubtful plays (loss of
0.04 or more), errors (0.08) and blunders (0.16), and the luck; then the
worst decisions with their XGID, the play made and the best play.  See
:mod:`bgnet.analysis`.
"""

from __future__ import annotations

import argparse
import json
import sys

from bgnet.errors import BgnetError
from bgnet.matfile import read_mat

__all__ = ["register", "run"]


def run(args: argparse.Namespace) -> int:
    if args.worst < 0:
        raise BgnetError(f"--worst must be 0 or more, got {args.worst}")
    try:
        match = read_mat(args.file)
    except UnicodeDecodeError as e:  # pragma: no cover - read_mat replaces undecodable bytes
        raise BgnetError(f"cannot read {args.file}: not a text file (offset {e.start})") from None
    if not any(g.actions for g in match.games):
        raise BgnetError(f"{args.file}: the match has no moves to analyse")
    from tqdm import tqdm

    from bgnet.analysis import analyze_match  # here for start-up time (it loads torch)
    from bgnet.evaluator import NetEvaluator

    ev = NetEvaluator.from_checkpoint(args.checkpoint)
    total = sum(len(g.actions) for g in match.games)
    with tqdm(
        total=total, unit="action", file=sys.stderr, disable=True if args.no_progress else None, leave=False
    ) as bar:
        result = analyze_match(ev, match, args.ply, progress=bar.update)
    out = result.to_dict(args.worst)
    if args.json:
        print(json.dumps(out))
        return 0
    kind = f"{result.length}-point match" if result.length else "money session"
    print(f"{args.file}: {kind}, {len(match.games)} game(s), analysed at {result.ply}-ply (cubeful)")
    print()
    width = max(len(n) for n in result.names)
    print(
        f"{'player':<{width}}  decisions  error rate      PR  doubtful  errors  blunders    luck  luck/roll"
    )
    for name, s in out["players"].items():
        print(
            f"{name:<{width}}  {s['decisions']:9d}  {s['error_rate']:10.1f}  {s['pr']:6.1f}"
            f"  {s['doubtful']:8d}  {s['errors']:6d}  {s['blunders']:8d}"
            f"  {s['luck']:+6.2f}  {s['luck_rate']:+9.1f}"
        )
    print()
    print("error rate: mean equity lost per decision x 1000; PR: x 500 (XG's scale); doubtful >= 0.04,")
    print(
        "error >= 0.08, blunder >= 0.16 equity lost; luck: cubeless equity, the sum over the player's rolls."
    )
    if out["worst"]:
        print()
        print(f"The {len(out['worst'])} worst decisions:")
        for d in out["worst"]:
            print(f"  game {d['game']}  {d['player']}  {d['kind']}: -{d['loss']:.3f}   {d['xgid']}")
            print(f"      made: {d['made']}   best: {d['best']}")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "analyze-match",
        help="analyse every decision of a .mat match file",
        description=__doc__.split("::")[0].strip(),
    )
    p.add_argument("file", help="a .mat match file")
    p.add_argument("--ply", type=int, default=0, choices=(0, 1, 2), help="lookahead (default 0)")
    p.add_argument("--worst", type=int, default=10, help="how many worst decisions to list (default 10)")
    p.add_argument("--checkpoint", metavar="PATH", help="network (default: the shipped one)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
