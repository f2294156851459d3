"""The variants' rules checked independently of the compiled kernel.

Three kinds of checks: one test per rule on a named, hand-built position
whose legal results are stated here by hand; differential runs comparing
:meth:`Variant.generate` with :mod:`variant_reference` (a plain-Python
generator written from the rules text) on positions reached by random play;
and a perft-style file of result counts (``data/variants-perft.json``),
made by the reference (``python tests/test_variants_rules.py --perft``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
import variant_reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from bgnet.dice import ALL_ROLLS
from bgnet.variants import OUR_WAITING, PIN, THEIR_WAITING, VARIANTS, VSLOTS, variant

PERFT = Path(__file__).parent / "data" / "variants-perft.json"
# The games whose turn is one roll with nothing waiting to enter (issue 15's); long nardy and
# acey-deucey have their own file, test_variants_nardy_acey.py, and share the perft file.
ONE_ROLL_GAMES = ("backgammon", "nackgammon", "portes", "tavla", "plakoto", "fevga")
LABELS = [*ONE_ROLL_GAMES, *(f"{name}+no-forced-max" for name in ONE_ROLL_GAMES)]
PERFT_LABELS: dict[str, list[str]] = {
    **{name: [name, f"{name}+no-forced-max"] for name in ONE_ROLL_GAMES},
    "long-nardy": ["long-nardy", "long-nardy+no-forced-max"],
    "acey-deucey": ["acey-deucey", "acey-deucey+enter-all", "acey-deucey+european-1-2"],
}
# A 1-2 in the middle of an acey-deucey game has 10^4 results (10^5 under the European rule), too many
# for the reference at depth 2: depth 1 only there, and the European rule at the start and mid-1 only.
PERFT_SHALLOW = ("acey-deucey",)
PERFT_POSITIONS = {"acey-deucey+european-1-2": ["start", "mid-1"]}
ROLLS = [(d.high, d.low) for d in ALL_ROLLS]


# -- helpers -------------------------------------------------------------------


def vb(
    ours: dict[int, int],
    theirs: dict[int, int],
    *,
    pinned_ours: tuple[int, ...] = (),
    pinned_theirs: tuple[int, ...] = (),
    waiting: tuple[int, int] = (0, 0),
) -> np.ndarray:
    """A variant board from the mover's side, every point in the MOVER's numbering.

    ``ours``: checkers per point (25 = our bar); ``theirs``: the opponent's
    checkers on top of each of our points (0 = their bar); ``pinned_ours``:
    points where one of ours is pinned under theirs; ``pinned_theirs``: where
    one of theirs is pinned under ours; ``waiting``: checkers not yet entered,
    ours and theirs (acey-deucey).
    """
    b = np.zeros(VSLOTS, dtype=np.int8)
    b[OUR_WAITING], b[THEIR_WAITING] = waiting[0], -waiting[1]
    for p, n in ours.items():
        b[p] += n
    for p, n in theirs.items():
        assert b[p] == 0, f"point {p} given to both sides"
        b[p] -= n
    for p in pinned_ours:
        assert b[p] < 0, f"our checker pinned on {p} needs theirs on top"
        b[PIN + p] = 1
    for p in pinned_theirs:
        assert b[p] > 0, f"their checker pinned on {p} needs ours on top"
        b[PIN + p] = -1
    return b


def results(label: str, board: np.ndarray, dice: tuple[int, int]) -> list[np.ndarray]:
    """Variant.generate's results of one roll, turned back to the mover's side by the reference's flip."""
    v = variant(label)
    batch = v.generate(board[None, :], np.array([dice]))
    rows = batch.positions[batch.offsets[0] : batch.offsets[1]]
    return [ref.flip(r, v.rotate) for r in rows]


def after(label: str, board: np.ndarray, dice: tuple[int, int]) -> set[bytes]:
    """The distinct results of a roll from the mover's side, as bytes; a result listed twice fails."""
    found = [r.tobytes() for r in results(label, board, dice)]
    assert len(set(found)) == len(found), "a result is listed twice"
    return set(found)


def boards(*bs: np.ndarray) -> set[bytes]:
    return {b.tobytes() for b in bs}


def ours_of(b: bytes) -> frozenset[tuple[int, int]]:
    """Our checkers per point of a result (mover's side) as (point, count) pairs, for comparisons."""
    a = np.frombuffer(b, dtype=np.int8)
    return frozenset((p, int(a[p])) for p in range(1, 26) if a[p] > 0)


