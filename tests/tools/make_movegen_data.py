#!/usr/bin/env python
"""Generate the move-generator test data from GNU Backgammon's own generator.

Writes two files (default folder ``tests/data``):

``movegen_positions.txt``
    ``POSITION_ID DICE KIND`` lines: positions from seeded self-play games
    (gnubg 0-ply and uniformly random legal plays) and hand-built adversarial
    positions, filtered with ``gnubg_nn`` so that each one exercises the rule
    it is meant to (hits during the bear-off, bar entry against 4-6 point
    boards, doubles that cannot be played in full, one-die plays, huge
    numbers of plays, bear-offs with gaps).
``perft.txt``
    ``POSITION_ID DICE COUNT`` golden counts: ``COUNT`` is
    ``len(gnubg_nn.moves(board, d1, d2))``, the number of distinct resulting
    positions.

Conventions (checked by this script):

* ``gnubg_nn`` boards are ``[side_not_on_roll, side_on_roll]``, 25 ints
  each, index 0..23 = points 1..24 from that side's own view, 24 = bar.
* ``gnubg_nn.position_id(board)`` encodes ``board[0]`` first, so the first
  half of an ID is the side *not* on roll; ``board_from_position_id``
  returns the side on roll as ``board[1]``.  Every ID written here decodes
  with ``gnubg_nn.board_from_position_id`` to the side on roll as
  ``board[1]``.

The script is deterministic: all randomness comes from one
``numpy.random.Generator`` seeded from ``--seed`` (gnubg's 0-ply evaluation
is deterministic too).

Usage::

    .venv/bin/python tests/tools/make_movegen_data.py [--seed 1729] [--out tests/data]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import gnubg_nn
import numpy as np

DEFAULT_SEED = 1729
STRONG_GAMES = 400
RANDOM_GAMES = 110
MAX_PLIES = 2000

ROLLS = [(hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1)]  # 21 rolls, hi >= lo
DOUBLES = [r for r in ROLLS if r[0] == r[1]]
NON_DOUBLES = [r for r in ROLLS if r[0] != r[1]]
KINDS = ("strong", "random", "bearoff_hit", "bar_vs_board", "doubles_partial", "larger_die", "misc")

START = [[0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0] for _ in range(2)]

# --------------------------------------------------------------------------
# boards.  b = [opp(25), me(25)]; "our point" p (1..24) is b[1][p - 1] for us
# and b[0][24 - p] for the opponent; our bar is b[1][24], theirs b[0][24].
# --------------------------------------------------------------------------


def empty() -> list[list[int]]:
    return [[0] * 25, [0] * 25]


def copy(b):
    return [list(b[0]), list(b[1])]


def swap(b):
    return [list(b[1]), list(b[0])]


def from_key(key: str):
    t = gnubg_nn.board_from_position_key(key)
    return [list(t[0]), list(t[1])]


def me_idx(p: int) -> int:
    """Index in b[1] of our point p (25 = our bar)."""
    return p - 1


def opp_idx(p: int) -> int:
    """Index in b[0] of our point p (0 = their bar)."""
    return 24 if p == 0 else 24 - p


def me_at(b, p):
    return b[1][me_idx(p)]


def opp_at(b, p):
    return b[0][opp_idx(p)]


def put_me(b, p, n=1):
    b[1][me_idx(p)] += n


def put_opp(b, p, n=1):
    b[0][opp_idx(p)] += n


def legal(b) -> bool:
    """At most 15 checkers a side on board + bar, none negative, no point shared,
    both sides still playing, and not both on the bar against closed boards."""
    for side in b:
        if len(side) != 25 or min(side) < 0 or sum(side) > 15:
            return False
    if sum(b[0]) == 0 or sum(b[1]) == 0:
        return False
    for i in range(24):
        if b[0][i] and b[1][23 - i]:
            return False
    if b[0][24] and b[1][24] and all(b[0][i] >= 2 for i in range(6)) and all(b[1][i] >= 2 for i in range(6)):
        return False
    return True


def free_for_me(b, p) -> bool:
    return p == 25 or opp_at(b, p) == 0


def free_for_opp(b, p) -> bool:
    return p == 0 or me_at(b, p) == 0


def scatter_me(rng, b, n, points, max_per=5):
    """Put up to n of our checkers on random points among ``points``."""
    points = list(points)
    for _ in range(int(n)):
        ok = [p for p in points if free_for_me(b, p) and me_at(b, p) < max_per]
        if not ok or sum(b[1]) >= 15:
            return
        put_me(b, ok[rng.integers(len(ok))])


def scatter_opp(rng, b, n, points, max_per=5):
    points = list(points)
    for _ in range(int(n)):
        ok = [p for p in points if free_for_opp(b, p) and opp_at(b, p) < max_per]
        if not ok or sum(b[0]) >= 15:
            return
        put_opp(b, ok[rng.integers(len(ok))])


def moves_with_steps(b, d1, d2):
    """gnubg's plays: tuple of (key, steps); key keeps the mover as board[1]."""
    return gnubg_nn.moves(b, int(d1), int(d2), 1)


