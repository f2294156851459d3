"""What narrowing acey-deucey's 1-2 costs and saves (docs/variants.md, "Self-play's 1-2").

Collects middle-game positions from six games of the shipped acey-deucey bot
against itself, gives each a 1-2, and compares the bot's choice among all
whole turns with its choice when only the ``keep`` best plays of the 1 and
the 2 go on to their doubles: rows, time, and the equity the narrowed choice
gives up by the network's own values.

    python benchmarks/acey_narrow.py [PLAYER]     # default: bgnet (the shipped bot)
"""

import sys
import time

import numpy as np

from bgnet.players import make_player
from bgnet.probabilities import equity
from bgnet.variants import NARROW_KEEP, variant
from bgnet_training.train import selfplay_narrow

v = variant("acey-deucey")
ev = make_player(sys.argv[1] if len(sys.argv) > 1 else "bgnet", v).evaluator
score = selfplay_narrow(ev, NARROW_KEEP)  # self-play's scorer of the plays of the 1 and the 2

rng = np.random.default_rng(1)
boards = []
for _ in range(6):
    b = v.start.copy()
    for ply in range(400):
        d = rng.integers(1, 7, 2)
        if set(d) == {1, 2}:
            d = np.array([6, 5])
        batch = v.generate(b[None], np.array([d]))
        b = batch.positions[ev.choose(batch)[0]] if len(batch.positions) else v.flip(b[None])[0]
        if ply % 7 == 3:
            boards.append(b.copy())
        if v.result(b) is not None:
            break
boards = np.array(boards)
one_two = np.tile([[2, 1]], (len(boards), 1))
t = time.perf_counter()
full = v.generate(boards, one_two)
rows = ev.choose(full)
elapsed = time.perf_counter() - t
best = equity(ev.rank(full))[rows]  # the mover's equity of every whole turn, 0-ply
print(f"{len(boards)} positions with a 1-2: all whole turns {len(full.positions)} rows, {elapsed:.2f} s")
print("keep   rows    time   mean loss   max loss   same choice")
for keep in (1, 2, 3, 4, 6, 8):
    t = time.perf_counter()
    nb = v.generate(boards, one_two, narrow=score, keep=keep)
    r = ev.choose(nb)
    elapsed = time.perf_counter() - t
    loss = best - equity(ev.rank(nb))[r]
    print(
        f"{keep:4d} {len(nb.positions):7d} {elapsed:6.2f}s {loss.mean():10.4f} {loss.max():10.3f}"
        f" {(loss < 1e-6).mean():10.0%}"
    )
