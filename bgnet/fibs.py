"""FIBS ``board:`` lines, as GNU Backgammon's external-player interface sends them.

A ``board:`` line (FIBS "boardstyle 3", the First Internet Backgammon
Server's client protocol, and what gnubg writes to an external player) is 53
fields separated by ``:``::

    board:NAME:OPPONENT:LENGTH:SCORE:OPP_SCORE:B0:B1:...:B25:TURN:D1:D2:OD1:OD2:
    CUBE:MAY_DOUBLE:OPP_MAY_DOUBLE:WAS_DOUBLED:COLOUR:DIRECTION:HOME:BAR:
    ON_HOME:OPP_ON_HOME:ON_BAR:OPP_ON_BAR:CAN_MOVE:FORCED_MOVE:DID_CRAWFORD:REDOUBLES

Meaning of the fields (FIBS client protocol, "board state"; gnubg
``drawboard.c`` ``FIBSBoard`` writes them and its ``ProcessFIBSBoardInfo``
reads them):

* ``B0..B25``: 26 numbers; a checker count per slot, positive for one side
  (``O``) and negative for the other (``X``).  Slots 1..24 are the points;
  slots 0 and 25 hold the checkers on the bar (gnubg writes them signed too).
* ``COLOUR``: the sign of the "player"'s checkers (the side named first).
* ``DIRECTION``: -1 when the player moves from slot 24 to slot 1 (its home is
  slot 0 and its bar slot 25, the ``HOME`` and ``BAR`` fields), +1 the
  other way round.  The opponent moves the other way; so a side moving with
  direction -1 numbers its points like the slots, the other as ``25 - slot``.
* ``TURN``: the sign (colour) of the side on roll; 0 when the game is over.
* ``D1 D2`` / ``OD1 OD2``: the player's / opponent's dice, 0 before the roll.
* ``CUBE``: the cube's value; ``MAY_DOUBLE`` / ``OPP_MAY_DOUBLE``: 1 while
  that side may double (both 1: the cube is centred; one: that side owns it).
* ``WAS_DOUBLED``: non-zero when the side on roll has just doubled and the
  other side must take or drop (gnubg: ``CUBE`` is still the value before
  the double).
* ``DID_CRAWFORD`` / ``REDOUBLES``: in FIBS, whether the Crawford game was
  played and the redouble limit; gnubg reads the last two fields as the
  "post-Crawford" and "non-Crawford" flags: with a side at 1-away, both 0
  means this is the Crawford game.

What gnubg 1.07.001 (Debian package ``gnubg``) sends to an external player
(``set player N external host:port``): one line per decision, ending in a
newline and a NUL byte; seen in its ``play.c`` (``ComputerTurn``,
``PLAYER_EXTERNAL``) and checked against the real program (the lines in
``tests/test_fibs.py`` were captured from it):

* the board is always seen from gnubg's player 1: its checkers positive,
  ``COLOUR`` 1, ``DIRECTION`` -1, ``HOME`` 0, ``BAR`` 25; ``TURN`` is 1
  when player 1 is on roll, -1 when player 0 is;
* the names and scores are those of gnubg's player 0 then player 1, except
  while a double is pending, when they are player 1's then player 0's
  (``ap[fTurn ^ fMove]``): they do *not* follow ``COLOUR`` as FIBS's do;
* the dice are given twice (player's and opponent's fields alike); gnubg
  rolls for the external player itself whenever it may not double (the
  Crawford game, a cube it does not own, a dead cube), so the dice are 0
  only when the side on roll may double;
* ``ON_BAR``, ``OPP_ON_BAR``, ``CAN_MOVE``, ``FORCED_MOVE`` are 0;
  ``DID_CRAWFORD`` is 1 in post-Crawford games and ``REDOUBLES`` is 0 in
  the Crawford game, 1 otherwise.

The external player answers one line: a play in gnubg notation (an empty
line when there is none), ``roll`` or ``double`` before the roll, ``take``,
``drop`` or ``beaver`` when doubled.  gnubg does not check a play it is sent.

:func:`parse_board` / :func:`format_board` read and write the raw fields;
:func:`decision` turns a line into what must be decided, in bgnet's
convention (the board from the side on roll); :func:`gnubg_line` writes the
line gnubg would send for a game state (for tests and for clients).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Literal

import numpy as np

from bgnet.dice import Dice
from bgnet.errors import BgnetError
from bgnet.match import CubeOwner, CubeState, MatchState
from bgnet.position import CHECKERS, NUM_SLOTS, Position, check_board, flip

__all__ = [
    "Decision",
    "FibsBoard",
    "FibsError",
    "decision",
    "format_board",
    "gnubg_line",
    "parse_board",
]

PREFIX = "board:"
NUM_FIELDS = 53  # "board" and 52 values


class FibsError(BgnetError):
    """A ``board:`` line that is malformed or describes an impossible state."""


@dataclass(frozen=True)
class FibsBoard:
    """The 52 values of a ``board:`` line, field for field (see the module docstring)."""

    player: str
    opponent: str
    match_length: int
    player_score: int
    opponent_score: int
    board: tuple[int, ...]
    turn: int
    player_dice: tuple[int, int]
    opponent_dice: tuple[int, int]
    cube: int
    player_may_double: int
    opponent_may_double: int
    was_doubled: int
    colour: int
    direction: int
    home: int
    bar: int
    player_on_home: int
    opponent_on_home: int
    player_on_bar: int
    opponent_on_bar: int
    can_move: int
    forced_move: int
    did_crawford: int
    redoubles: int


_INT_FIELDS = [f.name for f in fields(FibsBoard) if f.name not in ("player", "opponent")]


def parse_board(line: str | bytes) -> FibsBoard:
    """Read a ``board:`` line (surrounding whitespace and NUL bytes are ignored).

    Raises :class:`FibsError` naming the problem: not a ``board:`` line, the
    wrong number of fields, a field that is not a whole number, or values out
    of range (colour, direction, turn, dice, cube, checker counts).
    """
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError:
            raise FibsError("the line is not UTF-8 text") from None
    text = line.replace("\0", "").strip()
    if not text.startswith(PREFIX):
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise FibsError(f"expected a FIBS 'board:' line, got {shown!r}")
    parts = text.split(":")
    if len(parts) != NUM_FIELDS:
        raise FibsError(f"a board: line has {NUM_FIELDS} fields separated by ':', got {len(parts)}")
    values: list[int] = []
    for i, raw in enumerate(parts[3:], start=3):
        try:
            values.append(int(raw))
        except ValueError:
            raise FibsError(f"field {i + 1} of the board: line is {raw!r}, not a whole number") from None
    match_length, score, opp_score = values[0:3]
    board = tuple(values[3:29])
    rest = values[29:]
    fb = FibsBoard(
        parts[1],
        parts[2],
        match_length,
        score,
        opp_score,
        board,
        rest[0],
        (rest[1], rest[2]),
        (rest[3], rest[4]),
        *rest[5:],
    )
    _check(fb)
    return fb


def _check(fb: FibsBoard) -> None:
    def fail(msg: str) -> None:
        raise FibsError(msg)

    if fb.colour not in (1, -1):
        fail(f"colour must be 1 or -1, got {fb.colour}")
    if fb.direction not in (1, -1):
        fail(f"direction must be 1 or -1, got {fb.direction}")
    if fb.turn not in (1, -1, 0):
        fail(f"turn must be 1, -1 or 0 (game over), got {fb.turn}")
    for name, dice in (("player's", fb.player_dice), ("opponent's", fb.opponent_dice)):
        if any(not 0 <= d <= 6 for d in dice) or (dice[0] == 0) != (dice[1] == 0):
            fail(f"the {name} dice {dice[0]}-{dice[1]} are not two dice 1-6 (or 0-0 before the roll)")
    if fb.cube < 1 or fb.cube & (fb.cube - 1):
        fail(f"the cube {fb.cube} is not a power of two")
    if fb.match_length < 0 or fb.player_score < 0 or fb.opponent_score < 0:
        fail("the match length and scores must not be negative")
    pos = sum(n for n in fb.board if n > 0)
    neg = -sum(n for n in fb.board if n < 0)
    if pos > CHECKERS or neg > CHECKERS:
        fail(f"the board has {max(pos, neg)} checkers for one side; at most {CHECKERS}")


def format_board(fb: FibsBoard) -> str:
    """The ``board:`` line of ``fb`` (no newline); ``format_board(parse_board(s)) == s``."""
    values: list[object] = [fb.player, fb.opponent, fb.match_length, fb.player_score, fb.opponent_score]
    values += list(fb.board)
    values += [fb.turn, *fb.player_dice, *fb.opponent_dice]
    values += [getattr(fb, name) for name in _INT_FIELDS[7:]]
    return "board:" + ":".join(str(v) for v in values)


# --------------------------------------------------------------------------
# What is to be decided
# --------------------------------------------------------------------------

Kind = Literal["move", "double", "take"]


@dataclass(frozen=True)
class Decision:
    """What a ``board:`` line asks, in bgnet's convention.

    Attributes:
        kind: ``"move"`` (play ``dice``), ``"double"`` (before rolling: roll
            or double) or ``"take"`` (the side on roll doubled: take or drop).
        board: the position from the side on roll (the doubler for
            ``"take"``; the side that answers is then the other one).
        dice: the roll to play (``kind == "move"``), else None.
        cube: the cube (before the pending double, for ``"take"``), seen
            from the side on roll.
        match: the match seen from the side on roll (length, score, the
            Crawford game; money play has no score here and no rules: a
            ``board:`` line does not carry the Jacoby rule or beavers).
        names: (side on roll, other side).
    """

    kind: Kind
    board: np.ndarray
    dice: Dice | None
    cube: CubeState
    match: MatchState
    names: tuple[str, str]

    @property
    def position(self) -> Position:
        return Position(self.board, validate=False)


def _mover_board(fb: FibsBoard, sign: int, direction: int) -> np.ndarray:
    """The board from the side whose checkers have ``sign`` and that moves with ``direction``."""
    raw = fb.board
    b = np.zeros(NUM_SLOTS, dtype=np.int64)
    for p in range(1, 25):
        b[p] = sign * raw[p if direction < 0 else 25 - p]
    own_bar, their_bar = (25, 0) if direction < 0 else (0, 25)
    b[25] = abs(raw[own_bar])
    b[0] = -abs(raw[their_bar])
    ours = int(b[b > 0].sum())
    theirs = int(-b[b < 0].sum())
    if ours > CHECKERS or theirs > CHECKERS:
        raise FibsError(f"the board has {max(ours, theirs)} checkers for one side; at most {CHECKERS}")
    board = b.astype(np.int8)
    check_board(board)
    return board


def decision(fb: FibsBoard | str, scores: Literal["gnubg", "fibs"] = "gnubg") -> Decision:
    """What the line asks of the side to act, from the side on roll.

    ``scores="gnubg"`` reads the names and scores as gnubg's external-player
    interface writes them (player 0's first, player 1's first while a double
    is pending; see the module docstring); ``"fibs"`` as FIBS does (the
    ``COLOUR`` side's first).  Raises :class:`FibsError` for a finished game
    (``TURN`` 0) or an impossible board.
    """
    if isinstance(fb, str):
        fb = parse_board(fb)
    if fb.turn == 0:
        raise FibsError("the game is over (turn 0): there is nothing to decide")
    mover_is_player = fb.turn == fb.colour
    direction = fb.direction if mover_is_player else -fb.direction
    board = _mover_board(fb, fb.turn, direction)
    doubled = fb.was_doubled != 0

    # Names and scores: whose comes first.
    if scores == "gnubg":
        # gnubg: player 1 is the positive side; the first name/score is player 0's, or player 1's
        # while a double is pending.
        first_is_positive = doubled
        first_is_mover = first_is_positive == (fb.turn > 0)
    elif scores == "fibs":
        first_is_mover = mover_is_player
    else:
        raise ValueError(f"scores must be 'gnubg' or 'fibs', got {scores!r}")
    names = (fb.player, fb.opponent)
    pts = (fb.player_score, fb.opponent_score)
    if not first_is_mover:
        names, pts = names[::-1], pts[::-1]

    # The cube: may-double flags are the player's then the opponent's.
    mover_may, other_may = (
        (fb.player_may_double, fb.opponent_may_double)
        if mover_is_player
        else (fb.opponent_may_double, fb.player_may_double)
    )
    if mover_may and not other_may:
        owner = CubeOwner.ME
    elif other_may and not mover_may:
        owner = CubeOwner.OPPONENT
    else:
        owner = CubeOwner.CENTERED

    length = 0 if fb.match_length == 9999 else fb.match_length  # FIBS: 9999 is an unlimited match
    if length and (pts[0] >= length or pts[1] >= length):
        raise FibsError(f"the score {pts[0]}-{pts[1]} has already reached the match length {length}")
    one_away = bool(length) and ((length - pts[0] == 1) != (length - pts[1] == 1))
    crawford = one_away and not (fb.did_crawford or fb.redoubles)
    match = MatchState.match(length, pts, crawford=crawford) if length else MatchState.money()

    dice_pair = fb.player_dice if mover_is_player else fb.opponent_dice
    if dice_pair == (0, 0):
        dice_pair = fb.opponent_dice if mover_is_player else fb.player_dice
    if doubled:
        kind: Kind = "take"
        dice = None
    elif dice_pair[0]:
        kind = "move"
        dice = Dice.of(*dice_pair)
    else:
        kind = "double"
        dice = None
    return Decision(kind, board, dice, CubeState(fb.cube, owner), match, names)


# --------------------------------------------------------------------------
# Writing the line gnubg sends
# --------------------------------------------------------------------------


def gnubg_line(
    board: np.ndarray | Position,
    on_roll: int,
    *,
    dice: tuple[int, int] = (0, 0),
    cube: int = 1,
    cube_owner: int = -1,
    doubled: bool = False,
    score: tuple[int, int] = (0, 0),
    names: tuple[str, str] = ("gnubg", "bgnet"),
    match_length: int = 0,
    crawford: bool = False,
    post_crawford: bool = False,
) -> str:
    """The ``board:`` line gnubg 1.07 sends an external player (no newline).

    Args:
        board: the position from the side on roll (bgnet's convention).
        on_roll: gnubg's player number (0 or 1) of the side on roll.
        dice: the roll, ``(0, 0)`` before it.
        cube: the cube's value (before a pending double).
        cube_owner: gnubg's player number of the owner, -1 centred.
        doubled: the side on roll has doubled; the other must answer.
        score, names: gnubg's player 0's and player 1's.
        match_length: 0 for money play.
        crawford, post_crawford: the match's Crawford state.
    """
    b = board.board if isinstance(board, Position) else np.asarray(board, dtype=np.int8)
    p1 = b if on_roll == 1 else flip(b)  # from gnubg's player 1
    raw = [int(-abs(p1[0]))] + [int(p1[p]) for p in range(1, 25)] + [int(p1[25])]
    off1 = CHECKERS - int(p1[p1 > 0].sum())
    off0 = CHECKERS + int(p1[p1 < 0].sum())
    first = 1 if doubled else 0
    fb = FibsBoard(
        names[first].replace(":", "_"),
        names[1 - first].replace(":", "_"),
        match_length,
        score[first],
        score[1 - first],
        tuple(raw),
        1 if on_roll == 1 else -1,
        (dice[0], dice[1]),
        (dice[0], dice[1]),
        cube,
        int(cube_owner != 0),
        int(cube_owner != 1),
        int(doubled),
        1,
        -1,
        0,
        25,
        off1,
        off0,
        0,
        0,
        0,
        0,
        int(post_crawford),
        int(not crawford),
    )
    return format_board(fb)