def dice_used(ms) -> int:
    return len(ms[0][1]) if ms else 0


def can_hit(b, ms) -> bool:
    bar = b[0][24]
    return any(gnubg_nn.board_from_position_key(k)[0][24] > bar for k, _ in ms)


# --------------------------------------------------------------------------
# collection
# --------------------------------------------------------------------------


class Collector:
    def __init__(self, rng):
        self.rng = rng
        self.lines: list[tuple[str, str, str]] = []
        self.seen: set[tuple[str, int, int]] = set()
        self.counts: dict[tuple[str, str], int] = {}

    def add(self, b, d1, d2, kind, *, shuffle_dice=False) -> bool:
        assert kind in KINDS
        assert legal(b), b
        d1, d2 = int(d1), int(d2)
        key = (gnubg_nn.key_of_board(b), min(d1, d2), max(d1, d2))
        if key in self.seen:
            return False
        self.seen.add(key)
        pid = gnubg_nn.position_id(b)
        back = gnubg_nn.board_from_position_id(pid)
        assert [list(back[0]), list(back[1])] == b, (pid, b, back)
        if shuffle_dice and self.rng.random() < 0.5:
            d1, d2 = d2, d1
        self.lines.append((pid, f"{d1}{d2}", kind))
        return True


class Quota:
    """Per-(label, roll) quotas for the adversarial searches."""

    def __init__(self, targets: dict[str, int], rolls):
        self.left = {(lab, r): n for lab, n in targets.items() for r in rolls}

    def wants(self, label, roll) -> bool:
        return self.left.get((label, roll), 0) > 0

    def take(self, label, roll):
        self.left[(label, roll)] -= 1

    def done(self) -> bool:
        return all(v <= 0 for v in self.left.values())

    def missing(self) -> dict:
        return {k: v for k, v in self.left.items() if v > 0}


def fill(
    col: Collector, kind: str, quota: Quota, make, classify, rolls, *, per_position=4, max_tries=200_000
):
    """Draw positions from ``make(rng)`` and keep (position, roll) pairs whose
    ``classify(b, roll, ms)`` label still has quota, at most ``per_position``
    rolls per position."""
    rng = col.rng
    tries = 0
    while not quota.done() and tries < max_tries:
        tries += 1
        b = make(rng)
        if b is None or not legal(b):
            continue
        order = rng.permutation(len(rolls))
        taken = 0
        for i in order:
            roll = rolls[i]
            ms = moves_with_steps(b, *roll)
            label = classify(b, roll, ms)
            if label is None or not quota.wants(label, roll):
                continue
            if col.add(b, roll[0], roll[1], kind, shuffle_dice=True):
                quota.take(label, roll)
                taken += 1
                if taken >= per_position:
                    break
    if not quota.done():
        print(f"  {kind}: quota not met after {tries} tries: {quota.missing()}", file=sys.stderr)
    return tries


