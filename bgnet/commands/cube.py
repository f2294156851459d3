"""``bgnet cube``: the cube decision from given cubeless probabilities.

::

    bgnet cube --probs W,WG,WBG,LG,LBG [--money | --length L --score A,B]
               [--cube V --owner me|opp|center] [--crawford] [--jacoby] [--beaver]
               [--pips N | --efficiency X] [--json]

The probabilities are those of the side on roll (gammons include
backgammons); ``--score A,B`` is the points already won by the side on roll
and by its opponent.  Equities are normalised to the current cube (Double,
pass = +1.0), as gnubg and eXtreme Gammon print them; in a match the match
winning chances are printed too.  See :mod:`bgnet.cube` for the formulas
(gnubg 1.07's 0-ply cube decision).
"""

from __future__ import annotations

import argparse
import json

from bgnet.cube import (
    CubeDecision,
    CubeOwner,
    CubeState,
    InvalidCubeError,
    InvalidProbabilitiesError,
    MatchState,
    cube_decision,
)
from bgnet.met import InvalidMatchError

__all__ = ["register", "run"]


def _numbers(text: str, n: int, what: str, error: type[Exception], kind: type = float) -> list:
    parts = [p.strip() for p in text.replace(" ", ",").split(",") if p.strip()]
    if len(parts) != n:
        raise error(f"{what} takes {n} comma-separated numbers, got {text!r}")
    try:
        return [kind(p) for p in parts]
    except ValueError:
        raise error(f"{what} takes {n} comma-separated numbers, got {text!r}") from None


def _state(args: argparse.Namespace) -> tuple[CubeState, MatchState]:
    if args.length is None:
        if args.score is not None:
            raise InvalidMatchError("--score needs --length (the match length)")
        if args.crawford:
            raise InvalidMatchError("--crawford needs a match: give --length and --score")
        match = MatchState.money(jacoby=args.jacoby, beavers=args.beaver)
    else:
        if args.jacoby or args.beaver:
            raise InvalidMatchError("--jacoby and --beaver apply to money play, not a match")
        score = (
            (0, 0)
            if args.score is None
            else tuple(_numbers(args.score, 2, "--score", InvalidMatchError, int))
        )
        match = MatchState.match(args.length, score, crawford=args.crawford)
    if args.owner is None and args.cube != 1 and not match.is_money:
        raise InvalidCubeError(
            f"in a match a cube on {args.cube} has an owner: give --owner me or --owner opp"
        )
    owner = CubeOwner.parse(args.owner) if args.owner else CubeOwner.CENTERED
    return CubeState(args.cube, owner), match


def _describe(d: CubeDecision, match: MatchState) -> str:
    owner = {
        CubeOwner.CENTERED: "centred",
        CubeOwner.ME: "owned by the side on roll",
        CubeOwner.OPPONENT: "owned by the opponent",
    }[d.cube.owner]
    if match.is_money:
        rules = [r for r, on in (("Jacoby", match.jacoby), ("beavers", match.beavers)) if on]
        where = "money play" + (f" ({', '.join(rules)})" if rules else "")
    else:
        when = " (Crawford game)" if match.crawford else " (post-Crawford)" if match.post_crawford else ""
        where = (
            f"{match.length}-point match, {match.score[0]}-{match.score[1]}, "
            f"{match.away}-away/{match.opp_away}-away{when}"
        )
    return f"{where}; cube {d.cube.value} {owner}; cube efficiency {d.efficiency:.4g}"


def _text(d: CubeDecision, match: MatchState) -> str:
    lines = [f"Cube decision: {_describe(d, match)}", ""]
    dbl = "Double" if d.cube.centered else "Redouble"
    rows = (
        ("No double" if d.cube.centered else "No redouble", d.no_double, "no_double"),
        (f"{dbl}, take", d.double_take, "double_take"),
        (f"{dbl}, pass", d.double_pass, "double_pass"),
    )
    for name, eq, key in rows:
        line = f"  {name:<16} {eq:+.4f}"
        if d.mwc is not None:
            line += f"   MWC {100 * d.mwc[key]:6.2f}%"
        diff = eq - d.optimal
        if abs(diff) >= 5e-5:
            line += f"   ({diff:+.4f})"
        lines.append(line)
    lines += ["", f"Proper cube action: {d.action}"]
    for who, keys in (("side on roll", ("no_double", "double")), ("opponent", ("take", "pass", "beaver"))):
        wrong = [(k, cost) for k in keys if (cost := d.costs.get(k)) is not None and cost >= 5e-5]
        if wrong:
            label = {"no_double": f"no {dbl.lower()}", "double": dbl.lower()}
            text = ", ".join(f"{label.get(k, k)} -{v:.4f}" for k, v in wrong)
            lines.append(f"Errors of the {who}: {text}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """The ``cube`` command: print the decision; bad input raises a :class:`~bgnet.errors.BgnetError`."""
    probs = _numbers(args.probs, 5, "--probs", InvalidProbabilitiesError)
    cube, match = _state(args)
    d = cube_decision(probs, cube, match, pips=args.pips, efficiency=args.efficiency)
    if args.json:
        print(json.dumps(d.to_dict()))
    else:
        print(_text(d, match))
    return 0


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Add the ``cube`` subcommand to ``subparsers`` (its ``func`` is :func:`run`)."""
    p = subparsers.add_parser(
        "cube",
        help="the cube decision from given cubeless probabilities",
        description="The cube decision of the side on roll from its cubeless probabilities, by "
        "Janowski's formulas in money play and the Kazaross-XG2 match equity table in a match, "
        "as GNU Backgammon 1.07 makes it at 0-ply.  Equities are normalised to the cube "
        "(Double, pass = +1).",
    )
    p.add_argument(
        "--probs",
        required=True,
        metavar="W,WG,WBG,LG,LBG",
        help="win, win gammon, win backgammon, lose gammon, lose backgammon of the side on roll "
        "(fractions; gammons include backgammons)",
    )
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--money", action="store_true", help="money play (the default)")
    kind.add_argument("--length", type=int, metavar="L", help="match length in points (1-25)")
    p.add_argument("--score", metavar="A,B", help="points won so far by the side on roll and by its opponent")
    p.add_argument("--cube", type=int, default=1, metavar="V", help="cube value (default 1)")
    p.add_argument("--owner", choices=("me", "opp", "center"), help="who owns the cube (default center)")
    p.add_argument("--crawford", action="store_true", help="this is the Crawford game")
    p.add_argument("--jacoby", action="store_true", help="money play with the Jacoby rule")
    p.add_argument("--beaver", action="store_true", help="money play with beavers")
    eff = p.add_mutually_exclusive_group()
    eff.add_argument(
        "--pips", type=int, metavar="N", help="a race: the side on roll's pip count sets the cube efficiency"
    )
    eff.add_argument("--efficiency", type=float, metavar="X", help="cube efficiency in [0, 1] (default 0.68)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)
    return p
