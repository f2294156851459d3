"""``bgnet web`` with the variants: sessions of plakoto, fevga, tavli ... through the JSON API.

The server runs for real (uvicorn in a thread, as in ``test_web``); the
person's plays are checked against the variant's own generator, and every
play of the bot is replayed: its board after the move must be one of the
legal results of the position it moved from.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_web import bot, call, ckpt, serving  # noqa: F401  (fixtures)

pytest.importorskip("starlette", reason="the web extra (starlette, uvicorn) is not installed")

from bgnet.cli import main  # noqa: E402
from bgnet.dice import Dice  # noqa: E402
from bgnet.variant_format import legal_variant_plays, parse_variant_position  # noqa: E402
from bgnet.variants import variant  # noqa: E402
from bgnet.web.app import create_app  # noqa: E402


@pytest.fixture(scope="module")
def url(bot):  # noqa: F811
    with serving(create_app(bot, variant="plakoto", variant_bot="greedy")) as base:
        yield base


def _new(url, **body):
    status, state = call(url, "POST", "/api/games", body=body)
    assert status == 201, state
    return state


def _bot_moves_are_legal(game, before: np.ndarray, events: list[dict]) -> np.ndarray:
    """Replay the bot's moves of ``events`` from ``before`` (the person's view); the board after them."""
    for ev in events:
        if ev["kind"] != "move" or ev["who"] != "bgnet":
            continue
        assert len(ev["board"]) == 52
        theirs = game.flip(before)  # the bot's view before its move
        batch = game.generate(theirs[None, :], np.array([ev["dice"]]))
        results = {tuple(int(x) for x in batch.positions[r]) for r in batch.rows(0)}
        if ev["play"]:
            assert tuple(ev["board"]) in results, ev
        else:
            assert not results and ev["board"] == [int(x) for x in before]
        before = np.array(ev["board"], dtype=np.int8)
    return before


def _play_out(url, state: dict, rng: np.random.Generator) -> dict:
    """Play the person's side of the current game with random legal plays until it ends."""
    sid = state["id"]
    game = variant(state["variant"])
    before = game.start.copy()  # every start is the same from either side
    for _ in range(600):
        before = _bot_moves_are_legal(game, before, state["events"])
        assert state["board"] == [int(x) for x in before]
        if state["phase"] == "over":
            return state
        assert state["actor"] == "you" and state["rules"]["capture"] in ("hit", "pin", "none")
        board = np.array(state["board"], dtype=np.int8)
        plays = legal_variant_plays(game, board, Dice.of(*state["dice"]))
        assert [p["play"] for p in state["legal"]] == [p.notation for p in plays]
        for shown, p in zip(state["legal"], plays, strict=True):
            assert shown["board"] == [int(x) for x in game.flip(p.position)] and shown["again"] is False
        # The position text is the person's view, exactly.
        _, back = parse_variant_position(state["position"])
        assert back.tolist() == state["board"]
        k = int(rng.integers(len(plays)))
        before = game.flip(plays[k].position)
        status, state = call(url, "POST", f"/api/games/{sid}/move", body={"play": plays[k].notation})
        assert status == 200, state
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("label", ["plakoto", "fevga", "tavla"])
def test_a_whole_variant_game_through_the_api(url, label):
    state = _new(url, variant=label, seed=4)
    assert state["variant"] == label and state["cube"] is None
    assert state["events"][0]["kind"] == "opening" and state["events"][0]["variant"] == label
    state = _play_out(url, state, np.random.default_rng(1))
    assert state["result"]["points"] in (0, 1, 2) and state["result"]["text"]
    assert state["match"]["over"] is False  # one game after another: the session goes on
    status, state = call(url, "POST", f"/api/games/{state['id']}/next")
    assert status == 200 and state["match"]["game"] == 2


def test_a_tavli_match_plays_portes_plakoto_fevga_in_turn_and_the_winner_starts(url):
    state = _new(url, variant="tavli", length=3, seed=8)
    rng = np.random.default_rng(2)
    seen = []
    while True:
        seen.append(state["variant"])
        state = _play_out(url, state, rng)
        if state["match"]["over"]:
            break
        winner = state["result"]["winner"]
        status, state = call(url, "POST", f"/api/games/{state['id']}/next")
        assert status == 200
        opening = state["events"][0]
        assert opening["kind"] == "opening"
        if winner is not None:  # the winner rolls for the first turn: no opening roll
            assert opening["first"] == winner and "dice" not in opening
    assert seen[:3] == ["portes", "plakoto", "fevga"][: len(seen[:3])]
    assert max(state["match"]["score"].values()) >= 3 and state["match"]["winner"] in ("you", "bgnet")
    status, doc = call(url, "POST", f"/api/games/{state['id']}/next")
    assert status == 409 and "match is over" in doc["error"]


def test_the_servers_default_game_and_the_list_of_games(url):
    state = _new(url, seed=1)  # no variant given: the server's --variant
    assert state["variant"] == "plakoto"
    status, doc = call(url, "GET", "/api/variants")
    assert status == 200 and doc["default"] == "plakoto"
    assert {"backgammon", "plakoto", "fevga", "tavla", "portes", "tavli"} <= set(doc["games"])
    backgammon = _new(url, variant="backgammon", seed=1)
    assert "variant" not in backgammon and backgammon["cube"]["value"] == 1


def test_variant_sessions_refuse_bad_input_with_one_line(url):
    for body, words in [
        ({"variant": "chess"}, "unknown variant 'chess'"),
        ({"variant": 7}, "variant must be a game's label"),
        ({"variant": "plakoto+no-dice"}, "unknown house rule"),
        ({"variant": "fevga", "jacoby": True}, "the variant games have no cube"),
        ({"variant": "fevga", "length": 40}, "length must be"),
    ]:
        status, doc = call(url, "POST", "/api/games", body=body)
        assert status == 400 and words in doc["error"], (body, doc)
    state = _new(url, variant="plakoto", seed=6)
    sid = state["id"]
    for action in ("roll", "double", "resign"):
        status, doc = call(url, "POST", f"/api/games/{sid}/{action}")
        assert status == 409 and "not an action of a variant game" in doc["error"]
    status, doc = call(url, "POST", f"/api/games/{sid}/move", body={"play": "1/off"})
    assert status == 409 and set(doc) == {"error"}
    status, doc = call(url, "POST", f"/api/games/{sid}/move", body={"play": 3})
    assert status == 409 and "give the play" in doc["error"]
    status, doc = call(url, "GET", f"/api/games/{sid}/mat")
    assert status == 409 and "backgammon" in doc["error"]
    assert call(url, "GET", f"/api/games/{sid}")[1]["phase"] == "move"  # nothing happened


def test_the_hint_is_the_bots_choice_among_the_legal_plays(url):
    state = _new(url, variant="fevga", seed=12)
    status, hint = call(url, "GET", f"/api/games/{state['id']}/hint")
    assert status == 200 and hint["variant"] == "fevga"
    assert hint["best"] in [p["play"] for p in call(url, "GET", f"/api/games/{state['id']}")[1]["legal"]]


def test_bgnet_web_refuses_an_unknown_variant(capsys):
    assert main(["web", "--variant", "chess", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown variant 'chess'" in err and err.count("\n") == 1
