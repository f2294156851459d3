"""The general variant kernel and the whole turns of Variant.generate, checked against other code.

``Variant.generate`` hands backgammon to the specialised kernels, so the
general kernel's backgammon is checked here: same result sets, roll by roll,
on positions of random games (the specialised kernels are themselves checked
against gnubg's generator in tests/test_movegen_differential.py).

Acey-deucey's entering is checked against the bar (under the enter-all
house rule a waiting checker is exactly a checker on the bar), and its
1-2 turns for consistency: steps replayed by hand give the row's position,
in the perspective of the side on roll next, checkers kept, one row per
(position, again), and mixed batches keep each input's rows.  The
rule-by-rule tests on named positions are in tests/test_variants_rules.py.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from bgnet import variants
from bgnet.errors import InvalidPositionError
from bgnet.lockstep import Lockstep
from bgnet.movegen import MoveBatch
from bgnet.movegen import generate as standard
from bgnet.variants import OUR_WAITING, THEIR_WAITING, VARIANTS, variant

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def test_the_general_kernel_plays_backgammon_as_movegen_does():
    rng = np.random.default_rng(7)
    engine = Lockstep(32, 64, rng, record=True)

    def random_play(batch, player):
        sizes = np.diff(batch.offsets)
        pick = (rng.random(len(sizes)) * np.maximum(sizes, 1)).astype(np.int64)
        return np.where(sizes > 0, batch.offsets[:-1] + pick, -1)

    boards = []
    while engine.running:
        boards += [g.history for g in engine.step(random_play)]
    b = np.concatenate(boards)[:3000]
    dice = rng.integers(1, 7, size=(len(b), 2))
    ours = variants.generate(variants.widen(b), dice, variants.VARIANTS["backgammon"].rules)
    theirs = standard(b, dice)
    assert len(b) == 3000 and (ours.offsets == theirs.offsets).all()
    assert (ours.positions[:, 26:] == 0).all()
    for i in range(len(b)):
        got = {bytes(p) for p in ours.positions[ours.rows(i), :26]}
        want = {bytes(p) for p in theirs.positions[theirs.rows(i)]}
        assert got == want, (b[i].tolist(), dice[i].tolist())


# -- helpers --------------------------------------------------------------------------


@functools.cache
def random_positions(label: str, count: int, seed: int) -> np.ndarray:
    """Positions (seen by the side on roll) of random games of ``label``, 1-2 turns included (read-only)."""
    v = variant(label)
    rng = np.random.default_rng(seed)
    out: list[np.ndarray] = []
    b = v.start.copy()
    while len(out) < count:
        out.append(b)
        batch = v.generate(b[None, :], rng.integers(1, 7, size=(1, 2)))
        if len(batch.positions) == 0:
            b = v.flip(b)
            continue
        r = int(rng.integers(len(batch.positions)))
        b = batch.positions[r].copy()
        again = batch.again is not None and batch.again[r]
        if not again and v.result(b) is not None:
            b = v.start.copy()
    positions = np.array(out)
    positions.setflags(write=False)
    return positions


def replay(board: np.ndarray, steps: tuple[tuple[int, int], ...]) -> np.ndarray:
    """A hitting game's board after ``steps`` (from, to), from the mover's side; no legality checks.

    26 is a waiting checker, 25 the bar, 0 off; a lone opposing checker on
    the landing point goes to its bar.  Written here from the step format, so
    that it checks the rows' positions independently of the kernel.
    """
    w = board.astype(np.int64)
    for f, t in steps:
        w[OUR_WAITING if f == 26 else f] -= 1
        if t == 0:
            continue
        if w[t] == -1:
            w[t] = 0
            w[0] -= 1
        w[t] += 1
    return w.astype(np.int8)


def mover_checkers(v: variants.Variant, batch: MoveBatch, row: int) -> np.ndarray:
    """The row's position seen by the mover (not flipped back when it rolls again)."""
    p = batch.positions[row]
    return p if batch.again is not None and batch.again[row] else v.flip(p)


# -- the rule flags -------------------------------------------------------------------


def test_games_without_the_new_rules_keep_plain_batches():
    """Only acey-deucey's batches have doubles, again and ten step columns."""
    for name, v in VARIANTS.items():
        board = random_positions(name, 30, 1)
        dice = np.array([(1, 2)] * 15 + [(6, 6)] * 15)
        batch = v.generate(board, dice)
        if name == "acey-deucey":
            assert batch.steps.shape[1:] == (variants.VMAX_STEPS, 2)
            assert batch.doubles is not None and batch.again is not None
            assert len(batch.doubles) == len(batch.again) == len(batch.positions)
        else:
            assert batch.steps.shape[1:] == (4, 2)
            assert batch.doubles is None and batch.again is None


