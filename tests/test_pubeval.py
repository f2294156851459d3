"""Tesauro's pubeval (:mod:`bgnet.pubeval`) against gnubg-nn's, and by hand.

The differential test plays every line ``POSITION_ID DICE KIND`` of
``data/movegen_positions.txt`` (35,100 inputs of all kinds) with
:func:`bgnet.pubeval.pubeval_best` and with ``gnubg_nn.pub_best_move`` and
compares the *resulting positions*.  gnubg's answer is a flat list of steps
``[from, to, from, to, ...]`` on 0-based points of the side on roll
(``board[1]`` of gnubg's ``[side not on roll, side on roll]``), 24 = bar,
-1 = off; it is applied to our board here, and the result must be one of the
generator's results.  The two may differ only on an exact tie in score (both
scores are float32 and bit-identical, checked against
``gnubg_nn.pub_eval_score``), and ties must be rare.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np
import pytest

from bgnet.formats import board_from_position_id, board_to_gnubg
from bgnet.movegen import generate
from bgnet.position import STARTING, Position, flip
from bgnet.pubeval import (
    ALL_OFF_SCORE,
    WC,
    WR,
    crashed_sides,
    is_crashed,
    is_race,
    pubeval_best,
    pubeval_choose,
    pubeval_scores,
    race_before_move,
)
from tests.boards import pos

POSITIONS_FILE = Path(__file__).parent / "data" / "movegen_positions.txt"
MIN_CASES = 10_000
MAX_TIE_RATE = 0.005
TIE_TOLERANCE = 1e-6


@cache
def cases() -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """(boards from the side on roll, dice, kinds) of every line of the data file."""
    boards, dice, kinds = [], [], []
    for line in POSITIONS_FILE.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        pid, roll, kind = line.split()
        boards.append(board_from_position_id(pid))
        dice.append((int(roll[0]), int(roll[1])))
        kinds.append(kind)
    return np.array(boards, dtype=np.int8), np.array(dice, dtype=np.int64), tuple(kinds)


def apply_gnubg_move(board: np.ndarray, move: list[int]) -> np.ndarray:
    """Play gnubg's step list on our board (side on roll); the result seen by the opponent."""
    assert len(move) % 2 == 0 and len(move) <= 8, f"unexpected gnubg move {move}"
    b = board.astype(np.int16)
    for f, t in zip(move[0::2], move[1::2], strict=True):
        src, dst = f + 1, t + 1  # 0-based points -> our slots; bar 24 -> 25, off -1 -> 0
        assert 1 <= src <= 25 and 0 <= dst < src, f"bad step {f}/{t} in {move}"
        assert b[src] > 0, f"no checker of ours on {src} for {move}"
        b[src] -= 1
        if dst >= 1:
            if b[dst] == -1:  # a hit: their blot goes to their bar (slot 0)
                b[dst] = 0
                b[0] -= 1
            assert b[dst] >= 0, f"step {f}/{t} lands on a blocked point in {move}"
            b[dst] += 1
    return flip(b.astype(np.int8))


def reference_score(result: np.ndarray, race: bool) -> float:
    """Tesauro's setx() and dot product, written out plainly in float64."""
    pos = flip(result).astype(int)  # the mover's view: pos[1..24], pos[0] their bar, pos[25] ours
    off = 15 - int(pos[pos > 0].sum())
    if off == 15:
        return float(ALL_OFF_SCORE)
    x = np.zeros(122)
    for j in range(1, 25):
        n = pos[25 - j]
        k = 5 * (j - 1)
        if n == -1:
            x[k] = 1
        if n == 1:
            x[k + 1] = 1
        if n >= 2:
            x[k + 2] = 1
        if n == 3:
            x[k + 3] = 1
        if n >= 4:
            x[k + 4] = (n - 3) / 2
    x[120] = -pos[0] / 2
    x[121] = off / 15
    return float((WR if race else WC) @ x)


