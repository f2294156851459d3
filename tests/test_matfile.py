"""Tests of bgnet.matfile: .mat match files written, read back and replayed."""

from __future__ import annotations

import numpy as np
import pytest

from bgnet.game import Match, Phase
from bgnet.match import CubeOwner, CubeState
from bgnet.matfile import MatError, format_mat, parse_mat, read_mat, record_game, write_mat
from bgnet.notation import legal_plays
from bgnet.position import STARTING, Position

# Exported by GNU Backgammon 1.07.001 ("export match mat") after gnubg 0-ply (player 0) played
# bgnet serve (player 1, named root): cube turned twice, a gammon at 4.
GNUBG_EXPORT = """\
; [EventDate "2026.11.29"]

 3 point match

 Game 1
 gnubg : 0                      root : 0
  1)                             51: 13/8 24/23$
  2) 52: 24/22 13/8              51: 8/3* 23/22$
  3) 61: 25/24 24/18             52: 24/22 8/3$
  4) 11: 8/7 8/7 6/5 6/5         62: 13/11 13/7*$
  5) 43: 25/21 21/18*            52: 25/23 11/6$
  6)  Doubles => 2                Takes
  7) 42: 24/20 20/18             31: 23/22 6/3$
  8) 61: 13/7 7/6                51: 22/21 21/16$
  9) 32: 6/4 13/10               33: 16/13 8/5 8/5 6/3
 10) 66: 13/7 13/7 10/4 7/1      52: 13/8 8/6$
 11) 64: 7/1 6/2                 53: 6/1 6/3$
 12) 32: 7/4 4/2                 43: 22/18* 18/15$
 13) 65:                         62: 3/1 22/16$
 14) 66:                          Doubles => 4
 15)  Takes                      62: 13/11 11/5$
 16) 52: 25/23 23/18             42: 15/11 13/11$
 17) 21: 18/16 8/7               52: 16/14 14/9*$
 18) 32: 25/23 8/5               42: 5/3 9/5$
 19) 31: 7/4 4/3                 43: 6/2* 5/2$
 20) 52:                         54: 11/6 6/2$
 21) 55:                         63: 11/5 3/0$
 22) 52:                         64: 6/2 6/0$
 23) 41: 25/21 18/17             63: 3/0 5/0$
 24) 43: 17/14 14/10             54: 5/0 5/1$
 25) 54: 18/14 21/16             62: 3/0 2/0$
 26) 63: 14/11 16/10             55: 3/0 3/0 2/0 2/0
 27) 63: 11/5 10/7               55: 2/0 1/0 1/0 1/0
                                  Wins 8 points
""".replace("$", " ")  # gnubg ends most move lines with a space


def test_reads_gnubgs_export():
    m = parse_mat(GNUBG_EXPORT)
    assert m.length == 3 and m.names == ("gnubg", "root")
    (g,) = m.games
    assert g.over and g.winner == 1 and g.points == 8 and g.result == "gammon"
    assert g.cube == CubeState(4, CubeOwner.ME)  # seen from player 0, who owns it
    assert m.score == [0, 8] and m.winner == 1
    kinds = [a.kind for a in g.actions]
    assert kinds.count("double") == 2 and kinds.count("take") == 2
    # Rolls that could not be played are recorded as empty moves.
    assert any(a.kind == "move" and not a.steps for a in g.actions)


def test_gnubgs_export_written_again_reads_the_same():
    m = parse_mat(GNUBG_EXPORT)
    again = parse_mat(format_mat(m))
    assert _summary(again) == _summary(m)


def _summary(m: Match) -> list:
    out = []
    for g in m.games:
        keep = ("move", "double", "take", "drop")
        acts = [(a.player, a.kind, a.dice, a.steps) for a in g.actions if a.kind in keep]
        out.append((g.score, g.crawford, g.winner, g.points, g.result, g.cube.value, acts))
    return out


def random_match(seed: int, length: int, games: int | None = None) -> Match:
    """A match of random legal actions: doubles, takes, drops and resignations included."""
    rng = np.random.default_rng(seed)
    m = Match(length, ("bgnet", "you"), rng, games=games)
    while not m.over:
        g = m.new_game()
        while not g.over:
            r = rng.random()
            if g.phase is Phase.ROLL:
                if g.may_double() and r < 0.08:
                    g.double()
                elif r < 0.1:
                    g.resign(int(rng.integers(1, 4)))
                else:
                    g.roll()
            elif g.phase is Phase.MOVE:
                if r < 0.01:
                    g.resign(int(rng.integers(1, 4)))
                    continue
                plays = legal_plays(Position(g.board), g.dice)
                g.move(plays[int(rng.integers(len(plays)))] if plays else None)
            elif g.phase is Phase.DOUBLED:
                g.take() if r < 0.7 else g.drop()
            elif g.phase is Phase.RESIGNED:
                g.accept() if r < 0.5 else g.reject()
    return m


@pytest.mark.parametrize(("seed", "length", "games"), [(1, 5, None), (2, 3, None), (3, 0, 3), (4, 7, None)])
def test_random_matches_round_trip(seed, length, games, tmp_path):
    m = random_match(seed, length, games)
    path = write_mat(m, tmp_path / "m.mat")
    back = read_mat(path)
    assert back.length == length and back.names == m.names
    assert back.score == m.score
    assert _summary(back) == _summary(m)
    text = path.read_text()
    assert text.splitlines()[2] == f" {length} point match"


