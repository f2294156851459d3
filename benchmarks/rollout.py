"""Rollout speed: bgnet's rollouts against GNU Backgammon 1.07's own rollouts, games per second.

The same positions (each with its side on roll about to roll) are rolled out
by both programs with the same settings: cubeless, 0-ply plays, no
variance reduction (gnubg: ``set rollout varredn off``; bgnet: ``--no-luck``),
quasi-random (stratified) dice in both, games that reach the bearoff
databases stopped there (gnubg: ``bearofftruncation exact`` and
``onesided``; bgnet: its one-sided database), played to the end otherwise
(``--truncate`` sets a truncation in both), and one thread (gnubg: ``set
threads 1``; bgnet: one process, torch on one thread).

gnubg is the Debian ``gnubg`` program (``gnubg`` on the PATH or in
``/usr/games``), driven by its own command language through its embedded
Python (``gnubg -t -q -p script``: ``gnubg.command("set rollout trials N")``
..., ``gnubg.command("rollout")``, timed inside gnubg, start-up left out).
gnubg-nn's ``rollout()`` is not used: it misreads its arguments.

bgnet is timed from the moment its network is loaded (start-up left out).
The machine is noisy: both run alternately, ``--rounds`` times, and the
median counts.  The last line is ``ratio vs gnubg rollout: X`` (bgnet's rate
over gnubg's, X > 1: bgnet is faster).

    make bench-rollout      # or: .venv/bin/python benchmarks/rollout.py [--games N] [--rounds R]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from bgnet.evaluator import NetEvaluator
from bgnet.formats import parse_position, position_id
from bgnet.position import Position
from bgnet.rollout import RolloutSettings, rollout_boards

POSITIONS = {
    "opening (no dice yet)": "4HPwATDgc/ABMA",
    "middle game": "2pYA8BjsvG0AAA",
    "holding game": "sOeUAQyw28EDQA",
    "race": position_id(
        Position.from_points({12: 2, 9: 3, 8: 3, 6: 4, 5: 3}, {11: 2, 8: 4, 6: 4, 5: 3, 4: 2})
    ),
}

GNUBG_SCRIPT = """
import time
for c in {settings!r}:
    gnubg.command(c)
for name, pid in {positions!r}:
    for c in ("new game", "set turn 1", "set turn 0", "set board " + pid):
        gnubg.command(c)
    t = time.perf_counter()
    gnubg.command("rollout")
    print("BENCH", name, time.perf_counter() - t, flush=True)
"""


def gnubg_program() -> str:
    found = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")
    if not found:
        sys.exit("benchmarks/rollout.py: the gnubg program was not found (Debian: apt-get install gnubg)")
    return found


def gnubg_seconds(program: str, games: int, truncate: int | None, seed: int) -> dict[str, float]:
    settings = [
        "set threads 1",
        f"set rollout trials {games}",
        "set rollout cubeful off",
        "set rollout varredn off",
        "set rollout quasirandom on",
        f"set rollout seed {seed}",
        "set rollout chequerplay plies 0",
        "set rollout later enable off",
        "set rollout bearofftruncation exact on",
        "set rollout bearofftruncation onesided on",
        "set player 0 human",
        "set player 1 human",
    ]
    if truncate:
        settings += ["set rollout truncation enable on", f"set rollout truncation plies {truncate}"]
    else:
        settings += ["set rollout truncation enable off"]
    script = GNUBG_SCRIPT.format(settings=settings, positions=list(POSITIONS.items()))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench_rollout.py"
        path.write_text(script)
        run = subprocess.run(
            [program, "-t", "-q", "-p", str(path)],
            capture_output=True,
            text=True,
            timeout=3600,
            env={**os.environ, "OMP_NUM_THREADS": "1"},
        )
    out = {}
    for line in run.stdout.splitlines():
        if line.startswith("BENCH "):
            *name, secs = line[6:].split()
            out[" ".join(name)] = float(secs)
    if len(out) != len(POSITIONS):
        sys.exit(
            f"benchmarks/rollout.py: gnubg did not finish its rollouts:\n{run.stdout[-2000:]}{run.stderr}"
        )
    return out


def bgnet_seconds(
    ev, games: int, truncate: int | None, seed: int
) -> tuple[dict[str, float], dict[str, tuple]]:
    settings = RolloutSettings(games=games, luck=False, stratify=True, truncate=truncate, seed=seed)
    times, values = {}, {}
    for name, pid in POSITIONS.items():
        board = parse_position(pid)[0].board
        t = time.perf_counter()
        r = rollout_boards(board[None, :], settings, evaluator=ev)[0]
        times[name] = time.perf_counter() - t
        values[name] = (r.equity, r.equity_se)
    return times, values


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=1296, help="games per position (default 1296)")
    ap.add_argument("--rounds", type=int, default=3, help="alternate rounds, the median counts (default 3)")
    ap.add_argument("--truncate", type=int, default=None, help="truncate games after N plies (default: none)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--checkpoint", default=None)
    ap.add_argument(
        "--lookahead", type=int, choices=(0, 1), default=1, help="search races one roll a side (default 1)"
    )
    args = ap.parse_args()
    torch.set_num_threads(1)
    program = gnubg_program()
    ev = NetEvaluator.from_checkpoint(args.checkpoint, race_lookahead=bool(args.lookahead))
    rollout_boards(
        parse_position("4HPwATDgc/ABMA")[0].board[None, :],
        RolloutSettings(games=36, luck=False),
        evaluator=ev,
    )  # warm-up: compile, caches
    ours: dict[str, list[float]] = {n: [] for n in POSITIONS}
    theirs: dict[str, list[float]] = {n: [] for n in POSITIONS}
    values = {}
    for r in range(args.rounds):
        g = gnubg_seconds(program, args.games, args.truncate, args.seed + r)
        b, values = bgnet_seconds(ev, args.games, args.truncate, args.seed + r)
        for n in POSITIONS:
            ours[n].append(b[n])
            theirs[n].append(g[n])
    print(
        f"{args.games} games per position, 0-ply, cubeless, no variance reduction, stratified dice, "
        f"{'truncated at ' + str(args.truncate) + ' plies' if args.truncate else 'played to the end'}, "
        f"one thread; median of {args.rounds} rounds"
    )
    print(
        f"{'position':<24}{'bgnet games/s':>14}{'gnubg games/s':>15}{'ratio':>8}   bgnet equity (last round)"
    )
    total_b = total_g = 0.0
    for n in POSITIONS:
        tb, tg = statistics.median(ours[n]), statistics.median(theirs[n])
        total_b += tb
        total_g += tg
        eq, se = values[n]
        print(f"{n:<24}{args.games / tb:14.1f}{args.games / tg:15.1f}{tg / tb:8.2f}   {eq:+.3f} ± {se:.3f}")
    games = args.games * len(POSITIONS)
    print(f"{'all':<24}{games / total_b:14.1f}{games / total_g:15.1f}{total_g / total_b:8.2f}")
    print(f"bgnet rollout rate: {games / total_b:.1f} games/s")
    print(f"gnubg rollout rate: {games / total_g:.1f} games/s")
    print(f"ratio vs gnubg rollout: {total_g / total_b:.2f}")
    np.set_printoptions()


if __name__ == "__main__":
    main()