def result_of(board: Position, dice: tuple[int, int], ours: dict[int, int], theirs: dict[int, int]) -> int:
    """The row of ``generate(board, dice)`` reaching ``Position.from_points(ours, theirs)`` (mover's view)."""
    batch = generate(board.board[None, :], np.array([dice]))
    want = flip(Position.from_points(ours, theirs).board)
    rows = np.flatnonzero((batch.positions == want).all(axis=1))
    assert len(rows) == 1, f"{dice}: {ours} / {theirs} is not a legal result"
    return int(rows[0])


# ----------------------------------------------------------------------------
# against gnubg-nn
# ----------------------------------------------------------------------------


@pytest.mark.slow
def test_choice_matches_gnubg_pub_best_move():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    boards, dice, kinds = cases()
    n = len(boards)
    assert n >= MIN_CASES, f"only {n} inputs in {POSITIONS_FILE.name}"
    batch = generate(boards, dice)
    best = pubeval_best(batch)
    counts = np.diff(batch.offsets)
    assert np.array_equal(best < 0, counts == 0), "-1 exactly for the inputs with no legal play"
    race = race_before_move(batch.positions, batch.steps)
    scores = pubeval_scores(batch.positions, race)

    agree = ties = 0
    bad: list[str] = []
    for i in range(n):
        move = gnubg_nn.pub_best_move(board_to_gnubg(boards[i]), int(dice[i, 0]), int(dice[i, 1]))
        lo, hi = int(batch.offsets[i]), int(batch.offsets[i + 1])
        if not move:
            if hi > lo:
                bad.append(f"input {i} ({kinds[i]}): gnubg passes, we have {hi - lo} plays")
            else:
                agree += 1
            continue
        theirs = apply_gnubg_move(boards[i], move)
        rows = lo + np.flatnonzero((batch.positions[lo:hi] == theirs).all(axis=1))
        if len(rows) != 1:
            bad.append(f"input {i} ({kinds[i]}): gnubg's play {move} is not among our results")
            continue
        ours, gnubg_row = int(best[i]), int(rows[0])
        if ours == gnubg_row:
            agree += 1
        elif abs(float(scores[ours]) - float(scores[gnubg_row])) <= TIE_TOLERANCE:
            ties += 1
        else:
            bad.append(
                f"input {i} ({kinds[i]}, dice {dice[i].tolist()}): we pick row {ours} "
                f"(score {scores[ours]}), gnubg {move} = row {gnubg_row} (score {scores[gnubg_row]})\n"
                f"{Position(boards[i], validate=False)}"
            )
    rate = agree / n
    print(f"\npubeval vs gnubg_nn.pub_best_move: {agree}/{n} identical ({rate:.4%}), {ties} ties")
    assert not bad, f"{len(bad)} disagreements; first:\n" + "\n".join(bad[:3])
    assert ties <= MAX_TIE_RATE * n, f"{ties} ties in {n} inputs is more than {MAX_TIE_RATE:.1%}"


