"""The 5 probabilities and what follows from them (numpy, vectorised over rows).

Order everywhere in bgnet: win, win gammon, win backgammon, lose gammon,
lose backgammon, for the side named by the caller (usually the side on roll
of the evaluated position); gammons include backgammons.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

if TYPE_CHECKING:
    import torch

Array = TypeVar("Array", np.ndarray, "torch.Tensor")

FLIP = np.array([0, 3, 4, 1, 2])


def equity(probs: Array) -> Array:
    """Cubeless money equity of (..., 5) probabilities: 2w - 1 + (wg - lg) + (wbg - lbg).

    An array (numpy, or a torch tensor, which keeps its gradient) is used as it is; a list is converted."""
    p: Any = probs if hasattr(probs, "shape") else np.asarray(probs)
    return 2 * p[..., 0] - 1 + p[..., 1] - p[..., 3] + p[..., 2] - p[..., 4]


def flip(probs: np.ndarray) -> np.ndarray:
    """The same probabilities seen by the other side: (1 - w, lg, lbg, wg, wbg)."""
    p = np.asarray(probs)
    q = p[..., FLIP].copy()
    q[..., 0] = 1.0 - p[..., 0]
    return q
