"""Variant positions and play notation written and read, validation, ``bgnet moves --variant``."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bgnet.cli import main
from bgnet.errors import IllegalMoveError, InvalidPositionError
from bgnet.position import STARTING
from bgnet.variant_format import (
    check_variant_board,
    draw_variant,
    format_variant_position,
    legal_variant_plays,
    parse_variant_play,
    parse_variant_position,
    play_notation,
    turn_notation,
    turn_parts,
)
from bgnet.variants import PIN, VARIANTS, VSLOTS, variant, widen

START = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
LABELS = [*VARIANTS, "portes+no-forced-max", "plakoto+no-forced-max", "fevga+no-cube+no-forced-max"]

# Hand-written: the plakoto start seen by the side on roll (15 on its 24, theirs on our 1).
PLAKOTO_START = "plakoto:-15,0,0,0,0,0/0,0,0,0,0,0/0,0,0,0,0,0/0,0,0,0,0,15:bar=0,0:wait=0,0"
# Two of ours on 19 pin one of theirs; one of theirs on our 7 pins one of ours.
PLAKOTO_PINS = "plakoto:-12,0,0,0,0,-1/-1p,0,0,0,0,0/1,0,0,0,0,0/2p,0,0,0,0,11:bar=0,0:wait=0,0"
# Ours: 15 on 24; theirs: 13 on our 1 and lone checkers on our 18 and 19.
PLAKOTO_BLOTS = "plakoto:-13,0,0,0,0,0/0,0,0,0,0,0/0,0,0,0,0,-1/-1,0,0,0,0,15:bar=0,0:wait=0,0"
# A pin in portes (15 checkers a side, counting the pinned one).
PORTES_PIN = "portes:-2p,0,0,0,0,5/0,3,0,0,0,-5/5,0,0,0,-3,0/-5,0,0,0,0,1"
FEVGA_START = "fevga:0,0,0,0,0,0/0,0,0,0,0,-15/0,0,0,0,0,0/0,0,0,0,0,15:bar=0,0:wait=0,0"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def board_of(points: dict[int, int], pins: dict[int, int] | None = None, **slots: int) -> np.ndarray:
    """A 52-slot board by hand: signed counts per point, pins per point, and named slots."""
    b = np.zeros(VSLOTS, dtype=np.int8)
    for p, n in points.items():
        b[p] = n
    for p, n in (pins or {}).items():
        b[PIN + p] = n
    names = {"our_bar": 25, "their_bar": 0, "our_wait": 50, "their_wait": 51}
    for name, n in slots.items():
        b[names[name]] = n
    return b


def random_game_boards(label: str, seed: int, plies: int) -> list[np.ndarray]:
    """Boards reached by random legal play in ``label`` from its start (each seen by the side on roll)."""
    v = variant(label)
    rng = np.random.default_rng(seed)
    b = v.start.copy()
    out = [b]
    for _ in range(plies):
        ours, theirs = (int(x[0]) for x in v.checkers(b))
        if not ours or not theirs:
            break
        batch = v.generate(b[None, :], rng.integers(1, 7, size=(1, 2)))
        rows = batch.rows(0)
        b = batch.positions[rng.choice(list(rows))].copy() if len(rows) else v.flip(b)
        out.append(b)
    return out


# --------------------------------------------------------------------------
# The position format
# --------------------------------------------------------------------------


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(label=st.sampled_from(LABELS), seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 150))
def test_every_position_of_random_play_round_trips(label, seed, plies):
    v = variant(label)
    for b in random_game_boards(label, seed, plies)[-8:]:
        text = format_variant_position(b, v)
        assert " " not in text and "\n" not in text and text.startswith(v.label + ":")
        v2, b2 = parse_variant_position(text)
        assert v2 == v and np.array_equal(b2, b)
        assert format_variant_position(b2, v2) == text


def test_starts_are_written_as_the_rules_describe_them():
    assert format_variant_position(variant("plakoto").start, variant("plakoto")) == PLAKOTO_START
    assert format_variant_position(variant("fevga").start, variant("fevga")) == FEVGA_START
    bg = "backgammon:-2,0,0,0,0,5/0,3,0,0,0,-5/5,0,0,0,-3,0/-5,0,0,0,0,2:bar=0,0:wait=0,0"
    assert format_variant_position(widen(STARTING.board), variant("backgammon")) == bg


def test_pins_bars_and_house_rules_are_read_as_written():
    v, b = parse_variant_position(PLAKOTO_PINS)
    assert v.name == "plakoto"
    expected = board_of({1: -12, 6: -1, 7: -1, 13: 1, 19: 2, 24: 11}, {7: 1, 19: -1})
    assert np.array_equal(b, expected)
    v, b = parse_variant_position(
        "portes+no-forced-max:-2,0,0,0,0,5/0,3,0,0,0,-5/5,0,0,0,-3,0/-4,0,0,0,0,1:bar=1,1:wait=0,0"
    )
    assert v.label == "portes+no-forced-max" and b[25] == 1 and b[0] == -1 and b[24] == 1 and b[19] == -4


def test_lenient_input_is_written_back_canonically():
    loose = "PLAKOTO:-12,0,0,0,0,-1,-1P,0,0,0,0,0/+1,0,0,0,0,0/2p,0,0,0,0,11:wait=0,0:bar=0,0"
    v, b = parse_variant_position(loose)
    assert format_variant_position(b, v) == PLAKOTO_PINS
    v, b = parse_variant_position(PLAKOTO_PINS.split(":bar")[0])  # bar and wait left out
    assert format_variant_position(b, v) == PLAKOTO_PINS
    v, _ = parse_variant_position(FEVGA_START.replace("fevga", "fevga+no-forced-max+no-cube"))
    assert v.label == "fevga+no-cube+no-forced-max"


@pytest.mark.parametrize("label", ["backgammon", "nackgammon", "portes", "tavla"])
@pytest.mark.parametrize("text", [START, START_XGID, START + ":cAkAAAAAAAAA"])
def test_gnubg_ids_and_xgids_are_backgammon_boards(label, text):
    v, b = parse_variant_position(text, variant(label))
    assert v.label == label and np.array_equal(b, widen(STARTING.board))


def test_a_plain_id_alone_is_backgammon():
    v, b = parse_variant_position(START)
    assert v.name == "backgammon" and np.array_equal(b, widen(STARTING.board))


@pytest.mark.parametrize(
    "text, expected, message",
    [
        (PLAKOTO_START.replace("-15,", "-15,0,", 1), None, "25 points"),
        (PLAKOTO_START.replace("-15,", "x,", 1), None, "point 1 is 'x'"),
        (PLAKOTO_START.replace(",0,0,0,0,15", ",0p,0,0,0,15"), None, "0p"),
        (PLAKOTO_START.replace(":wait", ":walt"), None, "not understood"),
        (PLAKOTO_START + ":bar=0,0", None, "given twice"),
        (PLAKOTO_START.replace("bar=0,0", "bar=1"), None, "bar=OURS,THEIRS"),
        ("plakoto:", None, "give the 24 points"),
        ("plakotto:" + PLAKOTO_START.split(":", 1)[1], None, "unknown variant 'plakotto'"),
        ("plakoto+no-dice:" + PLAKOTO_START.split(":", 1)[1], None, "unknown house rule 'no-dice'"),
        (PLAKOTO_START.replace("-15,", "-16,", 1), None, "16 checkers"),
        (PLAKOTO_START.replace(",0,0,0,0,15", ",0,0,0,1,15"), None, "the side on roll has 16 checkers"),
        (PLAKOTO_START.replace("bar=0,0", "bar=1,0").replace(",15:", ",14:"), None, "no hitting"),
        (FEVGA_START.replace("bar=0,0", "bar=0,1").replace("-15", "-14"), None, "no hitting"),
        (FEVGA_START.replace("-15", "-14").replace("wait=0,0", "wait=0,1"), None, "no checkers waiting"),
        (FEVGA_START.replace("-15", "-14p").replace(",15:", ",14:"), None, "fevga has no pins"),
        (PORTES_PIN, None, "portes has no pins"),
        (PLAKOTO_START, variant("fevga"), "a plakoto position, but the variant is fevga"),
        (START, variant("plakoto"), "GNUBG IDs and XGIDs are for backgammon boards"),
        (START, variant("fevga"), "GNUBG IDs and XGIDs are for backgammon boards"),
        ("4HPwATDgc/AB!A", None, "bad character"),
        ("plakoto :" + PLAKOTO_START.split(":", 1)[1], None, "without spaces"),
        ("", None, "no position given"),
    ],
)
def test_bad_positions_are_refused_in_one_line(text, expected, message):
    with pytest.raises(InvalidPositionError, match=None) as e:
        parse_variant_position(text, expected)
    assert message in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize(
    "label, board, message",
    [
        ("plakoto", board_of({24: 15, 1: -15, 7: 1}), "side on roll has 16"),
        ("plakoto", board_of({24: 14, 1: -15}, {24: -1}), "opponent has 16"),
        ("backgammon", board_of({24: 1, 1: -1}, {1: 1}), "backgammon has no pins"),
        ("tavla", board_of({24: 1, 1: -1}, {24: -1}), "tavla has no pins"),
        ("plakoto", board_of({24: 12, 1: -14, 5: 2}, {5: 1}), "needs the opponent's checkers on top"),
        ("plakoto", board_of({24: 14, 1: -12, 5: -2}, {5: -1}), "needs our checkers on top"),
        ("plakoto", board_of({24: 13, 1: -14, 5: -1}, {5: 2}), "2 pinned checkers"),
        ("plakoto", board_of({24: 14, 1: -15}, our_bar=1), "plakoto has no hitting"),
        ("fevga", board_of({24: 15, 12: -14}, their_bar=-1), "fevga has no hitting"),
        ("backgammon", board_of({24: 14, 1: -15}, our_wait=1), "no checkers waiting"),
        ("backgammon", board_of({24: 15, 1: -14}, their_wait=-1), "no checkers waiting"),
        ("backgammon", board_of({24: 15, 1: -14}, our_bar=-1), "opponent's checkers cannot be on our bar"),
    ],
)
def test_check_variant_board_names_the_problem(label, board, message):
    with pytest.raises(InvalidPositionError) as e:
        check_variant_board(board, variant(label))
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_formatted_board_is_checked_first():
    with pytest.raises(InvalidPositionError, match="portes has no pins"):
        format_variant_position(board_of({24: 1, 1: -1}, {24: -1}), variant("portes"))


# --------------------------------------------------------------------------
# Notation
# --------------------------------------------------------------------------


def _typed(play, rng: random.Random) -> str:
    """The play's steps as a person might type them: one part per step, shuffled, words for bar/off."""
    words = {26: ["in", "26"], 25: ["bar", "25"], 0: ["off", "0"]}
    parts = [
        f"{rng.choice(words.get(f, [str(f)]))}/{rng.choice(words.get(t, [str(t)]))}" for f, t in play.steps
    ]
    rng.shuffle(parts)
    return " ".join(parts)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(label=st.sampled_from(LABELS), seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 120))
