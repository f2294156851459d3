"""Self-play speed: bgnet training games/s (default config) against gnubg-nn 0-ply self-play games/s.

It also measures, in the same run, training with one self-play worker per
core (``workers = -1``: worker processes play and label, the learner trains)
against the single-process mode, and prints ``ratio workers vs single``.
Each bgnet figure is a steady rate: the difference of a run of N/4 games
and one of N games (games over seconds), so a run's fixed costs (starting
the worker processes: each imports torch and loads the kernels) cancel out.

bgnet's figure is real training: B games in lockstep, one network forward
per ply over all candidates, TD(lambda) updates and checkpoints, with the
recipe of ``configs/default.toml`` (only ``games`` and evaluation changed).
gnubg's figure is GNU Backgammon's 0-ply player (gnubg-nn ``best_move``)
playing itself, one game at a time, without learning.  Both run in this one
process, one after the other; the machine is noisy: read the ratio.

    make bench-selfplay      # or: .venv/bin/python benchmarks/selfplay.py [--games N] [--gnubg-games M]

``--policy-ratio`` instead compares self-play choosing its plays with a
bfloat16 copy of the network (``policy_dtype``) against float32, on a
config's networks from its ``init`` checkpoint, e.g.
``benchmarks/selfplay.py --config configs/widen-384x3.toml --policy-ratio --games 4096``.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import gnubg_nn
import numpy as np

from bgnet_training.config import load_config
from bgnet_training.train import Trainer

ROOT = Path(__file__).resolve().parent.parent


def bgnet_games_per_s(
    config: Path, games: int, threads: int | None, workers: int = 0, **changes: object
) -> tuple[float, str]:
    """Training games/s in steady state: two runs of ``games // 4`` and ``games`` games, the extra games
    over the extra time, so what every run pays once (starting worker processes, loading the compiled
    kernels) cancels out.  ``changes`` override config fields (``init``: start from that checkpoint)."""
    # never the committed run; a fresh network unless changes say otherwise
    extra: dict[str, object] = {"workers": workers, "snapshot": "", "init": "", "average": 0, **changes}
    if threads is not None:
        extra["threads"] = threads
    with tempfile.TemporaryDirectory() as tmp:
        warm = load_config(config, {"games": 64, "eval_every": 0, "name": "warm", **extra, "workers": 0})
        Trainer(warm, tmp, progress=False).run()  # compile / load the Numba caches
        elapsed = {}
        for n in (games // 4, games):
            cfg = load_config(config, {"games": n, "eval_every": 0, "name": f"bench{n}", **extra})
            trainer = Trainer(cfg, tmp, progress=False)
            t = time.perf_counter()
            trainer.run()
            elapsed[n] = time.perf_counter() - t
    threads_used = cfg.threads or "all"
    what = f"{cfg.encoder}, hidden {list(cfg.hidden)}, B={cfg.parallel_games}, {threads_used} thread(s)"
    if cfg.policy_dtype != "float32":
        what += f", policy {cfg.policy_dtype}"
    if workers:
        what += f", {cfg.worker_count()} workers"
    return (games - games // 4) / (elapsed[games] - elapsed[games // 4]), f"{what}, {trainer.device}"


def gnubg_games_per_s(games: int, seed: int) -> float:
    rng = np.random.default_rng(seed)
    start = gnubg_nn.board_from_position_id("4HPwATDgc/ABMA")
    t = time.perf_counter()
    for _ in range(games):
        board = [list(start[0]), list(start[1])]
        while True:
            d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
            found = gnubg_nn.best_move(board, d1, d2, b=1)
            if found and found[0]:
                board = gnubg_nn.board_from_position_key(found[1])  # already from the next roller's side
            else:
                board = [board[1], board[0]]  # no legal play
            if sum(board[0]) == 0:  # the side that just moved has borne everything off
                break
    return games / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "configs" / "default.toml"))
    ap.add_argument("--games", type=int, default=10000, help="bgnet training games")
    ap.add_argument("--gnubg-games", type=int, default=300, help="gnubg-nn self-play games")
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: the config's)")
    ap.add_argument(
        "--policy-ratio",
        action="store_true",
        help="only compare the config's self-play choosing in bfloat16 against float32 (one process each), "
        "from the config's own init checkpoint",
    )
    args = ap.parse_args()
    if args.policy_ratio:
        init = load_config(Path(args.config)).init
        runs = {
            dtype: bgnet_games_per_s(
                Path(args.config), args.games, args.threads, init=init, policy_dtype=dtype
            )
            for dtype in ("float32", "bfloat16")
        }
        for rate, what in runs.values():
            print(f"bgnet training self-play ({what}): {rate:8.1f} games/s")
        print(f"ratio bfloat16 vs float32 policy: {runs['bfloat16'][0] / runs['float32'][0]:.2f}")
        return
    ours, what = bgnet_games_per_s(Path(args.config), args.games, args.threads)
    theirs = gnubg_games_per_s(args.gnubg_games, seed=1)
    par, par_what = bgnet_games_per_s(Path(args.config), args.games, args.threads, workers=-1)
    print(f"bgnet training self-play ({what}): {ours:8.1f} games/s")
    print(f"gnubg-nn 0-ply self-play (no learning):     {theirs:8.1f} games/s")
    print(f"bgnet training self-play ({par_what}): {par:8.1f} games/s")
    print(f"ratio vs gnubg selfplay: {ours / theirs:.2f}")
    print(f"ratio workers vs single: {par / ours:.2f}")


if __name__ == "__main__":
    main()
