"""Tests of bgnet.formats: GNUBG Position ID / Match ID, XGID, parse_position.

Known IDs and where they come from:

* ``4HPwATDgc/ABMA``: the starting position (GNU Backgammon manual, "A
  technical description of the Position ID").
* ``QYkqASAAIAAA``: the manual's Match ID example (key bytes
  41 89 2A 01 20 00 20 00 00: 2-cube owned by player 0, player 1 on roll
  with 52, 9-point match, score 2-4), as used in bglib's test suite, which
  pairs it with the Position ID ``vzsAAFhu2xFABA``.
* ``jGfkASjg8wcBMA``, ``zGbiIQgxH/AAWA`` (player on roll on the bar),
  ``zGbiIYCYD3gALA`` (opponent has borne off): wildbg's conversion tests.
* XGIDs: the starting and nackgammon set-ups as written by CubeViz
  (Fortuitous/CubeViz), XGIDs quoted in GitHub issues
  (Deinonychus999/AnkiGammon#48, clavierhaus/gnubg-android#14), and a public
  XGID-to-GNUBG converter script pairing
  ``aFBBB-A---A-------A---c-b-:1:1:1:21:0:0:3:0:10`` with
  ``cwAAoN82IUAAAA:UQkFAAAAAAAA``.
"""

from __future__ import annotations

import base64
import itertools

import numpy as np
import pytest
from boards import legal_boards
from hypothesis import given, settings
from hypothesis import strategies as st

from bgnet.errors import InvalidMatchIdError, InvalidPositionError
from bgnet.formats import (
    GameState,
    MatchInfo,
    Xgid,
    board_from_gnubg,
    board_from_position_id,
    board_to_gnubg,
    match_id,
    match_info_from_id,
    parse_position,
    parse_xgid,
    position_id,
)
from bgnet.match import CubeOwner, CubeState, MatchState
from bgnet.position import NACKGAMMON, STARTING, Position, flip

B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


# --------------------------------------------------------------------------
# Strategies and independent helpers
# --------------------------------------------------------------------------


def pack_bits(bits: str, n_bytes: int) -> str:
    """Base64 of a '0'/'1' string packed little-endian (first bit = bit 0 of byte 0).

    Written independently of bgnet.formats, with the standard library.
    """
    bits = bits.ljust(n_bytes * 8, "0")
    data = bytes(int(bits[i : i + 8][::-1], 2) for i in range(0, n_bytes * 8, 8))
    return base64.b64encode(data).decode().rstrip("=")


def sides_bits(first: list[int], second: list[int]) -> str:
    return "".join("1" * n + "0" for n in first + second)


def match_bits(**fields: int) -> str:
    """A Match ID with the given (0-based start bit -> value) fields, rest 0."""
    layout = {
        "cube": (0, 4),
        "owner": (4, 2),
        "on_roll": (6, 1),
        "crawford": (7, 1),
        "state": (8, 3),
        "turn": (11, 1),
        "doubled": (12, 1),
        "resign": (13, 2),
        "die1": (15, 3),
        "die2": (18, 3),
        "length": (21, 15),
        "score0": (36, 15),
        "score1": (51, 15),
        "not_jacoby": (66, 1),
        "unused": (67, 5),
    }
    bits = ["0"] * 72
    values = {"owner": 3, "state": 1} | fields
    for name, value in values.items():
        start, width = layout[name]
        for k in range(width):
            bits[start + k] = str((value >> k) & 1)
    return pack_bits("".join(bits), 9)


match_infos = st.builds(
    MatchInfo,
    cube_value=st.sampled_from([1 << k for k in range(16)]),
    cube_owner=st.sampled_from([-1, 0, 1]),
    player_on_roll=st.sampled_from([0, 1]),
    crawford=st.just(False),
    game_state=st.sampled_from(list(GameState)),
    turn=st.sampled_from([0, 1]),
    double_offered=st.booleans(),
    resignation=st.integers(0, 3),
    dice=st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    match_length=st.just(0),
    score=st.tuples(st.integers(0, 32767), st.integers(0, 32767)),
    jacoby=st.booleans(),
)


