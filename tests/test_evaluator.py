"""n-ply evaluation: hand-computed cases, a brute-force reference, filters, passes, finished games."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
import torch

from bgnet.dice import ALL_ROLLS, ROLL_WEIGHTS
from bgnet.encoding import get_encoder
from bgnet.evaluator import (
    DEFAULT_FILTERS,
    FunctionEvaluator,
    MoveFilter,
    NetEvaluator,
    segment_argmin,
)
from bgnet.formats import board_from_position_id
from bgnet.game import final_probabilities
from bgnet.lockstep import duel, play_match
from bgnet.movegen import MoveBatch, generate
from bgnet.network import ValueNet
from bgnet.position import STARTING
from bgnet.position import flip as flip_board
from bgnet.probabilities import equity
from bgnet.probabilities import flip as flip_probs
from tests.boards import pos

DATA = Path(__file__).resolve().parent / "data" / "movegen_positions.txt"
EVERYTHING = (MoveFilter(keep=10**9, window=math.inf),)


# ---------------------------------------------------------------------------
# Known 0-ply functions


def pips(boards: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ours, theirs) pip counts of (N, 26) boards."""
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 26)
    idx = np.arange(26)
    return (np.maximum(b, 0) * idx).sum(1), (np.maximum(-b, 0) * (25 - idx)).sum(1)


def pip_fn(boards: np.ndarray) -> np.ndarray:
    """Win for the side on roll = 0.5 + 0.1 x (their pips - our pips), clipped; no gammons."""
    ours, theirs = pips(boards)
    out = np.zeros((len(ours), 5))
    out[:, 0] = np.clip(0.5 + 0.1 * (theirs - ours), 0, 1)
    return out


_W = np.random.default_rng(7).normal(size=(3, 52)) / 4


def linear_fn(boards: np.ndarray, weights: np.ndarray = _W) -> np.ndarray:
    """Consistent probabilities from random linear functions of the checker counts (gammons included)."""
    b = np.asarray(boards, dtype=np.float64).reshape(-1, 26)
    x = np.concatenate([np.maximum(b, 0), np.maximum(-b, 0)], axis=1)
    z = 1 / (1 + np.exp(-(x @ weights.T)))
    win = z[:, 0]
    wg = win * z[:, 1] * 0.5
    lg = (1 - win) * z[:, 2] * 0.5
    return np.stack([win, wg, 0.2 * wg, lg, 0.2 * lg], axis=1)


def random_net(seed: int = 0) -> NetEvaluator:
    torch.manual_seed(seed)
    enc = get_encoder("extended")
    return NetEvaluator(ValueNet(enc.width, [32]), enc)


def data_boards(kind: str, n: int) -> np.ndarray:
    seen, out = set(), []
    for line in DATA.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        pid, _roll, k = line.split()
        if k == kind and pid not in seen:
            seen.add(pid)
            out.append(board_from_position_id(pid))
            if len(out) == n:
                break
    return np.array(out, dtype=np.int8)


def consistent(p: np.ndarray, tol: float = 1e-6) -> bool:
    w, wg, wbg, lg, lbg = p.T
    return bool(
        (p >= -tol).all()
        and (w <= 1 + tol).all()
        and (wbg <= wg + tol).all()
        and (wg <= w + tol).all()
        and (lbg <= lg + tol).all()
        and (lg <= 1 - w + tol).all()
    )


# ---------------------------------------------------------------------------
# A brute-force reference: recursion, one roll at a time, no batching


def static(fn, boards: np.ndarray) -> np.ndarray:
    """0-ply values: exact where the game is over, else ``fn``."""
    over, exact = final_probabilities(boards)
    return np.where(over[:, None], exact, np.asarray(fn(boards), dtype=np.float32))


