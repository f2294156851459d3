"""An independent, plain-Python reference for the legal plays of every variant, for tests.

Written from the rules text (docs of issue 15), not from the compiled
kernel of :mod:`bgnet.variants`, so that a test comparing the two can catch
a rule the kernel gets wrong.  It works on its own representation (per side
a list of counts per point, bitmasks of pins and of checkers that may not
move again) and enumerates plays level by level over each order of the dice,
keeping each distinct intermediate state once.  Only at the boundary does it
read and write the 52-slot variant boards, with its own change of side.

Everything here is slow on purpose: clarity over speed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

SLOTS = 52
PIN_BASE = 25  # slot of the pin of point p is PIN_BASE + p
BAR = 25  # our bar in our lists (and in steps)
OFF = 0  # "borne off" in steps

# The opponent's path in our numbering in fevga (their 24 is our 12, their 1 is our 13).
FEVGA_PATH = tuple(range(12, 0, -1)) + tuple(range(24, 12, -1))


@dataclass(frozen=True)
class Rules:
    """A game's rules as the reference reads them (from the rules text, not from Variant.rules)."""

    rotate: bool  # both sides move the same way round the board (fevga)
    capture: str  # "hit", "pin" or "none": what landing on a lone opposing checker does
    block: int  # opposing checkers that block a point
    forced: bool  # use as many dice as possible, the larger when only one can be played
    no_hit_run: bool = False  # tavla: a checker that hits in our home board stops there
    first_pass: bool = False  # fevga: second checker leaves 24 only once one is on our 1..11
    quarter: bool = False  # fevga: a play may not end holding all of 19..24
    prime: bool = False  # fevga: no six consecutive points unless an opposing checker is ahead


_HIT = Rules(rotate=False, capture="hit", block=2, forced=True)
GAMES: dict[str, Rules] = {
    "backgammon": _HIT,
    "nackgammon": _HIT,
    "portes": _HIT,
    "tavla": Rules(rotate=False, capture="hit", block=2, forced=True, no_hit_run=True),
    "plakoto": Rules(rotate=False, capture="pin", block=2, forced=True),
    "fevga": Rules(
        rotate=True, capture="none", block=1, forced=True, first_pass=True, quarter=True, prime=True
    ),
}


def rules_of(label: str) -> Rules:
    """The reference's rules of a variant label (``plakoto+no-forced-max``)."""
    name, *house = label.split("+")
    r = GAMES[name]
    if "no-forced-max" in house:
        r = Rules(**{**r.__dict__, "forced": False})
    return r


def other(p: int, rotate: bool) -> int:
    """The opponent's number of our point ``p`` (1..24)."""
    if rotate:  # their point q is our point q + 12 (mod 24), and the other way round
        return (p + 11) % 24 + 1
    return 25 - p


@dataclass(frozen=True)
class State:
    """A position from the mover's side.

    ``me[p]``: our checkers on top of point p (1..24), ``me[25]`` our bar.
    ``them[p]``: the opponent's checkers on top of our point p, ``them[0]`` their bar.
    ``pin_me``/``pin_them``: bitmask (bit p) of points where one of ours / theirs is pinned.
    ``frozen``: bitmask of points holding one of our checkers that hit there this turn (tavla).
    """

    me: tuple[int, ...]
    them: tuple[int, ...]
    pin_me: int = 0
    pin_them: int = 0
    frozen: int = 0


def from_board(board: np.ndarray) -> State:
    """Read a 52-slot variant board (seen by the side on roll)."""
    b = [int(x) for x in np.asarray(board).reshape(-1)]
    if len(b) != SLOTS:
        raise ValueError(f"a variant board has {SLOTS} slots, got {len(b)}")
    if b[50] or b[51]:
        raise ValueError("the reference plays no variant with checkers waiting to enter")
    me = [0] * 26
    them = [0] * 26
    pin_me = pin_them = 0
    for p in range(1, 25):
        if b[p] > 0:
            me[p] = b[p]
        elif b[p] < 0:
            them[p] = -b[p]
        pin = b[PIN_BASE + p]
        if pin > 0:
            pin_me |= 1 << p
        elif pin < 0:
            pin_them |= 1 << p
    me[BAR] = b[25]
    them[0] = -b[0]
    return State(tuple(me), tuple(them), pin_me, pin_them)


