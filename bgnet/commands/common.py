"""What several commands share: input lines and dice.  No torch here (start-up time).

Networks are loaded by :meth:`bgnet.evaluator.NetEvaluator.from_checkpoint`
(an evaluator) or :meth:`bgnet.players.NetPlayer.from_checkpoint` (bgnet's
player), nowhere else.
"""

from __future__ import annotations

from bgnet.dice import Dice
from bgnet.errors import read_text
from bgnet.formats import Xgid


def read_lines(path: str) -> list[str]:
    """The lines of a text file, or of standard input for ``-``; unreadable or binary: a BgnetError."""
    return read_text(path).splitlines()


def dice_of(text: str | None, info: object) -> Dice | None:
    """The dice typed, or else those rolled in an XGID or Match ID (None when there are none)."""
    if text is not None:
        return Dice.parse(text)
    rolled = info.rolled if isinstance(info, Xgid) else getattr(info, "dice", (0, 0))
    return Dice.of(*rolled) if rolled and rolled[0] else None
