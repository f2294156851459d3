"""Long nardy and acey-deucey played and learned: Lockstep games, repeated turns, search, players, bots.

Every game here is replayed against :meth:`Variant.generate` on its own
dice: each ply's next position must be one of the roll's whole-turn results,
seen by the side the result says is on roll next (the opponent, or the mover
again after a 1-2 of acey-deucey played in full).
"""

from __future__ import annotations

import numpy as np

from bgnet.baselines import GreedyPlayer
from bgnet.dice import duplicate_dice
from bgnet.lockstep import FinishedGame, Lockstep, duel
from bgnet.players import RandomPlayer
from bgnet.variants import VSLOTS, Variant, variant

MAX_PLIES = 2000


def play(game: Variant, games: int, seed: int, choosers=None) -> list[FinishedGame]:
    """``games`` recorded games of ``game`` on duplicate dice ``seed`` (random players by default)."""
    engine = Lockstep(
        games,
        games,
        np.random.default_rng(seed),
        record=True,
        variant=game,
        max_plies=MAX_PLIES,
        dice=lambda g: duplicate_dice(seed, g, MAX_PLIES + 1),
    )
    choose = duel(choosers or (RandomPlayer(seed=seed).choose, RandomPlayer(seed=seed + 1).choose))
    out: list[FinishedGame] = []
    while engine.running:
        out += engine.step(choose)
    return sorted(out, key=lambda g: g.game)


def ply_dice(game: Variant, finished: FinishedGame, seed: int) -> np.ndarray:
    """The roll of every ply of ``finished`` (as Lockstep draws them from the duplicate dice)."""
    (a, b), rolls = duplicate_dice(seed, finished.game, MAX_PLIES + 1)
    if game.opening == "reroll":
        return rolls[: finished.plies].astype(np.int64)
    first = np.array([[max(a, b), min(a, b)]], dtype=np.int64)
    return np.concatenate([first, rolls[: finished.plies - 1]]).astype(np.int64)


def replay(game: Variant, finished: FinishedGame, seed: int) -> int:
    """Check every ply of ``finished`` against the legal whole turns; returns the repeated turns seen."""
    boards = np.concatenate([finished.history, finished.final[None, :]])
    dice = ply_dice(game, finished, seed)
    sides = finished.on_roll()
    assert len(sides) == finished.plies + 1 == len(boards) and sides[0] == finished.first
    batch = game.generate(boards[:-1], dice)
    again = getattr(batch, "again", None)
    repeats = 0
    for t in range(finished.plies):
        after = boards[t + 1]
        rows = batch.rows(t)
        if len(rows) == 0:  # a pass: the opponent is on roll in the same position
            np.testing.assert_array_equal(after, game.flip(boards[t]))
            assert sides[t + 1] != sides[t]
            continue
        match = [r for r in rows if (batch.positions[r] == after).all()]
        repeat = bool(again is not None and again[match[0]]) if match else False
        if not match:  # the game ended on a turn with a repeat: Lockstep shows the end to the loser
            match = [r for r in rows if (game.flip(batch.positions[r]) == after).all() and again[r]]
        assert len(match) == 1, f"ply {t}: the position played is not a legal result of {dice[t]}"
        assert (sides[t + 1] == sides[t]) == repeat, f"ply {t}: wrong side on roll after the turn"
        repeats += repeat
    assert game.result(finished.final) is not None
    return repeats


# --- long nardy -------------------------------------------------------------------------------------


def test_random_long_nardy_games_are_legal_whole_games_with_alternating_turns():
    game = variant("long-nardy")
    finished = play(game, 6, seed=5)
    assert len(finished) == 6
    for g in finished:
        assert replay(game, g, 5) == 0  # no repeated turns in long nardy
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
    finished = play(game, 20, seed=7, choosers=(greedy.choose, RandomPlayer(seed=2).choose))
    points = np.array([g.points for g in finished])
    assert points.mean() > 1.0, points


def test_lockstep_boards_are_variant_boards():
    game = variant("long-nardy")
    g = play(game, 1, seed=3)[0]
    assert g.history.shape[1] == VSLOTS and g.movers is not None and len(g.movers) == g.plies + 1
