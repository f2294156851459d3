"""Growing a trained network: copy a smaller network into a wider or deeper one without changing its function.

``widen_into(target, source)`` copies every layer of ``source`` into the
top-left block of the same layer of ``target`` (each hidden layer at least
as wide; extra inputs, appended after the source's, get zero weights: an
encoder that ``extends`` another, :class:`bgnet.encoding.Encoder`).  The
new hidden units get small random input weights and zero output weights,
so the widened network computes exactly the function of
the source (Net2Net-style growth, T. Chen, I. Goodfellow, J. Shlens,
"Net2Net: accelerating learning via knowledge transfer", 2016) and training
goes on from there.

A deeper ``target`` (ReLU only) takes the source's hidden layers as its
first ones and gets each extra hidden layer as an identity on the units
below it (Net2DeeperNet: ReLU(h) = h for the non-negative h of a ReLU
layer), again with small random weights into its new units and zero
weights out of them; the output layer reads the last hidden layer.
"""

from __future__ import annotations

import numpy as np
import torch

from bgnet.checkpoint import CheckpointError
from bgnet.network import ValueNet

NEW_UNIT_SCALE = 0.01
"""Standard deviation of the input weights of the units that widening adds."""


def widen_into(target: ValueNet, source: ValueNet, rng: np.random.Generator) -> None:
    """Load ``source``'s weights into ``target`` (as many inputs or more: extra inputs, appended after the
    source's, get zero weights; hidden layers as wide or wider, as many or more: extra layers only with
    ReLU, each at least as wide as the last of the source)."""
    ts, ss = target.shape, source.shape
    th, sh = ts["hidden"], ss["hidden"]
    if ts["inputs"] < ss["inputs"] or len(th) < len(sh):
        raise CheckpointError(
            f"cannot grow a network of shape {ss} into {ts} "
            "(as many inputs or more, as many hidden layers or more)"
        )
    if ts["activation"] != ss["activation"]:
        raise CheckpointError(f"activation {ss['activation']} of the source differs from {ts['activation']}")
    if any(t < s for t, s in zip(th, sh, strict=False)) or any(t < sh[-1] for t in th[len(sh) :]):
        raise CheckpointError(f"cannot shrink a network of shape {ss} into {ts}")
    if len(th) > len(sh) and ts["activation"] != "relu":
        raise CheckpointError(f"only a ReLU network can be deepened, not {ss} into {ts}")
    if ts == ss:
        target.load_state_dict(source.state_dict())
        return
    src = [m for m in source.layers if isinstance(m, torch.nn.Linear)]
    dst = [m for m in target.layers if isinstance(m, torch.nn.Linear)]
    gen = torch.Generator().manual_seed(int(rng.integers(2**31)))
    # The source's weights for each target layer: its hidden layers, identities for the extra
    # layers (on the units of the source's last hidden layer), then its output layer.
    width = sh[-1]
    extra = [torch.eye(width) for _ in th[len(sh) :]]
    plan: list[tuple[torch.Tensor, torch.Tensor]] = [(s.weight, s.bias) for s in src[:-1]]
    plan += [(eye, torch.zeros(width)) for eye in extra] + [(src[-1].weight, src[-1].bias)]
    with torch.no_grad():
        for i, (d, (sw, sb)) in enumerate(zip(dst, plan, strict=True)):
            out_s, in_s = sw.shape
            last = i == len(dst) - 1
            w = torch.zeros_like(d.weight)
            if not last:
                w.normal_(0.0, NEW_UNIT_SCALE, generator=gen)
            w[:, in_s:] = 0.0  # inputs from the units added below carry nothing yet
            w[:out_s, :in_s] = sw
            d.weight.copy_(w)
            b = torch.zeros_like(d.bias)
            b[:out_s] = sb
            d.bias.copy_(b)