def test_every_legal_play_is_read_back_from_its_notation_and_its_steps(label, seed, plies):
    v = variant(label)
    rng = random.Random(seed)
    for b in random_game_boards(label, seed, plies)[-4:]:
        ours, theirs = (int(x[0]) for x in v.checkers(b))
        if not ours or not theirs:
            continue
        plays = legal_variant_plays(v, b, (rng.randint(1, 6), rng.randint(1, 6)))
        assert len({p.notation for p in plays}) == len(plays)
        for p in plays:
            if p.double:  # an acey-deucey 1-2 turn: written part by part
                assert p.notation == turn_notation(turn_parts(v, b, p.steps, (2, 1), p.double), p.again)
            else:
                assert play_notation(v, b, p.steps) == p.notation
            assert parse_variant_play(p.notation, plays) == p
            assert parse_variant_play(_typed(p, rng), plays) == p
            if v.name != "plakoto":
                assert "^" not in p.notation
            if v.name in ("plakoto", "fevga"):
                assert "*" not in p.notation


def test_plakoto_pins_are_marked_and_a_stop_that_moves_on_is_no_pin():
    v, b = parse_variant_position(PLAKOTO_BLOTS)
    plays = legal_variant_plays(v, b, (6, 5))
    # By hand: from 24 a 6 lands on 18 and a 5 on 19, each a lone checker of theirs.  Both
    # dice on two checkers pin both; one checker 24/13 passes through one of them (freed again).
    assert sorted(p.notation for p in plays) == ["24/13", "24/19^ 24/18^"]
    pinned = parse_variant_play("24/18 24/19", plays)
    assert pinned.notation == "24/19^ 24/18^"
    after = v.flip(pinned.position)  # back to the mover's side
    assert after[18] == 1 and after[PIN + 18] == -1 and after[19] == 1 and after[PIN + 19] == -1
    through = parse_variant_play("24/18/13", plays)
    assert through == parse_variant_play("24/19/13", plays) == parse_variant_play("24/13", plays)
    assert v.flip(through.position)[18] == -1 and v.flip(through.position)[PIN + 18] == 0


