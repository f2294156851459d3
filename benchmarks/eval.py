"""Lookahead speed: bgnet's 1-ply (and 2-ply) move decisions against gnubg-nn's ``best_move(..., n=1)``.

Both decide the same (position, roll) pairs: positions of seeded games of
gnubg 0-ply against itself (``strong`` lines of tests/data/movegen_positions.txt),
each with its roll.  A decision is the whole job: generate the legal plays,
evaluate them at 0-ply, keep the best few (the move filter), evaluate those at
1-ply (all 21 replies of each, the reply picked at 0-ply) and return the best.

* gnubg-nn's ``findBestMove`` at ``n=1`` keeps the **8 best plays at 0-ply**
  (no equity window) for 1-ply; bgnet uses the same filter here,
  ``MoveFilter(keep=8, accept=8)``.  bgnet's default filter (gnubg's "normal":
  up to 8 within 0.16) is timed too.
* bgnet decides many pairs per call (how the arena and analysis use it); the
  one-decision-per-call rate is printed too.  gnubg-nn is one call per pair.
* Both run on one thread (``--threads``), alternately, ``--rounds`` times in one
  process; the median round counts.  The machine is noisy: read the ratio.
* 2-ply: seconds per decision for bgnet (default filter: up to 8 plays within
  0.16 at 0-ply go to 2-ply) and gnubg-nn ``n=2`` (its filter: the 2 best plus
  up to 3 more within 0.1), on the first ``--pairs2`` pairs.
* ``agreement``: how often bgnet's 1-ply play is gnubg's (a strength hint only).
* bgnet runs the file's main network alone (``load_network``: no race or crashed
  network, no bearoff database, no race search), so the ratio is of the
  searches over one network; ``bgnet`` players load the whole file
  (``NetEvaluator.from_checkpoint``), so their times differ in races and
  crashed positions.

    make bench-eval     # or: .venv/bin/python benchmarks/eval.py [--checkpoint P] [--pairs N] [--rounds R]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import gnubg_nn
import numpy as np
import torch

from bgnet.checkpoint import DEFAULT, load_network
from bgnet.evaluator import MoveFilter, NetEvaluator
from bgnet.formats import board_from_position_id, board_to_gnubg
from bgnet.movegen import generate
from bgnet.position import flip

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "movegen_positions.txt"
GNUBG_1PLY = (MoveFilter(keep=8, window=0.0, accept=8),)
"""gnubg-nn's 1-ply filter (``bm.cc``: ``plySearch p[1] = {8, 0, 0.0}``): the 8 best at 0-ply."""


def load(n: int) -> tuple[np.ndarray, np.ndarray]:
    boards, dice = [], []
    for line in DATA.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        pid, roll, kind = line.split()
        if kind == "strong":
            boards.append(board_from_position_id(pid))
            dice.append((int(roll[0]), int(roll[1])))
            if len(boards) == n:
                break
    return np.array(boards, dtype=np.int8), np.array(dice, dtype=np.int64)


def bgnet_batched(ev: NetEvaluator, boards, dice, ply: int, filters) -> tuple[float, np.ndarray]:
    t = time.perf_counter()
    batch = generate(boards, dice)
    rows = ev.choose(batch, None, ply, filters)
    el = time.perf_counter() - t
    chosen = np.where((rows >= 0)[:, None], batch.positions[np.maximum(rows, 0)], flip(boards))
    return el, chosen


def bgnet_single(ev: NetEvaluator, boards, dice, ply: int, filters) -> float:
    t = time.perf_counter()
    for i in range(len(boards)):
        ev.choose(generate(boards[i : i + 1], dice[i : i + 1]), None, ply, filters)
    return time.perf_counter() - t


def gnubg_decide(gboards, dice, n: int) -> tuple[float, list]:
    best = gnubg_nn.best_move
    t = time.perf_counter()
    plays = [best(b, int(d1), int(d2), n=n) for b, (d1, d2) in zip(gboards, dice, strict=True)]
    return time.perf_counter() - t, plays


def apply(board: np.ndarray, steps) -> np.ndarray:
    """The result of gnubg's steps ((from, to) in our numbering: 25 bar, 0 off), seen by the opponent."""
    b = board.astype(np.int64).copy()
    for f, t in steps:
        b[f] -= 1
        if t > 0:
            if b[t] == -1:
                b[t] = 1
                b[0] -= 1
            else:
                b[t] += 1
    return flip(b).astype(np.int8)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--checkpoint", default=str(DEFAULT))
    ap.add_argument("--pairs", type=int, default=600, help="(position, roll) pairs for 1-ply")
    ap.add_argument("--pairs2", type=int, default=40, help="pairs for 2-ply")
    ap.add_argument("--single", type=int, default=200, help="pairs for the one-at-a-time rate")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1, help="torch threads (gnubg-nn uses one)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    model, encoder, state = load_network(args.checkpoint)
    ev = NetEvaluator(model, encoder)
    boards, dice = load(args.pairs)
    gboards = [board_to_gnubg(b) for b in boards]
    n = len(boards)

    bgnet_batched(ev, boards[:50], dice[:50], 2, None)  # compile (or load the Numba caches)
    ours, default, theirs = [], [], []
    for _ in range(args.rounds):
        el, chosen = bgnet_batched(ev, boards, dice, 1, GNUBG_1PLY)
        ours.append(el)
        default.append(bgnet_batched(ev, boards, dice, 1, None)[0])
        el, plays = gnubg_decide(gboards, dice, 1)
        theirs.append(el)
    t_ours, t_default, t_theirs = (statistics.median(x) for x in (ours, default, theirs))
    k = min(args.single, n)
    t_single = bgnet_single(ev, boards[:k], dice[:k], 1, GNUBG_1PLY)
    same = sum(
        np.array_equal(chosen[i], apply(boards[i], plays[i])) for i in range(n)
    )  # a pass is () for gnubg and flip(board) for both

    k2 = min(args.pairs2, n)
    t2_batched, _ = bgnet_batched(ev, boards[:k2], dice[:k2], 2, None)
    t2_single = bgnet_single(ev, boards[:k2], dice[:k2], 2, None)
    t2_gnubg, _ = gnubg_decide(gboards[:k2], dice[:k2], 2)

    games = state.get("counters", {}).get("games", "?")
    print(f"checkpoint: {args.checkpoint} ({games} training games, {encoder.name})")
    print(f"torch threads: {args.threads}")
    print(f"pairs: {n} (position, roll) from gnubg self-play games, {args.rounds} rounds, median")
    print("1-ply decisions per second:")
    print(f"  bgnet, batched, gnubg-nn's filter (8 best):   {n / t_ours:8.1f}")
    print(f"  bgnet, batched, default filter (8 in 0.16):    {n / t_default:8.1f}")
    print(f"  bgnet, one decision per call (8 best):         {k / t_single:8.1f}")
    print(f"  gnubg-nn best_move(n=1):                       {n / t_theirs:8.1f}")
    print(f"  agreement with gnubg-nn's 1-ply play:          {same / n:8.1%}")
    print(f"2-ply seconds per decision ({k2} pairs):")
    print(f"  bgnet, batched, default filter:                {t2_batched / k2:8.3f}")
    print(f"  bgnet, one decision per call:                  {t2_single / k2:8.3f}")
    print(f"  gnubg-nn best_move(n=2):                       {t2_gnubg / k2:8.3f}")
    print(f"ratio vs gnubg: {t_theirs / t_ours:.2f}")


if __name__ == "__main__":
    main()
