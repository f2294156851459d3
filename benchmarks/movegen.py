"""Move generation speed: bgnet's batched Numba generator against gnubg-nn's ``moves()``.

Both generate the distinct resulting positions of the same (position, roll)
pairs: the positions of seeded games of gnubg 0-ply against itself
(``strong`` lines of tests/data/movegen_positions.txt), each with a roll.
The two run alternately, several rounds, in one process; the median round
of each is reported.  The machine is noisy: read the ratio, not the rates.

It also times the variants' entry point on the same pairs:
``Variant.generate`` for backgammon (which hands backgammon to the kernels
above, so it must stay level with them: no regression from the variants),
and the general variant kernel (:func:`bgnet.variants.generate`) under
backgammon's rules, the kernel every other game runs on.

    make bench-movegen      # or: .venv/bin/python benchmarks/movegen.py [--rounds N] [--kind strong]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import gnubg_nn
import numpy as np

from bgnet.formats import board_from_position_id, board_to_gnubg
from bgnet.movegen import MoveGenerator
from bgnet.variants import VARIANTS, generate, widen

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "movegen_positions.txt"


def load(kinds: set[str]) -> tuple[np.ndarray, np.ndarray]:
    boards, dice = [], []
    for line in DATA.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        pid, roll, kind = line.split()
        if kind in kinds:
            boards.append(board_from_position_id(pid))
            dice.append((int(roll[0]), int(roll[1])))
    return np.array(boards, dtype=np.int8), np.array(dice, dtype=np.int64)


def time_bgnet(gen: MoveGenerator, boards: np.ndarray, dice: np.ndarray) -> tuple[float, int]:
    t = time.perf_counter()
    total = 0
    for _lo, _hi, _offsets, positions, _steps in gen.chunks(boards, dice):
        total += len(positions)
    return time.perf_counter() - t, total


def time_gnubg(gboards: list, dice: list[tuple[int, int]]) -> tuple[float, int]:
    moves = gnubg_nn.moves
    t = time.perf_counter()
    total = 0
    for b, (d1, d2) in zip(gboards, dice, strict=True):
        total += len(moves(b, d1, d2))
    return time.perf_counter() - t, total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--kind", default="strong", help="comma-separated KINDs of the data file")
    args = ap.parse_args()
    boards, dice = load(set(args.kind.split(",")))
    gboards = [board_to_gnubg(b) for b in boards]
    dlist = [(int(a), int(b)) for a, b in dice]
    gen = MoveGenerator()
    time_bgnet(gen, boards[:100], dice[:100])  # compile (or load the Numba cache)
    bg = VARIANTS["backgammon"]
    wide = widen(boards)
    bg.generate(wide[:100], dice[:100])
    generate(wide[:100], dice[:100], bg.rules)
    ours, theirs, via_variant, general = [], [], [], []
    for _ in range(args.rounds):
        el, n_ours = time_bgnet(gen, boards, dice)
        ours.append(el)
        el, n_theirs = time_gnubg(gboards, dlist)
        theirs.append(el)
        t = time.perf_counter()
        n_variant = len(bg.generate(wide, dice).positions)
        via_variant.append(time.perf_counter() - t)
        t = time.perf_counter()
        n_general = len(generate(wide, dice, bg.rules).positions)
        general.append(time.perf_counter() - t)
    if not n_ours == n_theirs == n_variant == n_general:
        raise SystemExit(
            f"result counts differ: bgnet {n_ours}, gnubg {n_theirs}, "
            f"variant {n_variant}, general {n_general}"
        )
    n = len(boards)
    t_ours, t_theirs = statistics.median(ours), statistics.median(theirs)
    print(f"positions: {n} (position, roll) pairs from games, {n_ours} distinct results")
    print(f"bgnet  (batched Numba): {n / t_ours:12,.0f} rolls/s {n_ours / t_ours:14,.0f} positions/s")
    print(f"gnubg-nn moves():       {n / t_theirs:12,.0f} rolls/s {n_theirs / t_theirs:14,.0f} positions/s")
    print(f"ratio vs gnubg: {t_theirs / t_ours:.2f}")
    t_var, t_gen = statistics.median(via_variant), statistics.median(general)
    print(f"Variant('backgammon').generate: {n / t_var:12,.0f} rolls/s ratio vs gnubg {t_theirs / t_var:.2f}")
    print(f"general variant kernel:         {n / t_gen:12,.0f} rolls/s ratio vs gnubg {t_theirs / t_gen:.2f}")


if __name__ == "__main__":
    main()
