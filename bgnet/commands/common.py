"""What several commands share: the evaluator of a checkpoint, input lines, dice."""

from __future__ import annotations

import sys
from pathlib import Path

from bgnet.bearoff import OneSidedBearoff
from bgnet.checkpoint import DEFAULT, load_network
from bgnet.dice import Dice
from bgnet.errors import BgnetError
from bgnet.evaluator import NetEvaluator
from bgnet.formats import Xgid


def load_evaluator(checkpoint: str | Path | None = None, *, bearoff: bool = True) -> NetEvaluator:
    """The network of ``checkpoint`` (default: the shipped one) with the exact bearoff database.

    The database is built and cached on first use (seconds; see ``bgnet bearoff build``).
    """
    model, encoder, _ = load_network(checkpoint or DEFAULT)
    return NetEvaluator(model, encoder, bearoff=OneSidedBearoff.load_or_build() if bearoff else None)


def read_lines(path: str) -> list[str]:
    """The lines of a file, or of standard input for ``-``; an unreadable file is a BgnetError."""
    if path == "-":
        return sys.stdin.read().splitlines()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except OSError as e:
        raise BgnetError(f"cannot read {path}: {e.strerror}") from None


def dice_of(text: str | None, info: object) -> Dice | None:
    """The dice typed, or else those rolled in an XGID or Match ID (None when there are none)."""
    if text is not None:
        return Dice.parse(text)
    rolled = info.rolled if isinstance(info, Xgid) else getattr(info, "dice", (0, 0))
    return Dice.of(*rolled) if rolled and rolled[0] else None