@st.composite
def match_infos_any(draw: st.DrawFn) -> MatchInfo:
    """Money and match play MatchInfos."""
    info = draw(match_infos)
    if draw(st.booleans()):
        length = draw(st.integers(1, 32767))
        score = (draw(st.integers(0, length)), draw(st.integers(0, length)))
        crawford = draw(st.booleans())
        return MatchInfo(
            info.cube_value,
            info.cube_owner,
            info.player_on_roll,
            crawford,
            info.game_state,
            info.turn,
            info.double_offered,
            info.resignation,
            info.dice,
            length,
            score,
            info.jacoby,
        )
    return info


# --------------------------------------------------------------------------
# Position ID
# --------------------------------------------------------------------------


def test_starting_position_has_the_documented_position_id() -> None:
    assert position_id(STARTING) == "4HPwATDgc/ABMA"
    assert position_id(STARTING.board) == "4HPwATDgc/ABMA"
    assert np.array_equal(board_from_position_id("4HPwATDgc/ABMA"), STARTING.board)


def test_gnubg_nn_moves_its_second_side_so_the_second_side_is_on_roll() -> None:
    # One checker for the side at index 1 only: every legal move moves it.
    gnubg_nn = pytest.importorskip("gnubg_nn")
    b = [[0] * 25, [0] * 25]
    b[1][7] = 2
    b[0][5] = 1
    for key in gnubg_nn.moves(b, 1, 2):
        after = gnubg_nn.boardfromkey(key)
        assert list(after[0]) == b[0]
        assert list(after[1]) != b[1]


def test_position_id_encodes_the_player_not_on_roll_first() -> None:
    # Our checker on our 1 point: 25 empty points of the opponent come first.
    gnubg_nn = pytest.importorskip("gnubg_nn")
    ours = np.zeros(26, dtype=np.int8)
    ours[1] = 1
    assert position_id(ours) == pack_bits("0" * 25 + "10", 10) == "AAAAAgAAAAAAAA"
    # Their checker on their 1 point (our 24): the very first bit.
    theirs = np.zeros(26, dtype=np.int8)
    theirs[24] = -1
    assert position_id(theirs) == pack_bits("10", 10) == "AQAAAAAAAAAAAA"
    # gnubg_nn, whose board is [not on roll, on roll], agrees.
    assert gnubg_nn.position_id(board_to_gnubg(ours)) == "AAAAAgAAAAAAAA"
    assert gnubg_nn.position_id(board_to_gnubg(theirs)) == "AQAAAAAAAAAAAA"


@pytest.mark.parametrize(
    "pid", ["4HPwATDgc/ABMA", "jGfkASjg8wcBMA", "zGbiIQgxH/AAWA", "zGbiIYCYD3gALA", "vzsAAFhu2xFABA"]
)
def test_known_position_ids_round_trip_and_agree_with_gnubg_nn(pid: str) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    board = board_from_position_id(pid)
    assert position_id(board) == pid
    assert np.array_equal(board, board_from_gnubg(gnubg_nn.board_from_position_id(pid)))


def test_wildbg_bar_example_puts_the_player_on_roll_on_the_bar() -> None:
    pos = Position(board_from_position_id("zGbiIQgxH/AAWA"))
    assert pos.board[25] == 1
    assert pos.off() == (0, 0)


def test_wildbg_off_example_has_one_opponent_checker_borne_off() -> None:
    assert Position(board_from_position_id("zGbiIYCYD3gALA")).off() == (0, 1)


def test_bglib_example_decodes_to_the_documented_sides() -> None:
    # bglib: first side (6,3,3,0,...,2,1), second side (0,3,2,2,2,3,0,0,1,...,1,..,1,..)
    theirs, ours = board_to_gnubg(board_from_position_id("vzsAAFhu2xFABA"))
    assert theirs == [6, 3, 3] + [0] * 20 + [2, 1]
    assert ours == [0, 3, 2, 2, 2, 3, 0, 0, 1] + [0] * 8 + [1, 0, 0, 1] + [0] * 4


