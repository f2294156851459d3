"""Long nardy and acey-deucey checked independently of the compiled kernel.

As in ``test_variants_rules.py``: one test per rule on a named, hand-built
position whose legal results are worked out here by hand; differential runs
of :meth:`Variant.generate` against :mod:`variant_reference` (whole turns:
a 1-2 in acey-deucey is the 1 and the 2, the chosen double(s) and maybe a
roll again), on positions of random games and on unusual boards; and
hypothesis properties.  A row of a batch is compared as (position, again):
seen by the opponent when the turn passes, by the mover when it rolls again.
"""

from __future__ import annotations

import numpy as np
import pytest
import variant_reference as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_variants_rules import ROLLS, boards, near_prime, random_play, reached, vb

from bgnet.variants import OUR_WAITING, THEIR_WAITING, VSLOTS, variant

NARDY = "long-nardy"
ACEY = "acey-deucey"
NEW_LABELS = [NARDY, f"{NARDY}+no-forced-max", ACEY, f"{ACEY}+enter-all", f"{ACEY}+european-1-2"]
ONE_TWO = (2, 1)


# -- helpers -------------------------------------------------------------------


def turn(label: str, board: np.ndarray, dice: tuple[int, int]) -> dict[tuple[bytes, bool], int]:
    """Variant.generate's rows of one roll: (position after the turn seen by the MOVER, again) -> double.

    A row seen by the opponent (the turn passed) is turned back by the
    reference's flip; a row where the mover rolls again is already the
    mover's.  A row listed twice fails.
    """
    v = variant(label)
    batch = v.generate(board[None, :], np.array([dice]))
    out: dict[tuple[bytes, bool], int] = {}
    for i in batch.rows(0):
        again = batch.again is not None and bool(batch.again[i])
        pos = batch.positions[i] if again else ref.flip(batch.positions[i], v.rotate)
        key = (pos.tobytes(), again)
        assert key not in out, "a (position, again) pair is listed twice"
        out[key] = int(batch.doubles[i]) if batch.doubles is not None else 0
    return out


def after(label: str, board: np.ndarray, dice: tuple[int, int]) -> set[bytes]:
    """The results of a roll that passes the turn (mover's side); a roll-again row fails."""
    found = turn(label, board, dice)
    assert not any(again for _, again in found)
    return {b for b, _ in found}


def passed_rows(*bs: np.ndarray) -> set[tuple[bytes, bool]]:
    """Expected rows whose turn passes (boards from the mover's side)."""
    return {(b.tobytes(), False) for b in bs}


def again_rows(*bs: np.ndarray) -> set[tuple[bytes, bool]]:
    """Expected rows where the mover rolls again."""
    return {(b.tobytes(), True) for b in bs}


def start(label: str) -> np.ndarray:
    return np.array(variant(label).start, dtype=np.int8)


# -- long nardy: one test per rule -----------------------------------------------------


def test_long_nardy_start_and_settings():
    # Ours: 15 on our 24 (the head); theirs: 15 on their head, our 12 (the numbering turns by 12).
    assert start(NARDY).tobytes() == vb({24: 15}, {12: 15}).tobytes()
    v = variant(NARDY)
    assert v.rotate and not v.cube and v.max_result == 2 and v.opening == "reroll"


def test_long_nardy_head_rule():
    # Not the first roll (one checker already left the head): only one more checker leaves 24.
    # 5-3: 24 -> 16 (via 19 or 21); 24 -> 19 and 13 -> 10; 24 -> 21 and 13 -> 8; 13 -> 5.
    # Never 24 -> 19 and 24 -> 21 (two checkers off the head).
    # Theirs: 14 on their head (our 12), one on our 2.
    theirs = {12: 14, 2: 1}
    board = vb({24: 14, 13: 1}, theirs)
    assert after(NARDY, board, (5, 3)) == boards(
        vb({24: 13, 16: 1, 13: 1}, theirs),
        vb({24: 13, 19: 1, 10: 1}, theirs),
        vb({24: 13, 21: 1, 8: 1}, theirs),
        vb({24: 14, 5: 1}, theirs),
    )