# --------------------------------------------------------------------------
# games
# --------------------------------------------------------------------------


def play_game(col: Collector, kind: str, choose) -> int:
    rng = col.rng
    b = copy(START)
    for ply in range(MAX_PLIES):
        d1, d2 = (int(x) for x in rng.integers(1, 7, size=2))
        col.add(b, d1, d2, kind)
        keys = gnubg_nn.moves(b, d1, d2)
        if not keys:
            nb = swap(b)
        elif len(keys) == 1:
            nb = swap(from_key(keys[0]))
        else:
            nb = choose(b, d1, d2, keys)
        if sum(nb[0]) == 0:  # the mover (now board[0]) has borne off everything
            return ply + 1
        b = nb
    raise RuntimeError("game did not finish")


def strong_choice(b, d1, d2, keys):
    best, ranked = gnubg_nn.best_move(b, d1, d2, list=1)
    top_key, top_steps = ranked[0][0], ranked[0][1]
    flat = tuple(x for step in best for x in step)
    assert tuple(top_steps) == flat, (best, ranked[0])
    nb = from_key(top_key)  # best_move's list keys are already swapped: next roller is board[1]
    assert gnubg_nn.key_of_board(swap(nb)) in keys
    return nb


def random_choice_factory(rng):
    def choose(b, d1, d2, keys):
        return swap(from_key(keys[int(rng.integers(len(keys)))]))

    return choose


# --------------------------------------------------------------------------
# adversarial positions
# --------------------------------------------------------------------------


def make_bearoff_hit(rng):
    """We bear off while the opponent is on the bar or has blots in our home,
    or we were hit during the bear-off and have checkers on the bar."""
    b = empty()
    if rng.random() < 0.7:
        scatter_me(rng, b, rng.integers(1, 10), range(1, 7), max_per=4)
        if rng.random() < 0.5:
            put_opp(b, 0, int(rng.integers(1, 3)))
        free = [p for p in range(1, 7) if me_at(b, p) == 0]
        rng.shuffle(free)
        for p in free[: rng.integers(0, 3)]:
            put_opp(b, p, 1)
        if opp_at(b, 0) == 0 and not any(opp_at(b, p) for p in range(1, 7)):
            return None
        scatter_opp(rng, b, rng.integers(0, 12), range(7, 25), max_per=4)
    else:
        put_me(b, 25, int(rng.integers(1, 3)))
        scatter_me(rng, b, rng.integers(1, 10), range(1, 7), max_per=4)
        if sum(b[1]) >= 15:
            return None
        # the opponent's home board (our 19..24): some made points, some blots
        home = list(range(19, 25))
        rng.shuffle(home)
        made = int(rng.integers(1, 5))
        for p in home[:made]:
            put_opp(b, p, int(rng.integers(2, 4)))
        for p in home[made : made + int(rng.integers(0, 2))]:
            put_opp(b, p, 1)
        # the checker that hit us, maybe still in our home
        if rng.random() < 0.6:
            free = [p for p in range(1, 7) if me_at(b, p) == 0]
            if free:
                put_opp(b, free[rng.integers(len(free))], 1)
        scatter_opp(rng, b, rng.integers(0, 6), range(7, 25), max_per=4)
    return b


def classify_bearoff_hit(b, roll, ms):
    if b[1][24]:
        return "entering"
    return "hit" if ms and can_hit(b, ms) else "nohit"


def make_bar_vs_board(rng):
    """1-3 of our checkers on the bar against a 4-, 5- or 6-point board."""
    b = empty()
    k = int(rng.integers(1, 4))
    put_me(b, 25, k)
    m = int(rng.choice([4, 5, 6]))
    home = list(range(19, 25))
    rng.shuffle(home)
    for p in home[:m]:
        put_opp(b, p, int(rng.integers(2, 4)))
    if m < 6 and rng.random() < 0.5:
        put_opp(b, home[m], 1)
    scatter_me(rng, b, rng.integers(0, 16 - k), range(1, 25), max_per=5)
    scatter_opp(rng, b, rng.integers(0, 15), range(1, 19), max_per=5)
    return b