def to_board(s: State) -> np.ndarray:
    """The 52-slot board of a state, seen by the mover."""
    out = np.zeros(SLOTS, dtype=np.int8)
    for p in range(1, 25):
        out[p] = s.me[p] - s.them[p]
        if s.pin_me >> p & 1:
            out[PIN_BASE + p] = 1
        if s.pin_them >> p & 1:
            out[PIN_BASE + p] = -1
    out[25] = s.me[BAR]
    out[0] = -s.them[0]
    return out


def opponent_board(s: State, rotate: bool) -> np.ndarray:
    """The 52-slot board of a state seen by the opponent (the reference's own change of side)."""
    out = np.zeros(SLOTS, dtype=np.int8)
    for p in range(1, 25):
        q = other(p, rotate)
        out[q] = s.them[p] - s.me[p]
        if s.pin_them >> p & 1:  # theirs pinned: seen by them, their own checker is pinned
            out[PIN_BASE + q] = 1
        if s.pin_me >> p & 1:
            out[PIN_BASE + q] = -1
    out[25] = s.them[0]
    out[0] = -s.me[BAR]
    return out


def flip(board: np.ndarray, rotate: bool) -> np.ndarray:
    """A board seen by the other side (slot by slot, not through a State: works on any int8 array)."""
    b = np.asarray(board, dtype=np.int8)
    out = np.zeros_like(b)
    for p in range(1, 25):
        q = other(p, rotate)
        out[..., q] = -b[..., p]
        out[..., PIN_BASE + q] = -b[..., PIN_BASE + p]
    out[..., 25] = -b[..., 0]
    out[..., 0] = -b[..., 25]
    out[..., 50] = -b[..., 51]
    out[..., 51] = -b[..., 50]
    return out


def in_play(s: State) -> tuple[int, int]:
    """Checkers not borne off: ours and theirs."""
    return (
        sum(s.me[1:26]) + bin(s.pin_me).count("1"),
        sum(s.them[0:25]) + bin(s.pin_them).count("1"),
    )


def _blocked(s: State, p: int, r: Rules) -> bool:
    if s.them[p] >= r.block:
        return True
    # Their checkers on top of one of ours pinned there: we cannot land (plakoto).
    return s.them[p] > 0 and bool(s.pin_me >> p & 1)


def _may_leave_start(s: State) -> bool:
    """Fevga: a checker may leave our 24 while none has left it, or once one has passed their start.

    A checker has passed the opponent's start when it stands on our 1..11 or
    has been borne off (the latter only in positions no game reaches, where
    the rules text reads that way too).
    """
    return s.me[24] == 15 or any(s.me[1:12]) or in_play(s)[0] < 15


def _all_home(s: State) -> bool:
    return s.me[BAR] == 0 and not any(s.me[7:25]) and s.pin_me == 0


def _leave(me: list[int], them: list[int], s: State, src: int) -> tuple[int, int]:
    """Take one checker of ours off ``src``; free theirs pinned there when it was our last one."""
    me[src] -= 1
    pin_them = s.pin_them
    frozen = s.frozen
    if me[src] == 0 and pin_them >> src & 1:
        pin_them &= ~(1 << src)
        them[src] = 1
    return pin_them, frozen


def steps_of(s: State, d: int, r: Rules) -> Iterator[tuple[int, int, State]]:
    """Every single move of one die: (from, to, state after)."""
    if s.me[BAR] > 0:  # bar first
        dst = 25 - d
        if not _blocked(s, dst, r):
            me, them = list(s.me), list(s.them)
            me[BAR] -= 1
            pin_them = s.pin_them
            if them[dst] == 1 and r.capture == "hit":
                them[dst] = 0
                them[0] += 1
            elif them[dst] == 1 and r.capture == "pin":
                them[dst] = 0
                pin_them |= 1 << dst
            me[dst] += 1
            yield BAR, dst, State(tuple(me), tuple(them), s.pin_me, pin_them, s.frozen)
        return
    home = _all_home(s)
    highest = max((p for p in range(1, 7) if s.me[p]), default=0)
    for src in range(24, 0, -1):
        movable = s.me[src] - (s.frozen >> src & 1)
        if movable <= 0:
            continue
        if r.first_pass and src == 24 and not _may_leave_start(s):
            continue
        dst = src - d
        if dst >= 1:
            if _blocked(s, dst, r):
                continue
            me, them = list(s.me), list(s.them)
            pin_them, frozen = _leave(me, them, s, src)
            if them[dst] == 1:
                them[dst] = 0
                if r.capture == "hit":
                    them[0] += 1
                    if r.no_hit_run and dst <= 6:
                        frozen |= 1 << dst
                else:  # "pin" ("none" blocks a single checker, so it never lands here)
                    pin_them |= 1 << dst
            me[dst] += 1
            yield src, dst, State(tuple(me), tuple(them), s.pin_me, pin_them, frozen)
        elif home and (dst == 0 or src == highest):
            # Bear off: exactly, or with a higher die from the highest occupied point.
            me, them = list(s.me), list(s.them)
            pin_them, frozen = _leave(me, them, s, src)
            yield src, OFF, State(tuple(me), tuple(them), s.pin_me, pin_them, frozen)


