"""The ``bgnet`` command line.

Bad input (a malformed position, impossible dice, an unreadable file) prints
one line that names the problem on stderr and exits with code 2; never a
traceback.

Start-up: the commands that need no network (``moves`` without ``--rank``,
``cube``, ``bearoff show``, ``--help``, ``--version``) must not import torch,
which takes seconds.  The modules that load the network (``bgnet.checkpoint``,
``bgnet.evaluator``, ``bgnet.players``' network player) are therefore imported
inside the functions that need them, never at the top of a command module;
``tests/test_startup.py`` checks it.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from typing import NoReturn

import numpy as np

import bgnet
from bgnet.commands import analyze, analyze_match, bearoff, bench, cube, play, rollout, serve, web
from bgnet.commands.common import dice_of, read_lines
from bgnet.dice import Dice
from bgnet.errors import BgnetError, Terminated, signals_stop_cleanly
from bgnet.formats import parse_position, position_id, position_ids
from bgnet.lockstep import Lockstep, duel
from bgnet.movegen import MoveBatch, generate
from bgnet.notation import format_play
from bgnet.position import Position, check_in_play
from bgnet.probabilities import equity
from bgnet.pubeval import pubeval_best
from bgnet.variant_format import (
    VariantPlay,
    canonical_variant,
    check_variant_in_play,
    format_variant_position,
    is_variant_text,
    legal_variant_plays,
    read_variant_position,
    waits,
)
from bgnet.variants import Variant, variant

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse prints usage too)
        self.exit(EXIT_BAD_INPUT, f"bgnet: error: {message}\n")


def _plays_json(
    position: Position, dice: Dice, batch: MoveBatch, ids: list[str], i: int, probs: np.ndarray | None
) -> dict:
    """The JSON object of roll ``i``; with ``probs`` (the mover's, per result row) ranked best first.

    ``ids`` are the Position IDs of all the batch's results (computed at once).
    """
    rows = list(range(batch.offsets[i], batch.offsets[i + 1]))
    if probs is not None:
        eq = equity(probs)
        rows.sort(key=lambda r: -eq[r])
    plays = []
    for r in rows:
        steps = [(int(f), int(t)) for f, t in batch.steps[r] if f >= 0]
        play: dict[str, object] = {"play": format_play(position.board, steps), "position": ids[r]}
        if probs is not None:
            play["equity"] = round(float(eq[r]), 6)
            play["probabilities"] = [round(float(x), 6) for x in probs[r]]
        plays.append(play)
    return {"position": position_id(position.board), "dice": [dice.high, dice.low], "plays": plays}


def _mover_probs(args: argparse.Namespace, batch: MoveBatch) -> np.ndarray | None:
    """With ``--rank``: the mover's 5 probabilities of every result, by the network at ``--ply``."""
    if not args.rank:
        if args.ply:
            raise BgnetError("--ply ranks the plays: give --rank too")
        return None
    from bgnet.evaluator import NetEvaluator  # here for start-up time (it loads torch)

    return NetEvaluator.from_checkpoint(args.checkpoint).rank(batch, args.ply)


def _dice_of(text: str | None, info: object) -> Dice:
    """The dice typed, or those of the XGID or Match ID; an error when there are none."""
    dice = dice_of(text, info)
    if dice is None:
        raise BgnetError("give the dice after the position, like 31 or 3-1")
    return dice


def _playable(text: str) -> tuple[Position, object]:
    """The position of ``text`` and its XGID or Match ID; a finished game is a BgnetError."""
    position, info = parse_position(text)
    check_in_play(position.board)
    return position, info


def _print_plays(result: dict, as_json: bool) -> None:
    """One roll's plays: the JSON object, or a line per play (notation, equity if ranked, result)."""
    if as_json:
        print(json.dumps(result))
    elif not result["plays"]:
        print("no legal play", file=sys.stderr)
    else:
        width = max(len(p["play"]) for p in result["plays"])
        for p in result["plays"]:
            eq = f"  {p['equity']:+.3f}" if "equity" in p else ""
            print(f"{p['play']:<{width}}{eq}  {p['position']}")


def _moves_one(args: argparse.Namespace) -> int:
    position, info = _playable(args.position)
    dice = _dice_of(args.dice, info)
    batch = generate(position.board[None, :], np.array([[dice.high, dice.low]]))
    result = _plays_json(position, dice, batch, position_ids(batch.positions), 0, _mover_probs(args, batch))
    _print_plays(result, args.json)
    return 0


def _batch_lines(path: str) -> Iterator[tuple[int, list[str]]]:
    """The requests of a ``--batch`` file: (line number, its fields); blank and ``#`` lines skipped."""
    for n, line in enumerate(read_lines(path), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            yield n, line.split()


def _request(parts: list[str]) -> tuple[str, str | None]:
    """A batch line's position and dice (None: those of an XGID or Match ID)."""
    if len(parts) > 2:
        raise BgnetError(f"expected 'POSITION DICE', got {len(parts)} fields")
    return parts[0], parts[1] if len(parts) == 2 else None


def _moves_batch(args: argparse.Namespace) -> int:
    """Lines ``POSITION DICE``; one JSON object per line, in order; errors as ``{"error": ...}``."""
    parsed: list[tuple[Position, Dice] | str] = []
    for n, parts in _batch_lines(args.batch):
        try:
            text, dice = _request(parts)
            position, info = _playable(text)
            parsed.append((position, _dice_of(dice, info)))
        except BgnetError as e:
            parsed.append(f"line {n}: {e}")
    good = [p for p in parsed if not isinstance(p, str)]
    batch = generate(
        np.array([p.board for p, _ in good], dtype=np.int8).reshape(-1, 26),
        np.array([[d.high, d.low] for _, d in good], dtype=np.int64).reshape(-1, 2),
    )
    probs = _mover_probs(args, batch)
    ids = position_ids(batch.positions)
    errors = 0
    i = 0
    out = sys.stdout
    for item in parsed:
        if isinstance(item, str):
            errors += 1
            print(f"bgnet: error: {item}", file=sys.stderr)
            out.write(json.dumps({"error": item}) + "\n")
        else:
            out.write(json.dumps(_plays_json(item[0], item[1], batch, ids, i, probs)) + "\n")
            i += 1
    return EXIT_BAD_INPUT if errors else 0


def _variant_play_json(v: Variant, p: VariantPlay) -> dict:
    """One play (a whole turn) as JSON; in acey-deucey also its chosen double, re-roll and parts."""
    out: dict[str, object] = {
        "play": p.notation,
        "steps": [list(s) for s in p.steps],
        "position": format_variant_position(p.position, v),
    }
    if waits(v):
        out["double"] = p.double
        out["again"] = p.again
        if len(p.parts) > 1:
            out["parts"] = [
                {"dice": list(part.dice), "play": part.notation, "steps": [list(s) for s in part.steps]}
                for part in p.parts
            ]
    return out


def _variant_plays_json(v: Variant, board: np.ndarray, dice: Dice) -> dict:
    """One roll in a variant as JSON: each play's notation, steps and result.

    The result is seen by the side on roll next: the opponent, or the mover
    itself after a 1-2 turn that rolls again (``"again": true``).
    """
    plays = [_variant_play_json(v, p) for p in legal_variant_plays(v, board, dice)]
    return {
        "variant": v.label,
        "position": format_variant_position(board, v),
        "dice": [dice.high, dice.low],
        "plays": plays,
    }


def _variant_playable(text: str, v: Variant | None) -> tuple[Variant, np.ndarray, object]:
    """The variant, board and XGID/Match ID of ``text``; a finished game is a BgnetError."""
    found, board, info = read_variant_position(text, v)
    check_variant_in_play(board, found)
    return found, board, info


def _moves_variant(args: argparse.Namespace, v: Variant | None) -> int:
    """``moves`` in a variant: the plays in notation with the results in the variant position format."""
    if args.rank or args.ply:
        raise BgnetError("--rank is not available for variant games yet; list the plays without it")
    if args.batch is not None:
        out = sys.stdout
        errors = 0
        for n, parts in _batch_lines(args.batch):
            try:
                text, typed = _request(parts)
                found, board, info = _variant_playable(text, v)
                dice = _dice_of(typed, info)
                out.write(json.dumps(_variant_plays_json(found, board, dice)) + "\n")
            except BgnetError as e:
                errors += 1
                print(f"bgnet: error: line {n}: {e}", file=sys.stderr)
                out.write(json.dumps({"error": f"line {n}: {e}"}) + "\n")
        return EXIT_BAD_INPUT if errors else 0
    found, board, info = _variant_playable(args.position, v)
    _print_plays(_variant_plays_json(found, board, _dice_of(args.dice, info)), args.json)
    return 0


def _cmd_moves(args: argparse.Namespace) -> int:
    if args.batch is not None:
        if args.position is not None:
            raise BgnetError("give either --batch FILE or POSITION DICE, not both")
    elif args.position is None:
        raise BgnetError("give POSITION DICE (or --batch FILE)")
    # Backgammon from a GNUBG ID or XGID keeps the backgammon command (IDs out, --rank);
    # other games, and positions written in the variant format, list the variant's plays.
    v = canonical_variant(variant(args.variant)) if args.variant is not None else None
    if v is not None and v.label != "backgammon":
        return _moves_variant(args, v)
    if args.position is not None and is_variant_text(args.position):
        return _moves_variant(args, v)
    if args.batch is not None:
        return _moves_batch(args)
    return _moves_one(args)


def _cmd_watch(args: argparse.Namespace) -> int:
    """Watch the network (X) play a game against pubeval or itself (O), move by move."""
    if args.delay < 0:
        raise BgnetError(f"--delay must be 0 or more, got {args.delay}")
    if args.opponent is None:
        args.opponent = "greedy" if args.variant else "pubeval"
    if args.variant or args.opponent in ("greedy", "random"):
        from bgnet.commands.variant_play import default_bot_spec, watch_variant

        bot = "bgnet" + (f":checkpoint={args.checkpoint}" if args.checkpoint else "")
        label = args.variant or "backgammon"
        if not args.checkpoint and args.variant and default_bot_spec(label) == "greedy":
            # No network shipped for this game yet: X is the hand-written baseline.
            print(f"(No network is shipped for {label} yet: X is greedy, a simple heuristic.)")
            bot = "greedy"
        opponent = bot if args.opponent == "self" else args.opponent
        return watch_variant(label, bot, opponent, args.seed, sys.stdout, args.delay)
    from bgnet.checkpoint import DEFAULT, read  # these two here for start-up time (they load torch)
    from bgnet.evaluator import NetEvaluator

    ev = NetEvaluator.from_checkpoint(args.checkpoint)
    state = read(args.checkpoint or DEFAULT)
    names = ("bgnet", "pubeval" if args.opponent == "pubeval" else "bgnet")
    print(f"bgnet ({state['counters']['games']} training games) plays X; {names[1]} plays O.\n")
    engine = Lockstep(1, 1, np.random.default_rng(args.seed))
    other = (lambda b, _p: pubeval_best(b)) if args.opponent == "pubeval" else ev.choose
    choose = duel((ev.choose, other))

    def show(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        board, dice = engine.boards[0].copy(), Dice.of(*engine.dice[0])
        rows = choose(batch, player)
        x_view = board if player[0] == 0 else board[::-1] * -1  # always draw from X's side
        print(Position(x_view, validate=False))
        who = "X" if player[0] == 0 else "O"
        if rows[0] < 0:
            print(f"{who} ({names[player[0]]}) rolls {dice}: no legal play\n")
        else:
            steps = [(int(f), int(t)) for f, t in batch.steps[rows[0]] if f >= 0]
            mover_eq = -float(equity(ev.probabilities(batch.positions[rows[0] : rows[0] + 1]))[0])
            print(
                f"{who} ({names[player[0]]}) rolls {dice} and plays {format_play(board, steps)}"
                f"   (bgnet's equity for {who}: {mover_eq:+.3f})\n"
            )
        time.sleep(args.delay)
        return rows

    finished = []
    while engine.running:
        finished += engine.step(show)
    pts = finished[0].points
    winner = "X (bgnet)" if pts > 0 else f"O ({names[1]})"
    kind = {1: "a single game", 2: "a gammon", 3: "a backgammon"}[abs(pts)]
    print(f"{winner} wins {kind}: {abs(pts)} point{'s' if abs(pts) > 1 else ''}.")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="bgnet", description="bgnet: a backgammon engine")
    parser.add_argument("--version", action="version", version=f"bgnet {bgnet.__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    moves = sub.add_parser(
        "moves",
        help="list the legal plays of a roll",
        description="List the distinct legal plays of a roll: the play in gnubg notation and the "
        "GNUBG Position ID of the result, seen by the opponent (now on roll).",
    )
    moves.add_argument(
        "position",
        nargs="?",
        help="GNUBG Position ID, positionid:matchid, XGID, or a variant position (LABEL:POINTS:...)",
    )
    moves.add_argument(
        "dice", nargs="?", help="the roll, like 31 or 3-1 (default: the XGID's or Match ID's dice)"
    )
    moves.add_argument("--json", action="store_true", help="print one JSON object")
    moves.add_argument(
        "--variant",
        metavar="LABEL",
        help="the game: backgammon (default), nackgammon, portes, tavla, plakoto, fevga, long-nardy, "
        "acey-deucey, with house rules +no-cube, +no-forced-max (acey-deucey also +enter-all, "
        "+european-1-2); results are then written as variant positions (docs/variant-positions.md)",
    )
    moves.add_argument(
        "--batch", metavar="FILE", help="read lines 'POSITION DICE' ('-' for stdin); one JSON object per line"
    )
    moves.add_argument(
        "--rank", action="store_true", help="rank the plays best first by the network at --ply, with equities"
    )
    moves.add_argument("--checkpoint", metavar="PATH", help="network for --rank (default: the shipped one)")
    moves.add_argument(
        "--ply", type=int, default=0, choices=(0, 1, 2), help="lookahead of --rank (default 0)"
    )
    moves.set_defaults(func=_cmd_moves)

    watch = sub.add_parser(
        "watch",
        help="watch the network play a game move by move",
        description="Watch the network (X) play one game against pubeval, greedy, random or itself (O), "
        "move by move, in backgammon or another game (--variant).",
    )
    watch.add_argument("--checkpoint", metavar="PATH", help="network (default: the shipped one)")
    watch.add_argument(
        "--opponent",
        choices=("pubeval", "self", "greedy", "random"),
        default=None,
        help="O's player (default pubeval in backgammon, greedy in the other games)",
    )
    watch.add_argument(
        "--variant",
        metavar="LABEL",
        help="the game: portes, tavla, plakoto, fevga, long-nardy, acey-deucey, nackgammon, ...",
    )
    watch.add_argument("--seed", type=int, default=None, help="dice seed (default: random)")
    watch.add_argument(
        "--delay", type=float, default=1.0, help="seconds to pause after each move (default 1; 0 for none)"
    )
    watch.set_defaults(func=_cmd_watch)

    analyze.register(sub)
    analyze_match.register(sub)
    bearoff.register(sub)
    bench.register(sub)
    cube.register(sub)
    play.register(sub)
    rollout.register(sub)
    serve.register(sub)
    web.register(sub)

    train = sub.add_parser(
        "train",
        help="train a network by TD(lambda) self-play",
        description="Train by TD(lambda) self-play into runs/<name>/; running it again resumes.",
    )
    try:  # the apps layer reaches into training/ only here, and only when it is installed
        from bgnet_training import cli as training_cli
    except ImportError:
        train.set_defaults(func=lambda _a: _fail("the training package is not installed"))
    else:
        training_cli.add_arguments(train)
        train.set_defaults(func=training_cli.run)
    return parser


def _fail(message: str) -> int:
    raise BgnetError(message)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        with signals_stop_cleanly():
            return args.func(args)
    except BgnetError as e:
        print(f"bgnet: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0
    except Terminated:
        print("\nbgnet: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:  # Ctrl-C: stop cleanly, no traceback (commands print what they have first)
        print("\nbgnet: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
