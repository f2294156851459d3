"""``bgnet web``: play against bgnet and analyse positions in a browser.

::

    bgnet web [--host 127.0.0.1] [--port 8080] [--ply N] [--checkpoint P] [--variant LABEL] [--bot SPEC]

Serves the play page (``/``), the analysis page (``/analysis``) and the JSON
API (:mod:`bgnet.web.app`) with uvicorn; prints the URL.  Needs the ``web``
extra (``pip install 'bgnet[web]'``).  Games live in memory.

``--variant LABEL`` makes new sessions games of that variant (``plakoto``,
``fevga``, ``tavli``, ...; the page's form can still choose another game),
each played by ``--bot SPEC`` or the game's default bot (as ``bgnet play
--variant``).
"""

from __future__ import annotations

import argparse
import errno
import socket

from bgnet.errors import BgnetError
from bgnet.players import DEFAULT_PLAY_PLY, MAX_PLY, check_ply

__all__ = ["register", "run"]

WEB_EXTRA_HINT = "bgnet web needs the web extra: pip install 'bgnet[web]' (starlette and uvicorn)"


def _check_port(host: str, port: int) -> None:
    """A BgnetError naming the problem when ``host:port`` cannot be listened on (checked before loading)."""
    if not 0 <= port <= 65535:
        raise BgnetError(f"--port must be 0 to 65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as e:
        raise BgnetError(f"cannot listen on {host}: {e.strerror}") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as e:
            why = "the port is in use" if e.errno == errno.EADDRINUSE else e.strerror
            raise BgnetError(f"cannot listen on {host}:{port}: {why}") from None


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def run(args: argparse.Namespace) -> int:
    check_ply(args.ply)
    if args.variant is not None:
        from bgnet.commands.variant_play import match_games

        match_games(args.variant)  # an unknown game or house rule: one line, before anything loads
    _check_port(args.host, args.port)
    try:
        import uvicorn

        from bgnet.web.app import create_app
    except ImportError as e:
        raise BgnetError(f"{WEB_EXTRA_HINT} ({e.name} is missing)") from None
    from bgnet.players import NetPlayer, check_spec  # its network loads torch: here, not at start-up

    if args.bot is not None:
        check_spec(args.bot)  # a bad --bot: one line now, not an error in each variant session
    bot = NetPlayer.from_checkpoint(args.checkpoint, ply=args.ply)
    app = create_app(bot, variant=args.variant, variant_bot=args.bot)
    config = uvicorn.Config(app, host=args.host, port=args.port, log_level="warning", access_log=False)
    server = uvicorn.Server(config)
    game = f"; new sessions play {args.variant}" if args.variant else ""
    print(
        f"bgnet web: {url_of(args.host, args.port)}  (bot at {args.ply}-ply{game}; Ctrl-C stops it)",
        flush=True,
    )
    server.run()
    return 0


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "web",
        help="play and analyse in the browser",
        description="Serve the play page, the analysis page and the JSON API on HTTP; prints the URL. "
        "Games live in memory: a restart loses them (download a game's .mat to keep it).",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine)"
    )
    p.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    p.add_argument(
        "--ply",
        type=int,
        default=DEFAULT_PLAY_PLY,
        help=f"the bot's lookahead, 0 to {MAX_PLY}, in play and in hints (default {DEFAULT_PLAY_PLY}); "
        "the analysis page chooses its own",
    )
    p.add_argument("--checkpoint", metavar="PATH", help="the network (default: the shipped one)")
    p.add_argument(
        "--variant",
        metavar="LABEL",
        help="the game of new sessions: a variant (portes, tavla, plakoto, fevga, nackgammon, ... with "
        "house rules +no-cube, +no-forced-max) or tavli (portes, plakoto, fevga in turn); default backgammon",
    )
    p.add_argument(
        "--bot",
        metavar="SPEC",
        help="the bot of variant sessions (bgnet[:ply=N], greedy, random); default: the game's shipped "
        "network at 1-ply, else greedy",
    )
    p.set_defaults(func=run)
    return p
