"""The ASGI app of ``bgnet web`` (Starlette): the pages, their assets and the JSON API.

Pages: ``/`` (play against bgnet) and ``/analysis``; assets under
``/static/`` ship in the package (``bgnet/web/static``: plain JS, SVG and
CSS, no build step, nothing fetched from elsewhere).

API (every answer JSON; bad input a 4xx with ``{"error": "..."}``):

========================================== ============================================================
``GET /api/analyze?position=P[&dice=31][&ply=N]``  ``bgnet analyze P --dice 31 --ply N --json``'s object
                                                  (without ``dice``: the cube decision); also ``xgid``,
                                                  ``match_id`` as the command's options
``GET /api/position?position=P``           the board (from the side on roll), pips, dice, cube and the
                                           IDs (Position ID, Match ID, XGID) of a pasted position;
                                           ``?board=`` 26 counts: a position set up by hand
``POST /api/games``                        a new session: ``{"length": 0 | N, "jacoby", "beavers",
                                           "seed", "variant"}``; returns its state, with ``id``;
                                           ``variant`` (``plakoto``, ``tavli``, ...; default the
                                           server's ``--variant``) plays a variant game
                                           (:mod:`bgnet.web.variant_session`: no cube; actions
                                           ``move`` and ``next``)
``GET /api/variants``                      the games a session may play (``backgammon``, the variants,
                                           ``tavli``) and the server's default
``GET /api/games/{id}``                    the session's state (see :meth:`WebGame.state`)
``POST /api/games/{id}/{action}``          ``roll``, ``double``, ``take``, ``drop``, ``beaver``,
                                           ``move`` (``{"play": "24/18 13/11"}``), ``resign``
                                           (``{"level": "single"}``), ``next`` (the next game)
``GET /api/games/{id}/hint``               the analysis of the person's decision now
``GET /api/games/{id}/mat``                the record as a ``.mat`` file
========================================== ============================================================

Games live in memory: a restart of the server loses them (download the
``.mat`` to keep one).  Each browser tab starts its own session (its id is
kept in the tab's ``sessionStorage``), so tabs never share a game; the
oldest sessions are dropped past :data:`MAX_SESSIONS`.
"""

from __future__ import annotations

import json
import secrets
import threading
from collections import OrderedDict
from importlib.resources import files

import numpy as np
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from bgnet.commands.analyze import analyze, parse_input
from bgnet.commands.variant_play import TAVLI_POINTS, default_bot_spec, match_games
from bgnet.errors import BgnetError
from bgnet.formats import Xgid, match_id, parse_position, position_id
from bgnet.game import GameError
from bgnet.players import MAX_PLY, NetPlayer, Player, make_player
from bgnet.position import Position, check_in_play
from bgnet.variants import VARIANTS
from bgnet.web.session import ACTIONS, WebGame
from bgnet.web.variant_session import VariantWebGame

__all__ = ["MAX_SESSIONS", "create_app", "ids_of"]

MAX_SESSIONS = 1000
"""Sessions kept in memory; past this the least recently used is dropped."""

STATIC = files("bgnet.web") / "static"


