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
from bgnet.web import variant_session as vs  # noqa: E402
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
        again = batch.again if batch.again is not None else np.zeros(len(batch.positions), bool)
        results = {(tuple(int(x) for x in batch.positions[r]), bool(again[r])) for r in batch.rows(0)}
        if ev["play"]:
            # A repeated turn leaves the bot on roll: the person sees the row's position flipped.
            seen = game.flip(np.array(ev["board"], np.int8)) if ev["again"] else ev["board"]
            assert (tuple(int(x) for x in seen), ev["again"]) in results, ev
        else:
            assert not results and ev["board"] == [int(x) for x in before]
        before = np.array(ev["board"], dtype=np.int8)
    return before


def _play_out(url, state: dict, rng: np.random.Generator) -> tuple[dict, dict[str, int]]:
    """Play the person's side of the current game with random legal plays until it ends; the last state
    and how many repeated turns (acey-deucey's 1-2) either side had."""
    sid = state["id"]
    game = variant(state["variant"])
    before = game.start.copy()  # every start is the same from either side
    repeats = {"you": 0, "bgnet": 0}
    for _ in range(600):
        before = _bot_moves_are_legal(game, before, state["events"])
        for ev in state["events"]:
            repeats[ev.get("who", "")] = repeats.get(ev.get("who", ""), 0) + int(ev.get("again", False))
        assert state["board"] == [int(x) for x in before]
        if state["phase"] == "over":
            return state, repeats
        assert state["actor"] == "you" and state["rules"]["capture"] in ("hit", "pin", "none")
        board = np.array(state["board"], dtype=np.int8)
        plays = legal_variant_plays(game, board, Dice.of(*state["dice"]))
        # At most MAX_LISTED are listed (a 1-2 can have thousands); legal_total counts them all.
        assert state["legal_total"] == len(plays) and len(state["legal"]) == min(len(plays), vs.MAX_LISTED)
        listed = plays[: len(state["legal"])]
        assert [p["play"] for p in state["legal"]] == [p.notation for p in listed]
        batch = game.generate(board[None, :], np.array([state["dice"]]))
        for shown, p in zip(state["legal"], listed, strict=True):
            again = bool(batch.again[p.row]) if batch.again is not None else False
            after = p.position if again else game.flip(p.position)  # seen by the person
            assert shown["board"] == [int(x) for x in after] and shown["again"] is again
        # The position text is the person's view, exactly.
        _, back = parse_variant_position(state["position"])
        assert back.tolist() == state["board"]
        k = int(rng.integers(len(plays)))
        again_k = bool(batch.again[plays[k].row]) if batch.again is not None else False
        before = plays[k].position.copy() if again_k else game.flip(plays[k].position)
        status, state = call(url, "POST", f"/api/games/{sid}/move", body={"play": plays[k].notation})
        assert status == 200, state
    raise AssertionError("the game did not end")


@pytest.mark.parametrize(
    "label, seed", [("plakoto", 4), ("fevga", 4), ("tavla", 4), ("long-nardy", 4), ("acey-deucey", 6)]
)
def test_a_whole_variant_game_through_the_api(url, label, seed):
    state = _new(url, variant=label, seed=seed)
    assert state["variant"] == label and state["cube"] is None
    assert state["events"][0]["kind"] == "opening" and state["events"][0]["variant"] == label
    state, repeated_turns = _play_out(url, state, np.random.default_rng(1))
    assert 0 <= state["result"]["points"] <= variant(label).max_result and state["result"]["text"]
    assert state["match"]["over"] is False  # one game after another: the session goes on
    if label == "acey-deucey":
        # Both sides played a 1-2 in full and rolled again (seed chosen so): the repeated turns of the
        # person and of the bot went through the session.
        assert repeated_turns["you"] and repeated_turns["bgnet"], repeated_turns
    status, state = call(url, "POST", f"/api/games/{state['id']}/next")
    assert status == 200 and state["match"]["game"] == 2


def test_a_tavli_match_plays_portes_plakoto_fevga_in_turn_and_the_winner_starts(url):
    state = _new(url, variant="tavli", length=3, seed=8)
    rng = np.random.default_rng(2)
    seen = []
    while True:
        seen.append(state["variant"])
        state, _ = _play_out(url, state, rng)
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


def test_a_typed_play_is_read_and_the_listed_plays_are_capped(url, monkeypatch):
    import bgnet.web.variant_session as vs

    state = _new(url, variant="plakoto", seed=3)
    assert state["legal_total"] == len(state["legal"])
    game = variant("plakoto")
    board = np.array(state["board"], dtype=np.int8)
    plays = legal_variant_plays(game, board, Dice.of(*state["dice"]))
    # Typed as a person would: parts in another order, spaces, no marks.
    typed = "  ".join(reversed(plays[-1].notation.replace("^", "").split()))
    status, after = call(url, "POST", f"/api/games/{state['id']}/move", body={"play": typed})
    assert status == 200 and after["events"][0]["play"] == plays[-1].notation
    monkeypatch.setattr(vs, "MAX_LISTED", 1)
    state = _new(url, variant="fevga", seed=5)
    assert len(state["legal"]) == 1 and state["legal_total"] >= 1


def test_the_hint_is_the_bots_choice_among_the_legal_plays(url):
    state = _new(url, variant="fevga", seed=12)
    status, hint = call(url, "GET", f"/api/games/{state['id']}/hint")
    assert status == 200 and hint["variant"] == "fevga"
    assert hint["best"] in [p["play"] for p in call(url, "GET", f"/api/games/{state['id']}")[1]["legal"]]


def test_bgnet_web_refuses_an_unknown_variant(capsys):
    assert main(["web", "--variant", "chess", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown variant 'chess'" in err and err.count("\n") == 1
