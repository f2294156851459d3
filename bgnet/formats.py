"""Text formats: GNUBG Position ID and Match ID, eXtreme Gammon's XGID.

Every board here is in bgnet's convention (see :mod:`bgnet.position`): seen
from the player on roll, positive counts ours, slot 25 our bar, slot 0 the
opponent's bar.

Sources of the format facts
---------------------------
GNUBG Position ID
    GNU Backgammon manual, "A technical description of the Position ID"
    (https://www.gnu.org/software/gnubg/manual/html_node/A-technical-description-of-the-Position-ID.html)
    and gnubg's ``positionid.c`` (``PositionKey``, ``PositionID``): for each of
    two sides, for its points 1..24 (numbered from that side) then its bar,
    append one 1-bit per checker and a 0-bit; pad to 80 bits; pack the bits
    little-endian (bit ``k`` is bit ``k % 8`` of byte ``k // 8``); write the
    10 bytes as standard base64 without the ``==`` padding (14 characters).

    Which side comes first: the manual says "the player on roll", but gnubg's
    code encodes ``anBoard[0]`` first, and in gnubg ``anBoard[1]`` is the
    player on roll (``eval.c`` ``ApplySubMove`` moves ``anBoard[1]``;
    ``drawboard.c`` ``FormatMove`` marks hits on ``anBoard[0]``; ``gnubg.c``
    ``ShowBoard`` prints ``PositionID(msBoard())``).  ``gnubg_nn`` agrees (its
    ``moves`` moves ``board[1]`` and its ``position_id`` encodes ``board[0]``
    first; the tests check this), and so does wildbg's encoder.  So: **the
    first side encoded is the player NOT on roll, the second the player on
    roll.**

GNUBG Match ID
    GNU Backgammon manual, "A technical description of the Match ID"
    (https://www.gnu.org/software/gnubg/manual/html_node/A-technical-description-of-the-Match-ID.html)
    and gnubg's ``matchid.c`` (``MatchID``, ``MatchFromKey``): 9 bytes, bits
    packed little-endian as above, each field least significant bit first;
    12 base64 characters.  ``matchid.c`` adds bit 67 (0-based 66) = *not*
    Jacoby, so IDs written before it existed read as "Jacoby on"; bits 68-72
    are unused (zero).

XGID
    eXtreme Gammon's manual (XGID section) and gnubg's readers of it
    (``set.c`` ``SetXGID``, ``positionid.c`` ``PositionFromXG``)::

        XGID=<position>:<cube>:<cube position>:<turn>:<dice>:<score bottom>:
             <score top>:<Crawford/Jacoby/beaver>:<match length>:<max cube>

    * position: 26 characters.  Character 0 is the top player's bar,
      characters 1..24 are points 1..24 numbered from the *bottom* player,
      character 25 is the bottom player's bar.  ``A``..``P`` are 1..16
      checkers of the bottom player, ``a``..``p`` of the top player, ``-``
      an empty point.  The field does not depend on whose turn it is.
    * cube: log2 of the cube value.  cube position: 1 the bottom player owns
      it, -1 the top player, 0 centred.
    * turn: 1 the bottom player is to act, -1 the top player.
    * dice: ``00`` the player on turn is to roll (or double), two digits the
      roll, ``D`` the player on turn doubled (the opponent must take or pass),
      ``B`` doubled and the opponent beavered, ``R`` doubled, beavered and
      raccooned.
    * scores of the bottom and the top player; the rules field is, in a
      match, 1 for the Crawford game else 0, and in money play a bit set:
      1 Jacoby, 2 beavers; match length 0 means money play; max cube is a
      log2 (``10`` for 1024).  Older XGIDs have no max cube field.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import IntEnum

import numpy as np

from bgnet.errors import InvalidMatchIdError, InvalidPositionError
from bgnet.match import CubeOwner, CubeState, MatchState
from bgnet.position import CHECKERS, NUM_SLOTS, Board, Position, check_board, flip

__all__ = [
    "GameState",
    "MatchInfo",
    "Xgid",
    "board_from_gnubg",
    "board_from_position_id",
    "board_to_gnubg",
    "match_id",
    "match_info_from_id",
    "parse_position",
    "parse_xgid",
    "position_id",
]

# --------------------------------------------------------------------------
# base64 (standard alphabet, RFC 4648; gnubg's aszBase64 in positionid.c)
# --------------------------------------------------------------------------

_B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_VALUE = {c: i for i, c in enumerate(_B64)}

POSITION_ID_LENGTH = 14
MATCH_ID_LENGTH = 12
_POSITION_KEY_BYTES = 10
_MATCH_KEY_BYTES = 9


def _encode_base64(data: bytes) -> str:
    """Base64 of ``data`` without ``=`` padding (the low fill bits are zero)."""
    n_chars = (len(data) * 8 + 5) // 6
    pad = n_chars * 6 - len(data) * 8
    stream = int.from_bytes(data, "big") << pad
    return "".join(_B64[(stream >> (6 * (n_chars - 1 - i))) & 63] for i in range(n_chars))


def _decode_base64(text: object, n_bytes: int, what: str, error: type[ValueError]) -> bytes:
    """The ``n_bytes`` bytes that ``text`` (base64 without padding) encodes.

    Raises ``error`` naming the problem: not a string, wrong length, a
    character outside the base64 alphabet, or fill bits (those past the last
    byte) that are not zero.
    """
    n_chars = (n_bytes * 8 + 5) // 6
    if not isinstance(text, str):
        raise error(f"a {what} is a string, got {type(text).__name__}")
    if len(text) != n_chars:
        raise error(f"a {what} has {n_chars} characters, got {len(text)}: {text!r}")
    for i, ch in enumerate(text):
        if ch not in _B64_VALUE:
            raise error(
                f"{what} {text!r} has a bad character {ch!r} at position {i + 1}; "
                "base64 characters are A-Z a-z 0-9 + /"
            )
    stream = 0
    for ch in text:
        stream = (stream << 6) | _B64_VALUE[ch]
    pad = n_chars * 6 - n_bytes * 8
    if stream & ((1 << pad) - 1):
        raise error(
            f"{what} {text!r} has too many bits: its last character sets bits past the {n_bytes * 8}-bit key"
        )
    return (stream >> pad).to_bytes(n_bytes, "big")


# --------------------------------------------------------------------------
# Boards: ours <-> gnubg's [side not on roll, side on roll]
# --------------------------------------------------------------------------

_SIDE_NAMES = ("player not on roll", "player on roll")


def _as_board(board: Board | Position | Sequence[int]) -> Board:
    """A validated int8 board from a Position, an array or a list."""
    if isinstance(board, Position):
        return board.board
    b = np.asarray(board)
    if b.shape != (NUM_SLOTS,):
        raise InvalidPositionError(f"a board has {NUM_SLOTS} slots, got shape {b.shape}")
    if not np.issubdtype(b.dtype, np.integer):
        raise InvalidPositionError(f"a board holds integers, got dtype {b.dtype}")
    if np.abs(b.astype(np.int64)).max() > CHECKERS:
        raise InvalidPositionError(f"a board slot holds at most {CHECKERS} checkers")
    b = b.astype(np.int8)
    check_board(b)
    return b


def _board_from_sides(sides: Sequence[Sequence[int]], source: str) -> Board:
    """Our board from gnubg's two sides; ``source`` names the input in errors."""
    if len(sides) != 2 or any(len(s) != 25 for s in sides):
        raise InvalidPositionError(f"{source} must be 2 lists of 25 counts")
    theirs, ours = ([int(n) for n in s] for s in sides)
    for name, side in zip(_SIDE_NAMES, (theirs, ours), strict=True):
        if min(side) < 0:
            raise InvalidPositionError(f"{source} has a negative count for the {name}")
        if sum(side) > CHECKERS:
            raise InvalidPositionError(
                f"{source} has {sum(side)} checkers for the {name}; at most {CHECKERS}"
            )
    b = np.zeros(NUM_SLOTS, dtype=np.int8)
    for i in range(25):
        b[i + 1] = ours[i]  # our point i+1; i = 24 is our bar, slot 25
    for i in range(25):
        slot = 24 - i  # their point i+1 is our point 24-i; their bar is slot 0
        if theirs[i]:
            if b[slot] > 0:
                raise InvalidPositionError(
                    f"{source} puts checkers of both sides on point {slot} (numbered from the player on roll)"
                )
            b[slot] = -theirs[i]
    return b