@given(legal_boards())
def test_position_id_round_trips_on_random_legal_boards(board: np.ndarray) -> None:
    pid = position_id(board)
    assert len(pid) == 14
    assert np.array_equal(board_from_position_id(pid), board)


@given(legal_boards())
def test_position_id_agrees_with_gnubg_nn_on_random_boards(board: np.ndarray) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    pid = position_id(board)
    assert pid == gnubg_nn.position_id(board_to_gnubg(board))
    assert np.array_equal(board_from_gnubg(gnubg_nn.board_from_position_id(pid)), board)


@given(st.text(alphabet=B64, min_size=14, max_size=14))
def test_any_14_characters_either_round_trip_exactly_or_raise(text: str) -> None:
    try:
        board = board_from_position_id(text)
    except InvalidPositionError:
        return
    assert position_id(board) == text


@given(legal_boards())
def test_gnubg_layout_round_trips(board: np.ndarray) -> None:
    b2 = board_to_gnubg(board)
    assert len(b2) == 2 and all(len(side) == 25 for side in b2)
    assert np.array_equal(board_from_gnubg(b2), board)


def test_board_to_gnubg_of_start_is_two_identical_sides() -> None:
    side = [0] * 25
    for point, n in {6: 5, 8: 3, 13: 5, 24: 2}.items():
        side[point - 1] = n
    assert board_to_gnubg(STARTING) == [side, side]


def test_bar_slots_map_to_gnubg_index_24() -> None:
    b = np.zeros(26, dtype=np.int8)
    b[25], b[0] = 2, -3
    assert board_to_gnubg(b) == [[0] * 24 + [3], [0] * 24 + [2]]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("4HPwATDgc/ABM", "14 characters, got 13"),
        ("4HPwATDgc/ABMAA", "14 characters, got 15"),
        ("4HPwATDgc/AB!A", "bad character '!'"),
        ("4HPwATDgc/AB A", "bad character ' '"),
        (
            pack_bits(sides_bits([16] + [0] * 24, [0] * 25), 10),
            "more than 15 checkers for the player not on roll",
        ),
        (
            pack_bits(sides_bits([0] * 25, [16] + [0] * 24), 10),
            "more than 15 checkers for the player on roll",
        ),
        # their checker on their 1 point = our 24 point, where we also have one
        (pack_bits(sides_bits([1] + [0] * 24, [0] * 23 + [1, 0]), 10), "both sides on point 24"),
        (pack_bits("0" * 50 + "0" * 29 + "1", 10), "too many bits"),
        ("AAAAAAAAAAAAAB", "too many bits"),
    ],
)
def test_bad_position_ids_raise_naming_the_problem(text: str, words: str) -> None:
    with pytest.raises(InvalidPositionError, match=words.replace("(", r"\(").replace(")", r"\)")):
        board_from_position_id(text)


def test_both_sides_on_a_point_message_names_the_point() -> None:
    text = pack_bits(sides_bits([1] + [0] * 24, [0] * 23 + [1, 0]), 10)
    with pytest.raises(InvalidPositionError, match="both sides on point 24"):
        board_from_position_id(text)


def test_position_id_rejects_an_illegal_board() -> None:
    b = np.zeros(26, dtype=np.int8)
    b[6] = 16
    with pytest.raises(InvalidPositionError):
        position_id(b)
    with pytest.raises(InvalidPositionError, match="26 slots"):
        position_id(np.zeros(25, dtype=np.int8))


def test_position_id_is_a_string_error_for_non_strings() -> None:
    with pytest.raises(InvalidPositionError, match="string"):
        board_from_position_id(12345)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("b2", "words"),
    [
        ([[0] * 25, [16] + [0] * 24], "16 checkers for the player on roll"),
        ([[16] + [0] * 24, [0] * 25], "16 checkers for the player not on roll"),
        ([[-1] + [0] * 24, [0] * 25], "negative"),
        ([[0] * 25], "2 lists of 25"),
        ([[1] + [0] * 24, [0] * 23 + [1, 0]], "both sides on point 24"),
    ],
)
def test_board_from_gnubg_rejects_bad_boards(b2: list[list[int]], words: str) -> None:
    with pytest.raises(InvalidPositionError, match=words):
        board_from_gnubg(b2)