def reference(fn, board: np.ndarray, ply: int, full: bool, memo: dict, pick=None) -> np.ndarray:
    """The n-ply value for the side on roll; ``full``: replies picked by their (n-1)-ply value, else 0-ply
    (by ``pick``'s 0-ply values at the last ply when given: an evaluator's screen)."""
    key = (board.tobytes(), ply)
    if key in memo:
        return memo[key]
    over, exact = final_probabilities(board[None])
    if over[0]:
        v = exact[0]
    elif ply == 0:
        v = np.asarray(fn(board[None]), dtype=np.float32)[0]
    else:
        total = np.zeros(5)
        for d, w in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
            res = generate(board[None], np.array([[d.high, d.low]])).positions
            if len(res) == 0:
                v = flip_probs(reference(fn, flip_board(board), ply - 1, full, memo, pick))
            elif full:
                vals = np.array([flip_probs(reference(fn, r, ply - 1, full, memo, pick)) for r in res])
                v = vals[int(np.argmax(equity(vals)))]
            else:
                v0 = flip_probs(static(pick if pick is not None and ply == 1 else fn, res))
                best = res[int(np.argmax(equity(v0)))]
                v = flip_probs(reference(fn, best, ply - 1, full, memo, pick))
            total += w * v
        v = total.astype(np.float32)
    memo[key] = v
    return v


# ---------------------------------------------------------------------------
# Hand-computed: one checker each on the 6 point (14 off each)

# The rolls that do not bear a lone checker off the 6 point, their weight (x 36) and
# where the checker lands: 2-1, 3-1, 4-1, 3-2 (2/36 each) and 1-1 (1/36, four pips).
NOT_OFF = {(2, 1): (2, 3), (3, 1): (2, 2), (4, 1): (2, 1), (3, 2): (2, 1), (1, 1): (1, 2)}


def test_one_checker_race_at_1_and_2_ply_matches_the_hand_computation():
    board = pos({6: 1}, {6: 1}).board
    ev = FunctionEvaluator(pip_fn)
    # 1-ply: 27/36 of the rolls bear off (a win); otherwise the opponent, on roll with
    # 6 pips against our L, is worth 0.5 + 0.1 (L - 6) to them.
    one = 27 / 36 + sum(w / 36 * (1 - (0.5 + 0.1 * (land - 6))) for w, land in NOT_OFF.values())
    # 2-ply: after our miss the opponent bears off with 27/36 (we lose a single game),
    # else we are on roll with our L1 against their L2: 0.5 + 0.1 (L2 - L1).
    two = 27 / 36 + sum(
        w1 / 36 * w2 / 36 * (0.5 + 0.1 * (l2 - l1))
        for w1, l1 in NOT_OFF.values()
        for w2, l2 in NOT_OFF.values()
    )
    assert one == pytest.approx(35.3 / 36)
    for inner in ((MoveFilter(1, 0.0),), ()):
        ev = FunctionEvaluator(pip_fn, inner=inner)
        got = ev.probabilities(board[None], 1)[0]
        np.testing.assert_allclose(got, [one, 0, 0, 0, 0], atol=1e-6)
        got = ev.probabilities(board[None], 2)[0]
        np.testing.assert_allclose(got, [two, 0, 0, 0, 0], atol=1e-6)
    # 0-ply is the function itself.
    np.testing.assert_allclose(ev.probabilities(board[None])[0], [0.5, 0, 0, 0, 0], atol=1e-7)


def test_a_race_that_ends_within_two_rolls_is_exact_at_2_ply_whatever_the_function():
    # We bear off from the 6 with 27/36; else they bear off their last checker from their 1 point.
    board = pos({6: 1}, {1: 1}).board
    for fn in (pip_fn, linear_fn):
        got = FunctionEvaluator(fn).probabilities(board[None], 2)[0]
        np.testing.assert_allclose(got, [0.75, 0, 0, 0, 0], atol=1e-6)


