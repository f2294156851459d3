"""Players: one small batched protocol and its implementations.

A player chooses plays for many games at once, with the chooser signature
of :class:`bgnet.lockstep.Lockstep`::

    rows = player.choose(batch, player_index)

``batch`` is a :class:`~bgnet.movegen.MoveBatch` (from the arena and
:meth:`~bgnet.lockstep.Lockstep.step`, one that holds the positions before
the move and the dice); ``rows[i]`` is
the absolute row in ``batch.positions`` of the play chosen for input ``i``,
or -1 when input ``i`` has no legal play.  The arena checks every row
against the legal plays (:mod:`bgnet.arena`), so a player cannot move
illegally unnoticed.

Implementations
---------------
* :class:`NetPlayer` -- bgnet's network at a chosen ply and checkpoint;
* :class:`PubevalPlayer` -- Tesauro's pubeval (:func:`bgnet.pubeval.pubeval_best`);
* :class:`RandomPlayer` -- a uniformly random legal play, a pure function of
  (seed, position, dice), so batching never changes its games;
* :class:`GnubgPlayer` -- GNU Backgammon's network through ``gnubg-nn`` at
  0, 1 or 2 ply (the optional extra ``bgnet[gnubg]``), one position at a time;
* :class:`HumanPlayer` -- plays typed in gnubg notation on a text stream.

:func:`make_player` builds one from a spec such as ``bgnet``,
``bgnet:ply=1,checkpoint=PATH``, ``pubeval``, ``gnubg:ply=0``, ``random:seed=3``,
``greedy`` (:class:`bgnet.baselines.GreedyPlayer`, a hand-written 1-ply
heuristic for every variant), for backgammon or for a variant's boards.

Cube decisions
--------------
Two optional, batched methods (:class:`CubePlayer`) answer ``double`` and
``take``; :func:`supports_cube` tells whether a player has them, and the
arena refuses ``--cube``/``--match`` for one without (the human player).

* bgnet: :func:`bgnet.cube.cube_decision` on its probabilities at its ply
  (race efficiency by pips where :func:`bgnet.pubeval.is_race`);
* gnubg: the same cube module on gnubg-nn's probabilities at its ply
  (gnubg-nn's ``evaluate_cube_decision`` refuses money play);
* pubeval: never doubles, always takes;
* random: doubles with probability :data:`RANDOM_DOUBLE` when it may, takes
  with probability :data:`RANDOM_TAKE` (a hash of seed, position and cube).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Protocol, TypeGuard, runtime_checkable

import numpy as np

from bgnet.baselines import GreedyPlayer
from bgnet.cube import CubeDecision, CubeState, MatchState, cube_decision, race_pips
from bgnet.dice import Dice
from bgnet.errors import DEVICES, BgnetError, DeviceError, IllegalMoveError, is_device_name
from bgnet.formats import board_from_gnubg, board_to_gnubg
from bgnet.movegen import MoveBatch, Play, generate
from bgnet.notation import parse_play, play_of
from bgnet.position import NUM_SLOTS, Position
from bgnet.probabilities import equity
from bgnet.pubeval import pubeval_best
from bgnet.variants import VARIANTS, VSLOTS, Variant
from bgnet.variants import variant as get_variant

__all__ = [
    "GNUBG_INSTALL_HINT",
    "ILLEGAL",
    "DEFAULT_PLAY_PLY",
    "MAX_PLY",
    "CubePlayer",
    "GnubgPlayer",
    "HumanPlayer",
    "NetPlayer",
    "Player",
    "PlayerError",
    "PubevalPlayer",
    "RandomPlayer",
    "batch_inputs",
    "check_ply",
    "check_spec",
    "cube_actions",
    "cube_decisions",
    "make_player",
    "supports_cube",
    "variant_network",
]

MAX_PLY = 2

DEFAULT_PLAY_PLY = 2
"""The lookahead of ``bgnet play`` and ``bgnet serve`` by default: the strongest that answers within about a
second a move on one core of a 2-core VM (2-ply: 0.33 s a decision on average, 1.5 s at the 99th
percentile, over 300 positions of ``tests/data/movegen_positions.txt`` with their rolls; 1-ply: 0.02 s)."""
"""The deepest lookahead bgnet plays and analyses at (2-ply takes about 0.2 s a decision on one CPU
thread; each ply more multiplies it by about 20).  Every command bounds ``--ply`` by it."""

ILLEGAL = -2
"""A row a player returns when it cannot express its play as a legal row
(an engine whose play is not among the legal results); the arena reports it."""

GNUBG_INSTALL_HINT = (
    "GNU Backgammon players need the optional package gnubg-nn: "
    "pip install 'bgnet[gnubg]' (or: pip install gnubg-nn==1.1.0a11)"
)


class PlayerError(BgnetError):
    """A player spec that cannot be built: unknown name or option, a missing package or checkpoint."""


@runtime_checkable
class Player(Protocol):
    """The protocol: a name and a batched chooser."""

    name: str

    def choose(self, batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        """For every input of ``batch``, the absolute row of the chosen play (-1: no legal play)."""
        ...


@runtime_checkable
class CubePlayer(Player, Protocol):
    """A player that also takes cube decisions (what the arena calls with ``--cube``/``--match``).

    Both are batched like :meth:`Player.choose`.  ``boards`` is ``(N, 26)``
    positions seen from the side on roll, who doubles (before it rolls), and
    ``state[i]`` is ``(bgnet.cube.CubeState, bgnet.cube.MatchState)`` of game
    ``i`` from that same side: :meth:`take` answers a double offered on that
    position.  The engine asks only where the side on roll may double
    (:func:`bgnet.match.may_double`).
    """

    def double(self, boards: np.ndarray, state: Any) -> np.ndarray:
        """Whether the side on roll doubles (or redoubles) before rolling, per game: ``(N,)`` bools."""
        ...

    def take(self, boards: np.ndarray, state: Any) -> np.ndarray:
        """Whether the doubled side (not on roll) takes, per game: ``(N,)`` bools."""
        ...


def supports_cube(player: object) -> TypeGuard[CubePlayer]:
    """Whether ``player`` has the cube methods of :class:`CubePlayer`."""
    return callable(getattr(player, "double", None)) and callable(getattr(player, "take", None))


def batch_inputs(batch: MoveBatch) -> tuple[np.ndarray, np.ndarray]:
    """The positions before the move and the dice of a batch's inputs (``(N, 26)``, ``(N, 2)``).

    Needs a batch that holds them (:func:`bgnet.movegen.generate`'s; one
    built by hand from buffers may not).
    """
    boards = getattr(batch, "boards", None)
    dice = getattr(batch, "dice", None)
    if boards is None or dice is None:
        raise TypeError(
            "this player needs the positions before the move: pass a batch from bgnet.movegen.generate "
            "(Lockstep.step and the arena do)"
        )
    return boards, dice


def _rows_of(batch: MoveBatch, i: int, result: np.ndarray) -> int:
    """The absolute row of input ``i`` whose result equals ``result`` (seen by the opponent), or ILLEGAL."""
    lo, hi = int(batch.offsets[i]), int(batch.offsets[i + 1])
    hits = np.flatnonzero((batch.positions[lo:hi] == result).all(axis=1))
    return lo + int(hits[0]) if len(hits) else ILLEGAL


def cube_decisions(probs: np.ndarray, boards: np.ndarray, states: Sequence) -> list[CubeDecision | None]:
    """:func:`bgnet.cube.cube_decision` per game on the side on roll's cubeless probabilities.

    ``probs`` are the ``(N, 5)`` probabilities of ``boards`` for the side on
    roll before it rolls; ``states[i]`` is ``(CubeState, MatchState)`` from
    that side.  None where the cube module cannot judge a state (a match
    longer than its table).
    """
    out: list[CubeDecision | None] = []
    for i in range(len(boards)):
        cube, match = states[i]
        try:
            p = np.asarray(probs[i], dtype=np.float64)
            out.append(cube_decision(p, cube, match, pips=race_pips(boards[i])))
        except BgnetError:
            out.append(None)
    return out


def cube_actions(probs: np.ndarray, boards: np.ndarray, states: Sequence) -> tuple[np.ndarray, np.ndarray]:
    """(double, take) per game from :func:`cube_decisions`.

    Where the cube module cannot judge a state, the side on roll does not
    double and the other side takes with 25% or more.
    """
    n = len(boards)
    double = np.zeros(n, dtype=bool)
    take = np.zeros(n, dtype=bool)
    for i, d in enumerate(cube_decisions(probs, boards, states)):
        if d is None:
            take[i] = 1.0 - float(probs[i][0]) >= 0.25
            continue
        double[i] = bool(d.double and d.available)
        take[i] = bool(d.take) if d.available else True
    return double, take


# --------------------------------------------------------------------------
# bgnet's network
# --------------------------------------------------------------------------


def check_ply(ply: int) -> int:
    """``ply`` if it is 0 to :data:`MAX_PLY`, else :class:`PlayerError` naming the limit."""
    if isinstance(ply, bool) or not isinstance(ply, (int, np.integer)) or not 0 <= ply <= MAX_PLY:
        raise PlayerError(f"ply must be 0 to {MAX_PLY}, got {ply}")
    return int(ply)


class NetPlayer:
    """bgnet's player: its plays, doubles, takes and resignation answers, at ``ply``.

    The one bgnet player of ``play``, ``serve``, the arena (``bench play``),
    ``bench positions`` and ``watch``.  Plays are the evaluator's choice at
    ``ply`` (:meth:`bgnet.evaluator.Evaluator.choose`, gnubg-style move
    filters); cube actions are :func:`bgnet.cube.cube_decision` on the
    evaluator's probabilities at ``ply`` (race efficiency by pips); a
    resignation is accepted when it gives at least the cubeless equity of
    playing on.  :meth:`from_checkpoint` loads a network with the exact
    bearoff database (:meth:`bgnet.evaluator.NetEvaluator.from_checkpoint`).
    """

    def __init__(self, evaluator: Any, ply: int = 0, name: str = "bgnet") -> None:
        self.evaluator = evaluator
        self.ply = check_ply(ply)
        self.name = name
        self._cache: dict[bytes, np.ndarray] = {}

    @classmethod
    def from_checkpoint(
        cls,
        checkpoint: str | Path | None = None,
        ply: int = 0,
        device: str = "cpu",
        name: str = "bgnet",
        *,
        bearoff: bool = True,
        race_lookahead: bool = True,
    ) -> NetPlayer:
        """The network of ``checkpoint`` (default: the shipped one) on ``device``, with bearoff database
        (and, unless ``race_lookahead`` is False, races searched one roll per side: :mod:`bgnet.race`)."""
        from bgnet.evaluator import NetEvaluator  # here, not at the top: it loads torch (start-up time)

        check_ply(ply)
        ev = NetEvaluator.from_checkpoint(
            checkpoint, device=device, bearoff=bearoff, race_lookahead=race_lookahead
        )
        return cls(ev, ply, name)

    @property
    def variant(self) -> Variant | None:
        """The game the network plays (from its checkpoint), or None for backgammon."""
        return getattr(self.evaluator, "variant", None)

    # -- plays ---------------------------------------------------------------

    def choose(self, batch: MoveBatch, player: np.ndarray | None = None) -> np.ndarray:
        """The chosen row of each roll (-1: no legal play); any game's batch (``Variant.generate``)."""
        return self.evaluator.choose(batch, player, self.ply)

    def best_play(self, board: np.ndarray, dice: Dice) -> Play | None:
        """The play of ``dice`` from ``board`` (from the mover); None when there is no legal play."""
        batch = generate(np.asarray(board, dtype=np.int8)[None, :], np.array([[dice.high, dice.low]]))
        row = int(self.choose(batch)[0])
        return None if row < 0 else play_of(batch, row)

    def ranked(self, board: np.ndarray, dice: Dice, n: int = 5) -> list[tuple[Play, float, np.ndarray]]:
        """The ``n`` best plays with the mover's cubeless equity and probabilities, best first."""
        batch = generate(np.asarray(board, dtype=np.int8)[None, :], np.array([[dice.high, dice.low]]))
        if not len(batch.positions):
            return []
        probs, plies = self.evaluator.rank(batch, self.ply, with_plies=True)
        eq = equity(probs)
        order = np.lexsort((-eq, -plies))[:n]  # the deepest evaluated first, then by equity
        return [(play_of(batch, int(r)), float(eq[r]), probs[r]) for r in order]

    # -- positions before the roll, and the cube ---------------------------------

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """``(N, 5)`` probabilities of each board's side on roll, before it rolls, at the player's ply."""
        b = np.asarray(boards, dtype=np.int8).reshape(-1, getattr(self.evaluator, "slots", NUM_SLOTS))
        if len(b) != 1:
            return np.asarray(self.evaluator.probabilities(b, self.ply), dtype=np.float64)
        key = b.tobytes()
        if key not in self._cache:  # play and serve ask about one position several times
            if len(self._cache) > 256:
                self._cache.clear()
            self._cache[key] = np.asarray(self.evaluator.probabilities(b, self.ply), dtype=np.float64)
        return self._cache[key]

    def cube_decision(self, board: np.ndarray, state: tuple[CubeState, MatchState]) -> CubeDecision | None:
        """The cube decision of the side on roll of ``board``; ``state`` from that side.

        None when the cube module cannot judge the state (a match longer than its table).
        """
        return cube_decisions(self.probabilities(board), np.asarray(board)[None, :], [state])[0]

    def double(self, boards: np.ndarray, states: Sequence) -> np.ndarray:
        return cube_actions(self.probabilities(boards), boards, states)[0]

    def take(self, boards: np.ndarray, states: Sequence) -> np.ndarray:
        return cube_actions(self.probabilities(boards), boards, states)[1]

    def answer(self, board: np.ndarray, state: tuple[CubeState, MatchState]) -> str:
        """The answer to a double offered from ``board`` (the doubler's, on roll): take, drop or beaver.

        ``beaver`` only where ``state``'s money rules allow beavers.
        """
        d = self.cube_decision(board, state)
        if d is not None and d.beaver and state[1].beavers:
            return "beaver"
        return "take" if self.take(np.asarray(board)[None, :], [state])[0] else "drop"

    def accept(self, boards: np.ndarray, levels: np.ndarray) -> np.ndarray:
        """Accept the resignations (``levels``: 1 single, 2 gammon, 3 backgammon) offered from ``boards``.

        ``boards`` are the resigning sides' (on roll).  Accepted when the
        points offered are at least what playing on is worth to us, cubeless.
        """
        theirs = equity(self.probabilities(boards))
        return np.asarray(levels) >= -theirs - 1e-9