# --------------------------------------------------------------------------
# Match ID
# --------------------------------------------------------------------------

MANUAL_EXAMPLE = MatchInfo(
    cube_value=2,
    cube_owner=0,
    player_on_roll=1,
    crawford=False,
    game_state=GameState.PLAYING,
    turn=1,
    double_offered=False,
    resignation=0,
    dice=(5, 2),
    match_length=9,
    score=(2, 4),
    jacoby=True,
)


def test_manual_match_id_example_decodes_field_by_field() -> None:
    assert match_info_from_id("QYkqASAAIAAA") == MANUAL_EXAMPLE


def test_manual_match_id_example_encodes_back() -> None:
    assert match_id(MANUAL_EXAMPLE) == "QYkqASAAIAAA"
    key = bytes.fromhex("41892a012000200000")  # the manual's match key
    assert pack_bits("".join(f"{b:08b}"[::-1] for b in key), 9) == "QYkqASAAIAAA"


def test_default_match_info_is_money_play_with_centred_cube() -> None:
    info = match_info_from_id(match_id(MatchInfo()))
    assert info == MatchInfo()
    assert info.cube_owner == -1 and info.cube_value == 1 and info.match_length == 0


def test_jacoby_is_stored_inverted_in_bit_67() -> None:
    assert match_id(MatchInfo(jacoby=True)) == match_bits()
    assert match_id(MatchInfo(jacoby=False)) == match_bits(not_jacoby=1)
    assert match_info_from_id(match_bits(not_jacoby=1)).jacoby is False


@given(match_infos_any())
def test_match_info_round_trips_through_match_id(info: MatchInfo) -> None:
    text = match_id(info)
    assert len(text) == 12
    assert match_info_from_id(text) == info
    assert match_id(match_info_from_id(text)) == text


@given(st.text(alphabet=B64, min_size=12, max_size=12))
def test_any_12_characters_either_round_trip_exactly_or_raise(text: str) -> None:
    try:
        info = match_info_from_id(text)
    except InvalidMatchIdError:
        return
    assert match_id(info) == text


