"""One test per rule of standard backgammon, each on a small board.

Positions are written ``pos(ours, theirs)``: checkers per point, each side
numbering from its own side (25 = bar).  Results are shown from the mover's
side, before the board turns to the opponent.
"""

import numpy as np
import pytest
from boards import after, pos

from bgnet.dice import ALL_ROLLS, ROLL_WEIGHTS, Dice, opening_roll
from bgnet.errors import InvalidDiceError, InvalidPositionError
from bgnet.game import Outcome, ResultKind, outcome
from bgnet.lockstep import Lockstep
from bgnet.position import NACKGAMMON, STARTING, Position, flip


def test_starting_position_is_2_5_3_5_for_both_sides():
    assert STARTING.ours() == {6: 5, 8: 3, 13: 5, 24: 2}
    assert STARTING.theirs() == {6: 5, 8: 3, 13: 5, 24: 2}
    assert STARTING.pips() == (167, 167)


def test_nackgammon_setup_is_2_on_24_2_on_23_4_on_13_3_on_8_4_on_6():
    assert NACKGAMMON.ours() == {24: 2, 23: 2, 13: 4, 8: 3, 6: 4}
    assert NACKGAMMON.theirs() == NACKGAMMON.ours()


def test_opening_roll_higher_die_plays_both_numbers_and_ties_reroll():
    rng = np.random.default_rng(7)
    firsts = set()
    for _ in range(500):
        first, dice = opening_roll(rng)
        assert not dice.is_double  # ties were rolled again
        firsts.add(first)
    assert firsts == {0, 1}
    # The player whose die is higher moves first with both numbers: replay the same rolls by hand.
    rng_a, rng_b = np.random.default_rng(3), np.random.default_rng(3)
    first, dice = opening_roll(rng_a)
    while True:
        a, b = (int(x) for x in rng_b.integers(1, 7, size=2))
        if a != b:
            break
    assert dice == Dice.of(a, b) and first == (0 if a > b else 1)


def test_the_21_rolls_have_weights_that_sum_to_one():
    assert len(ALL_ROLLS) == 21 and len(set(ALL_ROLLS)) == 21
    assert ROLL_WEIGHTS.sum() == pytest.approx(1.0)


def test_each_die_is_a_separate_move():
    # One checker on 13: 3-1 moves it 3 and 1 (13/9 via 10 or 12), or two checkers could not.
    p = pos({13: 1, 6: 1}, {24: 2})
    assert after(p, "31") == {
        pos({9: 1, 6: 1}, {24: 2}),
        pos({10: 1, 5: 1}, {24: 2}),
        pos({12: 1, 3: 1}, {24: 2}),
        pos({13: 1, 2: 1}, {24: 2}),
    }


def test_one_checker_uses_both_dice_only_if_an_intermediate_point_is_open():
    # 6-5 from 24: 18 and 19 both blocked, so 24/13 is impossible; the other checker must play.
    p = pos({24: 1, 6: 1}, {7: 2, 6: 2})  # their 7 and 6 points are our 18 and 19
    res = after(p, "65")
    assert pos({13: 1, 6: 1}, {7: 2, 6: 2}) not in res
    # Open one intermediate point and the checker goes 24/13.
    q = pos({24: 1, 6: 1}, {7: 2})
    assert pos({13: 1, 6: 1}, {7: 2}) in after(q, "65")


def test_doubles_are_played_four_times():
    p = pos({24: 1}, {24: 1})
    assert after(p, "22") == {pos({16: 1}, {24: 1})}
    q = pos({13: 4}, {24: 1})
    res = after(q, "66")
    assert pos({7: 4}, {24: 1}) in res
    assert all(sum(r.ours().values()) == 4 and r.pips()[0] == 52 - 24 for r in res)


def test_a_point_with_two_or_more_opposing_checkers_is_blocked():
    p = pos({10: 1}, {20: 2, 22: 5})  # their 20 and 22 are our 5 and 3
    assert after(p, "55") == set()  # 10/5 is blocked: no play
    # 4-1: 10/6 then 6/5 blocked, 10/9 then 9/5 blocked: only the 4 can be played.
    assert after(p, "41") == {pos({6: 1}, {20: 2, 22: 5})}


def test_landing_on_a_single_opposing_checker_hits_it_to_the_bar():
    p = pos({10: 1, 2: 1}, {19: 1, 1: 1})  # their blot on 19 is our 6
    res = after(p, "41")
    assert pos({6: 1, 1: 1}, {25: 1, 1: 1}) in res  # 10/6* 2/1


def test_there_is_no_limit_to_own_checkers_on_a_point():
    p = pos({7: 14, 1: 1}, {1: 1})
    assert pos({6: 4, 7: 10, 1: 1}, {1: 1}) in after(p, "11")
    assert pos({1: 3, 7: 12}, {1: 1}) in after(p, "33")


