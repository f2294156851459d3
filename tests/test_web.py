"""``bgnet web``'s server: the JSON API against the CLI, bad input, sessions, whole games, the command.

The server runs for real (uvicorn on 127.0.0.1, a free port) in a thread of
the test process, with a tiny network at 0-ply; calls go through urllib.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import numpy as np
import pytest
from boards import first_line, tiny_checkpoint

pytest.importorskip("starlette", reason="the web extra (starlette, uvicorn) is not installed")
uvicorn = pytest.importorskip("uvicorn", reason="the web extra (starlette, uvicorn) is not installed")

from bgnet.cli import main  # noqa: E402
from bgnet.dice import Dice  # noqa: E402
from bgnet.formats import parse_position, position_id  # noqa: E402
from bgnet.matfile import parse_mat  # noqa: E402
from bgnet.notation import legal_plays  # noqa: E402
from bgnet.players import NetPlayer  # noqa: E402
from bgnet.position import Position, flip  # noqa: E402
from bgnet.web.app import create_app  # noqa: E402
from bgnet.web.session import WebGame  # noqa: E402

START = "4HPwATDgc/ABMA"
XGID_ROLLED = "XGID=-b----E-C---eE---c-e----B-:1:1:1:31:3:2:0:7:10"


@contextlib.contextmanager
def serving(app):
    """``app`` served by uvicorn on 127.0.0.1 (a free port) in a thread; yields the base URL."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def ckpt(tmp_path_factory):
    return str(tiny_checkpoint(tmp_path_factory.mktemp("net") / "tiny.pt"))


@pytest.fixture(scope="module")
def bot(ckpt):
    return NetPlayer.from_checkpoint(ckpt, ply=0)


@pytest.fixture(scope="module")
def url(bot):
    with serving(create_app(bot)) as base:
        yield base


