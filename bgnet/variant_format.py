"""Variant boards for people: an ASCII drawing, play notation, validation and a position format.

The variant boards of :mod:`bgnet.variants` (52 slots) have no GNUBG ID, so
this module gives them what :mod:`bgnet.position`, :mod:`bgnet.notation`
and :mod:`bgnet.formats` give backgammon boards:

* :func:`draw_variant`: an ASCII board (pins, bars, checkers off, pips and,
  in same-direction games, which way each side moves);
* :func:`legal_variant_plays`, :func:`play_notation`,
  :func:`parse_variant_play`: the legal plays of a roll in gnubg's notation
  (``24/18 13/11*``), with ``^`` marking a pin in plakoto (``8/5^``), and
  the play a person typed;
* :func:`check_variant_board`: whether a board is a legal position of a
  variant;
* :func:`format_variant_position` / :func:`parse_variant_position`: one
  typeable line per position, ``LABEL:POINTS:bar=..:wait=..``
  (``docs/variant-positions.md``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from bgnet.dice import Dice
from bgnet.errors import IllegalMoveError, InvalidPositionError
from bgnet.formats import MatchInfo, Xgid, parse_position
from bgnet.movegen import MoveBatch
from bgnet.notation import WAITING, _dice_left, _paths, format_play, format_point
from bgnet.position import CHECKERS, NUM_SLOTS, frame
from bgnet.variants import (
    CAPTURE_HIT,
    CAPTURE_PIN,
    HOUSE_RULES,
    OUR_WAITING,
    PIN,
    R_CAPTURE,
    THEIR_WAITING,
    VARIANTS,
    VSLOTS,
    Variant,
    widen,
)
from bgnet.variants import variant as variant_of

__all__ = [
    "AGAIN",
    "NO_PLAY",
    "PIN_MARK",
    "TurnPart",
    "VariantPlay",
    "canonical_variant",
    "check_variant_board",
    "check_variant_in_play",
    "draw_variant",
    "format_variant_position",
    "is_variant_text",
    "legal_variant_plays",
    "needs_double",
    "parse_variant_play",
    "parse_variant_position",
    "play_notation",
    "read_variant_position",
    "row_notation",
    "turn_notation",
    "turn_parts",
    "waits",
]

PIN_MARK = "^"
"""The mark of a pin in plakoto's notation (``8/5^``), as ``*`` marks a hit: the checker lands on top."""


def _capture(v: Variant) -> int:
    return int(v.rules[R_CAPTURE])


def _pins(v: Variant) -> bool:
    return _capture(v) == CAPTURE_PIN


def waits(v: Variant) -> bool:
    """Whether ``v``'s checkers start off the board, waiting to enter (acey-deucey): its start says so."""
    return bool(v.start[OUR_WAITING])


def _as_board(board: np.ndarray | Sequence[int]) -> np.ndarray:
    b = np.asarray(board)
    if b.shape != (VSLOTS,):
        raise InvalidPositionError(f"a variant board has {VSLOTS} slots, got shape {b.shape}")
    return b.astype(np.int32)


# --------------------------------------------------------------------------
# Validation
# --------------------------------------------------------------------------


def _counts(b: np.ndarray) -> tuple[int, int]:
    """Checkers still in play: (side on roll, opponent), pinned and waiting ones included."""
    main = b[:26]
    pins = b[PIN + 1 : PIN + 25]
    ours = int(main[main > 0].sum()) + int(pins[pins > 0].sum()) + int(max(b[OUR_WAITING], 0))
    theirs = -int(main[main < 0].sum()) - int(pins[pins < 0].sum()) - int(min(b[THEIR_WAITING], 0))
    return ours, theirs