def test_a_gammon_is_flipped_to_the_right_side():
    # Our last checker on the 1 point, the opponent has borne off nothing: every roll wins a gammon;
    # with one of theirs on their 20 point (our 5, in our home board) it is a backgammon.
    gammon = pos({1: 1}, {6: 15}).board
    backgammon = pos({1: 1}, {6: 14, 20: 1}).board
    ev = FunctionEvaluator(linear_fn)
    for ply in (1, 2):
        np.testing.assert_allclose(ev.probabilities(gammon[None], ply)[0], [1, 1, 0, 0, 0], atol=1e-7)
        np.testing.assert_allclose(ev.probabilities(backgammon[None], ply)[0], [1, 1, 1, 0, 0], atol=1e-7)


# ---------------------------------------------------------------------------
# Against the brute-force reference


@pytest.mark.parametrize("kind", ["strong", "bearoff_hit", "bar_vs_board"])
def test_1_ply_matches_the_reference(kind):
    boards = data_boards(kind, 4)
    ev = FunctionEvaluator(linear_fn)
    got = ev.probabilities(boards, 1)
    memo: dict = {}
    want = np.array([reference(linear_fn, b, 1, True, memo) for b in boards])
    np.testing.assert_allclose(got, want, atol=2e-6)


@pytest.mark.slow
@pytest.mark.parametrize("full", [False, True])
def test_2_ply_matches_the_reference_with_gnubg_style_and_full_expectimax_replies(full):
    boards = np.concatenate([data_boards("bearoff_hit", 2), data_boards("bar_vs_board", 1)])
    if not full:
        boards = np.concatenate([boards, data_boards("strong", 1)])
    ev = FunctionEvaluator(linear_fn, inner=() if full else (MoveFilter(1, 0.0),))
    got = ev.probabilities(boards, 2)
    memo: dict = {}
    want = np.array([reference(linear_fn, b, 2, full, memo) for b in boards])
    np.testing.assert_allclose(got, want, atol=2e-6)


_W2 = np.random.default_rng(8).normal(size=(3, 52)) / 4


def other_linear_fn(boards: np.ndarray) -> np.ndarray:
    """:func:`linear_fn` with other weights: a screen that often picks other plays than linear_fn would."""
    return linear_fn(boards, _W2)


def test_a_screen_picks_the_replies_of_the_last_ply_and_the_evaluator_values_them():
    boards = np.concatenate([data_boards(kind, 3) for kind in ("strong", "bearoff_hit", "bar_vs_board")])
    ev = FunctionEvaluator(linear_fn)
    plain = ev.probabilities(boards, 1)
    with ev.screened(FunctionEvaluator(other_linear_fn)):
        got = ev.probabilities(boards, 1)
        two = ev.probabilities(boards[:2], 2)
    assert ev.screen is None, "the screen is set for the block only"
    memo: dict = {}
    want = np.array([reference(linear_fn, b, 1, False, memo, other_linear_fn) for b in boards])
    np.testing.assert_allclose(got, want, atol=2e-6)
    # the screen's picks are worse by linear_fn's own values: never better, here worse somewhere
    assert (equity(got) <= equity(plain) + 1e-6).all() and (equity(got) < equity(plain) - 1e-4).any()
    # at 2-ply the screen picks only the last ply's replies; the first ply's plays are the evaluator's
    want2 = np.array([reference(linear_fn, b, 2, False, memo, other_linear_fn) for b in boards[:2]])
    np.testing.assert_allclose(two, want2, atol=2e-6)
    assert np.abs(two - ev.probabilities(boards[:2], 2)).max() > 1e-4
    # a screen that values as the evaluator does picks the same replies: the same 1-ply values
    with ev.screened(FunctionEvaluator(linear_fn)):
        np.testing.assert_allclose(ev.probabilities(boards, 1), plain, atol=1e-6)


def test_the_inner_filter_with_room_for_every_play_is_the_full_expectimax():
    boards = data_boards("bearoff_hit", 3)
    full = FunctionEvaluator(linear_fn, inner=())
    everything = FunctionEvaluator(linear_fn, inner=EVERYTHING)
    np.testing.assert_array_equal(full.probabilities(boards, 2), everything.probabilities(boards, 2))


