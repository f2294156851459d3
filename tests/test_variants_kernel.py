"""The general variant kernel under backgammon's rules against bgnet.movegen's specialised kernels.

``Variant.generate`` hands backgammon to the specialised kernels, so the
general kernel's backgammon is checked here: same result sets, roll by roll,
on positions of random games (the specialised kernels are themselves checked
against gnubg's generator in tests/test_movegen_differential.py).
"""

from __future__ import annotations

import numpy as np

from bgnet import variants
from bgnet.lockstep import Lockstep
from bgnet.movegen import generate as standard


def test_the_general_kernel_plays_backgammon_as_movegen_does():
    rng = np.random.default_rng(7)
    engine = Lockstep(32, 64, rng, record=True)

    def random_play(batch, player):
        sizes = np.diff(batch.offsets)
        pick = (rng.random(len(sizes)) * np.maximum(sizes, 1)).astype(np.int64)
        return np.where(sizes > 0, batch.offsets[:-1] + pick, -1)

    boards = []
    while engine.running:
        boards += [g.history for g in engine.step(random_play)]
    b = np.concatenate(boards)[:3000]
    dice = rng.integers(1, 7, size=(len(b), 2))
    ours = variants.generate(variants.widen(b), dice, variants.VARIANTS["backgammon"].rules)
    theirs = standard(b, dice)
    assert len(b) == 3000 and (ours.offsets == theirs.offsets).all()
    assert (ours.positions[:, 26:] == 0).all()
    for i in range(len(b)):
        got = {bytes(p) for p in ours.positions[ours.rows(i), :26]}
        want = {bytes(p) for p in theirs.positions[theirs.rows(i)]}
        assert got == want, (b[i].tolist(), dice[i].tolist())
