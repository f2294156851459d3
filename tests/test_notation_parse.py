"""Tests of bgnet.notation.parse_play: typed plays matched against the legal plays."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgnet.dice import ALL_ROLLS, Dice
from bgnet.errors import IllegalMoveError
from bgnet.notation import format_point, legal_plays, parse_play, parse_point
from bgnet.position import STARTING, Position
from tests.boards import legal_boards, pos


def play_of(position: Position, dice: str, text: str) -> str:
    return parse_play(position, dice, text).notation


@pytest.mark.parametrize(
    ("dice", "text", "expected"),
    [
        ("62", "24/18 13/11", "24/18 13/11"),
        ("62", "13/11 24/18", "24/18 13/11"),  # any order
        ("62", "24/18, 13/11", "24/18 13/11"),  # commas
        ("31", "8/5 6/5", "8/5 6/5"),
        ("31", "6/5 8/5", "8/5 6/5"),
        ("65", "24/13", "24/13"),  # one checker in one stroke
        ("65", "24/18/13", "24/13"),  # ... or through its stop
        ("65", "24/18 18/13", "24/13"),  # ... or as two parts
        ("62", "13/7/5", "13/5"),
        ("62", "13/7 7/5", "13/5"),
        ("62", "13/5", "13/5"),
        ("21", "24/21", "24/21"),
        ("21", "24/22 22/21", "24/21"),
        ("21", "24/23 23/21", "24/21"),
        ("66", "24/18(2) 13/7(2)", "24/18(2) 13/7(2)"),
        ("66", "13/7(2) 24/18(2)", "24/18(2) 13/7(2)"),
        ("66", "24/18 24/18 13/7 13/7", "24/18(2) 13/7(2)"),
        ("44", "24/16(2)", "24/16(2)"),
        ("44", "24/20/16(2)", "24/16(2)"),
        ("31", "8/5*(1) 6/5", "8/5 6/5"),  # a hit mark where nothing is hit is ignored
        ("31", "  8/5   6/5  ", "8/5 6/5"),
        ("31", "8/5 6/5".upper(), "8/5 6/5"),
    ],
)
def test_plays_from_the_start(dice, text, expected):
    assert play_of(STARTING, dice, text) == expected


def test_bar_off_and_hits():
    on_bar = pos({25: 1, 13: 5, 6: 5, 8: 4}, {6: 5, 8: 3, 13: 5, 24: 2})
    assert play_of(on_bar, "31", "bar/22 6/5") == "bar/22 6/5"
    assert play_of(on_bar, "31", "25/22 6/5") == "bar/22 6/5"
    assert play_of(on_bar, "31", "b/22 6/5") == "bar/22 6/5"
    assert play_of(on_bar, "31", "BAR/24/21") == "bar/21"
    home = pos({6: 3, 5: 3, 2: 2}, {24: 2})
    assert play_of(home, "65", "6/off 5/off") == "6/off 5/off"
    assert play_of(home, "65", "6/0 5/0") == "6/off 5/off"
    assert play_of(home, "65", "6/o 5/o") == "6/off 5/off"
    assert play_of(home, "66", "6/off(3) 5/off") == "6/off(3) 5/off"
    # A hit: the star is optional.
    blot = pos({13: 5, 8: 3, 6: 5, 24: 2}, {14: 1, 6: 5, 8: 3, 13: 4, 24: 2})  # their 14 is our 11
    assert play_of(blot, "62", "24/18 13/11*") == "24/18 13/11*"
    assert play_of(blot, "62", "24/18 13/11") == "24/18 13/11*"


def test_one_stroke_past_a_blot_means_the_clean_way_when_there_is_one():
    # A blot on our 18 (their 7); 19 is open: 24/13 is the way that does not hit.
    p = pos({24: 2, 6: 13}, {7: 1, 24: 14})
    assert play_of(p, "65", "24/13") == "24/13"
    assert play_of(p, "65", "24/18/13") == "24/18*/13"
    assert play_of(p, "65", "24/18*/13") == "24/18*/13"
    # 19 blocked: the only way passes 18 and hits there.
    q = pos({24: 2, 6: 13}, {7: 1, 6: 2, 24: 12})
    assert play_of(q, "65", "24/13") == "24/18*/13"


def test_ambiguous_input_names_the_candidates():
    # Blots on our 18 and 19 (their 7 and 6): 24/13 hits one or the other.
    p = pos({24: 2, 6: 13}, {7: 1, 6: 1, 24: 13})
    with pytest.raises(IllegalMoveError, match="ambiguous") as err:
        parse_play(p, "65", "24/13")
    assert "24/18*/13" in str(err.value) and "24/19*/13" in str(err.value)
    assert play_of(p, "65", "24/19/13") == "24/19*/13"
    assert play_of(p, "65", "24/18/13") == "24/18*/13"


@pytest.mark.parametrize(
    ("dice", "text", "message"),
    [
        ("62", "24/18", "incomplete"),
        ("62", "", "no play given"),
        ("62", "hello", "not a checker move"),
        ("62", "24-18 13-11", "not a checker move"),
        ("62", "24/30", "not a point"),
        ("62", "18/24 13/11", "away from home"),
        ("62", "off/18", "from off the board"),
        ("62", "13/bar", "to the bar"),
        ("62", "23/17 13/11", "no checker on 23"),
        ("62", "bar/23 13/11", "no checker on the bar"),
        ("62", "24/18 13/11 8/6", "not a legal play"),
        ("62", "6/off 6/4", "cannot bear off"),
        ("31", "13/10 13/11", "not a legal play"),
        ("55", "13/8(3) 6/1(2)", "moves 5 checkers"),
        ("55", "13/8(0)", "repeated 1 to 4 times"),
        ("61", "24/18 12/11", "no checker on 12"),
        ("64", "13/8 13/8", "not a legal play"),
        ("51", "24/20", "not a legal play of 5-1: the dice do not make those moves"),
        ("51", "13/8 24/22", "not a legal play of 5-1: the dice do not make those moves"),
        ("51", "24/23", "incomplete"),
        ("51", "13/8", "incomplete"),
        ("33", "8/5(2)", "incomplete"),
        ("33", "8/4", "the dice do not make those moves"),
    ],
)
def test_bad_input_gets_a_clear_message(dice, text, message):
    with pytest.raises(IllegalMoveError, match=message):
        parse_play(STARTING, dice, text)


def test_a_play_the_dice_cannot_make_is_illegal_not_incomplete():
    """24/20 with 5-1: no way of playing a 5 and a 1 moves a checker 4 pips."""
    with pytest.raises(IllegalMoveError) as err:
        parse_play(STARTING, "51", "24/20")
    assert "incomplete" not in str(err.value) and "not a legal play of 5-1" in str(err.value)
    # Bearing off, a die may be larger than the distance: 3/off with the 4 or the 5 (one die left)
    # is incomplete; 3/off with both is not a way to play 5-4.
    bear = pos({6: 1, 3: 1}, {1: 2})
    with pytest.raises(IllegalMoveError, match="incomplete"):
        parse_play(bear, "54", "3/off")
    assert play_of(bear, "54", "6/1 3/off") == "6/1 3/off"


def test_blocked_point_and_the_bar_rule():
    blocked = pos({24: 2, 13: 5, 8: 3, 6: 5}, {7: 2, 6: 5, 8: 3, 13: 3, 24: 2})  # their 7 = our 18
    with pytest.raises(IllegalMoveError, match="point 18 is blocked"):
        parse_play(blocked, "62", "24/18 13/11")
    on_bar = pos({25: 1, 13: 5, 6: 5, 8: 4}, {6: 5, 8: 3, 13: 5, 24: 2})
    with pytest.raises(IllegalMoveError, match="bar"):
        parse_play(on_bar, "31", "13/10 6/5")


def test_no_legal_play_and_forced_single_die():
    closed = pos({25: 2, 6: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
    with pytest.raises(IllegalMoveError, match="no legal play"):
        parse_play(closed, "66", "bar/19")
    # Only the 6 can be played: 24/19 is blocked (their 6) and so is 18/13 (their 12).
    p = pos({24: 1, 2: 14}, {6: 2, 12: 2, 19: 11})
    assert [q.notation for q in legal_plays(p, Dice(6, 5))] == ["24/18"]
    assert play_of(p, "65", "24/18") == "24/18"
    with pytest.raises(IllegalMoveError, match="point 13 is blocked"):
        parse_play(p, "65", "24/18/13")


def test_points_and_dice_forms():
    assert parse_point("bar") == 25 and parse_point("off") == 0 and parse_point("7*") == 7
    with pytest.raises(IllegalMoveError):
        parse_point("26")
    assert parse_play(STARTING, (6, 2), "24/18 13/11").notation == "24/18 13/11"
    assert parse_play(STARTING, Dice(2, 6), "24/18 13/11").notation == "24/18 13/11"
    assert parse_play(STARTING.board, "2-6", "24/18 13/11").notation == "24/18 13/11"


def _plain(play) -> str:
    """The play as one part per die, like gnubg's FormatMovePlain (``24/22 22/21``)."""
    return " ".join(f"{format_point(f)}/{format_point(t)}" for f, t in play.steps)