def test_dice_keep_their_order() -> None:
    info = MatchInfo(dice=(2, 5))
    assert match_info_from_id(match_id(info)).dice == (2, 5)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("QYkqASAAIAA", "12 characters, got 11"),
        ("QYkqASAAIAAA=", "12 characters, got 13"),
        ("QYkqASAAIAA-", "bad character '-'"),
        (match_bits(owner=2), "cube owner bits 10"),
        (match_bits(state=5), "game state"),
        (match_bits(die1=7, die2=1), "out of range"),
        (match_bits(die1=3, die2=0), "both dice are 0"),
        (match_bits(length=5, score0=6), "beyond the match length"),
        (match_bits(crawford=1), "Crawford flag is set in money play"),
        (match_bits(unused=1), "too many bits"),
    ],
)
def test_bad_match_ids_raise_naming_the_problem(text: str, words: str) -> None:
    with pytest.raises(InvalidMatchIdError, match=words):
        match_info_from_id(text)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"cube_value": 3}, "not a power of two"),
        ({"cube_value": 0}, "not a power of two"),
        ({"cube_value": 65536}, "above 32768"),
        ({"cube_owner": 2}, "cube owner"),
        ({"player_on_roll": 2}, "player on roll"),
        ({"turn": -1}, "turn"),
        ({"game_state": 7}, "game state"),
        ({"resignation": 4}, "resignation"),
        ({"dice": (0, 7)}, "out of range"),
        ({"match_length": 40000}, "match length"),
        ({"score": (1, 40000)}, "score"),
    ],
)
def test_invalid_match_info_cannot_be_built(kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(InvalidMatchIdError, match=words):
        MatchInfo(**kwargs)  # type: ignore[arg-type]


# --------------------------------------------------------------------------
# XGID
# --------------------------------------------------------------------------

REAL_XGIDS = [
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",  # CubeViz start
    "XGID=-bb---D-C---dD---c-d---BB-:0:0:1:00:0:0:0:0:10",  # CubeViz nackgammon
    "XGID=--------------------------:0:0:1:00:0:0:0:0:10",  # CubeViz empty
    "XGID=--CBCBC------B--b--cabbcb-:1:1:1:21:0:0:0:0:8",  # AnkiGammon#48
    "XGID=-aa---EBB---dDa--c-e----B-:0:0:1:16:0:0:3:0:8",  # gnubg-android#14
    "-a-B--E-B-a-dDB--b-bcb----:1:1:-1:63:0:0:0:3:8",
    "-b--B-C-CA-AdC-a-c-e-A--A-:3:-1:1:62:0:0:3:0:10",
    "g-----E-C---fE-----b----B-:1:1:1:22:0:0:3:0:10",
    "aFBBB-A---A-------A---c-b-:1:1:1:21:0:0:3:0:10",
]


@pytest.mark.parametrize("text", REAL_XGIDS)
def test_real_xgids_round_trip_exactly(text: str) -> None:
    assert parse_xgid(text).to_string() == text


def test_xgid_start_position_is_the_standard_start() -> None:
    xg = parse_xgid(REAL_XGIDS[0])
    assert xg.position == STARTING
    assert (xg.cube_value, xg.state()[0].owner, xg.turn, xg.dice, xg.rolled) == (
        1,
        CubeOwner.CENTERED,
        1,
        "00",
        None,
    )
    assert (xg.match_length, xg.max_cube_log2, xg.jacoby, xg.beavers) == (0, 10, False, False)


def test_xgid_nackgammon_start_is_nackgammon() -> None:
    assert parse_xgid(REAL_XGIDS[1]).position == NACKGAMMON


def test_xgid_uppercase_is_the_bottom_player_and_position_follows_turn() -> None:
    # Top player (lowercase) on turn: its checkers become ours.
    xg = parse_xgid("-a-B--E-B-a-dDB--b-bcb----:1:1:-1:63:0:0:0:3:8")
    b = xg.board
    assert b[24] == 1  # 'a' at character 1: top's 24 point
    assert b[13] == 4  # 'd' at character 12: top's 13 point
    assert b[12] == -4  # 'D' at character 13: bottom's 13 point is our 12
    assert b[19] == -5  # 'E' at character 6: bottom's 6 point is our 19
    assert b[22] == -2  # 'B' at character 3
    assert xg.rolled == (6, 3)
    assert xg.state()[0].owner is CubeOwner.OPPONENT  # the bottom player (not on turn) owns it
    assert xg.cube_value == 2 and xg.match_length == 3 and not xg.crawford
    assert not xg.prefix


def test_xgid_character_0_is_the_top_players_bar() -> None:
    xg = parse_xgid("g-----E-C---fE-----b----B-:1:1:1:22:0:0:3:0:10")
    assert xg.board[0] == -7
    assert xg.jacoby and xg.beavers


def test_xgid_scores_are_bottom_then_top() -> None:
    xg = parse_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:2:4:0:7:10")
    assert (xg.score_bottom, xg.score_top) == (2, 4)
    assert xg.score == (4, 2)  # from the player on turn: the top player
    assert xg.position == STARTING  # symmetric start


def test_xgid_and_gnubg_ids_of_the_same_position_agree() -> None:
    xg = parse_xgid("aFBBB-A---A-------A---c-b-:1:1:1:21:0:0:3:0:10")
    pos, info = parse_position("cwAAoN82IUAAAA:UQkFAAAAAAAA")
    assert xg.position == pos
    assert isinstance(info, MatchInfo)
    # XGID bottom player = gnubg player 1, on roll, owns the 2-cube, rolled 21.
    assert (info.player_on_roll, info.cube_owner, info.cube_value) == (1, 1, 2)
    assert (info.dice, xg.rolled) == ((2, 1), (2, 1))
    assert info.match_length == xg.match_length == 0
    assert info.jacoby and xg.jacoby
    # One cube state from both formats.
    assert xg.state()[0] == info.state()[0] == CubeState(2, CubeOwner.ME)
    assert xg.state()[1] == MatchState.money(jacoby=True, beavers=True)
    assert info.state()[1] == MatchState.money(jacoby=True)


def test_match_states_from_an_xgid_and_a_match_id_of_a_match() -> None:
    # Top player on turn at 4-2 (top-bottom) in a 7-point match, the bottom player owns a 2-cube.
    xg = parse_xgid("XGID=-b----E-C---eE---c-e----B-:1:1:-1:00:2:4:0:7:10")
    assert xg.state() == (CubeState(2, CubeOwner.OPPONENT), MatchState.match(7, (4, 2)))
    info = MatchInfo(cube_value=2, cube_owner=1, player_on_roll=0, turn=0, match_length=7, score=(4, 2))
    assert info.state() == (CubeState(2, CubeOwner.OPPONENT), MatchState.match(7, (4, 2)))
    assert info.state(1) == (CubeState(2, CubeOwner.ME), MatchState.match(7, (2, 4)))


def test_xgid_with_nine_fields_round_trips() -> None:
    text = "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:0"
    xg = parse_xgid(text)
    assert xg.max_cube_log2 is None
    assert xg.to_string() == text


@pytest.mark.parametrize("dice", ["D", "B", "R", "00", "66", "13"])
def test_xgid_dice_field_values_round_trip(dice: str) -> None:
    text = f"XGID=-b----E-C---eE---c-e----B-:1:0:1:{dice}:0:0:0:0:10"
    assert parse_xgid(text).to_string() == text


@st.composite
def xgids(draw: st.DrawFn) -> Xgid:
    length = draw(st.sampled_from([0, 1, 3, 7, 25]))
    return Xgid(
        position=Position(draw(legal_boards())),
        cube_log2=draw(st.integers(0, 15)),
        cube_position=draw(st.sampled_from([-1, 0, 1])),
        turn=draw(st.sampled_from([-1, 1])),
        dice=draw(
            st.sampled_from(
                ["00", "D", "B", "R"] + [f"{a}{b}" for a, b in itertools.product("123456", repeat=2)]
            )
        ),
        score_bottom=draw(st.integers(0, max(length - 1, 0) if length else 50)),
        score_top=draw(st.integers(0, max(length - 1, 0) if length else 50)),
        rules=draw(st.integers(0, 1 if length else 3)),
        match_length=length,
        max_cube_log2=draw(st.one_of(st.none(), st.integers(0, 15))),
        prefix=draw(st.booleans()),
    )


@given(xgids())
def test_xgid_round_trips_exactly_both_ways(xg: Xgid) -> None:
    text = xg.to_string()
    back = parse_xgid(text)
    assert back == xg
    assert back.to_string() == text


@given(legal_boards())
def test_xgid_top_on_turn_writes_the_flipped_board(board: np.ndarray) -> None:
    bottom = Xgid(Position(board), turn=1).to_string()
    top = Xgid(Position(flip(board)), turn=-1).to_string()
    assert bottom.split(":")[0] == top.split(":")[0]


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0", InvalidPositionError, "10 fields"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", InvalidPositionError, "26 characters, got 25"),
        ("XGID=-b----E-C---eE---c-e----Q-:0:0:1:00:0:0:0:0:10", InvalidPositionError, "bad character 'Q'"),
        ("XGID=-b----E-C---eE---c-e----B*:0:0:1:00:0:0:0:0:10", InvalidPositionError, "bad character"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", InvalidPositionError, "top player's bar"),
        ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10", InvalidPositionError, "bottom player's bar"),
        (
            "XGID=-b----E-C---eE---c-e----C-:0:0:1:00:0:0:0:0:10",
            InvalidPositionError,
            "16 checkers for the bottom",
        ),
        (
            "XGID=-c----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
            InvalidPositionError,
            "16 checkers for the top",
        ),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10", InvalidMatchIdError, "turn must be"),
        ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", InvalidMatchIdError, "cube position"),
        ("XGID=-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:0:10", InvalidMatchIdError, "cube field"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:07:0:0:0:0:10", InvalidMatchIdError, "dice field"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:X:0:0:0:0:10", InvalidMatchIdError, "dice field"),
        ("XGID=-b----E-C---eE---c-e----B-:01:0:1:00:0:0:0:0:10", InvalidMatchIdError, "not a plain integer"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:x:0:0:0:10", InvalidMatchIdError, "bottom player's score"),
        (
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:5:10",
            InvalidMatchIdError,
            "Crawford/Jacoby/beaver",
        ),
        (
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:4:0:10",
            InvalidMatchIdError,
            "Crawford/Jacoby/beaver",
        ),
        (
            "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:5:0:0:5:10",
            InvalidMatchIdError,
            "not below the match length",
        ),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:-1:10", InvalidMatchIdError, "match length"),
    ],
)
def test_bad_xgids_raise_naming_the_problem(text: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        parse_xgid(text)


# --------------------------------------------------------------------------
# parse_position
# --------------------------------------------------------------------------


def test_parse_position_reads_a_position_id_alone_with_whitespace() -> None:
    assert parse_position("  4HPwATDgc/ABMA\n") == (STARTING, None)


def test_parse_position_reads_gnubg_combined_id() -> None:
    pos, info = parse_position("vzsAAFhu2xFABA:QYkqASAAIAAA")
    assert pos == Position(board_from_position_id("vzsAAFhu2xFABA"))
    assert info == MANUAL_EXAMPLE


@pytest.mark.parametrize("text", [REAL_XGIDS[0], REAL_XGIDS[0][5:], " " + REAL_XGIDS[0] + " "])
def test_parse_position_reads_xgids_with_or_without_prefix(text: str) -> None:
    pos, xg = parse_position(text)
    assert pos == STARTING
    assert isinstance(xg, Xgid)


def test_parse_position_is_from_the_player_on_roll_for_gnubg_ids() -> None:
    # wildbg: "X bar", X being the player on roll
    pos, _ = parse_position("zGbiIQgxH/AAWA")
    assert pos.board[25] == 1 and pos.board[0] == 0


def test_parse_position_is_from_the_player_on_turn_for_xgids() -> None:
    pos, xg = parse_position("g-----E-C---fE-----b----B-:1:1:-1:22:0:0:3:0:10")
    assert isinstance(xg, Xgid)
    assert pos.board[25] == 7  # the top player, on turn, is on the bar


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("hello", InvalidPositionError, "not a GNUBG Position ID"),
        ("", InvalidPositionError, "not a GNUBG Position ID"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAA:x", InvalidPositionError, "not a GNUBG Position ID"),
        ("4HPwATDgc/AB!A:cAkAAAAAAAAA", InvalidPositionError, "bad character"),
        ("4HPwATDgc/ABMA:cAkAAAAAAAA", InvalidMatchIdError, "12 characters"),
    ],
)
def test_parse_position_rejects_garbage(text: str, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        parse_position(text)


@settings(max_examples=50)
@given(legal_boards())
def test_parse_position_of_position_id_gives_back_the_board(board: np.ndarray) -> None:
    pos, info = parse_position(position_id(board))
    assert info is None
    assert np.array_equal(pos.board, board)


@given(st.lists(legal_boards(), min_size=1, max_size=20))
def test_position_ids_of_a_batch_equal_gnubgs_one_by_one(boards: list[np.ndarray]) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn")
    from bgnet.formats import position_ids

    assert position_ids(np.stack(boards)) == [gnubg_nn.position_id(board_to_gnubg(b)) for b in boards]