def classify_bar_vs_board(b, roll, ms):
    made = sum(1 for p in range(19, 25) if opp_at(b, p) >= 2)
    if made < 4:
        return None
    return f"board{made}" if ms or made == 6 else "dance"


def make_prime(rng, b, lo, hi):
    length = int(rng.integers(lo, hi + 1))
    start = int(rng.integers(1, 25 - length + 1))
    for p in range(start, start + length):
        put_opp(b, p, int(rng.integers(2, 4)))
    return start, length


def make_doubles_partial(rng):
    b = empty()
    r = rng.random()
    if r < 0.55:
        start, length = make_prime(rng, b, 4, 6)
        top = start + length - 1
        behind = [p for p in range(top + 1, 25)] + [25]
        scatter_me(rng, b, rng.integers(1, 9), behind, max_per=4)
        if rng.random() < 0.3:  # a few checkers that can move
            scatter_me(rng, b, rng.integers(1, 3), range(1, 25), max_per=3)
    elif r < 0.8:
        # on the bar against a 3- to 5-point board
        put_me(b, 25, int(rng.integers(1, 5)))
        home = list(range(19, 25))
        rng.shuffle(home)
        for p in home[: int(rng.integers(3, 6))]:
            put_opp(b, p, 2)
        scatter_me(rng, b, rng.integers(0, 10), range(1, 25), max_per=4)
    else:
        # many scattered opponent points, few of our checkers
        for _ in range(int(rng.integers(5, 8))):
            p = int(rng.integers(1, 25))
            if me_at(b, p) == 0 and sum(b[0]) <= 13:
                put_opp(b, p, 2)
        scatter_me(rng, b, rng.integers(1, 5), range(1, 26), max_per=3)
    scatter_opp(rng, b, rng.integers(0, 6), range(0, 25), max_per=5)
    return b


def classify_doubles_partial(b, roll, ms):
    used = dice_used(ms)
    if used == 0:
        return "none"
    return "partial" if used < 4 else None


def make_larger_die(rng):
    b = empty()
    r = rng.random()
    if r < 0.5:
        # a few checkers among many opponent points
        for _ in range(int(rng.integers(4, 8))):
            p = int(rng.integers(1, 25))
            if sum(b[0]) <= 13:
                put_opp(b, p, 2)
        scatter_me(rng, b, rng.integers(1, 4), range(1, 26), max_per=2)
    elif r < 0.8:
        # checkers behind a prime
        start, length = make_prime(rng, b, 3, 6)
        top = start + length - 1
        scatter_me(rng, b, rng.integers(1, 4), list(range(top + 1, 25)) + [25], max_per=2)
        scatter_opp(rng, b, rng.integers(0, 4), range(0, 25), max_per=3)
    else:
        # bear-off against opponent points in our home board
        for p in rng.permutation(np.arange(1, 7))[: int(rng.integers(1, 4))]:
            put_opp(b, int(p), 2)
        scatter_me(rng, b, rng.integers(1, 4), range(1, 10), max_per=2)
        scatter_opp(rng, b, rng.integers(0, 5), range(0, 25), max_per=3)
    return b


def classify_larger_die(b, roll, ms):
    if dice_used(ms) != 1:
        return None
    hi, lo = roll
    hi_alone = bool(gnubg_nn.moves(b, hi, hi))
    lo_alone = bool(gnubg_nn.moves(b, lo, lo))
    if hi_alone and lo_alone:
        return "must_larger"
    return "hi_only" if hi_alone else "lo_only"