def check_variant_board(board: np.ndarray | Sequence[int], variant: Variant) -> None:
    """Raise :class:`InvalidPositionError` (one line) unless ``board`` is a legal position of ``variant``.

    The 52 slots can say things no game allows (a pin in backgammon, a
    checker on the bar in fevga); every reader of a typed position calls
    this so that the move generator only ever sees positions of the game.
    """
    b = _as_board(board)
    name = variant.name
    if b[25] < 0:
        raise InvalidPositionError("the opponent's checkers cannot be on our bar (slot 25)")
    if b[0] > 0:
        raise InvalidPositionError("our checkers cannot be on the opponent's bar (slot 0)")
    if b[OUR_WAITING] < 0 or b[THEIR_WAITING] > 0:
        raise InvalidPositionError(
            f"waiting checkers are ours in slot {OUR_WAITING} (>= 0), theirs in slot {THEIR_WAITING} (<= 0)"
        )
    ours, theirs = _counts(b)
    if ours > CHECKERS:
        raise InvalidPositionError(f"the side on roll has {ours} checkers; at most {CHECKERS}")
    if theirs > CHECKERS:
        raise InvalidPositionError(f"the opponent has {theirs} checkers; at most {CHECKERS}")
    if (b[OUR_WAITING] or b[THEIR_WAITING]) and not waits(variant):
        raise InvalidPositionError(f"{name} has no checkers waiting to enter (slots {OUR_WAITING}, 51)")
    for who, waiting, left in (
        ("the side on roll", b[OUR_WAITING], ours),
        ("the opponent", -b[THEIR_WAITING], theirs),
    ):
        if waiting and left < CHECKERS:
            raise InvalidPositionError(
                f"{who} has {int(waiting)} checkers waiting to enter and {CHECKERS - left} borne off; "
                "bearing off needs all 15 entered"
            )
    if (b[25] or b[0]) and _capture(variant) != CAPTURE_HIT:
        raise InvalidPositionError(f"{name} has no hitting, so no checker can be on the bar")
    for p in range(1, 25):
        pin = int(b[PIN + p])
        if pin == 0:
            continue
        if not _pins(variant):
            raise InvalidPositionError(f"{name} has no pins, but point {p} has a pinned checker")
        if abs(pin) > 1:
            raise InvalidPositionError(f"point {p} has {abs(pin)} pinned checkers; a point pins at most one")
        if pin > 0 and b[p] >= 0:
            raise InvalidPositionError(
                f"our checker pinned on point {p} needs the opponent's checkers on top of it"
            )
        if pin < 0 and b[p] <= 0:
            raise InvalidPositionError(
                f"the opponent's checker pinned on point {p} needs our checkers on top of it"
            )


def check_variant_in_play(board: np.ndarray | Sequence[int], variant: Variant) -> None:
    """Raise :class:`InvalidPositionError` if the game of ``board`` is over (a side has borne off all 15).

    As :func:`bgnet.position.check_in_play`: a finished game has no play to list.
    """
    ours, theirs = (int(x[0]) for x in variant.checkers(np.asarray(board)))
    if ours and theirs:
        points = variant.result(np.asarray(board))
        if points == 0:
            raise InvalidPositionError("the game is over: both sides' mothers are pinned (a draw)")
        if points is not None:
            raise InvalidPositionError(
                "the game is over: the side on roll's mother (its last checker on its 24 point) is pinned"
            )
        return
    if not ours and not theirs:
        raise InvalidPositionError("the game is over: neither side has a checker on the board")
    who = "the side on roll" if not ours else "the opponent"
    raise InvalidPositionError(f"the game is over: {who} has borne off all 15 checkers")


# --------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------


def _pips(b: np.ndarray) -> int:
    """Pips of the side on roll: its points, its pinned checkers, bar and waiting checkers count 25."""
    p = np.arange(1, 25)
    on = np.where(b[1:25] > 0, b[1:25], 0) + np.where(b[PIN + 1 : PIN + 25] > 0, 1, 0)
    return int((on * p).sum()) + 25 * int(b[25] + b[OUR_WAITING])


def draw_variant(board: np.ndarray | Sequence[int], variant: Variant) -> str:
    """An ASCII board from the side on roll (X, moving 24 -> 1), like :func:`bgnet.position.draw`.

    A pinned checker is drawn as a lowercase letter at the edge of its
    point, under the stack that pins it (``o`` under ``X X``: one of O's
    pinned by X).
    """
    b = _as_board(board)

    def stack(slot: int) -> list[str]:
        n = int(b[slot])
        top = "X" if n > 0 else "O"
        pin = int(b[PIN + slot])
        under = ["x"] if pin > 0 else ["o"] if pin < 0 else []
        return under + [top] * abs(n)

    def cell(slot: int, row: int) -> str:
        items = stack(slot)
        if row == 4 and len(items) > 5:
            return f"{abs(int(b[slot])):^3d}"
        return f" {items[row]} " if len(items) > row else "   "

    lines = [f" {variant.label}", *frame(cell, -int(b[0]), int(b[25]))]
    if waits(variant):
        # Beside the bars: the checkers not yet entered (they enter as from the bar).
        lines[7] += f", O waiting {-int(b[THEIR_WAITING])}"
        lines[8] += f", X waiting {int(b[OUR_WAITING])}"
    if variant.rotate:
        lines.append(" both move the same way: X 24 -> 13 -> 12 -> 1 -> off; O 12 -> 1 -> 24 -> 13 -> off")
        lines.append(" (O's own point q is X's point (q + 11) % 24 + 1: O's 24 is X's 12)")
    if (b[PIN + 1 : PIN + 25] != 0).any():
        lines.append(" x, o: a checker pinned under the other side's stack")
    ours, theirs = _counts(b)
    px, po = _pips(b), _pips(variant.flip(b.astype(np.int8)).astype(np.int32))
    lines.append(f" X: pips {px}, off {CHECKERS - ours}    O: pips {po}, off {CHECKERS - theirs}")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# Plays and their notation
