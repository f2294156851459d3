"""One roll of one-sided lookahead in races (bgnet/race.py), checked against brute force and the database."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from boards import pos
from test_onesided import lone_checker

from bgnet.bearoff import FULL_BASE, N_POSITIONS, position_of
from bgnet.dice import ALL_ROLLS, ROLL_DICE
from bgnet.encoding import RACE
from bgnet.evaluator import NetEvaluator
from bgnet.movegen import generate
from bgnet.network import OneSidedRaceNet
from bgnet.players import PlayerError, make_player
from bgnet.position import STARTING, random_race
from bgnet.probabilities import equity
from bgnet.probabilities import flip as flip_probs
from bgnet.pubeval import is_race
from bgnet.race import RaceLookahead, network_probabilities, one_roll


@pytest.fixture(scope="module")
def untrained() -> OneSidedRaceNet:
    torch.manual_seed(5)
    return OneSidedRaceNet(RACE.width, [16], "relu", 40).eval()


@pytest.fixture(scope="module")
def shipped(bearoff_db) -> dict[bool, NetEvaluator]:
    return {on: NetEvaluator.from_checkpoint(bearoff=bearoff_db, race_lookahead=on) for on in (False, True)}


def side(points: dict[int, int]) -> np.ndarray:
    s = np.zeros((1, 24), np.int64)
    for p, n in points.items():
        s[0, p - 1] = n
    return s


def test_a_side_one_roll_from_the_database_is_exact_whatever_the_network(bearoff_db, untrained):
    # a lone checker 7 to 9 pips out lands within the database's 6 points (or off) on every roll
    rl = RaceLookahead(untrained, bearoff_db)
    for pips in (7, 8, 9):
        d = rl.distributions(side({pips: 1}))[0]
        assert d[0] == pytest.approx(lone_checker(pips, 40), abs=1e-6)
        # one checker is all it has: its first is off and nothing is in the other side's home board
        assert d[1, 0] == d[2, 0] == 1.0
    # a checker on the 24 point keeps the home-board-clear distribution away from 0 rolls
    far = rl.distributions(side({24: 1, 1: 14}))[0]
    assert far[2, 0] == 0.0 and far[2].sum() == pytest.approx(1.0, abs=1e-5)
    assert far[1, 0] == 0.0 and far[1].sum() == pytest.approx(1.0, abs=1e-5)  # none is off yet


def test_the_home_board_clear_distribution_follows_the_play_that_saves_the_backgammon(bearoff_db, untrained):
    # a straggler on the 19 point (the other side's 6 point) leaves that board with either die, so the side
    # clears it in exactly one roll whatever the network says of the results; playing for the first
    # checker off instead (the policy before) often keeps it there and moves the others home
    rl = RaceLookahead(untrained, bearoff_db)
    for rest in ({8: 14}, {7: 10, 9: 4}):
        got = one_roll(side({19: 1, **rest}), rl.known, rl.keys, rl.width)[0]
        assert got[2, 1] == pytest.approx(1.0, abs=1e-6)


def test_the_database_is_the_lookaheads_fixed_point(bearoff_db, untrained):
    # within the database the keys are its own expectations, so the best plays survive the move filter
    rng = np.random.default_rng(4)
    idx = rng.choice(np.arange(1, N_POSITIONS), size=300, replace=False)
    sides = np.zeros((len(idx), 24), np.int64)
    sides[:, :6] = position_of(idx)
    rl = RaceLookahead(untrained, bearoff_db)
    got = one_roll(sides, rl.known, rl.keys, rl.width)
    width = bearoff_db.rolls.shape[1]
    assert got[:, 0, :width] == pytest.approx(bearoff_db.rolls[idx].astype(np.float32), abs=2e-6)
    full = idx >= FULL_BASE
    m = bearoff_db.first.shape[1]
    first = bearoff_db.first[idx[full] - FULL_BASE].astype(np.float32)
    assert got[full, 1, :m] == pytest.approx(first, abs=2e-6)


def test_both_sides_within_the_database_give_its_exact_probabilities(bearoff_db, untrained):
    rng = np.random.default_rng(6)
    boards = []
    while len(boards) < 200:
        b = random_race(rng)
        if bearoff_db.covers(b[None])[0]:
            boards.append(b)
    boards = np.stack(boards)
    got = RaceLookahead(untrained, bearoff_db).probabilities(boards)
    want = bearoff_db.probabilities(boards)
    assert got == pytest.approx(want.astype(np.float32), abs=2e-5)


def test_the_evaluator_searches_races_only_and_its_cache_changes_nothing(shipped):
    rng = np.random.default_rng(9)
    races = np.stack([random_race(rng) for _ in range(40)])
    races = races[~shipped[True].bearoff.covers(races)]
    dice = np.array([[d.high, d.low] for d in ALL_ROLLS])
    contact = generate(np.repeat(STARTING.board[None], len(dice), axis=0), dice).positions  # opening replies
    assert not is_race(contact).any()
    on, off = shipped[True], shipped[False]
    assert on.race_lookahead is not None and off.race_lookahead is None
    assert on.probabilities(contact) == pytest.approx(off.probabilities(contact), abs=0)
    searched, static = on.probabilities(races), off.probabilities(races)
    assert np.abs(searched - static).max() > 1e-3  # the search changes the network's figures
    assert np.abs(searched - static)[:, 0].mean() < 0.05  # ... by a correction, not another game
    p = searched
    assert (p[:, 1] <= p[:, 0] + 1e-6).all() and (p[:, 3] <= 1 - p[:, 0] + 1e-6).all()
    # one at a time (cached sides mixed with new ones) and again: the same figures
    again = np.concatenate([on.probabilities(races[i : i + 1]) for i in range(len(races))])
    assert again == pytest.approx(searched, abs=1e-6)
    fresh = NetEvaluator.from_checkpoint(bearoff=on.bearoff)
    assert fresh.probabilities(races[::-1]) == pytest.approx(searched[::-1], abs=1e-6)


def test_the_player_spec_turns_the_search_off_and_refuses_other_values():
    assert make_player("bgnet:lookahead=0").evaluator.race_lookahead is None
    assert make_player("bgnet").evaluator.race_lookahead is not None
    with pytest.raises(PlayerError, match="lookahead of player bgnet must be 0 or 1"):
        make_player("bgnet:lookahead=2")


def test_the_lone_checker_side_of_a_board_is_exact_against_a_wrong_network(bearoff_db, untrained):
    # we (on roll) have a lone checker 9 pips out, they one 30 pips out: our winning chances are exact
    # by brute force whatever the untrained network says about their side's distribution ... of which
    # only P(they need >= n rolls) for our n matters, so check against the network's own distribution
    rl = RaceLookahead(untrained, bearoff_db)
    board = pos({9: 1}, {20: 1, 10: 1}).board[None]
    d_theirs = rl.distributions(side({20: 1, 10: 1}))[0, 0].astype(np.float64)
    ours = lone_checker(9, 40)
    survival = np.cumsum(d_theirs[::-1])[::-1]
    assert rl.probabilities(board)[0, 0] == pytest.approx(float(ours @ survival), abs=1e-5)


def test_choosing_searches_the_best_plays_of_each_roll_only(shipped, monkeypatch):
    import bgnet.evaluator as ev_module

    rng = np.random.default_rng(12)
    boards = np.stack([random_race(rng) for _ in range(60)])
    boards = boards[~shipped[True].bearoff.covers(boards)]
    dice = rng.integers(1, 7, size=(len(boards), 2))
    batch = generate(boards, np.sort(dice, axis=1)[:, ::-1].copy())
    on, off = shipped[True], shipped[False]
    searched = -equity(on.probabilities(batch.positions))  # every play searched, for the mover
    static = -equity(off.probabilities(batch.positions))
    best = np.array(
        [a + np.argmax(searched[a:b]) for a, b in zip(batch.offsets[:-1], batch.offsets[1:], strict=True)]
    )
    monkeypatch.setattr(ev_module, "SEARCH_FILTER", ev_module.NO_FILTER)
    assert (on.choose(batch) == best).all()  # no filter: the search's own best
    monkeypatch.undo()
    chosen = on.choose(batch)
    # with the filter the play comes from the network's few best of its roll ...
    for row, a, b in zip(chosen, batch.offsets[:-1], batch.offsets[1:], strict=True):
        assert (static[a:b] > static[row]).sum() < ev_module.SEARCH_FILTER.keep
    # ... and is the search's best nearly always, where the network alone often is not
    assert (chosen == best).mean() >= 0.9 > (off.choose(batch) == best).mean()
    # ranking values every play searched (what hints and analysis show): its best is the search's best,
    # and the plays keep their ply (0): the search is part of the static evaluation
    probs, plies = on.rank(batch, with_plies=True)
    assert (plies == 0).all()
    value = equity(probs)
    top = [a + int(np.argmax(value[a:b])) for a, b in zip(batch.offsets[:-1], batch.offsets[1:], strict=True)]
    assert (np.array(top) == best).all()


def test_the_luck_of_a_roll_values_the_players_choice_and_searches_only_the_best_plays(shipped, monkeypatch):
    """``best_of_rolls`` (the luck adjustment of rollouts, matches and analysis): each roll's play is the
    player's own 0-ply choice, valued as searched, and the search sees a roll's few best plays, not all."""
    import bgnet.evaluator as ev_module
    from bgnet.rollout import best_of_rolls

    on = shipped[True]
    rng = np.random.default_rng(21)
    boards = np.stack([random_race(rng) for _ in range(16)])
    boards = boards[~on.bearoff.covers(boards)]
    n, k = len(boards), len(ALL_ROLLS)
    searched: list[int] = []
    search = on._search
    monkeypatch.setattr(on, "_search", lambda b: (searched.append(len(b)), search(b))[1])
    probs, results, moved = best_of_rolls(on, boards)
    monkeypatch.undo()
    batch = generate(np.repeat(boards, k, axis=0), np.tile(ROLL_DICE, (n, 1)))
    assert len(batch.positions) > 4 * ev_module.SEARCH_FILTER.keep * n * k  # searching all would be more
    assert 0 < sum(searched) <= ev_module.SEARCH_FILTER.keep * n * k
    rows = on.choose(batch)
    np.testing.assert_array_equal(moved.reshape(-1), rows >= 0)
    played = rows[rows >= 0]
    np.testing.assert_array_equal(results.reshape(-1, 26)[rows >= 0], batch.positions[played])
    mover = flip_probs(on.probabilities(batch.positions[played]))  # the chosen play's searched value
    np.testing.assert_allclose(probs.reshape(-1, 5)[rows >= 0], mover, atol=1e-6)


def test_without_a_database_the_keys_are_the_pip_count_in_rolls(untrained):
    rng = np.random.default_rng(2)
    boards = np.maximum(np.stack([random_race(rng) for _ in range(30)]), 0)  # the mover alone, as searched
    batch = generate(boards, np.array([[6, 3]] * len(boards)))
    all_off, first, clear = RaceLookahead(untrained, None).keys(batch.positions)
    # the results are seen by the empty opponent: the mover's point j is slot 25 - j, negated
    counts = -batch.positions[:, 24:0:-1].astype(np.int64)  # the mover's points 1..24
    pips = counts @ np.arange(1, 25)
    assert all_off == pytest.approx(pips / (49 / 6)) and first == pytest.approx(pips / (49 / 6))
    # the clear policy's key: the pips still to go to leave points 19..24, then the all-off key
    back = counts[:, 18:] @ np.arange(1, 7)
    assert clear == pytest.approx(back + 1e-3 * all_off)
    assert (back > 0).any() and (back == 0).any()


def test_the_networks_own_values_are_its_forward_pass_with_each_side_valued_once(shipped):
    rng = np.random.default_rng(3)
    boards = np.stack([random_race(rng) for _ in range(50)])
    boards = np.concatenate([boards, boards[:10]])  # repeated sides (and boards) are valued once
    model = shipped[False].race[0]
    with torch.no_grad():
        want = model(torch.from_numpy(RACE.encode(boards))).numpy()
    got = network_probabilities(model, boards, torch.device("cpu"))
    assert got == pytest.approx(want, abs=1e-6)
