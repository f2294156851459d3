"""Tests of bgnet.notation.format_play against gnubg's FormatMove (drawboard.c).

Each expected string follows from FormatMove's steps (see bgnet.notation):
sort by decreasing from/to, join one checker's steps (keeping the joining
point only if an opponent's checker stood there before the play), count
identical paths, print with ``bar``/``off``, ``*`` on kept joining points and
on a final point that held an opponent's checker and has no ``*`` yet.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
from boards import legal_boards
from hypothesis import given, settings
from hypothesis import strategies as st

from bgnet.errors import IllegalMoveError
from bgnet.formats import board_to_gnubg
from bgnet.notation import format_play, format_point
from bgnet.position import STARTING, Position

START_OURS = {6: 5, 8: 3, 13: 5, 24: 2}


def board(ours: dict[int, int], blots_on_our_points: tuple[int, ...] = ()) -> Position:
    """Our checkers and one opponent checker on each of the given points (our numbering)."""
    return Position.from_points(ours, {25 - p: 1 for p in blots_on_our_points})


@pytest.mark.parametrize(
    ("pos", "steps", "expected"),
    [
        # Opening plays: no joins, sorted by decreasing from.
        (STARTING, [(13, 7), (8, 7)], "13/7 8/7"),
        (STARTING, [(8, 5), (6, 5)], "8/5 6/5"),
        (STARTING, [(6, 5), (8, 5)], "8/5 6/5"),
        # One checker moving twice without a hit: the joining point is dropped.
        (STARTING, [(24, 18), (18, 13)], "24/13"),
        (STARTING, [(13, 7), (7, 6)], "13/6"),
        (STARTING, [(7, 6), (13, 7)], "13/6"),
        # Doubles: identical paths counted.
        (STARTING, [(24, 18), (24, 18), (13, 7), (13, 7)], "24/18(2) 13/7(2)"),
        (STARTING, [(24, 20), (24, 20), (20, 16), (20, 16)], "24/16(2)"),
        (STARTING, [(6, 2), (6, 2), (8, 4), (8, 4)], "8/4(2) 6/2(2)"),
        (STARTING, [(13, 10), (13, 10), (13, 10), (13, 10)], "13/10(4)"),
        (STARTING, [(13, 9), (9, 5), (13, 9), (9, 5)], "13/5(2)"),
        # Bar and off.
        (board({25: 1, 13: 5, 6: 5}), [(25, 22), (13, 9)], "bar/22 13/9"),
        (board({6: 3, 5: 3}), [(5, 0), (6, 0)], "6/off 5/off"),
        (board({6: 3, 5: 3}), [(6, 0), (6, 0), (6, 0), (5, 0)], "6/off(3) 5/off"),
        (board({11: 1, 6: 3}), [(11, 5), (5, 0)], "11/off"),
        # Hits at the end of a move.
        (board(START_OURS, (11,)), [(13, 11), (24, 18)], "24/18 13/11*"),
        (board({13: 5, 8: 3}, (6,)), [(13, 7), (7, 6)], "13/6*"),
        (board({8: 3, 6: 5}, (2,)), [(6, 2), (8, 2)], "8/2* 6/2"),
        (board({8: 3, 6: 5}, (2,)), [(6, 2), (6, 2)], "6/2*(2)"),
        # Hits on the way: the joining point is kept and marked.
        (board({13: 5, 8: 3}, (7,)), [(13, 7), (7, 6)], "13/7*/6"),
        (board({24: 2, 13: 5}, (20,)), [(24, 20), (20, 16)], "24/20*/16"),
        (board({24: 2, 13: 5}, (20,)), [(24, 20), (24, 20), (20, 16), (20, 16)], "24/20*/16(2)"),
        (board({25: 1, 13: 5}, (20,)), [(25, 20), (20, 14)], "bar/20*/14"),
        (board({24: 2, 13: 5}, (21,)), [(24, 21), (21, 18), (18, 15), (13, 10)], "24/21*/15 13/10"),
        (board({10: 1}, (8, 6, 4)), [(10, 8), (8, 6), (6, 4), (4, 2)], "10/8*/6*/4*/2"),
        # A point marked on the way is not marked again at the end of another path.
        (board({8: 2}, (6,)), [(8, 6), (8, 6), (6, 4)], "8/6*/4 8/6"),
        # No legal move.
        (STARTING, [], ""),
    ],
)
def test_format_play_matches_gnubg_formatmove(
    pos: Position, steps: list[tuple[int, int]], expected: str
) -> None:
    assert format_play(pos, steps) == expected
    assert format_play(pos.board, steps) == expected


def test_format_point_names_bar_and_off() -> None:
    assert [format_point(p) for p in (25, 24, 9, 1, 0)] == ["bar", "24", "9", "1", "off"]


def test_gnubg_nn_move_list_example_formats_as_gnubg_would() -> None:
    # One of ours on the bar, two on our 3 point, an opponent blot on our 19 (their 6).
    gnubg_nn = pytest.importorskip("gnubg_nn")
    b = [[0] * 25, [0] * 25]
    b[1][24] = 1
    b[1][2] = 2
    b[0][5] = 1
    pos = Position.from_points({25: 1, 3: 2}, {6: 1})
    assert board_to_gnubg(pos) == b
    plays = {format_play(pos, steps) for _key, steps in gnubg_nn.moves(b, 6, 3, 1)}
    assert plays == {"bar/19*/16", "bar/16"}


@pytest.mark.parametrize(
    ("steps", "words"),
    [
        ([(13, 7)] * 5, "at most 4"),
        ([(26, 20)], "out of range"),
        ([(13, 25)], "out of range"),
        ([(7, 13)], "out of range"),
        ([(7, 7)], "out of range"),
        ([(0, 0)], "out of range"),
        ([(13,)], "pair"),
        (["ab"], "pair"),
    ],
)
def test_bad_steps_raise_illegal_move_error(steps: list[tuple[int, int]], words: str) -> None:
    with pytest.raises(IllegalMoveError, match=words):
        format_play(STARTING, steps)


def test_bad_board_shape_raises() -> None:
    with pytest.raises(IllegalMoveError, match="26 slots"):
        format_play(np.zeros(25, dtype=np.int8), [(13, 7)])


# --------------------------------------------------------------------------
# Properties against gnubg_nn's move generator
# --------------------------------------------------------------------------


def apply_step(b: np.ndarray, src: int, dst: int) -> None:
    assert b[src] > 0
    b[src] -= 1
    if dst == 0:
        return
    if b[dst] < 0:
        assert b[dst] == -1
        b[dst] = 0
        b[0] -= 1
    b[dst] += 1


def apply_notation(start: np.ndarray, text: str) -> np.ndarray:
    """Play gnubg notation on a board (a small independent reader of it)."""
    b = start.astype(np.int32)
    for token in text.split():
        count = 1
        m = re.fullmatch(r"(.*)\((\d)\)", token)
        if m:
            token, count = m.group(1), int(m.group(2))
        points = [
            25 if p == "bar" else 0 if p == "off" else int(p) for p in token.replace("*", "").split("/")
        ]
        for _ in range(count):
            for src, dst in itertools.pairwise(points):
                apply_step(b, src, dst)
    return b


@settings(max_examples=60, deadline=None)
@given(legal_boards(), st.integers(1, 6), st.integers(1, 6))
def test_notation_of_every_gnubg_play_replays_to_the_same_board(board: np.ndarray, d1: int, d2: int) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    for _key, steps in gnubg_nn.moves(board_to_gnubg(board), d1, d2, 1):
        played = board.astype(np.int32)
        for src, dst in steps:
            apply_step(played, src, dst)
        text = format_play(board, steps)
        assert np.array_equal(apply_notation(board, text), played), (text, steps)


@settings(max_examples=60, deadline=None)
@given(legal_boards(), st.integers(1, 6), st.integers(1, 6), st.randoms(use_true_random=False))
def test_format_play_ignores_the_order_of_the_steps(board: np.ndarray, d1: int, d2: int, rnd) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    for _key, steps in gnubg_nn.moves(board_to_gnubg(board), d1, d2, 1):
        shuffled = list(steps)
        rnd.shuffle(shuffled)
        assert format_play(board, shuffled) == format_play(board, steps)