def test_crawford_game_is_found_and_has_no_cube():
    for seed in range(40):
        m = random_match(seed, 3)
        crawford = [g for g in m.games if g.crawford]
        if crawford:
            break
    else:
        pytest.skip("no Crawford game in 40 random matches")
    back = parse_mat(format_mat(m))
    assert [g.crawford for g in back.games] == [g.crawford for g in m.games]
    g = crawford[0]
    assert all(a.kind != "double" for a in g.actions)
    assert [g.post_crawford for g in back.games] == [g.post_crawford for g in m.games]


def test_a_double_in_the_crawford_game_is_refused():
    text = (
        " 2 point match\n\n Game 1\n a : 0     b : 0\n"
        "  1) 31: 8/5 6/5\n"
        "     Wins 1 point\n\n"
        " Game 2\n a : 1     b : 0\n"
        "  1) 31: 8/5 6/5\n"
        "  2)                              Doubles => 2\n"
    )
    # Game 1 ends by a resignation ("Wins" while it is being played): a is then 1-away.
    with pytest.raises(MatError, match="line 11: no doubling in the Crawford game"):
        parse_mat(text)
    m = parse_mat(text.rsplit("\n", 2)[0] + "\n")
    assert [g.crawford for g in m.games] == [False, True]


def test_resignations_are_written_as_wins_in_the_winners_column():
    rng = np.random.default_rng(0)
    m = Match(0, ("bgnet", "you"), rng, games=2)
    g = m.new_game((5, 3))  # player 0 moves first
    g.move(legal_plays(Position(g.board), g.dice)[0])
    g.roll((6, 1))
    g.resign("gammon")  # player 1 resigns after rolling
    g.accept()
    assert g.winner == 0 and g.points == 2
    g = m.new_game((1, 6))  # player 1 first
    g.move(legal_plays(Position(g.board), g.dice)[0])
    g.resign(3)  # player 0 resigns a backgammon, rejected, then a single game accepted
    g.reject()
    g.resign(1)
    g.accept()
    assert g.winner == 1 and g.points == 1
    text = format_mat(m)
    lines = text.splitlines()
    wins = [line for line in lines if "Wins" in line]
    assert wins[0].startswith("      Wins 2 points")
    assert wins[1].startswith(" " * 34 + "Wins 1 point")
    back = parse_mat(text)
    assert [(g.winner, g.points, g.result) for g in back.games] == [(0, 2, "resign"), (1, 1, "resign")]


def test_record_game_from_steps_or_boards():
    rng = np.random.default_rng(9)
    m = Match(0, ("bgnet", "gnubg"), games=2)
    for first in (0, 1):
        board = STARTING
        plies = []
        as_boards = first == 1
        dice = (6, 1)
        while True:
            plays = legal_plays(board, __import__("bgnet.dice", fromlist=["Dice"]).Dice.of(*dice))
            play = plays[int(rng.integers(len(plays)))] if plays else None
            if play is None:
                plies.append((dice, None))
                board = board.flip()
            else:
                plies.append((dice, play.position.board if as_boards else play.steps))
                board = play.position
            if not (board.board < 0).any():
                break
            a, b = (int(x) for x in rng.integers(1, 7, size=2))
            dice = (a, b)
        g = record_game(m, first, plies)
        assert g.over and g.first == first and len([a for a in g.actions if a.kind == "move"]) == len(plies)
    back = parse_mat(format_mat(m))
    assert _summary(back) == _summary(m)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("hello\n", "point match"),
        ("", "no ' N point match'"),
        (" 3 point match\n", "no games"),
        (" 3 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/4 6/5\n", "line 4"),
        (" 3 point match\n Game 1\n a : 0   b : 0\n  1) 33: 8/5 6/5\n", "opening roll"),
        (" 3 point match\n Game 1\n a : 0 b : 0\n  1) 31: 8/5 6/5\n Game 2\n a : 1 b : 0\n", "score line"),
        (" 3 point match\n Game 1\n nonsense\n", "expected 'name : score"),
        (" 3 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5   Hello there\n", "unrecognised"),
        (" 3 point match\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n  2)  Takes\n", "line 5"),
    ],
)
def test_bad_files_name_the_problem(text, message):
    with pytest.raises(MatError, match=message):
        parse_mat(text)


def test_an_unfinished_game_is_kept_without_a_result():
    m = Match(0, games=3)
    record_game(m, 0, [((3, 1), [(8, 5), (6, 5)])])  # cut short
    g = record_game(m, 1, [((1, 3), [(8, 5), (6, 5)])])
    assert m.games[0].abandoned and not m.games[0].over and not g.abandoned
    back = parse_mat(format_mat(m))
    assert [x.abandoned for x in back.games] == [True, False] and back.score == [0, 0]


def test_record_game_refuses_an_illegal_play():
    m = Match(0, games=1)
    with pytest.raises(MatError, match="ply 1"):
        record_game(m, 0, [((3, 1), [(8, 4), (6, 5)])])