# ---------------------------------------------------------------------------
# Ranking and the move filter


def start_batch(dice: tuple[int, int]) -> MoveBatch:
    return generate(STARTING.board[None], np.array([dice]))


def test_ranking_at_1_ply_on_the_starting_position_reorders_the_same_plays():
    ev = random_net()
    batch = start_batch((3, 1))
    n = len(batch.positions)
    zero = ev.rank(batch, 0)
    np.testing.assert_array_equal(zero, flip_probs(ev.probabilities(batch.positions)))
    probs, plies = ev.rank(batch, 1, (MoveFilter(keep=3, window=math.inf),), with_plies=True)
    assert probs.shape == (n, 5) and consistent(probs)
    order0 = np.argsort(-equity(zero), kind="stable")
    order1 = np.lexsort((-equity(probs), -plies))
    assert sorted(order1.tolist()) == sorted(order0.tolist()) == list(range(n))
    # The three best at 0-ply went on to 1-ply; the others kept their 0-ply value.
    deep = np.flatnonzero(plies == 1)
    assert sorted(deep.tolist()) == sorted(order0[:3].tolist())
    np.testing.assert_allclose(probs[deep], flip_probs(ev.probabilities(batch.positions[deep], 1)), atol=1e-6)
    rest = plies == 0
    np.testing.assert_array_equal(probs[rest], zero[rest])
    # choose picks the best of the deepest rows.
    row = ev.choose(batch, None, 1, (MoveFilter(keep=3, window=math.inf),))[0]
    assert row == deep[np.argmax(equity(probs[deep]))]


def test_the_filter_keeps_at_most_keep_plays_and_only_those_within_the_window():
    boards = data_boards("strong", 40)
    rng = np.random.default_rng(3)
    dice = rng.integers(1, 7, size=(len(boards), 2))
    batch = generate(boards, dice)
    ev = FunctionEvaluator(linear_fn)
    f = MoveFilter(keep=4, window=0.1, accept=2)
    zero = equity(ev.rank(batch, 0))
    _, plies = ev.rank(batch, 1, (f,), with_plies=True)
    _, default_plies = ev.rank(batch, 1, with_plies=True)
    for i in range(len(boards)):
        lo, hi = batch.offsets[i], batch.offsets[i + 1]
        if lo == hi:
            continue
        eq = zero[lo:hi]
        kept = np.flatnonzero(plies[lo:hi] == 1)
        assert min(2, hi - lo) <= len(kept) <= 4
        best_first = np.argsort(-eq, kind="stable")
        assert sorted(kept.tolist()) == sorted(best_first[: len(kept)].tolist())
        beyond_accept = best_first[2 : len(kept)]
        assert (eq[beyond_accept] >= eq.max() - 0.1).all()
        # gnubg's default: up to 8 within 0.16.
        d = np.flatnonzero(default_plies[lo:hi] == 1)
        assert 1 <= len(d) <= 8 and (eq[d] >= eq.max() - 0.16 - 1e-6).all()


def test_rank_at_2_ply_skips_1_ply_with_the_default_filter_and_values_survivors_at_2_ply():
    ev = FunctionEvaluator(linear_fn)
    batch = start_batch((6, 5))
    probs, plies = ev.rank(batch, 2, with_plies=True)
    assert set(plies.tolist()) <= {0, 2}
    deep = np.flatnonzero(plies == 2)
    assert 1 <= len(deep) <= DEFAULT_FILTERS[0].keep
    np.testing.assert_allclose(probs[deep], flip_probs(ev.probabilities(batch.positions[deep], 2)), atol=1e-6)


