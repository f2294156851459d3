"""Long nardy and acey-deucey played and learned: Lockstep games, repeated turns, search, players, bots.

Every game here is replayed against :meth:`Variant.generate` on its own
dice: each ply's next position must be one of the roll's whole-turn results,
seen by the side the result says is on roll next (the opponent, or the mover
again after a 1-2 of acey-deucey played in full).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bgnet.baselines import AGAIN, GreedyPlayer
from bgnet.dice import ALL_ROLLS, ROLL_WEIGHTS, duplicate_dice
from bgnet.encoding import variant_encoder
from bgnet.evaluator import FunctionEvaluator, NetEvaluator
from bgnet.lockstep import FinishedGame, Lockstep, duel
from bgnet.movegen import MoveBatch
from bgnet.network import ValueNet
from bgnet.players import RandomPlayer
from bgnet.probabilities import equity
from bgnet.probabilities import flip as flip_probs
from bgnet.variants import OUR_WAITING, THEIR_WAITING, VSLOTS, Variant, variant
from bgnet.variants import generate as generate_kernel

MAX_PLIES = 2000


Turn = tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]
"""What a chooser saw and chose at one ply: (board, dice, position chosen or None for a pass, again)."""


def play(
    game: Variant, games: int, seed: int, choosers=None, narrow=None
) -> tuple[list[FinishedGame], dict[int, list[Turn]]]:
    """``games`` recorded games of ``game`` on duplicate dice ``seed`` (random players by default), and
    every game's turns as the choosers saw them (from :meth:`Variant.generate`, in Lockstep)."""
    engine = Lockstep(
        games,
        games,
        np.random.default_rng(seed),
        record=True,
        variant=game,
        max_plies=MAX_PLIES,
        dice=lambda g: duplicate_dice(seed, g, MAX_PLIES + 1),
        narrow=narrow,
    )
    inner = duel(choosers or (RandomPlayer(seed=seed).choose, RandomPlayer(seed=seed + 1).choose))
    log: dict[int, list[Turn]] = {}

    def choose(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        assert batch.boards is not None and batch.dice is not None
        rows = inner(batch, player)
        for i, g in enumerate(engine.game[engine.active]):
            r = int(rows[i])
            assert r in batch.rows(i) or (r == -1 and len(batch.rows(i)) == 0)
            again = bool(r >= 0 and batch.again is not None and batch.again[r])
            chosen = batch.positions[r].copy() if r >= 0 else None
            log.setdefault(int(g), []).append((batch.boards[i].copy(), batch.dice[i].copy(), chosen, again))
        return rows

    out: list[FinishedGame] = []
    while engine.running:
        out += engine.step(choose)
    return sorted(out, key=lambda g: g.game), log


def ply_dice(game: Variant, finished: FinishedGame, seed: int) -> np.ndarray:
    """The roll of every ply of ``finished`` from the duplicate dice (a repeated turn takes the next one)."""
    (a, b), rolls = duplicate_dice(seed, finished.game, MAX_PLIES + 1)
    if game.opening == "reroll":
        return rolls[: finished.plies].astype(np.int64)
    first = np.array([[max(a, b), min(a, b)]], dtype=np.int64)
    return np.concatenate([first, rolls[: finished.plies - 1]]).astype(np.int64)


def replay(game: Variant, finished: FinishedGame, turns: list[Turn], seed: int) -> int:
    """Check every ply of ``finished`` against the turn chosen there; returns the repeated turns seen.

    Each ply starts from the position the last one chose (seen by the same side after a repeated
    turn, by the opponent otherwise, flipped after a pass), with the ply's own roll.
    """
    boards = np.concatenate([finished.history, finished.final[None, :]])
    dice = ply_dice(game, finished, seed)
    sides = finished.on_roll()
    assert len(sides) == finished.plies + 1 == len(boards) == len(turns) + 1 and sides[0] == finished.first
    repeats = 0
    for t, (board, roll, chosen, again) in enumerate(turns):
        np.testing.assert_array_equal(board, boards[t])
        assert sorted(roll) == sorted(dice[t]), f"ply {t}: rolled {roll}, the sequence has {dice[t]}"
        expected = game.flip(board) if chosen is None else chosen
        np.testing.assert_array_equal(boards[t + 1], expected, err_msg=f"ply {t}")
        assert (sides[t + 1] == sides[t]) == again, f"ply {t}: wrong side on roll after the turn"
        repeats += again
    assert game.result(finished.final) is not None
    return repeats


# --- long nardy -------------------------------------------------------------------------------------


def test_random_long_nardy_games_are_legal_whole_games_with_alternating_turns():
    game = variant("long-nardy")
    finished, log = play(game, 6, seed=5)
    assert len(finished) == 6
    for g in finished:
        assert replay(game, g, log[g.game], 5) == 0  # no repeated turns in long nardy
        assert abs(g.points) in (1, 2) and not g.same_side().any()
        before, after = g.history, np.concatenate([g.history[1:], g.final[None, :]])
        mover_after = game.flip(after)  # each result seen by its mover again
        # Head rule, checked on the plays themselves: one checker leaves the 24-point, two only on a
        # first 6-6, 4-4 or 3-3 (all 15 still there).
        left = np.maximum(before[:, 24], 0).astype(int) - np.maximum(mover_after[:, 24], 0)
        dice = ply_dice(game, g, 5)
        two = (dice[:, 0] == dice[:, 1]) & np.isin(dice[:, 0], (3, 4, 6)) & (before[:, 24] == 15)
        assert (left <= np.where(two, 2, 1)).all() and (left >= 0).all()
        # No hitting: the opponent's checkers stand where they stood.
        np.testing.assert_array_equal(np.minimum(mover_after[:, 1:25], 0), np.minimum(before[:, 1:25], 0))


def test_greedy_beats_random_at_long_nardy():
    game = variant("long-nardy")
    greedy = GreedyPlayer(game)
    finished, _ = play(game, 20, seed=7, choosers=(greedy.choose, RandomPlayer(seed=2).choose))
    points = np.array([g.points for g in finished])
    assert points.mean() > 1.0, points


def test_lockstep_boards_are_variant_boards():
    game = variant("long-nardy")
    g = play(game, 1, seed=3)[0][0]
    assert g.history.shape[1] == VSLOTS and g.movers is not None and len(g.movers) == g.plies + 1


# --- acey-deucey: repeated turns -------------------------------------------------------------------


def test_random_acey_deucey_games_are_legal_and_a_full_1_2_keeps_the_mover_on_roll():
    game = variant("acey-deucey")
    finished, log = play(game, 2, seed=9)
    assert len(finished) == 2
    repeats = 0
    for g in finished:
        repeats += replay(game, g, log[g.game], 9)
        assert abs(g.points) in (1, 2, 3)
        # Every repeated turn followed a 1-2.
        dice = ply_dice(game, g, 9)
        same = np.flatnonzero(g.same_side())
        assert (np.sort(dice[same], axis=1) == [1, 2]).all()
    assert repeats > 0


def test_greedy_scores_a_repeated_turn_from_the_movers_side_with_its_bonus():
    game = variant("acey-deucey")
    mine = game.start.copy()
    mine[OUR_WAITING], mine[13], mine[11] = 12, 2, 1  # the mover's view: three of ours entered
    greedy = GreedyPlayer(game)
    passed, again = greedy.score(np.stack([game.flip(mine), mine]), np.array([False, True]))
    assert again == pytest.approx(passed + AGAIN)


def hand_batch(game: Variant, seen_next: list[np.ndarray], again: list[bool]) -> MoveBatch:
    """One roll's results, each seen by the side on roll next."""
    n = len(seen_next)
    return MoveBatch(
        np.array([0, n]),
        np.stack(seen_next).astype(np.int8),
        np.full((n, 4, 2), -1, np.int8),
        again=np.array(again),
    )


def test_a_row_that_rolls_again_is_worth_its_own_value_to_the_mover():
    game = variant("acey-deucey")
    # A 0-ply function: the side on roll wins (slot 50 + 10) / 40 (its waiting checkers, as a dial).
    ev = FunctionEvaluator(
        lambda b: np.stack([(b[:, OUR_WAITING] + 10) / 40.0] + [np.zeros(len(b))] * 4, 1), variant=game
    )
    x, y = game.start.copy(), game.start.copy()
    x[OUR_WAITING] = 2  # the opponent on roll next wins 0.3: the mover 0.7
    y[OUR_WAITING] = 22  # the mover rolls again and wins 0.8
    batch = hand_batch(game, [x, y], [False, True])
    np.testing.assert_allclose(ev.rank(batch)[:, 0], [0.7, 0.8])
    assert ev.choose(batch).tolist() == [1]
    # Flipping every row alike would have picked x (0.7 against 0.2).
    plain = MoveBatch(batch.offsets, batch.positions, batch.steps)
    assert ev.choose(plain).tolist() == [0]


def test_one_ply_of_acey_deucey_averages_whole_turns_valued_for_the_mover():
    """1-ply: over the 21 rolls, the mover's best whole turn (its own value after a repeat, else flipped)."""
    game = variant("acey-deucey")
    encoder = variant_encoder(False)
    torch.manual_seed(0)
    ev = NetEvaluator(ValueNet(encoder.width, (8,)), encoder, variant=game)
    start = game.start.copy()  # a hand-made middle game: few points, so a 1-2 has few whole turns
    start[OUR_WAITING], start[6], start[8], start[13] = 5, 5, 3, 2
    start[THEIR_WAITING], start[19], start[17] = -10, -3, -2
    one_two = game.generate(start[None, :], np.array([[2, 1]]))
    assert one_two.again is not None and one_two.again.any()  # a 1-2 here can be played in full
    expected = np.zeros(5)
    for roll, weight in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
        batch = game.generate(start[None, :], np.array([[roll.high, roll.low]]))
        if len(batch.positions) == 0:
            mine = flip_probs(ev.probabilities(game.flip(start)))[0]
        else:
            probs = ev.probabilities(batch.positions)
            again = np.zeros(len(probs), bool) if batch.again is None else batch.again
            mover = np.where(again[:, None], probs, flip_probs(probs))
            mine = mover[np.argmax(equity(mover))]
        expected += weight * mine
    np.testing.assert_allclose(ev.probabilities(start, ply=1)[0], expected, atol=1e-5)


# --- acey-deucey: a narrowed 1-2 (self-play's shortcut) ----------------------------------------------


def _turn_set(batch: MoveBatch, i: int) -> set[tuple[bytes, bool]]:
    again = np.zeros(len(batch.positions), bool) if batch.again is None else batch.again
    return {(batch.positions[r].tobytes(), bool(again[r])) for r in batch.rows(i)}


def _random_scorer(seed: int):
    """A fixed random score per board: any function of the board will do for the narrowing."""
    rng, table = np.random.default_rng(seed), {}

    def score(boards: np.ndarray) -> np.ndarray:
        return np.array([table.setdefault(b.tobytes(), rng.random()) for b in boards])

    return score


def _middle_games(game: Variant, count: int) -> np.ndarray:
    finished, _ = play(game, 2, seed=9)
    boards = np.concatenate([g.history[6::5] for g in finished])
    return boards[:count]


def _few_checkers(game: Variant) -> np.ndarray:
    """Two hand-made middle games with few checkers on the points (a European 1-2 stays small)."""
    a = game.start.copy()
    a[OUR_WAITING], a[6], a[8], a[13] = 5, 5, 3, 2
    a[THEIR_WAITING], a[19], a[17] = -10, -3, -2
    b = a.copy()
    b[13], b[20], b[THEIR_WAITING], b[22] = 1, 1, -9, -1
    return np.stack([a, b])


@pytest.mark.parametrize("label", ["acey-deucey", "acey-deucey+european-1-2"])
def test_a_narrowed_1_2_is_the_whole_turns_through_its_best_plays_of_the_1_and_the_2(label):
    game = variant(label)
    boards = _middle_games(game, 10) if label == "acey-deucey" else _few_checkers(game)
    dice = np.tile([[2, 1]], (len(boards), 1))
    full = game.generate(boards, dice)
    score = _random_scorer(4)
    # The plays of the 1 and the 2 alone (the kernel's single roll), scored as the mover still on roll.
    parts = generate_kernel(boards, dice, game.rules)
    narrowed = {k: game.generate(boards, dice, narrow=score, keep=k) for k in (1, 2, 3, 10_000)}
    for i in range(len(boards)):
        whole = _turn_set(full, i)
        sets = {k: _turn_set(b, i) for k, b in narrowed.items()}
        assert sets[1] <= sets[2] <= sets[3] <= whole and sets[10_000] == whole
        rows = [r for r in parts.rows(i) if (parts.steps[r, :, 0] >= 0).sum() == 2]
        if len(rows) > 1:
            assert len(sets[1]) < len(whole)
        if not rows:
            assert sets[1] == whole
            continue
        # keep=1: every row that played a double went through the best-scored play of the 1 and the 2.
        best = rows[int(np.argmax(score(game.flip(parts.positions[rows]))))]
        b1 = narrowed[1]
        assert b1.doubles is not None
        with_double = [r for r in b1.rows(i) if b1.doubles[r] > 0]
        assert with_double
        for r in with_double:
            np.testing.assert_array_equal(b1.steps[r, :2], parts.steps[best, :2])


def test_narrowing_leaves_every_other_roll_alone():
    game = variant("acey-deucey")
    boards = _middle_games(game, 6)
    dice = np.array([[6, 5], [2, 1], [3, 3], [2, 1], [4, 1], [1, 1]])
    full = game.generate(boards, dice)
    narrow = game.generate(boards, dice, narrow=_random_scorer(1), keep=1)
    for i in range(len(boards)):
        if sorted(dice[i]) != [1, 2]:
            assert _turn_set(narrow, i) == _turn_set(full, i)
            np.testing.assert_array_equal(narrow.positions[narrow.rows(i)], full.positions[full.rows(i)])


def test_self_play_with_a_narrowed_1_2_plays_legal_whole_turns():
    game = variant("acey-deucey")
    finished, log = play(game, 2, seed=9, narrow=_random_scorer(2))
    repeats = 0
    for g in finished:
        repeats += replay(game, g, log[g.game], 9)
        for board, roll, chosen, again in log[g.game]:
            if chosen is not None and sorted(roll) == [1, 2]:
                assert (chosen.tobytes(), again) in _turn_set(game.generate(board, roll), 0)
    assert repeats > 0
