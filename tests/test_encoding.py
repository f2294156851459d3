"""Network input encoders: layout, hand-checked values, symmetry, random boards.

Positions are written ``pos(ours, theirs)`` (each side numbering from its own
side, 25 = bar); the opponent's point ``p`` is our point ``25 - p``.  The
opponent's checkers move up our numbering, so a checker of theirs on our
point ``q`` shoots at our blots on points above ``q``.

Speed (no timing in the tests)::

    .venv/bin/python tests/test_encoding.py     # runs _bench()
"""

from __future__ import annotations

import time
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from boards import legal_boards, pos
from hypothesis import given, settings
from hypothesis import strategies as st

from bgnet.encoding import (
    CONTACT,
    ENCODERS,
    EXTENDED,
    RACE,
    TESAURO_198,
    Encoder,
    FeatureBlock,
    UnknownEncoderError,
    get_encoder,
)
from bgnet.errors import BgnetError
from bgnet.formats import board_from_position_id
from bgnet.movegen import generate
from bgnet.position import STARTING, Position, flip

DATA = Path(__file__).resolve().parent / "data" / "movegen_positions.txt"


@cache
def data_boards() -> np.ndarray:
    """The distinct positions of the move-generator test file (games, bear-offs, bar fights)."""
    ids = [line.split()[0] for line in DATA.read_text().splitlines() if line.strip() and line[0] != "#"]
    return np.array([board_from_position_id(i) for i in dict.fromkeys(ids)], dtype=np.int8)


def enc1(encoder: Encoder, position: Position) -> dict[str, np.ndarray]:
    """One position's encoding, block by block."""
    row = encoder.encode(position.board)[0]
    return {name: row[s] for name, s in encoder.slices().items()}


def ext(position: Position, name: str) -> float:
    """One single-unit EXTENDED block of a position."""
    (v,) = enc1(EXTENDED, position)[name]
    return float(v)


# --- layout -------------------------------------------------------------------------------------


@pytest.mark.parametrize("encoder", list(ENCODERS.values()), ids=list(ENCODERS))
def test_width_is_the_sum_of_the_blocks_and_slices_tile_it(encoder):
    assert encoder.width == sum(b.width for b in encoder.blocks)
    stops = [0] + [s.stop for s in encoder.slices().values()]
    starts = [s.start for s in encoder.slices().values()]
    assert starts == stops[:-1] and stops[-1] == encoder.width
    assert all(isinstance(b, FeatureBlock) and b.width > 0 and b.doc for b in encoder.blocks)
    assert len(encoder.layout().splitlines()) == len(encoder.blocks)


def test_tesauro_has_198_units_in_the_documented_places():
    assert TESAURO_198.width == 198
    s = TESAURO_198.slices()
    assert (s["our_points"], s["our_bar"], s["our_off"]) == (slice(0, 96), slice(96, 97), slice(97, 98))
    assert (s["their_points"], s["their_bar"], s["their_off"]) == (
        slice(98, 194),
        slice(194, 195),
        slice(195, 196),
    )
    assert s["turn"] == slice(196, 198)


def test_extended_starts_with_tesauro_and_adds_a_race_flag_and_13_units_a_side():
    assert EXTENDED.blocks[: len(TESAURO_198.blocks)] == TESAURO_198.blocks
    assert EXTENDED.width == 198 + 1 + 2 * 13
    boards = data_boards()[::50]
    np.testing.assert_array_equal(EXTENDED.encode(boards)[:, :198], TESAURO_198.encode(boards))


def test_versions_are_distinct_strings_that_name_the_encoder():
    assert TESAURO_198.version == "tesauro198-v1"
    assert len({e.version for e in ENCODERS.values()}) == len(ENCODERS)
    assert all(e.version.startswith(name) for name, e in ENCODERS.items())