# --------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnPart:
    """One roll's share of a turn: its dice, its steps and their notation.

    A turn is one part, except an acey-deucey 1-2: the 1 and the 2, then the
    chosen double, then (European rule) its complement to 7.
    """

    dice: tuple[int, int]
    steps: tuple[tuple[int, int], ...]
    notation: str


@dataclass(frozen=True)
class VariantPlay:
    """One legal play (a whole turn) of a variant: its notation, its steps, the result.

    ``row`` is the play's row among the roll's results of ``variant.generate``.
    ``double`` is the double chosen in an acey-deucey 1-2 turn (0: none) and
    ``again`` whether the mover rolls again: then ``position`` is seen by the
    mover, on roll again; otherwise by the opponent.  ``parts`` are the
    turn's rolls one by one (:class:`TurnPart`).
    """

    notation: str
    steps: tuple[tuple[int, int], ...]
    position: np.ndarray = field(compare=False, repr=False)
    row: int = 0
    double: int = 0
    again: bool = False
    parts: tuple[TurnPart, ...] = field(default=(), compare=False, repr=False)

    @cached_property
    def moves(self) -> tuple[int, ...]:
        """How the play changes our checkers per slot (what a typed play is matched on; kept once)."""
        return _delta(self.steps)

    @cached_property
    def hits(self) -> frozenset[int]:
        """The points its notation marks hit (``*``; pins are not needed to tell plays apart)."""
        return frozenset(int(m) for m in _HIT.findall(self.notation))


NO_PLAY = "no play"
"""The notation of a chosen double of which not one step can be played (``6-6: no play``)."""
AGAIN = "rolls again"
"""The end of the notation of a 1-2 turn whose mover rolls again."""


def _dice_pair(dice: Dice | str | Sequence[int]) -> Dice:
    if isinstance(dice, Dice):
        return dice
    if isinstance(dice, str):
        return Dice.parse(dice)
    return Dice.of(*(int(d) for d in dice))


def play_notation(
    variant: Variant, board: np.ndarray | Sequence[int], steps: Sequence[tuple[int, int]]
) -> str:
    """gnubg's notation of a play in ``variant`` (:func:`bgnet.notation.format_play`).

    ``*`` marks a hit in hitting games; in plakoto :data:`PIN_MARK` (``^``)
    marks a pin that the play leaves standing (``8/5^``, ``13/7^(2)``).  A
    checker that lands on a lone opposing checker and moves on in the same
    play frees it again, so that stop is no pin and is not written
    (``13/5``, as gnubg drops a stop that did not hit).  Games without
    captures (fevga, long nardy) have no marks.  A checker entering from
    those waiting (acey-deucey, step source 26) is written ``in/22``.
    """
    b = _as_board(board)
    narrow = b[:NUM_SLOTS].copy()
    if _capture(variant) != CAPTURE_HIT:
        # Marks are judged on the board before the play, as gnubg does; keep an opposing
        # checker there only where the play pins it for good (plakoto).
        ours_after = np.where(narrow > 0, narrow, 0)
        for src, dst in steps:
            if int(src) <= 25:
                ours_after[int(src)] -= 1
            ours_after[int(dst)] += 1
        for p in range(1, 25):
            lone = narrow[p] == -1 and b[PIN + p] == 0
            if narrow[p] < 0 and not (lone and _pins(variant) and ours_after[p] > 0):
                narrow[p] = 0
    text = format_play(narrow, [(int(s), int(d)) for s, d in steps], waiting=waits(variant))
    return text.replace("*", PIN_MARK) if _pins(variant) else text


def _after(board: np.ndarray, steps: Sequence[tuple[int, int]], variant: Variant) -> np.ndarray:
    """The board after ``steps``, still from the mover (the next part of a turn is marked on it)."""
    b = board.astype(np.int32)
    for s, t in steps:
        b[OUR_WAITING if s == WAITING else s] -= 1
        if t > 0:
            if b[t] == -1 and _capture(variant) == CAPTURE_HIT:
                b[t] = 0
                b[0] -= 1
            b[t] += 1
    return b


