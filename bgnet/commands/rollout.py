"""``bgnet rollout``: a position, or every candidate play of a roll, rolled out by the network.

::

    bgnet rollout POSITION [--dice 31] [--games 1296] [--ply 0|1] [--truncate N] [--seed S]
                  [--jobs N] [--json]

Without dice the position (its side on roll about to roll) is played out
``--games`` times, cubeless, and the mean of the results is its value:
equity and the 5 probabilities, each with its standard error.  With dice
(``--dice`` or the dice of an XGID / Match ID) the plays that pass a 0-ply
filter (up to 8 within 0.16 of the best, gnubg's) are each rolled out on the
same dice streams (common random numbers) and ranked, with the loss against
the best and that loss's standard error.

Variance reduction is on by default: luck adjustment (``--no-luck`` turns it
off) and stratified first two rolls (``--no-stratify``).  Games end exactly
in the bearoff database (``--no-bearoff-stop`` plays them out), or after
``--truncate`` plies with the evaluator's value.  ``--jobs N`` spreads the
games over N processes (0: every core); ``--seed`` fixes the dice, and the
result does not depend on ``--jobs``.  See :mod:`bgnet.rollout`.

``--cube`` rolls out a position (no dice) cubeful, money or match, from the
cube and the score of the XGID or Match ID (a plain Position ID: money play,
cube centred): both sides double, take and pass by the cube module during
the games, which are played to the end, without luck adjustment, in one
process (:mod:`bgnet.cubeful_rollout`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from functools import partial

from bgnet.commands.common import dice_of
from bgnet.errors import BgnetError
from bgnet.formats import parse_position, position_ids
from bgnet.notation import format_play
from bgnet.position import Position, check_in_play

__all__ = ["register", "run"]


def _fmt_probs(p, se=None) -> str:
    names = ("win", "wg", "wbg", "lg", "lbg")
    if se is None:
        return " ".join(f"{n} {x:.4f}" for n, x in zip(names, p, strict=True))
    return "  ".join(f"{n} {x:.4f}±{e:.4f}" for n, x, e in zip(names, p, se, strict=True))


def run(args: argparse.Namespace) -> int:
    position, info = parse_position(args.position)
    check_in_play(position.board)
    dice = dice_of(args.dice, info)
    if args.cube and dice is not None:
        raise BgnetError("--cube rolls out a position before its roll: give no dice (and an XGID with 00)")
    if args.cube and args.jobs != 1:
        raise BgnetError("--cube rolls out in one process for now: use --jobs 1")
    if args.jobs < 0:
        raise BgnetError(f"--jobs must be 0 (every core) or more, got {args.jobs}")
    from tqdm import tqdm

    from bgnet import rollout as ro  # here for start-up time (it loads torch)
    from bgnet.evaluator import NetEvaluator

    settings = ro.RolloutSettings(
        games=args.games,
        ply=args.ply,
        truncate=args.truncate,
        luck=not args.no_luck,
        stratify=not args.no_stratify,
        bearoff_stop=not args.no_bearoff_stop,
        seed=args.seed,
    )
    jobs = ro.default_jobs() if args.jobs == 0 else args.jobs
    make = partial(NetEvaluator.from_checkpoint, args.checkpoint)
    ev = make()
    start = time.perf_counter()
    out: dict
    bar = tqdm(unit="game", file=sys.stderr, disable=True if args.no_progress else None, leave=False)
    try:
        if args.cube:
            from bgnet.cubeful_rollout import cubeful_rollout
            from bgnet.match import CubeState, MatchState

            cube, match = info.state() if info is not None else (CubeState(), MatchState.money())
            bar.reset(total=settings.games)
            cubeful = cubeful_rollout(ev, position.board, cube, match, settings, progress=bar.update)
            out = {"position": position_ids(position.board[None, :])[0], **cubeful.to_dict()}
            out["cube"] = {"value": cube.value, "owner": cube.owner.name.lower()}
            out["match"] = None if match.is_money else {"length": match.length, "score": list(match.score)}
        elif dice is None:
            bar.reset(total=settings.games)
            result = ro.rollout_boards(
                position.board[None, :],
                settings,
                evaluator=ev,
                make_evaluator=make,
                jobs=jobs,
                progress=bar.update,
            )[0]
            out = {"position": position_ids(position.board[None, :])[0], **result.to_dict()}
        else:
            batch, plays = ro.rollout_plays(
                ev,
                position.board,
                dice,
                settings,
                make_evaluator=make,
                jobs=jobs,
                progress=bar.update,
                on_candidates=lambda k: bar.reset(total=k * settings.games),
            )
            ids = position_ids(batch.positions) if len(batch.positions) else []
            rows = []
            for p in plays:
                steps = [(int(f), int(t)) for f, t in batch.steps[p.row] if f >= 0]
                d = p.result.to_dict()
                rows.append(
                    {
                        "play": format_play(position.board, steps),
                        "position": ids[p.row],
                        "equity": d["equity"],
                        "equity_se": d["equity_se"],
                        "probabilities": d["probabilities"],
                        "probabilities_se": d["probabilities_se"],
                        "loss": round(p.loss, 6),
                        "loss_se": round(p.loss_se, 6),
                    }
                )
            out = {
                "position": position_ids(position.board[None, :])[0],
                "dice": [dice.high, dice.low],
                "games": settings.games,
                "plays": rows,
            }
    finally:
        bar.close()
    seconds = time.perf_counter() - start
    out["settings"] = {
        "ply": settings.ply,
        "truncate": settings.truncate,
        "luck": settings.luck and not args.cube,
        "stratify": settings.stratify,
        "bearoff_stop": settings.bearoff_stop and not args.cube,
        "seed": settings.seed,
        "jobs": jobs,
    }
    out["seconds"] = round(seconds, 3)
    if args.json:
        print(json.dumps(out))
    else:
        _print_text(out)
    return 0


def _print_text(out: dict) -> None:
    print(Position(parse_position(out["position"])[0].board))
    s = out["settings"]
    vr = [n for n, on in (("luck adjustment", s["luck"]), ("stratified dice", s["stratify"])) if on]
    how = (
        f"{out['games']} games at {s['ply']}-ply, "
        + (f"truncated at {s['truncate']} plies, " if s["truncate"] else "")
        + ("variance reduction: " + " and ".join(vr) if vr else "no variance reduction")
        + f", seed {s['seed']}, {out['seconds']:.1f} s"
    )
    if out.get("cubeful"):
        m = out["match"]
        where = "money play" if m is None else f"{m['length']}-point match at {m['score'][0]}-{m['score'][1]}"
        print(f"Cubeful rollout, {where}, cube {out['cube']['value']} {out['cube']['owner']} ({how}):")
        print(
            f"  equity {out['equity']:+.4f} ± {out['equity_se']:.4f} (standard error, normalised to the cube)"
        )
        print(f"  {out['doubles']} doubles in the games, {out['passes']} passed")
        return
    if "plays" not in out:
        print(f"Cubeless rollout ({how}):")
        print(f"  equity {out['equity']:+.4f} ± {out['equity_se']:.4f} (standard error)")
        print("  " + _fmt_probs(out["probabilities"], out["probabilities_se"]))
        return
    d = out["dice"]
    print(f"{d[0]}{d[1]}: cubeless rollout of the candidate plays ({how}), equity for the side to play:")
    if not out["plays"]:
        print("  no legal play")
    width = max((len(p["play"]) for p in out["plays"]), default=0)
    for i, p in enumerate(out["plays"], 1):
        loss = "" if i == 1 else f"  ({-p['loss']:+.4f} ± {p['loss_se']:.4f})"
        print(
            f"{i:3d}. {p['play']:<{width}}  {p['equity']:+.4f} ± {p['equity_se']:.4f}{loss:<22}  "
            + _fmt_probs(p["probabilities"])
        )


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "rollout",
        help="roll out a position, or the candidate plays of a roll",
        description=__doc__.split("::")[0].strip(),
    )
    p.add_argument("position", help="GNUBG Position ID, positionid:matchid, or XGID")
    p.add_argument("--dice", help="the roll, like 31: roll out its plays (default: the XGID's or Match ID's)")
    p.add_argument("--games", type=int, default=1296, help="games (trials) per rollout (default 1296)")
    p.add_argument("--ply", type=int, default=0, choices=(0, 1), help="lookahead of the plays (default 0)")
    p.add_argument(
        "--truncate", type=int, metavar="N", help="stop each game after N plies (evaluator's value)"
    )
    p.add_argument(
        "--cube", action="store_true", help="cubeful: the XGID's / Match ID's cube and score (default money)"
    )
    p.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (default 1; 0: every core)")
    p.add_argument("--no-luck", action="store_true", help="no luck adjustment (variance reduction)")
    p.add_argument("--no-stratify", action="store_true", help="no stratified first rolls")
    p.add_argument(
        "--no-bearoff-stop",
        action="store_true",
        help="play bear-offs out instead of stopping at the exact value",
    )
    p.add_argument("--checkpoint", metavar="PATH", help="network (default: the shipped one)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