def random_play(label: str, rng: np.random.Generator, plies: int) -> np.ndarray:
    """A position reached by ``plies`` random plays from the start, with Variant.generate (passes kept)."""
    v = variant(label)
    b = v.start.copy()
    for _ in range(plies):
        d = tuple(int(x) for x in rng.integers(1, 7, 2))
        batch = v.generate(b[None, :], np.array([d]))
        n = batch.offsets[1] - batch.offsets[0]
        nxt = v.flip(b) if n == 0 else batch.positions[batch.offsets[0] + rng.integers(n)].copy()
        if v.result(nxt) is not None:
            break
        b = nxt
    return b


# -- one test per rule, on hand-built positions --------------------------------------


def test_backgammon_hit_sends_the_blot_to_the_bar():
    # 13 -> 8* -> 6 hits their blot on 8 (it goes to their bar, slot 0); 13 -> 11 -> 6 passes it by.
    board = vb({13: 1}, {8: 1, 1: 2})
    assert after("backgammon", board, (5, 2)) == boards(vb({6: 1}, {0: 1, 1: 2}), vb({6: 1}, {8: 1, 1: 2}))


def test_backgammon_bar_first():
    # On the bar: enter first (die n on point 25 - n). The 5 (point 20) is blocked, so the 3 enters on 22,
    # then the 5 moves 22 -> 17 or hits 6 -> 1*.  Moving 6 -> 1 before entering is not a play.
    board = vb({25: 1, 6: 2}, {20: 2, 1: 1})
    assert after("backgammon", board, (5, 3)) == boards(
        vb({17: 1, 6: 2}, {20: 2, 1: 1}), vb({22: 1, 6: 1, 1: 1}, {20: 2, 0: 1})
    )
    # Both entry points blocked: nothing else may move, a pass.
    assert after("backgammon", vb({25: 1, 6: 2}, {20: 2, 22: 2}), (5, 3)) == set()


def test_tavla_no_hit_and_run_in_the_home_board():
    # 8 -> 3* hits in our home board: that checker stops there, so 8 -> 3* -> 1 is no play in tavla
    # (backgammon has it).  The 2 may still go to the other checker, or the same checker may play 2 first.
    board = vb({8: 1, 13: 1}, {3: 1, 24: 2})
    tavla = boards(
        vb({1: 1, 13: 1}, {3: 1, 24: 2}),  # 8 -> 6 -> 1
        vb({3: 1, 11: 1}, {0: 1, 24: 2}),  # 8 -> 3*, 13 -> 11
        vb({6: 1, 8: 1}, {3: 1, 24: 2}),  # 13 -> 8 -> 6 (or 8 -> 6, 13 -> 8)
    )
    assert after("tavla", board, (5, 2)) == tavla
    assert after("backgammon", board, (5, 2)) == tavla | boards(vb({1: 1, 13: 1}, {0: 1, 24: 2}))


def test_tavla_hit_outside_the_home_board_may_continue():
    # 13 -> 8* hits outside our home board, so the checker goes on to 6, as in backgammon.
    board = vb({13: 1}, {8: 1, 1: 2})
    assert after("tavla", board, (5, 2)) == boards(vb({6: 1}, {0: 1, 1: 2}), vb({6: 1}, {8: 1, 1: 2}))


def test_tavla_another_checker_on_the_hit_point_may_still_move():
    # 2-2 with checkers on 5 and 7 (the one on 20 is stuck behind their 18): the only four-step plays
    # pass one checker through the point where the other hit (5 -> 3*, 7 -> 5 -> 3 -> 1, or 7 -> 5 -> 3*,
    # 5 -> 3 -> 1).  Only the checker that hit stops; the other one on the point moves on.
    board = vb({20: 1, 7: 1, 5: 1}, {18: 2, 3: 1})
    assert after("tavla", board, (2, 2)) == boards(vb({20: 1, 3: 1, 1: 1}, {18: 2, 0: 1}))


def test_plakoto_landing_on_a_lone_checker_pins_it():
    # 13 -> 8 lands on their lone checker: it stays there, pinned under ours (no bar in plakoto).
    # 13 -> 8 -> 6 frees it again, the same result as 13 -> 11 -> 6.
    board = vb({13: 2}, {8: 1, 24: 3})
    assert after("plakoto", board, (5, 2)) == boards(
        vb({8: 1, 11: 1}, {24: 3}, pinned_theirs=(8,)),
        vb({13: 1, 6: 1}, {8: 1, 24: 3}),
    )


