"""The weight average of a run: an exponential moving average of each network's weights, what ``ship`` ships.

TD(lambda) self-play at a constant or slowly falling learning rate leaves
the weights wandering around the minimum they have found; their average over
the last several thousand games sits nearer it and plays better than any
single checkpoint (Polyak-Ruppert averaging; "stochastic weight averaging",
P. Izmailov et al., 2018).  With ``average = G`` in the config the learner
keeps, for each phase network it trains, ``avg <- d * avg + (1 - d) * w`` after every
update, with ``d = exp(-games / G)`` for the games of that update: the average
weighs the weights of ``t`` games ago by ``exp(-t / G)``, a time constant of
``G`` games.  Training itself never reads it: it changes nothing in the run
(``average`` may be changed between sessions).

Checkpoints hold it under ``"average"`` (``{"games": G, "since": S, "main":
state dict, "race": state dict, ...}``, one per trained phase network, ``S`` the run's game count when the
average started).  A run resumed from a checkpoint without one, or started
from ``init``, starts it from the weights it begins with; a session run with
``average = 0`` carries a saved average forward unchanged.  ``python -m
bgnet_training.ship`` writes the average as the shipped file's networks
(``--live`` for the last weights) and warns when it covers fewer than
``3 G`` games (it still holds ``exp(-3)``, 5%, of its starting weights).
"""

from __future__ import annotations

import math
from typing import Any

import torch

from bgnet.checkpoint import CheckpointError
from bgnet.encoding import Encoder
from bgnet.evaluator import NetEvaluator
from bgnet.network import RaceNet


def trained_networks(evaluator: NetEvaluator) -> dict[str, tuple[RaceNet, Encoder]]:
    """The phase networks a run trains, by name: all of ``evaluator.networks()`` but a frozen one (the race
    network of a config's ``race_network``, whose parameters take no gradients)."""
    return {
        name: (model, encoder)
        for name, (model, encoder) in evaluator.networks().items()
        if any(p.requires_grad for p in model.parameters())
    }


class WeightAverage:
    """The moving average of every phase network that ``evaluator``'s run trains, with a time constant of
    ``games`` games."""

    def __init__(self, evaluator: NetEvaluator, games: int, since: int | None = 0) -> None:
        if games < 1:
            raise ValueError("the time constant of a weight average is at least one game")
        self.games = games
        self.since = since
        self.weights = {
            name: {k: v.detach().clone() for k, v in model.state_dict().items()}
            for name, (model, _) in trained_networks(evaluator).items()
        }

    def update(self, evaluator: NetEvaluator, games: int) -> None:
        """Fold in the networks' weights after an update of ``games`` games."""
        keep = math.exp(-games / self.games)
        with torch.no_grad():
            for name, (model, _) in trained_networks(evaluator).items():
                avg = self.weights[name]
                for k, v in model.state_dict().items():
                    if v.is_floating_point():
                        avg[k].mul_(keep).add_(v.detach(), alpha=1.0 - keep)
                    else:
                        avg[k].copy_(v)

    def state(self) -> dict[str, Any]:
        """What a checkpoint stores (CPU tensors)."""
        out: dict[str, Any] = {"games": self.games, "since": self.since}
        out.update({name: {k: v.cpu().clone() for k, v in w.items()} for name, w in self.weights.items()})
        return out

    def load(self, saved: dict[str, Any], source: str) -> None:
        """Take the average a checkpoint stored (its shapes must be this run's)."""
        since = saved.get("since")
        self.since = since if isinstance(since, int) else None  # None: not recorded (older checkpoints)
        for name, avg in self.weights.items():
            theirs = saved.get(name)
            if not isinstance(theirs, dict) or set(theirs) != set(avg):
                raise CheckpointError(f"{source}: its weight average does not match the {name} network")
            for k, v in avg.items():
                t = theirs[k]
                if not isinstance(t, torch.Tensor) or t.shape != v.shape:
                    raise CheckpointError(f"{source}: its weight average of {name}.{k} has another shape")
                v.copy_(t.to(v.device))