def test_fevga_opening_moves_one_checker_from_the_start():
    v, b = parse_variant_position(FEVGA_START)
    # By hand: no second checker may leave our 24 before the first passed their start (our 12).
    assert [p.notation for p in legal_variant_plays(v, b, (6, 5))] == ["24/13"]


def test_hits_bar_off_and_repeats_in_hitting_games():
    tavla, b = parse_variant_position("tavla:-1,0,-1,0,0,5/0,3,0,0,0,-5/5,0,0,0,-3,0/-5,0,0,0,0,2")
    notes = {p.notation for p in legal_variant_plays(tavla, b, (5, 3))}
    assert {"13/8 6/3*", "8/3* 6/3", "6/3* 6/1*"} <= notes
    # Tavla: a checker that hits in our home board stops there: with 3-2, 6/3* cannot go on to 1,
    # as it can in backgammon.
    in_tavla = {p.notation for p in legal_variant_plays(tavla, b, (3, 2))}
    in_backgammon = {p.notation for p in legal_variant_plays(variant("backgammon"), b, (3, 2))}
    assert in_backgammon - in_tavla == {"6/3*/1*"} and "6/4 6/3*" in in_tavla
    portes, b = parse_variant_position(START, variant("portes"))
    plays = legal_variant_plays(portes, b, (2, 2))
    assert sorted(parse_variant_play("13/11(2) 6/4(2)", plays).steps) == [(6, 4), (6, 4), (13, 11), (13, 11)]
    with pytest.raises(IllegalMoveError, match="incomplete"):
        parse_variant_play("13/11(2)", plays)
    bar = board_of({6: 2, 24: 12, 1: -15}, our_bar=1)
    plays = legal_variant_plays(portes, bar, (3, 1))
    assert {p.notation for p in plays} >= {"bar/22 24/23", "bar/21"}
    home = board_of({1: 2, 2: 3, 20: -15})  # by hand: 6 and 5 each bear off from 2, the highest point
    plays = legal_variant_plays(variant("backgammon"), home, (6, 5))
    assert [p.notation for p in plays] == ["2/off(2)"]
    assert parse_variant_play("2/0 2/off", plays) == plays[0]