def test_get_encoder_by_name_and_unknown_names_list_the_known_ones():
    assert get_encoder("tesauro198") is TESAURO_198
    assert get_encoder("extended") is EXTENDED
    with pytest.raises(UnknownEncoderError, match="extended, race, race-db, tesauro198") as info:
        get_encoder("tesauro")
    assert isinstance(info.value, ValueError) and isinstance(info.value, BgnetError)
    assert "'tesauro'" in str(info.value)


# --- TESAURO_198 by hand --------------------------------------------------------------------------


def test_tesauro_starting_position():
    e = enc1(TESAURO_198, STARTING)
    for side in ("our", "their"):
        units = e[f"{side}_points"].reshape(24, 4)  # row p - 1: point p of that side
        expected = np.zeros((24, 4), dtype=np.float32)
        expected[6 - 1] = (1, 1, 1, 1.0)  # 5 checkers: (5 - 3) / 2
        expected[8 - 1] = (1, 1, 1, 0)
        expected[13 - 1] = (1, 1, 1, 1.0)
        expected[24 - 1] = (1, 1, 0, 0)
        np.testing.assert_array_equal(units, expected)
        assert e[f"{side}_bar"][0] == 0 and e[f"{side}_off"][0] == 0
    np.testing.assert_array_equal(e["turn"], [1, 0])


def test_tesauro_bar_and_borne_off_and_tall_points():
    # Us: 3 on the bar, 10 on our 6 point, 2 off.  Them: 1 on the bar, 4 on their 1 point, 10 off.
    e = enc1(TESAURO_198, pos({25: 3, 6: 10}, {25: 1, 1: 4}))
    assert e["our_bar"][0] == pytest.approx(1.5)
    assert e["our_off"][0] == pytest.approx(2 / 15)
    assert e["their_bar"][0] == pytest.approx(0.5)
    assert e["their_off"][0] == pytest.approx(10 / 15)
    np.testing.assert_allclose(e["our_points"][20:24], [1, 1, 1, 3.5])  # (10 - 3) / 2
    np.testing.assert_allclose(e["their_points"][0:4], [1, 1, 1, 0.5])  # their point 1, our slot 24
    assert e["our_points"].sum() == pytest.approx(6.5) and e["their_points"].sum() == pytest.approx(3.5)
    # The raw index table of the module docstring.
    row = TESAURO_198.encode(pos({25: 3, 6: 10}, {25: 1, 1: 4}).board)[0]
    assert row[4 * (6 - 1) + 3] == pytest.approx(3.5) and row[96] == pytest.approx(1.5)
    assert row[98 + 4 * (1 - 1) + 3] == pytest.approx(0.5) and row[195] == pytest.approx(10 / 15)


# --- symmetry and random boards -------------------------------------------------------------------


def assert_flip_swaps_sides(encoder: Encoder, boards: np.ndarray) -> None:
    a = encoder.encode(boards)
    b = encoder.encode(flip(boards))
    s = encoder.slices()
    for name, sl in s.items():
        if name.startswith("our_"):
            other = s["their_" + name[4:]]
        elif name.startswith("their_"):
            other = s["our_" + name[6:]]
        else:
            other = sl  # turn, race: the same from both sides
        np.testing.assert_array_equal(b[:, sl], a[:, other], err_msg=name)


@pytest.mark.parametrize("encoder", list(ENCODERS.values()), ids=list(ENCODERS))
def test_flipping_the_board_swaps_our_blocks_and_theirs(encoder):
    assert_flip_swaps_sides(encoder, data_boards()[::7])


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(legal_boards(), min_size=1, max_size=8))
def test_random_legal_boards(boards):
    boards = np.array(boards, dtype=np.int8)
    for encoder in ENCODERS.values():
        x = encoder.encode(boards)
        assert x.dtype == np.float32 and x.shape == (len(boards), encoder.width)
        assert np.isfinite(x).all()
        assert x.min() >= 0.0 and x.max() <= 7.5  # (15 - 3) / 2 on a point, 15 / 2 on the bar
        # With a buffer (larger than needed, filled with NaN): the same values, all columns written.
        buf = np.full((len(boards) + 3, encoder.width), np.nan, dtype=np.float32)
        y = encoder.encode(boards, out=buf)
        assert np.shares_memory(y, buf) and y.shape == x.shape
        np.testing.assert_array_equal(y, x)
        assert_flip_swaps_sides(encoder, boards)
    hand = EXTENDED.encode(boards)[:, 198:]
    assert hand.max() <= 2.5  # 15 blots / 6; pips at most 375 / 167