def make_bearoff_gaps(rng):
    """A bear-off, mostly without contact, with gaps on the home board."""
    b = empty()
    n = int(rng.integers(1, 16))
    pts = rng.permutation(np.arange(1, 7))[: int(rng.integers(1, 5))]
    for _ in range(n):
        put_me(b, int(pts[rng.integers(len(pts))]))
    top = max(p for p in range(1, 7) if me_at(b, p))
    if rng.random() < 0.75:
        scatter_opp(rng, b, rng.integers(1, 16), range(top + 1, 25), max_per=6)  # no contact
    else:
        scatter_opp(rng, b, rng.integers(1, 16), range(0, 25), max_per=4)
    return b


def make_chaos(rng):
    """Anything legal: random counts for both sides anywhere, bars included."""
    b = empty()
    scatter_me(rng, b, rng.integers(1, 16), range(1, 26), max_per=int(rng.integers(1, 7)))
    scatter_opp(rng, b, rng.integers(1, 16), range(0, 25), max_per=int(rng.integers(1, 7)))
    return b


def count(b, roll) -> int:
    return len(gnubg_nn.moves(b, roll[0], roll[1]))


def mutate(rng, b):
    nb = copy(b)
    side = 1 if rng.random() < 0.8 else 0
    idxs = [i for i in range(25) if nb[side][i] > 0]
    i = idxs[rng.integers(len(idxs))]
    j = int(rng.integers(0, 25))
    nb[side][i] -= 1
    nb[side][j] += 1
    if rng.random() < 0.1 and sum(nb[side]) > 1:
        nb[side][j] -= 1  # bear one off
    return nb if legal(nb) else None


