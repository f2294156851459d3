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
        c = torch.sigmoid(self.layers(x))
        win = c[:, 0]
        wg = win * c[:, 1]
        wbg = wg * c[:, 2]
        lg = (1 - win) * c[:, 3]
        lbg = lg * c[:, 4]
        return torch.stack((win, wg, wbg, lg, lbg), dim=1)