class ApiError(Exception):
    """A request the API refuses: ``status`` and a message naming the problem."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _int(params, name: str, default: int, lo: int, hi: int) -> int:
    text = params.get(name)
    if text is None or text == "":
        return default
    try:
        value = int(text)
    except ValueError:
        raise ApiError(400, f"{name} must be a whole number {lo} to {hi}, got {text!r}") from None
    if not lo <= value <= hi:
        raise ApiError(400, f"{name} must be {lo} to {hi}, got {value}")
    return value


def _board_of(text: str) -> np.ndarray:
    """26 comma-separated counts (bgnet's layout, from the side on roll) as a board array."""
    try:
        slots = [int(x) for x in text.split(",")]
    except ValueError:
        raise ApiError(400, f"board must be 26 comma-separated whole numbers, got {text[:80]!r}") from None
    if len(slots) != 26 or any(not -15 <= x <= 15 for x in slots):
        raise ApiError(400, f"board must be 26 counts from -15 to 15, got {len(slots)} numbers")
    return np.array(slots, dtype=np.int8)


def ids_of(position, info) -> dict:
    """The Position ID, Match ID and XGID of a pasted position (the IDs the analysis page shows)."""
    board = position.board
    out = {"position_id": position_id(board), "match_id": None, "xgid": None}
    if isinstance(info, Xgid):
        out["xgid"] = info.to_string()
        return out
    if info is not None:
        out["match_id"] = match_id(info)
        on_roll = info.player_on_roll
        owner = 0 if info.cube_owner < 0 else (1 if info.cube_owner == on_roll else -1)
        rolled = info.dice if info.dice[0] else None
        xg = Xgid(
            position,
            cube_log2=info.cube_value.bit_length() - 1,
            cube_position=owner,
            dice=f"{rolled[0]}{rolled[1]}" if rolled else "00",
            score_bottom=info.score[on_roll],
            score_top=info.score[1 - on_roll],
            rules=(1 if info.crawford else 0) if info.match_length else (1 if info.jacoby else 0),
            match_length=info.match_length,
        )
    else:
        xg = Xgid(position)
    out["xgid"] = xg.to_string()
    return out


def create_app(bot: NetPlayer, variant: str | None = None, variant_bot: str | None = None) -> Starlette:
    """The app, with ``bot`` (its network and ply) playing every backgammon session and analysing.

    ``variant``: the game of sessions started without one (None: backgammon);
    ``variant_bot``: the bot spec of variant sessions
    (:func:`bgnet.players.make_player`; default the game's
    :func:`~bgnet.commands.variant_play.default_bot_spec`), built once per game.
    """
    sessions: OrderedDict[str, WebGame | VariantWebGame] = OrderedDict()
    sessions_lock = threading.Lock()
    eval_lock = threading.Lock()  # one network, shared: one evaluation at a time
    bots: dict[str, Player] = {}
    if variant is not None:
        match_games(variant)  # an unknown label fails here, before serving

    def variant_session(label: str, length: int, seed: int | None) -> VariantWebGame:
        games = match_games(label)
        players = []
        for g in games:
            if g.label not in bots:
                bots[g.label] = make_player(variant_bot or default_bot_spec(g.label), variant=g)
            players.append(bots[g.label])
        if label.split("+")[0].strip().lower() == "tavli" and not length:
            length = TAVLI_POINTS
        return VariantWebGame(label, games, players, length, seed=seed, lock=eval_lock)

    def session(request: Request) -> WebGame | VariantWebGame:
        sid = request.path_params["sid"]
        with sessions_lock:
            web = sessions.get(sid)
            if web is None:
                raise ApiError(404, f"no game {sid!r} on this server (games live in memory: start a new one)")
            sessions.move_to_end(sid)
        return web

    async def body_of(request: Request) -> dict:
        raw = await request.body()
        if not raw.strip():
            return {}
        try:
            body = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise ApiError(400, "the request body is not JSON") from None
        if not isinstance(body, dict):
            raise ApiError(400, "the request body must be a JSON object")
        return body

    def _analyze(params) -> dict:
        text = params.get("position") or params.get("xgid")
        if not text:
            raise ApiError(
                400, "give a position: ?position=ID (GNUBG Position ID, positionid:matchid or XGID)"
            )
        ply = _int(params, "ply", 0, 0, MAX_PLY)
        if params.get("xgid") and params.get("match_id"):
            raise ApiError(400, "give xgid or match_id, not both")
        position, dice, ctx = parse_input(
            text, params.get("dice") or None, params.get("xgid"), params.get("match_id")
        )
        with eval_lock:
            return analyze(bot.evaluator, position, dice, ctx, ply)

    async def api_analyze(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(_analyze, request.query_params))

    async def api_position(request: Request) -> Response:
        text = request.query_params.get("position")
        board = request.query_params.get("board")
        if board and not text:  # a position set up by hand: 26 slots from the side on roll
            position, info = Position(_board_of(board)), None
        elif not text:
            raise ApiError(
                400, "give a position: ?position=ID (GNUBG Position ID, positionid:matchid or XGID)"
            )
        else:
            position, info = parse_position(text)
        check_in_play(position.board)
        rolled = info.rolled if isinstance(info, Xgid) else (info.dice if info and info.dice[0] else None)
        cube = None
        if info is not None:
            c, m = info.state()
            cube = {
                "value": c.value,
                "owner": c.owner.value,
                "match_length": m.length,
                "score": list(m.score) if m.length else None,
                "crawford": m.crawford if m.length else False,
            }
        pips = position.pips()
        return JSONResponse(
            {
                "board": [int(x) for x in position.board],
                "pips": list(pips),
                "dice": list(rolled) if rolled else None,
                "cube": cube,
                **ids_of(position, info),
            }
        )

    async def new_game(request: Request) -> Response:
        body = await body_of(request)
        length = body.get("length", 0)
        seed = body.get("seed")
        if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length <= 25:
            raise ApiError(400, f"length must be 0 (money play) or a match of 1 to 25 points, got {length!r}")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
            raise ApiError(400, f"seed must be a whole number 0 or more, got {seed!r}")
        flags = {k: body.get(k, False) for k in ("jacoby", "beavers")}
        for k, v in flags.items():
            if not isinstance(v, bool):
                raise ApiError(400, f"{k} must be true or false, got {v!r}")
            if v and length:
                raise ApiError(400, f"{k} applies to money play (length 0), not to a {length}-point match")
        label = body.get("variant", variant)
        if label is not None and not isinstance(label, str):
            raise ApiError(400, f'variant must be a game\'s label like "plakoto", got {label!r}')
        if label is not None and label.strip().lower() == "backgammon":
            label = None
        if label is not None:
            if any(flags.values()):
                raise ApiError(400, "jacoby and beavers are cube rules: the variant games have no cube")
            web: WebGame | VariantWebGame = await run_in_threadpool(
                lambda: variant_session(label, length, seed)  # the bot may move first
            )
        else:
            web = await run_in_threadpool(
                lambda: WebGame(bot, length, seed=seed, lock=eval_lock, **flags)  # the bot may move first
            )
        sid = secrets.token_urlsafe(12)
        with sessions_lock:
            sessions[sid] = web
            while len(sessions) > MAX_SESSIONS:
                sessions.popitem(last=False)
        return JSONResponse({"id": sid, **web.state()}, status_code=201)

    async def api_variants(request: Request) -> Response:
        return JSONResponse({"default": variant or "backgammon", "games": [*VARIANTS, "tavli"]})

    def locked(web: WebGame | VariantWebGame, fn):
        """``fn()`` holding the session's lock, in a worker thread (a bot's move may hold it a while)."""

        def run():
            with web.lock:
                return fn()

        return run_in_threadpool(run)

    async def game_state(request: Request) -> Response:
        web = session(request)
        return JSONResponse({"id": request.path_params["sid"], **await locked(web, web.state)})

    async def game_action(request: Request) -> Response:
        web = session(request)
        action = request.path_params["action"]
        if action not in ACTIONS:
            raise ApiError(404, f"unknown action {action!r}: one of {', '.join(ACTIONS)}")
        body = await body_of(request)

        def act() -> dict:
            web.act(action, body)
            return web.state()

        return JSONResponse({"id": request.path_params["sid"], **await locked(web, act)})

    async def game_hint(request: Request) -> Response:
        web = session(request)

        return JSONResponse(await locked(web, web.hint))

    async def game_mat(request: Request) -> Response:
        web = session(request)
        text = await locked(web, web.mat)
        name = f"bgnet-{request.path_params['sid'][:8]}.mat"
        return PlainTextResponse(text, headers={"Content-Disposition": f'attachment; filename="{name}"'})

    def page(name: str):
        async def endpoint(request: Request) -> Response:
            return FileResponse(str(STATIC / name), media_type="text/html")

        return endpoint

    async def api_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, ApiError)
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    async def bad_input(request: Request, exc: Exception) -> Response:
        status = 409 if isinstance(exc, GameError) else 400
        return JSONResponse({"error": str(exc)}, status_code=status)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        detail = exc.detail
        if exc.status_code == 404:
            detail = f"no such page or API call: {request.url.path}"
        elif exc.status_code == 405:
            detail = f"{request.method} is not allowed on {request.url.path}"
        return JSONResponse({"error": detail}, status_code=exc.status_code)

    async def server_error(request: Request, exc: Exception) -> Response:  # a bug, said as JSON
        return JSONResponse({"error": f"internal error: {type(exc).__name__}"}, status_code=500)

    routes = [
        Route("/", page("play.html")),
        Route("/analysis", page("analysis.html")),
        Route("/api/analyze", api_analyze),
        Route("/api/position", api_position),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/variants", api_variants),
        Route("/api/games/{sid}", game_state),
        Route("/api/games/{sid}/hint", game_hint),
        Route("/api/games/{sid}/mat", game_mat),
        Route("/api/games/{sid}/{action}", game_action, methods=["POST"]),
        Mount("/static", StaticFiles(directory=str(STATIC)), name="static"),
    ]
    return Starlette(
        routes=routes,
        exception_handlers={
            ApiError: api_error,
            BgnetError: bad_input,
            HTTPException: http_error,
            Exception: server_error,
        },
    )
