"""An independent, plain-Python reference for the legal plays of every variant, for tests.

Written from the rules text (docs of issue 15, and issue 13's contract for
long nardy and acey-deucey), not from the compiled kernel of
:mod:`bgnet.variants`, so that a test comparing the two can catch a rule the
kernel gets wrong.  It works on its own representation (per side a list of
counts per point, counts of checkers waiting to enter, bitmasks of pins and
of checkers that may not move again) and enumerates plays level by level
over each order of the dice, keeping each distinct intermediate state once.
Only at the boundary does it read and write the 52-slot variant boards, with
its own change of side.

A turn is usually one roll.  Acey-deucey's 1-2 makes it up to three parts
(the 1 and the 2, then four of a chosen double, then in the European rule
four of its complement to 7), each played under the forced-play rule on the
position the part before ended in; :func:`turns` gives every whole turn
with whether the mover rolls again.

Everything here is slow on purpose: clarity over speed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

SLOTS = 52
PIN_BASE = 25  # slot of the pin of point p is PIN_BASE + p
BAR = 25  # our bar in our lists (and in steps)
OFF = 0  # "borne off" in steps
WAITING = 26  # "not yet entered" in steps (acey-deucey)
OUR_WAITING = 50  # slots of the checkers not yet entered
THEIR_WAITING = 51
HEAD = 24  # long nardy: every checker starts on our 24, the head

# The opponent's path in our numbering in fevga (their 24 is our 12, their 1 is our 13).
FEVGA_PATH = tuple(range(12, 0, -1)) + tuple(range(24, 12, -1))


@dataclass(frozen=True)
class Rules:
    """A game's rules as the reference reads them (from the rules text, not from Variant.rules)."""

    rotate: bool  # both sides move the same way round the board (fevga, long nardy)
    capture: str  # "hit", "pin" or "none": what landing on a lone opposing checker does
    block: int  # opposing checkers that block a point
    forced: bool  # use as many dice as possible, the larger when only one can be played
    no_hit_run: bool = False  # tavla: a checker that hits in our home board stops there
    first_pass: bool = False  # fevga: second checker leaves 24 only once one is on our 1..11
    quarter: bool = False  # fevga: a play may not end holding all of 19..24
    prime: bool = False  # fevga, long nardy: no six consecutive points unless an opposing checker is ahead
    head: bool = False  # long nardy: one checker leaves 24 a turn (two on a first 6-6, 4-4 or 3-3)
    enter_all: bool = False  # acey-deucey house rule: nothing on the points moves while ours wait
    one_two: str = ""  # acey-deucey's 1-2 roll: "american" (a double) or "european" (and its complement)


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
    "long-nardy": Rules(rotate=True, capture="none", block=1, forced=True, prime=True, head=True),
    "acey-deucey": Rules(rotate=False, capture="hit", block=2, forced=True, one_two="american"),
}


def rules_of(label: str) -> Rules:
    """The reference's rules of a variant label (``plakoto+no-forced-max``, ``acey-deucey+enter-all``)."""
    name, *house = label.split("+")
    r = GAMES[name]
    if "no-forced-max" in house:
        r = replace(r, forced=False)
    if "enter-all" in house:
        r = replace(r, enter_all=True)
    if "european-1-2" in house:
        r = replace(r, one_two="european")
    return r


def start_board(name: str) -> np.ndarray | None:
    """The start of issue 13's games as their rules text states it (None for the others)."""
    b = np.zeros(SLOTS, dtype=np.int8)
    if name == "long-nardy":  # 15 on our head (24), theirs on their head: our 12
        b[HEAD], b[12] = 15, -15
    elif name == "acey-deucey":  # nothing on the points: all 15 of each side wait to enter
        b[OUR_WAITING], b[THEIR_WAITING] = 15, -15
    else:
        return None
    return b


def other(p: int, rotate: bool) -> int:
    """The opponent's number of our point ``p`` (1..24)."""
    if rotate:  # their point q is our point q + 12 (mod 24), and the other way round
        return (p + 11) % 24 + 1
    return 25 - p


@dataclass(frozen=True)
class State:
    """A position from the mover's side, with what the turn so far restricts.

    ``me[p]``: our checkers on top of point p (1..24), ``me[25]`` our bar.
    ``them[p]``: the opponent's checkers on top of our point p, ``them[0]`` their bar.
    ``pin_me``/``pin_them``: bitmask (bit p) of points where one of ours / theirs is pinned.
    ``frozen``: bitmask of points holding one of our checkers that hit there this turn (tavla).
    ``wait_me``/``wait_them``: checkers not yet entered (acey-deucey).
    ``heads``: our checkers that left the head (24) this turn (long nardy).
    """

    me: tuple[int, ...]
    them: tuple[int, ...]
    pin_me: int = 0
    pin_them: int = 0
    frozen: int = 0
    wait_me: int = 0
    wait_them: int = 0
    heads: int = 0