def test_plakoto_releasing_a_pin():
    # Their checker pinned under our two on 8: it is free again only when our last checker leaves 8.
    board = vb({8: 2}, {20: 2}, pinned_theirs=(8,))
    assert after("plakoto", board, (2, 1)) == boards(
        vb({8: 1, 5: 1}, {20: 2}, pinned_theirs=(8,)),  # one checker 8 -> 5
        vb({7: 1, 6: 1}, {8: 1, 20: 2}),  # both leave: theirs on 8 is free
    )


def test_plakoto_pinned_checker_cannot_move():
    # Our checker on 20 is pinned under theirs: only the one on 10 moves (10 -> 6).
    board = vb({10: 1}, {20: 1, 1: 2}, pinned_ours=(20,))
    assert after("plakoto", board, (3, 1)) == boards(vb({6: 1}, {20: 1, 1: 2}, pinned_ours=(20,)))


def test_plakoto_pin_blocks_the_point():
    # Their single checker on top of our pinned one blocks 10 (a lone checker elsewhere would be pinned):
    # 13 -> 10 is no move, so the 3 and the 1 go 13 -> 12 -> 9.
    board = vb({13: 1}, {10: 1, 1: 2}, pinned_ours=(10,))
    assert after("plakoto", board, (3, 1)) == boards(vb({9: 1}, {10: 1, 1: 2}, pinned_ours=(10,)))


def test_plakoto_no_bear_off_while_pinned():
    # All our free checkers are home, but one of ours is pinned on 5: no bearing off, and 6-5 has no move.
    pinned = vb({3: 1, 2: 1}, {5: 1, 20: 2}, pinned_ours=(5,))
    assert after("plakoto", pinned, (6, 5)) == set()
    # Without the pinned checker the same roll bears both off.
    free = vb({3: 1, 2: 1}, {5: 1, 20: 2})
    assert after("plakoto", free, (6, 5)) == boards(vb({}, {5: 1, 20: 2}))


def _mother_pinning_play(ours: dict[int, int]) -> np.ndarray:
    """The result (seen by the loser, on roll) of 8 -> 1 pinning their last checker on their start (our 1)."""
    v = variant("plakoto")
    board = vb(ours, {1: 1, 20: 14})
    batch = v.generate(board[None, :], np.array([(6, 1)]))
    found = [batch.positions[i] for i in batch.rows(0) if ref.flip(batch.positions[i], False)[PIN + 1] == -1]
    assert len(found) == 1  # the pin of their mother is one of the results
    return found[0]


def test_plakoto_mother_pin_wins_two_points():
    # We pin their last checker on their own start and have no checker left on ours: we win 2.
    r = _mother_pinning_play({8: 1, 13: 14})
    assert variant("plakoto").result(r) == 2


def test_plakoto_mother_pin_while_pinner_still_on_its_start_goes_on():
    # Same pin, but we still have a checker on our own start (24): the game goes on.
    r = _mother_pinning_play({8: 1, 13: 13, 24: 1})
    assert variant("plakoto").result(r) is None


def test_plakoto_both_mothers_pinned_is_a_draw():
    # Seen by the side on roll: its mother (24) is pinned and it pins the mover's mother (the mover's 24 is
    # this side's 1): a draw.
    v = variant("plakoto")
    both = vb({1: 1, 10: 13}, {24: 1, 15: 13}, pinned_ours=(24,), pinned_theirs=(1,))
    assert v.result(both) == 0
    # Only ours pinned, and the mover has left its start (nothing on our 1): the mover wins 2.
    ours_only = vb({10: 14}, {24: 1, 15: 14}, pinned_ours=(24,))
    assert v.result(ours_only) == 2
    # Only ours pinned, the mover still has a checker on its start (our 1): the game goes on.
    mover_home = vb({10: 14}, {24: 1, 15: 13, 1: 1}, pinned_ours=(24,))
    assert v.result(mover_home) is None


def test_plakoto_gammon_and_single_game():
    # The mover bears off its last checker (1 -> off); the loser has borne off none: 2 points.
    v = variant("plakoto")
    batch = v.generate(vb({1: 1}, {3: 15})[None, :], np.array([(2, 1)]))
    assert len(batch.positions) == 1
    assert v.result(batch.positions[0]) == 2
    batch = v.generate(vb({1: 1}, {3: 14})[None, :], np.array([(2, 1)]))  # the loser has one off
    assert v.result(batch.positions[0]) == 1