def test_data_positions_are_in_range_and_every_column_is_written():
    boards = data_boards()
    for encoder in ENCODERS.values():
        out = np.full((len(boards), encoder.width), np.nan, dtype=np.float32)
        x = encoder.encode(boards, out)
        assert np.isfinite(x).all() and x.min() >= 0 and x.max() <= 7.5
        assert (x.max(axis=0) > 0).sum() >= encoder.width - 4  # nearly every unit is used somewhere


def test_encode_accepts_one_board_and_rejects_bad_shapes_and_buffers():
    one = TESAURO_198.encode(STARTING.board)
    assert one.shape == (1, 198)
    np.testing.assert_array_equal(one, TESAURO_198.encode(STARTING.board[None, :].astype(np.int64)))
    with pytest.raises(ValueError, match="shape"):
        TESAURO_198.encode(np.zeros((2, 25), dtype=np.int8))
    with pytest.raises(ValueError, match="float32"):
        TESAURO_198.encode(STARTING.board, out=np.empty((1, 198), dtype=np.float64))
    with pytest.raises(ValueError, match="float32"):
        TESAURO_198.encode(STARTING.board, out=np.empty((1, 225), dtype=np.float32))
    with pytest.raises(ValueError, match="rows"):
        TESAURO_198.encode(np.stack([STARTING.board] * 2), out=np.empty((1, 198), dtype=np.float32))
    with pytest.raises(ValueError, match="contiguous"):
        TESAURO_198.encode(np.stack([STARTING.board] * 2), out=np.empty((2, 396), dtype=np.float32)[:, ::2])
    assert EXTENDED.encode(np.empty((0, 26), dtype=np.int8)).shape == (0, EXTENDED.width)


# --- EXTENDED features by hand -------------------------------------------------------------------


def test_pips_lead_off_and_home():
    # Us: 5 on the 6 point and 1 on the bar (9 off): 30 + 25 = 55 pips.  Them: 15 on their 1 point.
    p = pos({6: 5, 25: 1}, {1: 15})
    e = enc1(EXTENDED, p)
    assert e["our_pips"][0] == pytest.approx(55 / 167)
    assert e["their_pips"][0] == pytest.approx(15 / 167)
    assert e["our_pip_lead"][0] == 0 and e["their_pip_lead"][0] == pytest.approx(40 / 167)
    np.testing.assert_allclose(e["our_off3"], [1, 0.8, 0])  # 9 off
    np.testing.assert_allclose(e["their_off3"], [0, 0, 0])
    assert e["our_home"][0] == pytest.approx(5 / 15) and e["their_home"][0] == 1
    np.testing.assert_allclose(enc1(EXTENDED, pos({1: 3}, {6: 15}))["our_off3"], [1, 1, 0.4])  # 12 off
    s = enc1(EXTENDED, STARTING)
    assert s["our_pips"][0] == s["their_pips"][0] == 1.0 and s["our_pip_lead"][0] == 0


def test_blots_count_single_checkers_on_the_board_only():
    p = pos({1: 1, 5: 1, 7: 1, 8: 2, 25: 1, 13: 9}, {6: 15})
    assert ext(p, "our_blots") == pytest.approx(3 / 6)  # 1, 5, 7; not the checker on the bar
    assert ext(STARTING, "our_blots") == 0 and ext(STARTING, "their_blots") == 0


