"""The TD(lambda) targets on a tiny chain computed by hand."""

import numpy as np
import pytest

from bgnet.game import final_probabilities
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
