"""Race or crashed starts from bgnet's own self-play: the positions its games reach, to train on.

    .venv/bin/python -m bgnet_training.races bgnet/networks/bgnet-default.pt races.npz --games 20000 --seed 1
    .venv/bin/python -m bgnet_training.races NETWORKS.pt crashed.npz --kind crashed --games 20000

plays ``games`` self-play games with the networks of a checkpoint (0-ply,
greedy, from the opening) and keeps, of each game that reaches a race, its
first position without contact that the bearoff database does not cover, seen
by the side on roll.  A config's ``start = "races.npz"`` then starts every
self-play game from one of them, drawn uniformly (a random side on roll with
any roll, as ``start = "race"``): a race-only run (``train_nets = "race"``)
plays the races real games reach, not :func:`bgnet.position.random_race`'s
evenly spread ones.  With ``--kind crashed`` it keeps each game's first
crashed position instead (:func:`bgnet.pubeval.is_crashed`), for a run that
trains the crashed network (``train_nets = "crashed"``); ``--kind contact``
its first position that is neither (what the main network values).  With
``--anywhere`` one position of the kind is drawn uniformly from each game
instead of its first, and ``--epsilon E`` makes a share E of the games' plays
at random: starts off the network's own path (positions its greedy
self-play seldom reaches) for a run that explores.  The positions are
bgnet's own (self-taught).

The file is a compressed ``.npz``: ``boards`` (``(N, 26)`` int8), ``kind``
(``race``, ``crashed`` or ``contact``; a file without it holds races), and ``source`` and
``games`` (where they came from), written atomically.  Loading checks every
board is of its kind.
"""

from __future__ import annotations

import argparse
import os
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from bgnet.atomic import write_atomic
from bgnet.bearoff import OneSidedBearoff
from bgnet.errors import BgnetError, signals_stop_cleanly
from bgnet.lockstep import Chooser, Lockstep
from bgnet.position import CHECKERS, NUM_SLOTS, STARTING, Position, in_play
from bgnet.pubeval import is_crashed, is_race


class StartsError(BgnetError):
    """A starts file that is missing, unreadable or holds boards that are not of its kind."""


def races_outside_database(boards: np.ndarray) -> np.ndarray:
    """Which boards are races the bearoff database does not cover (what :func:`harvest` keeps by default)."""
    return is_race(boards) & ~OneSidedBearoff.covers(boards)


def is_contact(boards: np.ndarray) -> np.ndarray:
    """Which boards the main network values: contact left and neither side crashed."""
    race = is_race(boards)
    return ~race & ~is_crashed(boards, race)


KINDS: dict[str, tuple[Callable[[np.ndarray], np.ndarray], Callable[[np.ndarray], np.ndarray], str]] = {
    "race": (races_outside_database, is_race, "a race position (no contact, nobody on the bar)"),
    "crashed": (is_crashed, is_crashed, "a crashed position (bgnet.pubeval.is_crashed)"),
    "contact": (is_contact, is_contact, "a contact position that is not crashed (the main network's)"),
}
"""The kinds of starts: what :func:`harvest` keeps, what loading accepts, and how an error names it."""


def harvest(
    choose: Chooser,
    games: int,
    rng: np.random.Generator,
    slots: int = 256,
    every: bool = False,
    where: Callable[[np.ndarray], np.ndarray] = races_outside_database,
    start: Position | Callable[[np.random.Generator], np.ndarray] = STARTING,
    anywhere: bool = False,
) -> np.ndarray:
    """The first position ``where`` picks (default: a race outside the bearoff database) of each of
    ``games`` self-play games that reach one (``choose``: a lockstep chooser), seen by the side on roll,
    as ``(N, 26)`` int8; with ``anywhere``, one of them drawn uniformly (by ``rng``) instead of the first;
    with ``every``, all of them, in the order the games end
    (``training/onesided.py``; ``benchmarks/crashed_positions.py`` with ``bgnet.pubeval.is_crashed``).
    The games start from ``start`` (a position, or a function drawing each game's: :func:`starts`)."""
    engine = Lockstep(min(slots, games), games, rng, record=True, start=start)
    found = []
    while engine.running:
        for g in engine.step(choose):
            picked = where(g.history)
            if every:
                found.extend(g.history[picked])
            elif picked.any():
                rows = np.flatnonzero(picked)
                found.append(g.history[rng.choice(rows) if anywhere else rows[0]])
    return np.array(found, dtype=np.int8).reshape(-1, NUM_SLOTS)