def from_board(board: np.ndarray) -> State:
    """Read a 52-slot variant board (seen by the side on roll)."""
    b = [int(x) for x in np.asarray(board).reshape(-1)]
    if len(b) != SLOTS:
        raise ValueError(f"a variant board has {SLOTS} slots, got {len(b)}")
    if b[OUR_WAITING] < 0 or b[THEIR_WAITING] > 0:
        raise ValueError("waiting checkers: ours (slot 50) >= 0, theirs (slot 51) <= 0")
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
    return State(tuple(me), tuple(them), pin_me, pin_them, 0, b[OUR_WAITING], -b[THEIR_WAITING])


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
    out[OUR_WAITING] = s.wait_me
    out[THEIR_WAITING] = -s.wait_them
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
    out[OUR_WAITING] = s.wait_them
    out[THEIR_WAITING] = -s.wait_me
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
    """Checkers not borne off (on the points, pinned, on the bar or waiting): ours and theirs."""
    return (
        sum(s.me[1:26]) + bin(s.pin_me).count("1") + s.wait_me,
        sum(s.them[0:25]) + bin(s.pin_them).count("1") + s.wait_them,
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
    return s.me[BAR] == 0 and s.wait_me == 0 and not any(s.me[7:25]) and s.pin_me == 0


def _leave(me: list[int], them: list[int], s: State, src: int) -> tuple[int, int]:
    """Take one checker of ours off ``src``; free theirs pinned there when it was our last one."""
    me[src] -= 1
    pin_them = s.pin_them
    frozen = s.frozen
    if me[src] == 0 and pin_them >> src & 1:
        pin_them &= ~(1 << src)
        them[src] = 1
    return pin_them, frozen


def _enter(s: State, d: int, r: Rules, src: int) -> Iterator[tuple[int, int, State]]:
    """A checker from our bar (src 25) or from those waiting (src 26) enters with die d on point 25 - d."""
    dst = 25 - d
    if _blocked(s, dst, r):
        return
    me, them = list(s.me), list(s.them)
    wait_me = s.wait_me
    if src == BAR:
        me[BAR] -= 1
    else:
        wait_me -= 1
    pin_them = s.pin_them
    if them[dst] == 1 and r.capture == "hit":
        them[dst] = 0
        them[0] += 1
    elif them[dst] == 1 and r.capture == "pin":
        them[dst] = 0
        pin_them |= 1 << dst
    me[dst] += 1
    yield src, dst, replace(s, me=tuple(me), them=tuple(them), pin_them=pin_them, wait_me=wait_me)


def steps_of(s: State, d: int, r: Rules, limit: int = 1) -> Iterator[tuple[int, int, State]]:
    """Every single move of one die: (from, to, state after).

    ``limit``: in long nardy, how many checkers may leave the head this turn.
    """
    if s.me[BAR] > 0:  # bar first: nothing else moves, not even a waiting checker
        yield from _enter(s, d, r, BAR)
        return
    if s.wait_me > 0:
        yield from _enter(s, d, r, WAITING)
        if r.enter_all:  # the house rule: nothing on the points moves while one of ours waits
            return
    home = _all_home(s)
    highest = max((p for p in range(1, 7) if s.me[p]), default=0)
    for src in range(24, 0, -1):
        movable = s.me[src] - (s.frozen >> src & 1)
        if movable <= 0:
            continue
        if r.first_pass and src == 24 and not _may_leave_start(s):
            continue
        if r.head and src == HEAD and s.heads >= limit:
            continue
        heads = s.heads + (r.head and src == HEAD)
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
            yield (
                src,
                dst,
                replace(s, me=tuple(me), them=tuple(them), pin_them=pin_them, frozen=frozen, heads=heads),
            )
        elif home and (dst == 0 or src == highest):
            # Bear off: exactly, or with a higher die from the highest occupied point.
            me, them = list(s.me), list(s.them)
            pin_them, frozen = _leave(me, them, s, src)
            yield (
                src,
                OFF,
                replace(s, me=tuple(me), them=tuple(them), pin_them=pin_them, frozen=frozen, heads=heads),
            )


def final_ok(s: State, r: Rules) -> bool:
    """The rules on the position a play ends in: fevga's starting quarter, the prime (fevga, long nardy)."""
    if r.quarter and all(s.me[p] > 0 for p in range(19, 25)):
        return False
    if r.prime:
        held = [s.me[p] > 0 for p in FEVGA_PATH]
        for j in range(len(FEVGA_PATH) - 5):
            if all(held[j : j + 6]) and not any(s.them[p] for p in FEVGA_PATH[j + 6 :]):
                return False
    return True


def head_limit(s: State, dice: tuple[int, int]) -> int:
    """Long nardy: checkers that may leave the head this turn (two on a first roll of 6-6, 4-4 or 3-3)."""
    first = s.me[HEAD] == 15
    return 2 if first and dice[0] == dice[1] and dice[0] in (6, 4, 3) else 1


def _key(s: State) -> tuple:
    return (s.me, s.them, s.pin_me, s.pin_them, s.frozen, s.wait_me, s.wait_them, s.heads)


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
    state: State


def _board(s: State) -> tuple:
    """What a result is: the checkers of both sides (not what the turn so far restricts)."""
    return (s.me, s.them, s.pin_me, s.pin_them, s.wait_me, s.wait_them)


def roll(start: State, dice: tuple[int, int], r: Rules, limit: int) -> dict[tuple, tuple[State, tuple]]:
    """Legal plays of one roll (or of one part of a 1-2 turn) from ``start``.

    Maps each distinct result (:func:`_board`) to its state and one play as
    steps.  ``limit``: checkers that may leave the head (long nardy).
    """
    found: dict[tuple, list[_Found]] = {}
    for order in _orders(dice):
        frontier: dict[tuple, tuple[State, tuple[tuple[int, int], ...]]] = {_key(start): (start, ())}
        for depth, d in enumerate(order, 1):
            nxt: dict[tuple, tuple[State, tuple[tuple[int, int], ...]]] = {}
            for s, steps in frontier.values():
                for src, dst, s2 in steps_of(s, d, r, limit):
                    k = _key(s2)
                    if k not in nxt:
                        nxt[k] = (s2, (*steps, (src, dst)))
            for s2, steps in nxt.values():
                if final_ok(s2, r):
                    found.setdefault(_board(s2), []).append(_Found(depth, frozenset({d}), steps, s2))
            frontier = nxt
            if not frontier:
                break
    if not found:
        return {}
    if not r.forced:
        return {k: (v[0].state, v[0].steps) for k, v in found.items()}
    most = max(f.used for v in found.values() for f in v)
    keep = {k: [f for f in v if f.used == most] for k, v in found.items()}
    keep = {k: v for k, v in keep.items() if v}
    if most == 1 and dice[0] != dice[1]:
        high = max(dice)
        with_high = {k: [f for f in v if high in f.dice] for k, v in keep.items()}
        with_high = {k: v for k, v in with_high.items() if v}
        if with_high:
            keep = with_high
    return {k: (v[0].state, v[0].steps) for k, v in keep.items()}


def _fresh(s: State) -> State:
    """A state at the start of a new part of the turn (nothing frozen, no head count)."""
    return replace(s, frozen=0, heads=0)


def _won(s: State) -> bool:
    """The mover has borne off its last checker: the game is over, nobody rolls again."""
    return in_play(s)[0] == 0


@dataclass(frozen=True)
class Turn:
    """One whole turn: its steps in the order played, and the double chosen on a 1-2 (0: none)."""

    steps: tuple[tuple[int, int], ...]
    double: int = 0


def is_one_two(dice: tuple[int, int], r: Rules) -> bool:
    return bool(r.one_two) and sorted(dice) == [1, 2]


def _parts(d: int, r: Rules) -> list[tuple[int, int]]:
    """The doubles played after the 1 and the 2 when ``d`` is chosen."""
    return [(d, d)] if r.one_two == "american" else [(d, d), (7 - d, 7 - d)]


def turns(board: np.ndarray, dice: tuple[int, int], label: str) -> dict[tuple[bytes, bool], Turn]:
    """Every legal whole turn of a roll: (result, again) -> one turn that reaches it.

    ``again``: the mover rolls again (a 1-2 turn played in full, unless it
    bore off the mover's last checker); the result is then seen by the
    mover, otherwise by the opponent (the side on roll next, either way).
    A roll with no legal play gives no turns (a pass).
    """
    r = rules_of(label)
    start = from_board(board)
    out: dict[tuple[bytes, bool], Turn] = {}

    def done(s: State, steps: tuple, double: int, again: bool) -> None:
        view = to_board(s) if again else opponent_board(s, r.rotate)
        out.setdefault((view.tobytes(), again), Turn(steps, double))

    first = roll(start, dice, r, head_limit(start, dice))
    for s1, steps1 in first.values():
        if not is_one_two(dice, r) or len(steps1) < 2:
            done(s1, steps1, 0, False)
            continue
        for d in range(1, 7):
            # Each part of the turn goes on from every end of the part before; a part played short ends it.
            ends = [(s1, steps1, True)]
            for part in _parts(d, r):
                nxt = []
                for s, steps, full in ends:
                    if not full:
                        nxt.append((s, steps, False))
                        continue
                    plays = roll(_fresh(s), part, r, 0)
                    if not plays:
                        nxt.append((s, steps, False))
                    for s2, more in plays.values():
                        nxt.append((s2, steps + more, len(more) == 4))
                ends = nxt
            for s, steps, full in ends:
                done(s, steps, d, full and not _won(s))
    return out


def plays(board: np.ndarray, dice: tuple[int, int], label: str) -> dict[bytes, tuple[tuple[int, int], ...]]:
    """Legal results of one roll in a game whose turn is one roll: the opponent's view -> one play."""
    found = turns(board, dice, label)
    assert not any(again for _, again in found), "a 1-2 turn: use turns()"
    return {k: t.steps for (k, _), t in found.items()}


def results(board: np.ndarray, dice: tuple[int, int], label: str) -> set[bytes]:
    """The set of legal results (opponent's view, as bytes of the 52-slot int8 board)."""
    return set(plays(board, dice, label))


def _replay_part(
    s: State, dice: list[int], steps: tuple[tuple[int, int], ...], r: Rules, limit: int
) -> State | None:
    """The state after playing ``steps`` one legal single move at a time with ``dice``, or None."""

    def go(s: State, i: int, left: list[int]) -> State | None:
        if i == len(steps):
            return s if final_ok(s, r) else None
        for d in sorted(set(left)):
            for src, dst, s2 in steps_of(s, d, r, limit):
                if (src, dst) == steps[i]:
                    rest = list(left)
                    rest.remove(d)
                    end = go(s2, i + 1, rest)
                    if end is not None:
                        return end
        return None

    return go(s, 0, list(dice))


@lru_cache(maxsize=1 << 16)
def _most(s: State, dice: tuple[int, int], r: Rules) -> int:
    """The most steps any legal play of ``dice`` from ``s`` uses (0: none).

    Cached: replaying the thousands of rows of one 1-2 asks it of the same few positions.
    """
    return max((len(steps) for _, steps in roll(_fresh(s), dice, r, 0).values()), default=0)


def replay_turn(
    board: np.ndarray, dice: tuple[int, int], steps: tuple[tuple[int, int], ...], double: int, label: str
) -> tuple[bytes, bool] | None:
    """The (result, again) of a turn given as steps (and the double chosen on a 1-2), or None if illegal.

    Each step must be a legal single move of a die still unused in its part
    of the turn (a bear-off may use a higher die).  The parts of a 1-2 turn
    are the first two steps (the 1 and the 2), the next four (``double``)
    and, in the European rule, four more (its complement); every part after
    the first must be as long as the forced-play rule makes it, and a turn
    stopping after the 1 and the 2 needs a double ``double`` (or, given 0,
    some double) that cannot be played at all.
    """
    r = rules_of(label)
    s = from_board(board)
    left = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    if not is_one_two(dice, r) or len(steps) < 2:
        if double:
            return None
        end = _replay_part(s, left, steps, r, head_limit(s, dice))
        return None if end is None else (opponent_board(end, r.rotate).tobytes(), False)
    after = _replay_part(s, left, steps[:2], r, 0)
    if after is None:
        return None
    s = after
    if len(steps) == 2:
        if not any(_most(s, (d, d), r) == 0 for d in ([double] if double else range(1, 7))):
            return None
        return opponent_board(s, r.rotate).tobytes(), False
    if not 1 <= double <= 6:
        return None
    rest = steps[2:]
    for part in _parts(double, r):
        mine, rest = rest[:4], rest[4:]
        most = _most(s, part, r)
        if len(mine) != most if r.forced else (most and not mine):
            return None  # forced play: as many as possible; else at least one when one can be played
        if mine:
            end = _replay_part(_fresh(s), [part[0]] * 4, mine, r, 0)
            if end is None:
                return None
            s = end
        if len(mine) < 4:
            break  # a part played short ends the turn
    if rest:
        return None
    again = len(steps) == 2 + 4 * len(_parts(double, r)) and not _won(s)
    return (to_board(s) if again else opponent_board(s, r.rotate)).tobytes(), again


def replay(
    board: np.ndarray, dice: tuple[int, int], steps: tuple[tuple[int, int], ...], label: str
) -> bytes | None:
    """The result (seen by the opponent) of one roll's play given as steps, or None if illegal."""
    found = replay_turn(board, dice, steps, 0, label)
    return None if found is None else found[0]
