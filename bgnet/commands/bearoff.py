"""``bgnet bearoff``: build the one-sided bearoff database, show a race's exact figures.

``bgnet bearoff build [--path P]`` builds the database and writes it to the
cache (``$BGNET_CACHE/bearoff-os15.npz`` unless ``--path``), always anew.
A ``--path`` in a folder that does not exist, or naming a file that is not
a bearoff database, is refused (nothing is created or overwritten).
``bgnet bearoff show POSITION [--path P] [--json]`` prints both sides'
distributions of rolls to bear off and, for a pure bear-off race, the exact
cubeless probabilities of the side on roll (building the database first if
the cache lacks it).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from bgnet.errors import BgnetError


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``bearoff`` command (with ``build`` and ``show``) to ``subparsers``."""
    parser = subparsers.add_parser(
        "bearoff",
        help="exact bear-off races: build the database, show a position",
        description="The one-sided bearoff database (up to 15 checkers on the 6 home points): "
        "distributions of the rolls to bear off, and exact race probabilities.",
    )
    sub = parser.add_subparsers(dest="bearoff_command", required=True, parser_class=type(parser))
    build = sub.add_parser(
        "build",
        help="build the database and cache it",
        description="Build the database (about 10 seconds) and write it atomically to the cache.",
    )
    build.add_argument("--path", metavar="P", help="file to write (default: $BGNET_CACHE/bearoff-os15.npz)")
    build.set_defaults(func=_cmd_build)

    show = sub.add_parser(
        "show",
        help="bear-off figures of a position",
        description="Both sides' distributions of the number of rolls to bear off and, for a pure "
        "bear-off race (no contact, nobody on the bar), the exact cubeless probabilities of the side "
        "on roll: win, win gammon, win backgammon, lose gammon, lose backgammon.",
    )
    show.add_argument("position", help="GNUBG Position ID, positionid:matchid, or XGID")
    show.add_argument("--path", metavar="P", help="database file (default: $BGNET_CACHE/bearoff-os15.npz)")
    show.add_argument("--json", action="store_true", help="print one JSON object")
    show.set_defaults(func=_cmd_show)
    return parser


def _cmd_build(args: argparse.Namespace) -> int:
    from bgnet.bearoff import OneSidedBearoff, check_path

    if args.path is not None:  # refuse a bad path before the build, not after it
        check_path(Path(args.path).expanduser())
    start = time.perf_counter()
    db = OneSidedBearoff.build()
    built = time.perf_counter() - start
    try:
        path = db.save(args.path)
    except OSError as e:
        raise BgnetError(f"cannot write the bearoff database: {e}") from None
    print(f"built in {built:.1f} s, wrote {path} in {time.perf_counter() - start - built:.1f} s")
    return 0


def _side_text(counts: np.ndarray) -> str:
    return " ".join(f"{p}:{int(n)}" for p, n in enumerate(counts, 1) if n) or "(none)"


def _dist_text(dist: np.ndarray) -> str:
    return "  ".join(f"{n}:{p:.4f}" for n, p in enumerate(dist) if p >= 5e-5)


def _cmd_show(args: argparse.Namespace) -> int:
    from bgnet.bearoff import OneSidedBearoff
    from bgnet.formats import parse_position
    from bgnet.position import check_in_play, flip
    from bgnet.probabilities import equity

    position, _ = parse_position(args.position)
    board = position.board
    check_in_play(board)
    if not OneSidedBearoff.covers(board[None, :])[0]:
        raise BgnetError("not a bear-off race: every checker must be in its own home board, none on the bar")
    db = OneSidedBearoff.load_or_build(args.path)
    sides = {"on_roll": board[1:7], "opponent": flip(board)[1:7]}
    probs = db.probabilities(board[None, :])[0]
    result: dict[str, Any] = {  # the JSON object of --json
        name: {
            "checkers": {str(p): int(n) for p, n in enumerate(counts, 1) if n},
            "expected_rolls": round(float(db.expected_rolls(counts)), 6),
            "rolls": [round(float(x), 6) for x in np.trim_zeros(db.distribution(counts), "b")],
        }
        for name, counts in sides.items()
    }
    result["probabilities"] = [round(float(x), 6) for x in probs]
    result["equity"] = round(float(equity(probs)), 6)
    if args.json:
        print(json.dumps(result))
        return 0
    for name, counts in sides.items():
        r = result[name]
        label = "on roll " if name == "on_roll" else "opponent"
        print(f"{label}  {_side_text(counts)}   expected rolls {r['expected_rolls']:.4f}")
        print(f"          P(n rolls)  {_dist_text(np.array(r['rolls']))}")
    w, wg, wbg, lg, lbg = probs
    print(
        f"on roll: win {w:.4f}  win gammon {wg:.4f}  win bg {wbg:.4f}  "
        f"lose gammon {lg:.4f}  lose bg {lbg:.4f}  equity {result['equity']:+.4f}"
    )
    return 0
