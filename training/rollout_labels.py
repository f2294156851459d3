"""Rollout labels: positions of bgnet's own self-play, valued by playing each out many times with its networks

    .venv/bin/python -m bgnet_training.rollout_labels bgnet/networks/bgnet-default.pt \\
        checkpoints/crashed-rollouts.npz --starts checkpoints/crashed-starts.npz --kind crashed \\
        --positions 20000 --trials 144 --jobs 2

plays ``--games`` self-play games with the networks of a checkpoint (0-ply,
greedy; from the positions of a starts file, ``training/races.py``, or the
opening), keeps every distinct position of ``--kind`` the games reach
(crashed: :func:`bgnet.pubeval.is_crashed`; race: outside the bearoff
database; contact: neither, the main network's positions), shuffles them
and rolls out the first ``--positions`` of them, ``--trials`` games each,
with the same networks (:mod:`bgnet.rollout`: cubeless, 0-ply plays, the
first two rolls stratified, each game played to its end or into the bearoff
database; ``--luck`` adjusts each game for the
luck of its rolls, about 17x the time a game for 30-60x less variance in
contact, each mean then clipped to [0, 1]: a probability's luck-adjusted
mean can stray just outside it).  The labels are
the rollouts' means of the 5 probabilities, for the side on roll, with their
standard errors: unbiased values of the positions under the networks' own
play, where a 1-ply label inherits the network's errors one roll later (on
crashed positions, docs/strength.md measures how far each is from gnubg-nn's
2-ply values).  Self-taught: bgnet's positions, bgnet's play.

With ``--plays K`` it labels decisions instead: for each position a roll
(drawn with ``--seed``) and its K best plays by the networks at 0-ply (at
least 2, then those within 0.16 of the best), each labelled by rolling out the
position after it (the opponent on roll).  A decision's plays are rolled out
on the same dice, so the gaps between them, which are what a choice needs,
are far more precise than each value (with ``--luck``, 9 mEq rms at 144
trials on crashed decisions: docs/strength.md).  ``--positions`` then counts
the positions drawn, ``--chunk`` decisions; ``group`` in the file numbers
each board's decision, and ``fit_labels --gap`` fits the gaps.
``--search N`` labels by the networks' own N-ply values instead (1 or 2:
deterministic, far cheaper, and they inherit the network's errors N rolls
later), to set beside the rollouts of the same decisions (the same
settings draw the same decisions); ``--screen`` picks the replies at the
search's last ply in bfloat16, as training's 1-ply labels do.  On 368
crashed decisions bgnet's own 2-ply gaps were as close to gnubg-nn's 2-ply
ones as 72 luck-adjusted rollouts' (8.4 against 9.8 mEq rms, 1-ply 13.1,
0-ply 19.7: docs/strength.md) at a 35th of the time, so 2-ply is the label
to scale.

``--device cuda`` runs the labelling search (or the rollouts) on a GPU,
where 2-ply labels are worth making in bulk (on a CPU core they come at
about 7 plays a second); the games that pick the positions stay on the CPU.

The labelling takes hours, so it is written in chunks of ``--chunk``
positions and resumes: run the same command again and it goes on from the
last chunk written (the file records its settings and the networks file's
SHA-256; other settings or another networks file are refused).  Each
chunk's games share their dice streams (common random numbers across the
chunk's positions, a seed of their own per chunk).  The
file is a compressed ``.npz``, written atomically: ``boards`` ``(N, 26)``
int8, ``probs`` and ``se`` ``(N, 5)`` (NaN where not labelled yet), ``done``
(how many are labelled, in order), ``settings`` (JSON), ``group`` ``(N,)``
(each board's decision; files without it: each board its own).
``python -m bgnet_training.fit_labels`` fits a network to them.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import sys
import time
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from bgnet import checkpoint
from bgnet.atomic import write_atomic
from bgnet.errors import BgnetError, DeviceError
from bgnet.network import pick_device
from bgnet.position import STARTING, Position

from . import races
from .races import KINDS, harvest, writing_command

FORMAT = "bgnet rollout labels 1"


class LabelsError(BgnetError):
    """A rollout labels file that cannot be read or continued."""


class Labels(NamedTuple):
    """A labels file's contents (:func:`load`): ``group[i]`` is the decision of board ``i`` (with
    ``--plays``: its candidate plays share one; otherwise each board is its own)."""

    boards: np.ndarray
    probs: np.ndarray
    se: np.ndarray
    done: int
    settings: dict[str, Any]
    group: np.ndarray


def positions(
    checkpoint: str, kind: str, games: int, count: int, seed: int, starts: str | None
) -> np.ndarray:
    """The first ``count`` of the distinct ``kind`` positions of ``games`` self-play games of ``checkpoint``'s
    networks (from ``starts``' positions, or the opening), in a shuffled order drawn with ``seed``."""
    from bgnet.evaluator import NetEvaluator

    from .train import SelfPlayChooser

    evaluator = NetEvaluator.from_checkpoint(checkpoint, bearoff=True)
    rng = np.random.default_rng(seed)
    start: Position | Any = STARTING if starts is None else races.starts(starts)
    boards = harvest(
        SelfPlayChooser(evaluator, 0.0, rng), games, rng, every=True, where=KINDS[kind][0], start=start
    )
    boards = np.unique(boards, axis=0)  # (crashed positions are never in the bearoff database: not races)
    rng.shuffle(boards)
    return boards[:count]


def decisions(checkpoint: str, roots: np.ndarray, plays: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``(boards, group)``: for each of ``roots`` (seen by the side on roll) one roll drawn with ``seed``
    and its ``plays`` best plays by ``checkpoint``'s networks at 0-ply (at least 2, those within 0.16
    of the best: gnubg's move filter), as the boards after them (seen by the opponent, on roll); ``group``
    numbers the decisions.  A roll with fewer than two plays, or with a play that ends the game or
    reaches the bearoff database (values that are exact, nothing to learn), is no decision: skipped."""
    from bgnet.evaluator import MoveFilter, NetEvaluator
    from bgnet.movegen import generate
    from bgnet.rollout import candidate_rows

    from .train import training_phases

    evaluator = NetEvaluator.from_checkpoint(checkpoint, bearoff=True)
    rng = np.random.default_rng([seed, 2])
    dice = np.sort(rng.integers(1, 7, size=(len(roots), 2)), axis=1)[:, ::-1]
    batch = generate(roots, dice)
    probs = evaluator.rank(batch, 0)
    after = batch.positions
    exact = training_phases(evaluator, after) < 0  # game over or in the bearoff database
    chosen: list[np.ndarray] = []
    for lo, hi in zip(batch.offsets[:-1], batch.offsets[1:], strict=True):
        if hi - lo < 2 or exact[lo:hi].any():
            continue
        rows = lo + candidate_rows(probs[lo:hi], MoveFilter(keep=plays, window=0.16, accept=2))
        chosen.append(rows)
    if not chosen:
        return np.zeros((0, after.shape[1]), dtype=np.int8), np.zeros(0, dtype=np.int64)
    group = np.repeat(np.arange(len(chosen)), [len(r) for r in chosen])
    return np.ascontiguousarray(after[np.concatenate(chosen)], dtype=np.int8), group


def save(
    path: Path,
    boards: np.ndarray,
    probs: np.ndarray,
    se: np.ndarray,
    done: int,
    settings: dict,
    group: np.ndarray | None = None,
) -> None:
    group = np.arange(len(boards)) if group is None else group
    write_atomic(
        path,
        lambda f: np.savez_compressed(
            f,
            format=np.array(FORMAT),
            boards=boards,
            probs=probs,
            se=se,
            done=np.array(done),
            settings=np.array(json.dumps(settings, sort_keys=True)),
            group=np.asarray(group, dtype=np.int64),
        ),
    )


def load(path: str | Path) -> Labels:
    """The :class:`Labels` of a file, or :class:`LabelsError` naming what is wrong."""
    p = Path(path)
    try:
        with np.load(p, allow_pickle=False) as f:
            if "format" not in f.files or str(f["format"]) != FORMAT:
                raise LabelsError(f"{p} is not a rollout labels file ({FORMAT!r} expected)")
            boards, probs, se, done = f["boards"], f["probs"], f["se"], f["done"]
            text = str(f["settings"])
            # files made before --plays have no groups: each board its own decision
            group = f["group"] if "group" in f.files else np.arange(len(boards))
    except FileNotFoundError:
        raise LabelsError(f"rollout labels file {p} not found") from None
    except KeyError as e:
        raise LabelsError(f"{p} lacks {e} (not a complete rollout labels file)") from None
    except (ValueError, zipfile.BadZipFile, EOFError):
        raise LabelsError(f"{p} is not a rollout labels file (not a numpy .npz archive)") from None
    except OSError as e:
        raise LabelsError(f"cannot read rollout labels file {p}: {e.strerror or e}") from None
    try:
        settings = json.loads(text)
    except ValueError:
        settings = None
    if not isinstance(settings, dict) or settings.get("kind") not in KINDS:
        raise LabelsError(f"{p}: its settings are not a JSON object naming a kind of position")
    n = len(boards)
    if done.shape != () or not np.issubdtype(done.dtype, np.integer) or not 0 <= int(done) <= n:
        raise LabelsError(f"{p}: its count of labelled positions is not a number from 0 to {n}")
    done = int(done)
    if probs.shape != (n, 5) or se.shape != (n, 5):
        raise LabelsError(f"{p}: its arrays do not agree (boards {boards.shape}, probs {probs.shape})")
    labelled = np.concatenate([probs[:done], se[:done]])
    if not (np.isfinite(labelled).all() and (labelled >= -1e-9).all() and (labelled <= 1 + 1e-9).all()):
        raise LabelsError(f"{p}: a label of its first {done} positions is not a probability")
    steps = np.diff(group) if group.ndim == 1 and len(group) == n else None
    if (
        steps is None
        or not np.issubdtype(group.dtype, np.integer)
        or (n and group[0] != 0)
        or not np.isin(steps, (0, 1)).all()
        or (0 < done < n and group[done] == group[done - 1])
    ):
        raise LabelsError(f"{p}: its decision numbers are not 0, 1, 2 ... in order, one a board")
    try:
        # the boards after a decision's plays are of no kind in particular
        kind = None if settings.get("plays") else settings["kind"]
        boards = races.check_boards(boards, str(p), kind)
    except races.StartsError as e:
        raise LabelsError(str(e)) from None
    return Labels(boards, probs, se, done, settings, np.asarray(group, dtype=np.int64))


def file_digest(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (the networks a labels file was made with: resuming checks it)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def label(args: argparse.Namespace) -> int:
    from bgnet.evaluator import NetEvaluator
    from bgnet.rollout import RolloutSettings, rollout_boards

    out = Path(args.out)
    checkpoint.read(args.checkpoint)  # a bad networks file is one line before anything is written
    settings = {
        # the file's name, not its directory: a path is the machine's, and it travels into
        # the networks fitted to these labels (NET_source); the contents are known by the digest
        "checkpoint": Path(args.checkpoint).name,
        "checkpoint_sha256": file_digest(args.checkpoint),
        "kind": args.kind,
        "starts": args.starts,
        "games": args.games,
        "positions": args.positions,
        "trials": args.trials,
        "seed": args.seed,
        "chunk": args.chunk,
        "luck": args.luck,
        "plays": args.plays,
        "search": args.search,
        "screen": args.screen,
    }
    if out.exists():
        boards, probs, se, done, saved, group = load(out)
        saved.setdefault("luck", False)  # files made before --luck were made without it
        saved.setdefault("plays", 0)  # and before --plays, of positions
        saved.setdefault("search", 0)  # and before --search, by rollouts
        saved.setdefault("screen", False)  # and before --screen, in float32
        # the networks are known by their contents: a copy of the same file elsewhere goes on
        diff = [
            "the networks file's contents (SHA-256)"
            if k == "checkpoint_sha256"
            else f"{k}: {saved.get(k)!r} != {v!r}"
            for k, v in settings.items()
            if saved.get(k) != v and k != "checkpoint"
        ]
        if diff:
            raise LabelsError(
                f"{out} was made with other settings ({'; '.join(diff)}): use them or another file"
            )
        settings["checkpoint"] = saved["checkpoint"]  # the file records the name its networks first had
        print(f"resuming {out}: {done} of {len(boards)} positions labelled", flush=True)
    else:
        boards = positions(args.checkpoint, args.kind, args.games, args.positions, args.seed, args.starts)
        if len(boards) == 0:
            raise LabelsError(f"no {args.kind} position in {args.games} game(s): nothing written")
        made = f"{len(boards)} {args.kind} positions of {args.games} games"
        group = np.arange(len(boards))
        if args.plays:
            roots = len(boards)
            boards, group = decisions(args.checkpoint, boards, args.plays, args.seed)
            if len(boards) == 0:
                raise LabelsError(f"no decision among {roots} {args.kind} positions: nothing written")
            made = f"{made}: {int(group[-1]) + 1} decisions, {len(boards)} plays"
        probs = np.full((len(boards), 5), np.nan)
        se = np.full((len(boards), 5), np.nan)
        done = 0
        save(out, boards, probs, se, done, settings, group)
        print(f"{made} -> {out}", flush=True)
    # each chunk ends where a decision does: a decision's plays are rolled out on the same dice
    ends = np.flatnonzero(np.diff(group, append=group[-1] + 1)) + 1
    make = functools.partial(NetEvaluator.from_checkpoint, args.checkpoint, bearoff=True, device=args.device)
    evaluator = make() if args.jobs == 1 or args.search else None
    screen = None
    if args.screen and evaluator is not None:
        from .train import low_precision, policy_dtype

        screen = low_precision(evaluator, policy_dtype("auto", evaluator.device))
    started = time.perf_counter()
    first = done
    try:
        while done < len(boards):
            first_end = int(np.searchsorted(ends, done, side="right"))
            hi = int(ends[min(first_end + args.chunk - 1, len(ends) - 1)])
            # a seed of its own for each chunk: chunks' games do not share their dice
            rollout = RolloutSettings(games=args.trials, luck=args.luck, seed=args.seed * 1_000_003 + done)
            chunk = boards[done:hi]
            if args.search:
                assert evaluator is not None
                with evaluator.screened(screen):
                    probs[done:hi] = np.clip(evaluator.probabilities(chunk, ply=args.search), 0.0, 1.0)
                se[done:hi] = 0.0
            else:
                results = rollout_boards(
                    chunk, rollout, evaluator=evaluator, make_evaluator=make, jobs=args.jobs
                )
                probs[done:hi] = np.clip([r.probabilities for r in results], 0.0, 1.0)
                se[done:hi] = [r.probabilities_se for r in results]
            save(out, boards, probs, se, hi, settings, group)
            done = hi
            rate = (done - first) / (time.perf_counter() - started)
            print(f"{done} of {len(boards)} labelled ({rate:.2f} positions/s)", flush=True)
    except KeyboardInterrupt:
        print(
            f"interrupted: {done} of {len(boards)} labelled in {out}; the same command goes on",
            file=sys.stderr,
        )
        return 130
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bgnet_training.rollout_labels", description=__doc__.split("\n")[0]
    )
    ap.add_argument("checkpoint", help="the networks that play the games and the rollouts")
    ap.add_argument("out", help="the .npz file to write (or to resume)")
    ap.add_argument(
        "--kind", choices=tuple(KINDS), default="crashed", help="which positions (default crashed)"
    )
    ap.add_argument("--starts", help="a starts file the games start from (default: the opening)")
    ap.add_argument(
        "--games", type=int, default=2000, help="self-play games to take positions from (default 2000)"
    )
    ap.add_argument(
        "--positions", type=int, default=20_000, help="positions to label at most (default 20000)"
    )
    ap.add_argument("--trials", type=int, default=144, help="rollout games a position (default 144)")
    ap.add_argument(
        "--chunk",
        type=int,
        default=64,
        help="positions (decisions, with --plays) rolled out together on common dice (default 64)",
    )
    ap.add_argument(
        "--seed", type=int, default=1, help="seed of the games, the order and the dice (default 1)"
    )
    ap.add_argument("--jobs", type=int, default=1, help="processes for the rollouts (default 1)")
    ap.add_argument(
        "--luck", action="store_true", help="luck-adjust the rollouts (variance reduction; default off)"
    )
    ap.add_argument(
        "--plays",
        type=int,
        default=0,
        help="label decisions instead: a roll for each position and its best plays by 0-ply, at most "
        "this many (2 or more; default 0: the positions themselves)",
    )
    ap.add_argument(
        "--search",
        type=int,
        default=0,
        choices=(0, 1, 2),
        help="label by the networks' own 1- or 2-ply values instead of rollouts (one process, standard "
        "errors 0; default 0: rollouts)",
    )
    ap.add_argument(
        "--screen",
        action="store_true",
        help="with --search: each roll's reply at the search's last ply picked by a bfloat16 copy of the "
        "main network where the CPU computes in bfloat16 (the replies picked valued in float32; about 1.7x "
        "faster at 2-ply, 0.02 mEq rms from the float32 labels)",
    )
    ap.add_argument(
        "--device",
        default="cpu",
        help="where the labelling search and rollouts run: auto, cpu, cuda or cuda:N (default cpu; the games "
        "that pick the positions run on the CPU; labels do not depend on it beyond rounding)",
    )
    args = ap.parse_args(argv)
    try:
        args.device = str(pick_device(args.device, "--device"))
    except DeviceError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.device != "cpu" and args.jobs > 1:
        print(f"error: --device {args.device} labels in one process: leave --jobs at 1", file=sys.stderr)
        return 2
    if args.plays == 1 or args.plays < 0:
        print("error: --plays must be 0 or >= 2", file=sys.stderr)
        return 2
    for name in ("games", "positions", "chunk", "jobs"):
        if getattr(args, name) < 1:
            print(f"error: --{name} must be >= 1", file=sys.stderr)
            return 2
    if args.trials < 2:
        print("error: --trials must be >= 2", file=sys.stderr)
        return 2
    if args.screen and not args.search:
        print("error: --screen needs --search (rollouts choose their plays at 0-ply)", file=sys.stderr)
        return 2
    if args.seed < 0:
        print("error: --seed must be >= 0", file=sys.stderr)
        return 2
    return writing_command(Path(args.out), lambda: label(args))


if __name__ == "__main__":
    sys.exit(main())