def test_house_rules_of_acey_deucey_are_refused_elsewhere():
    for label in ("backgammon+enter-all", "long-nardy+european-1-2", "fevga+enter-all"):
        with pytest.raises(InvalidPositionError, match="acey-deucey") as e:
            variant(label)
        assert "\n" not in str(e.value)
    v = variant("acey-deucey+enter-all+european-1-2")
    assert v.label == "acey-deucey+enter-all+european-1-2"
    assert v.rules[variants.R_ENTER_ALL] == 1 and v.rules[variants.R_ACEY] == variants.ACEY_EUROPEAN


def test_long_nardy_moves_at_most_the_head_rule_allows_from_24():
    v = variant("long-nardy")
    boards = random_positions("long-nardy", 300, 2)
    boards = np.concatenate([np.repeat(v.start[None, :], 21, 0), boards])
    dice = np.concatenate([np.array(ROLLS), np.random.default_rng(3).integers(1, 7, size=(300, 2))])
    batch = v.generate(boards, dice)
    most = 0
    for i in range(len(batch)):
        first = boards[i, 24] == 15 and dice[i, 0] == dice[i, 1] and dice[i, 0] in (3, 4, 6)
        for r in batch.rows(i):
            left = sum(1 for f, _ in batch.steps_of(r) if f == 24)
            assert left <= (2 if first else 1), (boards[i].tolist(), dice[i].tolist(), batch.steps_of(r))
            most = max(most, left)
    assert most == 2  # the first-roll doubles do take two


# -- acey-deucey: entering ------------------------------------------------------------


@pytest.mark.parametrize("seed", [4, 5])
def test_enter_all_waiting_checkers_enter_as_from_the_bar(seed):
    """With enter-all, waiting checkers are bar checkers: same results as backgammon's rules with them
    on the bar (the general kernel under backgammon's rules is checked against movegen above)."""
    ace = variant("acey-deucey+enter-all")
    rng = np.random.default_rng(seed)
    boards = random_positions("acey-deucey", 400, seed)
    boards = boards[(boards[:, OUR_WAITING] > 0)]
    dice = rng.integers(1, 7, size=(len(boards), 2))
    dice[(dice.min(1) == 1) & (dice.max(1) == 2)] = (3, 1)  # single rolls: the kernel, not the 1-2 turn
    assert len(boards) > 50
    ours = variants.generate(boards, dice, ace.rules)
    on_bar = boards.copy()
    on_bar[:, 25] += on_bar[:, OUR_WAITING]
    on_bar[:, OUR_WAITING] = 0
    theirs = variants.generate(on_bar, dice, VARIANTS["backgammon"].rules)
    assert (ours.offsets == theirs.offsets).all()
    for i in range(len(boards)):
        wait = int(boards[i, OUR_WAITING])
        got = set()
        for r in ours.rows(i):
            p = ours.positions[r].copy()  # seen by the opponent: our waiting checkers are its slot 51
            p[0] += p[THEIR_WAITING]
            p[THEIR_WAITING] = 0
            got.add((bytes(p), tuple(f for f, _ in ours.steps_of(r))))
        bar = int(boards[i, 25])
        want = set()
        for r in theirs.rows(i):
            # Steps from the bar: the first `bar` are bar checkers, the rest waiting ones.
            srcs = [f for f, _ in theirs.steps_of(r)]
            k = 0
            for j, f in enumerate(srcs):
                if f == 25:
                    srcs[j] = 25 if k < bar else 26
                    k += 1
            assert k <= bar + wait
            want.add((bytes(theirs.positions[r]), tuple(srcs)))
        assert {g[0] for g in got} == {w[0] for w in want}, (boards[i].tolist(), dice[i].tolist())
        assert got == want, (boards[i].tolist(), dice[i].tolist())


def test_checkers_on_the_points_move_while_others_wait():
    """Without enter-all a play may move a checker on the points first, or only such checkers."""
    ace = variant("acey-deucey")
    boards = random_positions("acey-deucey", 400, 6)
    boards = boards[(boards[:, OUR_WAITING] > 0) & (boards[:, 25] == 0) & (boards[:, 1:25] > 0).any(1)]
    dice = np.random.default_rng(6).integers(1, 7, size=(len(boards), 2))
    dice[(dice.min(1) == 1) & (dice.max(1) == 2)] = (5, 3)
    batch = variants.generate(boards, dice, ace.rules)
    firsts = {batch.steps_of(r)[0][0] for r in range(len(batch.positions))}
    assert 26 in firsts and any(1 <= f <= 24 for f in firsts)
    no_entry = [r for r in range(len(batch.positions)) if all(f != 26 for f, _ in batch.steps_of(r))]
    assert no_entry