def test_checkers_on_the_bar_enter_before_any_other_move():
    p = pos({25: 1, 6: 5}, {1: 2})
    for r in after(p, "31"):
        assert r.ours().get(25, 0) == 0
        assert r.ours().get(22, 0) + r.ours().get(24, 0) + r.ours().get(21, 0) + r.ours().get(23, 0) >= 1


def test_a_checker_enters_with_die_n_on_the_opponents_home_point_25_minus_n():
    p = pos({25: 1, 6: 14}, {})
    res = after(p, "52")
    assert pos({20: 1, 4: 1, 6: 13}, {}) in res  # bar/20 6/4
    assert pos({23: 1, 1: 1, 6: 13}, {}) in res  # bar/23 6/1
    assert pos({18: 1, 6: 14}, {}) in res  # bar/20/18 (or bar/23/18)


def test_no_entry_loses_the_turn():
    p = pos({25: 1, 13: 14}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2, 1: 2})  # a closed board
    for dice in ALL_ROLLS:
        assert after(p, str(dice)) == set()


def test_with_two_on_the_bar_and_one_entry_the_other_checkers_do_not_move():
    p = pos({25: 2, 13: 13}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2})  # only their ace point (our 24) open
    assert after(p, "61") == {pos({25: 1, 24: 1, 13: 13}, {6: 2, 5: 2, 4: 2, 3: 2, 2: 2})}


def test_both_dice_must_be_used_if_possible():
    # Their point on our 2.  13/8 would leave the 6 unplayable (8/2 blocked);
    # 13/7 8/3 plays both dice, so it is the only legal play.
    p = pos({13: 1, 8: 1}, {23: 2})
    assert after(p, "65") == {pos({7: 1, 3: 1}, {23: 2})}


def test_if_only_one_die_can_be_used_it_is_played():
    # Theirs on our 1, 6, 7: 8/7 is blocked, 8/2 then 2/1 is blocked: the 6 alone.
    p = pos({8: 1}, {24: 2, 19: 2, 18: 2})
    assert after(p, "61") == {pos({2: 1}, {24: 2, 19: 2, 18: 2})}
    q = pos({9: 1}, {19: 2, 17: 2, 23: 2})  # theirs on our 6, 8, 2 ; 9/3 blocked? 3 open
    res = after(q, "61")
    # 9/3 (the 6) then 3/2 is blocked: one die only; 9/8 blocked. So only 9/3.
    assert res == {pos({3: 1}, {19: 2, 17: 2, 23: 2})}


def test_larger_die_must_be_played_when_either_but_not_both_can():
    # One checker on 8 with 7/1 open... 6-2: 8/2 or 8/6, but 8/6/0? Bear-in blocked elsewhere.
    p = pos({9: 1}, {22: 2, 20: 2, 18: 2})  # theirs on our 3, 5, 7
    # 6-4: 9/3 blocked, 9/5 blocked -> nothing.  5-4: 9/4 open, 9/5 blocked: 9/4 then 4/0? not home-only...
    res = after(p, "64")
    assert res == set()
    q = pos({10: 1}, {20: 2, 24: 2, 19: 2})  # theirs on our 5, 1, 6
    # 6-3: 10/4 then 4/1 blocked; 10/7 then 7/1 blocked: one die only, the 6.
    assert after(q, "63") == {pos({4: 1}, {20: 2, 24: 2, 19: 2})}


def test_smaller_die_is_played_when_the_larger_cannot_be():
    q = pos({10: 1}, {20: 2, 24: 2, 19: 2, 21: 2})  # theirs on our 5, 1, 6, 4
    # 6-3: 10/4 blocked, 10/7 open, then 7/1 blocked: only the 3.
    assert after(q, "63") == {pos({7: 1}, {20: 2, 24: 2, 19: 2, 21: 2})}


def test_doubles_play_as_many_as_possible():
    # 4-4 with one checker on 20: 20/16/12/8 then 8/4 blocked: three fours.
    p = pos({20: 1}, {21: 2})  # their 21 is our 4
    assert after(p, "44") == {pos({8: 1}, {21: 2})}


def test_bear_off_only_with_all_checkers_in_the_home_board():
    # 6/off is illegal while a checker stands on 7; once 7/6 or 7/1 is played, one may bear off.
    p = pos({7: 1, 6: 1, 1: 1}, {1: 1})
    assert after(p, "61") == {pos({6: 1, 1: 1}, {1: 1}), pos({5: 1, 1: 2}, {1: 1})}


def test_a_die_bears_off_a_checker_from_its_own_point():
    p = pos({5: 1, 3: 1}, {24: 1})
    assert pos({}, {24: 1}) in after(p, "53")