def test_long_nardy_head_rule_double():
    # 4-4, not the first roll: one checker leaves the head and goes at most to 16 (12 is their head);
    # the checker on 23 takes the rest: 23 -> 7; 24 -> 20 and 23 -> 11; 24 -> 16 and 23 -> 15.
    board = vb({24: 14, 23: 1}, {12: 15})
    assert after(NARDY, board, (4, 4)) == boards(
        vb({24: 14, 7: 1}, {12: 15}),
        vb({24: 13, 20: 1, 11: 1}, {12: 15}),
        vb({24: 13, 16: 1, 15: 1}, {12: 15}),
    )


@pytest.mark.parametrize(
    ("dice", "expected"),
    [
        # First roll 6-6: two checkers leave the head; 18 -> 12 is their head, so two sixes are all.
        ((6, 6), [{24: 13, 18: 2}]),
        # 4-4: two checkers 24 -> 20 -> 16 (16 -> 12 blocked).
        ((4, 4), [{24: 13, 16: 2}]),
        # 3-3: two checkers share four threes short of 12: 18 and 18, or 15 and 21.
        ((3, 3), [{24: 13, 18: 2}, {24: 13, 21: 1, 15: 1}]),
        # 5-5 and 2-2 are no exception: one checker runs all four steps (24 -> 4, 24 -> 16).
        ((5, 5), [{24: 14, 4: 1}]),
        ((2, 2), [{24: 14, 16: 1}]),
        # A plain first roll: one checker, both dice (24 -> 13 via 18 or 19).
        ((6, 5), [{24: 14, 13: 1}]),
    ],
)
def test_long_nardy_first_roll_exception(dice, expected):
    assert after(NARDY, start(NARDY), dice) == boards(*(vb(e, {12: 15}) for e in expected))


def test_long_nardy_six_block_needs_an_opposing_checker_ahead():
    # Six consecutive points along their path (our 12 -> 1, then 24 -> 13) only with one of theirs ahead.
    # 2-1 from 11, 9, 8, 7, 6, 5, 5: the plays making such a block are 11 -> 10 and 5 -> 3 (10..5 held)
    # and 11 -> 9 with 5 -> 4 (9..4).  Behind: all of theirs on our 12, before the block on their path;
    # ahead: one of them on our 20 (their 8), past it.  Every other play is the same in both.
    ours = {11: 1, 9: 1, 8: 1, 7: 1, 6: 1, 5: 2}
    behind = {frozenset(_ours(b)) for b in after(NARDY, vb(ours, {12: 15}), (2, 1))}
    ahead = {frozenset(_ours(b)) for b in after(NARDY, vb(ours, {12: 14, 20: 1}), (2, 1))}
    primes = {
        frozenset({3: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 1, 10: 1}.items()),
        frozenset({4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 2}.items()),
    }
    assert ahead - behind == primes
    assert behind < ahead


