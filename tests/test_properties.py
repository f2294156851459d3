"""Randomized invariants of the rules core over random legal boards and seeded games."""

import numpy as np
from boards import legal_boards
from hypothesis import given, settings
from hypothesis import strategies as st

from bgnet.dice import ALL_ROLLS
from bgnet.movegen import generate
from bgnet.position import Position, flip

rolls = st.sampled_from(ALL_ROLLS)


def checkers(board: np.ndarray) -> tuple[int, int]:
    b = board.astype(np.int32)
    return int(b[b > 0].sum()), int(-b[b < 0].sum())


@given(legal_boards())
def test_flip_twice_is_the_identity(board):
    assert np.array_equal(flip(flip(board)), board)
    assert Position(board).flip().flip() == Position(board)


@settings(max_examples=300)
@given(legal_boards(), rolls)
def test_results_are_distinct_legal_and_keep_every_checker(board, dice):
    batch = generate(board[None, :], np.array([[dice.high, dice.low]]))
    results = batch.positions[batch.offsets[0] : batch.offsets[1]]
    assert len({r.tobytes() for r in results}) == len(results)
    ours, theirs = checkers(board)
    pips = Position(board).pips()[0]
    for r, steps in zip(results, batch.steps[batch.offsets[0] : batch.offsets[1]], strict=True):
        Position(r)  # validates: <= 15 a side, no shared point
        mover = flip(r)  # back to the mover's view
        m_ours, m_theirs = checkers(mover)
        # The mover's checkers never grow (some may be borne off); the opponent keeps all of his.
        assert m_ours <= ours and m_theirs == theirs
        used = [(int(f), int(t)) for f, t in steps if f >= 0]
        # Pips moved: each step moves its die, or less when bearing off.
        assert pips - Position(mover).pips()[0] == sum(f - t for f, t in used)


@settings(max_examples=200)
@given(legal_boards(), rolls)
def test_every_result_of_a_roll_uses_the_same_number_of_dice(board, dice):
    batch = generate(board[None, :], np.array([[dice.high, dice.low]]))
    used = {int((s[:, 0] >= 0).sum()) for s in batch.steps[batch.offsets[0] : batch.offsets[1]]}
    assert len(used) <= 1
    if used:
        assert used.pop() <= (4 if dice.is_double else 2)
