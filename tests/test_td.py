"""The TD(lambda) targets on a tiny chain computed by hand."""

import numpy as np
import pytest

from bgnet.game import final_probabilities
from bgnet.lockstep import FinishedGame
from bgnet.position import Position
from bgnet.probabilities import flip as flip_probs
from bgnet_training.td import lambda_returns

V1 = [0.6, 0.2, 0.0, 0.1, 0.0]
V2 = [0.3, 0.1, 0.0, 0.2, 0.05]
Z = [0.0, 0.0, 0.0, 1.0, 0.0]  # the side on roll at the end lost a gammon


def chain(lam):
    values = np.array([[[9, 9, 9, 9, 9], V1, V2]], dtype=np.float64)  # row 0 is never used
    return lambda_returns(values, np.array([3]), np.array([Z]), lam)[0]


def test_lambda_half_on_a_three_position_chain_matches_the_hand_computation():
    # G2 = flip(z) = (1, 1, 0, 0, 0)
    # R2 = .5 V2 + .5 G2 = (.65, .55, 0, .1, .025);  G1 = flip(R2) = (.35, .1, .025, .55, 0)
    # R1 = .5 V1 + .5 G1 = (.475, .15, .0125, .325, 0);  G0 = flip(R1) = (.525, .325, 0, .15, .0125)
    expected = [[0.525, 0.325, 0.0, 0.15, 0.0125], [0.35, 0.1, 0.025, 0.55, 0.0], [1, 1, 0, 0, 0]]
    assert chain(0.5) == pytest.approx(np.array(expected))


def test_lambda_zero_is_one_step_td_and_lambda_one_is_the_game_result():
    assert chain(0.0) == pytest.approx(
        np.array([flip_probs(np.array(V1)), flip_probs(np.array(V2)), [1, 1, 0, 0, 0]])
    )
    # Monte Carlo: the mover at even distances from the end won a gammon, the other lost it.
    assert chain(1.0) == pytest.approx(np.array([[1, 1, 0, 0, 0], [0, 0, 0, 1, 0], [1, 1, 0, 0, 0]]))


def test_games_of_different_lengths_in_one_batch_match_games_alone():
    rng = np.random.default_rng(0)
    values = rng.random((2, 5, 5))
    lengths = np.array([5, 2])
    finals = np.array([[0, 0, 0, 0, 0], [0, 0, 0, 1, 1]])
    both = lambda_returns(values, lengths, finals, 0.7)
    alone = lambda_returns(values[1:, :2], lengths[1:], finals[1:], 0.7)
    assert both[1, :2] == pytest.approx(alone[0]) and not both[1, 2:].any()


def test_final_probabilities_of_single_gammon_and_backgammon_losses():
    boards = np.array(
        [
            Position.from_points({6: 14}, {}).board,  # single: one of ours is off
            Position.from_points({6: 15}, {}).board,  # gammon
            Position.from_points({6: 14, 20: 1}, {}).board,  # backgammon: one in the winner's home
            Position.from_points({6: 14}, {1: 1}).board,  # not over
        ]
    )
    over, probs = final_probabilities(boards)
    assert over.tolist() == [True, True, True, False]
    assert probs.tolist() == [[0, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 1], [0, 0, 0, 0, 0]]


def test_a_repeated_turn_is_not_flipped_matches_the_hand_computation():
    # Position 2 has the side on roll of position 1 (it rolled again): G1 = R2, not flip(R2).
    # G2 = flip(z) = (1, 1, 0, 0, 0);  R2 = .5 V2 + .5 G2 = (.65, .55, 0, .1, .025);  G1 = R2
    # R1 = .5 V1 + .5 G1 = (.625, .375, 0, .1, .0125);  G0 = flip(R1) = (.375, .1, .0125, .375, 0)
    values = np.array([[[9, 9, 9, 9, 9], V1, V2]], dtype=np.float64)
    same = np.array([[False, True, False]])
    got = lambda_returns(values, np.array([3]), np.array([Z]), 0.5, same)[0]
    expected = [[0.375, 0.1, 0.0125, 0.375, 0.0], [0.65, 0.55, 0.0, 0.1, 0.025], [1, 1, 0, 0, 0]]
    assert got == pytest.approx(np.array(expected))
    # Monte Carlo: positions 1 and 2 belong to the side that won the gammon, position 0 to the loser.
    mc = lambda_returns(values, np.array([3]), np.array([Z]), 1.0, same)[0]
    assert mc == pytest.approx(np.array([[0, 0, 0, 1, 0], [1, 1, 0, 0, 0], [1, 1, 0, 0, 0]]))
    # No repeated turn (all False) is the alternating chain.
    assert lambda_returns(values, np.array([3]), np.array([Z]), 0.5, np.zeros((1, 3), bool))[
        0
    ] == pytest.approx(chain(0.5))


def test_a_finished_game_says_who_is_on_roll_at_every_ply():
    hist = np.zeros((4, 26), np.int8)
    alternating = FinishedGame(hist, hist[0], 1, first=1, plies=4)
    assert alternating.on_roll().tolist() == [1, 0, 1, 0, 1] and not alternating.same_side().any()
    # Player 0 rolled again after ply 1: plies 1 and 2 are both player 0's.
    again = FinishedGame(hist, hist[0], 1, first=1, plies=4, movers=np.array([1, 0, 0, 1, 0], np.int8))
    assert again.same_side().tolist() == [False, True, False, False]
