"""Variant networks: the 52-slot encoder, checkpoints, exact finished games, TD runs, the shipped bots.

Boards are built by hand as 52-slot arrays seen from the side on roll
(:mod:`bgnet.variants`): slots 1..24 our points (positive ours, negative
theirs on top), 25 our bar, 0 theirs, ``PIN + p`` a pinned checker on point
``p`` (+1 ours under theirs, -1 theirs under ours).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from bgnet import checkpoint
from bgnet.checkpoint import CheckpointError
from bgnet.dice import ALL_ROLLS, ROLL_WEIGHTS, duplicate_dice
from bgnet.encoding import TESAURO_198, VARIANT, VARIANT_ROTATE, get_encoder, variant_encoder
from bgnet.evaluator import NetEvaluator, variant_final_probabilities
from bgnet.lockstep import FinishedGame, Lockstep, duel
from bgnet.movegen import MoveBatch
from bgnet.network import ValueNet
from bgnet.players import NetPlayer, RandomPlayer, make_player
from bgnet.probabilities import equity
from bgnet.probabilities import flip as flip_probs
from bgnet.stats import paired_ci
from bgnet.variants import PIN, VARIANTS, VSLOTS, Variant
from bgnet_training.config import ConfigError, load_config, make_config
from bgnet_training.train import Trainer, training_targets
from bgnet_training.workers import SelfPlayWorker

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "bgnet" / "networks" / "variants"
GAMES = ("portes", "tavla", "plakoto", "fevga", "long-nardy")


def board(ours: dict[int, int], theirs: dict[int, int], pins: dict[int, int] | None = None) -> np.ndarray:
    """A variant board from slot -> count (ours positive, theirs given positive, on our numbering)."""
    b = np.zeros(VSLOTS, dtype=np.int8)
    for p, n in ours.items():
        b[p] += n
    for p, n in theirs.items():
        b[p] -= n
    for p, v in (pins or {}).items():
        b[PIN + p] = v
    return b


def blocks(encoder, b: np.ndarray) -> dict[str, np.ndarray]:
    row = encoder.encode(b)[0]
    return {name: row[s] for name, s in encoder.slices().items()}


def random_boards(game: Variant, games: int = 6, seed: int = 0) -> np.ndarray:
    """Positions of random games of ``game`` (every ply recorded)."""
    rng = np.random.default_rng(seed)
    pick = RandomPlayer(seed=seed).choose
    engine = Lockstep(games, games, rng, record=True, variant=game)
    out = []
    while engine.running:
        out += [g.history for g in engine.step(pick)]
    return np.concatenate(out)


# --- the encoder ----------------------------------------------------------------------------------


def test_a_pin_shows_as_ours_pinned_and_as_their_checker_on_top():
    # Plakoto: one of ours pinned on our 10 point under one of theirs (their 15 point).
    b = board({24: 14}, {1: 14, 10: 1}, pins={10: +1})
    e = blocks(VARIANT, b)
    assert e["our_pinned"].tolist() == [1.0 if p == 10 else 0.0 for p in range(1, 25)]
    assert e["their_pinned"].sum() == 0
    np.testing.assert_array_equal(e["their_points"].reshape(24, 4)[15 - 1], [1, 0, 0, 0])
    assert e["our_points"].reshape(24, 4)[10 - 1].sum() == 0  # ours is under, not on top
    assert e["our_off"][0] == 0 and e["their_off"][0] == 0  # a pinned checker is still in play
    assert e["our_pips"][0] == pytest.approx((14 * 24 + 10) / 360)
    assert e["our_can_bear_off"][0] == 0 and e["our_at_start"][0] == 1
    # Their mother (their 24 = our 1) pinned under ours: their at_start still 1, their pin on their 24.
    m = blocks(VARIANT, board({1: 1, 6: 14}, {1: 0, 20: 14}, pins={1: -1}))
    assert m["their_pinned"][24 - 1] == 1 and m["their_at_start"][0] == 1
    assert m["our_at_start"][0] == 0


def test_off_counts_and_bear_off_permission():
    b = board({3: 4, 5: 1}, {20: 2, 22: 3})  # 10 of ours off, 10 of theirs off
    e = blocks(VARIANT, b)
    assert e["our_off"][0] == pytest.approx(10 / 15) and e["their_off"][0] == pytest.approx(10 / 15)
    assert e["our_can_bear_off"][0] == 1 and e["their_can_bear_off"][0] == 1
    assert e["our_home"][0] == pytest.approx(5 / 15)
    # One of ours on the bar: no bear-off, and it counts 25 pips.
    e = blocks(VARIANT, board({3: 4, 25: 1}, {20: 2, 22: 3}))
    assert e["our_can_bear_off"][0] == 0 and e["our_bar"][0] == 0.5
    assert e["our_pips"][0] == pytest.approx((12 + 25) / 360)


def test_fevga_layout_is_read_in_each_sides_own_numbering():
    fevga = VARIANTS["fevga"]
    assert variant_encoder(fevga.rotate) is VARIANT_ROTATE and variant_encoder(False) is VARIANT
    e = blocks(VARIANT_ROTATE, fevga.start)
    for side in ("our", "their"):
        np.testing.assert_array_equal(e[f"{side}_points"].reshape(24, 4)[24 - 1], [1, 1, 1, 6])
        assert e[f"{side}_points"].reshape(24, 4)[:23].sum() == 0
        assert e[f"{side}_start_rule"][0] == 1 and e[f"{side}_pips"][0] == 1.0
    # A checker of theirs on our 1 point is on their 13 point (our p is their p + 12), not their 24.
    b = board({24: 15}, {12: 14, 1: 1})
    e = blocks(VARIANT_ROTATE, b)
    assert e["their_points"].reshape(24, 4)[13 - 1, 0] == 1
    assert blocks(VARIANT, b)["their_points"].reshape(24, 4)[24 - 1, 0] == 1  # the mirror reads it as 24
    # The start rule binds while 14 stay home and none has reached points 1..11.
    assert blocks(VARIANT_ROTATE, board({24: 14, 15: 1}, {12: 15}))["our_start_rule"][0] == 1
    assert blocks(VARIANT_ROTATE, board({24: 14, 9: 1}, {12: 15}))["our_start_rule"][0] == 0
    assert blocks(VARIANT_ROTATE, board({24: 13, 20: 2}, {12: 15}))["our_start_rule"][0] == 0


@pytest.mark.parametrize("name", ["plakoto", "fevga", "tavla"])
def test_flipping_a_variant_board_swaps_our_blocks_and_theirs(name):
    game = VARIANTS[name]
    encoder = variant_encoder(game.rotate)
    boards = random_boards(game)
    a, b = encoder.encode(boards), encoder.encode(game.flip(boards))
    s = encoder.slices()
    for key, sl in s.items():
        other = s["their_" + key[4:]] if key.startswith("our_") else s["our_" + key[6:]]
        np.testing.assert_array_equal(b[:, sl], a[:, other], err_msg=key)
    assert np.isfinite(a).all() and a.min() >= 0 and a.max() <= 7.5
    # Every checker is somewhere: on top (n = u0 + u1 + u2 + 2 u3), pinned, on the bar or off.
    for side in ("our", "their"):
        u = a[:, s[f"{side}_points"]].reshape(-1, 24, 4)
        on_top = (u[:, :, :3].sum(2) + 2 * u[:, :, 3]).sum(1)
        pinned = a[:, s[f"{side}_pinned"]].sum(1)
        rest = 2 * a[:, s[f"{side}_bar"]][:, 0] + 15 * a[:, s[f"{side}_off"]][:, 0]
        np.testing.assert_allclose(on_top + pinned + rest, 15, atol=1e-4)


def test_variant_encoders_are_found_by_name_and_refuse_backgammon_boards():
    assert get_encoder("variant") is VARIANT and get_encoder("variant-rotate") is VARIANT_ROTATE
    assert VARIANT.version == "variant-v1" and VARIANT.slots == VSLOTS and TESAURO_198.slots == 26
    with pytest.raises(ValueError, match="shape"):
        VARIANT.encode(np.zeros((1, 26), dtype=np.int8))


# --- exact values, checkpoints ------------------------------------------------------------------


def plakoto_draw() -> np.ndarray:
    """Both mothers pinned: ours under theirs on our 24, theirs under ours on our 1."""
    return board({1: 1, 5: 13}, {24: 1, 20: 13}, pins={24: +1, 1: -1})


def tiny_evaluator(name: str) -> NetEvaluator:
    game = VARIANTS[name]
    encoder = variant_encoder(game.rotate)
    torch.manual_seed(0)
    return NetEvaluator(ValueNet(encoder.width, (8,)), encoder, variant=game)


def test_a_finished_variant_game_has_its_exact_value_at_every_ply():
    plakoto = VARIANTS["plakoto"]
    assert plakoto.result(plakoto_draw()) == 0  # the rules call it a draw
    ev = tiny_evaluator("plakoto")
    for ply in (0, 1):
        np.testing.assert_array_equal(ev.probabilities(plakoto_draw(), ply), [[0.5, 0, 0, 0, 0]])
    # Portes has no backgammon: all of theirs off, ours still in their home board, is a gammon only.
    lost = board({20: 1, 6: 14}, {})
    assert VARIANTS["portes"].result(lost) == 2
    np.testing.assert_array_equal(tiny_evaluator("portes").probabilities(lost), [[0, 0, 0, 1, 0]])
    over, probs = variant_final_probabilities(VARIANTS["fevga"], np.stack([lost, VARIANTS["fevga"].start]))
    assert over.tolist() == [True, False]
    np.testing.assert_array_equal(probs[0], [0, 0, 0, 1, 0])


def test_td_targets_end_in_the_games_scoring(tmp_path):
    """The last position's target is the mover's exact result: a draw is 0.5, portes has no backgammon."""
    for name, final, expected in (
        ("plakoto", plakoto_draw(), [0.5, 0, 0, 0, 0]),
        ("portes", board({20: 1, 6: 14}, {}), [1, 1, 0, 0, 0]),
    ):
        game = VARIANTS[name]
        before = game.start[None, :].copy()
        finished = FinishedGame(before, final, 1, 0, 0, 1)
        _, _, targets = training_targets(tiny_evaluator(name), [finished], 0.7, "td")
        np.testing.assert_array_equal(targets[-1], expected)


def save_tiny(path: Path, name: str | None, encoder) -> Path:
    model = ValueNet(encoder.width, (8,))
    state = {
        "model": model.state_dict(),
        "shape": model.shape,
        "encoder": encoder.name,
        "encoder_version": encoder.version,
    }
    if name is not None:
        state["variant"] = name
    return checkpoint.save(path, state)


def test_a_variant_checkpoint_loads_with_its_game(tmp_path):
    path = save_tiny(tmp_path / "p.pt", "plakoto", VARIANT)
    ev = NetEvaluator.from_checkpoint(path)
    assert ev.variant is not None and ev.variant.label == "plakoto"
    assert ev.bearoff is None and ev.race is None and ev.slots == VSLOTS
    player = make_player(f"bgnet:checkpoint={path}")
    assert isinstance(player, NetPlayer) and player.variant is not None and player.variant.name == "plakoto"
    # Without the entry a checkpoint is backgammon's, as every older one.
    old = NetEvaluator.from_checkpoint(save_tiny(tmp_path / "b.pt", None, TESAURO_198), bearoff=False)
    assert old.variant is None and old.slots == 26
    with pytest.raises(CheckpointError, match="fevga needs encoder variant-rotate"):
        NetEvaluator.from_checkpoint(save_tiny(tmp_path / "f.pt", "fevga", VARIANT))
    with pytest.raises(CheckpointError, match="unknown variant"):
        NetEvaluator.from_checkpoint(save_tiny(tmp_path / "x.pt", "chess", VARIANT))


# --- training -------------------------------------------------------------------------------------

TINY = {
    "seed": 3,
    "hidden": [16],
    "games": 200,
    "parallel_games": 32,
    "train_games": 20,
    "minibatch": 256,
    "lr": 0.003,
    "checkpoint_every": 100,
    "keep_checkpoints": 2,
    "eval_every": 200,
    "eval_games": 40,
    "workers": 0,
    "device": "cpu",
    "threads": 1,
}


def tiny_config(game: str, **changes):
    encoder = variant_encoder(VARIANTS[game].rotate).name
    return make_config({**TINY, "name": game, "variant": game, "encoder": encoder, **changes})


@pytest.mark.parametrize("name", ["plakoto", "fevga", "long-nardy"])
def test_a_short_variant_run_trains_checkpoints_and_resumes(tmp_path, name):
    st = Trainer(tiny_config(name), tmp_path, progress=False).run()
    assert st.games == 200 and st.positions > 200 * 20
    run = tmp_path / name
    latest = sorted(run.glob("checkpoint-*.pt"))[-1]
    ev = NetEvaluator.from_checkpoint(latest)
    assert ev.variant is not None and ev.variant.label == name and ev.encoder.slots == VSLOTS
    records = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    assert any("play/ppg_vs_random" in r for r in records)
    # More games: the run resumes from its checkpoint and goes on.
    more = Trainer(tiny_config(name, games=260), tmp_path, progress=False)
    assert more.resumed_from == latest and more.state.games == 200
    assert more.run().games >= 260
    # Another game is another run: refused in the same folder.
    with pytest.raises(ConfigError, match="variant"):
        Trainer(tiny_config("portes", name=name), tmp_path, progress=False)


def test_a_worker_plays_and_labels_variant_games():
    w = SelfPlayWorker(tiny_config("plakoto").to_dict(), 0, [5])
    batch = w.play(6)
    assert batch.games >= 6 and batch.boards.shape[1] == VSLOTS
    assert (
        batch.targets.shape == (len(batch.boards), 5) and ((batch.targets >= 0) & (batch.targets <= 1)).all()
    )


def test_variant_configs_refuse_what_does_not_fit():
    with pytest.raises(ConfigError, match="variant-rotate for fevga"):
        make_config({"variant": "fevga", "encoder": "variant"})
    with pytest.raises(ConfigError, match="unknown variant"):
        make_config({"variant": "chess", "encoder": "variant"})
    with pytest.raises(ConfigError, match="encoder"):
        make_config({"variant": "backgammon", "encoder": "variant"})
    with pytest.raises(ConfigError, match="race_hidden"):
        make_config({"variant": "plakoto", "encoder": "variant", "race_hidden": [8]})
    for name in (*GAMES, "acey-deucey"):
        game = load_config(ROOT / "configs" / "variants" / f"{name}.toml").game()
        assert game is not None and game.name == name


# --- the shipped bots -----------------------------------------------------------------------------


def checked(choose, seen: list[int]):
    """``choose`` with every answer checked: a row of its roll's results, -1 only for no legal play."""

    def wrapped(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        rows = np.asarray(choose(batch, player))
        lo, hi = batch.offsets[:-1], batch.offsets[1:]
        empty = lo == hi
        assert rows.shape == (len(lo),)
        assert (rows[empty] == -1).all()
        assert ((rows[~empty] >= lo[~empty]) & (rows[~empty] < hi[~empty])).all()
        seen[0] += int((~empty).sum())
        return rows

    return wrapped


@pytest.mark.parametrize("name", GAMES)
def test_the_shipped_bot_beats_a_random_player_on_duplicate_dice(name):
    path = SHIPPED / f"{name}.pt"
    bot = make_player(f"bgnet:checkpoint={path}")
    assert isinstance(bot, NetPlayer) and bot.variant is not None and bot.variant.name == name
    game, games, seen = bot.variant, 200, [0]
    engine = Lockstep(
        50, games, np.random.default_rng(0), variant=game, dice=lambda g: duplicate_dice(11, g, 2000)
    )
    rand = RandomPlayer(seed=4).choose
    # Game 2k: the bot is player 0; game 2k + 1 (the same dice): player 1.
    points = np.zeros(games)
    for_bot = {0: duel((checked(bot.choose, seen), rand)), 1: duel((rand, checked(bot.choose, seen)))}

    def choose(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        out = np.full(len(player), -1, dtype=np.int64)
        odd = (engine.game[engine.active] % 2).astype(bool)
        for parity, chooser in for_bot.items():
            mine = odd == bool(parity)
            if mine.any():
                sub, rows = batch.select(mine)
                picked = chooser(sub, player[mine])
                moved = picked >= 0
                out[np.flatnonzero(mine)[moved]] = rows[picked[moved]]
        return out

    while engine.running:
        for g in engine.step(choose):
            points[g.game] = g.points if g.game % 2 == 0 else -g.points
    mean, half = paired_ci(points)
    assert seen[0] > 1000
    assert mean - half > 0, f"{name}: {mean:+.3f} ± {half:.3f} points per game against random"


@pytest.mark.parametrize("name", ["portes", "fevga"])
def test_one_ply_averages_the_best_reply_of_each_roll(name):
    """The n-ply search runs on the variant's moves: 1-ply = the 21 rolls' best 0-ply results, flipped."""
    game, ev = VARIANTS[name], tiny_evaluator(name)
    start = random_boards(game, games=2, seed=1)[7]
    expected = np.zeros(5)
    for roll, weight in zip(ALL_ROLLS, ROLL_WEIGHTS, strict=True):
        batch = game.generate(start[None, :], np.array([[roll.high, roll.low]]))
        if len(batch.positions) == 0:
            theirs = ev.probabilities(game.flip(start))[0]
        else:
            probs = ev.probabilities(batch.positions)
            theirs = probs[np.argmin(equity(probs))]
        expected += weight * flip_probs(theirs[None, :])[0]
    np.testing.assert_allclose(ev.probabilities(start, ply=1)[0], expected, atol=1e-5)
    # A 1-ply player chooses among the variant's results.
    batch = game.generate(np.stack([start, game.start]), np.array([[6, 5], [3, 1]]))
    rows = NetPlayer(ev, ply=1).choose(batch)
    assert all(batch.offsets[i] <= r < batch.offsets[i + 1] for i, r in enumerate(rows))


def test_a_run_starts_only_from_a_network_of_its_own_game(tmp_path):
    other = save_tiny(tmp_path / "plakoto.pt", "plakoto", VARIANT)
    with pytest.raises(CheckpointError, match="plays plakoto; this run plays portes"):
        Trainer(tiny_config("portes", init=str(other)), tmp_path / "runs", progress=False)
    trainer = Trainer(tiny_config("plakoto", init=str(other), hidden=[8]), tmp_path / "runs", progress=False)
    assert trainer.evaluator.variant is not None and trainer.evaluator.variant.name == "plakoto"


def test_a_short_acey_deucey_run_learns_across_repeated_turns_checkpoints_and_resumes(tmp_path):
    """Acey-deucey's 1-2 turns are slow to generate (tens of thousands of whole turns), so the run is tiny."""
    small = {"parallel_games": 2, "train_games": 1, "checkpoint_every": 1, "eval_every": 0}
    st = Trainer(tiny_config("acey-deucey", games=2, **small), tmp_path, progress=False).run()
    assert st.games >= 2 and st.positions > 2 * 20
    latest = sorted((tmp_path / "acey-deucey").glob("checkpoint-*.pt"))[-1]
    ev = NetEvaluator.from_checkpoint(latest)
    assert ev.variant is not None and ev.variant.name == "acey-deucey" and ev.encoder is VARIANT
    more = Trainer(tiny_config("acey-deucey", games=3, **small), tmp_path, progress=False)
    assert more.resumed_from == latest and more.state.games == st.games
    assert more.run().games >= 3


def test_acey_deucey_td_targets_follow_the_side_on_roll_through_a_repeated_turn():
    """A game whose second ply repeats: its target is the next position's value as it is, not flipped."""
    ev = tiny_evaluator("acey-deucey")
    game = ev.variant
    assert game is not None
    history = np.stack([game.start, game.flip(game.start), game.flip(game.start)])
    history[1, 50], history[2, 50] = 14, 13  # distinct positions, so distinct values
    final = board({6: 15}, {})  # the loser (player 1) on roll, none off: all of the winner's off
    finished = FinishedGame(history, final, 2, 0, 0, 3, movers=np.array([0, 1, 1, 0], np.int8))
    assert finished.same_side().tolist() == [False, True, False]
    _, values, targets = training_targets(ev, [finished], 0.0, "td")
    # lambda = 0: each target is the next position's value, flipped only where the side changes.
    np.testing.assert_allclose(targets[0], flip_probs(values[1:2])[0], atol=1e-6)
    np.testing.assert_allclose(targets[1], values[2], atol=1e-6)
    np.testing.assert_allclose(targets[2], [1, 1, 0, 0, 0], atol=1e-6)  # player 0 won a gammon


def test_the_encoders_see_acey_deucey_waiting_checkers_and_the_long_nardy_head():
    acey, nardy = VARIANTS["acey-deucey"], VARIANTS["long-nardy"]
    assert variant_encoder(acey.rotate) is VARIANT and variant_encoder(nardy.rotate) is VARIANT_ROTATE
    b = acey.start.copy()
    b[50], b[20], b[19] = 13, 1, 1  # two of ours entered (on our 20 and 19), 13 still waiting
    e = blocks(VARIANT, b)
    assert e["our_waiting"][0] == pytest.approx(13 / 15) and e["their_waiting"][0] == 1.0
    assert e["our_pips"][0] == pytest.approx((13 * 25 + 39) / 360) and e["their_pips"][0] == pytest.approx(
        375 / 360
    )
    assert e["our_off"][0] == 0 and e["our_can_bear_off"][0] == 0
    # All 15 home but one still waiting: no bear-off yet.
    home = board({6: 14}, {19: 15})
    home[50] = 1
    assert blocks(VARIANT, home)["our_can_bear_off"][0] == 0
    # Long nardy: the head is the side's 24-point, 15 there at the start; one gone: 14 (units 1, 1, 1, 5.5).
    h = nardy.start.copy()
    h[24], h[18] = 14, 1
    e = blocks(VARIANT_ROTATE, h)
    np.testing.assert_array_equal(e["our_points"].reshape(24, 4)[24 - 1], [1, 1, 1, 5.5])
    np.testing.assert_array_equal(e["their_points"].reshape(24, 4)[24 - 1], [1, 1, 1, 6])
    assert e["our_at_start"][0] == 1 and e["their_at_start"][0] == 1


def test_the_shipped_acey_deucey_bot_loads_and_plays_legal_games():
    """Two games only (a 1-2 has thousands of whole turns); its strength is in its report."""
    bot = make_player("bgnet", "acey-deucey")  # the shipped network of the game
    assert isinstance(bot, NetPlayer) and bot.variant is not None and bot.variant.name == "acey-deucey"
    seen = [0]
    engine = Lockstep(
        2, 2, np.random.default_rng(0), variant=bot.variant, dice=lambda g: duplicate_dice(11, g, 2000)
    )
    choose = duel((checked(bot.choose, seen), RandomPlayer(seed=4).choose))
    finished: list[FinishedGame] = []
    while engine.running:
        finished += engine.step(choose)
    assert len(finished) == 2 and seen[0] > 20 and all(g.points != 0 for g in finished)
