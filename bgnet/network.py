"""The value network: encoded positions -> 5 probabilities for the side on roll.

Outputs, in order (the convention of all of bgnet): win, win gammon, win
backgammon, lose gammon, lose backgammon, for the side on roll of the
evaluated position; gammons include backgammons.  They are consistent by
construction: the network predicts five conditional probabilities
``P(win)``, ``P(gammon | win)``, ``P(backgammon | gammon win)``,
``P(gammon | loss)``, ``P(backgammon | gammon loss)`` through sigmoids and
multiplies them out, so ``wbg <= wg <= win`` and ``lbg <= lg <= 1 - win``
always hold.

This module holds no training code (see ``training/``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch
from torch import nn

from bgnet.errors import DEVICES, DeviceError, is_device_name


def pick_device(name: str, what: str = "device") -> torch.device:
    """The torch device of ``name`` (:data:`bgnet.errors.DEVICES`; ``auto``: the GPU where there is one,
    else the CPU), or :class:`bgnet.errors.DeviceError` naming ``what`` (a flag, an option, a config field)
    when it is not a device name or this machine has no such GPU: the one check of a device for every
    command, player spec and config."""
    if not is_device_name(name):
        raise DeviceError(f"{what} must be {DEVICES}, not {name!r}")
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise DeviceError(f"{what} {name}: CUDA is not available on this machine")
    # the index as written: torch keeps a device index in 8 bits (cuda:256 would be cuda:0)
    if int(name.partition(":")[2] or 0) >= torch.cuda.device_count():
        raise DeviceError(f"{what} {name}: this machine has {torch.cuda.device_count()} GPU(s)")
    return torch.device(name)


NUM_OUTPUTS = 5
WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(NUM_OUTPUTS)

ACTIVATIONS = {"relu": nn.ReLU, "sigmoid": nn.Sigmoid, "tanh": nn.Tanh}


class ValueNet(nn.Module):
    """An MLP with configurable hidden layers and the 5 consistent outputs."""

    def __init__(self, inputs: int, hidden: Sequence[int] = (128,), activation: str = "relu") -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        self.shape: dict[str, Any] = {
            "inputs": int(inputs),
            "hidden": [int(h) for h in hidden],
            "activation": activation,
        }
        layers: list[nn.Module] = []
        width = inputs
        for h in hidden:
            layers += [nn.Linear(width, h), ACTIVATIONS[activation]()]
            width = h
        layers.append(nn.Linear(width, NUM_OUTPUTS))
        self.layers = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # the layers compute in their weights' dtype (float32, or a low-precision copy's); outputs in float32
        c = torch.sigmoid(self.layers(x.to(next(self.parameters()).dtype)).float())
        win = c[:, 0]
        wg = win * c[:, 1]
        wbg = wg * c[:, 2]
        lg = (1 - win) * c[:, 3]
        lbg = lg * c[:, 4]
        return torch.stack((win, wg, wbg, lg, lbg), dim=1)

    def cast_copy(self, dtype: torch.dtype) -> ValueNet:
        """A copy of this network whose layers compute in ``dtype`` (e.g. ``torch.bfloat16``, faster for
        wide layers on hardware with bfloat16 units); it takes float32 inputs and gives float32 outputs.
        Refresh it from the original with :meth:`copy_weights_from`."""
        twin = ValueNet(self.shape["inputs"], self.shape["hidden"], self.shape["activation"])
        twin.to(device=next(self.parameters()).device, dtype=dtype)
        twin.copy_weights_from(self)
        return twin.eval()

    @torch.no_grad()
    def copy_weights_from(self, other: ValueNet) -> None:
        """Copy ``other``'s weights into this network of the same shape, cast to this one's dtype."""
        for mine, theirs in zip(self.parameters(), other.parameters(), strict=True):
            mine.copy_(theirs)


class OneSidedRaceNet(nn.Module):
    """A race network that values each side alone, then both together exactly.

    In a race the two sides never meet again, so the side on roll's chances
    are sums over two independent distributions of rolls, as in the bearoff
    database (:mod:`bgnet.bearoff`).  This network reads the race encoder's
    two halves (``our_`` then ``their_`` units, same layout, ``inputs / 2``
    each) with one shared trunk and gives, for each side, three distributions
    over ``rolls`` roll counts (softmax heads): its rolls to bear off all
    checkers (``X``), the first checker (``X1``; 0 when one is off already,
    read from the ``off`` units) and the last checker out of the other side's
    home board (``Xb``; 0 when none is there, read from the point units of
    points 19..24).  With ``Y`` the opponent's and the side on roll rolling
    first: win ``P(X <= Y)``, win gammon ``P(X <= Y1)``, backgammon ``P(X <=
    Yb)``, lose gammon ``P(Y < X1)``, backgammon ``P(Y < Xb)`` (capped by the
    gammons); the outputs keep :class:`ValueNet`'s order and consistency.

    The layout it reads (``bgnet.encoding``'s ``race``): per side 24 points of
    4 units, then 14 "exactly k off" units, crossovers and pips.
    """

    POINT_UNITS = 4
    OFF_UNITS = 14

    def __init__(
        self, inputs: int, hidden: Sequence[int] = (128,), activation: str = "relu", rolls: int = 64
    ):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
        if inputs % 2 or inputs // 2 < 24 * self.POINT_UNITS + self.OFF_UNITS:
            raise ValueError(f"a one-sided race network needs two equal halves of race units, got {inputs}")
        self.shape: dict[str, Any] = {
            "kind": "one-sided",
            "inputs": int(inputs),
            "hidden": [int(h) for h in hidden],
            "activation": activation,
            "rolls": int(rolls),
        }
        self.side_width = inputs // 2
        self.rolls = int(rolls)
        layers: list[nn.Module] = []
        width = self.side_width
        for h in hidden:
            layers += [nn.Linear(width, h), ACTIVATIONS[activation]()]
            width = h
        self.trunk = nn.Sequential(*layers)
        self.heads = nn.Linear(width, 3 * self.rolls)

    def distributions(self, side: torch.Tensor) -> torch.Tensor:
        """``(n, 3, rolls)``: the all-off, first-off and home-board-clear distributions of one-side halves."""
        p = torch.softmax(self.heads(self.trunk(side)).view(-1, 3, self.rolls), dim=2)
        at_zero = torch.zeros_like(p[:, 0])
        at_zero[:, 0] = 1.0
        off = side[:, 24 * self.POINT_UNITS : 24 * self.POINT_UNITS + self.OFF_UNITS].sum(dim=1) > 0
        back = side[:, 18 * self.POINT_UNITS : 24 * self.POINT_UNITS].sum(dim=1) > 0
        first = torch.where(off[:, None], at_zero, p[:, 1])
        clear = torch.where(back[:, None], p[:, 2], at_zero)
        return torch.stack((p[:, 0], first, clear), dim=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[0]
        d = self.distributions(torch.cat((x[:, : self.side_width], x[:, self.side_width :]), dim=0))
        return self.combine(d[:n], d[n:])

    @staticmethod
    def combine(ours: torch.Tensor, theirs: torch.Tensor) -> torch.Tensor:
        """``(n, 5)`` cubeless probabilities of the side on roll from both sides' ``(n, 3, rolls)``
        distributions (:meth:`distributions`' order; ``ours`` is the side on roll's)."""

        def survival(p: torch.Tensor) -> torch.Tensor:  # P(N >= k)
            return torch.flip(torch.cumsum(torch.flip(p, dims=[1]), dim=1), dims=[1])

        # we roll first: our k-th roll comes before their k-th
        win = (ours[:, 0] * survival(theirs[:, 0])).sum(dim=1)
        # (gammons capped by their wins and losses: the heads are marginals of two policies)
        wg = torch.minimum((ours[:, 0] * survival(theirs[:, 1])).sum(dim=1), win)
        wbg = torch.minimum((ours[:, 0] * survival(theirs[:, 2])).sum(dim=1), wg)
        # they finish on their k-th roll, before our (k + 1)-th
        lg = torch.minimum((theirs[:, 0, :-1] * survival(ours[:, 1])[:, 1:]).sum(dim=1), 1 - win)
        lbg = torch.minimum((theirs[:, 0, :-1] * survival(ours[:, 2])[:, 1:]).sum(dim=1), lg)
        return torch.stack((win, wg, wbg, lg, lbg), dim=1)


class EnsembleNet(nn.Module):
    """Value networks that read the same inputs, their probabilities averaged.

    The mean of consistent outputs is consistent (``wbg <= wg <= win``, ``lbg <= lg <= 1 - win`` are
    kept by averaging).  Members are :class:`ValueNet` shapes; an ensemble is only evaluated, never
    trained (``bgnet_training.ship --ensemble`` makes one from trained networks).
    """

    def __init__(self, members: Sequence[dict[str, Any]]) -> None:
        super().__init__()
        if not members:
            raise ValueError("an ensemble needs at least one member")
        widths = {int(m["inputs"]) for m in members}
        if len(widths) != 1:
            raise ValueError(f"an ensemble's members must read the same inputs, got widths {sorted(widths)}")
        self.members = nn.ModuleList(ValueNet(m["inputs"], m["hidden"], m["activation"]) for m in members)
        self.shape: dict[str, Any] = {
            "kind": "ensemble",
            "inputs": widths.pop(),
            "members": [dict(m.shape) for m in self.nets],
        }

    @property
    def nets(self) -> list[ValueNet]:
        """The member networks."""
        return [m for m in self.members if isinstance(m, ValueNet)]

    @classmethod
    def of(cls, nets: Sequence[ValueNet | EnsembleNet]) -> EnsembleNet:
        """The ensemble of trained networks (an ensemble among them adds its members), with their weights."""
        flat = [m for net in nets for m in (net.nets if isinstance(net, EnsembleNet) else [net])]
        out = cls([m.shape for m in flat])
        for mine, theirs in zip(out.nets, flat, strict=True):
            mine.load_state_dict(theirs.state_dict())
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([m(x) for m in self.members]).mean(dim=0)


MainNet = ValueNet | EnsembleNet
"""What a checkpoint's main network can be."""

RaceNet = ValueNet | OneSidedRaceNet | EnsembleNet
"""What a checkpoint's network can be (the main network is a :class:`ValueNet` or an ensemble of them)."""


def build_network(shape: dict[str, Any]) -> RaceNet:
    """The network a checkpoint's ``shape`` describes (``kind``: ``value`` by default, ``one-sided`` or
    ``ensemble``)."""
    kind = shape.get("kind", "value")
    if kind == "one-sided":
        return OneSidedRaceNet(shape["inputs"], shape["hidden"], shape["activation"], shape.get("rolls", 64))
    if kind == "ensemble":
        ensemble = EnsembleNet(shape["members"])
        if ensemble.shape["inputs"] != shape["inputs"]:
            raise ValueError(
                f"an ensemble of {shape['inputs']} inputs has members of {ensemble.shape['inputs']}"
            )
        return ensemble
    if kind != "value":
        raise ValueError(f"unknown network kind {kind!r}")
    return ValueNet(shape["inputs"], shape["hidden"], shape["activation"])