def test_long_nardy_six_block_across_the_board_end():
    # Held: 2, 1, 24, 23, 22 (ours), five points in a row on their path (our 2, 1 and 24 follow each
    # other for them: their 14, 13, 12); our 21 would be the sixth.  Not a first roll: one checker leaves
    # 24.  6-3 moves 24, 23 or 22 (2 and 1 are stuck: not all home).  Every play by hand:
    base = {2: 2, 1: 2}
    plays = {
        "24-15": {24: 7, 23: 2, 22: 1, 15: 1},  # via 18 or 21 (passing 21 is fine: the end counts)
        "23-14": {24: 8, 23: 1, 22: 1, 14: 1},
        "22-13": {24: 8, 23: 2, 13: 1},
        "24-18 23-20": {24: 7, 23: 1, 22: 1, 20: 1, 18: 1},
        "24-18 22-19": {24: 7, 23: 2, 19: 1, 18: 1},
        "23-17 24-21": {24: 7, 23: 1, 22: 1, 21: 1, 17: 1},  # holds 2, 1, 24, 23, 22, 21: the block
        "23-17 23-20": {24: 8, 22: 1, 20: 1, 17: 1},
        "23-17 22-19": {24: 8, 23: 1, 19: 1, 17: 1},
        "22-16 24-21": {24: 7, 23: 2, 21: 1, 16: 1},
        "22-16 23-20": {24: 8, 23: 1, 20: 1, 16: 1},
    }
    board = vb({**base, 24: 8, 23: 2, 22: 1}, {12: 15})
    # All of theirs behind (on their head, our 12): the block is no play, everything else is.
    behind = {k: v for k, v in plays.items() if k != "23-17 24-21"}
    assert after(NARDY, board, (6, 3)) == boards(*(vb({**base, **v}, {12: 15}) for v in behind.values()))
    # One of theirs ahead of it on our 13 (their 1): the block is allowed; 22 -> 13 now lands on theirs.
    theirs = {12: 14, 13: 1}
    board = vb({**base, 24: 8, 23: 2, 22: 1}, theirs)
    ahead = {k: v for k, v in plays.items() if k != "22-13"}
    assert after(NARDY, board, (6, 3)) == boards(*(vb({**base, **v}, theirs) for v in ahead.values()))


def test_long_nardy_higher_die_when_only_one_can_be_played():
    # 10 -> 8 -> 3 and 10 -> 5 -> 3 both end on their checker on 3: only one die can be played.
    # The rule plays the higher (10 -> 5; then the 2 neither moves 5 -> 3 nor bears off from 5);
    # the house rule also allows the 2 alone.
    board = vb({10: 1}, {3: 1, 12: 14})
    assert after(NARDY, board, (5, 2)) == boards(vb({5: 1}, {3: 1, 12: 14}))
    assert after(f"{NARDY}+no-forced-max", board, (5, 2)) == boards(
        vb({5: 1}, {3: 1, 12: 14}), vb({8: 1}, {3: 1, 12: 14})
    )


def test_long_nardy_mars_scoring():
    # The mover bears off its last checker: mars (2) when the loser has none off, else 1.
    v = variant(NARDY)
    for theirs, points in (({12: 15}, 2), ({12: 14}, 1), ({5: 15}, 2)):
        batch = v.generate(vb({1: 1}, theirs)[None, :], np.array([(2, 1)]))
        assert len(batch.positions) == 1
        assert v.result(batch.positions[0]) == points


def _ours(b: bytes) -> set[tuple[int, int]]:
    a = np.frombuffer(b, dtype=np.int8)
    return {(p, int(a[p])) for p in range(1, 26) if a[p] > 0}


# -- acey-deucey: one test per rule ----------------------------------------------------------


def test_acey_deucey_start_and_settings():
    # Nothing on the points; all 15 of each side wait to enter.
    assert start(ACEY).tobytes() == vb({}, {}, waiting=(15, 15)).tobytes()
    v = variant(ACEY)
    assert not v.rotate and not v.cube and v.max_result == 3 and v.opening == "play"


def test_acey_deucey_entering_from_waiting():
    # A waiting checker enters with die n on point 25 - n: 5-3 enters on 20 and 22, or one checker
    # enters and moves on (20 -> 17 or 22 -> 17).  The entering steps are written (26, 25 - n).
    board = start(ACEY)
    assert after(ACEY, board, (5, 3)) == boards(
        vb({20: 1, 22: 1}, {}, waiting=(13, 15)), vb({17: 1}, {}, waiting=(14, 15))
    )
    v = variant(ACEY)
    batch = v.generate(board[None, :], np.array([(5, 3)]))
    steps = {frozenset(batch.steps_of(i)) for i in batch.rows(0)}
    assert frozenset({(26, 20), (26, 22)}) in steps
    assert steps <= {
        frozenset({(26, 20), (26, 22)}),
        frozenset({(26, 20), (20, 17)}),
        frozenset({(26, 22), (22, 17)}),
    }


