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

:func:`parse_play` reads a typed play (gnubg's notation and the shorthands
people type: ``13/7/5``, ``24/13``, ``*`` optional, ``25``/``0`` for bar/off)
and returns the legal play it describes, or raises
:class:`~bgnet.errors.IllegalMoveError` saying why it is illegal, incomplete
or ambiguous.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

import numpy as np

from bgnet.dice import Dice
from bgnet.errors import IllegalMoveError
from bgnet.movegen import MoveBatch, Play, generate
from bgnet.position import CHECKERS, NUM_SLOTS, OUR_BAR, Board, Position

__all__ = ["WAITING", "format_play", "format_point", "legal_plays", "parse_play", "parse_point", "play_of"]

WAITING = 26
"""The source of a step that enters a checker not yet in play (acey-deucey), written ``in``: ``in/22``."""


def play_of(batch: MoveBatch, row: int) -> Play:
    """The :class:`~bgnet.movegen.Play` of result ``row`` of ``batch`` (which must hold its inputs)."""
    if batch.boards is None:
        raise ValueError("play_of needs a MoveBatch that holds its inputs (bgnet.movegen.generate's)")
    steps = batch.steps_of(row)
    before = batch.boards[batch.input_of(row)]
    return Play(format_play(before, steps), steps, Position(batch.positions[row], validate=False))


def legal_plays(position: Position | Board, dice: Dice) -> list[Play]:
    """The distinct legal plays of ``dice`` in ``position`` (from the mover; empty when none)."""
    board = position.board if isinstance(position, Position) else np.asarray(position, dtype=np.int8)
    batch = generate(board[None, :], np.array([[dice.high, dice.low]]))
    return [play_of(batch, row) for row in batch.rows(0)]


def format_point(point: int) -> str:
    """A point as gnubg prints it: ``bar`` for 25, ``off`` for 0 (``FormatPoint``), ``in`` for 26."""
    if point == 0:
        return "off"
    if point == OUR_BAR:
        return "bar"
    if point == WAITING:
        return "in"
    return str(point)