def test_a_blot_6_pips_in_front_of_a_lone_checker_is_hit_by_17_rolls():
    # Their lone checker on their 19 = our 6; our blot on 12.  Sixes 11, 5-1 2, 4-2 2, 3-3, 2-2.
    p = pos({12: 1, 1: 14}, {19: 1})
    assert ext(p, "our_exposure") == pytest.approx(17 / 36)
    assert ext(p, "our_hit_loss") == pytest.approx(17 * 13 / 36 / 24)  # the blot on 12 goes back 13
    # Our checker on 12 shoots back at their blot 6 pips in front of it; it loses 25 - 19 = 6.
    assert ext(p, "their_exposure") == pytest.approx(17 / 36)
    assert ext(p, "their_hit_loss") == pytest.approx(17 * 6 / 36 / 24)


def test_points_we_hold_block_indirect_shots():
    # As above with our 8 and 10 points made: 4-2 (via 8 or 10) and 2-2 (via 8) are blocked,
    # 5-1 (via 7 or 11) and 3-3 (via 9) still hit: 11 + 2 + 1 = 14.
    p = pos({12: 1, 8: 2, 10: 2, 1: 10}, {19: 1})
    assert ext(p, "our_exposure") == pytest.approx(14 / 36)


def test_an_indirect_8_shot_is_6_rolls():
    # 6-2 2, 5-3 2, 4-4 (two steps), 2-2 (four steps).
    p = pos({14: 1, 1: 14}, {19: 1})
    assert ext(p, "our_exposure") == pytest.approx(6 / 36)


def test_each_roll_is_charged_the_costliest_blot_it_hits():
    # Blots on 10 (4 away, 15 rolls: fours 11, 3-1 2, 2-2, 1-1; costs 15 pips) and 12 (6 away,
    # 17 rolls, costs 13).  Union: 4s or 6s 20, 3-1 2, 5-1 2, 3-3, 2-2, 1-1 = 27 rolls.
    p = pos({10: 1, 12: 1, 1: 13}, {19: 1})
    assert ext(p, "our_exposure") == pytest.approx(27 / 36)
    assert ext(p, "our_hit_loss") == pytest.approx((15 * 15 + 12 * 13) / 36 / 24)


def test_two_on_the_bar_only_enter_except_with_doubles():
    # Our blot on 3; they have 2 on the bar (13 on their 6 point = our 19, behind the blot).
    # A 3 enters hitting (11 rolls); 1-1 enters two and walks one 1 -> 2 -> 3 (1 roll).
    # Our 6 point is closed, so 2-2 goes 2 -> 4 -> no further, 6-6 does not enter.
    p = pos({3: 1, 6: 14}, {25: 2, 6: 13})
    assert ext(p, "our_exposure") == pytest.approx(12 / 36)
    assert ext(p, "our_hit_loss") == pytest.approx(12 * 22 / 36 / 24)
    assert ext(p, "their_exposure") == 0


def test_one_on_the_bar_enters_and_then_any_checker_may_hit():
    # Their checker on the bar and one on our 10 (their 15).  Our blot on 12, our 1..6 all made
    # except 4: they enter only with a 4.  Hits: 4-2 (enter, then 10 -> 12) 2 rolls,
    # 4-4 (enter on 4, then 8 and 12: 4 -> 8 -> 12; or 10 and then nothing) 1 roll.
    # 6-2, 2-2 ... do not enter.  Total 3.
    p = pos({12: 1, 1: 2, 2: 2, 3: 2, 5: 2, 6: 2, 13: 4}, {25: 1, 15: 1})
    assert ext(p, "our_exposure") == pytest.approx(3 / 36)