def test_acey_deucey_entering_hits_and_is_blocked():
    # Their blot on our 20: entering with the 5 hits it (to their bar).  5-3: enter 20* and 22; enter 20*
    # and go on to 17; enter 22 and go on to 17 (their blot stays).
    board = vb({}, {20: 1}, waiting=(15, 14))
    assert after(ACEY, board, (5, 3)) == boards(
        vb({20: 1, 22: 1}, {0: 1}, waiting=(13, 14)),
        vb({17: 1}, {0: 1}, waiting=(14, 14)),
        vb({17: 1}, {20: 1}, waiting=(14, 14)),
    )
    # Their point on 20 (two checkers) blocks the 5: the 3 enters on 22, and the 5 moves it on to 17.
    board = vb({}, {20: 2}, waiting=(15, 13))
    assert after(ACEY, board, (5, 3)) == boards(vb({17: 1}, {20: 2}, waiting=(14, 13)))


def test_acey_deucey_bar_first_with_waiting_checkers():
    # One of ours on the bar, ten waiting, four on 13.  5-3: the bar checker must enter first: the 5
    # (point 20) is blocked, so the 3 enters it on 22; then the 5: a waiting checker cannot enter (20),
    # so 22 -> 17 or 13 -> 8.  A waiting checker may not enter before the bar checker, nor 13 move.
    theirs = {20: 2}
    board = vb({25: 1, 13: 4}, theirs, waiting=(10, 13))
    assert after(ACEY, board, (5, 3)) == boards(
        vb({17: 1, 13: 4}, theirs, waiting=(10, 13)), vb({22: 1, 13: 3, 8: 1}, theirs, waiting=(10, 13))
    )
    # Both entry points blocked: the bar checker cannot enter, so nothing moves (a pass).
    assert turn(ACEY, vb({25: 1, 13: 4}, {20: 2, 22: 2}, waiting=(10, 11)), (5, 3)) == {}


def test_acey_deucey_moving_before_all_have_entered():
    # Two of ours on 20, 13 waiting, theirs all waiting.  6-5: each die enters (6 on 19, 5 on 20) or
    # moves a checker on the points: both enter; the 6 enters and the 5 moves 20 -> 15 or 19 -> 14; the
    # 5 enters and 20 -> 14 (the same as 19 -> 14); neither enters: 20 -> 14 and 20 -> 15, or 20 -> 9.
    board = vb({20: 2}, {}, waiting=(13, 15))
    assert after(ACEY, board, (6, 5)) == boards(
        vb({20: 3, 19: 1}, {}, waiting=(11, 15)),
        vb({20: 1, 19: 1, 15: 1}, {}, waiting=(12, 15)),
        vb({20: 2, 14: 1}, {}, waiting=(12, 15)),
        vb({15: 1, 14: 1}, {}, waiting=(13, 15)),
        vb({20: 1, 9: 1}, {}, waiting=(13, 15)),
    )
    # +enter-all: nothing on the points moves while one of ours waits, so both dice enter.
    assert after(f"{ACEY}+enter-all", board, (6, 5)) == boards(vb({20: 3, 19: 1}, {}, waiting=(11, 15)))
    # Both entry points (19, 20) blocked: the default moves the checkers on 13 (13 -> 7 and 13 -> 8, or
    # one of them 13 -> 2); +enter-all passes.
    theirs = {19: 2, 20: 2}
    board = vb({13: 2}, theirs, waiting=(13, 11))
    assert after(ACEY, board, (6, 5)) == boards(
        vb({7: 1, 8: 1}, theirs, waiting=(13, 11)), vb({13: 1, 2: 1}, theirs, waiting=(13, 11))
    )
    assert turn(f"{ACEY}+enter-all", board, (6, 5)) == {}