def test_fevga_start_rule():
    # From the start only one checker may leave our 24 before one has passed their start (our 12):
    # 6-5 moves one checker 24 -> 13.
    start = np.array(VARIANTS["fevga"].start)
    assert after("fevga", start, (6, 5)) == boards(vb({24: 14, 13: 1}, {12: 15}))
    # Our first checker on 14 (not yet past their start): 24 may not move until it passes, which it may do
    # this turn (14 -> 8 or 14 -> 9); then the other die may take a second checker off 24.
    board = vb({24: 14, 14: 1}, {12: 15})
    assert after("fevga", board, (6, 5)) == boards(
        vb({24: 14, 3: 1}, {12: 15}),  # 14 -> 8 -> 3 or 14 -> 9 -> 3
        vb({24: 13, 19: 1, 8: 1}, {12: 15}),  # 14 -> 8, 24 -> 19
        vb({24: 13, 18: 1, 9: 1}, {12: 15}),  # 14 -> 9, 24 -> 18
    )


def test_fevga_single_checker_blocks():
    # Their single checker on 10 blocks (no hitting, no pinning): 13 -> 10 is no move, 13 -> 11 -> 8 is.
    board = vb({13: 1}, {10: 1, 12: 14})
    assert after("fevga", board, (3, 2)) == boards(vb({8: 1}, {10: 1, 12: 14}))


def test_fevga_starting_quarter_rule():
    # Every 6 is blocked, so 6-1 plays only the 1.  20 -> 19 would leave us holding all six points 19..24:
    # not a play.  (Their checkers ahead on 13..18 keep the prime rule out of it.)
    theirs = {18: 1, 17: 1, 16: 1, 15: 1, 14: 1, 13: 1, 1: 1, 12: 8}
    board = vb({24: 9, 23: 1, 22: 1, 21: 1, 20: 2, 2: 1}, theirs)
    assert after("fevga", board, (6, 1)) == boards(
        vb({24: 8, 23: 2, 22: 1, 21: 1, 20: 2, 2: 1}, theirs),
        vb({24: 9, 22: 2, 21: 1, 20: 2, 2: 1}, theirs),
        vb({24: 9, 23: 1, 21: 2, 20: 2, 2: 1}, theirs),
        vb({24: 9, 23: 1, 22: 1, 20: 3, 2: 1}, theirs),
    )


def test_fevga_six_prime_rule():
    # Six consecutive points (along their path) are allowed only with one of theirs ahead of them.
    # Behind: all of theirs on our 12; ahead: one of them on our 20 (their 8), which our checkers never reach.
    ours = {11: 1, 9: 1, 8: 1, 7: 1, 6: 1, 5: 2}
    behind = {ours_of(b) for b in after("fevga", vb(ours, {12: 15}), (2, 1))}
    ahead = {ours_of(b) for b in after("fevga", vb(ours, {12: 14, 20: 1}), (2, 1))}
    primes = {
        frozenset({3: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 1, 10: 1}.items()),  # 11 -> 10, 5 -> 3: 10..5
        frozenset({4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 2}.items()),  # 11 -> 9, 5 -> 4: 9..4
    }
    assert ahead - behind == primes
    assert behind < ahead


def test_no_forced_max_plays_one_die_when_both_could():
    # The standard rule plays both dice (13 -> 6); the house rule also allows either die alone.
    board = vb({13: 1}, {24: 2})
    assert after("backgammon", board, (5, 2)) == boards(vb({6: 1}, {24: 2}))
    assert after("backgammon+no-forced-max", board, (5, 2)) == boards(
        vb({6: 1}, {24: 2}), vb({8: 1}, {24: 2}), vb({11: 1}, {24: 2})
    )


def test_forced_larger_die_and_the_house_rules_smaller_die():
    # Only one die can be played (8 -> 1 is blocked either way): the standard rule plays the larger (5);
    # the house rule lets the smaller be played instead.
    board = vb({8: 1}, {1: 2})
    for game in ("backgammon", "tavla", "plakoto"):
        assert after(game, board, (5, 2)) == boards(vb({3: 1}, {1: 2}))
        assert after(f"{game}+no-forced-max", board, (5, 2)) == boards(vb({3: 1}, {1: 2}), vb({6: 1}, {1: 2}))


