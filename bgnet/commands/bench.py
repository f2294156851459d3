"""``bgnet bench``: matches between players, benchmark positions, labelling.

``bgnet bench play --a SPEC --b SPEC --games N --seed S [--jobs J] [--json]``
    plays N cubeless money games with duplicate dice (:mod:`bgnet.arena`)
    and reports A's points per game with its 95% CI, win, gammon and
    backgammon rates of both sides, and games per second.  Exit code 1 when
    a player returned an illegal play (reported, replaced by a legal one).
    ``--cube``: cubeful money games, A's points per game with the cube;
    ``--match L``: each game becomes an L-point match, A's match win rate
    (and points per match); ``--save FILE.mat`` writes them for gnubg
    (:func:`bgnet.arena.play_cubeful`, :meth:`bgnet.arena.CubefulResult.save`).
    ``--variant LABEL``: cubeless games of that game (``portes``, ``tavla``,
    ``plakoto``, ``fevga``, ..., with house rules ``+no-cube``,
    ``+no-forced-max``; :mod:`bgnet.variants`), draws counted; the JSON
    gains ``variant``, ``draws`` and a ``"0"`` entry in ``results``.
``bgnet bench positions FILE... [--player SPEC] [--json]``
    scores a player on ``.bm`` files or our JSON lines
    (:mod:`bgnet.benchmark_positions`): mean equity lost per move in
    thousandths, per class.
``bgnet bench label INPUT --out FILE [--ply N] [--candidates K] [--rolls R]``
    labels positions with gnubg-nn into our JSON-lines format.

SPECs: ``bgnet[:ply=N,checkpoint=PATH,device=D,lookahead=0|1]``, ``pubeval``,
``random[:seed=S]``, ``gnubg[:ply=0|1|2]``, ``greedy`` (:func:`bgnet.players.make_player`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from bgnet.errors import BgnetError, read_text

EXIT_ILLEGAL = 1

_SPEC_HELP = (
    "a player: bgnet[:ply=N,checkpoint=PATH,device=D,lookahead=0|1], pubeval, random[:seed=S], "
    "gnubg[:ply=0|1|2], greedy"
)


def register(subparsers) -> argparse.ArgumentParser:
    """Add the ``bench`` command (with ``play``, ``positions`` and ``label``) to ``subparsers``."""
    parser = subparsers.add_parser(
        "bench",
        help="strength: matches between players, benchmark positions",
        description="Measure playing strength: matches with duplicate dice between two players, "
        "and the equity a player loses on benchmark positions.",
    )
    sub = parser.add_subparsers(dest="bench_command", required=True, parser_class=type(parser))

    play = sub.add_parser(
        "play",
        help="play a match between two players",
        description="Play N cubeless money games (cubeful with --cube, N L-point matches with --match L) "
        "of A against B with duplicate dice (each dice sequence "
        "twice, seats swapped); every play is checked against the rules. Reports A's points per game "
        "with its 95% confidence interval (over the pairs), the win, gammon and backgammon rates of "
        "both sides, and games per second. Exit code 1 if a player returned an illegal play.",
    )
    play.add_argument("--a", default="bgnet", metavar="SPEC", help=f"player A (default bgnet); {_SPEC_HELP}")
    play.add_argument("--b", default="pubeval", metavar="SPEC", help="player B (default pubeval)")
    play.add_argument("--games", type=int, default=1000, metavar="N", help="games, even (default 1000)")
    play.add_argument("--seed", type=int, default=1, metavar="S", help="dice seed (default 1)")
    play.add_argument("--jobs", type=int, default=1, metavar="J", help="worker processes (default 1)")
    play.add_argument(
        "--slots", type=int, default=256, metavar="B", help="games played in lockstep (default 256)"
    )
    play.add_argument(
        "--cube",
        action="store_true",
        help="cubeful money games: each player's cube decisions (pubeval never doubles and always "
        "takes; random doubles 1 time in 4 when it may and takes half the time)",
    )
    play.add_argument(
        "--match",
        type=int,
        metavar="L",
        help="each of the N games becomes an L-point match (cube, Crawford); reports A's match win rate",
    )
    play.add_argument(
        "--save",
        metavar="FILE.mat",
        help="write the games as a .mat file gnubg imports (with --match and N > 1: FILE-0001.mat, ...)",
    )
    play.add_argument(
        "--variant",
        metavar="LABEL",
        help="play this game instead of backgammon (cubeless): portes, tavla, plakoto, fevga, long-nardy, "
        "acey-deucey, nackgammon, ..., with house rules +no-cube, +no-forced-max (acey-deucey also "
        "+enter-all, +european-1-2); players: bgnet (the game's shipped network), greedy, random, "
        "bgnet:checkpoint=PATH",
    )
    play.add_argument(
        "--luck",
        nargs="?",
        const="",
        metavar="FILE",
        help="also report A's luck-adjusted points per game (cubeless backgammon): each roll's luck is "
        "its value to the mover by this network file (default: the shipped network) less the mean over "
        "the rolls that could have come; about a 1-ply evaluation a move",
    )
    play.add_argument("--json", action="store_true", help="print one JSON object")
    play.add_argument("--no-progress", action="store_true", help="no progress bar")
    play.set_defaults(func=_cmd_play)

    pos = sub.add_parser(
        "positions",
        help="score a player on benchmark positions",
        description="Score a player's plays on benchmark positions: GNU Backgammon's .bm files (also "
        "class<TAB>line<TAB>record lines) or bgnet's JSON lines. Reports the mean equity lost per "
        "move in thousandths (gnubg's 'error rate'), per class. A play not among a record's "
        "candidates is charged the largest listed loss (gnubg's convention).",
    )
    pos.add_argument("files", nargs="+", metavar="FILE", help=".bm, .tsv or JSON-lines files")
    pos.add_argument("--player", default="bgnet", metavar="SPEC", help=f"default bgnet; {_SPEC_HELP}")
    pos.add_argument(
        "--against",
        metavar="SPEC",
        help="also score this player and report the paired difference (player minus it, per decision, "
        "with its 95%% CI)",
    )
    pos.add_argument("--json", action="store_true", help="print one JSON object")
    pos.set_defaults(func=_cmd_positions)

    lab = sub.add_parser(
        "label",
        help="label positions with gnubg-nn into bgnet's JSON-lines format",
        description="Label positions with GNU Backgammon (gnubg-nn): every legal play is evaluated at "
        "0-ply and the best K again at --ply; writes one JSON object per (position, roll). INPUT "
        "has lines 'POSITION [DICE]' (GNUBG Position ID or XGID; without dice, --rolls random "
        "rolls are drawn), or is a .bm / JSON-lines file to relabel.",
    )
    lab.add_argument("input", metavar="INPUT", help="file of positions ('-' for stdin)")
    lab.add_argument("--out", required=True, metavar="FILE", help="JSON-lines file to write ('-' for stdout)")
    lab.add_argument("--ply", type=int, default=2, choices=(0, 1, 2), help="gnubg's ply (default 2)")
    lab.add_argument(
        "--candidates", type=int, default=16, metavar="K", help="plays evaluated at --ply (default 16)"
    )
    lab.add_argument("--rolls", type=int, default=1, metavar="R", help="rolls per position without dice")
    lab.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the drawn rolls (default 1)")
    lab.add_argument("--no-progress", action="store_true", help="no progress bar")
    lab.set_defaults(func=_cmd_label)
    return parser


# --------------------------------------------------------------------------
# play
# --------------------------------------------------------------------------


def _cmd_play(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from bgnet import arena

    if args.match is not None and args.match < 1:
        raise BgnetError(f"--match needs a length of 1 or more points, got {args.match}")
    cubeful = args.cube or args.match is not None
    game = _variant_of(args, cubeful)
    if args.luck is not None and (cubeful or game is not None):
        raise BgnetError("--luck is for cubeless backgammon games (no --cube, --match or --variant)")
    if args.luck and not Path(args.luck).is_file():
        raise BgnetError(f"--luck: no network file at {args.luck}")
    if args.save and not cubeful:
        raise BgnetError("--save needs --cube or --match (the cubeless games are not recorded)")
    if cubeful and args.jobs != 1:
        raise BgnetError("--cube and --match play in one process for now: use --jobs 1")
    if args.games < 2 or args.games % 2:
        raise BgnetError(
            f"--games must be even and at least 2 (duplicate dice play each sequence twice), got {args.games}"
        )
    if args.slots < 1:
        raise BgnetError(f"--slots must be positive, got {args.slots}")
    bar = tqdm(
        total=args.games,
        unit="game",
        desc=f"{args.a} vs {args.b}",
        file=sys.stderr,
        disable=True if args.no_progress else None,
        leave=False,
    )
    result: arena.CubefulResult | arena.MatchResult
    try:
        if cubeful:
            result = arena.play_cubeful(
                args.a,
                args.b,
                args.games,
                args.seed,
                length=args.match or 0,
                slots=args.slots,
                progress=bar.update,
                interruptible=True,
            )
        else:
            result = arena.play(
                args.a,
                args.b,
                args.games,
                args.seed,
                jobs=args.jobs,
                slots=args.slots,
                progress=bar.update,
                interruptible=True,
                variant=game,
                luck=args.luck,
            )
    finally:
        bar.close()
    asked = args.games
    got = result.count if isinstance(result, arena.CubefulResult) else result.games
    if got < asked:
        print(f"bgnet: interrupted: the result of the {got} of {asked} games finished", file=sys.stderr)
    saved: list[str] = []
    if args.save:
        assert isinstance(result, arena.CubefulResult)  # --save needs --cube or --match (checked above)
        try:
            saved = result.save(args.save)
        except OSError as e:
            raise BgnetError(f"cannot write {args.save}: {e.strerror}") from None
    if args.json:
        out = result.to_json()
        if saved:
            out["saved"] = saved
        print(json.dumps(out))
    else:
        print(result.summary())
        if saved:
            print(f"saved {len(saved)} file(s): {saved[0]}{' ...' if len(saved) > 1 else ''}")
    if result.illegal:
        who = ", ".join(sorted({x.player for x in result.illegal}))
        print(f"bgnet: {len(result.illegal)} illegal plays by {who}", file=sys.stderr)
        return EXIT_ILLEGAL
    return 0


def _variant_of(args: argparse.Namespace, cubeful: bool):
    """The variant of ``--variant`` (None without it, or for backgammon with the cube: the games of today).

    A game without the cube refuses ``--cube`` and ``--match``; the cubeful
    games are backgammon's (:class:`bgnet.game.Game`), so other games with a
    cube refuse them too.
    """
    from bgnet.variants import variant

    label = getattr(args, "variant", None)
    if label is None:
        return None
    game = variant(label)
    if not cubeful:
        return game
    option = "--cube" if args.cube else "--match"
    if not game.cube:
        raise BgnetError(f"{game.label} is played without the cube: {option} needs a game with one")
    if game.label != "backgammon":
        raise BgnetError(f"{option} plays backgammon only for now, not {game.label}")
    return None


# --------------------------------------------------------------------------
# positions
# --------------------------------------------------------------------------


def _cmd_positions(args: argparse.Namespace) -> int:
    from bgnet import benchmark_positions as bp
    from bgnet.players import make_player

    positions = []
    for f in args.files:
        positions += bp.load_positions(f)
    if not positions:
        raise BgnetError(f"no move records in {', '.join(args.files)}")
    player = make_player(args.player)
    start = time.perf_counter()
    result = bp.score(player, positions)
    seconds = time.perf_counter() - start
    paired = None
    if args.against:
        other = bp.score(make_player(args.against), positions)
        paired = bp.paired_difference(result, other)
    if args.json:
        out = result.to_json()
        out["files"] = list(args.files)
        out["seconds"] = round(seconds, 3)
        if paired is not None:
            diff, ci = paired
            out["against"] = {
                "player": args.against,
                "difference_memg": round(diff, 3),
                "ci95_memg": round(ci, 3),
            }
        print(json.dumps(out))
    else:
        print(result.summary())
        print(f"({len(positions)} positions from {len(args.files)} file(s) in {seconds:.1f} s)")
        if paired is not None:
            print(
                f"minus {args.against}: {paired[0]:+.2f} +- {paired[1]:.2f} mEMG a decision (paired, 95% CI)"
            )
    return 0


# --------------------------------------------------------------------------
# label
# --------------------------------------------------------------------------


def _read_inputs(path: str, rolls: int, seed: int) -> list[tuple[np.ndarray, tuple[int, int], str]]:
    """(board, dice, source) per roll to label, from 'POSITION [DICE]' lines or a benchmark file."""
    from bgnet import benchmark_positions as bp
    from bgnet.dice import Dice
    from bgnet.formats import parse_position

    lines = read_text(path).splitlines()
    name = "<stdin>" if path == "-" else path
    first = next((ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")), "")
    if first.startswith("{"):
        return [(p.board, p.dice, p.source) for p in bp.read_jsonl(lines, name)]
    if first.startswith("m ") or "\tm " in first:
        return [(p.board, p.dice, p.source) for p in bp.read_bm(lines, name)]
    if rolls < 1:
        raise BgnetError(f"--rolls must be positive, got {rolls}")
    rng = np.random.default_rng(seed)
    out = []
    for n, line in enumerate(lines, 1):
        parts = line.split()
        if not parts or parts[0].startswith("#"):
            continue
        source = f"{name}:{n}"
        try:
            board = parse_position(parts[0])[0].board
            if len(parts) >= 2:
                d = Dice.parse(parts[1])
                out.append((board, (d.high, d.low), source))
                continue
        except BgnetError as e:
            raise BgnetError(f"{source}: {e}") from None
        seen: set[tuple[int, int]] = set()
        for _ in range(rolls):
            a, b = (int(x) for x in rng.integers(1, 7, size=2))
            pair = (max(a, b), min(a, b))
            if pair not in seen:
                seen.add(pair)
                out.append((board, pair, source))
    return out


def _cmd_label(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from bgnet import benchmark_positions as bp
    from bgnet.players import import_gnubg

    import_gnubg()  # the install hint before any work
    if args.candidates < 1:
        raise BgnetError(f"--candidates must be positive, got {args.candidates}")
    items = _read_inputs(args.input, args.rolls, args.seed)
    if args.out == "-":
        out = sys.stdout
    else:
        try:
            out = open(args.out, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as e:
            raise BgnetError(f"cannot write {args.out}: {e.strerror}") from None
    start = time.perf_counter()
    written = skipped = 0
    try:
        for board, dice, source in tqdm(
            items, unit="pos", file=sys.stderr, disable=True if args.no_progress else None, leave=False
        ):
            rec = bp.label(board, dice, ply=args.ply, candidates=args.candidates, source=source)
            if rec is None:
                skipped += 1
                continue
            out.write(json.dumps(bp.to_json(rec)) + "\n")
            written += 1
    finally:
        if out is not sys.stdout:
            out.close()
    print(
        f"labelled {written} (position, roll) pairs with gnubg-nn {args.ply}-ply in "
        f"{time.perf_counter() - start:.1f} s; skipped {skipped} with fewer than two legal plays",
        file=sys.stderr,
    )
    return 0
