"""Variant baselines, ``bench play --variant``, ``play --variant`` (tavli included) and ``watch_variant``."""

from __future__ import annotations

import argparse
import io
import json

import numpy as np
import pytest

from bgnet import arena
from bgnet.baselines import GreedyPlayer, hit_chance
from bgnet.checkpoint import DEFAULT
from bgnet.cli import main
from bgnet.commands import variant_play
from bgnet.commands.variant_play import (
    Console,
    VariantSession,
    default_bot_spec,
    match_games,
    run_variant_play,
    watch_variant,
)
from bgnet.players import PlayerError, RandomPlayer, make_player
from bgnet.position import STARTING
from bgnet.variants import VARIANTS, VSLOTS, variant, widen

GAMES = ("backgammon", "nackgammon", "portes", "tavla", "plakoto", "fevga")


# --------------------------------------------------------------------------
# The baselines
# --------------------------------------------------------------------------


@pytest.mark.parametrize("label", GAMES)
def test_greedy_beats_random_clearly_in_every_game(label):
    games = 60 if label in ("plakoto", "fevga") else 100
    result = arena.play("greedy", "random:seed=7", games, seed=11, variant=variant(label))
    assert result.illegal == []
    low = result.ppg - result.ci95
    assert low > 1.0, f"{label}: greedy vs random {result.ppg:+.3f} +- {result.ci95:.3f}"
    assert result.win_rate > 0.85


@pytest.mark.slow
@pytest.mark.parametrize("label", GAMES)
def test_greedy_beats_random_over_a_thousand_games(label):
    result = arena.play("greedy", "random", 1000, seed=2, variant=variant(label))
    assert result.ppg - result.ci95 > 1.2 and result.illegal == []


def test_greedy_pins_the_mother_when_that_wins_plakoto():
    game = variant("plakoto")
    board = np.zeros(VSLOTS, np.int8)
    board[[2, 3, 4, 5, 6]] = [3, 3, 3, 3, 3]  # all 15 of ours at home, none on our start
    board[1] = -1  # their mother, alone on their start (our 1)
    board[20] = -14
    batch = game.generate(board[None, :], np.array([[2, 1]]))
    wins = [r for r in batch.rows(0) if game.result(batch.positions[r]) == 2]
    assert wins and len(wins) < len(batch.rows(0))  # pinning it is one choice among others
    row = int(GreedyPlayer(game).choose(batch, np.zeros(1, np.int64))[0])
    assert row in wins


def test_greedy_is_deterministic_and_plays_backgammon_boards_as_variant_boards():
    rng = np.random.default_rng(0)
    dice = rng.integers(1, 7, size=(12, 2))
    from bgnet.movegen import generate

    narrow = generate(np.repeat(STARTING.board[None, :], 12, axis=0), dice)
    wide = VARIANTS["backgammon"].generate(widen(np.repeat(STARTING.board[None, :], 12, axis=0)), dice)
    g = make_player("greedy")
    assert isinstance(g, GreedyPlayer) and g.variant.name == "backgammon"
    a = g.choose(narrow, np.zeros(12, np.int64))
    assert np.array_equal(a, g.choose(narrow, np.zeros(12, np.int64)))
    assert np.array_equal(narrow.positions[a], wide.positions[g.choose(wide, np.zeros(12, np.int64))][:, :26])


def test_hit_chance_counts_the_rolls_that_reach_a_blot():
    blots = np.zeros((1, 24), bool)
    blots[0, 5] = True  # our blot on point 6
    shooters = np.zeros((1, 25), bool)
    shooters[0, 0] = True  # one of theirs on the bar: 6 away
    # rolls with a 6 (11), plus 5-1, 4-2 (4 rolls), 3-3 and 2-2: 17 of 36
    assert hit_chance(blots, shooters)[0, 5] == pytest.approx(17 / 36)
    assert hit_chance(blots, shooters)[0, 4] == 0.0


def test_random_player_plays_variant_boards_and_hashes_widened_boards_as_narrow_ones():
    from bgnet.movegen import generate

    game = variant("fevga")
    boards = np.repeat(game.start[None, :], 4, axis=0)
    dice = np.array([[3, 1], [6, 5], [3, 1], [4, 4]])
    batch = game.generate(boards, dice)
    rows = RandomPlayer(seed=1).choose(batch, np.zeros(4, np.int64))
    lo, hi = batch.offsets[:-1], batch.offsets[1:]
    assert ((rows >= lo) & (rows < hi)).all() and rows[0] - lo[0] == rows[2] - lo[2]
    narrow = generate(np.repeat(STARTING.board[None, :], 4, axis=0), dice)
    wide = VARIANTS["backgammon"].generate(widen(np.repeat(STARTING.board[None, :], 4, axis=0)), dice)
    p = RandomPlayer(seed=5)
    assert np.array_equal(p.choose(narrow, np.zeros(4)), p.choose(wide, np.zeros(4)))