@pytest.mark.parametrize(("game", "points"), [("backgammon", 3), ("portes", 2), ("tavla", 2), ("plakoto", 2)])
def test_scoring_without_triple(game, points):
    # The mover bears off its last checker while the loser has borne off none and has a checker in the
    # winner's home board: a backgammon (3) only where backgammons count; portes and tavla stop at mars (2).
    v = variant(game)
    board = vb({1: 1}, {22: 14, 3: 1})
    batch = v.generate(board[None, :], np.array([(2, 1)]))
    assert len(batch.positions) == 1
    assert v.result(batch.positions[0]) == points
    # The loser has borne off one: a single game.
    board = vb({1: 1}, {22: 13, 3: 1})
    batch = v.generate(board[None, :], np.array([(2, 1)]))
    assert v.result(batch.positions[0]) == 1


@pytest.mark.parametrize(
    ("label", "cube", "max_result", "reroll"),
    [
        ("backgammon", True, 3, False),
        ("backgammon+no-cube", False, 3, False),
        ("nackgammon", True, 3, False),
        ("portes", False, 2, None),  # no cube, no backgammon (the opening is not part of the rules text)
        ("tavla", False, 2, True),  # no cube, mars 2, the opening roll's winner rolls again
        ("plakoto", False, 2, True),
        ("fevga", False, 2, True),
    ],
)
def test_cube_scoring_and_opening(label, cube, max_result, reroll):
    v = variant(label)
    assert v.cube is cube
    assert v.max_result == max_result
    if reroll is not None:
        assert (v.opening == "reroll") is reroll


# -- differential: Variant.generate against the reference -------------------------------


def compare(label: str, board: np.ndarray, dice: tuple[int, int]) -> int:
    """Assert the kernel's results of one roll are the reference's, each once, each play replaying to it."""
    v = variant(label)
    batch = v.generate(board[None, :], np.array([dice]))
    got = [batch.positions[i].tobytes() for i in batch.rows(0)]
    expected = ref.plays(board, dice, label)
    where = f"{label} board={[int(x) for x in board]} dice={dice}"
    assert len(got) == len(set(got)), f"a result listed twice: {where}"
    missing = [list(np.frombuffer(k, np.int8)) for k in set(expected) - set(got)]
    extra = [list(np.frombuffer(k, np.int8)) for k in set(got) - set(expected)]
    assert not missing and not extra, (
        f"{where}\nmissing (reference only): {missing}\nextra (kernel only): {extra}"
    )
    for i in batch.rows(0):
        steps = batch.steps_of(i)
        assert ref.replay(board, dice, steps, label) == got[i - batch.rows(0).start], f"{where} steps {steps}"
    return len(got)


def reached(label: str, seed: int, count: int) -> list[np.ndarray]:
    """``count`` distinct positions met in seeded random games (Variant.generate's plays) of a variant."""
    v = variant(label)
    rng = np.random.default_rng(seed)
    seen: dict[bytes, np.ndarray] = {}
    while len(seen) < count:
        b = v.start.copy()
        for _ in range(400):
            seen.setdefault(b.tobytes(), b)
            d = tuple(int(x) for x in rng.integers(1, 7, 2))
            batch = v.generate(b[None, :], np.array([d]))
            n = batch.offsets[1] - batch.offsets[0]
            b = v.flip(b) if n == 0 else batch.positions[batch.offsets[0] + rng.integers(n)].copy()
            if v.result(b) is not None or len(seen) >= count:
                break
    return list(seen.values())


def odd_board(rng: np.random.Generator, name: str) -> np.ndarray:
    """A random board no game need reach (checkers piled at home, odd pins, bars): the rules' corners."""
    if name == "fevga" and rng.random() < 0.6:
        return near_prime(rng)
    b = np.zeros(VSLOTS, dtype=np.int8)
    bars = name not in ("plakoto", "fevga")
    home = rng.random() < 0.5
    for _ in range(rng.integers(1, 16)):
        p = int(rng.integers(1, 7)) if home and rng.random() < 0.9 else int(rng.integers(1, 26))
        if (p == 25 and not bars) or (p < 25 and b[p] < 0):
            continue
        b[p] += 1
    for _ in range(rng.integers(1, 16)):
        p = int(rng.integers(0, 25))
        if p == 0 and not bars:
            continue
        if p > 0 and b[p] > 0:
            if name == "plakoto" and b[p] == 1 and b[PIN + p] == 0 and rng.random() < 0.5:
                b[p], b[PIN + p] = -1, 1  # one of ours pinned under theirs
            continue
        b[p] -= 1
    if name == "plakoto":
        for p in range(1, 25):
            ours = int(b[1:26][b[1:26] > 0].sum()) + int((b[PIN + 1 : PIN + 25] > 0).sum())
            if b[p] == -1 and b[PIN + p] == 0 and ours < 15 and rng.random() < 0.2:
                b[p], b[PIN + p] = 1, -1  # one of theirs pinned under one more of ours
    return b