def board_from_gnubg(b2x25: Sequence[Sequence[int]]) -> Board:
    """Our board from gnubg's ``[side not on roll, side on roll]`` layout.

    Each side is 25 counts seen from that side: index 0..23 its points 1..24,
    index 24 its bar (the layout of gnubg's ``TanBoard`` and of ``gnubg_nn``).
    Raises :class:`InvalidPositionError` for negative counts, more than 15
    checkers a side, or both sides on one point.
    """
    return _board_from_sides(b2x25, "the gnubg board")


def board_to_gnubg(board: Board | Position) -> list[list[int]]:
    """gnubg's ``[side not on roll, side on roll]`` lists for our board."""
    b = _as_board(board)
    theirs = [max(-int(b[24 - i]), 0) for i in range(25)]
    ours = [max(int(b[i + 1]), 0) for i in range(25)]
    return [theirs, ours]


# --------------------------------------------------------------------------
# GNUBG Position ID
# --------------------------------------------------------------------------


def position_id(board: Board | Position) -> str:
    """The 14-character GNUBG Position ID of ``board``.

    The player not on roll is encoded first, the player on roll second (see
    the module docstring for why).  ``position_id(STARTING) == "4HPwATDgc/ABMA"``.
    """
    return position_ids(_as_board(board)[None, :])[0]