def test_player_specs_for_variants(monkeypatch):
    assert make_player("greedy", "plakoto").variant.name == "plakoto"
    with pytest.raises(PlayerError, match="pubeval plays backgammon's rules only, not fevga"):
        make_player("pubeval", "fevga")
    # backgammon's players play its house rules (a wider choice of plays) on variant boards
    loose = arena.play("pubeval", "random", 4, seed=1, variant=variant("backgammon+no-forced-max"))
    assert loose.illegal == [] and loose.variant == "backgammon+no-forced-max"
    monkeypatch.setattr("bgnet.players.variant_network", lambda name: None)
    with pytest.raises(PlayerError, match="no network is shipped for plakoto"):
        make_player("bgnet", "plakoto")
    with pytest.raises(PlayerError, match="plays backgammon, not tavla"):
        make_player(f"bgnet:checkpoint={DEFAULT}", "tavla")


@pytest.fixture(scope="module")
def tiny_plakoto(tmp_path_factory):
    """An untrained plakoto network (the variant encoder, 8 hidden units), saved as a checkpoint."""
    import torch

    from bgnet import checkpoint
    from bgnet.encoding import variant_encoder
    from bgnet.network import ValueNet

    torch.manual_seed(0)
    encoder = variant_encoder(False)
    model = ValueNet(encoder.width, (8,))
    state = {
        "encoder": encoder.name,
        "encoder_version": encoder.version,
        "shape": model.shape,
        "model": model.state_dict(),
        "variant": "plakoto",
    }
    return checkpoint.save(tmp_path_factory.mktemp("nets") / "plakoto.pt", state)


def test_a_variant_network_plays_its_game_and_no_other(tiny_plakoto):
    spec = f"bgnet:checkpoint={tiny_plakoto}"
    result = arena.play(spec, "greedy", 4, seed=2, variant=variant("plakoto"))
    assert result.games == 4 and result.illegal == []
    with pytest.raises(PlayerError, match="plays plakoto, not fevga"):
        make_player(spec, "fevga")
    with pytest.raises(PlayerError, match="plays plakoto, not backgammon"):
        make_player(spec, "backgammon")


# --------------------------------------------------------------------------
# bench play --variant
# --------------------------------------------------------------------------


def _run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_bench_play_variant_json_has_todays_fields_and_the_variant(capsys):
    code, out, _ = _run(
        ["bench", "play", "--a", "random", "--b", "random:seed=1", "--games", "4", "--json"], capsys
    )
    today = json.loads(out)
    argv = ["bench", "play", "--variant", "plakoto", "--a", "greedy", "--b", "random", "--games", "20"]
    code, out, _ = _run([*argv, "--seed", "3", "--json", "--no-progress"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert set(today) <= set(obj)
    assert obj["variant"] == "plakoto" and obj["games"] == 20 and obj["illegal_plays"] == 0
    assert sum(obj["results"].values()) == 20 and obj["draws"] == obj["results"]["0"]
    assert obj["ppg"] > 0 and obj["ci95"] > 0
    code, out2, _ = _run([*argv, "--seed", "3", "--json", "--no-progress"], capsys)
    assert json.loads(out2)["results"] == obj["results"]
    code, text, _ = _run([*argv, "--no-progress"], capsys)
    assert code == 0 and "games of plakoto" in text and "draws:" in text


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--variant", "portes", "--cube"], "portes is played without the cube: --cube"),
        (["--variant", "backgammon+no-cube", "--match", "3"], "without the cube: --match"),
        (["--variant", "nackgammon", "--cube"], "backgammon only"),
        (["--variant", "shesh-besh"], "unknown variant"),
        (["--variant", "fevga", "--a", "pubeval"], "not fevga"),
    ],
)
def test_bench_play_variant_refuses_what_it_cannot_do(capsys, flags, message):
    code, out, err = _run(["bench", "play", "--b", "random", "--games", "2", *flags], capsys)
    assert code == 2 and message in err and "Traceback" not in err and err.count("\n") == 1


class _Cheat:
    """Plays random, but on every roll with two or more plays returns a row of another roll."""

    name = "cheat"

    def choose(self, batch, player):
        rows = RandomPlayer().choose(batch, player)
        sizes = np.diff(batch.offsets)
        return np.where(sizes > 1, batch.offsets[1:] + 5, rows)


def test_the_referee_catches_an_illegal_variant_play_and_the_match_goes_on():
    result = arena.play(_Cheat(), "greedy", 4, seed=1, variant=variant("tavla"))
    assert result.games == 4 and result.illegal
    first = result.illegal[0]
    assert first.player == "cheat" and first.position.startswith("tavla:")
    assert first.reason == "returned a play that is not a legal play of this roll"


