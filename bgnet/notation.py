"""GNU Backgammon's move notation (``24/18 13/11*``, ``bar/22``, ``8/5(2)``).

:func:`format_play` is a reimplementation of gnubg's ``FormatMove`` in
``drawboard.c`` (the function behind gnubg's hint, analysis and game-record
text), which does, in order:

1. Sort the (from, to) steps by decreasing *from*, ties by decreasing *to*
   (``CompareMovesSimple``); so the order the steps were played in does not
   matter.
2. Join the steps of one checker: when a step starts where an earlier (in
   that order) step ends, the later step is merged into the earlier one.  If
   an opponent's checker stood on the joining point *before the play*, the
   point is kept and marked hit (``24/20*/16``); otherwise it is dropped
   (6-1 played 13/7, 7/6 prints ``13/6``).
3. Merge identical paths into one with a count: ``24/18(2)``, ``6/2*(2)``.
4. Print each path: points by number, 25 as ``bar``, 0 as ``off``; a kept
   intermediate point always gets ``*``; the final point gets ``*`` when an
   opponent's checker stood there before the play and no earlier path of
   this play already put a ``*`` on that point (``8/2* 6/2``).

Hits are judged on the board *before* the play only, exactly as gnubg does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bgnet.errors import IllegalMoveError
from bgnet.position import NUM_SLOTS, OUR_BAR, Board, Position

__all__ = ["format_play", "format_point"]


def format_point(point: int) -> str:
    """A point as gnubg prints it: ``bar`` for 25, ``off`` for 0 (``FormatPoint``)."""
    if point == 0:
        return "off"
    if point == OUR_BAR:
        return "bar"
    return str(point)


def format_play(board: Board | Position, steps: Sequence[tuple[int, int]]) -> str:
    """gnubg's notation for one play (``drawboard.c`` ``FormatMove``).

    Args:
        board: the position *before* the play, from the mover (bgnet's
            convention: the mover's checkers positive, the opponent's
            negative); used only to mark hits.
        steps: up to four (from, to) checker moves in the mover's numbering,
            in any order: from 1..25 (25 = the bar), to 0..24 (0 = off),
            from > to.

    Returns:
        e.g. ``"24/18 13/11*"``, ``"bar/22"``, ``"8/4(2) 6/2(2)"``,
        ``"24/20*/16"``; the empty string for no steps (no legal move), as
        gnubg's ``FormatMove`` gives for an empty move.

    Raises:
        IllegalMoveError: more than four steps or a step out of range.
    """
    b = board.board if isinstance(board, Position) else np.asarray(board)
    if b.shape != (NUM_SLOTS,):
        raise IllegalMoveError(f"a board has {NUM_SLOTS} slots, got shape {b.shape}")
    if len(steps) > 4:
        raise IllegalMoveError(f"a play has at most 4 checker moves, got {len(steps)}")
    moves: list[tuple[int, int]] = []
    for step in steps:
        try:
            src, dst = (int(x) for x in step)
        except (TypeError, ValueError):
            raise IllegalMoveError(f"a checker move is a (from, to) pair, got {step!r}") from None
        if not 1 <= src <= 25 or not 0 <= dst <= 24 or dst >= src:
            raise IllegalMoveError(
                f"checker move {src}/{dst} is out of range: from 1-25 (25 = bar), "
                "to 0-24 (0 = off), moving towards 0"
            )
        moves.append((src, dst))

    def opponent_on(point: int) -> bool:
        return 1 <= point <= 24 and int(b[point]) < 0

    # 1. Decreasing from, then decreasing to.
    moves.sort(key=lambda m: (-m[0], -m[1]))

    # 2. Join the steps of one checker.  paths[i] is [from, kept hits..., to].
    paths = [[src, dst] for src, dst in moves]
    alive = [True] * len(paths)
    for i in range(len(paths)):
        if not alive[i]:
            continue
        for j in range(i + 1, len(paths)):
            if alive[j] and paths[i][-1] == paths[j][0]:
                if opponent_on(paths[i][-1]):
                    paths[i].append(paths[j][-1])
                else:
                    paths[i][-1] = paths[j][-1]
                alive[j] = False
    paths = [p for p, keep in zip(paths, alive, strict=True) if keep]

    # 3. Count identical paths.
    counted: list[tuple[list[int], int]] = []
    for p in paths:
        for k, (q, n) in enumerate(counted):
            if q == p:
                counted[k] = (q, n + 1)
                break
        else:
            counted.append((p, 1))

    # 4. Print.
    marked: set[int] = set()
    parts: list[str] = []
    for p, n in counted:
        text = format_point(p[0])
        for mid in p[1:-1]:
            text += f"/{format_point(mid)}*"
            marked.add(mid)
        dst = p[-1]
        text += f"/{format_point(dst)}"
        if opponent_on(dst) and dst not in marked:
            text += "*"
            marked.add(dst)
        if n > 1:
            text += f"({n})"
        parts.append(text)
    return " ".join(parts)