def call(base: str, method: str, path: str, body=None, params=None, raw: bytes | None = None):
    """(status, decoded JSON or text) of one request."""
    target = base + path + ("?" + urllib.parse.urlencode(params) if params else "")
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    headers = {"Content-Type": "application/json"}
    req = urllib.request.Request(target, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            status, text, kind = r.status, r.read().decode(), r.headers.get("Content-Type", "")
    except urllib.error.HTTPError as e:
        status, text, kind = e.code, e.read().decode(), e.headers.get("Content-Type", "")
    return status, json.loads(text) if "json" in kind else text


def cli_json(capsys, *argv) -> dict:
    assert main(list(argv)) == 0
    return json.loads(capsys.readouterr().out)


# -- analysis: the same JSON as the command ------------------------------------------------------


@pytest.mark.parametrize(
    "params, argv",
    [
        ({"position": START, "dice": "31"}, [START, "--dice", "31"]),
        ({"position": START, "dice": "3-1", "ply": "1"}, [START, "--dice", "3-1", "--ply", "1"]),
        ({"position": START}, [START]),
        ({"position": XGID_ROLLED}, [XGID_ROLLED]),
        ({"position": "4HPwATDgc/ABMA:cIkWAAAAAAAA", "ply": "0"}, ["4HPwATDgc/ABMA:cIkWAAAAAAAA"]),
    ],
    ids=["31", "31 at 1-ply", "cube decision", "xgid with dice", "match id"],
)
def test_api_analyze_returns_the_json_of_bgnet_analyze(url, ckpt, capsys, params, argv):
    status, doc = call(url, "GET", "/api/analyze", params=params)
    assert status == 200
    assert doc == cli_json(capsys, "analyze", *argv, "--checkpoint", ckpt, "--json")
    if doc["dice"] is not None:  # the dice given, or the XGID's
        assert doc["plays"] and doc["plays"][0]["loss"] == 0.0
    else:
        assert doc["cube"]["action"]


def test_api_position_gives_the_board_and_the_ids_to_copy(url):
    status, doc = call(url, "GET", "/api/position", params={"position": XGID_ROLLED})
    assert status == 200
    assert doc["xgid"] == XGID_ROLLED and doc["position_id"] == START
    assert doc["dice"] == [3, 1] and doc["pips"] == [167, 167]
    assert doc["cube"] == {"value": 2, "owner": "me", "match_length": 7, "score": [3, 2], "crawford": False}
    assert doc["board"] == [int(x) for x in parse_position(START)[0].board]
    status, doc = call(url, "GET", "/api/position", params={"position": "4HPwATDgc/ABMA:cIkWAAAAAAAA"})
    assert doc["match_id"] == "cIkWAAAAAAAA" and doc["xgid"].startswith("XGID=-b----E-C---eE---c-e----B-:")


def test_api_position_takes_a_board_set_up_by_hand(url):
    board = [0] * 26
    board[1], board[6], board[24], board[0] = 2, 3, -2, -1
    status, doc = call(url, "GET", "/api/position", params={"board": ",".join(map(str, board))})
    assert status == 200 and doc["board"] == board
    assert doc["position_id"] == position_id(np.array(board, dtype=np.int8)) and doc["match_id"] is None
    for bad, words in [
        ("1,2,3", "26 counts"),
        ("a," * 25 + "b", "whole numbers"),
        (",".join(["0"] + ["2"] * 25), "at most 15"),
        (",".join(["0"] * 25 + ["1"]), "the game is over"),
    ]:
        status, doc = call(url, "GET", "/api/position", params={"board": bad})
        assert status == 400 and set(doc) == {"error"} and words in doc["error"], doc


@pytest.mark.parametrize(
    "params, words",
    [
        ({}, "give a position"),
        ({"position": "nonsense"}, "not a GNUBG Position ID"),
        ({"position": START, "dice": "71"}, "a die shows 1 to 6"),
        ({"position": START, "dice": "x"}, "dice must be two digits"),
        ({"position": START, "ply": "3"}, "ply must be 0 to 2"),
        ({"position": START, "ply": "two"}, "ply must be a whole number"),
        ({"position": "AAAAAAAAAAAAAA"}, ""),
        ({"position": START, "xgid": XGID_ROLLED, "match_id": "cIkWAAAAAAAA"}, "not both"),
    ],
)
def test_bad_analysis_input_is_a_400_naming_the_problem(url, params, words):
    status, doc = call(url, "GET", "/api/analyze", params=params)
    assert status == 400, doc
    assert set(doc) == {"error"} and words in doc["error"]
    if "position" in params and "xgid" not in params:
        assert call(url, "GET", "/api/position", params=params)[0] in (200, 400)


def test_bad_requests_get_json_errors_never_a_500(url):
    cases = [
        ("GET", "/nowhere", None, None, 404, "no such page"),
        ("DELETE", "/api/games", None, None, 405, "not allowed"),
        ("POST", "/api/games", None, b"{not json", 400, "not JSON"),
        ("POST", "/api/games", [1, 2], None, 400, "JSON object"),
        ("POST", "/api/games", {"length": 26}, None, 400, "length must be"),
        ("POST", "/api/games", {"length": "5"}, None, 400, "length must be"),
        ("POST", "/api/games", {"length": 5, "jacoby": True}, None, 400, "money play"),
        ("POST", "/api/games", {"seed": -1}, None, 400, "seed"),
        ("GET", "/api/games/nosuchgame", None, None, 404, "games live in memory"),
        ("POST", "/api/games/nosuchgame/roll", None, None, 404, "no game"),
    ]
    for method, path, body, raw, code, words in cases:
        status, doc = call(url, method, path, body=body, raw=raw)
        assert (status, set(doc)) == (code, {"error"}), (method, path, doc)
        assert words in doc["error"], doc


def _new(url, **body):
    status, s = call(url, "POST", "/api/games", body=body)
    assert status == 201, s
    return s


def test_actions_out_of_turn_or_illegal_are_refused_with_the_reason(url):
    s = _new(url, length=0, seed=3)
    sid = s["id"]
    assert s["actor"] == "you"
    phase = s["phase"]
    assert phase in ("roll", "move")
    status, doc = call(url, "POST", f"/api/games/{sid}/take")
    assert status == 409 and "you cannot take now" in doc["error"]
    status, doc = call(url, "POST", f"/api/games/{sid}/fly")
    assert status == 404 and "unknown action" in doc["error"]
    if phase == "roll":
        s = call(url, "POST", f"/api/games/{sid}/roll")[1]
    status, doc = call(url, "POST", f"/api/games/{sid}/move", body={"play": "1/off"})
    assert status == 400 and set(doc) == {"error"}
    status, doc = call(url, "POST", f"/api/games/{sid}/move", body={"play": 5})
    assert status == 409 and "give the play" in doc["error"]
    assert call(url, "GET", f"/api/games/{sid}")[1]["phase"] == "move"  # nothing happened


def _play_game(url, sid: str, state: dict, *, double: bool = False) -> dict:
    """Play the person's side of the current game through the API: the first legal play, take, roll."""
    doubled = False
    for _ in range(500):
        if state["phase"] == "over":
            return state
        assert state["actor"] == "you", state
        if state["phase"] == "roll":
            action = "double" if double and state["may_double"] and not doubled else "roll"
            doubled = doubled or action == "double"
            status, state = call(url, "POST", f"/api/games/{sid}/{action}")
        elif state["phase"] == "doubled":
            status, state = call(url, "POST", f"/api/games/{sid}/take")
        else:
            board = np.array(state["board"], dtype=np.int8)
            plays = legal_plays(Position(board), Dice.of(*state["dice"]))
            assert [p["play"] for p in state["legal"]] == [p.notation for p in plays]
            assert state["legal"][0]["board"] == [int(x) for x in flip(plays[0].position.board)]
            status, state = call(url, "POST", f"/api/games/{sid}/move", body={"play": plays[0].notation})
        assert status == 200, state
        for ev in state["events"]:
            if ev["kind"] == "move" and ev["who"] == "bgnet":
                assert len(ev["board"]) == 26 and ev["dice"][0] >= ev["dice"][1]
    raise AssertionError("the game did not end")


def test_a_whole_match_through_the_api_and_its_mat_record(url):
    s = _new(url, length=3, seed=11)
    sid = s["id"]
    assert s["events"][0]["kind"] == "opening"
    games = 0
    while True:
        s = _play_game(url, sid, s, double=True)
        games += 1
        assert s["result"]["points"] >= 1 and s["result"]["text"]
        if s["match"]["over"]:
            break
        status, doc = call(url, "POST", f"/api/games/{sid}/next")
        assert status == 200 and doc["match"]["game"] == games + 1
        s = doc
    assert max(s["match"]["score"].values()) >= 3
    status, doc = call(url, "POST", f"/api/games/{sid}/next")
    assert status == 409 and "match is over" in doc["error"]
    status, text = call(url, "GET", f"/api/games/{sid}/mat")
    assert status == 200 and " 3 point match" in text
    back = parse_mat(text)  # gnubg's format, replayed through the rules
    assert back.score == [s["match"]["score"]["bgnet"], s["match"]["score"]["you"]]
    assert len(back.games) == games


def test_sessions_of_different_tabs_are_isolated(url):
    a = _new(url, length=0, seed=1)
    b = _new(url, length=5, seed=2)
    assert a["id"] != b["id"]
    before = call(url, "GET", f"/api/games/{b['id']}")[1]
    _play_game(url, a["id"], a)
    after = call(url, "GET", f"/api/games/{b['id']}")[1]
    before.pop("events"), after.pop("events")
    assert before == after
    assert after["match"]["length"] == 5 and call(url, "GET", f"/api/games/{a['id']}")[1]["phase"] == "over"


def test_resigning_ends_the_game_when_bgnet_accepts(url):
    s = _new(url, length=0, seed=5)
    sid = s["id"]
    status, s = call(url, "POST", f"/api/games/{sid}/resign", body={"level": "backgammon"})
    assert status == 200
    assert s["phase"] == "over" and s["result"]["how"] == "resign" and s["result"]["winner"] == "bgnet"
    assert s["result"]["points"] == 3
    status, doc = call(url, "POST", f"/api/games/{sid}/resign", body={"level": "huge"})
    assert status == 409


def test_hint_is_the_analysis_of_the_persons_decision(url, ckpt, capsys):
    s = _new(url, length=0, seed=4)
    sid = s["id"]
    if s["phase"] == "roll":
        status, h = call(url, "GET", f"/api/games/{sid}/hint")
        assert status == 200 and h["dice"] is None and h["for"] == "you" and h["cube"]["action"]
        s = call(url, "POST", f"/api/games/{sid}/roll")[1]
    status, h = call(url, "GET", f"/api/games/{sid}/hint")
    assert status == 200 and h["dice"] == s["dice"]
    assert sorted(p["play"] for p in h["plays"]) == sorted(p["play"] for p in s["legal"])
    pid, mid = s["position_id"], s["match_id"]
    cli = cli_json(capsys, "analyze", f"{pid}:{mid}", "--checkpoint", ckpt, "--json")
    assert [p["play"] for p in h["plays"]] == [p["play"] for p in cli["plays"]]
    assert all(len(p["probabilities"]) == 5 for p in h["plays"])


# -- the rules of the session, with a bot that always doubles and beavers -------------------------


class Eager:
    """A bot that plays its first legal play, doubles whenever it may, takes and beavers."""

    name = "eager"
    ply = 0
    evaluator = None

    def choose(self, batch, player=None):
        sizes = np.diff(batch.offsets)
        return np.where(sizes > 0, batch.offsets[:-1], -1)

    def double(self, boards, states):
        return np.ones(len(boards), dtype=bool)

    def take(self, boards, states):
        return np.ones(len(boards), dtype=bool)

    def accept(self, boards, levels):
        return np.zeros(len(boards), dtype=bool)

    def answer(self, board, state):
        return "beaver"


def _to_persons_roll(web: WebGame) -> None:
    for _ in range(10):
        g = web.game
        if g.phase.value == "roll" and g.actor == 1:
            return
        if g.phase.value == "move":
            play = legal_plays(Position(g.board, validate=False), g.dice)[0]
            web.act("move", {"play": play.notation})
        elif g.phase.value == "doubled":
            web.act("take", {})
    raise AssertionError("no roll of the person's came")


def test_bgnet_beavers_the_persons_double_and_the_cube_stays_with_the_doubler():
    web = WebGame(Eager(), 0, beavers=True, seed=1)
    _to_persons_roll(web)
    before = web.game.cube.value
    web.act("double", {})
    s = web.state()
    assert s["cube"] == {"value": 4 * before, "owner": "you"}
    kinds = [(e["kind"], e.get("who")) for e in s["events"]]
    assert kinds[-2:] == [("beaver", "bgnet"), ("roll", "you")]  # the doubler rolls at once
    assert s["phase"] == "move" and s["actor"] == "you"
    assert any(a.kind == "beaver" for a in web.game.actions)


def test_the_person_may_beaver_only_with_beavers():
    web = WebGame(Eager(), 0, beavers=True, seed=2)
    # Play until bgnet (which doubles whenever it may) has doubled and the person must answer.
    for _ in range(10):
        g = web.game
        if g.phase.value == "doubled":
            break
        if g.phase.value == "roll":
            web.act("roll", {})
        else:
            web.act("move", {"play": legal_plays(Position(g.board, validate=False), g.dice)[0].notation})
    assert web.state()["may_beaver"]
    before = web.game.cube.value
    web.act("beaver", {})
    s = web.state()
    assert s["cube"] == {"value": 4 * before, "owner": "bgnet"}
    assert s["phase"] == "move" and s["actor"] == "you"  # bgnet rolled and played: no second double
    plain = WebGame(Eager(), 0, seed=2)
    for _ in range(10):
        g = plain.game
        if g.phase.value == "doubled":
            break
        if g.phase.value == "roll":
            plain.act("roll", {})
        else:
            plain.act("move", {"play": legal_plays(Position(g.board, validate=False), g.dice)[0].notation})
    assert not plain.state()["may_beaver"]
    with pytest.raises(Exception, match="beavers are allowed only"):
        plain.act("beaver", {})


def test_the_persons_dice_are_rolled_for_them_where_they_may_not_double():
    """As in ``bgnet play``: no roll-or-double question when the cube cannot be turned (bgnet owns it)."""
    web = WebGame(Eager(), 0, seed=3)  # no beavers: its beaver is a take
    _to_persons_roll(web)
    web.state()
    web.act("double", {})
    s = web.state()
    assert s["cube"] == {"value": 2, "owner": "bgnet"}
    kinds = [(e["kind"], e["who"]) for e in s["events"]]
    assert kinds[:3] == [("double", "you"), ("take", "bgnet"), ("roll", "you")]
    assert s["phase"] == "move" and s["actor"] == "you" and not s["may_double"]


# -- the command ------------------------------------------------------------------------------


def test_web_help_does_not_import_torch_or_the_web_stack():
    probe = (
        "import sys, bgnet.cli\n"
        "try:\n    bgnet.cli.main(['web', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('torch', 'starlette', 'uvicorn') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120).stdout
    assert "--port" in out and out.strip().endswith("[]")


def test_web_refuses_a_bad_ply_and_a_busy_port(capsys):
    assert main(["web", "--ply", "5"]) == 2
    assert "ply must be 0 to 2" in capsys.readouterr().err
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        assert main(["web", "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}: the port is in use" in capsys.readouterr().err


def test_web_refuses_a_bad_bot_spec_before_serving(capsys):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    for bot, says in [
        ("bgnet:device=tpu", "option device of player bgnet must be auto, cpu, cuda or cuda:N, not 'tpu'"),
        ("xg", "unknown player 'xg'"),
    ]:
        assert main(["web", "--variant", "plakoto", "--bot", bot, "--port", str(port)]) == 2
        err = capsys.readouterr().err
        assert says in err and err.count("\n") == 1, err


@pytest.mark.slow
def test_bgnet_web_prints_its_url_and_serves_the_pages(ckpt):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "bgnet.cli", "web", "--port", str(port), "--ply", "0", "--checkpoint", ckpt],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        line = first_line(proc, timeout=120)
        assert f"http://127.0.0.1:{port}/" in line
        base = f"http://127.0.0.1:{port}"
        for _ in range(100):
            try:
                status, page = call(base, "GET", "/")
                break
            except urllib.error.URLError:
                time.sleep(0.1)
        assert status == 200 and "/static/board.js" in page
        assert call(base, "GET", "/analysis")[0] == 200
        status, js = call(base, "GET", "/static/board.js")
        assert (
            status == 200
            and "class Turn" in js
            and "http" not in js.replace("http://www.w3.org/2000/svg", "")
        )
        assert call(base, "GET", "/api/analyze", params={"position": START, "dice": "31"})[0] == 200
    finally:
        proc.terminate()
        proc.wait(timeout=30)