def near_prime(rng: np.random.Generator) -> np.ndarray:
    """A fevga board one checker short of six consecutive points (or of our starting quarter 19..24).

    Their checkers lie behind the gap's window, or some ahead of it, so that
    both outcomes of the prime rule come up.
    """
    b = np.zeros(VSLOTS, dtype=np.int8)
    path = ref.FEVGA_PATH
    j = 12 if rng.random() < 0.3 else int(rng.integers(0, 19))  # 12: our 24..19
    window = list(path[j : j + 6])
    gap = window.pop(int(rng.integers(6)))
    left = 15
    for p in window:
        n = int(rng.integers(1, 3))
        b[p] += n
        left -= n
    for _ in range(int(rng.integers(0, left + 1))):
        p = int(rng.integers(1, 25))
        if p != gap:
            b[p] += 1
    ahead = rng.random() < 0.5
    for _ in range(int(rng.integers(1, 16))):
        k = int(rng.integers(0, 24)) if ahead else int(rng.integers(0, j + 6))
        if b[path[k]] <= 0:
            b[path[k]] -= 1
    return b


def _differential(label: str, positions: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    total = 0
    for board in reached(label, seed, positions):
        total += compare(label, board, (int(rng.integers(1, 7)), int(rng.integers(1, 7))))
    assert total > positions  # the positions have plays to compare (not just passes)


def _differential_odd(label: str, positions: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(positions):
        board = odd_board(rng, label.split("+")[0])
        compare(label, board, (int(rng.integers(1, 7)), int(rng.integers(1, 7))))


@pytest.mark.parametrize("label", LABELS)
def test_generate_matches_the_reference_in_random_games(label):
    _differential(label, 150, 15)


@pytest.mark.parametrize("label", LABELS)
def test_generate_matches_the_reference_on_odd_boards(label):
    _differential_odd(label, 60, 16)


@pytest.mark.slow
@pytest.mark.parametrize("label", LABELS)
def test_generate_matches_the_reference_at_length(label):
    _differential(label, 1000, 17)
    _differential_odd(label, 1000, 18)


# -- properties ------------------------------------------------------------------------

labels = st.sampled_from(LABELS)
rolls = st.sampled_from(ROLLS)


@st.composite
def game_boards(draw: st.DrawFn) -> tuple[str, np.ndarray]:
    """A variant and a position of it reached by seeded random play."""
    label = draw(labels)
    seed = draw(st.integers(0, 2**32 - 1))
    plies = draw(st.integers(0, 80))
    return label, random_play(label, np.random.default_rng(seed), plies)


def _rows(label: str, board: np.ndarray, dice: tuple[int, int]):
    v = variant(label)
    batch = v.generate(board[None, :], np.array([dice]))
    return v, [(batch.positions[i], batch.steps_of(i)) for i in batch.rows(0)]


@settings(max_examples=150, deadline=None)
@given(game_boards(), rolls)
def test_checkers_are_kept(game, dice):
    label, board = game
    v, rows = _rows(label, board, dice)
    ours, theirs = (int(x[0]) for x in v.checkers(board))
    for r, steps in rows:
        # Seen by the opponent now: its checkers first.
        r_theirs, r_ours = (int(x[0]) for x in v.checkers(r))
        assert r_theirs == theirs  # nothing of the opponent leaves play (hits go to the bar)
        assert ours - r_ours == sum(1 for _, t in steps if t == 0)  # ours leave play only by bearing off
        assert r_ours <= 15 and r_theirs <= 15


@settings(max_examples=150, deadline=None)
@given(game_boards(), rolls)
def test_no_shared_point_but_a_pin(game, dice):
    label, board = game
    v, rows = _rows(label, board, dice)
    pins = v.name == "plakoto"
    bars = v.name not in ("plakoto", "fevga")
    for r, _ in rows:
        for p in range(1, 25):
            pin = int(r[PIN + p])
            assert pin in (-1, 0, 1)
            if pin:
                # A pinned checker lies under the other side's: never alone, never under its own side.
                assert pins and r[p] * pin < 0, f"point {p}: top {r[p]}, pin {pin}"
        if not bars:
            assert r[0] == 0 and r[25] == 0
        assert r[50] == 0 and r[51] == 0


def _blocked(label: str, board: np.ndarray, p: int) -> bool:
    """Whether the mover may not land on point p of ``board`` (mover's side), from the rules text."""
    if label.startswith("fevga"):
        return board[p] < 0  # a single checker blocks
    # Two or more of theirs, or theirs on top of one of ours pinned there.
    return bool(board[p] <= -2 or (board[p] < 0 and board[PIN + p] > 0))


@settings(max_examples=150, deadline=None)
@given(game_boards(), rolls)
def test_no_play_lands_on_a_blocked_point(game, dice):
    label, board = game
    v, rows = _rows(label, board, dice)
    for r, steps in rows:
        mover_after = ref.flip(r, v.rotate)
        for _, t in steps:
            if 1 <= t <= 24:
                # Opposing checkers only leave points during our move, so a point blocked before stays so.
                assert not _blocked(label, board, t), f"landed on blocked point {t}"
        for p in range(1, 25):
            # No point ends holding more of theirs on top than before (theirs are never added).
            assert min(int(mover_after[p]), 0) >= min(int(board[p]), 0) - (1 if board[PIN + p] < 0 else 0)


@settings(max_examples=200, deadline=None)
@given(labels, st.lists(st.integers(-15, 15), min_size=VSLOTS, max_size=VSLOTS))
def test_flip_is_an_involution_and_agrees_with_the_reference(label, values):
    v = variant(label)
    b = np.array(values, dtype=np.int8)
    assert np.array_equal(v.flip(v.flip(b)), b)
    assert np.array_equal(v.flip(b), ref.flip(b, v.rotate))
    assert np.array_equal(v.flip(np.stack([b, -b])), np.stack([v.flip(b), v.flip(-b)]))


def _die_fits(step: tuple[int, int], d: int) -> bool:
    f, t = step
    if t == 0:  # bearing off: the exact die, or a higher one from the highest point
        return d >= f
    return f - t == d


@settings(max_examples=150, deadline=None)
@given(game_boards(), rolls)
def test_every_step_fits_the_dice(game, dice):
    label, board = game
    v, rows = _rows(label, board, dice)
    a, b = dice
    counts = set()
    for _, steps in rows:
        counts.add(len(steps))
        assert 1 <= len(steps) <= (4 if a == b else 2)
        if a == b:
            assert all(_die_fits(s, a) for s in steps), steps
        elif len(steps) == 2:
            s1, s2 = steps
            assert (_die_fits(s1, a) and _die_fits(s2, b)) or (_die_fits(s1, b) and _die_fits(s2, a)), steps
        else:
            assert _die_fits(steps[0], a) or _die_fits(steps[0], b), steps
    if "no-forced-max" not in label:
        assert len(counts) <= 1  # the forced-play rule: every play of a roll uses the same number of dice


# -- the perft file against Variant.generate ---------------------------------------------


def _perft_entries() -> list[dict]:
    return json.loads(PERFT.read_text())["entries"]


def kernel_perft(label: str, board: np.ndarray, deep: bool) -> tuple[int, int]:
    v = variant(label)
    dice = np.array(ROLLS)
    batch = v.generate(np.repeat(board[None, :], len(ROLLS), 0), dice)
    d1 = len(batch.positions)
    if not deep or d1 == 0:
        return d1, 0
    n = len(batch.positions)
    deeper = v.generate(np.repeat(batch.positions, len(ROLLS), 0), np.tile(dice, (n, 1)))
    return d1, len(deeper.positions)


def test_perft_file_covers_every_variant():
    entries = _perft_entries()
    assert set(PERFT_LABELS) == set(VARIANTS)
    every = [label for labels in PERFT_LABELS.values() for label in labels]
    assert {e["variant"] for e in entries} == set(every)
    for label in every:
        mine = [e for e in entries if e["variant"] == label]
        assert [e["position"] for e in mine] == PERFT_POSITIONS.get(
            label, ["start", "mid-1", "mid-2", "mid-3"]
        )
        assert mine[0]["board"] == [int(x) for x in variant(label).start]
        assert all(len(e["board"]) == VSLOTS for e in mine)


@pytest.mark.parametrize(
    "entry", _perft_entries() if PERFT.exists() else [], ids=lambda e: f"{e['variant']}-{e['position']}"
)
def test_perft_counts(entry):
    board = np.array(entry["board"], dtype=np.int8)
    d1, d2 = kernel_perft(entry["variant"], board, "depth2" in entry)
    assert d1 == entry["depth1"]
    if "depth2" in entry:
        assert d2 == entry["depth2"]


# -- making the perft file (with the reference) ---------------------------------------


def perft(label: str, board: np.ndarray, deep: bool = True) -> tuple[int, int]:
    """Results summed over the 21 rolls (depth 1), and over the 21 rolls of every one of them (depth 2).

    A result is a whole turn's (position, again); either way the position is
    seen by the side on roll next, so depth 2 rolls from it as it stands.
    """
    d1 = d2 = 0
    for dice in ROLLS:
        found = ref.turns(board, dice, label)
        d1 += len(found)
        for r, _ in found if deep else ():
            nxt = np.frombuffer(r, dtype=np.int8)
            d2 += sum(len(ref.turns(nxt, dice2, label)) for dice2 in ROLLS)
    return d1, d2


def perft_positions(name: str) -> list[np.ndarray]:
    """The start and three mid-game positions of a game, reached by seeded random play with the reference."""
    rotate = ref.rules_of(name).rotate
    rng = np.random.default_rng(sum(map(ord, name)))
    own = ref.start_board(name)
    b = np.array(VARIANTS[name].start, dtype=np.int8) if own is None else own
    out = [b.copy()]
    for ply in range(1, 41):
        d = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
        found = sorted(ref.turns(b, d, name))
        b = (
            ref.flip(b, rotate)
            if not found
            else np.frombuffer(found[rng.integers(len(found))][0], np.int8).copy()
        )
        if ply in (12, 26, 40):
            out.append(b.copy())
    return out


def make_perft(names: list[str], old: list[dict]) -> dict:
    """The perft file: the entries of the games ``names`` made anew, the others kept from ``old``."""
    entries = []
    for name, labels in PERFT_LABELS.items():
        if name not in names:
            entries += [e for e in old if e["variant"] in labels]
            continue
        mine = []
        for i, board in enumerate(perft_positions(name)):
            for label in labels:
                if i >= len(PERFT_POSITIONS.get(label, "1234")):
                    continue
                # Depth 2 of a house rule only from the start: the reference takes minutes for the rest.
                deep = (
                    i == 0 or ("+" not in label and name not in PERFT_SHALLOW)
                ) and label not in PERFT_POSITIONS
                d1, d2 = perft(label, board, deep)
                entry = {
                    "variant": label,
                    "position": "start" if i == 0 else f"mid-{i}",
                    "board": [int(x) for x in board],
                    "depth1": d1,
                }
                if deep:
                    entry["depth2"] = d2
                mine.append(entry)
                print(label, i, d1, d2, file=sys.stderr, flush=True)
        entries += mine
    return {
        "note": (
            "Counts of legal results made by tests/variant_reference.py (not by bgnet): depth1 sums the "
            "results of the 21 distinct rolls from the board (52 slots, seen by the side on roll); depth2 "
            "sums, over every one of those results, the results of the 21 rolls (a pass adds nothing). "
            "A result is a whole turn, (position, again) in acey-deucey: the position is seen by the side "
            "on roll next, the opponent or, after a 1-2 played in full, the mover.  No depth2 for the house "
            "rules' mid-game positions nor for acey-deucey's, and the European 1-2 rule only at the start "
            "and mid-1, depth 1 (slow in the reference: a 1-2 there has up to 10^5 results).  Regenerate "
            "(about 45 minutes for all, or only the games named): "
            "python tests/test_variants_rules.py --perft [GAME ...] > variants-perft.json, then move it "
            "over tests/data/variants-perft.json"
        ),
        "entries": entries,
    }


def perft_json(data: dict) -> str:
    """The perft file's text: one line per entry, so that a diff shows which counts changed."""
    lines = ",\n  ".join(json.dumps(e) for e in data["entries"])
    return f'{{\n "note": {json.dumps(data["note"])},\n "entries": [\n  {lines}\n ]\n}}'


if __name__ == "__main__":
    games = sys.argv[2:] or list(PERFT_LABELS)
    if sys.argv[1:2] != ["--perft"] or not set(games) <= set(PERFT_LABELS):
        print(
            "usage: python tests/test_variants_rules.py --perft [GAME ...] > variants-perft.json "
            f"(games: {', '.join(PERFT_LABELS)})",
            file=sys.stderr,
        )
        sys.exit(2)
    print(perft_json(make_perft(games, _perft_entries() if PERFT.exists() else [])))