def test_duplicate_dice_mirror_a_reroll_opening_game_with_the_seats_swapped():
    # The same deterministic player in both seats: the two games of a pair are one game, mirrored.
    for label in ("plakoto", "fevga", "tavla"):
        result = arena.play("greedy", "greedy", 8, seed=4, variant=variant(label))
        assert np.array_equal(result.points[0::2], -result.points[1::2]), label
        assert np.array_equal(result.plies[0::2], result.plies[1::2]), label


def test_worker_processes_play_the_same_variant_games():
    one = arena.play("greedy", "random:seed=3", 8, seed=9, slots=2, variant=variant("plakoto"))
    two = arena.play("greedy", "random:seed=3", 8, seed=9, slots=2, jobs=2, variant=variant("plakoto"))
    assert np.array_equal(one.points, two.points) and np.array_equal(one.plies, two.plies)
    assert two.variant == "plakoto"


# --------------------------------------------------------------------------
# play --variant
# --------------------------------------------------------------------------


class _Typist(io.StringIO):
    """A fake stdin that asks ``?`` and then types the first legal play listed, every turn."""

    def __init__(self, out: io.StringIO, extra: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.out = out
        self.extra = list(extra)
        self.typed = 0

    def readline(self, *_args) -> str:  # type: ignore[override]
        if self.extra:
            return self.extra.pop(0) + "\n"
        last = self.out.getvalue().rstrip("\n").splitlines()[-2:]
        listed = [ln for ln in last if ln.startswith("Legal plays: ")]
        if not listed:
            return "?\n"
        self.typed += 1
        return listed[-1][len("Legal plays: ") :].split(", ")[0] + "\n"


def _args(**kw) -> argparse.Namespace:
    base = {"variant": "plakoto", "match": None, "bot": "greedy", "seed": 1, "games": None}
    base.update(kw)
    return argparse.Namespace(**base)


def test_a_whole_game_against_greedy_typed_through_stdin():
    out = io.StringIO()
    stdin = _Typist(out)
    assert run_variant_play(_args(variant="fevga", seed=2), out=out, stdin=stdin) == 0
    text = out.getvalue()
    assert stdin.typed > 5 and text.count("You play ") == stdin.typed
    assert "The bot rolls" in text and (
        "You win the game of fevga" in text or "The bot wins the game" in text
    )
    assert "Games finished: 1" in text


def test_a_whole_game_against_a_network_bot(tiny_plakoto):
    out = io.StringIO()
    stdin = _Typist(out, extra=("hint",))
    args = _args(bot=f"bgnet:checkpoint={tiny_plakoto}", seed=4)
    assert run_variant_play(args, out=out, stdin=stdin) == 0
    text = out.getvalue()
    assert "The bot would play " in text and "Games finished: 1" in text


def test_a_bad_play_gets_one_line_and_a_new_prompt_and_quit_stops_cleanly():
    out = io.StringIO()
    stdin = io.StringIO("24/1\n13/7 13/1 6/off\nquit\n")
    assert run_variant_play(_args(seed=5), out=out, stdin=stdin) == 0
    lines = out.getvalue().splitlines()
    prompts = [i for i, ln in enumerate(lines) if "Your play: " in ln]
    assert len(prompts) == 3
    # each bad play: exactly one line, then the next prompt
    assert prompts[1] == prompts[0] + 2 and prompts[2] == prompts[1] + 2
    assert "not a legal play" in lines[prompts[0] + 1] or "not legal" in lines[prompts[0] + 1]
    assert lines[-2] == "Quit (you quit)." and "Traceback" not in out.getvalue()


def test_the_end_of_the_input_and_ctrl_c_stop_cleanly():
    out = io.StringIO()
    assert run_variant_play(_args(), out=out, stdin=io.StringIO("")) == 0
    assert "Quit (the input ended)." in out.getvalue()

    def interrupt(_prompt):
        raise KeyboardInterrupt

    games = match_games("portes")
    session = VariantSession(
        games,
        [make_player("greedy", games[0])],
        Console(io.StringIO(), reader=interrupt),
        np.random.default_rng(1),
    )
    assert session.run() == 130


def test_hint_and_the_list_show_the_bots_choice_among_the_legal_plays():
    out = io.StringIO()
    run_variant_play(_args(variant="tavla", seed=8), out=out, stdin=io.StringIO("?\nhint\nquit\n"))
    text = out.getvalue()
    listed = next(ln for ln in text.splitlines() if ln.startswith("Legal plays: "))
    hint = next(ln for ln in text.splitlines() if ln.startswith("The bot would play "))
    assert hint[len("The bot would play ") : -1] in listed[len("Legal plays: ") :].split(", ")


def _scripted(label: str, length: int, seed: int) -> tuple[VariantSession, str]:
    out = io.StringIO()
    holder: dict[str, VariantSession] = {}
    games = match_games(label)
    session = VariantSession(
        games,
        [make_player("greedy", g) for g in games],
        Console(out, reader=lambda _p: holder["s"].plays[0].notation),
        np.random.default_rng(seed),
        length=length,
    )
    holder["s"] = session
    assert session.run() == 0
    return session, out.getvalue()


def test_a_tavli_match_plays_portes_plakoto_and_fevga_in_turn_to_n_points():
    session, text = _scripted("tavli", 7, 3)
    labels = [r[0] for r in session.results]
    assert len(labels) >= 3 and labels == [("portes", "plakoto", "fevga")[k % 3] for k in range(len(labels))]
    you = sum(p for _, w, p in session.results if w == 1)
    bot = sum(p for _, w, p in session.results if w == 0)
    assert [bot, you] == session.score and max(session.score) >= 7
    _, last_winner, last_points = session.results[-1]
    assert last_winner is not None and session.score[last_winner] - last_points < 7  # stopped on reaching 7
    assert text.count("Opening roll") == 1 + sum(w is None for _, w, _ in session.results[:-1])
    assert text.count("won the last game and start") == len(labels) - text.count("Opening roll")
    assert f"the 7-point match {max(session.score)}-{min(session.score)}" in text


def test_a_match_of_one_game_and_tavli_with_house_rules():
    session, _ = _scripted("portes", 3, 6)
    assert {r[0] for r in session.results} == {"portes"} and max(session.score) >= 3
    assert [g.label for g in match_games("tavli+no-forced-max")] == [
        "portes+no-forced-max",
        "plakoto+no-forced-max",
        "fevga+no-forced-max",
    ]
    out = io.StringIO()
    run_variant_play(_args(variant="tavli"), out=out, stdin=io.StringIO(""))
    assert "a 5-point match of portes (greedy), plakoto (greedy), fevga (greedy)" in out.getvalue()


def test_add_variant_arguments_gives_play_its_variant_options():
    parser = argparse.ArgumentParser()
    parser.add_argument("--match", type=int)
    parser.add_argument("--games", type=int)
    parser.add_argument("--seed", type=int)
    variant_play.add_variant_arguments(parser)
    args = parser.parse_args(["--variant", "fevga", "--match", "3", "--bot", "random:seed=2", "--seed", "1"])
    out = io.StringIO()
    assert run_variant_play(args, out=out, stdin=io.StringIO("")) == 0
    assert "a 3-point match of fevga (random:seed=2)" in out.getvalue()


def test_the_default_bot_is_the_shipped_network_else_greedy_with_a_note(monkeypatch, tmp_path):
    # backgammon's moves: backgammon's network plays it
    assert make_player(default_bot_spec("portes"), "portes").name.startswith("bgnet")
    monkeypatch.setattr(variant_play, "variant_network", lambda name: None)
    assert default_bot_spec("plakoto") == "greedy"
    out = io.StringIO()
    run_variant_play(_args(bot=None), out=out, stdin=io.StringIO(""))
    assert "No network is shipped for plakoto yet: the bot is greedy" in out.getvalue()
    monkeypatch.setattr(variant_play, "variant_network", lambda name: tmp_path / f"{name}.pt")
    assert default_bot_spec("plakoto").startswith("bgnet")


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"checkpoint": "x.pt"}, "--bot bgnet:checkpoint=PATH"),
        ({"save": "x.mat"}, "--save is for backgammon"),
        ({"match": 0}, "1 point or more"),
        ({"variant": "sheshbesh"}, "unknown variant"),
    ],
)
def test_play_variant_refuses_bad_options_in_one_line(capsys, kw, message):
    from bgnet.errors import BgnetError

    with pytest.raises(BgnetError) as e:
        run_variant_play(_args(**kw), out=io.StringIO(), stdin=io.StringIO(""))
    assert message in str(e.value) and "\n" not in str(e.value)


# --------------------------------------------------------------------------
# watch
# --------------------------------------------------------------------------


def test_watch_variant_prints_every_ply_of_a_finished_game():
    out = io.StringIO()
    assert watch_variant("plakoto", "greedy", "random", 3, out) == 0
    text = out.getvalue()
    plies = text.count(" rolls ")
    assert plies > 10 and text.count(" plakoto\n") == plies + 1  # a board per ply and the final one
    assert text.rstrip().splitlines()[-1].endswith(("points.", "point.", "0 points."))


def test_watch_the_backgammon_network_play_portes():
    out = io.StringIO()
    assert watch_variant("portes", "bgnet", "greedy", 1, out) == 0
    assert "X (bgnet)" in out.getvalue() or "O (greedy) wins" in out.getvalue()
    with pytest.raises(Exception, match="watch plays one game"):
        watch_variant("tavli", "greedy", "greedy", 1, io.StringIO())