def position_ids(boards: np.ndarray) -> list[str]:
    """The Position IDs of an (N, 26) array of legal boards, vectorised (for long move lists).

    The key is 80 bits, least significant first: for each of the 50 points
    (the player not on roll's points 1..24 and bar, then the player on roll's),
    one 1-bit per checker and a 0-bit to end the point; then zeros.  The 10
    bytes are written as base64 without its padding.
    """
    b = np.asarray(boards, dtype=np.int64).reshape(-1, NUM_SLOTS)
    theirs = np.maximum(-b[:, 24::-1], 0)  # slots 24..0: their points 1..24, then their bar (slot 0)
    ours = np.maximum(b[:, 1:], 0)  # slots 1..25: our points 1..24, then our bar
    counts = np.concatenate([theirs, ours], axis=1)
    if (theirs.sum(axis=1) > CHECKERS).any() or (ours.sum(axis=1) > CHECKERS).any():
        raise InvalidPositionError(f"a board has more than {CHECKERS} checkers for a side")
    ends = np.cumsum(counts + 1, axis=1) - 1  # the 0-bit that ends each point
    bits = np.arange(_POSITION_KEY_BYTES * 8)[None, :] < ends[:, -1:]
    bits[np.arange(len(b))[:, None], ends[:, :-1]] = False
    packed = np.packbits(bits, axis=1, bitorder="little")
    return [base64.b64encode(row.tobytes())[:POSITION_ID_LENGTH].decode("ascii") for row in packed]


def board_from_position_id(text: str) -> Board:
    """The board (from the player on roll) that a GNUBG Position ID encodes.

    Raises :class:`InvalidPositionError` naming the problem: bad characters,
    wrong length, more than 15 checkers for a side, both sides on one point,
    or too many bits (bits set after the 50th separator, or in the fill bits
    of the last character).
    """
    what = "GNUBG Position ID"
    data = _decode_base64(text, _POSITION_KEY_BYTES, what, InvalidPositionError)
    key = int.from_bytes(data, "little")
    sides = [[0] * 25, [0] * 25]
    bit = 0
    for s in range(2):
        total = 0
        for i in range(25):
            while (key >> bit) & 1:
                sides[s][i] += 1
                total += 1
                bit += 1
                if total > CHECKERS:
                    raise InvalidPositionError(
                        f"{what} {text!r} has more than {CHECKERS} checkers for the {_SIDE_NAMES[s]}"
                    )
            bit += 1  # the 0 that ends this point
    # With at most 15 checkers a side, the 50 points use at most 80 bits.
    if key >> bit:
        raise InvalidPositionError(
            f"{what} {text!r} has too many bits: bits are set after the end of "
            "the position (the 50th point separator)"
        )
    return _board_from_sides(sides, f"{what} {text!r}")


