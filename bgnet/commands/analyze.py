"""``bgnet analyze``: the plays of a roll ranked at a ply, or the cube decision without a roll.

::

    bgnet analyze POSITION [--dice 31] [--ply N] [--xgid XGID | --match-id ID] [--json]
    bgnet analyze --batch FILE [--ply N] [--json]        # lines "POSITION [DICE]"

POSITION is a GNUBG Position ID, ``positionid:matchid`` or an XGID; an XGID
or a Match ID (in POSITION or given with ``--xgid``/``--match-id``) carries
the cube, the score and the match length, and its dice are used when
``--dice`` is not given.  Without any of them the game is cubeless money
play.  With a cube state, a play's equity is cubeful: the opponent's
cubeful equity after the play (its best cube action first, gnubg's way of
ranking plays) turned to the mover's side, in units of the current cube.

At ``--ply`` above 0 only the plays that pass gnubg's move filter are
evaluated that deep; the others keep their 0-ply value.  Each play is
labelled with the ply it was evaluated at (``"ply"``), the deepest come
first, and a play's loss compares like with like: the best play's equity at
that play's ply minus the play's own.
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from bgnet.commands.common import dice_of, read_lines
from bgnet.cube import CubeState, MatchState, cube_decision, cubeful_equity, race_pips
from bgnet.dice import Dice
from bgnet.errors import BgnetError
from bgnet.formats import MatchInfo, Xgid, match_info_from_id, parse_position, parse_xgid, position_ids
from bgnet.movegen import generate
from bgnet.notation import format_play
from bgnet.position import Position, check_in_play
from bgnet.probabilities import equity
from bgnet.probabilities import flip as flip_probs

__all__ = ["analyze", "parse_input", "register", "run"]


def cube_context(info: Xgid | MatchInfo | None) -> tuple[CubeState, MatchState] | None:
    """The cube and match state, from the side on roll, that an XGID or Match ID carries."""
    return None if info is None else info.state()


def analyze(ev, position: Position, dice: Dice | None, ctx, ply: int) -> dict:
    """The JSON object of one analysis (see the module docstring)."""
    board = position.board
    out: dict = {"position": position_ids(board[None, :])[0], "ply": ply}
    if dice is None:
        probs = ev.probabilities(board[None, :], ply)[0]
        cube, match = ctx if ctx is not None else (CubeState(), MatchState.money())
        decision = cube_decision(probs, cube, match, pips=race_pips(board))
        out.update(
            dice=None,
            probabilities=[round(float(x), 6) for x in probs],
            equity=round(float(equity(probs)), 6),
            plays=[],
            cube=decision.to_dict(),
        )
        return out
    batch = generate(board[None, :], np.array([[dice.high, dice.low]]))
    if len(batch.positions):
        probs, plies = ev.rank(batch, ply, with_plies=True)
    else:
        probs, plies = np.empty((0, 5)), np.empty(0, dtype=np.int64)
    eq = _mover_equities(probs, batch.positions, ctx)
    order = np.lexsort((-eq, -plies))  # the deepest evaluated first, then by equity
    ids = position_ids(batch.positions)
    # A play's loss is against the best play's equity at the same ply (like with like).
    best_at = {}
    if len(order):
        top = order[0]
        best_at[int(plies[top])] = eq[top]
        for p in sorted(set(plies.tolist()) - {int(plies[top])}):
            eq_p = _mover_equities(ev.rank(batch, p), batch.positions, ctx)
            best_at[p] = eq_p[top]
    plays = []
    for r in order:
        steps = [(int(f), int(t)) for f, t in batch.steps[r] if f >= 0]
        plays.append(
            {
                "play": format_play(board, steps),
                "position": ids[r],
                "ply": int(plies[r]),
                "equity": round(float(eq[r]), 6),
                "probabilities": [round(float(x), 6) for x in probs[r]],
                "loss": round(float(best_at[int(plies[r])] - eq[r]), 6),
            }
        )
    cube = None if ctx is None else {"value": ctx[0].value, "owner": ctx[0].owner.name.lower()}
    out.update(dice=[dice.high, dice.low], plays=plays, cube=cube, cubeful=ctx is not None)
    return out


def _mover_equities(probs: np.ndarray, results: np.ndarray, ctx) -> np.ndarray:
    """The mover's equity of each result from its probabilities: cubeless, or cubeful with ``ctx``."""
    if ctx is None:
        return equity(probs)
    theirs = (ctx[0].flipped(), ctx[1].flipped())
    return np.array(
        [
            -cubeful_equity(flip_probs(p), *theirs, pips=race_pips(r), cube_action=True)
            for p, r in zip(probs, results, strict=True)
        ]
    )