@pytest.mark.slow
def test_choose_at_ply_0_is_the_one_forward_argmin_the_trainer_uses():
    ev = random_net(1)
    boards = data_boards("strong", 30)
    dice = np.random.default_rng(0).integers(1, 7, size=(len(boards), 2))
    batch = generate(boards, dice)
    want = segment_argmin(equity(ev.probabilities(batch.positions)), batch.offsets)
    np.testing.assert_array_equal(ev.choose(batch, np.zeros(len(boards), dtype=np.int64)), want)
    # At higher plies the choice is one of the roll's rows, or -1 for a pass.
    empty = batch.offsets[:-1] == batch.offsets[1:]
    assert empty.any()
    for ply in (1, 2):
        rows = ev.choose(batch, None, ply)
        assert (rows[empty] == -1).all()
        assert ((rows >= batch.offsets[:-1]) & (rows < batch.offsets[1:]))[~empty].all()


def test_segment_argmin_handles_empty_segments_and_ties():
    values = np.array([3.0, 1.0, 1.0, 5.0, 2.0])
    offsets = np.array([0, 3, 3, 5])
    np.testing.assert_array_equal(segment_argmin(values, offsets), [1, -1, 4])
    np.testing.assert_array_equal(segment_argmin(np.zeros(0), np.array([0, 0])), [-1])


# ---------------------------------------------------------------------------
# Probabilities stay probabilities


def test_deeper_probabilities_are_consistent_and_of_the_right_shape():
    ev = random_net(2)
    boards = np.concatenate([STARTING.board[None], data_boards("strong", 3), data_boards("bearoff_hit", 2)])
    for ply in (0, 1, 2):
        p = ev.probabilities(boards, ply)
        assert p.shape == (len(boards), 5) and p.dtype == np.float32
        assert consistent(p)
    batch = start_batch((4, 2))
    assert consistent(ev.rank(batch, 2))
    assert ev.probabilities(np.zeros((0, 26), np.int8), 2).shape == (0, 5)


# ---------------------------------------------------------------------------
# Passes and finished games


def test_a_roll_with_no_legal_play_passes_to_the_opponent():
    # A checker on our bar against their closed board: every roll passes.
    closed = pos({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}).board
    assert (
        len(
            generate(np.repeat(closed[None], 21, 0), np.array([(d.high, d.low) for d in ALL_ROLLS])).positions
        )
        == 0
    )
    ev = FunctionEvaluator(linear_fn)
    for ply in (1, 2):
        want = flip_probs(ev.probabilities(flip_board(closed)[None], ply - 1))[0]
        np.testing.assert_allclose(ev.probabilities(closed[None], ply)[0], want, atol=1e-6)
    # Their 1..5 points closed: only a 6 (our 19 point) enters; the other rolls pass.
    five = pos({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5}).board
    memo: dict = {}
    for ply in (1, 2):
        want = reference(linear_fn, five, ply, False, memo)
        np.testing.assert_allclose(ev.probabilities(five[None], ply)[0], want, atol=2e-6)
    batch = generate(np.repeat(five[None], 2, 0), np.array([[5, 4], [6, 1]]))
    for ply in (0, 1, 2):
        rows = ev.choose(batch, None, ply)
        assert rows[0] == -1 and rows[1] >= 0


def test_finished_games_are_exact_at_every_ply():
    boards = np.stack(
        [
            pos({6: 3}, {}).board,  # they bore off; we have 3 left: a single loss
            pos({6: 15}, {}).board,  # gammoned
            pos({6: 14, 20: 1}, {}).board,  # backgammoned (a checker in their home board)
            pos({25: 1, 6: 14}, {}).board,  # backgammoned (on the bar)
        ]
    )
    want = final_probabilities(boards)[1]
    for ev in (random_net(), FunctionEvaluator(linear_fn)):
        for ply in (0, 1, 2):
            np.testing.assert_array_equal(ev.probabilities(boards, ply), want)
    # A roll that bears off the last checker is valued exactly for the mover.
    batch = generate(pos({2: 1}, {6: 15}).board[None], np.array([[6, 5]]))
    for ply in (0, 1, 2):
        np.testing.assert_array_equal(random_net().rank(batch, ply), [[1, 1, 0, 0, 0]])