# A lone checker of ours on 20 (the other 14 off); theirs hold 11 and 7 (and 11 more on our 24).  1-2:
# 20 -> 17 (via 19 or 18).  Then four of the chosen double d from 17:
#   d=1: 16, 15, 14, 13: all four, roll again (seen by the mover);
#   d=2: 15, 13, then 11 is theirs: two of four, the turn ends on 13;
#   d=3: 14, then 11: one, ends on 14;     d=4: 13, 9, 5, 1: all four, roll again;
#   d=5: 12, then 7: one, ends on 12;      d=6: 17 -> 11 at once: none, the turn ends after the 1-2 on 17.
LONE = ({20: 1}, {11: 2, 7: 2, 24: 11})
ONE_TWO_AMERICAN = {
    1: ({13: 1}, True, 6),
    2: ({13: 1}, False, 4),
    3: ({14: 1}, False, 3),
    4: ({1: 1}, True, 6),
    5: ({12: 1}, False, 3),
    6: ({17: 1}, False, 2),
}


def test_acey_deucey_one_two_rows():
    board = vb(*LONE)
    theirs = LONE[1]
    expected = {(vb(ours, theirs).tobytes(), a) for ours, a, _ in ONE_TWO_AMERICAN.values()}
    assert set(turn(ACEY, board, ONE_TWO)) == expected
    # The order of the dice does not matter.
    assert set(turn(ACEY, board, (1, 2))) == expected


@pytest.mark.parametrize("d", sorted(ONE_TWO_AMERICAN))
def test_acey_deucey_one_two_with_each_double(d):
    ours, again_, n = ONE_TWO_AMERICAN[d]
    board = vb(*LONE)
    v = variant(ACEY)
    batch = v.generate(board[None, :], np.array([ONE_TWO]))
    rows = [
        i
        for i in batch.rows(0)
        if bool(batch.again[i]) == again_
        and (batch.positions[i] if again_ else ref.flip(batch.positions[i], False)).tobytes()
        == vb(ours, LONE[1]).tobytes()
    ]
    assert len(rows) == 1
    i = rows[0]
    steps = batch.steps_of(i)
    assert len(steps) == n
    assert sorted(f - t for f, t in steps[:2]) == [1, 2]
    if n > 2:
        assert batch.doubles[i] == d and all(f - t == d for f, t in steps[2:])
    else:  # nothing of the double played: the row names no double, or one that cannot be played
        assert batch.doubles[i] in (0, 6)


def test_acey_deucey_one_two_whose_double_cannot_be_played():
    # After 20 -> 17 every double lands on theirs (16..11 held): the turn ends after the 1-2, no re-roll.
    theirs = {16: 2, 15: 2, 14: 2, 13: 2, 12: 2, 11: 2, 24: 3}
    assert set(turn(ACEY, vb({20: 1}, theirs), ONE_TWO)) == passed_rows(vb({17: 1}, theirs))


def test_acey_deucey_one_two_whose_one_two_cannot_be_played_fully():
    # 20 -> 19 (the 1) is blocked and 20 -> 18 -> 17 ends on theirs: only the 2 (the higher) is played,
    # and the turn ends there: no double, no re-roll.
    theirs = {19: 2, 17: 2, 24: 11}
    found = turn(ACEY, vb({20: 1}, theirs), ONE_TWO)
    assert set(found) == passed_rows(vb({18: 1}, theirs))
    assert set(found.values()) == {0}


def test_acey_deucey_european_one_two():
    # After the four d's the mover plays four of 7 - d, and rolls again only when all ten were played.
    # On LONE: d=1 ends on 13 (13 -> 7 is theirs), d=2 on 13, d=3 on 14, d=5 on 12, d=6 on 17 as before;
    # d=4 reaches 1 and the first 3 bears that last checker off: the game is over, the turn ends.
    label = f"{ACEY}+european-1-2"
    theirs = LONE[1]
    assert set(turn(label, vb(*LONE), ONE_TWO)) == passed_rows(
        vb({13: 1}, theirs), vb({14: 1}, theirs), vb({12: 1}, theirs), vb({17: 1}, theirs), vb({}, theirs)
    )
    # Twelve of ours on 1: every part bears off (the 1 and the 2, four d's, four 7 - d's), whatever d:
    # two left and a roll again; the American rule stops after the four d's with six left.
    board = vb({1: 12}, {24: 15})
    assert set(turn(label, board, ONE_TWO)) == again_rows(vb({1: 2}, {24: 15}))
    assert set(turn(ACEY, board, ONE_TWO)) == again_rows(vb({1: 6}, {24: 15}))