def parse_input(text: str, dice_text: str | None, xgid: str | None, match_id: str | None):
    """The position, dice (or None) and cube context of one analysis, from the command's or the API's text."""
    position, info = parse_position(text)
    check_in_play(position.board)
    if xgid is not None:
        info = parse_xgid(xgid)
    elif match_id is not None:
        info = match_info_from_id(match_id)
    return position, dice_of(dice_text, info), cube_context(info)


def _print_text(result: dict) -> None:
    print(Position(parse_position(result["position"])[0].board))
    if result["dice"] is None:
        p = result["probabilities"]
        print(
            f"ply {result['ply']}: win {p[0]:.4f} wg {p[1]:.4f} wbg {p[2]:.4f} lg {p[3]:.4f} lbg {p[4]:.4f}"
            f"   cubeless equity {result['equity']:+.4f}"
        )
        c = result["cube"]
        print(
            f"No double {c['no_double']:+.4f}   Double, take {c['double_take']:+.4f}   "
            f"Double, pass {c['double_pass']:+.4f}"
        )
        print(f"Proper cube action: {c['action']}")
        return
    d = result["dice"]
    kind = "cubeful" if result.get("cubeful") else "cubeless"
    print(f"{d[0]}{d[1]} at ply {result['ply']} ({kind} equity for the side to play):")
    if not result["plays"]:
        print("  no legal play")
    width = max((len(p["play"]) for p in result["plays"]), default=0)
    for i, p in enumerate(result["plays"], 1):
        pr = p["probabilities"]
        print(
            f"{i:3d}. {p['play']:<{width}}  {p['ply']}-ply {p['equity']:+.4f} ({0.0 - p['loss']:+.4f})   "
            f"{pr[0]:.3f} {pr[1]:.3f} {pr[2]:.3f} - {1 - pr[0]:.3f} {pr[3]:.3f} {pr[4]:.3f}"
        )


def _evaluator(checkpoint: str | None):
    """The network of ``checkpoint`` (default: the shipped one), loaded after the input was checked."""
    # Imported here, not at the top, for start-up time: it loads torch, which `bgnet --help` must not.
    from bgnet.evaluator import NetEvaluator

    return NetEvaluator.from_checkpoint(checkpoint)


def run(args: argparse.Namespace) -> int:
    if (args.position is None) == (args.batch is None) and args.xgid is None:
        raise BgnetError("give a POSITION (or --xgid) or --batch FILE")
    if args.batch is not None and (args.xgid or args.match_id or args.dice):
        raise BgnetError("--xgid, --match-id and --dice apply to one POSITION, not to --batch lines")
    if args.batch is None:
        position, dice, ctx = parse_input(args.position or args.xgid, args.dice, args.xgid, args.match_id)
        result = analyze(_evaluator(args.checkpoint), position, dice, ctx, args.ply)
        if args.json:
            print(json.dumps(result))
        else:
            _print_text(result)
        return 0
    lines = read_lines(args.batch)
    ev = _evaluator(args.checkpoint)
    errors = 0
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        try:
            if len(parts) > 2:
                raise BgnetError(f"expected 'POSITION [DICE]', got {len(parts)} fields")
            position, dice, ctx = parse_input(parts[0], parts[1] if len(parts) == 2 else None, None, None)
            print(json.dumps(analyze(ev, position, dice, ctx, args.ply)))
        except BgnetError as e:
            errors += 1
            print(f"bgnet: error: line {n}: {e}", file=sys.stderr)
            print(json.dumps({"error": f"line {n}: {e}"}))
    return 2 if errors else 0


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "analyze",
        help="rank the plays of a roll at a ply, or give the cube decision",
        description=__doc__.split("::")[0].strip(),
    )
    p.add_argument("position", nargs="?", help="GNUBG Position ID, positionid:matchid, or XGID")
    p.add_argument(
        "--dice", help="the roll, like 31 (default: the XGID's or Match ID's dice, else a cube decision)"
    )
    p.add_argument("--ply", type=int, default=0, choices=(0, 1, 2), help="lookahead (default 0)")
    ctx = p.add_mutually_exclusive_group()
    ctx.add_argument("--xgid", help="an XGID giving the cube, score and match length")
    ctx.add_argument("--match-id", help="a GNUBG Match ID giving the cube, score and match length")
    p.add_argument("--batch", metavar="FILE", help="lines 'POSITION [DICE]' ('-' for stdin); JSON lines out")
    p.add_argument("--checkpoint", metavar="PATH", help="network (default: the shipped one)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
