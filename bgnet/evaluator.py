"""Evaluation with a network at 0-ply: probabilities of positions, best plays of rolls.

One batched API: :meth:`NetEvaluator.probabilities` evaluates an ``(N, 26)``
array of positions (each for its side on roll) in one network forward;
:meth:`NetEvaluator.choose` picks, for every roll of a
:class:`~bgnet.movegen.MoveBatch`, the result that is best for the mover.
Move generation returns results seen by the opponent, so the mover's best
is the result whose equity for the opponent is lowest.
"""

from __future__ import annotations

import numpy as np
import torch

from bgnet.encoding import Encoder
from bgnet.game import final_probabilities
from bgnet.movegen import MoveBatch
from bgnet.network import ValueNet
from bgnet.probabilities import equity


def segment_argmin(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """For each segment ``offsets[i]:offsets[i+1]``, the absolute row of its smallest value (-1 if empty).

    Ties go to the first row (the generator's canonical order).
    """
    n = len(offsets) - 1
    sizes = np.diff(offsets)
    rows = np.full(n, -1, dtype=np.int64)
    if len(values) == 0:
        return rows
    seg = np.repeat(np.arange(n), sizes)
    order = np.lexsort((values, seg))
    nonempty = sizes > 0
    rows[nonempty] = order[offsets[:-1][nonempty]]
    return rows


class NetEvaluator:
    """A network and its encoder, evaluating batches of positions on one device."""

    def __init__(self, model: ValueNet, encoder: Encoder, device: str | torch.device = "cpu") -> None:
        self.model = model
        self.encoder = encoder
        self.device = torch.device(device)
        self._buf = np.empty((0, encoder.width), dtype=np.float32)

    def _inputs(self, boards: np.ndarray) -> torch.Tensor:
        if len(self._buf) < len(boards):
            self._buf = np.empty((max(len(boards), 2 * len(self._buf)), self.encoder.width), dtype=np.float32)
        x = self.encoder.encode(boards, out=self._buf[: len(boards)])
        return torch.from_numpy(x).to(self.device, non_blocking=True)

    @torch.no_grad()
    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """(N, 5) probabilities of ``boards`` (N, 26), each for its side on roll.

        Finished games (the side not on roll has no checker left) get their
        exact result instead of the network's guess.
        """
        if len(boards) == 0:
            return np.empty((0, 5), dtype=np.float32)
        self.model.eval()
        probs = self.model(self._inputs(boards)).float().cpu().numpy()
        over, exact = final_probabilities(boards)
        if over.any():
            probs[over] = exact[over]
        return probs

    def choose(self, batch: MoveBatch, player: np.ndarray | None = None) -> np.ndarray:
        """Each roll's best result for the mover (absolute rows; -1 when there is no legal play)."""
        return segment_argmin(equity(self.probabilities(batch.positions)), batch.offsets)
