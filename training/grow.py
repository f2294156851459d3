"""Growing a trained network: copy a smaller network into a wider one without changing its function.

``widen_into(target, source)`` copies every layer of ``source`` into the
top-left block of the same layer of ``target`` (same depth, each hidden
layer at least as wide).  The new hidden units get small random input
weights and zero output weights, so the widened network computes exactly
the function of the source (Net2Net-style growth, T. Chen, I. Goodfellow,
J. Shlens, "Net2Net: accelerating learning via knowledge transfer", 2016)
and training goes on from there.
"""

from __future__ import annotations

import numpy as np
import torch

from bgnet.checkpoint import CheckpointError
from bgnet.network import ValueNet

NEW_UNIT_SCALE = 0.01
"""Standard deviation of the input weights of the units that widening adds."""


def widen_into(target: ValueNet, source: ValueNet, rng: np.random.Generator) -> None:
    """Load ``source``'s weights into ``target`` (equal or wider hidden layers, same inputs and depth)."""
    ts, ss = target.shape, source.shape
    if ts["inputs"] != ss["inputs"] or len(ts["hidden"]) != len(ss["hidden"]):
        raise CheckpointError(f"cannot grow a network of shape {ss} into {ts} (inputs and depth must match)")
    if any(t < s for t, s in zip(ts["hidden"], ss["hidden"], strict=True)):
        raise CheckpointError(f"cannot shrink a network of shape {ss} into {ts}")
    if ts["activation"] != ss["activation"]:
        raise CheckpointError(f"activation {ss['activation']} of the source differs from {ts['activation']}")
    if ts == ss:
        target.load_state_dict(source.state_dict())
        return
    src = [m for m in source.layers if isinstance(m, torch.nn.Linear)]
    dst = [m for m in target.layers if isinstance(m, torch.nn.Linear)]
    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    with torch.no_grad():
        for i, (d, s) in enumerate(zip(dst, src, strict=True)):
            out_s, in_s = s.weight.shape
            last = i == len(dst) - 1
            w = torch.zeros_like(d.weight)
            if not last:
                w.normal_(0.0, NEW_UNIT_SCALE, generator=gen)
            w[:, in_s:] = 0.0  # inputs from the units added below carry nothing yet
            w[:out_s, :in_s] = s.weight
            d.weight.copy_(w)
            b = torch.zeros_like(d.bias)
            b[:out_s] = s.bias
            d.bias.copy_(b)