def test_exposure_agrees_with_the_legal_plays_of_the_move_generator():
    """Count, for each of 36 rolls, whether some legal play of theirs sends one of ours to the bar.

    Ours may count a roll more: a hit after which a die cannot be played is
    not legal when another play uses both dice (we do not model that rule).
    """
    rng = np.random.default_rng(5)
    boards = data_boards()
    boards = boards[rng.permutation(len(boards))[:1500]]
    boards = np.concatenate([boards, flip(boards)])
    rolls = np.array([(a, b) for a in range(1, 7) for b in range(1, 7)], dtype=np.int64)
    batch = generate(np.repeat(flip(boards), 36, axis=0), np.tile(rolls, (len(boards), 1)))
    hit = np.zeros(len(boards) * 36, dtype=bool)
    bars = batch.positions[:, 25]  # results are seen by us again
    for k in range(len(hit)):
        lo, hi = batch.offsets[k], batch.offsets[k + 1]
        hit[k] = hi > lo and bars[lo:hi].max() > boards[k // 36, 25]
    legal = hit.reshape(-1, 36).sum(axis=1)
    ours = np.rint(EXTENDED.encode(boards)[:, EXTENDED.slices()["our_exposure"]][:, 0] * 36).astype(int)
    assert (legal > 0).sum() > 500  # plenty of positions with shots
    assert (ours >= legal).all()
    assert (ours == legal).mean() > 0.99


def test_anchors_prime_and_escapes_behind_a_full_prime():
    # Our 4..9 points: a 6-prime, with their two checkers on our 3 (their 22) right behind it.
    p = pos({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 24: 3}, {22: 2})
    e = enc1(EXTENDED, p)
    assert e["our_prime"][0] == 1.0 and e["our_prime_loc"][0] == pytest.approx(9 / 24)
    assert e["our_anchors"][0] == pytest.approx(1 / 3)  # our 24 point
    assert e["their_escapes"][0] == 0  # every first step lands on the prime
    assert e["our_escapes"][0] == 1.0  # nothing of theirs in front of our 24 within 12 pips
    assert e["their_prime"][0] == pytest.approx(1 / 6) and e["their_prime_loc"][0] == pytest.approx(22 / 24)
    assert e["their_anchors"][0] == pytest.approx(1 / 3)  # their 22 point: in our home board
    assert ext(pos({19: 2, 20: 2, 22: 2, 6: 9}, {1: 15}), "our_anchors") == 1.0


def test_prime_ties_take_the_lowest_run_and_no_points_give_zero():
    p = pos({2: 2, 3: 2, 10: 2, 11: 2, 13: 1, 14: 1, 15: 5}, {6: 15})
    assert ext(p, "our_prime") == pytest.approx(2 / 6) and ext(p, "our_prime_loc") == pytest.approx(3 / 24)
    q = pos({1: 1, 3: 1}, {1: 1})
    assert ext(q, "our_prime") == 0 and ext(q, "our_prime_loc") == 0
    s = enc1(EXTENDED, STARTING)  # single points only: the lowest, our 6
    assert s["our_prime"][0] == pytest.approx(1 / 6) and s["our_prime_loc"][0] == pytest.approx(6 / 24)


def test_escapes_count_rolls_that_move_the_back_checker_in_full():
    # Their point 6 pips in front of our back checker on 24 (their 7 = our 18): the rolls that
    # land on it (5-1, 4-2, 3-3 as two steps) and 6-6 (both steps via it) fail: 36 - 6 = 30.
    assert ext(pos({24: 1, 1: 14}, {7: 2}), "our_escapes") == pytest.approx(30 / 36)
    # The starting position: their points 5, 7 and 12 pips in front of our 24:
    # 4-1, 3-2, 6-1, 5-2, 4-3 (2 each), 6-6 (lands 12 away), 5-5 (via 5 only): 36 - 12 = 24.
    assert ext(STARTING, "our_escapes") == pytest.approx(24 / 36)
    # From the bar against a closed board: nothing.  With no checkers left: 36.
    closed = pos({25: 1, 6: 5}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2})
    assert ext(closed, "our_escapes") == 0
    assert ext(pos({}, {1: 2}), "our_escapes") == 1.0