def test_typed_plays_that_do_not_fit_are_refused_in_one_line():
    bg = variant("backgammon")
    # Lone opposing checkers on our 18 and 19: 6-5 from 24 to 13 hits one of them either way.
    b = board_of({24: 2, 13: 5, 8: 3, 6: 5, 18: -1, 19: -1, 1: -13})
    plays = legal_variant_plays(bg, b, (6, 5))
    with pytest.raises(IllegalMoveError, match="ambiguous"):
        parse_variant_play("24/13", plays)
    assert parse_variant_play("24/18*/13", plays).notation == "24/18*/13"
    assert parse_variant_play("24/19/13", plays).notation == "24/19*/13"
    for text, message in [
        ("24/12", "not a legal play"),
        ("hello", "not a checker move"),
        ("", "no play given"),
        ("13/18", "moves away from home"),
    ]:
        with pytest.raises(IllegalMoveError, match=message) as e:
            parse_variant_play(text, plays)
        assert "\n" not in str(e.value)
    with pytest.raises(IllegalMoveError, match="no legal play"):
        parse_variant_play("24/18", [])


def test_draw_shows_pins_bars_direction_and_pips():
    v, b = parse_variant_position(PLAKOTO_PINS)
    text = draw_variant(b, v)
    rows = text.splitlines()
    # Point 19 is the first column after the bar on top: the pinned o at the edge, X X over it.
    col = rows[1].index("19")
    assert [rows[r][col : col + 3].strip() for r in (2, 3, 4, 5)] == ["o", "X", "X", ""]
    # Point 7 is the last column before the bar at the bottom: the pinned x at the edge, O over it.
    col = rows[-3].index(" 7 ")
    assert rows[-4][col : col + 3].strip() == "x" and rows[-5][col : col + 3].strip() == "O"
    # Pips by hand: ours 11*24 + 2*19 + 13 + 7 = 322; theirs (their numbering) 12*24 + 19 + 18 + 6 = 331.
    assert "X: pips 322, off 0    O: pips 331, off 0" in text
    fevga, b = parse_variant_position(FEVGA_START)
    assert "O 12 -> 1 -> 24 -> 13" in draw_variant(b, fevga)
    assert "same way" not in draw_variant(*reversed(parse_variant_position(PLAKOTO_START)))