# ---------------------------------------------------------------------------
# Bearoff databases


class FakeBearoff:
    """The API of bgnet.bearoff.OneSidedBearoff with a marker value: no contact, everyone home."""

    MARK = np.array([0.3, 0.1, 0.0, 0.05, 0.0], dtype=np.float32)

    def __init__(self) -> None:
        self.calls = 0

    def covers(self, boards: np.ndarray) -> np.ndarray:
        b = np.asarray(boards).reshape(-1, 26)
        ours_out = (b[:, 7:26] > 0).any(1)
        theirs_out = (b[:, 0:19] < 0).any(1)
        return ~ours_out & ~theirs_out

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        assert self.covers(boards).all()
        self.calls += 1
        return np.repeat(self.MARK[None], len(boards), 0)


def no_covered(db):
    def fn(boards):
        assert not db.covers(boards).any(), "the 0-ply function saw a covered board"
        return linear_fn(boards)

    return fn


def test_covered_boards_use_the_bearoff_database_at_every_ply():
    db = FakeBearoff()
    covered = np.stack([pos({1: 3, 2: 2}, {1: 4}).board, pos({6: 15}, {5: 2}).board])
    evs = [FunctionEvaluator(no_covered(db), bearoff=db), random_net()]
    evs[1].bearoff = db
    for ev in evs:
        for ply in (0, 1, 2):
            np.testing.assert_array_equal(ev.probabilities(covered, ply), np.repeat(db.MARK[None], 2, 0))


def test_lookahead_reaches_bearoff_positions_and_uses_their_value():
    # Our last checker on the 7 point (not covered); every roll either bears it off or brings it home.
    db = FakeBearoff()
    board = pos({7: 1}, {3: 2}).board
    ev = FunctionEvaluator(no_covered(db), bearoff=db)
    want = np.zeros(5)
    for d, w in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
        pips = d.high + d.low if d.high != d.low else 4 * d.high
        want += w * (np.array([1, 0, 0, 0, 0]) if pips >= 7 else flip_probs(db.MARK))
    for ply in (1, 2):
        np.testing.assert_allclose(ev.probabilities(board[None], ply)[0], want, atol=1e-6)
    assert db.calls > 0
    # Ranking: every non-winning play of 2-1 lands in the database.
    batch = generate(board[None], np.array([[2, 1]]))
    np.testing.assert_allclose(
        ev.rank(batch, 1), np.repeat(flip_probs(db.MARK)[None], len(batch.positions), 0)
    )


def test_the_real_bearoff_database_plugs_in_when_its_cache_is_built():
    bearoff = pytest.importorskip("bgnet.bearoff")
    if not bearoff.default_path().exists():
        pytest.skip("bearoff database not built (bgnet.bearoff.OneSidedBearoff.load_or_build())")
    db = bearoff.OneSidedBearoff.load_or_build()
    board = pos({1: 2, 2: 2, 3: 1}, {1: 2, 4: 1}).board
    assert db.covers(board[None])[0]
    ev = FunctionEvaluator(no_covered(db), bearoff=db)
    for ply in (0, 1):
        np.testing.assert_allclose(
            ev.probabilities(board[None], ply), db.probabilities(board[None]), atol=1e-6
        )


# ---------------------------------------------------------------------------
# Use as a chooser


def test_a_1_ply_chooser_plays_games_against_a_0_ply_one():
    ev = FunctionEvaluator(linear_fn)
    points = play_match((ev.chooser(1), ev.chooser(0)), 2, np.random.default_rng(5), slots=2)
    assert len(points) == 2 and set(np.abs(points).tolist()) <= {1, 2, 3}
    assert callable(duel((ev.chooser(2), ev.choose)))