def check_boards(boards: np.ndarray, source: str, kind: str | None = "race") -> np.ndarray:
    """``boards`` as ``(N, 26)`` int8 boards of ``kind`` (:data:`KINDS`; None: any board in play), or
    :class:`StartsError` naming what is wrong."""
    if boards.ndim != 2 or boards.shape[1] != NUM_SLOTS or len(boards) == 0:
        raise StartsError(f"{source}: boards must be a non-empty (N, {NUM_SLOTS}) array, got {boards.shape}")
    bad = ~in_play(boards)
    what = "a board in play"
    if kind is not None:
        _, accepts, what = KINDS[kind]
        bad |= ~accepts(np.clip(boards, -CHECKERS, CHECKERS).astype(np.int8))
    if bad.any():
        raise StartsError(
            f"{source}: board {int(np.argmax(bad))} is not {what} with 1 to {CHECKERS} checkers a side "
            "(a legal board)"
        )
    return np.ascontiguousarray(boards, dtype=np.int8)


def load(path: str | os.PathLike) -> np.ndarray:
    """The boards of a starts file (checked against its kind)."""
    p = Path(path)
    try:
        with np.load(p, allow_pickle=False) as f:
            boards = f["boards"]
            kind = str(f["kind"]) if "kind" in f.files else "race"
    except FileNotFoundError:
        raise StartsError(f"starts file {p} not found") from None
    except KeyError:
        raise StartsError(f"{p} is not a starts file (it has no boards array)") from None
    except (ValueError, zipfile.BadZipFile, EOFError):
        raise StartsError(f"{p} is not a starts file (not a numpy .npz archive)") from None
    except OSError as e:
        raise StartsError(f"cannot read starts file {p}: {e.strerror or e}") from None
    if kind not in KINDS:
        raise StartsError(f"{p}: unknown kind of starts {kind!r} (one of {', '.join(KINDS)})")
    return check_boards(boards, str(p), kind)


def starts(path: str | os.PathLike) -> Callable[[np.random.Generator], np.ndarray]:
    """A lockstep ``start`` function: a uniformly drawn board of the file for each game."""
    boards = load(path)

    def draw(rng: np.random.Generator) -> np.ndarray:
        return boards[int(rng.integers(len(boards)))]

    return draw


def save(path: str | os.PathLike, boards: np.ndarray, source: str, games: int, kind: str = "race") -> None:
    """Write a starts file of ``kind`` atomically (:func:`bgnet.atomic.write_atomic`)."""
    write_atomic(
        path,
        lambda f: np.savez_compressed(
            f, boards=boards, kind=np.array(kind), source=np.array(source), games=np.array(games)
        ),
    )


def main(argv: list[str] | None = None) -> int:
    from bgnet.evaluator import NetEvaluator

    from .train import SelfPlayChooser

    ap = argparse.ArgumentParser(prog="python -m bgnet_training.races", description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint", help="the networks that play the games (a checkpoint or shipped file)")
    ap.add_argument("out", help="the .npz file to write")
    ap.add_argument("--games", type=int, default=20_000, help="self-play games to play (default 20000)")
    ap.add_argument("--seed", type=int, default=1, help="dice seed (default 1)")
    ap.add_argument(
        "--kind",
        choices=tuple(KINDS),
        default="race",
        help="the first race, crashed or contact position of each game",
    )
    ap.add_argument(
        "--anywhere",
        action="store_true",
        help="one position of the kind drawn uniformly from each game, not its first",
    )
    ap.add_argument(
        "--epsilon",
        type=float,
        default=0.0,
        help="share of plays made at random in the games played (default 0: the network's best every time)",
    )
    args = ap.parse_args(argv)
    if args.games < 1:
        print("error: --games must be >= 1", file=sys.stderr)
        return 2
    if not 0.0 <= args.epsilon < 1.0:
        print(f"error: --epsilon must be in [0, 1), got {args.epsilon}", file=sys.stderr)
        return 2

    def body() -> int:
        evaluator = NetEvaluator.from_checkpoint(args.checkpoint, bearoff=True, race_lookahead=False)
        rng = np.random.default_rng(args.seed)
        where = KINDS[args.kind][0]
        choose = SelfPlayChooser(evaluator, args.epsilon, rng)
        boards = harvest(choose, args.games, rng, where=where, anywhere=args.anywhere)
        if len(boards) == 0:
            raise StartsError(f"no {args.kind} position in {args.games} game(s): nothing written")
        save(args.out, boards, str(args.checkpoint), args.games, args.kind)
        print(f"{len(boards)} {args.kind} starts from {args.games} games -> {args.out}")
        return 0

    return writing_command(Path(args.out), body)


def writing_command(out: Path, body: Callable[[], int]) -> int:
    """Run a training command that writes ``out``: its folder must exist; a bgnet error, an OS error,
    Ctrl-C or SIGTERM is one line on stderr and a non-zero exit (``out`` is written atomically or not at
    all)."""
    if not out.parent.is_dir():
        print(f"error: cannot write {out}: folder {out.parent} does not exist", file=sys.stderr)
        return 1
    try:
        with signals_stop_cleanly():  # SIGTERM stops as Ctrl-C does (a pool's processes with it)
            return body()
    except BgnetError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e.strerror or e}: {e.filename or out}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted: nothing written", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