def test_higher_die_bears_off_from_the_highest_point_only():
    p = pos({4: 1, 2: 1}, {24: 1})
    res = after(p, "65")
    assert res == {pos({}, {24: 1})}  # both off: 6 from the 4, then 5 from the 2
    # 6-1 with 5 and 2: the 6 bears off the 5 (highest) or, after 5/4, the 4; never the 2 first.
    q = pos({5: 1, 2: 1}, {1: 1})
    assert after(q, "61") == {pos({1: 1}, {1: 1}), pos({2: 1}, {1: 1})}


def test_moving_inside_the_home_board_is_allowed_instead_of_bearing_off():
    p = pos({6: 2}, {24: 1})
    res = after(p, "31")
    assert pos({3: 1, 5: 1}, {24: 1}) in res  # 6/3 6/5
    assert pos({2: 1, 6: 1}, {24: 1}) in res  # 6/2 (via 3 or 5)


def test_a_checker_hit_during_bear_off_must_reenter_and_come_home_first():
    p = pos({25: 1, 5: 13}, {25: 1})
    res = after(p, "66")
    # bar/19, then 19/13, 13/7, 7/1: bearing off is impossible until it is home.
    assert res == {pos({1: 1, 5: 13}, {25: 1})}
    res = after(p, "65")
    assert all(r.ours().get(5, 0) == 13 for r in res)  # no checker could bear off


def test_plays_that_reach_the_same_position_are_listed_once():
    p = pos({13: 2}, {24: 1})
    # 13/10 13/12 and 13/12 13/10 are one play; 13/9 via 10 or via 12 is one position.
    assert after(p, "31") == {pos({10: 1, 12: 1}, {24: 1}), pos({9: 1, 13: 1}, {24: 1})}


def test_single_game_when_the_loser_has_borne_off_a_checker():
    final = pos({}, {6: 14})
    assert outcome(final.board) == Outcome(0, ResultKind.SINGLE)
    assert outcome(final.board).points(cube=4) == 4


def test_gammon_when_the_loser_has_borne_off_none():
    assert outcome(pos({}, {6: 15}).board) == Outcome(0, ResultKind.GAMMON)


def test_backgammon_when_the_loser_has_borne_off_none_and_has_a_checker_in_the_winners_home_or_bar():
    assert outcome(pos({}, {6: 14, 20: 1}).board) == Outcome(0, ResultKind.BACKGAMMON)
    assert outcome(pos({}, {6: 14, 25: 1}).board) == Outcome(0, ResultKind.BACKGAMMON)
    assert outcome(pos({}, {6: 14, 25: 1}).board).points(cube=2) == 6
    # Seen from the loser on roll: the winner is the other side.
    assert outcome(pos({6: 14, 19: 1}, {}).board) == Outcome(1, ResultKind.BACKGAMMON)


def test_game_in_progress_has_no_outcome():
    assert outcome(STARTING.board) is None


def test_random_games_end_with_a_valid_outcome_and_15_checkers_a_side():
    rng = np.random.default_rng(11)
    seen = []

    def random_choice(batch, player):
        for i in range(len(player)):
            for r in batch.positions[batch.offsets[i] : batch.offsets[i + 1]]:
                p = Position(r)  # validates: <= 15 a side, no shared point
                seen.append(p)
        sizes = np.diff(batch.offsets)
        return np.where(sizes > 0, batch.offsets[:-1] + rng.integers(0, np.maximum(sizes, 1)), -1)

    engine = Lockstep(4, 20, rng, record=True)
    games = []
    while engine.running:
        games += engine.step(random_choice)
    assert len(games) == 20
    for g in games:
        assert g.points in {-3, -2, -1, 1, 2, 3}
        assert outcome(g.final) is not None and outcome(g.history[-1]) is None
        for b in g.history:
            p = Position(b)
            ours, theirs = p.off()
            assert ours + sum(p.ours().values()) == 15 and theirs + sum(p.theirs().values()) == 15
            assert p.flip().flip() == p
    assert len(seen) > 1000


def test_bad_positions_and_dice_raise_value_errors_that_name_the_problem():
    with pytest.raises(InvalidPositionError, match="16 checkers"):
        Position.from_points({6: 16}, {})
    with pytest.raises(InvalidPositionError, match="both sides"):
        Position.from_points({6: 2}, {19: 2})
    with pytest.raises(InvalidDiceError, match="1 to 6"):
        Dice.parse("71")
    with pytest.raises(InvalidDiceError, match="two digits"):
        Dice.parse("x")
    assert issubclass(InvalidPositionError, ValueError)


def test_flip_twice_is_the_identity_on_the_start():
    assert np.array_equal(flip(flip(STARTING.board)), STARTING.board)