def search_max(rng, roll, iters):
    """Simulated annealing (with restarts) on the number of distinct plays for ``roll``."""
    best_b, best_n = None, -1
    found = {}
    restarts = 3
    for _ in range(restarts):
        b = empty()
        for p in rng.permutation(np.arange(1, 25))[:15]:
            put_me(b, int(p))
        put_opp(b, 0, 1)
        if rng.random() < 0.5:
            put_opp(b, int(rng.choice([p for p in range(1, 25) if me_at(b, p) == 0])), 2)
        n = count(b, roll)
        temp = 0.02 * n + 1.0
        for _ in range(iters // restarts):
            temp *= 0.998
            nb = mutate(rng, b)
            if nb is None:
                continue
            nn = count(nb, roll)
            if nn >= n or rng.random() < np.exp((nn - n) / temp):
                b, n = nb, nn
                found[gnubg_nn.key_of_board(b)] = (n, copy(b))
                if n > best_n:
                    best_b, best_n = copy(b), n
    # polish: steepest ascent over every single-checker relocation (either side)
    improved = True
    while improved:
        improved = False
        for side in (1, 0):
            for i in range(25):
                if best_b[side][i] == 0:
                    continue
                for j in range(-1, 25):  # -1: bear the checker off
                    nb = copy(best_b)
                    nb[side][i] -= 1
                    if j >= 0:
                        nb[side][j] += 1
                    if nb == best_b or not legal(nb):
                        continue
                    nn = count(nb, roll)
                    if nn > best_n:
                        best_b, best_n, improved = nb, nn, True
                        found[gnubg_nn.key_of_board(nb)] = (nn, copy(nb))
    top = sorted(found.values(), key=lambda t: -t[0])
    return best_b, best_n, top


# --------------------------------------------------------------------------
# main
# --------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parents[1] / "data")
    ap.add_argument("--strong-games", type=int, default=STRONG_GAMES)
    ap.add_argument("--random-games", type=int, default=RANDOM_GAMES)
    args = ap.parse_args(argv)

    t0 = time.time()
    rng = np.random.default_rng(args.seed)
    col = Collector(rng)

    def stamp(what):
        print(f"[{time.time() - t0:7.1f}s] {what}: {len(col.lines)} lines", file=sys.stderr)

    # misc 1: the starting position with every roll
    for hi, lo in ROLLS:
        col.add(copy(START), hi, lo, "misc")

    for _ in range(args.strong_games):
        play_game(col, "strong", strong_choice)
    stamp("strong games")
    choose = random_choice_factory(rng)
    for _ in range(args.random_games):
        play_game(col, "random", choose)
    stamp("random games")

    quota = Quota({"hit": 20, "nohit": 6, "entering": 8}, ROLLS)
    quota.left[("hit", (6, 6))] = 0  # 6-6 cannot hit when every checker is on the home board
    fill(col, "bearoff_hit", quota, make_bearoff_hit, classify_bearoff_hit, ROLLS)
    stamp("bearoff_hit")
    fill(
        col,
        "bar_vs_board",
        Quota({"board4": 12, "board5": 12, "board6": 2, "dance": 3}, ROLLS),
        make_bar_vs_board,
        classify_bar_vs_board,
        ROLLS,
    )
    stamp("bar_vs_board")
    fill(
        col,
        "doubles_partial",
        Quota({"partial": 70, "none": 8}, DOUBLES),
        make_doubles_partial,
        classify_doubles_partial,
        DOUBLES,
        per_position=2,
    )
    stamp("doubles_partial")
    fill(
        col,
        "larger_die",
        Quota({"must_larger": 14, "lo_only": 8, "hi_only": 5}, NON_DOUBLES),
        make_larger_die,
        classify_larger_die,
        NON_DOUBLES,
        per_position=2,
    )
    stamp("larger_die")

    # misc 2: bear-offs with gaps, and anything-goes legal positions
    fill(
        col,
        "misc",
        Quota({"gaps": 10}, ROLLS),
        make_bearoff_gaps,
        lambda b, r, ms: "gaps",
        ROLLS,
        per_position=3,
    )
    fill(col, "misc", Quota({"chaos": 8}, ROLLS), make_chaos, lambda b, r, ms: "chaos", ROLLS, per_position=3)
    stamp("misc bear-off gaps / chaos")

    # misc 3: the largest numbers of distinct plays we can find, for every roll
    largest = []
    for roll in ROLLS:
        iters = 9000 if roll[0] == roll[1] else 1200
        best_b, best_n, top = search_max(rng, roll, iters)
        largest.append((best_n, roll, best_b))
        kept = 0
        for _n, b in top:
            if col.add(b, roll[0], roll[1], "misc"):
                kept += 1
            if kept >= 6:
                break
    largest.sort(key=lambda t: -t[0])
    stamp("largest-count search")

    # ---------------------------------------------------------------- checks
    per_kind = Counter(kind for _, _, kind in col.lines)
    rolls_per_kind = defaultdict(set)
    for _, dice, kind in col.lines:
        rolls_per_kind[kind].add(tuple(sorted(map(int, dice)))[::-1])
    for kind in KINDS:
        want = {"doubles_partial": set(DOUBLES), "larger_die": set(NON_DOUBLES)}.get(kind, set(ROLLS))
        missing = want - rolls_per_kind[kind]
        assert not missing, (kind, missing)
        assert per_kind[kind] >= 100, (kind, per_kind[kind])

    # ------------------------------------------------------------- positions
    args.out.mkdir(parents=True, exist_ok=True)
    version = gnubg_nn.__version__.version
    cmd = f".venv/bin/python tests/tools/make_movegen_data.py --seed {args.seed}"
    if args.strong_games != STRONG_GAMES or args.random_games != RANDOM_GAMES:
        cmd += f" --strong-games {args.strong_games} --random-games {args.random_games}"
    header = [
        "# Move-generator differential test positions.",
        f"# Generated by: {cmd}",
        f"# Seed: {args.seed} (numpy.random.default_rng); gnubg-nn {version}.",
        "# Format: POSITION_ID DICE KIND",
        "#   POSITION_ID: GNUBG Position ID of the position with the side on roll as board[1] of",
        "#     gnubg_nn.board_from_position_id (the ID's first half is the side NOT on roll).",
        "#   DICE: the two dice, in either order (both orders occur on purpose).",
        "#   KIND: " + ", ".join(KINDS),
        "#     strong          positions from gnubg 0-ply self-play games",
        "#     random          positions from games with uniformly random legal plays",
        "#     bearoff_hit     bear-offs against a checker on the bar or blots in our home board,",
        "#                     and our checkers on the bar after being hit during the bear-off",
        "#     bar_vs_board    1-3 checkers on the bar against 4-, 5- and 6-point boards",
        "#     doubles_partial doubles that cannot be played in full (or at all)",
        "#     larger_die      only one die can be played (must play the larger; or only one is playable)",
        "#     misc            the start position, bear-offs with gaps, random legal positions,",
        "#                     and the largest numbers of distinct plays found",
        f"# Lines: {len(col.lines)} (" + ", ".join(f"{k} {per_kind[k]}" for k in KINDS) + ")",
    ]
    pos_path = args.out / "movegen_positions.txt"
    pos_path.write_text("\n".join(header + [" ".join(t) for t in col.lines]) + "\n")

    # ----------------------------------------------------------------- perft
    perft: list[tuple[str, str, int]] = []
    perft_seen = set()

    def perft_add(b, hi, lo):
        pid = gnubg_nn.position_id(b)
        if (pid, hi, lo) in perft_seen:
            return
        perft_seen.add((pid, hi, lo))
        perft.append((pid, f"{hi}{lo}", count(b, (hi, lo))))

    for hi, lo in ROLLS:
        perft_add(START, hi, lo)
    for _n, (hi, lo), b in largest[:20]:
        perft_add(b, hi, lo)
    # zero-play rolls
    zero = []
    for pid, dice, kind in col.lines:
        if kind in ("bar_vs_board", "doubles_partial", "misc") and len(zero) < 400:
            b = [list(x) for x in gnubg_nn.board_from_position_id(pid)]
            if count(b, (int(dice[0]), int(dice[1]))) == 0:
                zero.append((b, int(dice[0]), int(dice[1])))
    for i in rng.permutation(len(zero))[:20]:
        b, d1, d2 = zero[i]
        perft_add(b, max(d1, d2), min(d1, d2))
    # a spread of every kind
    by_kind = defaultdict(list)
    for line in col.lines:
        by_kind[line[2]].append(line)
    for kind in KINDS:
        lines = by_kind[kind]
        for i in rng.permutation(len(lines))[:34]:
            pid, dice, _ = lines[i]
            b = [list(x) for x in gnubg_nn.board_from_position_id(pid)]
            d1, d2 = int(dice[0]), int(dice[1])
            perft_add(b, max(d1, d2), min(d1, d2))
    perft_header = [
        "# Perft-style golden counts of distinct plays.",
        f"# Source: gnubg-nn {version} (GNU Backgammon's move generator, Python bindings):",
        "#   COUNT = len(gnubg_nn.moves(board, d1, d2)), the number of DISTINCT resulting positions",
        "#   (plays that lead to the same position count once; 0 = no legal play).",
        "# POSITION_ID is a GNUBG Position ID; gnubg_nn.board_from_position_id gives the side on",
        "# roll as board[1] (the ID's first half is the side not on roll).",
        f"# Generated by: {cmd} (written with movegen_positions.txt)",
        "# Format: POSITION_ID DICE COUNT",
    ]
    (args.out / "perft.txt").write_text(
        "\n".join(perft_header + [f"{p} {d} {c}" for p, d, c in perft]) + "\n"
    )

    # ---------------------------------------------------------------- report
    print(f"wrote {pos_path} ({len(col.lines)} lines) and {args.out / 'perft.txt'} ({len(perft)} lines)")
    for kind in KINDS:
        print(f"  {kind:16s} {per_kind[kind]}")
    print("largest distinct-play counts:")
    for n, (hi, lo), b in largest[:8]:
        print(f"  {n:5d}  {gnubg_nn.position_id(b)} {hi}{lo}")
    zeros = sum(1 for p in perft if p[2] == 0)
    print(f"perft: {len(perft)} lines, {zeros} with count 0, max {max(p[2] for p in perft)}")
    print(f"took {time.time() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
