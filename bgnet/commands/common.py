"""What several commands share: loading the evaluator of a checkpoint."""

from __future__ import annotations

from pathlib import Path

from bgnet.bearoff import OneSidedBearoff
from bgnet.checkpoint import DEFAULT, load_network
from bgnet.evaluator import NetEvaluator


def load_evaluator(checkpoint: str | Path | None = None, *, bearoff: bool = True) -> NetEvaluator:
    """The network of ``checkpoint`` (default: the shipped one) with the exact bearoff database.

    The database is built and cached on first use (seconds; see ``bgnet bearoff build``).
    """
    model, encoder, _ = load_network(checkpoint or DEFAULT)
    return NetEvaluator(model, encoder, bearoff=OneSidedBearoff.load_or_build() if bearoff else None)