# --------------------------------------------------------------------------
# GNUBG Match ID
# --------------------------------------------------------------------------


class GameState(IntEnum):
    """Bits 9-11 of the Match ID (gnubg's ``gamestate``)."""

    NO_GAME = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


# (first bit, width) of each Match ID field, 0-based (the manual counts from 1).
_CUBE, _OWNER, _ON_ROLL, _CRAWFORD, _STATE = (0, 4), (4, 2), (6, 1), (7, 1), (8, 3)
_TURN, _DOUBLED, _RESIGN, _DIE1, _DIE2 = (11, 1), (12, 1), (13, 2), (15, 3), (18, 3)
_LENGTH, _SCORE0, _SCORE1, _NOT_JACOBY = (21, 15), (36, 15), (51, 15), (66, 1)
_MATCH_BITS = 67
_MAX_15_BITS = (1 << 15) - 1
_MAX_CUBE = 1 << 15


@dataclass(frozen=True)
class MatchInfo:
    """The match state a GNUBG Match ID holds, field for field.

    Players are gnubg's player 0 and player 1 (in gnubg's text board player 0
    is O at the top, player 1 is X at the bottom; an XGID's bottom player is
    gnubg's player 1).

    Attributes:
        cube_value: 1, 2, 4, ... 32768 (bits 1-4 hold its log2).
        cube_owner: -1 centred (bits ``11``), 0 or 1 the owner (bits 5-6).
        player_on_roll: bit 7, the player on roll or who did roll ("dice
            owner"); the Position ID's board is seen from this player.
        crawford: bit 8, this is the Crawford game.
        game_state: bits 9-11.
        turn: bit 12, the player who must act now (differs from
            ``player_on_roll`` while a double or resignation is pending).
        double_offered: bit 13.
        resignation: bits 14-15, 0 none, 1 single, 2 gammon, 3 backgammon
            (offered by the player who is not ``turn``).
        dice: bits 16-18 and 19-21; ``(0, 0)`` not rolled.  Kept in the order
            given (gnubg itself writes the higher die first).
        match_length: bits 22-36; 0 is money play.
        score: bits 37-51 and 52-66, (player 0, player 1).
        jacoby: bit 67 is *not* Jacoby (gnubg ``matchid.c``), so the default
            True writes a 0 bit, as IDs from before that bit existed read.
    """

    cube_value: int = 1
    cube_owner: int = -1
    player_on_roll: int = 0
    crawford: bool = False
    game_state: GameState = GameState.PLAYING
    turn: int = 0
    double_offered: bool = False
    resignation: int = 0
    dice: tuple[int, int] = (0, 0)
    match_length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = True

    def __post_init__(self) -> None:
        def fail(msg: str) -> None:
            raise InvalidMatchIdError(msg)

        def put(name: str, value: object) -> None:
            object.__setattr__(self, name, value)

        v = self.cube_value
        if not isinstance(v, (int, np.integer)) or v < 1 or v & (v - 1):
            fail(f"cube value {v!r} is not a power of two")
        if v > _MAX_CUBE:
            fail(f"cube value {v} is above {_MAX_CUBE}, the largest a Match ID holds")
        put("cube_value", int(v))
        if self.cube_owner not in (-1, 0, 1):
            fail(f"cube owner must be -1 (centred), 0 or 1, got {self.cube_owner!r}")
        for name in ("player_on_roll", "turn"):
            if getattr(self, name) not in (0, 1):
                fail(f"{name.replace('_', ' ')} must be player 0 or 1, got {getattr(self, name)!r}")
            put(name, int(getattr(self, name)))
        put("cube_owner", int(self.cube_owner))
        try:
            put("game_state", GameState(self.game_state))
        except ValueError:
            fail(f"game state must be 0-4, got {self.game_state!r}")
        if self.resignation not in (0, 1, 2, 3):
            fail(f"resignation must be 0-3 (none, single, gammon, backgammon), got {self.resignation!r}")
        put("resignation", int(self.resignation))
        dice = tuple(int(d) for d in self.dice)
        if len(dice) != 2:
            fail(f"dice are two numbers, got {self.dice!r}")
        if any(not 0 <= d <= 6 for d in dice):
            fail(f"dice {dice} out of range: each die is 0 (not rolled) or 1-6")
        if (dice[0] == 0) != (dice[1] == 0):
            fail(f"dice {dice}: both dice are 0 (not rolled) or both are 1-6")
        put("dice", dice)
        if not 0 <= self.match_length <= _MAX_15_BITS:
            fail(f"match length {self.match_length!r} out of range 0-{_MAX_15_BITS}")
        put("match_length", int(self.match_length))
        score = tuple(int(s) for s in self.score)
        if len(score) != 2 or any(not 0 <= s <= _MAX_15_BITS for s in score):
            fail(f"score {self.score!r}: two numbers 0-{_MAX_15_BITS}")
        if self.match_length and max(score) > self.match_length:
            fail(f"score {score} is beyond the match length {self.match_length}")
        put("score", score)
        for name in ("crawford", "double_offered", "jacoby"):
            put(name, bool(getattr(self, name)))
        if self.crawford and not self.match_length:
            fail("the Crawford flag is set in money play (match length 0)")

    def state(self, player: int | None = None) -> tuple[CubeState, MatchState]:
        """The cube and the match seen from ``player`` (default: ``player_on_roll``).

        Raises :class:`bgnet.match.InvalidMatchError` for a state the match
        types refuse (a Crawford flag without exactly one side at 1-away).
        """
        me = self.player_on_roll if player is None else player
        owner = (
            CubeOwner.CENTERED
            if self.cube_owner < 0
            else (CubeOwner.ME if self.cube_owner == me else CubeOwner.OPPONENT)
        )
        if self.match_length:
            score = (self.score[me], self.score[1 - me])
            match = MatchState.match(self.match_length, score, crawford=self.crawford)
        else:
            match = MatchState.money(jacoby=self.jacoby)
        return CubeState(self.cube_value, owner), match