def turn_parts(
    variant: Variant,
    board: np.ndarray | Sequence[int],
    steps: Sequence[tuple[int, int]],
    dice: Dice | str | Sequence[int],
    double: int = 0,
) -> tuple[TurnPart, ...]:
    """A turn's steps split by roll, each part written on the board it starts from.

    ``double`` (a row's ``MoveBatch.doubles``): the double chosen in a 1-2
    turn; its steps follow the 1 and the 2 (the first two), and the
    complement's (European rule) follow the double's four.
    """
    d = _dice_pair(dice)
    steps = tuple((int(s), int(t)) for s, t in steps)
    if not double:
        split = [((d.high, d.low), steps)]
    else:
        split = [((2, 1), steps[:2]), ((double, double), steps[2:6])]
        if len(steps) > 6:
            split.append(((7 - double, 7 - double), steps[6:]))
    b = _as_board(board)
    parts = []
    for roll_, part in split:
        parts.append(TurnPart(roll_, part, play_notation(variant, b, part)))
        b = _after(b, part, variant)
    return tuple(parts)


def turn_notation(parts: Sequence[TurnPart], again: bool = False) -> str:
    """The notation of a whole turn: a play (``24/18 13/11``), or a 1-2 turn by its parts.

    ``2-1: 13/11 6/5, 6-6: 24/18(2) 13/7(2), rolls again``: each roll of the
    turn with its dice, :data:`NO_PLAY` for a chosen double not one step of
    which can be played, and :data:`AGAIN` when the mover rolls again.
    """
    if len(parts) == 1:
        text = parts[0].notation
    else:
        text = ", ".join(f"{p.dice[0]}-{p.dice[1]}: {p.notation or NO_PLAY}" for p in parts)
    return f"{text}, {AGAIN}" if again else text


def _row_extras(batch: MoveBatch, row: int) -> tuple[int, bool]:
    """The chosen double and the re-roll of a row (0, False in every game but acey-deucey)."""
    doubles = getattr(batch, "doubles", None)
    again = getattr(batch, "again", None)
    return (
        0 if doubles is None else int(doubles[row]),
        False if again is None else bool(again[row]),
    )


def _play_of(variant: Variant, batch: MoveBatch, row: int) -> VariantPlay:
    if batch.boards is None or batch.dice is None:
        raise ValueError("a VariantPlay needs a MoveBatch that holds its inputs (Variant.generate's)")
    i = batch.input_of(row)
    steps = batch.steps_of(row)
    double, again = _row_extras(batch, row)
    parts = turn_parts(variant, batch.boards[i], steps, [int(x) for x in batch.dice[i]], double)
    position = batch.positions[row].copy()
    position.setflags(write=False)
    return VariantPlay(
        turn_notation(parts, again), steps, position, row - int(batch.offsets[i]), double, again, parts
    )


def row_notation(variant: Variant, batch: MoveBatch, row: int) -> str:
    """The notation of result ``row`` of ``batch`` (which holds its inputs): a play or a whole 1-2 turn."""
    return _play_of(variant, batch, row).notation


def legal_variant_plays(
    variant: Variant, board: np.ndarray | Sequence[int], dice: Dice | str | Sequence[int]
) -> list[VariantPlay]:
    """The distinct legal plays of ``dice`` in ``board`` (from the mover; none: a pass), by its generator.

    In acey-deucey a 1-2 gives whole turns (the 1 and the 2, a double, ...).
    """
    b = np.asarray(board, dtype=np.int8)
    d = _dice_pair(dice)
    return plays_of(variant, variant.generate(b[None, :], np.array([[d.high, d.low]])))


def plays_of(variant: Variant, batch: MoveBatch) -> list[VariantPlay]:
    """The plays of a one-input batch already generated (a 1-2 is costly: generate it once)."""
    return [_play_of(variant, batch, row) for row in batch.rows(0)]


_HIT = re.compile(r"(\d+)\*")
"""A point marked hit in a play's notation.  Pins are not looked at: in plakoto where our checkers
end fixes the pins, so the moves alone tell the plays apart."""
_MARKER = re.compile(r"(?<![0-9/])([1-6])-?([1-6])\s*:")
"""The dice before a part of a typed turn: ``2-1:``, ``6-6:`` (or ``66:``)."""
_AGAIN_SAID = re.compile(r"[\s,]*(?:rolls\s+)?again\s*$", re.IGNORECASE)
_EMPTY = re.compile(r"[\s,]*(?:no\s+play|none|-)?[\s,]*", re.IGNORECASE)


