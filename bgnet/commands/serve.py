"""``bgnet serve``: bgnet as an external player for GNU Backgammon.

GNU Backgammon plays against an external program with::

    set player 1 external 127.0.0.1:PORT

It connects to ``PORT`` and, for every decision of that player, sends one
FIBS ``board:`` line (newline, then a NUL byte; see :mod:`bgnet.fibs`) and
reads one line back: a play in gnubg's notation (an empty line when there is
none), ``roll`` or ``double`` before rolling, ``take``, ``drop`` or
``beaver`` when doubled.  gnubg does not check the play it receives, so the
server sends only plays taken from the legal-move generator, and checks that
its notation reads back as the same play.

A line that is not a ``board:`` line gets ``Error: ...`` and the connection
stays open; a client that disconnects ends only its own connection; clients
are served at once, each on its own thread (the decisions themselves take
turns on one evaluator).  Besides ``board:`` lines the server understands
``version`` and ``exit`` (closes the connection).
"""

from __future__ import annotations

import argparse
import json
import socket
import socketserver
import threading
import time
from typing import IO

from bgnet.errors import BgnetError, IllegalMoveError
from bgnet.fibs import Decision, FibsError, decision, parse_board
from bgnet.match import MatchState, may_double
from bgnet.notation import format_point, parse_play
from bgnet.players import DEFAULT_PLAY_PLY, MAX_PLY, NetPlayer, check_ply

MAX_LINE = 64 * 1024
VERSION = "bgnet external player 1 (FIBS board: lines, gnubg external protocol)"


class Responder:
    """Answers ``board:`` lines with the bot's decisions (thread-safe).

    The decisions are :class:`bgnet.players.NetPlayer`'s, the player the game
    engine uses in ``play`` and the arena, on the cube and match state of the
    line (:class:`bgnet.fibs.Decision`) with this server's money rules.
    """

    def __init__(
        self, bot: NetPlayer, *, beavers: bool = False, jacoby: bool = False, log: IO[str] | None = None
    ) -> None:
        self.bot = bot
        self.beavers = beavers
        self.jacoby = jacoby
        self.log = log
        self.lock = threading.Lock()

    def reply(self, line: str, client: str = "") -> str | None:
        """The answer to one line (without newline); None to close the connection."""
        text = line.replace("\0", "").strip()
        if not text:
            return ""
        word = text.lower()
        if word in ("exit", "quit", "bye"):
            return None
        if word == "version":
            return VERSION
        kind = "error"
        try:
            fb = parse_board(text)
            d = decision(fb)
            kind = d.kind
            with self.lock:
                answer = self._decide(d)
        except (FibsError, BgnetError) as e:
            answer = f"Error: {e}"
        except Exception as e:  # never let one line take the connection down
            answer = f"Error: internal error ({type(e).__name__}: {e})"
        if self.log is not None:
            with self.lock:
                record = {"time": round(time.time(), 3), "client": client, "line": text, "kind": kind}
                record["reply"] = answer
                self.log.write(json.dumps(record) + "\n")
                self.log.flush()
        return answer

    def _state(self, d: Decision) -> tuple:
        """The cube and the match of the line, with this server's money rules (Jacoby, beavers)."""
        if d.match.is_money:
            return d.cube, MatchState.money(jacoby=self.jacoby, beavers=self.beavers)
        return d.cube, d.match

    def _decide(self, d: Decision) -> str:
        if d.kind == "move":
            assert d.dice is not None  # fibs.decision gives every move its roll
            play = self.bot.best_play(d.board, d.dice)
            if play is None:
                return ""
            return _safe_notation(d.board, d.dice, play)
        state = self._state(d)
        if d.kind == "double":
            if may_double(*state) and self.bot.double(d.board[None, :], [state])[0]:
                return "double"
            return "roll"
        answer = self.bot.answer(d.board, state)
        return "take" if answer == "beaver" and not state[1].beavers else answer


def _safe_notation(board, dice, play) -> str:
    """The play's gnubg notation, or one part per die if the notation would read back differently."""
    try:
        if parse_play(board, dice, play.notation).position == play.position:
            return play.notation
    except IllegalMoveError:
        pass
    return " ".join(f"{format_point(f)}/{format_point(t)}" for f, t in play.steps)


class _Handler(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        responder: Responder = self.server.responder  # type: ignore[attr-defined]
        client = f"{self.client_address[0]}:{self.client_address[1]}"
        sock: socket.socket = self.request
        buf = b""
        try:
            while True:
                data = sock.recv(4096)
                if not data:
                    return
                buf += data
                while b"\n" in buf:
                    raw, buf = buf.split(b"\n", 1)
                    buf = buf.lstrip(b"\0")
                    try:
                        line = raw.decode("utf-8")
                    except UnicodeDecodeError:
                        answer: str | None = "Error: the line is not UTF-8 text"
                    else:
                        if not line.replace("\0", "").strip():
                            continue
                        answer = responder.reply(line, client)
                    if answer is None:
                        return
                    sock.sendall((answer + "\n").encode("utf-8"))
                if len(buf) > MAX_LINE:
                    buf = b""
                    sock.sendall(f"Error: line longer than {MAX_LINE} bytes\n".encode())
        except (ConnectionError, OSError):
            return  # the client went away; the server carries on


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], responder: Responder) -> None:
        super().__init__(address, _Handler)
        self.responder = responder


def _cmd_serve(args: argparse.Namespace) -> int:
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    check_ply(args.ply)
    if not 0 <= args.port <= 65535:
        raise BgnetError(f"--port must be 0-65535, got {args.port}")
    bot = NetPlayer.from_checkpoint(args.checkpoint, ply=args.ply)
    try:
        log = open(args.log, "a", encoding="utf-8") if args.log else None  # noqa: SIM115
    except OSError as e:
        raise BgnetError(f"cannot open the log {args.log}: {e.strerror}") from None
    try:
        responder = Responder(bot, beavers=args.beavers, jacoby=args.jacoby, log=log)
        server = Server((args.host, args.port), responder)
    except OSError as e:
        raise BgnetError(f"cannot listen on {args.host}:{args.port}: {e.strerror}") from None
    host, port = server.socket.getsockname()[:2]
    print(f"bgnet serve: listening on {host}:{port} (ply {args.ply})", flush=True)
    print(f"In gnubg: set player 1 external {host}:{port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:  # Ctrl-C, or SIGTERM (bgnet.errors.Terminated): close the socket, exit 0
        pass
    finally:
        server.server_close()
        if log is not None:
            log.close()
    return 0


def register(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "serve",
        help="play as an external player for GNU Backgammon",
        description="Serve GNU Backgammon's external-player protocol: in gnubg, "
        "'set player 1 external HOST:PORT' makes bgnet play that side.",
    )
    p.add_argument("--port", type=int, required=True, help="TCP port to listen on (0: any free port)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument(
        "--ply",
        type=int,
        default=DEFAULT_PLAY_PLY,
        help=f"lookahead in plies, 0 to {MAX_PLY} (default {DEFAULT_PLAY_PLY}: full strength)",
    )
    p.add_argument("--checkpoint", metavar="PATH", help="network (default: the shipped one)")
    p.add_argument("--beavers", action="store_true", help="money play: answer 'beaver' when right")
    p.add_argument("--jacoby", action="store_true", help="money play: gnubg plays with the Jacoby rule")
    p.add_argument("--log", metavar="FILE", help="append each line and reply as JSON lines to FILE")
    p.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    p.set_defaults(func=_cmd_serve)
    return p
