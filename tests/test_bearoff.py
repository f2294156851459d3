"""The one-sided bearoff database: index, distributions, race probabilities, cache, command.

The distributions are checked against a brute force written here from the
rules (its own bear-off move logic, cross-checked with the move generator),
against values worked out by hand, and against gnubg's one-sided database.
The database is the one built once per session by ``tests/conftest.py`` (the
cache is tested separately with the build stubbed out).
"""

from __future__ import annotations

import argparse
import json
import time
from functools import cache
from math import comb

import numpy as np
import pytest

from bgnet import bearoff
from bgnet.bearoff import FULL_BASE, N_FULL, N_POSITIONS, OneSidedBearoff, index_of, position_of
from bgnet.dice import ALL_ROLLS, ROLL_WEIGHTS
from bgnet.formats import position_id
from bgnet.movegen import generate
from bgnet.position import STARTING, Position, flip


@pytest.fixture(scope="module")
def db(bearoff_db) -> OneSidedBearoff:
    return bearoff_db


def race(ours: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """A board from checkers per point, each side numbering from its own side."""
    return Position.from_points(ours, theirs).board.copy()


def board_of(x: tuple[int, ...] | np.ndarray, y: tuple[int, ...] | np.ndarray) -> np.ndarray:
    """Our counts ``x`` on points 1..6, theirs ``y`` on their points 1..6."""
    b = np.zeros(26, dtype=np.int8)
    b[1:7] = x
    b[24:18:-1] = -np.asarray(y, dtype=np.int8)
    return b


# --------------------------------------------------------------------------- brute force


def _one_die(c: tuple[int, ...], d: int) -> list[tuple[int, ...]]:
    """Positions after playing one die ``d`` in a bear-off position ``c`` (c[i]: checkers on point i+1)."""
    out = []
    for p in range(1, 7):
        if c[p - 1] == 0:
            continue
        n = list(c)
        n[p - 1] -= 1
        if p > d:
            n[p - d - 1] += 1
        elif p < d and any(c[q - 1] for q in range(p + 1, 7)):
            continue  # a higher die bears off only from the highest point
        out.append(tuple(n))
    return out


def _plays(c: tuple[int, ...], hi: int, lo: int) -> set[tuple[int, ...]]:
    """Distinct results of a roll: as many dice as possible; with one die, the higher if it can."""
    if hi == lo:
        level = {c}
        for _ in range(4):
            nxt = {r for x in level for r in _one_die(x, hi)}
            if not nxt:
                break
            level = nxt
        return level if level != {c} else set()
    both = {r for a, b in ((hi, lo), (lo, hi)) for x in _one_die(c, a) for r in _one_die(x, b)}
    if both:
        return both
    return set(_one_die(c, hi)) or set(_one_die(c, lo))


@cache
def _brute(c: tuple[int, ...]) -> tuple[float, tuple[float, ...]]:
    """(expected rolls, distribution) by direct recursion, each roll minimising the expected rolls."""
    if sum(c) == 0:
        return 0.0, (1.0,)
    dist = np.zeros(32)
    mean = 1.0
    for dice, w in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
        options = [_brute(r) for r in _plays(c, dice.high, dice.low)]
        best = min(e for e, _ in options)
        tied = [np.pad(d, (0, 32 - len(d))) for e, d in options if e <= best + 1e-12]
        assert all(np.allclose(t, tied[0], rtol=0, atol=1e-12) for t in tied), "ambiguous tie"
        d = tied[0]
        dist[1:] += w * d[:-1]
        mean += w * best
    return mean, tuple(np.trim_zeros(dist, "b"))


def _small_positions(k: int) -> list[tuple[int, ...]]:
    return [tuple(int(v) for v in position_of(r)) for r in range(comb(k + 6, 6))]


def test_test_move_logic_agrees_with_the_move_generator():
    # Small positions, and a sample of all sizes; every roll.  Also shows that movegen handles an
    # empty opponent side.
    rng = np.random.default_rng(1)
    indices = np.concatenate([np.arange(comb(4 + 6, 6)), rng.integers(0, N_POSITIONS, 300)])
    counts = position_of(indices)
    dice = np.array([[d.high, d.low] for d in ALL_ROLLS])
    boards = np.zeros((len(counts), len(dice), 26), dtype=np.int8)
    boards[:, :, 1:7] = counts[:, None, :]
    batch = generate(boards.reshape(-1, 26), np.tile(dice, (len(counts), 1)))
    for i, c in enumerate(counts):
        for j, d in enumerate(ALL_ROLLS):
            seg = i * len(dice) + j
            rows = batch.positions[batch.offsets[seg] : batch.offsets[seg + 1]]
            assert (rows[:, 1:19] == 0).all() and (rows[:, 25] == 0).all() and (rows[:, 0] == 0).all()
            got = {tuple(int(v) for v in -r[24:18:-1]) for r in rows}
            assert len(got) == len(rows)
            want = _plays(tuple(int(v) for v in c), d.high, d.low)
            assert got == want, (c, d)


def test_distributions_match_the_brute_force_up_to_four_checkers(db):
    for c in _small_positions(4):
        mean, dist = _brute(c)
        got = db.distribution(np.array(c))
        np.testing.assert_allclose(got[: len(dist)], dist, atol=1e-12)
        assert not got[len(dist) :].any()
        assert db.expected_rolls(np.array(c)) == pytest.approx(mean, abs=1e-12)


# --------------------------------------------------------------------------- by hand


def test_known_one_sided_values(db):
    def dist(points: dict[int, int]) -> np.ndarray:
        return np.trim_zeros(db.distribution(race(points, {1: 1})), "b")

    # Nothing left: 0 rolls.  One or two checkers on the ace: every roll bears them off.
    assert list(db.distribution(np.zeros(6, np.int8))[:1]) == [1.0]
    np.testing.assert_allclose(dist({1: 1}), [0, 1], atol=1e-15)
    np.testing.assert_allclose(dist({1: 2}), [0, 1], atol=1e-15)
    # One checker on the 6 point bears off in one roll iff a die is a 6 or the two dice move it
    # 6 or more (the last step bears off: a higher die from the highest point).  Of the 36 rolls,
    # 26 have a + b >= 6 (the 10 with a + b <= 5: sums 2, 3, 4, 5 in 1 + 2 + 3 + 4 ways), and 2-2
    # also gets there (four 2s: 6/4/2/off): 27/36 = 3/4.  Otherwise it is on the 3 point or lower
    # and any roll finishes: P(2 rolls) = 1/4.
    np.testing.assert_allclose(dist({6: 1}), [0, 3 / 4, 1 / 4], atol=1e-15)
    # Two checkers on the 6 point in one roll: 12 pips with two checkers from the 6, so only the
    # doubles 3-3, 4-4, 5-5 and 6-6 (2-2 moves 8 pips; a non-double bears off at most one each
    # die, and only a 6 bears off from the 6 point): 4/36.
    assert db.distribution(race({6: 2}, {1: 1}))[1] == pytest.approx(4 / 36, abs=1e-15)
    # Fifteen on the ace: each roll takes off 2 checkers, or 4 with a double (1/6).  A plain
    # recursion on the checkers left gives the distribution.
    d = np.zeros((16, 12))
    d[0, 0] = 1.0
    for k in range(1, 16):
        d[k, 1:] = 5 / 6 * d[max(k - 2, 0), :-1] + 1 / 6 * d[max(k - 4, 0), :-1]
    got = db.distribution(race({1: 15}, {1: 1}))
    np.testing.assert_allclose(got[:12], d[15], atol=1e-14)
    assert got[4] == pytest.approx(6**-4)  # four doubles in a row are the only 4-roll finish


def test_known_first_checker_values(db):
    # Fifteen on the ace: the first roll takes one off.
    ace = db.first_distribution(np.array([15, 0, 0, 0, 0, 0]))
    np.testing.assert_allclose(np.trim_zeros(ace, "b"), [0, 1])
    # Fifteen on the 6 point: one comes off at once only with a 6 (11/36) or with the exact sum
    # 6 moved by one checker: 5-1, 4-2 (2 each), 3-3 and 2-2 (6/4/2/off): 17/36.  A higher die
    # cannot bear off from a lower point while the 6 point is occupied (5-2: 6/1 then no).
    assert db.first_distribution(np.array([0, 0, 0, 0, 0, 15]))[1] == pytest.approx(17 / 36, abs=1e-15)
    # 14 on the 6 and one on the 5: a 5 or a 6 on either die (20/36), 4-1 and 3-2 (5/1/off,
    # 5/2/off), 4-2 (6/2/off) (2 each), 3-3, 2-2: 28/36.
    assert db.first_distribution(np.array([0, 0, 0, 0, 1, 14]))[1] == pytest.approx(28 / 36, abs=1e-15)


# --------------------------------------------------------------------------- gnubg


@pytest.mark.slow
def test_distributions_agree_with_gnubg(db):
    # gnubg stores its distributions as 16-bit fractions and builds each level from the rounded
    # ones: up to 8 checkers they agree to its rounding; beyond, rounding flips a few near-ties
    # between plays (expectations within 2e-5 of each other), which moves probabilities by < 0.003.
    gnubg_nn = pytest.importorskip("gnubg_nn")
    positions = position_of(np.arange(N_POSITIONS))
    checkers = positions.astype(int).sum(axis=1)
    n = np.arange(db.rolls.shape[1])
    for r in range(1, N_POSITIONS):
        theirs = np.array(gnubg_nn.bearoff_probabilities(tuple(int(v) for v in positions[r])))
        ours = db.rolls[r]
        assert (ours[1 + len(theirs) :] < 1e-5).all()  # gnubg drops a tail that rounds to 0
        diff = np.abs(ours[1 : 1 + len(theirs)] - theirs).max()
        assert diff < (5e-5 if checkers[r] <= 8 else 5e-3), (positions[r], diff)
        assert abs(ours @ n - theirs @ np.arange(1, len(theirs) + 1)) < 3e-4, positions[r]


# --------------------------------------------------------------------------- tables


def test_the_index_is_a_bijection_onto_54264_positions():
    assert N_POSITIONS == comb(21, 6) == 54264
    assert N_FULL == comb(20, 5) == 15504 and FULL_BASE + N_FULL == N_POSITIONS
    positions = position_of(np.arange(N_POSITIONS))
    assert positions.dtype == np.int8 and (positions >= 0).all()
    assert len({tuple(p) for p in positions}) == N_POSITIONS
    assert (index_of(positions) == np.arange(N_POSITIONS)).all()
    checkers = positions.astype(int).sum(axis=1)
    assert checkers.max() == 15
    # Positions with at most k checkers are exactly the indices below C(k + 6, 6).
    for k in range(16):
        assert (checkers[: comb(k + 6, 6)] <= k).all() and (checkers[comb(k + 6, 6) :] > k).all()
    assert (position_of(0) == 0).all()
    assert (position_of(N_POSITIONS - 1) == [15, 0, 0, 0, 0, 0]).all()
    # The formula of the docstring, by hand: c = (1, 0, 2, 0, 0, 0): bars at 1, 2, 5, 6, 7, 8.
    assert index_of(np.array([1, 0, 2, 0, 0, 0])) == comb(1, 1) + comb(2, 2) + comb(5, 3) + sum(
        comb(p, j) for p, j in ((6, 4), (7, 5), (8, 6))
    )


def test_tables_are_distributions(db):
    assert db.rolls.shape[0] == N_POSITIONS and db.first.shape[0] == N_FULL
    np.testing.assert_allclose(db.rolls.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(db.first.sum(axis=1), 1.0, atol=1e-12)
    assert (db.rolls >= 0).all() and (db.first >= 0).all()
    assert db.rolls[0, 0] == 1.0 and not db.rolls[1:, 0].any()  # only the empty board needs 0 rolls
    assert not db.first[:, 0].any()
    # The first checker comes off no later than the last: P(first >= n) <= P(all >= n).
    surv_all = np.cumsum(db.rolls[FULL_BASE:, ::-1], axis=1)[:, ::-1]
    surv_first = np.cumsum(db.first[:, ::-1], axis=1)[:, ::-1]
    assert (surv_first <= surv_all[:, : surv_first.shape[1]] + 1e-12).all()
    # More checkers never finish sooner on average: adding a checker anywhere costs rolls.
    positions = position_of(np.arange(1, FULL_BASE))
    for p in range(6):
        more = positions.copy()
        more[:, p] += 1
        assert (db.expected_rolls(more) >= db.expected_rolls(positions) - 1e-12).all()


def test_expected_rolls_accepts_boards_and_counts(db):
    b = race({6: 2, 1: 3}, {2: 4})
    assert db.expected_rolls(b) == db.expected_rolls(np.array([3, 0, 0, 0, 0, 2]))
    assert isinstance(db.expected_rolls(b), float)
    assert db.expected_rolls(np.stack([b, b])).shape == (2,)
    with pytest.raises(ValueError):
        db.expected_rolls(np.array([16, 0, 0, 0, 0, 0]))
    with pytest.raises(ValueError):
        db.first_distribution(np.array([14, 0, 0, 0, 0, 0]))


# --------------------------------------------------------------------------- races


def test_covers_only_pure_bearoff_races():
    boards = np.stack(
        [
            race({6: 5, 1: 10}, {3: 15}),  # yes
            race({1: 1}, {6: 2}),  # yes (checkers off on both sides)
            race({6: 3}, {}),  # yes: the opponent has borne off all (the game is over)
            STARTING.board,  # contact
            race({6: 2, 7: 1}, {1: 2}),  # ours outside our home board
            race({6: 2}, {7: 1, 1: 2}),  # theirs outside theirs
            race({6: 2}, {24: 1}),  # theirs in our home board
            race({6: 2, 25: 1}, {1: 2}),  # ours on the bar
            race({6: 2}, {1: 2, 25: 1}),  # theirs on the bar
            race({6: 2, 19: 1}, {1: 2}),  # ours in their home board
        ]
    )
    assert OneSidedBearoff.covers(boards).tolist() == [True, True, True] + [False] * 7
    assert OneSidedBearoff.covers(boards[0]).shape == (1,)


def test_probabilities_refuse_uncovered_boards(db):
    with pytest.raises(ValueError, match="outside the bearoff database"):
        db.probabilities(np.stack([race({1: 1}, {1: 1}), STARTING.board]))


@cache
def _two_sided_win(x: tuple[int, ...], y: tuple[int, ...]) -> float:
    """P(win) of the side on roll with ``x`` against ``y``, both playing the brute force's policy."""
    w = 0.0
    for dice, p in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
        best = min(_plays(x, dice.high, dice.low), key=lambda r: _brute(r)[0])
        w += p * (1.0 if sum(best) == 0 else 1.0 - _two_sided_win(y, best))
    return w


@pytest.mark.slow
def test_win_probability_matches_a_two_sided_recursion(db):
    small = [c for c in _small_positions(3) if sum(c)]
    pairs = [(x, y) for x in small for y in small]
    probs = db.probabilities(np.stack([board_of(x, y) for x, y in pairs]))
    want = np.array([_two_sided_win(x, y) for x, y in pairs])
    np.testing.assert_allclose(probs[:, 0], want, atol=1e-12)
    assert not probs[:, 1:].any()  # nobody has 15 checkers: no gammons


def test_known_race_probabilities(db):
    p = db.probabilities(
        np.stack(
            [
                race({1: 1}, {6: 15}),  # we finish at once: a gammon
                race({6: 1}, {6: 15}),  # we finish in 1 roll (3/4) or 2 (1/4), they need >= 4
                race({6: 15}, {1: 1}),  # they finish at once: we lose, a gammon unless we take one off
                race({6: 14, 5: 1}, {1: 2}),
                race({2: 1}, {1: 1}),  # both finish in one roll: the side on roll wins
                race({6: 15}, {}),  # the opponent is off: lost, a gammon (as game.final_probabilities)
            ]
        )
    )
    np.testing.assert_allclose(p[0], [1, 1, 0, 0, 0], atol=1e-14)
    # Win gammon: 3/4 at once, or at the second roll if they took none off in their first (19/36).
    np.testing.assert_allclose(p[1], [1, 3 / 4 + 1 / 4 * 19 / 36, 0, 0, 0], atol=1e-14)
    np.testing.assert_allclose(p[2], [0, 0, 0, 19 / 36, 0], atol=1e-14)
    np.testing.assert_allclose(p[3], [0, 0, 0, 8 / 36, 0], atol=1e-14)
    np.testing.assert_allclose(p[4], [1, 0, 0, 0, 0], atol=1e-14)
    np.testing.assert_allclose(p[5], [0, 0, 0, 1, 0], atol=1e-14)


def _random_races(n: int, rng: np.random.Generator, full: bool = False) -> tuple[np.ndarray, np.ndarray]:
    lo = FULL_BASE if full else 1
    return rng.integers(lo, N_POSITIONS, n), rng.integers(lo, N_POSITIONS, n)


def test_probabilities_are_consistent(db):
    rng = np.random.default_rng(5)
    for full in (False, True):
        x, y = _random_races(3000, rng, full)
        px, py = position_of(x), position_of(y)
        boards = np.stack([board_of(a, b) for a, b in zip(px, py, strict=True)])
        p = db.probabilities(boards)
        assert p.shape == (len(boards), 5) and p.dtype == np.float64
        assert ((p >= -1e-12) & (p <= 1 + 1e-12)).all()
        assert (p[:, 1] <= p[:, 0] + 1e-12).all() and (p[:, 3] <= 1 - p[:, 0] + 1e-12).all()
        assert not p[:, 2].any() and not p[:, 4].any()
        # Seen from the other side (the opponent on roll): P(X <= Y) + P(Y <= X) = 1 + P(X = Y).
        q = db.probabilities(np.stack([flip(b) for b in boards]))
        tie = np.einsum("ij,ij->i", db.rolls[x], db.rolls[y])
        np.testing.assert_allclose(p[:, 0] + q[:, 0], 1 + tie, atol=1e-12)
        # Against itself the side on roll is the favourite.
        same = db.probabilities(np.stack([board_of(a, a) for a in px]))
        assert (same[:, 0] > 0.5).all()
        # Gammons only against a side with all 15 checkers on the board.
        assert not p[y < FULL_BASE, 1].any() and not p[x < FULL_BASE, 3].any()
        if full:
            assert p[:, 1].any() and p[:, 3].any()


def test_probabilities_of_10k_boards_take_well_under_a_second(db):
    rng = np.random.default_rng(9)
    x, y = _random_races(10_000, rng)
    boards = np.zeros((10_000, 26), dtype=np.int8)
    boards[:, 1:7] = position_of(x)
    boards[:, 24:18:-1] = -position_of(y)
    db.probabilities(boards[:100])
    start = time.perf_counter()
    p = db.probabilities(boards)
    elapsed = time.perf_counter() - start
    assert p.shape == (10_000, 5)
    assert elapsed < 0.5, f"{elapsed:.3f} s"


def test_the_build_takes_at_most_a_couple_of_minutes(bearoff_build_seconds):
    assert bearoff_build_seconds < 120


# --------------------------------------------------------------------------- cache


@pytest.fixture
def counted_build(db, monkeypatch):
    """Stub the build with the session's tables, counting calls."""
    calls = []

    def fake():
        calls.append(1)
        return db.rolls.copy(), db.first.copy()

    monkeypatch.setattr(bearoff, "build_tables", fake)
    return calls


def test_cache_is_written_once_and_reloaded(tmp_path, counted_build, db):
    path = tmp_path / "bo.npz"
    first = OneSidedBearoff.load_or_build(path)
    assert counted_build == [1] and path.exists() and first.path == path
    assert [p.name for p in path.parent.iterdir()] == ["bo.npz"]  # no temporary file left
    again = OneSidedBearoff.load_or_build(str(path))
    assert counted_build == [1]
    np.testing.assert_array_equal(again.rolls, db.rolls)
    np.testing.assert_array_equal(again.first, db.first)
    OneSidedBearoff.load_or_build(path, rebuild=True)
    assert counted_build == [1, 1]


def test_cache_is_rebuilt_when_stale_or_corrupt(tmp_path, monkeypatch, counted_build, db):
    monkeypatch.setenv("BGNET_CACHE", str(tmp_path))
    path = tmp_path / bearoff.FILE_NAME
    np.savez(path, version=np.array("bgnet-bearoff-os15-v0"), rolls=db.rolls, first=db.first)
    OneSidedBearoff.load_or_build()
    assert len(counted_build) == 1
    with np.load(path) as z:
        assert str(z["version"]) == bearoff.VERSION
    path.write_bytes(b"not a zip file")  # the cache's own file: rebuilt
    OneSidedBearoff.load_or_build()
    assert len(counted_build) == 2
    np.savez(path, version=np.array(bearoff.VERSION), rolls=db.rolls[:10], first=db.first)
    OneSidedBearoff.load_or_build(path)  # a bgnet database given by path: rebuilt too
    assert len(counted_build) == 3
    OneSidedBearoff.load_or_build(path)
    assert len(counted_build) == 3


def test_a_path_given_is_never_a_file_of_another_kind_nor_a_new_folder(tmp_path, counted_build):
    other = tmp_path / "notes.txt"
    other.write_text("my notes\n")
    with pytest.raises(bearoff.BearoffFileError, match="is not a bgnet bearoff database"):
        OneSidedBearoff.load_or_build(other)
    with pytest.raises(bearoff.BearoffFileError, match="is not a bgnet bearoff database"):
        OneSidedBearoff.load_or_build(tmp_path)  # a folder
    missing = tmp_path / "no" / "such" / "bo.npz"
    with pytest.raises(bearoff.BearoffFileError, match="the folder .* does not exist"):
        OneSidedBearoff.load_or_build(missing)
    assert counted_build == []  # refused before building
    assert other.read_text() == "my notes\n" and not (tmp_path / "no").exists()
    db = OneSidedBearoff.build()
    with pytest.raises(bearoff.BearoffFileError):
        db.save(other)
    with pytest.raises(bearoff.BearoffFileError):
        db.save(missing)
    assert other.read_text() == "my notes\n" and not (tmp_path / "no").exists()


def test_an_unwritable_cache_warns_and_still_answers(tmp_path, monkeypatch, counted_build):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("BGNET_CACHE", str(tmp_path / "file" / "cache"))
    with pytest.warns(UserWarning, match="cannot cache"):
        db = OneSidedBearoff.load_or_build()
    assert db.path is None and db.expected_rolls(np.array([1, 0, 0, 0, 0, 0])) == 1.0


def test_default_cache_path(tmp_path, monkeypatch, counted_build):
    monkeypatch.setenv("BGNET_CACHE", str(tmp_path / "c"))
    assert bearoff.default_path() == tmp_path / "c" / "bearoff-os15.npz"
    assert OneSidedBearoff.load_or_build().path == tmp_path / "c" / "bearoff-os15.npz"
    assert (tmp_path / "c" / "bearoff-os15.npz").exists()
    monkeypatch.delenv("BGNET_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert bearoff.default_path() == tmp_path / "x" / "bgnet" / "bearoff-os15.npz"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert bearoff.default_path() == tmp_path / "h" / ".cache" / "bgnet" / "bearoff-os15.npz"


# --------------------------------------------------------------------------- command


def _run(argv: list[str]) -> int:
    from bgnet.commands import bearoff as command

    parser = argparse.ArgumentParser(prog="bgnet")
    command.register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return args.func(args)


def test_command_build_and_show(tmp_path, counted_build, capsys):
    path = str(tmp_path / "bo.npz")
    assert _run(["bearoff", "build", "--path", path]) == 0
    assert path in capsys.readouterr().out and counted_build == [1]
    pid = position_id(race({6: 1}, {6: 15}))
    assert _run(["bearoff", "show", pid, "--path", path, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert counted_build == [1]
    assert doc["on_roll"]["checkers"] == {"6": 1} and doc["on_roll"]["rolls"] == [0.0, 0.75, 0.25]
    assert doc["opponent"]["checkers"] == {"6": 15}
    assert doc["probabilities"][:2] == [1.0, round(3 / 4 + 19 / 144, 6)]
    assert _run(["bearoff", "show", pid, "--path", path]) == 0
    assert "expected rolls 1.2500" in capsys.readouterr().out


def test_command_show_refuses_a_contact_position(tmp_path):
    from bgnet.errors import BgnetError

    with pytest.raises(BgnetError, match="not a bear-off race"):
        _run(["bearoff", "show", position_id(STARTING.board), "--path", str(tmp_path / "x.npz")])


def test_command_refuses_a_path_that_is_not_a_database_or_has_no_folder(tmp_path, counted_build):
    from bgnet.errors import BgnetError

    game = tmp_path / "game.mat"
    game.write_text("; a match file\n")
    pid = position_id(race({6: 1}, {6: 15}))
    with pytest.raises(BgnetError, match="game.mat exists and is not a bgnet bearoff database"):
        _run(["bearoff", "show", pid, "--path", str(game)])
    with pytest.raises(BgnetError, match="game.mat exists and is not a bgnet bearoff database"):
        _run(["bearoff", "build", "--path", str(game)])
    missing = tmp_path / "nonexistent" / "x"
    with pytest.raises(BgnetError, match="nonexistent does not exist"):
        _run(["bearoff", "build", "--path", str(missing)])
    with pytest.raises(BgnetError, match="nonexistent does not exist"):
        _run(["bearoff", "show", pid, "--path", str(missing)])
    assert game.read_text() == "; a match file\n" and not missing.parent.exists()
    assert counted_build == []


@pytest.mark.parametrize(
    ("board", "who"),
    [
        (Position.from_points({}, {}).board, "neither side"),
        (Position.from_points({}, {1: 3}).board, "the side on roll"),
        (Position.from_points({2: 1}, {}).board, "the opponent"),
    ],
)
def test_command_show_refuses_a_finished_game(board, who):
    from bgnet.errors import BgnetError

    with pytest.raises(BgnetError, match=f"the game is over: {who}"):
        _run(["bearoff", "show", position_id(board)])