def match_id(info: MatchInfo) -> str:
    """The 12-character GNUBG Match ID of ``info`` (gnubg ``matchid.c`` layout).

    ``match_id(MatchInfo(2, 0, 1, False, GameState.PLAYING, 1, False, 0,
    (5, 2), 9, (2, 4))) == "QYkqASAAIAAA"`` (the manual's example).
    """
    owner_bits = 3 if info.cube_owner < 0 else info.cube_owner
    fields = (
        (_CUBE, info.cube_value.bit_length() - 1),
        (_OWNER, owner_bits),
        (_ON_ROLL, info.player_on_roll),
        (_CRAWFORD, int(info.crawford)),
        (_STATE, int(info.game_state)),
        (_TURN, info.turn),
        (_DOUBLED, int(info.double_offered)),
        (_RESIGN, info.resignation),
        (_DIE1, info.dice[0]),
        (_DIE2, info.dice[1]),
        (_LENGTH, info.match_length),
        (_SCORE0, info.score[0]),
        (_SCORE1, info.score[1]),
        (_NOT_JACOBY, int(not info.jacoby)),
    )
    key = 0
    for (start, _width), value in fields:
        key |= value << start
    return _encode_base64(key.to_bytes(_MATCH_KEY_BYTES, "little"))


def match_info_from_id(text: str) -> MatchInfo:
    """The :class:`MatchInfo` a GNUBG Match ID encodes; exact inverse of :func:`match_id`.

    Raises :class:`InvalidMatchIdError` naming the problem: bad characters,
    wrong length, cube owner bits ``10``, game state above 4, dice out of
    range, a score beyond the match length, Crawford in money play, or unused
    bits 68-72 set.
    """
    what = "GNUBG Match ID"
    data = _decode_base64(text, _MATCH_KEY_BYTES, what, InvalidMatchIdError)
    key = int.from_bytes(data, "little")

    def get(f: tuple[int, int]) -> int:
        return (key >> f[0]) & ((1 << f[1]) - 1)

    if key >> _MATCH_BITS:
        raise InvalidMatchIdError(f"{what} {text!r} has too many bits: unused bits 68-72 are set")
    owner_bits = get(_OWNER)
    if owner_bits == 2:
        raise InvalidMatchIdError(
            f"{what} {text!r} has cube owner bits 10; valid are 00, 01 and 11 (centred)"
        )
    try:
        return MatchInfo(
            cube_value=1 << get(_CUBE),
            cube_owner=-1 if owner_bits == 3 else owner_bits,
            player_on_roll=get(_ON_ROLL),
            crawford=bool(get(_CRAWFORD)),
            game_state=get(_STATE),  # type: ignore[arg-type]  # checked in __post_init__
            turn=get(_TURN),
            double_offered=bool(get(_DOUBLED)),
            resignation=get(_RESIGN),
            dice=(get(_DIE1), get(_DIE2)),
            match_length=get(_LENGTH),
            score=(get(_SCORE0), get(_SCORE1)),
            jacoby=not get(_NOT_JACOBY),
        )
    except InvalidMatchIdError as e:
        raise InvalidMatchIdError(f"{what} {text!r}: {e}") from None