@pytest.mark.parametrize(
    ("theirs", "waiting", "points"),
    [
        ({13: 14}, 1, 3),  # a checker still waiting to enter: backgammon
        ({13: 15}, 0, 2),  # none off, none waiting, on the bar or in our home: gammon
        ({13: 14, 0: 1}, 0, 3),  # on the bar: backgammon
        ({13: 14, 5: 1}, 0, 3),  # in the winner's home board: backgammon
        ({13: 13}, 1, 1),  # one borne off: a single game, even with one waiting
    ],
)
def test_acey_deucey_scoring(theirs, waiting, points):
    # The mover bears off its last checker (1 -> off with the 4 or the 3).
    v = variant(ACEY)
    batch = v.generate(vb({1: 1}, theirs, waiting=(0, waiting))[None, :], np.array([(4, 3)]))
    assert len(batch.positions) == 1
    assert v.result(batch.positions[0]) == points


# -- differential: Variant.generate against the reference (whole turns) ----------------------


def compare(label: str, board: np.ndarray, dice: tuple[int, int]) -> int:
    """Assert the kernel's rows of one roll are the reference's (position, again) pairs, each once.

    Each row's steps and chosen double must also replay, with the reference's
    single moves and part by part, to that row's (position, again).
    """
    v = variant(label)
    batch = v.generate(board[None, :], np.array([dice]))
    got: dict[tuple[bytes, bool], int] = {}
    where = f"{label} board={[int(x) for x in board]} dice={dice}"
    for i in batch.rows(0):
        key = (batch.positions[i].tobytes(), bool(batch.again[i]) if batch.again is not None else False)
        assert key not in got, f"a (position, again) pair listed twice: {where}"
        got[key] = i
    expected = ref.turns(board, dice, label)
    show = lambda keys: [(list(np.frombuffer(k, np.int8)), a) for k, a in keys]  # noqa: E731
    missing, extra = show(set(expected) - set(got)), show(set(got) - set(expected))
    assert not missing and not extra, (
        f"{where}\nmissing (reference only): {missing}\nextra (kernel only): {extra}"
    )
    for key, i in got.items():
        steps = batch.steps_of(i)
        double = int(batch.doubles[i]) if batch.doubles is not None else 0
        assert ref.replay_turn(board, dice, steps, double, label) == key, (
            f"{where} steps {steps} double {double}"
        )
    return len(got)


def some_roll(rng: np.random.Generator, label: str, board: np.ndarray, spread: int) -> tuple[int, int]:
    """A random roll; in acey-deucey a 1-2 a third of the time, in long nardy the head doubles more often.

    A 1-2 only where the mover's checkers stand on at most ``spread`` places
    (points, bar, waiting): in mid-game a 1-2 has 10^4 results (10^5 under the
    European rule), seconds to minutes for the reference.
    """
    places = int((board[1:26] > 0).sum()) + int(board[OUR_WAITING] > 0)
    if label.startswith(ACEY) and rng.random() < 1 / 3 and places <= spread:
        return ONE_TWO if rng.random() < 0.5 else (1, 2)
    if label.startswith(NARDY) and rng.random() < 0.2:
        d = int(rng.choice([3, 4, 6]))
        return d, d
    return int(rng.integers(1, 7)), int(rng.integers(1, 7))


