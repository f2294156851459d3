"""The cube and the match: value, owner, score, Crawford, Jacoby, beavers, seen from the side on roll.

These frozen dataclasses are bgnet's one representation of the cube and the
match state.  The formats read them from an XGID (:meth:`bgnet.formats.Xgid.state`),
a GNUBG Match ID (:meth:`bgnet.formats.MatchInfo.state`) and a FIBS
``board:`` line (:attr:`bgnet.fibs.Decision.cube`); a game in progress gives
them from either player's side (:meth:`bgnet.game.Game.state`); the cube
decisions of :mod:`bgnet.cube` (which re-exports them) take them.

* :class:`CubeOwner` and :class:`CubeState`: the cube's value (a power of
  two) and who owns it, **seen from the side on roll** (``ME``, ``OPPONENT``,
  ``CENTERED``); :meth:`CubeState.flipped` is the same cube seen by the other side.
* :class:`MatchState`: money play (``length == 0``) with the Jacoby rule,
  beavers and automatic doubles, or a match: length, score (side on roll
  first), the Crawford game.
* :func:`may_double`: the one rule for whether the side on roll may double
  now (gnubg's ``GetDPEq``), and :func:`why_no_double` its reason in words.

A rules-layer module: it imports nothing of bgnet but :mod:`bgnet.errors`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum

from bgnet.errors import BgnetError

__all__ = [
    "MAX_CUBE",
    "CubeOwner",
    "CubeState",
    "InvalidCubeError",
    "InvalidMatchError",
    "MatchState",
    "may_double",
    "why_no_double",
]

MAX_CUBE = 1 << 15
"""The largest cube (what a GNUBG Match ID holds); a cube on it may not be turned again."""


class InvalidMatchError(BgnetError):
    """A match length, score or away count that is impossible or outside what a table covers."""


class InvalidCubeError(BgnetError):
    """A cube value or owner that is malformed or impossible in the match state."""


class CubeOwner(Enum):
    """Who owns the cube, seen from the side on roll."""

    CENTERED = "center"
    ME = "me"
    OPPONENT = "opp"

    @classmethod
    def parse(cls, text: str) -> CubeOwner:
        """``me``, ``opp``/``opponent`` or ``center``/``centre``/``centered``."""
        key = str(text).strip().lower()
        aliases = {
            "me": cls.ME,
            "opp": cls.OPPONENT,
            "opponent": cls.OPPONENT,
            "center": cls.CENTERED,
            "centre": cls.CENTERED,
            "centered": cls.CENTERED,
            "centred": cls.CENTERED,
        }
        if key not in aliases:
            raise InvalidCubeError(f"cube owner must be me, opp or center, got {text!r}")
        return aliases[key]


@dataclass(frozen=True)
class CubeState:
    """The cube: its value (a power of two) and its owner, seen from the side on roll."""

    value: int = 1
    owner: CubeOwner = CubeOwner.CENTERED

    def __post_init__(self) -> None:
        if isinstance(self.owner, str):
            object.__setattr__(self, "owner", CubeOwner.parse(self.owner))
        if not isinstance(self.owner, CubeOwner):
            raise InvalidCubeError(f"cube owner must be a CubeOwner, got {self.owner!r}")
        v = self.value
        if isinstance(v, bool) or not isinstance(v, int):
            raise InvalidCubeError(f"cube value must be a whole number, got {v!r}")
        if v < 1 or v & (v - 1):
            raise InvalidCubeError(f"cube value must be a power of two (1, 2, 4, ...), got {v}")

    @property
    def centered(self) -> bool:
        return self.owner is CubeOwner.CENTERED

    def flipped(self) -> CubeState:
        """The same cube seen by the opponent."""
        swap = {CubeOwner.ME: CubeOwner.OPPONENT, CubeOwner.OPPONENT: CubeOwner.ME}
        return CubeState(self.value, swap.get(self.owner, self.owner))

    def doubled(self) -> CubeState:
        """The cube after the side on roll doubles and the opponent takes."""
        return CubeState(self.value * 2, CubeOwner.OPPONENT)


@dataclass(frozen=True)
class MatchState:
    """Money play (``length == 0``) with its rules, or a match.

    Attributes:
        length: match length in points, 0 for money play (the cube decisions
            of :mod:`bgnet.cube` cover lengths up to 25, the Kazaross-XG2 table).
        score: points already won by (the side on roll, its opponent).
        crawford: this game is the Crawford game (a side is at 1-away and the
            cube may not be used).  A later game with a side at 1-away is
            post-Crawford (:attr:`post_crawford`).
        jacoby: money play: gammons count single while the cube is centred.
        beavers: money play: a doubled side may beaver (redouble at once,
            keeping the cube).
        auto_doubles: money play: the most automatic doubles (opening rolls
            of a double) a game may have; 0 for none.
    """

    length: int = 0
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    auto_doubles: int = 0

    @classmethod
    def money(cls, *, jacoby: bool = False, beavers: bool = False, auto_doubles: int = 0) -> MatchState:
        return cls(0, (0, 0), False, jacoby, beavers, auto_doubles)

    @classmethod
    def match(cls, length: int, score: tuple[int, int] = (0, 0), *, crawford: bool = False) -> MatchState:
        return cls(length, score, crawford)  # __post_init__ checks and normalises the score

    def __post_init__(self) -> None:
        def whole(name: str, v: object) -> int:
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidMatchError(f"{name} must be a whole number, got {v!r}")
            return v

        length = whole("match length", self.length)
        try:
            score = tuple(self.score)
        except TypeError:
            raise InvalidMatchError(f"score must be two numbers, got {self.score!r}") from None
        if len(score) != 2:
            raise InvalidMatchError(f"score must be two numbers (side on roll, opponent), got {score!r}")
        object.__setattr__(self, "score", (whole("score", score[0]), whole("score", score[1])))
        whole("auto_doubles", self.auto_doubles)
        if length == 0:
            if self.score != (0, 0):
                raise InvalidMatchError(f"money play has no score, got {self.score}")
            if self.crawford:
                raise InvalidMatchError("the Crawford rule applies to matches, not money play")
            if self.auto_doubles < 0:
                raise InvalidMatchError(f"auto_doubles must be 0 or more, got {self.auto_doubles}")
            return
        if length < 0:
            raise InvalidMatchError(f"match length must be 0 (money) or a positive number, got {length}")
        for who, s in zip(("side on roll", "opponent"), self.score, strict=True):
            if not 0 <= s < length:
                raise InvalidMatchError(
                    f"the {who}'s score {s} must be from 0 to {length - 1} in a {length}-point match"
                )
        if self.jacoby or self.beavers or self.auto_doubles:
            raise InvalidMatchError("the Jacoby rule, beavers and automatic doubles apply to money play only")
        if self.crawford and (self.away == 1) == (self.opp_away == 1):
            raise InvalidMatchError(
                "the Crawford game needs exactly one side at 1-away, "
                f"got {self.away}-away/{self.opp_away}-away"
            )

    def flipped(self) -> MatchState:
        """The same match seen by the opponent (the scores swapped)."""
        return dataclasses.replace(self, score=(self.score[1], self.score[0]))

    @property
    def is_money(self) -> bool:
        return self.length == 0

    @property
    def away(self) -> int:
        """Points the side on roll still needs (0 in money play)."""
        return self.length - self.score[0] if self.length else 0

    @property
    def opp_away(self) -> int:
        """Points the opponent still needs (0 in money play)."""
        return self.length - self.score[1] if self.length else 0

    @property
    def post_crawford(self) -> bool:
        """A side is at 1-away and this is not the Crawford game."""
        return bool(self.length) and not self.crawford and (self.away == 1 or self.opp_away == 1)


MONEY = MatchState()


def may_double(cube: CubeState, match: MatchState) -> bool:
    """May the side on roll double (or redouble) now?  (gnubg ``GetDPEq``.)

    Not when the opponent owns the cube, the cube is at :data:`MAX_CUBE`, in
    the Crawford game, or when the cube is dead: its value already wins the
    side on roll the match (which includes the leader post-Crawford, at 1-away).
    """
    if cube.owner is CubeOwner.OPPONENT or cube.value >= MAX_CUBE:
        return False
    if match.is_money:
        return True
    return not match.crawford and match.away > cube.value


def why_no_double(cube: CubeState, match: MatchState) -> str:
    """Why the side on roll may not double, for a person ("" when it may)."""
    if may_double(cube, match):
        return ""
    if match.crawford:
        return "no doubling in the Crawford game"
    if cube.owner is CubeOwner.OPPONENT:
        return "your opponent owns the cube: only the owner may redouble"
    if cube.value >= MAX_CUBE:
        return f"the cube is at its limit ({MAX_CUBE})"
    if match.post_crawford and match.away == 1:
        return "the leader may not double after the Crawford game"
    return "the cube is dead: its value already wins you the match"