def test_race_flag():
    assert ext(STARTING, "race") == 0
    assert ext(pos({1: 5, 2: 5, 3: 5}, {1: 5, 2: 5, 3: 5}), "race") == 1
    # Their checker on their 11 (our 14) has passed our rearmost checker on 13: race.
    assert ext(pos({13: 1, 1: 14}, {11: 1}), "race") == 1
    # Their checker on their 13 (our 12) still has to pass ours on 13: contact.
    assert ext(pos({13: 1, 1: 14}, {13: 1}), "race") == 0
    assert ext(pos({1: 15}, {25: 1}), "race") == 0  # a checker on the bar is still in contact
    assert ext(pos({25: 1}, {1: 15}), "race") == 0


# --- benchmark (not a test) -----------------------------------------------------------------------


def _reference_side_units(board: np.ndarray) -> dict[str, list[float]]:
    """The simple hand-crafted units of the side positive in ``board``, computed plainly in Python."""
    b = [int(v) for v in board]
    ours = {p: b[p] for p in range(1, 26) if b[p] > 0}
    theirs_pips = sum((25 - p) * -b[p] for p in range(0, 25) if b[p] < 0)
    pips = sum(p * n for p, n in ours.items())
    off = 15 - sum(ours.values())
    run = best = top = 0
    for p in range(1, 25):
        run = run + 1 if b[p] >= 2 else 0
        if run > best:
            best, top = run, p
    return {
        "pips": [pips / 167],
        "pip_lead": [max(0, theirs_pips - pips) / 167],
        "off3": [min(off, 5) / 5, min(max(off - 5, 0), 5) / 5, max(off - 10, 0) / 5],
        "home": [sum(n for p, n in ours.items() if p <= 6) / 15],
        "blots": [sum(1 for p, n in ours.items() if n == 1 and p <= 24) / 6],
        "anchors": [sum(1 for p in range(19, 25) if b[p] >= 2) / 3],
        "prime": [best / 6],
        "prime_loc": [top / 24],
    }


@settings(max_examples=100, deadline=None)
@given(legal_boards())
def test_each_named_extended_block_lands_in_its_columns(board):
    """The kernel's column offsets come from the one declaration: every named block holds its unit."""
    board = np.asarray(board, dtype=np.int8)
    for side, b in (("our", board), ("their", flip(board))):
        row = EXTENDED.encode(board)[0]
        for name, want in _reference_side_units(b).items():
            got = row[EXTENDED.slices()[f"{side}_{name}"]]
            np.testing.assert_allclose(got, want, atol=1e-6, err_msg=f"{side}_{name}")


def test_the_docstring_table_lists_every_extended_block():
    import bgnet.encoding as module

    for block in EXTENDED.blocks[list(EXTENDED.slices()).index("our_pips") :]:
        name = block.name.removeprefix("our_").removeprefix("their_")
        assert f"our_/their_{name}" in module.__doc__ and block.doc in module.__doc__


def test_race_inputs_of_a_hand_made_race():
    # Ours: 3 on the 6, 1 on the 5, 2 on the 9, 5 on the 20 (4 off); theirs: 14 on their 1, 1 on their 13.
    b = pos({6: 3, 5: 1, 9: 2, 20: 5}, {1: 14, 13: 1})
    e = enc1(RACE, b)
    pts = e["our_points"].reshape(24, 4)
    np.testing.assert_array_equal(pts[5], [0, 0, 1, 0])  # 3 checkers: n >= 3, (3 - 3) / 2 = 0
    np.testing.assert_array_equal(pts[4], [1, 0, 0, 0])
    np.testing.assert_array_equal(pts[8], [0, 1, 0, 0])
    np.testing.assert_array_equal(pts[19], [0, 0, 1, 1])  # 5 checkers: (5 - 3) / 2
    assert pts.sum() == 1 + 1 + 1 + 2
    np.testing.assert_array_equal(e["our_off"], np.eye(14)[3])  # exactly 4 off
    assert e["our_crossovers"][0] == pytest.approx((2 * 1 + 5 * 3) / 10)
    assert e["our_pips"][0] == pytest.approx((18 + 5 + 18 + 100) / 100)
    their = e["their_points"].reshape(24, 4)
    np.testing.assert_array_equal(their[0], [0, 0, 1, 5.5])
    np.testing.assert_array_equal(their[12], [1, 0, 0, 0])
    assert e["their_off"].sum() == 0 and e["their_crossovers"][0] == pytest.approx(0.2)