def nardy_board(rng: np.random.Generator) -> np.ndarray:
    """A long-nardy board no game need reach: near-primes, or many on the head with theirs anywhere."""
    if rng.random() < 0.5:
        return near_prime(rng)
    b = np.zeros(VSLOTS, dtype=np.int8)
    b[24] = 15 if rng.random() < 0.4 else int(rng.integers(1, 15))
    for _ in range(15 - b[24] - int(rng.integers(0, 3))):
        b[int(rng.integers(1, 24))] += 1
    for _ in range(int(rng.integers(1, 16))):
        p = 12 if rng.random() < 0.3 else int(rng.integers(1, 24))
        if b[p] <= 0:
            b[p] -= 1
    return b


def acey_board(rng: np.random.Generator) -> np.ndarray:
    """An acey-deucey board no game need reach: checkers waiting, on the bars, piled at home, blots."""
    b = np.zeros(VSLOTS, dtype=np.int8)
    for side in (1, -1):
        left = 15 - int(rng.integers(0, 4))
        wait = int(rng.integers(0, left + 1)) if rng.random() < 0.7 else 0
        bar = min(int(rng.integers(1, 3)) if rng.random() < 0.25 else 0, left - wait)
        b[OUR_WAITING if side > 0 else THEIR_WAITING] = side * wait
        b[25 if side > 0 else 0] = side * bar
        home = rng.random() < 0.4
        for _ in range(left - wait - bar):
            p = int(rng.integers(1, 7)) if home and rng.random() < 0.8 else int(rng.integers(1, 25))
            if side < 0 and home:
                p = 25 - p  # their home is our 19..24
            if b[p] * side >= 0:
                b[p] += side
    return b


def _spread(label: str, slow: bool) -> int:
    """Where a 1-2 is tried (see :func:`some_roll`): by the rule's cost in the reference."""
    if label.endswith("european-1-2"):
        return 4 if slow else 1
    return 24 if slow else 5


def _differential(label: str, positions: int, seed: int, slow: bool = False) -> None:
    rng = np.random.default_rng(seed)
    total = 0
    for board in reached(label, seed, positions):
        total += compare(label, board, some_roll(rng, label, board, _spread(label, slow)))
    assert total > positions  # the positions have plays to compare (not just passes)


def _differential_odd(label: str, positions: int, seed: int, slow: bool = False) -> None:
    rng = np.random.default_rng(seed)
    make = nardy_board if label.startswith(NARDY) else acey_board
    for _ in range(positions):
        board = make(rng)
        compare(label, board, some_roll(rng, label, board, _spread(label, slow)))


@pytest.mark.parametrize("label", NEW_LABELS)
def test_generate_matches_the_reference_in_random_games(label):
    _differential(label, 40, 15)


@pytest.mark.parametrize("label", NEW_LABELS)
def test_generate_matches_the_reference_on_odd_boards(label):
    _differential_odd(label, 30, 16)


@pytest.mark.slow
@pytest.mark.parametrize("label", [NARDY, f"{NARDY}+no-forced-max"])
def test_generate_matches_the_reference_at_length(label):
    # Long nardy only: replaying acey-deucey's mid-game 1-2 whole turns (thousands of rows each) in
    # the plain-Python reference takes hours; its random-game and odd-board runs above cover it.
    _differential(label, 400, 17, slow=True)
    _differential_odd(label, 400, 18, slow=True)


def test_generate_matches_the_reference_from_the_start():
    # Every roll from each start (the first-roll exception, the acey-deucey entries, the 1-2 from nothing).
    for label in NEW_LABELS:
        for dice in ROLLS:
            compare(label, start(label), dice)


# -- properties ------------------------------------------------------------------------


@st.composite
def game_boards(draw: st.DrawFn, labels: list[str]) -> tuple[str, np.ndarray]:
    """One of ``labels`` and a position of it reached by seeded random play."""
    label = draw(st.sampled_from(labels))
    seed = draw(st.integers(0, 2**32 - 1))
    plies = draw(st.integers(0, 60))
    return label, random_play(label, np.random.default_rng(seed), plies)