def test_scores_bit_identical_to_gnubg_pub_eval_score():
    """pub_eval_score(board) scores ``board[0]`` (the side not on roll, i.e. the one that
    just moved) with gnubg's own race test on that board: our ``race=None``."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    boards, dice, _ = cases()
    batch = generate(boards[::7], dice[::7])
    rows = np.random.default_rng(7).choice(len(batch.positions), 4000, replace=False)
    ours = pubeval_scores(batch.positions[rows])
    ref = np.array([gnubg_nn.pub_eval_score(board_to_gnubg(r)) for r in batch.positions[rows]])
    assert ours.dtype == np.float32
    assert np.array_equal(ours, ref.astype(np.float32))


def test_race_test_matches_gnubg_classify():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    boards, _, _ = cases()
    sample = boards[::5]
    gnubg = np.array([gnubg_nn.classify(board_to_gnubg(b)) <= gnubg_nn.c_race for b in sample])
    assert np.array_equal(is_race(sample), gnubg)
    assert np.array_equal(is_race(flip(sample)), gnubg), "the test is symmetric"


def test_crashed_test_matches_gnubg_classify():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    boards, dice, _ = cases()
    # the inputs and a share of their results: late positions, where crashed ones are
    sample = np.concatenate([boards[::2], generate(boards[::6], dice[::6]).positions[::7]])
    gnubg = np.array([gnubg_nn.classify(board_to_gnubg(b)) == gnubg_nn.c_crashed for b in sample])
    assert gnubg.sum() > 1000 and (~gnubg & ~is_race(sample)).sum() > 1000, "both classes are tested"
    assert np.array_equal(is_crashed(sample), gnubg)
    assert np.array_equal(is_crashed(flip(sample)), gnubg), "the test is symmetric"


def test_a_crashed_side_by_hand():
    theirs = {18: 2, 6: 13}  # two back checkers on our 7 point: our checker on the 8 keeps contact

    def crashed(ours: dict[int, int], them: dict[int, int] = theirs) -> bool:
        board = pos(ours, them).board
        assert bool(is_crashed(board)[0]) == bool(is_crashed(flip(board))[0])
        # the side crashed is ours, on roll; seen from the other side it is the side off roll
        on, off = crashed_sides(board)[0]
        assert not off and list(crashed_sides(flip(board))[0]) == [False, on]
        assert on == bool(is_crashed(board)[0])
        return bool(on)

    assert crashed({2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 8: 1})  # six in play
    assert not crashed({2: 1, 3: 1, 4: 1, 5: 1, 6: 2, 8: 1})  # seven
    assert crashed({1: 3, 6: 3, 8: 3})  # nine, three on the ace: 9 - 3 <= 6
    assert not crashed({1: 2, 6: 4, 8: 3})  # 9 - 2 = 7
    assert crashed({1: 2, 2: 2, 6: 2, 8: 3})  # ... unless the deuce is stacked too: 9 - 2 - 2 <= 5
    assert crashed({2: 3, 6: 3, 8: 2})  # at most one on the ace: 8 - 3 on the deuce <= 5
    assert not crashed({2: 2, 6: 4, 8: 2})  # 8 - 2 = 6
    # the same checkers once contact is broken: a race, never crashed
    board = pos({1: 2, 2: 2, 6: 2, 8: 3}, {9: 2, 6: 13}).board
    assert is_race(board)[0] and not is_crashed(board)[0] and not crashed_sides(board).any()


def test_race_before_move_equals_race_of_the_input():
    boards, dice, _ = cases()
    batch = generate(boards, dice)
    expected = np.repeat(is_race(boards), np.diff(batch.offsets))
    assert np.array_equal(race_before_move(batch.positions, batch.steps), expected)


def test_matches_a_plain_reference_implementation():
    boards, dice, _ = cases()
    batch = generate(boards[::11], dice[::11])
    rows = np.random.default_rng(11).choice(len(batch.positions), 2000, replace=False)
    for race in (False, True):
        ours = pubeval_scores(batch.positions[rows], race)
        ref = np.array([reference_score(r, race) for r in batch.positions[rows]])
        np.testing.assert_allclose(ours, ref, rtol=0, atol=2e-5)


# ----------------------------------------------------------------------------
# by hand
# ----------------------------------------------------------------------------


def test_hand_computed_race_score():
    # We (15 checkers: 14 off, 1 on our 1 point) against 15 on their 1 point: a race.
    result = flip(Position.from_points({1: 1}, {1: 15}).board)
    assert is_race(result)[0]
    want = WR[5 * 23 + 1] + WR[121] * 14 / 15  # a single checker on point 1 (block 23), 14 off
    assert want == pytest.approx(-2.77982 + 3.42040 * 14 / 15)
    (score,) = pubeval_scores(result)  # race=None: the position's own test picks the race weights
    assert score == pytest.approx(want, abs=1e-5)
    assert pubeval_scores(result, race=True)[0] == score
    contact = WC[5 * 23 + 1] + WC[121] * 14 / 15
    assert pubeval_scores(result, race=False)[0] == pytest.approx(contact, abs=1e-5)


def test_hand_computed_contact_score():
    # We have 2 on our 6 point and 13 off; one of theirs on the bar, one blot on our 5 point.
    result = flip(Position.from_points({6: 2}, {25: 1, 20: 1, 1: 13}).board)
    assert not is_race(result)[0]
    block6, block5 = 5 * (24 - 6), 5 * (24 - 5)
    want = WC[block6 + 2] + WC[block5 + 0] + WC[120] * 1 / 2 + WC[121] * 13 / 15
    assert pubeval_scores(result)[0] == pytest.approx(want, abs=1e-5)
    # A stack of 7 uses input 4 = (7 - 3) / 2 on top of input 2.
    stack = flip(Position.from_points({6: 7}, {1: 15}).board)
    want = WR[block6 + 2] + WR[block6 + 4] * 2 + WR[121] * 8 / 15
    assert pubeval_scores(stack)[0] == pytest.approx(want, abs=1e-5)


def test_all_checkers_off_is_the_best_score():
    result = flip(Position.from_points({}, {1: 15}).board)
    assert pubeval_scores(result)[0] == ALL_OFF_SCORE
    # Bearing off the last two checkers beats anything else.
    board = Position.from_points({1: 1, 2: 1}, {1: 15})
    assert pubeval_choose(board.board, (2, 1)).tolist() == result.tolist()


def test_different_positions_score_differently():
    # Opening 3-1: pubeval makes the 5 point (8/5 6/5), the classic best play.
    best = pubeval_choose(STARTING.board, (3, 1))
    five_point = Position.from_points({6: 4, 5: 2, 8: 2, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    assert np.array_equal(best, five_point.flip().board)
    batch = generate(STARTING.board[None, :], np.array([[3, 1]]))
    scores = pubeval_scores(batch.positions, race=False)
    assert len(np.unique(scores)) == len(scores), "the 16 plays of 31 all score differently"
    split = result_of(STARTING, (3, 1), {24: 1, 21: 1, 5: 1, 6: 4, 8: 3, 13: 5}, {6: 5, 8: 3, 13: 5, 24: 2})
    five = result_of(STARTING, (3, 1), {6: 4, 5: 2, 8: 2, 13: 5, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    assert scores[five] > scores[split]
    assert pubeval_best(batch)[0] == five


def test_weights_of_the_position_before_the_move():
    # Our last checker on 20 is behind their 15 checkers on their 6 point (our 19):
    # contact.  6-5 runs it past them (20/14/9), a race after the move, but
    # Tesauro and gnubg still use the contact weights for every play of the roll.
    gnubg_nn = pytest.importorskip("gnubg_nn")
    board = Position.from_points({20: 1, 6: 14}, {6: 15})
    assert not is_race(board.board)[0]
    batch = generate(board.board[None, :], np.array([[6, 5]]))
    run = result_of(board, (6, 5), {9: 1, 6: 14}, {6: 15})
    assert is_race(batch.positions[run])[0]
    assert not race_before_move(batch.positions, batch.steps).any()
    contact = pubeval_scores(batch.positions, race=False)
    own_test = pubeval_scores(batch.positions)
    assert own_test[run] != contact[run]
    row = pubeval_best(batch)[0]
    assert contact[row] == contact.max()
    assert pubeval_best(batch, race=False)[0] == row
    race = pubeval_scores(batch.positions, race=True)
    assert race[pubeval_best(batch, race=[True])[0]] == race.max()
    move = gnubg_nn.pub_best_move(board_to_gnubg(board.board), 6, 5)
    assert np.array_equal(apply_gnubg_move(board.board, move), batch.positions[row])


def test_no_legal_play_is_minus_one():
    # On the bar against a closed board: no play; the other input still gets one.
    closed = Position.from_points({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3})
    batch = generate(np.stack([closed.board, STARTING.board]), np.array([[6, 6], [2, 1]]))
    best = pubeval_best(batch)
    assert best[0] == -1
    assert batch.offsets[1] <= best[1] < batch.offsets[2]
    assert pubeval_choose(closed.board, (6, 6)) is None
    empty = generate(closed.board[None, :], np.array([[5, 5]]))
    assert pubeval_best(empty).tolist() == [-1]