# --------------------------------------------------------------------------
# bgnet moves --variant
# --------------------------------------------------------------------------


def test_moves_variant_lists_the_plays_with_the_results_seen_by_the_opponent(capsys):
    code, out, err = run(capsys, "moves", "--variant", "plakoto", PLAKOTO_BLOTS, "65")
    assert code == 0 and err == ""
    lines = dict(line.split() for line in out.splitlines() if "^" not in line)
    # By hand: after 24/13 the opponent (on roll) has 13 on its 24, lone checkers on its 6 and 7
    # (our 19 and 18), and sees our 14 on its 1 and our one checker on its 12.
    assert lines == {"24/13": "plakoto:-14,0,0,0,0,1/1,0,0,0,0,-1/0,0,0,0,0,0/0,0,0,0,0,13:bar=0,0:wait=0,0"}
    # Without --variant the position names its game.
    assert run(capsys, "moves", PLAKOTO_BLOTS, "56")[1] == out


def test_moves_variant_json_gives_steps_and_positions(capsys):
    code, out, _ = run(capsys, "moves", "--variant", "fevga", FEVGA_START, "65", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["variant"] == "fevga" and doc["dice"] == [6, 5]
    assert doc["position"] == FEVGA_START
    [play] = doc["plays"]
    assert play["play"] == "24/13"
    assert sorted(map(tuple, play["steps"])) in ([(19, 13), (24, 19)], [(18, 13), (24, 18)])
    v, after = parse_variant_position(play["position"])
    mover = v.flip(after)
    assert v.name == "fevga" and mover[24] == 14 and mover[13] == 1 and mover[12] == -15


def test_moves_backgammon_is_unchanged_and_other_hitting_games_share_its_plays(capsys):
    plain = run(capsys, "moves", START, "31")
    assert run(capsys, "moves", "--variant", "backgammon", START, "31") == plain
    code, out, _ = run(capsys, "moves", "--variant", "portes", START, "31")
    assert code == 0
    assert [" ".join(line.split()[:-1]) for line in out.splitlines()] == [
        " ".join(line.split()[:-1]) for line in plain[1].splitlines()
    ]
    assert all(line.split()[-1].startswith("portes:") for line in out.splitlines())


def test_moves_variant_batch(capsys, tmp_path):
    f = tmp_path / "in.txt"
    f.write_text(f"{FEVGA_START} 65\n{PLAKOTO_START} 11\n", encoding="utf-8")
    code, out, err = run(capsys, "moves", "--variant", "fevga", "--batch", str(f))
    docs = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and docs[0]["plays"][0]["play"] == "24/13"
    assert "line 2" in docs[1]["error"] and "but the variant is fevga" in err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--variant", "plakotto", PLAKOTO_START, "31"], "unknown variant 'plakotto'"),
        (["--variant", "plakoto+no-dice", PLAKOTO_START, "31"], "unknown house rule"),
        (["--variant", "plakoto", PLAKOTO_START.replace("-15,", "-15,0,", 1), "31"], "25 points"),
        (["--variant", "portes", PORTES_PIN, "31"], "no pins"),
        (["--variant", "plakoto", START, "31"], "for backgammon boards"),
        (["--variant", "fevga", PLAKOTO_START, "31"], "but the variant is fevga"),
        (["--variant", "fevga", FEVGA_START, "71"], "1 to 6"),
        (["--variant", "fevga", FEVGA_START, "x"], "two digits"),
        (["--variant", "fevga", FEVGA_START], "dice"),
        (["--variant", "fevga", FEVGA_START, "31", "--rank"], "not available"),
        (["--variant", "fevga", FEVGA_START.replace("-15", "0"), "31"], "the game is over"),
        # Our last checker on our start (24) is pinned, theirs are all gone from theirs (our 1).
        (["plakoto:0,0,0,0,0,14/0,0,0,0,0,0/0,0,0,0,0,0/-14,0,0,0,0,-1p", "31"], "mother"),
    ],
)
def test_moves_variant_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, "moves", *argv)
    assert code == 2 and out == ""
    assert err.startswith("bgnet: error: ") and message in err and err.count("\n") == 1