# --------------------------------------------------------------------------
# pubeval and random
# --------------------------------------------------------------------------


class PubevalPlayer:
    """Tesauro's pubeval (bit-identical to gnubg's; see :mod:`bgnet.pubeval`)."""

    def __init__(self, name: str = "pubeval") -> None:
        self.name = name

    def choose(self, batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        return pubeval_best(batch)

    # pubeval has no cube sense: its documented policy is "never double, always take".

    def double(self, boards: np.ndarray, state: Any) -> np.ndarray:
        return np.zeros(len(boards), dtype=bool)

    def take(self, boards: np.ndarray, state: Any) -> np.ndarray:
        return np.ones(len(boards), dtype=bool)


RANDOM_DOUBLE = 0.25
"""The chance that :class:`RandomPlayer` doubles when it may."""
RANDOM_TAKE = 0.5
"""The chance that :class:`RandomPlayer` takes a double."""

_MIX = np.random.default_rng(0x52414E44).integers(1, 2**62, size=NUM_SLOTS, dtype=np.int64)
_MIX_WIDE = np.concatenate(
    [_MIX, np.random.default_rng(0x57494445).integers(1, 2**62, size=VSLOTS - NUM_SLOTS, dtype=np.int64)]
)
"""Keys of a variant board's slots: the first 26 are backgammon's (widened boards hash as narrow ones)."""


def _board_keys(boards: np.ndarray) -> np.ndarray:
    """One int64 key per board of any width (26 slots, or a variant's 52)."""
    b = np.asarray(boards, dtype=np.int64)
    return b @ _MIX_WIDE[: b.shape[-1]]


def _splitmix(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser on uint64 arrays: well-mixed hashes from structured keys."""
    x = x.astype(np.uint64)
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


class RandomPlayer:
    """A uniformly random legal play.

    The choice is a hash of (seed, position, dice), not a draw from a
    stream, so it does not depend on how games are batched or split among
    processes: the same seed gives the same games.  It needs a
    batch that holds its inputs; without them the results
    themselves are hashed.
    """

    def __init__(self, seed: int = 0, name: str = "random") -> None:
        self.seed = seed
        self.name = name

    def choose(self, batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        sizes = np.diff(batch.offsets)
        n = len(sizes)
        if batch.boards is not None and batch.dice is not None:
            keys = _board_keys(batch.boards) + batch.dice[:, 0] * 7 + batch.dice[:, 1]
        else:  # the first result of each roll identifies it well enough
            first = np.minimum(batch.offsets[:-1], max(len(batch.positions) - 1, 0))
            keys = _board_keys(batch.positions[first]) if len(batch.positions) else np.zeros(n)
        with np.errstate(over="ignore"):
            h = _splitmix(
                _splitmix(np.asarray(keys, dtype=np.int64).astype(np.uint64)) + np.uint64(self.seed)
            )
        pick = (h % np.maximum(sizes, 1).astype(np.uint64)).astype(np.int64)
        return np.where(sizes > 0, batch.offsets[:-1] + pick, -1)

    # Cube: a coin keyed like the plays (seed, position, cube value): doubles with probability
    # RANDOM_DOUBLE when it may, takes with probability RANDOM_TAKE.

    def _coin(self, boards: np.ndarray, state: Any, salt: int) -> np.ndarray:
        keys = np.asarray(boards, dtype=np.int64).reshape(-1, NUM_SLOTS) @ _MIX
        keys = keys + np.array([s[0].value for s in state], dtype=np.int64) * 1_000_003 + salt
        with np.errstate(over="ignore"):
            h = _splitmix(_splitmix(keys.astype(np.uint64)) + np.uint64(self.seed))
        return (h >> np.uint64(11)).astype(np.float64) / float(1 << 53)

    def double(self, boards: np.ndarray, state: Any) -> np.ndarray:
        return self._coin(boards, state, 1) < RANDOM_DOUBLE

    def take(self, boards: np.ndarray, state: Any) -> np.ndarray:
        return self._coin(boards, state, 2) < RANDOM_TAKE


# --------------------------------------------------------------------------
# GNU Backgammon through gnubg-nn
# --------------------------------------------------------------------------


def import_gnubg() -> Any:
    """The ``gnubg_nn`` module, or :class:`PlayerError` saying how to install it."""
    try:
        import gnubg_nn
    except ImportError:
        raise PlayerError(GNUBG_INSTALL_HINT) from None
    return gnubg_nn


class GnubgPlayer:
    """GNU Backgammon's network (gnubg-nn) at 0, 1 or 2 ply, cubeless money play.

    gnubg-nn evaluates one position at a time, so :meth:`choose` loops over
    the batch; it needs a batch that holds its inputs (the position
    before the move).  gnubg's play is looked up among bgnet's legal results;
    one that is not there is returned as :data:`ILLEGAL` for the arena to
    report.
    """

    def __init__(self, ply: int = 0, name: str | None = None) -> None:
        if ply not in (0, 1, 2):
            raise PlayerError(f"gnubg plays at ply 0, 1 or 2, got {ply}")
        self.gnubg = import_gnubg()
        self.ply = ply
        self.name = name or f"gnubg:ply={ply}"

    def result(self, board: np.ndarray, dice: tuple[int, int]) -> np.ndarray:
        """gnubg's play of ``dice`` on ``board`` (from the mover): the result seen by the opponent."""
        g = self.gnubg
        _moves, key = g.best_move(board_to_gnubg(board), int(dice[0]), int(dice[1]), n=self.ply, b=1)[:2]
        # The key is the next position from the opponent's side (the next roller is board[1]).
        return board_from_gnubg([list(side) for side in g.board_from_position_key(key)])

    def choose(self, batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        boards, dice = batch_inputs(batch)
        rows = np.full(len(boards), -1, dtype=np.int64)
        for i in range(len(boards)):
            if batch.offsets[i + 1] > batch.offsets[i]:
                rows[i] = _rows_of(batch, i, self.result(boards[i], dice[i]))
        return rows

    # Cube: gnubg-nn's own evaluate_cube_decision refuses money play ("Not implemented for
    # money") and takes its match score from global state, so gnubg's cube actions are
    # bgnet.cube's decisions on gnubg's own probabilities at its ply.

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """gnubg's (N, 5) cubeless probabilities of ``boards`` for the side on roll, at its ply."""
        return np.array(
            [self.gnubg.probabilities(board_to_gnubg(b), self.ply) for b in boards], dtype=np.float64
        ).reshape(-1, 5)

    def double(self, boards: np.ndarray, state: Any) -> np.ndarray:
        return cube_actions(self.probabilities(boards), boards, state)[0]

    def take(self, boards: np.ndarray, state: Any) -> np.ndarray:
        return cube_actions(self.probabilities(boards), boards, state)[1]


# --------------------------------------------------------------------------
# A human at a text stream
# --------------------------------------------------------------------------


class HumanPlayer:
    """A person typing plays in gnubg notation, as a batched player.

    For every input with a legal play, prints the board (from the mover)
    and the roll to ``output`` and reads one line from ``input``: a play
    (``24/18 13/11``, read by :func:`bgnet.notation.parse_play`), or ``?``
    for the list of legal plays.  A line that is not a legal play is
    answered with the reason and asked again; the end of the input raises
    :class:`PlayerError`.
    """

    def __init__(
        self,
        input: IO[str] | None = None,
        output: IO[str] | None = None,
        name: str = "human",
        show: Callable[[np.ndarray], str] | None = None,
    ) -> None:
        self.input = input if input is not None else sys.stdin
        self.output = output if output is not None else sys.stdout
        self.name = name
        self.show = show or (lambda b: str(Position(b, validate=False)))

    def _legal(self, batch: MoveBatch, board: np.ndarray, i: int) -> list[tuple[str, int]]:
        return [(play_of(batch, r).notation, r) for r in batch.rows(i)]

    def choose(self, batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        boards, dice = batch_inputs(batch)
        rows = np.full(len(boards), -1, dtype=np.int64)
        for i in range(len(boards)):
            roll = (int(dice[i][0]), int(dice[i][1]))
            print(self.show(boards[i]), file=self.output)
            if batch.offsets[i + 1] == batch.offsets[i]:
                print(f"You rolled {roll[0]}{roll[1]}: no legal play.", file=self.output)
                continue
            legal = self._legal(batch, boards[i], i)
            rows[i] = self._ask(batch, boards[i], i, roll, legal)
        return rows

    def _ask(
        self, batch: MoveBatch, board: np.ndarray, i: int, roll: tuple[int, int], legal: list[tuple[str, int]]
    ) -> int:
        by_text = {" ".join(sorted(text.split())): r for text, r in legal}
        while True:
            print(
                f"You rolled {roll[0]}{roll[1]}. Your play (? lists them): ",
                end="",
                file=self.output,
                flush=True,
            )
            line = self.input.readline()
            if not line:
                raise PlayerError("the input ended before a play was entered")
            text = line.strip().lower()
            if text in ("?", "help"):
                print("Legal plays: " + ", ".join(t for t, _ in legal), file=self.output)
                continue
            key = " ".join(sorted(text.split()))
            if key in by_text:
                return by_text[key]
            try:
                row = _rows_of(batch, i, parse_play(board, roll, text).position.board)
            except IllegalMoveError as e:
                print(f"{e} (? lists the legal plays)", file=self.output)
                continue
            if row >= 0:
                return row
            print(f"{text} is not a legal play of {roll[0]}{roll[1]} (? lists them)", file=self.output)


# --------------------------------------------------------------------------
# Specs
# --------------------------------------------------------------------------

_OPTIONS: dict[str, dict[str, type]] = {
    "bgnet": {"ply": int, "checkpoint": str, "device": str, "lookahead": int},
    "pubeval": {},
    "random": {"seed": int},
    "gnubg": {"ply": int},
    "human": {},
    "greedy": {},
}


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"bgnet:ply=1,checkpoint=P"`` -> ``("bgnet", {"ply": 1, "checkpoint": "P"})``, checked."""
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in _OPTIONS:
        raise PlayerError(f"unknown player {name!r}; players: {', '.join(_OPTIONS)}")
    options: dict[str, Any] = {}
    for item in filter(None, (x.strip() for x in rest.split(","))):
        key, eq, value = item.partition("=")
        key = key.strip()
        allowed = _OPTIONS[name]
        if not eq or key not in allowed:
            hint = ", ".join(f"{k}=..." for k in allowed) or "none"
            raise PlayerError(f"bad option {item!r} for player {name}; options: {hint}")
        try:
            options[key] = allowed[key](value.strip())
        except ValueError:
            raise PlayerError(f"option {key} of player {name} must be an integer, got {value!r}") from None
    if "device" in options and not is_device_name(options["device"]):
        raise PlayerError(f"option device of player {name} must be {DEVICES}, not {options['device']!r}")
    return name, options


def check_spec(spec: str) -> None:
    """Check a player spec without building the player (:func:`parse_spec`, and that this machine has the
    device it names: :func:`bgnet.network.pick_device`, which loads torch); :class:`PlayerError` if not."""
    name, options = parse_spec(spec)
    if "device" in options:
        _machine_has(name, options["device"])


def _machine_has(player: str, device: str) -> None:
    """:class:`PlayerError` unless this machine has ``device`` (a checked name), for ``player``'s option."""
    from bgnet.network import pick_device  # here, not at the top: it loads torch (start-up time)

    try:
        pick_device(device, f"option device of player {player}")
    except DeviceError as e:
        raise PlayerError(str(e)) from None


def variant_network(name: str) -> Path | None:
    """The network shipped for game ``name`` (``bgnet/networks/variants/NAME.pt``), or None.

    Backgammon's own shipped network is :data:`bgnet.checkpoint.DEFAULT`; the
    other games' networks are package data next to it, when trained and shipped.
    """
    path = Path(__file__).resolve().parent / "networks" / "variants" / f"{name}.pt"
    return path if path.is_file() else None


class _Narrowed:
    """A backgammon player (26-slot boards) on a variant's 52-slot boards of a standard game.

    Backgammon and nackgammon boards use only the first 26 slots, so the
    batch is cut down to them; the rows are the same.
    """

    def __init__(self, inner: Player) -> None:
        self.inner = inner
        self.name = inner.name

    def choose(self, batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        cut = MoveBatch(
            batch.offsets,
            np.ascontiguousarray(batch.positions[:, :NUM_SLOTS]),
            batch.steps,
            None if batch.boards is None else np.ascontiguousarray(batch.boards[:, :NUM_SLOTS]),
            batch.dice,
        )
        return self.inner.choose(cut, player)


def make_player(spec: str, variant: Variant | str | None = None) -> Player:
    """Build a player from a spec: ``bgnet[:ply=N,checkpoint=PATH,device=D,lookahead=0|1]``, ``pubeval``,
    ``random[:seed=S]``, ``gnubg[:ply=N]``, ``human``, ``greedy``; raises :class:`PlayerError` naming
    the problem.

    Without ``variant`` the player plays backgammon on 26-slot boards (``greedy``:
    :class:`bgnet.baselines.GreedyPlayer` of backgammon).  With a variant
    (a :class:`bgnet.variants.Variant` or its label) it plays that game's
    52-slot boards: ``greedy`` and ``random`` play any game; ``bgnet``
    loads the network shipped for the game (:func:`variant_network`) unless
    a checkpoint is given, and a checkpoint of another game is refused;
    backgammon's players (pubeval, gnubg, a backgammon network) play the
    games with backgammon's rules (backgammon, nackgammon) and no other.
    """
    name, opt = parse_spec(spec)
    label = spec.strip()
    game = get_variant(variant) if isinstance(variant, str) else variant
    if name == "greedy":
        return GreedyPlayer(game or VARIANTS["backgammon"], name=label)
    if name == "random":
        return RandomPlayer(seed=opt.get("seed", 0), name=label)
    if game is None:
        return _make_backgammon(name, opt, label)
    # Backgammon's players play backgammon itself (house rules too) and games with its moves.
    as_backgammon = game.standard or game.name in ("backgammon", "nackgammon")
    if name in ("pubeval", "gnubg", "human"):
        if not as_backgammon:
            raise PlayerError(
                f"player {name} plays backgammon's rules only, not {game.label} (play greedy or random)"
            )
        return _Narrowed(_make_backgammon(name, opt, label))
    checkpoint = opt.get("checkpoint")
    if checkpoint is None and game.name != "backgammon":
        # The game's own network when one is shipped; backgammon's plays games with its rules.
        shipped = variant_network(game.name)
        if shipped is None and not game.standard:
            raise PlayerError(
                f"no network is shipped for {game.name}: give one with bgnet:checkpoint=PATH (or play greedy)"
            )
        checkpoint = None if shipped is None else str(shipped)
    net = _net_player(opt, checkpoint, label)
    plays = getattr(net.evaluator, "variant", None)
    plays_name = "backgammon" if plays is None else plays.name
    if plays is None and as_backgammon:
        return _Narrowed(net)
    if plays_name != game.name:
        raise PlayerError(
            f"{label}: the network {checkpoint or 'shipped'} plays {plays_name}, not {game.name}"
        )
    return net


def _net_player(opt: dict[str, Any], checkpoint: str | None, label: str) -> NetPlayer:
    """The bgnet player of a parsed spec's options."""
    lookahead = opt.get("lookahead", 1)
    if lookahead not in (0, 1):
        raise PlayerError(f"option lookahead of player bgnet must be 0 or 1, got {lookahead}")
    device = opt.get("device", "cpu")
    _machine_has("bgnet", device)  # one line, not torch's traceback
    return NetPlayer.from_checkpoint(
        checkpoint,
        ply=opt.get("ply", 0),
        device=device,
        name=label,
        race_lookahead=bool(lookahead),
    )


def _make_backgammon(name: str, opt: dict[str, Any], label: str) -> Player:
    """A backgammon player (26-slot boards) of a parsed spec."""
    if name == "bgnet":
        return _net_player(opt, opt.get("checkpoint"), label)
    if name == "pubeval":
        return PubevalPlayer(name=label)
    if name == "gnubg":
        return GnubgPlayer(ply=opt.get("ply", 0), name=label)
    return HumanPlayer(name=label)