# --------------------------------------------------------------------------
# XGID
# --------------------------------------------------------------------------

_XGID_PREFIX = "XGID="
_XG_INT = re.compile(r"0|-?[1-9][0-9]*")
_XG_DICE = re.compile(r"00|[1-6][1-6]|[DBR]")
_XG_INT_FIELDS = (
    "cube",
    "cube position",
    "turn",
    None,  # dice
    "bottom player's score",
    "top player's score",
    "Crawford/Jacoby/beaver field",
    "match length",
    "max cube",
)


def _xg_char(n: int) -> str:
    if n == 0:
        return "-"
    return chr(ord("A") + n - 1) if n > 0 else chr(ord("a") - n - 1)


@dataclass(frozen=True)
class Xgid:
    """An XGID: the position, seen from the player on turn, and its match fields.

    ``position`` is in bgnet's convention from the player whose turn the XGID
    says it is (``turn``: 1 the bottom player, -1 the top player); the other
    fields are the XGID's own, in its own terms (bottom/top), so that
    :meth:`to_string` writes back exactly the text :func:`parse_xgid` read.

    Attributes:
        position: the board from the player on turn (after ``D``/``B``/``R``
            that is the player who doubled, as in gnubg's ``SetXGID``).
        cube_log2: the cube field, log2 of the cube value.
        cube_position: 1 the bottom player owns the cube, -1 the top, 0 centred.
        turn: 1 the bottom player is on turn, -1 the top player.
        dice: ``"00"`` to roll or double, two digits the roll (order kept),
            ``"D"`` doubled, ``"B"`` beavered, ``"R"`` raccooned.
        score_bottom, score_top: the scores.
        rules: in a match 1 Crawford game / 0 not; in money play 1 Jacoby
            + 2 beavers.
        match_length: 0 is money play.
        max_cube_log2: the max cube field (log2), ``None`` if the XGID has
            only 9 fields.
        prefix: whether the text starts with ``XGID=`` (not compared).
    """

    position: Position
    cube_log2: int = 0
    cube_position: int = 0
    turn: int = 1
    dice: str = "00"
    score_bottom: int = 0
    score_top: int = 0
    rules: int = 0
    match_length: int = 0
    max_cube_log2: int | None = 10
    prefix: bool = field(default=True, compare=False)

    def __post_init__(self) -> None:
        def fail(msg: str) -> None:
            raise InvalidMatchIdError(f"XGID: {msg}")

        if not isinstance(self.position, Position):
            raise InvalidPositionError(
                f"XGID position must be a Position, got {type(self.position).__name__}"
            )
        if not 0 <= self.cube_log2 <= 15:
            fail(f"cube field (log2 of the cube) must be 0-15, got {self.cube_log2}")
        if self.cube_position not in (-1, 0, 1):
            fail(f"cube position must be 1 (bottom), 0 (centre) or -1 (top), got {self.cube_position}")
        if self.turn not in (1, -1):
            fail(f"turn must be 1 (bottom) or -1 (top), got {self.turn}")
        if not isinstance(self.dice, str) or not _XG_DICE.fullmatch(self.dice):
            fail(
                f"dice field {self.dice!r} must be 00 (to roll), two dice 1-6, "
                "D (doubled), B (beavered) or R (raccooned)"
            )
        if self.match_length < 0:
            fail(f"match length must be 0 (money) or more, got {self.match_length}")
        for name, s in (("bottom", self.score_bottom), ("top", self.score_top)):
            if s < 0:
                fail(f"the {name} player's score {s} is negative")
            if self.match_length and s >= self.match_length:
                fail(f"the {name} player's score {s} is not below the match length {self.match_length}")
        allowed = (0, 1) if self.match_length else (0, 1, 2, 3)
        if self.rules not in allowed:
            kind = (
                "in a match 0 or 1 (Crawford)"
                if self.match_length
                else "in money play 0-3 (1 Jacoby + 2 beavers)"
            )
            fail(f"Crawford/Jacoby/beaver field must be {kind}, got {self.rules}")
        if self.max_cube_log2 is not None and self.max_cube_log2 < 0:
            fail(f"max cube must be 0 or more, got {self.max_cube_log2}")

    @property
    def board(self) -> Board:
        """The board array, from the player on turn."""
        return self.position.board

    @property
    def cube_value(self) -> int:
        """The cube value, ``2 ** cube_log2``."""
        return 1 << self.cube_log2

    def state(self) -> tuple[CubeState, MatchState]:
        """The cube and the match seen from the player on turn (what :mod:`bgnet.cube` decides on).

        Raises :class:`bgnet.match.InvalidMatchError` for a state the match
        types refuse (a Crawford flag without exactly one side at 1-away).
        """
        mine = self.cube_position * self.turn  # 1: the player on turn owns it, -1: the opponent
        owner = {0: CubeOwner.CENTERED, 1: CubeOwner.ME, -1: CubeOwner.OPPONENT}[mine]
        if self.match_length:
            match = MatchState.match(self.match_length, self.score, crawford=self.crawford)
        else:
            match = MatchState.money(jacoby=self.jacoby, beavers=self.beavers)
        return CubeState(self.cube_value, owner), match

    @property
    def score(self) -> tuple[int, int]:
        """(player on turn, opponent)."""
        if self.turn == 1:
            return self.score_bottom, self.score_top
        return self.score_top, self.score_bottom

    @property
    def rolled(self) -> tuple[int, int] | None:
        """The dice rolled, or None before the roll or in a cube action."""
        if self.dice == "00" or not self.dice.isdigit():
            return None
        return int(self.dice[0]), int(self.dice[1])

    @property
    def crawford(self) -> bool:
        """This is the Crawford game of a match."""
        return bool(self.match_length) and self.rules == 1

    @property
    def jacoby(self) -> bool:
        """Money play with the Jacoby rule."""
        return not self.match_length and bool(self.rules & 1)

    @property
    def beavers(self) -> bool:
        """Money play with beavers."""
        return not self.match_length and bool(self.rules & 2)

    def to_string(self) -> str:
        """The XGID text; ``parse_xgid(s).to_string() == s`` for a valid ``s``."""
        bottom = self.position.board if self.turn == 1 else flip(self.position.board)
        fields = [
            "".join(_xg_char(int(n)) for n in bottom),
            str(self.cube_log2),
            str(self.cube_position),
            str(self.turn),
            self.dice,
            str(self.score_bottom),
            str(self.score_top),
            str(self.rules),
            str(self.match_length),
        ]
        if self.max_cube_log2 is not None:
            fields.append(str(self.max_cube_log2))
        return (_XGID_PREFIX if self.prefix else "") + ":".join(fields)

    def __str__(self) -> str:
        return self.to_string()