rolls = st.sampled_from([*ROLLS, ONE_TWO, ONE_TWO])  # a 1-2 three times in 23


def _rows(label: str, board: np.ndarray, dice: tuple[int, int]):
    """Each row as (the mover's view after the turn, again, steps, double)."""
    v = variant(label)
    batch = v.generate(board[None, :], np.array([dice]))
    out = []
    for i in batch.rows(0):
        again_ = bool(batch.again[i]) if batch.again is not None else False
        mine = batch.positions[i] if again_ else ref.flip(batch.positions[i], v.rotate)
        out.append(
            (mine, again_, batch.steps_of(i), int(batch.doubles[i]) if batch.doubles is not None else 0)
        )
    return out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_boards(NEW_LABELS), rolls)
def test_checkers_are_kept(game, dice):
    # 15 a side over the points, the bar, waiting and off: the opponent loses none from play (a hit goes
    # to the bar), the mover only by bearing off, and its waiting checkers leave only by entering.
    label, board = game
    before = ref.from_board(board)
    ours, theirs = ref.in_play(before)
    assert ours <= 15 and theirs <= 15
    for mine, _, steps, _ in _rows(label, board, dice):
        now = ref.from_board(mine)
        assert ref.in_play(now) == (ours - sum(t == 0 for _, t in steps), theirs)
        assert now.wait_me == before.wait_me - sum(f == 26 for f, _ in steps)
        assert now.wait_them == before.wait_them
        assert all(x >= 0 for x in now.me + now.them)
        assert not any(now.me[p] and now.them[p] for p in range(1, 25))  # no point shared


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_boards([NARDY, f"{NARDY}+no-forced-max"]), rolls)
def test_long_nardy_head_rule_and_no_closed_six_block(game, dice):
    label, board = game
    first = board[24] == 15 and dice[0] == dice[1] and dice[0] in (6, 4, 3)
    for mine, again_, _, _ in _rows(label, board, dice):
        assert not again_
        assert board[24] - mine[24] <= (2 if first else 1)  # checkers that left the head
        # No six points in a row on their path (our 12 -> 1, 24 -> 13) without one of theirs past them.
        held = [mine[p] > 0 for p in ref.FEVGA_PATH]
        for j in range(19):
            if all(held[j : j + 6]):
                assert any(mine[p] < 0 for p in ref.FEVGA_PATH[j + 6 :]), (
                    f"closed block at {ref.FEVGA_PATH[j]}"
                )


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_boards([ACEY, f"{ACEY}+enter-all", f"{ACEY}+european-1-2"]), rolls)
def test_acey_deucey_turn_shape(game, dice):
    # Only a 1-2 names a double or rolls again; its steps are the 1 and the 2, then the double (then its
    # complement); a roll again means every part was played in full.
    label, board = game
    european = label.endswith("european-1-2")
    one_two = sorted(dice) == [1, 2]

    def fits(step: tuple[int, int], d: int) -> bool:
        f, t = step
        if f == 26:
            return t == 25 - d  # entering from waiting
        return d >= f if t == 0 else f - t == d

    for _, again_, steps, double in _rows(label, board, dice):
        if not one_two:
            assert not again_ and double == 0 and len(steps) <= (4 if dice[0] == dice[1] else 2)
            continue
        assert len(steps) <= (10 if european else 6)
        assert again_ == (len(steps) == (10 if european else 6))
        if len(steps) > 2:
            assert 1 <= double <= 6
            parts = [double] * 4 + [7 - double] * 4
            assert all(fits(s, d) for s, d in zip(steps[2:], parts, strict=False)), (steps, double)
        s1 = steps[:2]
        if len(s1) == 1:  # only one of the 1 and the 2 could be played: the turn ended there
            assert fits(s1[0], 1) or fits(s1[0], 2)
        else:
            assert (fits(s1[0], 1) and fits(s1[1], 2)) or (fits(s1[0], 2) and fits(s1[1], 1)), steps
