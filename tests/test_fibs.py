"""Tests of bgnet.fibs: FIBS board: lines, checked on lines captured from the real gnubg 1.07.001.

The REAL lines below were sent by GNU Backgammon 1.07.001 (Debian package
``gnubg``) to an external player (``set player N external``), captured by a
socket logger while gnubg played 0-ply; the comments give the game state
gnubg was in (its own board display at that moment).
"""

from __future__ import annotations

import numpy as np
import pytest

from bgnet.dice import Dice
from bgnet.fibs import FibsBoard, FibsError, decision, format_board, gnubg_line, parse_board
from bgnet.match import CubeOwner, CubeState, MatchState
from bgnet.position import STARTING, Position, flip
from tests.boards import pos

# External player = gnubg's player 1 ("root"), gnubg 0-ply = player 0 ("gnubg").
OPENING_21 = (  # 3-point match 0-0, root won the opening roll with 2-1
    "board:gnubg:root:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:2:1:2:1:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
DOUBLED = (  # 0-0: gnubg (on roll) has doubled root; cube still 1
    "board:root:gnubg:3:0:0:0:0:1:0:0:-2:5:1:4:0:3:0:-2:0:0:-1:0:-3:0:-3:1:-2:0:0:-2:0:"
    "-1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:0:1"
)
CRAWFORD = (  # gnubg 2, root 0 in a 3-point match: the Crawford game, root to play 6-3
    "board:gnubg:root:3:2:0:0:-1:0:0:-1:0:5:0:3:0:0:0:-4:5:0:0:0:-4:0:-5:0:0:0:0:2:0:"
    "1:3:6:3:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:0"
)
POST_CRAWFORD = (  # gnubg 1, root 2: post-Crawford, root to play 4-1
    "board:gnubg:root:3:1:2:0:-1:-1:0:0:0:5:0:3:0:0:0:-4:5:-1:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:1:4:1:4:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1"
)
POST_CRAWFORD_DOUBLED = (  # gnubg 1, root 2: gnubg (on roll) doubles root
    "board:root:gnubg:3:2:1:0:-1:-1:0:0:0:5:0:3:0:0:0:-4:5:-1:0:0:-3:0:-5:1:0:0:1:0:0:"
    "-1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:1:1"
)
BAR_ON_ROLL = (  # root on roll with a checker on its bar, 6-3
    "board:gnubg:root:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-4:5:0:0:0:-4:0:-4:0:-1:0:0:1:1:"
    "1:3:6:3:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:0:1"
)
BEAROFF = (  # root on roll (5-2) owning the cube on 2; gnubg has borne off one checker
    "board:gnubg:root:3:0:0:0:1:5:0:0:0:7:1:1:0:0:0:0:0:0:0:0:0:0:-2:-3:-3:-2:-2:-2:0:"
    "1:5:2:5:2:2:1:0:0:1:-1:0:25:0:1:0:0:0:0:0:1"
)
# External player = gnubg's player 0 (named "gnubg"), the engine is player 1 ("root"); score set 2-1.
P0_MOVE = (  # player 0 to play 5-6 after root opened 8/5 6/5
    "board:gnubg:root:3:2:1:0:-2:0:0:0:2:4:0:2:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "-1:5:6:5:6:1:1:1:0:1:-1:0:25:0:0:0:0:0:0:1:1"
)
P0_DOUBLED = (  # root (player 1, on roll) doubles player 0
    "board:root:gnubg:3:1:2:0:-1:0:0:0:2:4:0:2:0:0:0:-6:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
    "1:0:0:0:0:1:1:1:1:1:-1:0:25:0:0:0:0:0:0:1:1"
)
P0_ON_BAR = (  # player 0 on roll (4-1) with a checker on its bar, owning the cube on 2
    "board:gnubg:root:3:2:1:-1:0:0:2:2:2:2:2:0:0:1:1:-6:2:0:0:0:-3:0:-5:0:1:0:0:0:0:"
    "-1:4:1:4:1:2:0:1:0:1:-1:0:25:0:0:0:0:0:0:1:1"
)
REAL = [
    OPENING_21,
    DOUBLED,
    CRAWFORD,
    POST_CRAWFORD,
    POST_CRAWFORD_DOUBLED,
    BAR_ON_ROLL,
    BEAROFF,
    P0_MOVE,
    P0_DOUBLED,
    P0_ON_BAR,
]


@pytest.mark.parametrize("line", REAL)
def test_real_lines_parse_and_format_back(line):
    fb = parse_board(line)
    assert format_board(fb) == line
    assert parse_board(line + "\n\0") == fb
    assert parse_board(("\0" + line + "\r\n").encode()) == fb
    assert fb.colour == 1 and fb.direction == -1 and fb.home == 0 and fb.bar == 25


def _gnubg_line_of(line: str) -> str:
    """Rebuild a real line from its decision (gnubg's player numbers from the turn field)."""
    fb = parse_board(line)
    d = decision(fb)
    on_roll = 1 if fb.turn == 1 else 0
    by_player = (lambda pair: pair) if on_roll == 0 else (lambda pair: pair[::-1])
    owner = {CubeOwner.CENTERED: -1, CubeOwner.ME: on_roll, CubeOwner.OPPONENT: 1 - on_roll}[d.cube.owner]
    return gnubg_line(
        d.board,
        on_roll,
        dice=fb.player_dice,
        cube=d.cube.value,
        cube_owner=owner,
        doubled=d.kind == "take",
        score=by_player(d.match.score),
        names=by_player(d.names),
        match_length=d.match.length,
        crawford=d.match.crawford,
        post_crawford=d.match.post_crawford,
    )


@pytest.mark.parametrize("line", REAL)
def test_gnubg_line_writes_exactly_what_gnubg_sends(line):
    assert _gnubg_line_of(line) == line


def test_opening_move_of_player_1():
    d = decision(OPENING_21)
    assert d.kind == "move" and d.dice == Dice(2, 1)
    assert Position(d.board) == STARTING
    assert d.match == MatchState.match(3, (0, 0)) and d.cube == CubeState(1, CubeOwner.CENTERED)
    assert not d.match.crawford and not d.match.post_crawford
    assert d.names == ("root", "gnubg")  # the side on roll first


def test_take_decision_is_seen_from_the_doubler():
    d = decision(DOUBLED)
    assert d.kind == "take" and d.dice is None
    assert d.names == ("gnubg", "root")  # gnubg doubled and is on roll
    assert d.cube == CubeState() and d.match.score == (0, 0)
    # root's checkers are the positive ones in the line: from gnubg (on roll) they are negative.
    assert int(d.board[d.board < 0].sum()) == -15 and int(d.board[d.board > 0].sum()) == 15


def test_crawford_and_post_crawford_games():
    d = decision(CRAWFORD)
    assert d.match.crawford and not d.match.post_crawford
    assert d.match.score == (0, 2) and d.names == ("root", "gnubg")
    d = decision(POST_CRAWFORD)
    assert d.match.post_crawford and not d.match.crawford
    assert d.match.score == (2, 1)
    d = decision(POST_CRAWFORD_DOUBLED)
    assert d.kind == "take" and d.match.post_crawford
    assert d.names == ("gnubg", "root") and d.match.score == (1, 2)


def test_bars_cube_owner_and_checkers_off():
    d = decision(BAR_ON_ROLL)
    assert d.board[25] == 1 and d.dice == Dice(6, 3)
    d = decision(BEAROFF)
    assert d.cube == CubeState(2, CubeOwner.ME)
    assert Position(d.board).off() == (0, 1)
    d = decision(P0_ON_BAR)
    assert d.board[25] == 1 and d.cube == CubeState(2, CubeOwner.ME)
    assert d.names == ("gnubg", "root") and d.match.score == (2, 1)


def test_external_player_0_gets_the_board_from_player_1():
    d = decision(P0_MOVE)
    assert d.kind == "move" and d.dice == Dice(6, 5)
    assert d.names == ("gnubg", "root") and d.match.score == (2, 1)
    # Player 0's own start; root (the opponent) has played 8/5 6/5.
    assert d.board[24] == 2 and d.board[13] == 5 and d.board[8] == 3 and d.board[6] == 5
    assert d.board[25 - 5] == -2 and d.board[25 - 6] == -4 and d.board[25 - 8] == -2
    d = decision(P0_DOUBLED)
    assert d.kind == "take" and d.names == ("root", "gnubg") and d.match.score == (1, 2)


def test_fibs_example_and_its_mirror_image():
    """The FIBS protocol's own example, and the same state written from the other colour and direction."""
    line = (
        "board:You:someplayer:3:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:"
        "1:6:2:0:0:1:1:1:0:1:-1:0:25:0:0:0:0:2:0:0:0"
    )
    d = decision(line, scores="fibs")
    assert d.kind == "move" and d.dice == Dice(6, 2) and Position(d.board) == STARTING
    assert d.names == ("You", "someplayer")
    fb = parse_board(line)
    mirror = FibsBoard(
        **{
            **fb.__dict__,
            "board": tuple(-n for n in fb.board[::-1]),
            "colour": -1,
            "direction": 1,
            "turn": -1,
            "home": 25,
            "bar": 0,
        }
    )
    m = decision(mirror, scores="fibs")
    assert np.array_equal(m.board, d.board) and m.dice == d.dice and m.names == d.names


def test_opponent_on_roll_in_fibs_terms():
    """TURN naming the opponent: the board is read from the opponent's side."""
    p = pos({25: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 5: 1})
    line = gnubg_line(p, 0, dice=(4, 3), score=(1, 0), names=("a", "b"), match_length=5)
    d = decision(line)
    assert Position(d.board) == p and d.dice == Dice(4, 3)
    assert d.names == ("a", "b") and d.match.score == (1, 0)
    line1 = gnubg_line(p, 1, dice=(4, 3), score=(1, 0), names=("a", "b"), match_length=5)
    d1 = decision(line1)
    assert Position(d1.board) == p and d1.names == ("b", "a") and d1.match.score == (0, 1)
    assert parse_board(line1).board == tuple(
        [int(-abs(p.board[0]))] + [int(p.board[i]) for i in range(1, 25)] + [int(p.board[25])]
    )
    # Player 0 on roll: the line shows player 1's side, so the board is flipped.
    assert parse_board(line).board[1:25] == tuple(int(x) for x in flip(p.board)[1:25])


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("hello", "expected a FIBS 'board:' line"),
        ("board:a:b:3", "53 fields"),
        (OPENING_21.replace(":1:-1:0:25:", ":1:-1:x:25:"), "not a whole number"),
        (OPENING_21.replace(":1:-1:0:25:", ":2:-1:0:25:"), "colour"),
        (OPENING_21.replace(":1:-1:0:25:", ":1:0:0:25:"), "direction"),
        (OPENING_21.replace(":0:1:2:1:2:1:1:", ":0:1:7:1:2:1:1:"), "dice"),
        (OPENING_21.replace(":2:1:2:1:1:1:1:0:", ":2:1:2:1:3:1:1:0:"), "power of two"),
        (OPENING_21.replace(":0:2:0:1:2:1:", ":0:9:0:1:2:1:"), "checkers"),
        (OPENING_21.replace("board:gnubg:root:3:0:0:", "board:gnubg:root:3:3:0:"), "match length"),
    ],
)
def test_malformed_lines_are_refused_with_a_reason(line, message):
    with pytest.raises(FibsError, match=message):
        decision(parse_board(line))