def format_play(board: Board | Position, steps: Sequence[tuple[int, int]], waiting: bool = False) -> str:
    """gnubg's notation for one play (``drawboard.c`` ``FormatMove``).

    Args:
        board: the position *before* the play, from the mover (bgnet's
            convention: the mover's checkers positive, the opponent's
            negative); used only to mark hits.
        steps: up to four (from, to) checker moves in the mover's numbering,
            in any order: from 1..25 (25 = the bar), to 0..24 (0 = off),
            from > to.
        waiting: a game whose checkers wait to enter (acey-deucey): a step
            may come from 26 (:data:`WAITING`), written ``in``.

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
        if not 1 <= src <= (WAITING if waiting else OUR_BAR) or not 0 <= dst <= 24 or dst >= src:
            sources = "1-26 (25 = bar, 26 = in)" if waiting else "1-25 (25 = bar)"
            raise IllegalMoveError(
                f"checker move {src}/{dst} is out of range: from {sources}, "
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


# --------------------------------------------------------------------------
# Reading a typed play
# --------------------------------------------------------------------------

_POINT_WORDS = {"bar": OUR_BAR, "b": OUR_BAR, "off": 0, "o": 0}
_PART = re.compile(r"([0-9a-z*]+(?:/[0-9a-z*]+)+)(?:\(([0-9]+)\))?")


def parse_point(text: str, waiting: bool = False) -> int:
    """A point of a typed play: ``1``-``24``, ``bar`` (or ``b``, ``25``), ``off`` (or ``o``, ``0``).

    With ``waiting`` (a game whose checkers wait to enter: acey-deucey)
    also ``in`` (or ``26``, :data:`WAITING`).  A trailing ``*`` (hit mark) is allowed
    and ignored.  Raises :class:`IllegalMoveError` for anything else.
    """
    word = text.strip().lower().rstrip("*")
    if word in _POINT_WORDS:
        return _POINT_WORDS[word]
    if waiting and word in ("in", str(WAITING)):
        return WAITING
    if word.isdigit() and len(word) <= 2 and 0 <= int(word) <= 25:
        return int(word)
    raise IllegalMoveError(f"{text!r} is not a point: use 1-24, bar{', in' if waiting else ''} or off")


def _paths(text: str, waiting: bool = False, most: int = 4) -> list[list[int]]:
    """The checker paths written in ``text``: ``8/5(2) 13/7/5`` -> [[8, 5], [8, 5], [13, 7, 5]].

    ``waiting``: ``in`` is a source (:func:`parse_point`).  At most ``most``
    checker moves: four for one roll, ten for a whole acey-deucey 1-2 turn.
    """
    parts = text.strip().lower().replace(",", " ").split()
    if not parts:
        raise IllegalMoveError("no play given: type one like 24/18 13/11, bar/22 or 6/off")
    paths: list[list[int]] = []
    for part in parts:
        m = _PART.fullmatch(part)
        if not m:
            raise IllegalMoveError(
                f"{part!r} is not a checker move: write from/to like 24/18, bar/22, 6/off, 8/5(2) or 13/7/5"
            )
        try:
            points = [parse_point(t, waiting) for t in m.group(1).split("/")]
        except IllegalMoveError as e:
            raise IllegalMoveError(f"{part!r}: {e}") from None
        count = int(m.group(2)) if m.group(2) else 1
        if not 1 <= count <= 4:
            raise IllegalMoveError(f"{part!r}: a checker move is repeated 1 to 4 times, not {count}")
        for a, b in zip(points, points[1:], strict=False):
            if a == 0:
                raise IllegalMoveError(f"{part!r}: a checker cannot move from off the board")
            if b == OUR_BAR:
                raise IllegalMoveError(f"{part!r}: a checker cannot move to the bar")
            if b == WAITING:
                raise IllegalMoveError(f"{part!r}: a checker cannot go back to those waiting to enter")
            if b >= a:
                raise IllegalMoveError(
                    f"{part!r}: {format_point(a)}/{format_point(b)} moves away from home; "
                    "points count down towards your home board (24 ... 1, then off)"
                )
        paths.extend([points] * count)
    if len(paths) > most:
        what = "a roll" if most == 4 else "a turn"
        raise IllegalMoveError(f"{text.strip()!r} moves {len(paths)} checkers; {what} moves at most {most}")
    return paths


def _dice_left(strokes: list[tuple[int, int]], dice: tuple[int, ...]) -> int | None:
    """The most dice a play of these strokes can leave unused, or None if the dice cannot make them.

    A stroke ``(from, to)`` takes one or more dice that sum to its length;
    one that bears off (``to`` = 0) may overshoot with its last die.  Only
    the dice are looked at (not the board): a typed play that some of the
    dice make is incomplete, one that no way of playing the dice makes is
    not a play of this roll at all.
    """
    if not strokes:
        return len(dice)
    (a, c), rest = strokes[0], strokes[1:]
    length = a - c
    best = None
    seen = set()
    for k in range(1, len(dice) + 1):
        for idx in itertools.combinations(range(len(dice)), k):
            used = tuple(sorted(dice[i] for i in idx))
            if used in seen:
                continue
            seen.add(used)
            total = sum(used)
            if total == length or (c == 0 and total > length and total - max(used) < length):
                others = list(dice)
                for d in used:
                    others.remove(d)
                left = _dice_left(rest, tuple(others))
                if left is not None and (best is None or left > best):
                    best = left
    return best


def _own_side(board: np.ndarray) -> np.ndarray:
    """Our checkers per slot 1..25 and off (slot 0): the part of a position a play fully determines."""
    ours = np.where(board > 0, board, 0).astype(np.int16)
    ours[0] = CHECKERS - int(ours[1:].sum())
    return ours


def _hits(before: np.ndarray, after_from_mover: np.ndarray) -> frozenset[int]:
    """Points where an opposing blot stood before the play and is gone after it."""
    return frozenset(p for p in range(1, 25) if before[p] == -1 and after_from_mover[p] >= 0)


def parse_play(board: Board | Position, dice, text: str):
    """The legal play of ``dice`` that ``text`` (gnubg notation) describes.

    Accepts what gnubg prints and what people type: ``24/18 13/11``,
    ``bar/22`` (or ``25/22``), ``6/off`` (or ``6/0``), ``8/5(2)``, one checker
    through its stops ``13/7/5`` or in one stroke ``24/13``, hit marks
    ``*`` optional, parts in any order, commas or spaces between them.

    The text is matched against the legal plays (:func:`legal_plays`)
    by the position it leaves: a play matches when it puts our checkers
    where the text does and hits every blot the text lands on (the final
    points and the stops written out).  One checker moved in one stroke
    (``24/13``) may pass a blot on the way: if one legal play makes the
    move without hitting, it is that play (as gnubg writes it); if the only
    ways hit, the one way is taken; if several ways hit different blots the
    text is ambiguous.

    Args:
        board: the position before the play, from the mover (bgnet's convention).
        dice: a :class:`bgnet.dice.Dice`, a pair like ``(6, 5)`` or text like ``"65"``.
        text: the typed play.

    Returns:
        The :class:`bgnet.movegen.Play` (notation, steps, result seen by the opponent).

    Raises:
        IllegalMoveError: with a message for the person: not notation, a
            checker that is not there, a blocked point, a play that does not
            use the dice as the rules require (incomplete), one that is not
            legal, or one that fits several legal plays (ambiguous).
    """
    pos = board if isinstance(board, Position) else Position(np.asarray(board, dtype=np.int8))
    b = pos.board
    if isinstance(dice, str):
        dice = Dice.parse(dice)
    elif not isinstance(dice, Dice):
        dice = Dice.of(*(int(d) for d in dice))
    roll = f"{dice.high}-{dice.low}"
    batch = generate(b[None, :], np.array([[dice.high, dice.low]]))
    results = batch.positions[batch.offsets[0] : batch.offsets[1]]
    steps = [tuple((int(f), int(t)) for f, t in st if f >= 0) for st in batch.steps[: len(results)]]

    def play(row: int) -> Play:
        return Play(format_play(b, steps[row]), steps[row], Position(results[row], validate=False))

    paths = _paths(text)
    if not len(results):
        raise IllegalMoveError(f"{roll} has no legal play here: you cannot move")

    # Move our checkers as written (opposing checkers ignored), higher points first (as gnubg
    # orders a play), so that the parts may come in any order.
    strokes = sorted(
        ((a, c) for path in paths for a, c in zip(path, path[1:], strict=False)), key=lambda s: -s[0]
    )
    mine = _own_side(b)
    landed: set[int] = set()
    for a, c in strokes:
        if mine[a] <= 0:
            where = "on the bar" if a == OUR_BAR else f"on {format_point(a)}"
            raise IllegalMoveError(
                f"you have no checker {where} to move ({format_point(a)}/{format_point(c)})"
            )
        if c > 0 and b[c] <= -2:
            raise IllegalMoveError(f"point {c} is blocked: your opponent has {-int(b[c])} checkers there")
        mine[a] -= 1
        mine[c] += 1
        if c > 0:
            landed.add(c)
    off = [a for a, c in strokes if c == 0]
    if off and mine[7:].sum() > 0:
        raise IllegalMoveError(
            f"you cannot bear off ({format_point(off[0])}/off) until all your checkers are in your home board"
        )
    must_hit = frozenset(p for p in landed if b[p] == -1)

    # Our side of every result, and where it hit (vectorised over the results).
    after = -results[:, ::-1].astype(np.int16)  # back to the mover's view
    ours = np.where(after > 0, after, 0)
    ours[:, 0] = CHECKERS - ours[:, 1:].sum(axis=1)
    same = np.flatnonzero((ours == mine).all(axis=1))
    matches = []
    for row in same:
        hits = _hits(b, after[row])
        if must_hit <= hits:
            matches.append((int(row), hits))
    if len(matches) == 1:
        return play(matches[0][0])
    if len(matches) > 1:
        exact = [row for row, hits in matches if hits == must_hit]
        if len(exact) == 1:
            return play(exact[0])
        options = " or ".join(play(row).notation for row, _ in matches)
        raise IllegalMoveError(
            f"{text.strip()!r} is ambiguous with {roll}: it could be {options}; write the stops"
        )

    # No legal play puts the checkers there: say why.
    said = text.strip()
    example = play(0).notation
    if b[OUR_BAR] > 0 and not any(path[0] == OUR_BAR for path in paths):
        raise IllegalMoveError(
            f"{said!r} is not legal: you have a checker on the bar and must enter it first "
            f"(legal plays include {example})"
        )
    dice_values = (dice.high,) * 4 if dice.high == dice.low else (dice.high, dice.low)
    left = _dice_left(strokes, dice_values)
    if left is None:
        raise IllegalMoveError(
            f"{said!r} is not a legal play of {roll}: the dice do not make those moves; "
            f"legal plays include {example}"
        )
    pips = sum(path[0] - path[-1] for path in paths)
    least = min(sum(f - t for f, t in st) for st in steps)
    if left > 0 and pips < least:
        most = max(len(st) for st in steps)
        raise IllegalMoveError(
            f"{said!r} is incomplete: {roll} must be played in full when it can be "
            f"({most} checker move{'s' if most > 1 else ''} here); for example {example}"
        )
    raise IllegalMoveError(f"{said!r} is not a legal play of {roll}; legal plays include {example}")