def _check_round_trip(board: np.ndarray, rng: np.random.Generator) -> int:
    position = Position(board)
    checked = 0
    for dice in ALL_ROLLS:
        plays = legal_plays(position, dice)
        for i in rng.permutation(len(plays))[:6]:
            play = plays[int(i)]
            assert parse_play(position, dice, play.notation).position == play.position, play.notation
            assert parse_play(position, dice, _plain(play)).position == play.position, _plain(play)
            checked += 1
    return checked


@pytest.mark.slow
def test_every_legal_play_of_games_round_trips():
    """Every legal play of every roll along a few random games parses back to itself."""
    rng = np.random.default_rng(5)
    checked = 0
    for _game in range(2):
        board = STARTING.board.copy()
        for _ply in range(40):
            checked += _check_round_trip(board, rng)
            dice = Dice.of(*(int(x) for x in rng.integers(1, 7, size=2)))
            plays = legal_plays(Position(board), dice)
            if plays:
                board = plays[int(rng.integers(len(plays)))].position.board.copy()
            else:
                board = -board[::-1]
            if not (board > 0).any() or not (board < 0).any():
                break
    assert checked > 1_000


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(legal_boards(), st.sampled_from(ALL_ROLLS))
def test_random_positions_round_trip(board, dice):
    position = Position(board)
    for play in legal_plays(position, dice):
        assert parse_play(position, dice, play.notation).position == play.position