def test_game_over_line_has_nothing_to_decide():
    with pytest.raises(FibsError, match="over"):
        decision(OPENING_21.replace(":0:2:0:1:2:1:", ":0:2:0:0:2:1:"))


def test_gnubg_line_round_trips_random_states():
    rng = np.random.default_rng(3)
    from bgnet.notation import legal_plays

    board = STARTING
    for ply in range(80):
        dice = Dice.of(*(int(x) for x in rng.integers(1, 7, size=2)))
        on_roll = ply % 2
        for owner in (-1, 0, 1):
            line = gnubg_line(
                board,
                on_roll,
                dice=(dice.high, dice.low),
                cube=2 if owner >= 0 else 1,
                cube_owner=owner,
                score=(1, 3),
                match_length=7,
            )
            d = decision(line)
            assert Position(d.board) == board and d.dice == dice
            assert d.match.score == ((1, 3) if on_roll == 0 else (3, 1))
            mine = {-1: CubeOwner.CENTERED, on_roll: CubeOwner.ME, 1 - on_roll: CubeOwner.OPPONENT}[owner]
            assert d.cube == CubeState(2 if owner >= 0 else 1, mine)
        plays = legal_plays(board, dice)
        board = plays[int(rng.integers(len(plays)))].position if plays else board.flip()
        if not (board.board > 0).any() or not (board.board < 0).any():
            break
