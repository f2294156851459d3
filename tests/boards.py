"""Shared test helpers: a position builder matching ``repr(Position)``, board strategies, a tiny network,
a marker network."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import strategies as st

from bgnet.dice import Dice
from bgnet.movegen import generate
from bgnet.position import Position, flip


def pos(ours: dict[int, int], theirs: dict[int, int]) -> Position:
    """``pos({24: 2, 13: 5}, {25: 1})``: our checkers per point, theirs per point (each from its own side)."""
    return Position.from_points(ours, theirs)


def after(position: Position, dice: str) -> set[Position]:
    """The distinct results of a roll, seen from the mover (not flipped), for readable assertions."""
    d = Dice.parse(dice)
    batch = generate(position.board[None, :], np.array([[d.high, d.low]]))
    rows = batch.positions[batch.offsets[0] : batch.offsets[1]]
    found = [Position(flip(r)) for r in rows]
    assert len(set(found)) == len(found), "a result is listed twice"
    return set(found)


class Marker(torch.nn.Module):
    """A 'network' whose win probability is a constant, to see which phase network was asked."""

    def __init__(self, inputs: int, win: float) -> None:
        super().__init__()
        self.inputs, self.win = inputs, win

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.shape[1] == self.inputs
        out = torch.zeros(len(x), 5)
        out[:, 0] = self.win
        return out


@st.composite
def legal_boards(draw: st.DrawFn) -> np.ndarray:
    """Random legal boards: <= 15 checkers a side, never both sides on a point."""
    ours = draw(st.lists(st.integers(1, 25), max_size=15))
    theirs = draw(st.lists(st.integers(0, 24), max_size=15))
    b = np.zeros(26, dtype=np.int8)
    for slot in ours:
        b[slot] += 1
    for slot in theirs:
        if b[slot] <= 0:
            b[slot] -= 1
    return b


TINY_RUN = dict(
    name="tiny",
    hidden=(8,),
    games=40,
    parallel_games=8,
    train_games=8,
    minibatch=64,
    checkpoint_every=16,
    keep_checkpoints=2,
    eval_every=0,
    device="cpu",
    threads=1,
    workers=0,
)
"""A training config that runs in seconds (self-play in the test's process); tests override fields."""


def tiny_checkpoint(path):
    """A small random network saved as a checkpoint (quick to load, deterministic)."""
    import torch

    from bgnet.checkpoint import save
    from bgnet.encoding import get_encoder
    from bgnet.network import ValueNet

    torch.manual_seed(0)
    enc = get_encoder("tesauro198")
    net = ValueNet(enc.width, [16])
    state = {
        "model": net.state_dict(),
        "shape": net.shape,
        "encoder": enc.name,
        "encoder_version": enc.version,
        "config": {},
        "counters": {"games": 0},
    }
    return save(path, state)


def first_line(proc, timeout: float = 120.0) -> str:
    """The first line the process prints, or '' if none comes within ``timeout`` seconds."""
    import selectors

    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ)
        if not sel.select(timeout):
            return ""
    return proc.stdout.readline()