def _xg_bottom_board(pos: str, text: str) -> Board:
    """The board from the bottom player for the 26-character position field."""
    if len(pos) != 26:
        raise InvalidPositionError(f"XGID {text!r}: the position field has 26 characters, got {len(pos)}")
    b = np.zeros(NUM_SLOTS, dtype=np.int64)
    for i, ch in enumerate(pos):
        if ch == "-":
            continue
        if "A" <= ch <= "P":
            if i == 0:
                raise InvalidPositionError(
                    f"XGID {text!r}: character 1 is the top player's bar but holds "
                    f"bottom player's checkers ({ch!r})"
                )
            b[i] = ord(ch) - ord("A") + 1
        elif "a" <= ch <= "p":
            if i == 25:
                raise InvalidPositionError(
                    f"XGID {text!r}: character 26 is the bottom player's bar but "
                    f"holds top player's checkers ({ch!r})"
                )
            b[i] = -(ord(ch) - ord("a") + 1)
        else:
            raise InvalidPositionError(
                f"XGID {text!r}: bad character {ch!r} at position {i + 1} of the "
                "position field; use '-', A-P (bottom player) or a-p (top player)"
            )
    for name, n in (("bottom", int(b[b > 0].sum())), ("top", int(-b[b < 0].sum()))):
        if n > CHECKERS:
            raise InvalidPositionError(
                f"XGID {text!r} has {n} checkers for the {name} player; at most {CHECKERS}"
            )
    return b.astype(np.int8)