# -- acey-deucey: whole 1-2 turns -------------------------------------------------------


@pytest.mark.parametrize("label", ["acey-deucey", "acey-deucey+european-1-2", "acey-deucey+enter-all"])
def test_one_two_turns_are_consistent(label):
    v = variant(label)
    parts = 3 if "european" in label else 2  # the 1-2, the double, (the complement)
    game = random_positions("acey-deucey", 600, 8)
    ours = v.checkers(game)[0]
    # The start, early positions, positions near the end (a turn may bear off the last checker),
    # and (not European: a mid-game European 1-2 has some 10^5 results) mid-game ones.
    picks = [game[:8], game[ours <= 4][:12]]
    if parts == 2:
        picks.append(game[200:230])
    boards = np.concatenate([v.start[None, :], *picks])
    batch = v.generate(boards, np.array([(1, 2)] * len(boards)))
    assert batch.doubles is not None and batch.again is not None
    rng = np.random.default_rng(8)
    again_seen = over_seen = 0
    for i in range(len(boards)):
        rows = batch.rows(i)
        keys = np.concatenate([batch.positions[rows], batch.again[rows, None].astype(np.int8)], axis=1)
        assert len(np.unique(keys, axis=0)) == len(rows)  # one row per (position, again)
        sample = rows if len(rows) <= 150 else rng.choice(rows, 150, replace=False)
        for r in sample:
            steps = batch.steps_of(r)
            d = int(batch.doubles[r])
            again = bool(batch.again[r])
            # Steps fill the columns in order: the 1-2 (two), then four of d, then four of 7 - d.
            cols = batch.steps[r, :, 0] >= 0
            assert not (cols[1:] & ~cols[:-1]).any()
            # Each step's pips: the die, or less when it bears off.
            pips = [((25 if f == 26 else f) - t, t) for f, t in steps]
            assert (d == 0) == (len(steps) < 2)
            assert all(1 <= x <= 2 for x, _ in pips[:2])
            if len(pips) >= 2 and pips[0][1] > 0 and pips[1][1] > 0:
                assert sorted(x for x, _ in pips[:2]) == [1, 2]
            assert all(x == d or (t == 0 and x < d) for x, t in pips[2:6])
            assert all(x == 7 - d or (t == 0 and x < 7 - d) for x, t in pips[6:])
            me = mover_checkers(v, batch, r)
            assert (me == replay(boards[i], steps)).all(), (boards[i].tolist(), steps)
            ours, theirs = (int(x[0]) for x in v.checkers(boards[i]))
            off = sum(1 for _, t in steps if t == 0)
            after_ours, after_theirs = (int(x[0]) for x in v.checkers(me))
            assert (after_ours, after_theirs) == (ours - off, theirs)
            if again:
                again_seen += 1
                assert len(steps) == 2 + 4 * (parts - 1) and after_ours > 0
            else:
                assert len(steps) < 2 + 4 * (parts - 1) or after_ours == 0
                over_seen += after_ours == 0
            if len(steps) == 2 and d > 0:
                # The double chosen cannot be played at all from the 1-2's result.
                assert len(v.generate(me[None, :], np.array([(d, d)])).positions) == 0 or after_ours == 0
    assert again_seen > 100 and over_seen > 0


def test_mixed_batches_keep_each_inputs_rows():
    for label, count in (("acey-deucey", 40), ("acey-deucey+european-1-2", 12)):
        v = variant(label)
        boards = random_positions("acey-deucey", count, 9)
        rng = np.random.default_rng(9)
        dice = rng.integers(1, 7, size=(len(boards), 2))
        dice[::3] = (2, 1)
        dice[1::5] = (1, 2)
        batch = v.generate(boards, dice)
        assert batch.doubles is not None and batch.again is not None
        for i in range(len(boards)):
            one = v.generate(boards[i : i + 1], dice[i : i + 1])
            assert one.doubles is not None and one.again is not None
            rows = batch.rows(i)
            assert len(rows) == len(one.positions)
            assert (batch.positions[rows] == one.positions).all()
            assert (batch.steps[rows] == one.steps).all()
            assert (batch.doubles[rows] == one.doubles).all() and (batch.again[rows] == one.again).all()
            if sorted(dice[i].tolist()) != [1, 2]:
                assert (one.doubles == 0).all() and not one.again.any()
                assert (one.steps[:, 4:] == -1).all()
        keep = np.arange(len(boards)) % 2 == 0
        sub, rows = batch.select(keep)
        assert sub.doubles is not None and sub.again is not None
        assert (sub.doubles == batch.doubles[rows]).all() and (sub.again == batch.again[rows]).all()