def _delta(strokes: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    """How a play changes our checkers per slot (0 = off, 25 = bar, 26 = waiting): what a typed play fixes."""
    d = [0] * (WAITING + 1)
    for a, c in strokes:
        d[a] -= 1
        d[c] += 1
    return tuple(d)


@dataclass(frozen=True)
class _Typed:
    """One part of a typed turn: its dice (None: not written) and its checker paths."""

    dice: tuple[int, int] | None
    paths: list[list[int]]

    @property
    def strokes(self) -> list[tuple[int, int]]:
        return [(a, c) for path in self.paths for a, c in zip(path, path[1:], strict=False)]


def _same_roll(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return sorted(a) == sorted(b)


MAX_TURN_STEPS = 10
"""The most steps of one turn: an acey-deucey 1-2 under the European rule (2 + 4 + 4)."""


def _typed_parts(said: str, roll_: tuple[int, int], turns: bool) -> list[_Typed]:
    """The parts of a typed turn (one for a plain play); a malformed text raises IllegalMoveError.

    ``roll_`` is the roll (a leading ``2-1:`` may repeat it); ``turns``:
    whether this roll's plays are 1-2 turns with a double.
    """
    pieces = _MARKER.split(said)
    head = pieces[0]
    marks = [(int(pieces[i]), int(pieces[i + 1]), pieces[i + 2]) for i in range(1, len(pieces), 3)]
    most = MAX_TURN_STEPS if turns else 4
    if not marks:
        return [_Typed(None, _paths(head, waiting=True, most=most))]
    if _EMPTY.fullmatch(head):
        a, b, text = marks.pop(0)
        if not _same_roll((a, b), roll_):
            raise IllegalMoveError(f"{said!r}: the roll is {roll_[0]}-{roll_[1]}, not {a}-{b}")
        head = text
    parts = [_Typed(roll_, _paths(head, waiting=True))]
    if marks and not turns:
        raise IllegalMoveError(
            f"{said!r}: only a 1-2 in acey-deucey is played in parts (2-1: ..., 6-6: ...); "
            "write this roll's play alone, like 24/18 13/11"
        )
    for k, (a, b, text) in enumerate(marks):
        if a != b:
            raise IllegalMoveError(
                f"{said!r}: {a}-{b} is not a double; after the 1 and the 2 comes the double you choose, "
                "like 2-1: 13/11 6/5, 6-6: 24/18(2) 13/7(2)"
            )
        if k > 1:
            raise IllegalMoveError(
                f"{said!r}: a 1-2 turn has at most three parts (2-1, a double, its complement to 7)"
            )
        if k == 1 and a != 7 - marks[0][0]:
            first = marks[0][0]
            raise IllegalMoveError(
                f"{said!r}: after {first}-{first} comes its complement to 7, {7 - first}-{7 - first} "
                "(the European 1-2 rule)"
            )
        parts.append(_Typed((a, b), [] if _EMPTY.fullmatch(text) else _paths(text, waiting=True)))
    return parts


def _check_part_dice(said: str, parts: Sequence[_Typed]) -> None:
    """Each typed part of a 1-2 turn must be made by its own dice, all of them before the next part.

    Only the dice are looked at (the board is the legal turns' business):
    ``5-5: in/19`` cannot be, and a double after a 1-2 played in part cannot.
    """
    for k, part in enumerate(parts):
        if not part.paths:
            continue
        dice = part.dice or (2, 1)
        values = (dice[0],) * 4 if dice[0] == dice[1] else tuple(dice)
        # An entering checker moves from the bar's distance: die n enters on point 25 - n.
        left = _dice_left([(min(a, 25), c) for a, c in part.strokes], values)
        text = f"{dice[0]}-{dice[1]}"
        if left is None:
            moves = " ".join("/".join(format_point(x) for x in path) for path in part.paths)
            raise IllegalMoveError(f"{said!r}: {text} cannot make {moves}")
        if left and k + 1 < len(parts) and parts[k + 1].paths:
            raise IllegalMoveError(
                f"{said!r}: {text} is not played in full, so the turn ends there and no double follows"
            )


def parse_variant_play(text: str, plays: Sequence[VariantPlay]) -> VariantPlay:
    """The play of ``plays`` (a roll's :func:`legal_variant_plays`) that ``text`` describes.

    Accepts what :func:`play_notation` writes and what people type, as
    :func:`bgnet.notation.parse_play` does (its reader of the text is
    reused): ``24/18 13/11``, parts in any order, one checker through its
    stops ``24/18/13`` or in one stroke ``24/13``, ``13/11(2)``, ``bar/22``
    (or ``25/22``), ``in/22`` (acey-deucey: a checker entering from those
    waiting), ``6/off`` (or ``6/0``), marks ``*`` and ``^`` optional.
    A play matches when it moves our checkers as the text does and captures
    every opposing checker the text stops on (hitting games); when several
    do, the one hitting exactly those.

    An acey-deucey 1-2 turn is typed as :func:`turn_notation` writes it:
    ``2-1: 13/11 6/5, 6-6: 24/18(2) 13/7(2)`` (``2-1:`` may be left out,
    ``66:`` for ``6-6:``, ``, rolls again`` optional, ``6-6: no play`` for
    a double of which nothing can be played; European: ``..., 1-1: ...``
    after ``6-6``), or as all its moves without the dice.  The turn is the
    legal one that ends where the moves do (turns that end alike are one
    result of the generator); each typed part must be made by its own dice.

    Raises:
        IllegalMoveError: text that is not a play, or no legal play (or
            more than one) that fits it; the message names the problem.
    """
    said = text.strip()
    if not plays:
        raise IllegalMoveError(f"{said!r} cannot be played: this roll has no legal play (you pass)")
    turns = any(p.double for p in plays)
    roll_ = (2, 1) if turns else plays[0].parts[0].dice if plays[0].parts else (0, 0)
    plain = said.replace(PIN_MARK, "*")
    body = _AGAIN_SAID.sub("", plain)
    said_again = body != plain
    typed = _typed_parts(body, roll_, turns)
    if len(typed) > 1:
        _check_part_dice(said, typed)
    strokes = [s for part in typed for s in part.strokes]
    want = _delta(strokes)
    stops = {p for part in typed for path in part.paths for p in path[1:] if p > 0}
    marks = [p.hits for p in plays]
    capturable = set().union(*marks)
    must = stops & capturable
    same = [i for i, p in enumerate(plays) if p.moves == want]
    fits = [i for i in same if must <= marks[i]]
    if len(typed) > 1 and any(part.paths for part in typed[1:]):
        fits = [i for i in fits if plays[i].double]
    if said_again:
        fits = [i for i in fits if plays[i].again] or fits
    if len(fits) > 1:
        exact = [i for i in fits if marks[i] == must]
        if len(exact) == 1:
            fits = exact
        else:
            options = " or ".join(plays[i].notation for i in fits)
            raise IllegalMoveError(f"{said!r} is ambiguous: it could be {options}; write the stops")
    if fits:
        chosen = plays[fits[0]]
        if said_again and not chosen.again:
            raise IllegalMoveError(f"{said!r}: that turn ({chosen.notation}) does not roll again")
        return chosen
    examples = ", ".join(p.notation for p in plays[:3]) + (", ..." if len(plays) > 3 else "")
    if same:
        raise IllegalMoveError(
            f"{said!r} is not legal: no legal play makes those moves hitting on "
            f"{', '.join(map(str, sorted(must)))}; legal plays include {examples}"
        )
    if len(typed) == 3 and not any(len(p.parts) == 3 for p in plays):
        raise IllegalMoveError(
            f"{said!r}: in this game the double has no complement part (that is the house rule +european-1-2)"
        )
    if len(typed) > 1 and typed[1].paths:
        d = typed[1].dice[0] if typed[1].dice else 0
        played = 4 - (_dice_left([(min(a, 25), c) for a, c in typed[1].strokes], (d,) * 4) or 0)
        if any(p.double == d and len(p.parts) > 1 and len(p.parts[1].steps) > played for p in plays):
            raise IllegalMoveError(
                f"{said!r} is incomplete: {d}-{d} must be played four times when it can be "
                "(as many as can be)"
            )
    if turns and len(typed) == 1 and needs_double(body, plays):
        example = next(p.notation for p in plays if p.double)
        raise IllegalMoveError(
            f"{said!r} is incomplete: after the 1 and the 2 choose a double and play it, like {example}"
        )
    pips = sum(min(a, 25) - c for a, c in strokes)
    if pips < min(sum(min(f, 25) - t for f, t in p.steps) for p in plays):
        raise IllegalMoveError(
            f"{said!r} is incomplete: the roll must be played in full when it can be; legal plays include "
            f"{examples}"
        )
    raise IllegalMoveError(f"{said!r} is not a legal play of this roll; legal plays include {examples}")


def needs_double(text: str, plays: Sequence[VariantPlay]) -> bool:
    """Whether ``text`` is the 1 and the 2 of an acey-deucey 1-2 alone, with a double to choose next.

    True when the roll's plays are 1-2 turns, ``text`` has no double part,
    its moves use the 1 and the 2 in full, and some legal turn goes on
    with a double after them.  ``bgnet play`` then asks for the double.
    """
    if not any(p.double for p in plays):
        return False
    try:
        typed = _typed_parts(_AGAIN_SAID.sub("", text.strip().replace(PIN_MARK, "*")), (2, 1), True)
    except IllegalMoveError:
        return False
    if len(typed) != 1:
        return False
    strokes = [(min(a, 25), c) for a, c in typed[0].strokes]
    if _dice_left(strokes, (2, 1)) != 0:
        return False
    return any(p.double and len(p.parts) > 1 and p.parts[1].steps for p in plays)


# --------------------------------------------------------------------------
# The position format
# --------------------------------------------------------------------------

_FIELD = re.compile(r"([+-]?[0-9]{1,2})(p?)")
_LABEL = re.compile(r"[a-z][a-z-]*(?:\+[a-z0-9-]*)*")


def canonical_variant(v: Variant) -> Variant:
    """``v`` with its house rules in the order of :data:`bgnet.variants.HOUSE_RULES`.

    ``backgammon+no-forced-max+no-cube`` and ``backgammon+no-cube+no-forced-max``
    are one game; the position format writes it one way.
    """
    out = variant_of(v.name)
    for rule in HOUSE_RULES:
        if rule in v.house:
            out = out.with_house(rule)
    return out


def _backgammon_board(v: Variant) -> bool:
    """Whether a backgammon board (a GNUBG ID or XGID) can be a position of ``v``: hitting, opposite ways."""
    return not v.rotate and _capture(v) == CAPTURE_HIT


def format_variant_position(board: np.ndarray | Sequence[int], variant: Variant) -> str:
    """The one written form of a variant position: ``LABEL:POINTS:bar=OURS,THEIRS:wait=OURS,THEIRS``.

    POINTS are the 24 points from the side on roll (1 first), quarters
    separated by ``/`` and points by ``,``: our checkers positive, the
    opponent's negative, and ``p`` after a count whose stack pins one of
    the other side's checkers (``3p``: three of ours on one of theirs;
    ``-1p``: one of theirs on one of ours).  See ``docs/variant-positions.md``.

    Raises:
        InvalidPositionError: a board :func:`check_variant_board` rejects.
    """
    check_variant_board(board, variant)
    b = _as_board(board)
    fields = [f"{int(b[p])}{'p' if b[PIN + p] else ''}" for p in range(1, 25)]
    points = "/".join(",".join(fields[q : q + 6]) for q in range(0, 24, 6))
    return (
        f"{canonical_variant(variant).label}:{points}"
        f":bar={int(b[25])},{-int(b[0])}:wait={int(b[OUR_WAITING])},{-int(b[THEIR_WAITING])}"
    )


def _pair(section: str, key: str, text: str) -> tuple[int, int]:
    values = section[len(key) + 1 :].split(",")
    if len(values) != 2 or not all(x.isdigit() and len(x) <= 2 for x in values):
        raise InvalidPositionError(
            f"{text!r}: {section!r} should be {key}=OURS,THEIRS with two counts 0-15, like {key}=1,0"
        )
    a, b = int(values[0]), int(values[1])
    if max(a, b) > CHECKERS:
        raise InvalidPositionError(f"{text!r}: {section!r} has more than {CHECKERS} checkers")
    return a, b


def _parse_variant_text(text: str) -> tuple[Variant, np.ndarray]:
    """``LABEL:POINTS[:bar=A,B][:wait=C,D]`` (``bar`` and ``wait`` default to none)."""
    label, *sections = text.split(":")
    v = canonical_variant(variant_of(label))
    if not sections or not sections[0]:
        raise InvalidPositionError(
            f"{text!r}: give the 24 points after the variant, like {format_variant_position(v.start, v)}"
        )
    fields = re.split(r"[,/]", sections[0])
    if len(fields) != 24:
        raise InvalidPositionError(
            f"{text!r}: the points part has {len(fields)} points; write all 24, 1 to 24 of the side on roll"
        )
    b = np.zeros(VSLOTS, dtype=np.int8)
    for p, f in enumerate(fields, 1):
        m = _FIELD.fullmatch(f.lower())
        if not m:
            raise InvalidPositionError(
                f"{text!r}: point {p} is {f!r}; write a count (ours positive, theirs negative), "
                "with p after it for a stack that pins a checker (3p, -1p)"
            )
        n = int(m.group(1))
        if abs(n) > CHECKERS:
            raise InvalidPositionError(f"{text!r}: point {p} has {abs(n)} checkers; at most {CHECKERS}")
        if m.group(2):
            if n == 0:
                raise InvalidPositionError(
                    f"{text!r}: point {p} is 0p; a pinned checker needs a stack on top"
                )
            b[PIN + p] = -1 if n > 0 else 1
        b[p] = n
    seen: set[str] = set()
    for section in sections[1:]:
        key = section.split("=", 1)[0].lower()
        if key not in ("bar", "wait") or "=" not in section:
            raise InvalidPositionError(
                f"{text!r}: {section!r} is not understood; after the points come bar=OURS,THEIRS "
                "and wait=OURS,THEIRS"
            )
        if key in seen:
            raise InvalidPositionError(f"{text!r}: {key}= is given twice")
        seen.add(key)
        ours, theirs = _pair(section.lower(), key, text)
        if key == "bar":
            b[25], b[0] = ours, -theirs
        else:
            b[OUR_WAITING], b[THEIR_WAITING] = ours, -theirs
    try:
        check_variant_board(b, v)
    except InvalidPositionError as e:
        raise InvalidPositionError(f"{text!r} is not a {v.label} position: {e}") from None
    return v, b


def is_variant_text(text: str) -> bool:
    """Whether ``text`` is written in the variant format (``LABEL:...``), not a GNUBG ID or XGID.

    A label is letters and ``+house-rules``; a ``positionid:matchid`` pair
    can look like one only if its 14-character Position ID is all letters,
    which no label of ours is without a known game name.
    """
    s = text.strip()
    head = s.split(":", 1)[0].lower()
    return ":" in s and bool(_LABEL.fullmatch(head)) and (head.split("+")[0] in VARIANTS or len(head) != 14)


def read_variant_position(
    text: str, expected: Variant | None = None
) -> tuple[Variant, np.ndarray, Xgid | MatchInfo | None]:
    """A variant position, its variant, and the XGID or Match ID it came with (for their dice).

    ``text`` is the format of :func:`format_variant_position`, or for a
    backgammon board (backgammon, nackgammon, portes, tavla) a GNUBG
    Position ID, ``positionid:matchid`` or XGID
    (:func:`bgnet.formats.parse_position`).  ``expected``: the variant the
    caller plays (a position of another variant is an error); a GNUBG ID or
    XGID is a position of it (default backgammon).

    Raises:
        InvalidPositionError: malformed text, an unknown variant, a position
            of another variant than ``expected`` or one illegal in its variant.
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"a variant position is a string, got {type(text).__name__}")
    s = text.strip()
    if any(c.isspace() for c in s):
        raise InvalidPositionError(f"{s!r}: a position is one word, without spaces")
    if not s:
        raise InvalidPositionError("no position given: write LABEL:POINTS:bar=..:wait=.. or a GNUBG ID/XGID")
    want = canonical_variant(expected) if expected is not None else None
    if is_variant_text(s):
        v, b = _parse_variant_text(s)
        if want is not None and v.label != want.label:
            raise InvalidPositionError(f"{s!r} is a {v.label} position, but the variant is {want.label}")
        b.setflags(write=False)
        return v, b, None
    v = want if want is not None else VARIANTS["backgammon"]
    if not _backgammon_board(v):
        raise InvalidPositionError(
            f"{s!r}: a {v.name} position is written {v.name}:POINTS:bar=..:wait=..; GNUBG IDs and XGIDs "
            "are for backgammon boards (backgammon, nackgammon, portes, tavla)"
        )
    try:
        position, info = parse_position(s)
    except InvalidPositionError as e:
        raise InvalidPositionError(
            f"{e} (or a variant position: LABEL:POINTS:bar=OURS,THEIRS:wait=OURS,THEIRS)"
        ) from None
    b = widen(position.board)
    check_variant_board(b, v)
    b.setflags(write=False)
    return v, b, info


def parse_variant_position(text: str, expected: Variant | None = None) -> tuple[Variant, np.ndarray]:
    """The variant and board (52 slots, read-only) of a position written as :func:`format_variant_position`.

    A GNUBG Position ID or XGID is read as a backgammon board (of
    ``expected`` when given, which must be a backgammon-family game); see
    :func:`read_variant_position`.  ``parse_variant_position(format_variant_position(b, v))``
    gives back ``v`` (its house rules in canonical order) and ``b``.
    """
    v, b, _info = read_variant_position(text, expected)
    return v, b