def _bench(n: int = 200_000, rounds: int = 5) -> None:
    """Positions per second of each encoder on one core, over the test file's positions."""
    boards = data_boards()
    boards = np.tile(boards, (n // len(boards) + 1, 1))[:n]
    for encoder in ENCODERS.values():
        out = np.empty((n, encoder.width), dtype=np.float32)
        encoder.encode(boards[:8], out)  # compile / load the cache
        best = min(_timed(encoder, boards, out) for _ in range(rounds))
        print(f"{encoder.name:12s} width {encoder.width:3d}: {n / best / 1e6:6.2f} M positions/s")


def _timed(encoder: Encoder, boards: np.ndarray, out: np.ndarray) -> float:
    t = time.perf_counter()
    encoder.encode(boards, out)
    return time.perf_counter() - t


if __name__ == "__main__":
    _bench()


# --- CONTACT: gnubg's contact inputs -------------------------------------------------------------


def con(position: Position, name: str) -> float:
    """One single-unit CONTACT block of a position."""
    (v,) = enc1(CONTACT, position)[name]
    return float(v)


def test_contact_is_extended_followed_by_18_units_a_side():
    assert CONTACT.extends == "extended" and get_encoder("contact") is CONTACT
    assert CONTACT.blocks[: len(EXTENDED.blocks)] == EXTENDED.blocks
    assert CONTACT.width == EXTENDED.width + 2 * 18
    boards = data_boards()
    np.testing.assert_array_equal(CONTACT.encode(boards)[:, : EXTENDED.width], EXTENDED.encode(boards))


def test_contact_units_of_the_starting_position_by_hand():
    s = enc1(CONTACT, STARTING)
    # Break contact: each checker's pips to pass their rearmost (on our 1 point) plus one:
    # 2 x 24 + 5 x 13 + 3 x 8 + 5 x 6 = 167 (gnubg's "152 + 15").
    assert s["our_break_contact"][0] == pytest.approx(1.0)
    assert s["our_free_pips"][0] == 0  # nothing of ours past their back checkers
    # Timing: the 13 point's 3 spares (3 x 12 = 36), the 8 point's 3 (3 x 7 = 21), the 6 point's 3
    # spares (3 x 5 = 15) = 72 pips; then the gaps of the home board filled from the spares left
    # (9, one of them short for the 1 point): 5 + 4 + 3 + 2 (0-based points 4..1) pips less = 52.
    assert s["our_timing"][0] == pytest.approx(0.52)
    assert s["our_back_checker"][0] == pytest.approx(23 / 24)
    assert s["our_back_anchor"][0] == pytest.approx(23 / 24)
    assert s["our_forward_anchor"][0] == pytest.approx(1 / 6)  # the 24 point: 1 from the end
    assert s["our_enter"][0] == 0  # nothing on the bar
    assert s["our_enter2"][0] == pytest.approx((36 - 25) / 36)  # one point closed in their board
    assert s["our_backgame1"][0] == pytest.approx(2 / 8) and s["our_backgame"][0] == 0
    for name in ("break_contact", "timing", "contain", "mobility", "backbone"):  # the start is symmetric
        assert s[f"our_{name}"][0] == s[f"their_{name}"][0]


def test_contact_free_pips_break_contact_moment_and_mobility_by_hand():
    # Two on our 13 point, 13 on our 1 point; their rearmost on their 20 point (our 5).
    p = pos({13: 2, 1: 13}, {20: 1, 6: 14})
    assert con(p, "our_break_contact") == pytest.approx(2 * (13 - 5 + 1) / 167)
    assert con(p, "our_free_pips") == pytest.approx(13 / 100)
    # Moment: mean point ceil((2 x 12 + 0) / 15) = 2 (0-based); beyond it the two at 12:
    # ceil(2 x 10^2 / 2) = 100.
    assert con(p, "our_moment2") == pytest.approx(100 / 400)
    # Mobility: the checkers outside our board, (12 - 5) x 2 checkers x 36 escapes (nothing in front).
    assert con(p, "our_mobility") == pytest.approx(7 * 2 * 36 / 3600)
    assert con(pos({6: 15}, {6: 15}), "our_moment2") == 0


def test_contact_containment_behind_a_full_prime():
    # Our 4..9 points: a 6-prime, with their two checkers on our 3 (their 22) right behind it.
    p = pos({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 24: 3}, {22: 2, 6: 13})
    assert con(p, "our_contain") == 1.0 and con(p, "our_contain_back") == 1.0
    assert con(p, "our_contain2") == 1.0 and con(p, "our_contain_back2") == 1.0
    assert con(p, "their_contain") < 1.0
    # Their rearmost checker in front of the prime's reach (their 10 point): nothing to contain behind it,
    # though the prime still contains a checker that would stand on their 16..24 points.
    q = pos({4: 2, 5: 2, 6: 2, 7: 2, 8: 2, 9: 2, 24: 3}, {10: 2, 6: 13})
    assert con(q, "our_contain_back") == 0 and con(q, "our_contain") == 1.0


def _entering_loss(closed: set[int], on_bar: int) -> int:
    """Pips of the 36 rolls lost by ``on_bar`` checkers that cannot enter against ``closed`` points."""
    loss = 0
    for a in range(1, 7):
        for b in range(1, 7):
            if a == b:
                loss += 4 * a if a in closed else 0
            elif on_bar == 1:
                loss += a + b if a in closed and b in closed else 0
            else:  # each die that cannot bring a checker in is lost
                loss += (a if a in closed else 0) + (b if b in closed else 0)
    return loss


@pytest.mark.parametrize("on_bar", [1, 2, 3])
@pytest.mark.parametrize("closed", [{1}, {2, 5}, {1, 2, 3, 6}, {1, 2, 3, 4, 5}, set()])
def test_contact_enter_is_the_pips_lost_on_the_bar_over_the_36_rolls(on_bar, closed):
    theirs = {p: 2 for p in closed}
    theirs[13] = 15 - 2 * len(closed)
    p = pos({25: on_bar, 6: 15 - on_bar}, theirs)
    assert con(p, "our_enter") == pytest.approx(_entering_loss(closed, on_bar) / (36 * 49 / 6))
    assert con(p, "our_enter2") == pytest.approx((36 - (len(closed) - 6) ** 2) / 36)
    assert con(pos({6: 15}, theirs), "our_enter") == 0


def test_contact_back_game_units():
    # Two points in their board (our 20 and 22) and one on the bar: 5 checkers there.
    p = pos({20: 2, 22: 2, 25: 1, 6: 10}, {6: 15})
    assert con(p, "our_backgame") == pytest.approx((5 - 3) / 4) and con(p, "our_backgame1") == 0
    q = pos({20: 3, 6: 12}, {6: 15})
    assert con(q, "our_backgame") == 0 and con(q, "our_backgame1") == pytest.approx(3 / 8)


def test_contact_back_rescapes_count_only_rolls_that_pass_the_nearest_block():
    # Their lone back checker on their 23 point (our 2), our only point 6 pips in front of it (our 8).
    p = pos({8: 15}, {23: 1, 6: 14})
    # Escapes: all but the rolls that land on it (5-1, 4-2, 3-3) and 6-6 (both steps via it): 30.
    assert ext(p, "their_escapes") == pytest.approx(30 / 36)
    # Past it as well: totals of 7 or more (6 + 5 + 4 + 3 + 2 + 1 = 21 rolls) but 6-6: 20.
    assert con(p, "our_back_rescapes") == pytest.approx(20 / 36)