def parse_xgid(text: str) -> Xgid:
    """Parse an XGID, with or without the ``XGID=`` prefix.

    Surrounding whitespace is ignored.  Raises :class:`InvalidPositionError`
    for a bad position field and :class:`InvalidMatchIdError` for a bad
    match field (cube, turn, dice, scores, rules, lengths); numbers must be
    written plainly (no sign on positives, no leading zeros) so that the text
    round-trips exactly.
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"an XGID is a string, got {type(text).__name__}")
    s = text.strip()
    prefix = s.startswith(_XGID_PREFIX)
    fields = (s[len(_XGID_PREFIX) :] if prefix else s).split(":")
    if len(fields) not in (9, 10):
        raise InvalidPositionError(
            f"an XGID has 10 fields separated by ':' (9 in older ones without max "
            f"cube), got {len(fields)}: {text!r}"
        )
    bottom = _xg_bottom_board(fields[0], s)
    values: list[int] = []
    for name, raw in zip(_XG_INT_FIELDS, fields[1:], strict=False):  # max cube is optional
        if name is None:
            continue
        if not _XG_INT.fullmatch(raw):
            raise InvalidMatchIdError(f"XGID {s!r}: the {name} field {raw!r} is not a plain integer")
        values.append(int(raw))
    cube, cube_pos, turn, score_bottom, score_top, rules, length = values[:7]
    max_cube = values[7] if len(values) == 8 else None
    if turn not in (1, -1):
        raise InvalidMatchIdError(f"XGID {s!r}: turn must be 1 (bottom) or -1 (top), got {turn}")
    position = Position(bottom if turn == 1 else flip(bottom))
    try:
        return Xgid(
            position=position,
            cube_log2=cube,
            cube_position=cube_pos,
            turn=turn,
            dice=fields[4],
            score_bottom=score_bottom,
            score_top=score_top,
            rules=rules,
            match_length=length,
            max_cube_log2=max_cube,
            prefix=prefix,
        )
    except InvalidMatchIdError as e:
        raise InvalidMatchIdError(f"{e} (in {s!r})") from None


# --------------------------------------------------------------------------
# Any of them
# --------------------------------------------------------------------------


def parse_position(text: str) -> tuple[Position, Xgid | MatchInfo | None]:
    """Read a position from a GNUBG Position ID, ``positionid:matchid`` or an XGID.

    Surrounding whitespace is allowed.  The :class:`Position` is always seen
    from the player on roll: for a GNUBG ID that is the second side encoded
    (gnubg's ``anBoard[1]``, the Match ID's ``player_on_roll``), for an XGID
    the player its turn field names.  The second item is the :class:`Xgid`,
    the :class:`MatchInfo` of a ``positionid:matchid`` pair, or None for a
    Position ID alone.
    """
    if not isinstance(text, str):
        raise InvalidPositionError(f"a position ID is a string, got {type(text).__name__}")
    s = text.strip()
    if s.startswith(_XGID_PREFIX) or s.count(":") >= 8:
        xg = parse_xgid(s)
        return xg.position, xg
    if s.count(":") == 1:
        pid, mid = s.split(":")
        board = board_from_position_id(pid)
        return Position(board), match_info_from_id(mid)
    if ":" in s or len(s) != POSITION_ID_LENGTH:
        raise InvalidPositionError(
            f"{s!r} is not a GNUBG Position ID (14 characters), a "
            "'positionid:matchid' pair (14 + 1 + 12 characters) or an XGID"
        )
    return Position(board_from_position_id(s)), None