def final_ok(s: State, r: Rules) -> bool:
    """Fevga's rules on the position a play ends in (the starting quarter and the prime)."""
    if r.quarter and all(s.me[p] > 0 for p in range(19, 25)):
        return False
    if r.prime:
        held = [s.me[p] > 0 for p in FEVGA_PATH]
        for j in range(len(FEVGA_PATH) - 5):
            if all(held[j : j + 6]) and not any(s.them[p] for p in FEVGA_PATH[j + 6 :]):
                return False
    return True


def _key(s: State) -> tuple:
    return (s.me, s.them, s.pin_me, s.pin_them, s.frozen)


def _orders(dice: tuple[int, int]) -> list[tuple[int, ...]]:
    a, b = dice
    if a == b:
        return [(a,) * 4]
    return [(a, b), (b, a)]


@dataclass
class _Found:
    used: int  # dice used
    dice: frozenset[int]  # when one die was used: the dice that reach this board with one step
    steps: tuple[tuple[int, int], ...]


def plays(board: np.ndarray, dice: tuple[int, int], label: str) -> dict[bytes, tuple[tuple[int, int], ...]]:
    """Legal results of one roll: the opponent's view of each result (bytes) -> one play as steps."""
    r = rules_of(label)
    start = from_board(board)
    found: dict[bytes, list[_Found]] = {}
    for order in _orders(dice):
        frontier: dict[tuple, tuple[State, tuple[tuple[int, int], ...]]] = {_key(start): (start, ())}
        for depth, d in enumerate(order, 1):
            nxt: dict[tuple, tuple[State, tuple[tuple[int, int], ...]]] = {}
            for s, steps in frontier.values():
                for src, dst, s2 in steps_of(s, d, r):
                    k = _key(s2)
                    if k not in nxt:
                        nxt[k] = (s2, (*steps, (src, dst)))
            for s2, steps in nxt.values():
                if final_ok(s2, r):
                    key = opponent_board(s2, r.rotate).tobytes()
                    found.setdefault(key, []).append(_Found(depth, frozenset({d}), steps))
            frontier = nxt
            if not frontier:
                break
    if not found:
        return {}
    if not r.forced:
        return {k: v[0].steps for k, v in found.items()}
    most = max(f.used for v in found.values() for f in v)
    keep = {k: [f for f in v if f.used == most] for k, v in found.items()}
    keep = {k: v for k, v in keep.items() if v}
    if most == 1 and dice[0] != dice[1]:
        high = max(dice)
        with_high = {k: [f for f in v if high in f.dice] for k, v in keep.items()}
        with_high = {k: v for k, v in with_high.items() if v}
        if with_high:
            keep = with_high
    return {k: v[0].steps for k, v in keep.items()}


def results(board: np.ndarray, dice: tuple[int, int], label: str) -> set[bytes]:
    """The set of legal results (opponent's view, as bytes of the 52-slot int8 board)."""
    return set(plays(board, dice, label))


def replay(
    board: np.ndarray, dice: tuple[int, int], steps: tuple[tuple[int, int], ...], label: str
) -> bytes | None:
    """The result of playing ``steps`` one legal single move at a time with the roll's dice, or None.

    Each step must be a legal move of one of the dice still unused (a bear-off
    may use a higher die); the final position is returned seen by the opponent.
    """
    r = rules_of(label)
    left = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)

    def go(s: State, i: int, left: list[int]) -> State | None:
        if i == len(steps):
            return s
        for d in sorted(set(left)):
            for src, dst, s2 in steps_of(s, d, r):
                if (src, dst) == steps[i]:
                    rest = list(left)
                    rest.remove(d)
                    end = go(s2, i + 1, rest)
                    if end is not None:
                        return end
        return None

    end = go(from_board(board), 0, left)
    return None if end is None else opponent_board(end, r.rotate).tobytes()
