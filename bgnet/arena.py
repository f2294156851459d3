"""Matches between two players: duplicate dice, a referee on every play, statistics.

:func:`play` runs ``games`` cubeless money games of player A against player
B in lockstep (:class:`bgnet.lockstep.Lockstep`, :func:`bgnet.lockstep.duel`).
A is always player 0 and B player 1; the results are A's points.

Duplicate dice
--------------
Games come in pairs ``(2k, 2k + 1)`` that share one dice sequence, drawn
from ``numpy.random.default_rng([seed, k])``: an opening roll ``(a, b)``
and the rolls of the later plies.  Game ``2k`` gives A the die ``a``; game
``2k + 1`` swaps the opening dice, so whoever held A's seat in one game holds
it in the other: each side gets, ply for ply, the rolls the other side had.
A game's dice depend only on ``seed`` and its number, so the results do not
depend on the batch size or on how the games are split among processes
(``jobs``), for players whose choice depends only on the position and
dice (all of bgnet's; a network's ties in floating point aside).

Statistics
----------
``ppg`` is A's mean points per game.  The two games of a pair are
correlated (that is the point of duplicate dice: luck cancels), so the 95%
confidence interval is computed over the ``N / 2`` pair means ``m_k``:
``1.96 * sd(m) / sqrt(N / 2)``.  ``ci95_unpaired`` is the usual interval
over the ``N`` games, for comparison.  Gammon and backgammon rates count
gammons *including* backgammons (as bgnet's probabilities do) and
backgammons alone, per game played.

Cube and matches
----------------
:func:`play_cubeful` plays cubeful money games (``length`` 0) or
``length``-point matches, each game a :class:`bgnet.game.Game` run by
:class:`bgnet.engine.Engine`, so the game's rules apply (who may double, Crawford and post-Crawford, the dead
cube, drops scoring the cube before the double).  Before each roll where the
side on roll may double, its player's ``double`` is asked (batched over the
games, :class:`bgnet.players.CubePlayer`), then the other's ``take``; plays
are chosen in one batch per ply as in :func:`play`, and each is handed to
``Game.move`` with ``checked=True`` (the referee has checked it).  Matches
``2k`` and ``2k + 1`` share their dice, game by game (:func:`bgnet.dice.duplicate_dice`).
The headline is A's points per game (money) or A's match win rate (matches),
with the paired CI; :meth:`CubefulResult.save` writes ``.mat`` files.

Variants
--------
With ``variant=`` (a :class:`bgnet.variants.Variant`) :func:`play` plays
that game's cubeless games (:class:`bgnet.lockstep.Lockstep` with the
variant: its start, its rules, its opening, its results, draws included) on
the same duplicate dice: with an opening ``"reroll"`` the opening roll only
says who starts and the sequence's first roll is that player's first
roll, so the two games of a pair still give each side the other's rolls.
Players come from :func:`bgnet.players.make_player` with the variant.

Referee
-------
Every row a player returns is checked against the legal plays of that roll
(bgnet's rules core): a row outside the roll's results, -1 when a play
exists, or a move when none exists is an *illegal play*.  It is recorded
(:class:`IllegalPlay`) and replaced by the roll's first legal play (or no
move), so the match goes on and the report says who cheated.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bgnet.checkpoint import DEFAULT
from bgnet.dice import OPENING_WEIGHTS, ROLL_INDEX, ROLL_WEIGHTS, Dice, duplicate_dice
from bgnet.engine import MAX_PLIES, Engine
from bgnet.errors import BgnetError
from bgnet.evaluator import NetEvaluator
from bgnet.formats import position_id
from bgnet.game import Game, Match
from bgnet.lockstep import Chooser, FinishedGame, GameDice, Lockstep, duel
from bgnet.matfile import find_play, write_mat
from bgnet.movegen import MoveBatch
from bgnet.players import CubePlayer, Player, make_player, supports_cube
from bgnet.rollout import roll_luck
from bgnet.stats import mean_ci, paired_ci
from bgnet.variant_format import format_variant_position
from bgnet.variants import Variant
from bgnet.variants import variant as get_variant

__all__ = [
    "ArenaError",
    "IllegalPlay",
    "MatchResult",
    "game_dice",
    "play",
    "play_cubeful",
    "CubefulResult",
    "referee",
]

DEFAULT_SLOTS = 256


class ArenaError(BgnetError):
    """A match that cannot be run as asked (odd number of games, bad options)."""


@dataclass(frozen=True)
class IllegalPlay:
    """A play a player returned that is not legal: who, where, what and why."""

    player: str
    position: str
    dice: tuple[int, int]
    row: int
    reason: str

    def to_json(self) -> dict:
        return {
            "player": self.player,
            "position": self.position,
            "dice": list(self.dice),
            "row": self.row,
            "reason": self.reason,
        }


def referee(
    choose: Chooser, name: str, log: list[IllegalPlay], describe: Callable[[np.ndarray], str] = position_id
) -> Chooser:
    """Wrap a chooser: check each row against its roll's legal results, log and replace illegal ones.

    ``describe`` writes a position for the log (a GNUBG Position ID; a variant's own format for its boards).
    """

    def checked(batch: MoveBatch, player: np.ndarray) -> np.ndarray:
        n = len(batch.offsets) - 1
        rows = np.asarray(choose(batch, player))
        if rows.shape != (n,) or not np.issubdtype(rows.dtype, np.integer):
            raise ArenaError(
                f"player {name} returned {rows.dtype} rows of shape {rows.shape} for {n} rolls; "
                "a chooser returns one integer row per roll"
            )
        rows = rows.astype(np.int64)
        lo, hi = batch.offsets[:-1], batch.offsets[1:]
        none = lo == hi
        ok = np.where(none, rows == -1, (rows >= lo) & (rows < hi))
        if ok.all():
            return rows
        boards = getattr(batch, "boards", None)
        dice = getattr(batch, "dice", None)
        for i in np.flatnonzero(~ok):
            if none[i]:
                reason = "moved although no play is legal"
            elif rows[i] == -1:
                reason = "did not move although a legal play exists"
            else:
                reason = "returned a play that is not a legal play of this roll"
            log.append(
                IllegalPlay(
                    name,
                    describe(boards[i]) if boards is not None else "?",
                    (int(dice[i][0]), int(dice[i][1])) if dice is not None else (0, 0),
                    int(rows[i]),
                    reason,
                )
            )
        return np.where(ok, rows, np.where(none, -1, lo))

    return checked


def game_dice(seed: int, max_plies: int = MAX_PLIES, first_game: int = 0) -> Callable:
    """The :data:`bgnet.lockstep.GameDice` of duplicate dice (:func:`bgnet.dice.duplicate_dice`).

    ``first_game`` is added to the engine's game numbers (a worker that plays
    games ``first_game, ...`` of a larger match).
    """

    def dice(game: int) -> tuple[tuple[int, int], np.ndarray]:
        return duplicate_dice(seed, game + first_game, max_plies)

    return dice


def unpaired_ci(points: np.ndarray) -> float:
    """95% CI half-width treating the games as independent."""
    return mean_ci(points)[1]


@dataclass
class MatchResult:
    """The games of a match, A's points in game order, and what follows from them."""

    a: str
    b: str
    seed: int
    points: np.ndarray
    plies: np.ndarray
    seconds: float
    illegal: list[IllegalPlay] = field(default_factory=list)
    variant: str | None = None
    """The variant's label; None: backgammon as before variants (the JSON then has no variant fields)."""
    luck: np.ndarray | None = None
    """A's luck in each game by a reference network (:func:`game_luck`); None: not measured."""

    @property
    def games(self) -> int:
        return len(self.points)

    @property
    def ppg(self) -> float:
        return paired_ci(self.points)[0]

    @property
    def ci95(self) -> float:
        return paired_ci(self.points)[1]

    @property
    def ci95_unpaired(self) -> float:
        return unpaired_ci(self.points)

    def adjusted(self) -> tuple[float, float] | None:
        """Luck-adjusted points per game of A and its 95% CI over the pairs (None without luck)."""
        if self.luck is None:
            return None
        m, ci = paired_ci(self.points - self.luck)
        return float(m), float(ci)

    def rates(self, side: str) -> dict[str, float]:
        """``win``, ``gammon`` (including backgammons) and ``backgammon`` rates of side ``"a"`` or ``"b"``."""
        pts = self.points if side == "a" else -self.points
        n = max(len(pts), 1)
        return {
            "win": float((pts > 0).sum() / n),
            "gammon": float((pts >= 2).sum() / n),
            "backgammon": float((pts >= 3).sum() / n),
        }

    @property
    def win_rate(self) -> float:
        return self.rates("a")["win"]

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else math.inf

    def to_json(self) -> dict:
        def num(x: float) -> float | None:
            return round(x, 6) if math.isfinite(x) else None

        return {
            "a": self.a,
            "b": self.b,
            "games": self.games,
            "seed": self.seed,
            "ppg": num(self.ppg),
            "ci95": num(self.ci95),
            "ci95_unpaired": num(self.ci95_unpaired),
            "win_rate": num(self.win_rate),
            "rates": {s: {k: num(v) for k, v in self.rates(s).items()} for s in ("a", "b")},
            "results": {str(k): int((self.points == k).sum()) for k in (3, 2, 1, -1, -2, -3)},
            "mean_plies": num(float(self.plies.mean())) if len(self.plies) else None,
            "seconds": num(self.seconds),
            "games_per_second": num(self.games_per_second),
            "illegal_plays": len(self.illegal),
            "illegal": [x.to_json() for x in self.illegal[:20]],
            **(
                {"luck_adjusted": {"ppg": num(adj[0]), "ci95": num(adj[1])}}
                if (adj := self.adjusted()) is not None
                else {}
            ),
            **(
                {
                    "variant": self.variant,
                    "draws": self.draws,
                    "results": self._results((3, 2, 1, 0, -1, -2, -3)),
                }
                if self.variant is not None
                else {}
            ),
        }

    @property
    def draws(self) -> int:
        """Games that ended in a draw (0 points: plakoto's mother rule)."""
        return int((self.points == 0).sum())

    def _results(self, keys: tuple[int, ...]) -> dict[str, int]:
        return {str(k): int((self.points == k).sum()) for k in keys}

    def summary(self) -> str:
        """A few lines of text for people."""
        ra, rb = self.rates("a"), self.rates("b")
        width = max(len(self.a), len(self.b), 4)
        game = f" of {self.variant}" if self.variant is not None else ""
        lines = [
            f"{self.a} (A) vs {self.b} (B): {self.games} games{game} "
            f"({self.games // 2} duplicate-dice pairs), seed {self.seed}",
            f"A's points per game: {self.ppg:+.4f} +- {self.ci95:.4f} (95% CI over pairs; "
            f"+- {self.ci95_unpaired:.4f} unpaired)",
            f"    {'':<{width}}  {'wins':>7}  {'gammons':>7}  {'backgammons':>11}",
        ]
        adj = self.adjusted()
        if adj is not None:
            lines.insert(
                2, f"luck-adjusted (the reference network's view of the dice): {adj[0]:+.4f} +- {adj[1]:.4f}"
            )
        for tag, name, r in (("A", self.a, ra), ("B", self.b, rb)):
            lines.append(
                f"  {tag} {name:<{width}}  {r['win']:>7.2%}  {r['gammon']:>7.2%}  {r['backgammon']:>11.2%}"
            )
        if self.variant is not None:
            lines.append(f"  draws: {self.draws}")
        lines.append(
            f"{self.games_per_second:.1f} games/s ({self.seconds:.1f} s), "
            f"{float(self.plies.mean()) if len(self.plies) else 0:.1f} plies a game"
        )
        if self.illegal:
            who = sorted({x.player for x in self.illegal})
            lines.append(
                f"ILLEGAL PLAYS: {len(self.illegal)} by {', '.join(who)} (replaced by the first legal play); "
                f"first: {self.illegal[0].reason} at {self.illegal[0].position} {self.illegal[0].dice}"
            )
        return "\n".join(lines)


_LUCK_CHUNK = 2048  # boards valued together for their 21 rolls (bounds memory)
_LUCK_GAMES = 64  # finished games whose luck a match values together, as they finish


def game_luck(reference, games: list[FinishedGame], dice: GameDice) -> np.ndarray:
    """Player 0's luck in each of ``games`` (backgammon, cubeless), by ``reference`` (a NetEvaluator).

    The luck of a roll is the mover's cubeless equity after the reference's
    best 0-ply play of the roll rolled, less its mean over the rolls that could
    have come (the 21 rolls; at the opening the 15 non-doubles, ties being
    rolled again; :func:`bgnet.rollout.best_of_rolls`, as rollouts and match
    analysis value luck).  It has mean zero whatever the
    reference, so ``points - luck`` is an unbiased result with less variance
    the better the reference follows the game (gnubg's variance reduction).
    ``dice`` gives each game's dice by its number (:func:`game_dice`).
    """

    boards, rolled, opening, sign, owner = [], [], [], [], []
    for k, g in enumerate(games):
        n = g.plies
        if n == 0:
            continue
        (a, b), later = dice(g.game)
        rolls = np.vstack([np.array([[a, b]]), np.asarray(later[: n - 1], dtype=np.int64)])
        high, low = rolls.max(axis=1), rolls.min(axis=1)
        boards.append(g.history[:n])
        rolled.append(ROLL_INDEX[high, low])
        opening.append(np.arange(n) == 0)
        sign.append(np.where(g.on_roll()[:n] == 0, 1.0, -1.0))
        owner.append(np.full(n, k))
    luck = np.zeros(len(games))
    if not boards:
        return luck
    all_boards = np.concatenate(boards)
    idx = np.concatenate(rolled)
    weights = np.where(np.concatenate(opening)[:, None], OPENING_WEIGHTS, ROLL_WEIGHTS)
    chunks = [slice(lo, lo + _LUCK_CHUNK) for lo in range(0, len(all_boards), _LUCK_CHUNK)]
    per_ply = np.concatenate([roll_luck(reference, all_boards[c], idx[c], weights[c]) for c in chunks])
    per_ply *= np.concatenate(sign)
    np.add.at(luck, np.concatenate(owner), per_ply)
    return luck


def _play_range(
    a: Player,
    b: Player,
    first_game: int,
    games: int,
    seed: int,
    slots: int,
    progress: Callable[[int], None] | None,
    interruptible: bool = False,
    variant: Variant | None = None,
    luck=None,
) -> tuple[np.ndarray, np.ndarray, list[IllegalPlay], np.ndarray | None]:
    """Play games ``first_game .. first_game + games - 1``; A's points and plies in game order, and with
    ``luck`` (a reference NetEvaluator) A's luck in each game (:func:`game_luck`), else None.

    With ``interruptible``, Ctrl-C (KeyboardInterrupt) stops the games and
    the duplicate pairs finished by then come back (it is raised again when
    none is).
    """
    log: list[IllegalPlay] = []
    # A variant whose opening rerolls uses one more roll of the sequence (its first turn's).
    dice = game_dice(seed, MAX_PLIES if variant is None else MAX_PLIES + 1, first_game)
    engine = Lockstep(
        slots,
        games,
        np.random.default_rng(seed),
        max_plies=MAX_PLIES,
        dice=dice,
        variant=variant,
        record=luck is not None,
    )
    lucks = None if luck is None else np.zeros(games)
    ended: list[FinishedGame] = []  # games whose luck is still to value, a batch at a time

    def value_luck() -> None:
        assert lucks is not None
        lucks[[g.game for g in ended]] = game_luck(luck, ended, dice)
        ended.clear()

    describe: Callable[[np.ndarray], str] = position_id
    if variant is not None:
        game = variant

        def describe(board: np.ndarray) -> str:
            return format_variant_position(board, game)

    chooser = duel((referee(a.choose, a.name, log, describe), referee(b.choose, b.name, log, describe)))
    points = np.zeros(games, dtype=np.int64)
    plies = np.zeros(games, dtype=np.int64)
    finished = np.zeros(games, dtype=bool)
    try:
        while engine.running:
            done = engine.step(chooser)
            if luck is not None:
                ended += done  # before they count as finished: a stop between keeps no game unvalued
            for g in done:
                points[g.game] = g.points
                plies[g.game] = g.plies
                finished[g.game] = True
            if luck is not None and len(ended) >= _LUCK_GAMES:  # as they finish: a stop has little left
                value_luck()
            if done and progress is not None:
                progress(len(done))
    except KeyboardInterrupt:
        pairs = finished.reshape(-1, 2).all(axis=1)
        if not interruptible or not pairs.any():
            raise
        keep = np.repeat(pairs, 2)
        if lucks is not None:
            ended[:] = [g for g in ended if keep[g.game]]
            value_luck()
        return points[keep], plies[keep], log, None if lucks is None else lucks[keep]
    if lucks is not None:
        value_luck()
    return points, plies, log, lucks


# Worker processes (--jobs): each builds its players once from their specs.
_WORKER: dict = {}


def _init_worker(
    spec_a: str, spec_b: str, threads: int, label: str | None = None, luck: str | None = None
) -> None:
    import torch

    torch.set_num_threads(threads)
    game = None if label is None else get_variant(label)
    _WORKER["players"] = (make_player(spec_a, game), make_player(spec_b, game))
    _WORKER["variant"] = game
    _WORKER["luck"] = luck_reference(luck)


def _worker_chunk(
    args: tuple[int, int, int, int],
) -> tuple[int, np.ndarray, np.ndarray, list[IllegalPlay], np.ndarray | None]:
    first, games, seed, slots = args
    a, b = _WORKER["players"]
    points, plies, log, luck = _play_range(
        a, b, first, games, seed, slots, None, variant=_WORKER["variant"], luck=_WORKER["luck"]
    )
    return first, points, plies, log, luck


def luck_reference(path: str | None):
    """The NetEvaluator that measures luck (:func:`game_luck`): the network file ``path`` (``""``: the
    shipped network), searched in races as the players are; None for ``None``."""
    if path is None:
        return None
    return NetEvaluator.from_checkpoint(path or DEFAULT)


def play(
    a: Player | str,
    b: Player | str,
    games: int,
    seed: int = 1,
    *,
    jobs: int = 1,
    slots: int = DEFAULT_SLOTS,
    progress: Callable[[int], None] | None = None,
    interruptible: bool = False,
    variant: Variant | None = None,
    luck: str | None = None,
) -> MatchResult:
    """Play ``games`` (even) cubeless games of ``a`` against ``b`` with duplicate dice.

    ``a`` and ``b`` are players or specs (:func:`bgnet.players.make_player`);
    ``jobs > 1`` splits the games among that many processes, which needs
    specs (each process builds its own players).  ``progress(n)`` is called
    as ``n`` more games finish.  The results are in game order and do not
    depend on ``jobs`` or ``slots``.  With ``interruptible`` (one process),
    Ctrl-C stops the match and the result holds the pairs finished by then.
    With ``variant``, games of that game (module docstring), specs built
    for it, and the result names it.  With ``luck`` (a network file; ``""``:
    the shipped one) the result also holds A's luck in each game by that
    network (:func:`game_luck`) and the luck-adjusted points per game.
    """
    if games < 2 or games % 2:
        raise ArenaError(
            f"duplicate dice play each dice sequence twice: give an even number of games, not {games}"
        )
    if jobs < 1:
        raise ArenaError(f"jobs must be 1 or more, got {jobs}")
    label = None if variant is None else variant.label
    if luck is not None and variant is not None:
        raise ArenaError("luck-adjusted results are for backgammon, not for variants")
    if jobs == 1:
        pa = make_player(a, variant) if isinstance(a, str) else a
        pb = make_player(b, variant) if isinstance(b, str) else b
        ref = luck_reference(luck)
        t = time.perf_counter()
        points, plies, log, lk = _play_range(
            pa, pb, 0, games, seed, slots, progress, interruptible, variant, ref
        )
        return MatchResult(pa.name, pb.name, seed, points, plies, time.perf_counter() - t, log, label, lk)
    if not (isinstance(a, str) and isinstance(b, str)):
        raise ArenaError("jobs > 1 needs player specs (strings): each process builds its own players")
    if any(s.strip().lower().startswith("human") for s in (a, b)):
        raise ArenaError("a human player plays in one process: use jobs 1")
    return _play_parallel(a, b, games, seed, jobs, slots, progress, variant, luck)


def _chunks(games: int, jobs: int, slots: int) -> list[tuple[int, int]]:
    """(first game, games) chunks of whole pairs: about 4 per job, at least two batches each."""
    pairs = games // 2
    size = max(slots, -(-pairs // (4 * jobs)))  # pairs per chunk
    return [(2 * p, 2 * min(size, pairs - p)) for p in range(0, pairs, size)]


def _play_parallel(
    a: str,
    b: str,
    games: int,
    seed: int,
    jobs: int,
    slots: int,
    progress: Callable[[int], None] | None,
    variant: Variant | None = None,
    luck: str | None = None,
) -> MatchResult:
    import multiprocessing as mp

    # Check the specs here, once, so a bad one fails with its message and not in a worker.
    names = (make_player(a, variant).name, make_player(b, variant).name)
    label = None if variant is None else variant.label
    ctx = mp.get_context("spawn")
    tasks = [(first, n, seed, slots) for first, n in _chunks(games, jobs, slots)]
    points = np.zeros(games, dtype=np.int64)
    plies = np.zeros(games, dtype=np.int64)
    lucks = None if luck is None else np.zeros(games)
    log: list[IllegalPlay] = []
    threads = max(1, (os.cpu_count() or 1) // jobs)
    t = time.perf_counter()
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(a, b, threads, label, luck)) as pool:
        for first, pts, pl, lg, lk in pool.imap(_worker_chunk, tasks):
            points[first : first + len(pts)] = pts
            plies[first : first + len(pl)] = pl
            if lucks is not None and lk is not None:
                lucks[first : first + len(lk)] = lk
            log += lg
            if progress is not None:
                progress(len(pts))
    seconds = time.perf_counter() - t
    return MatchResult(names[0], names[1], seed, points, plies, seconds, log, label, lucks)


# --------------------------------------------------------------------------
# Cubeful money games and matches
# --------------------------------------------------------------------------


@dataclass
class CubefulResult:
    """Cubeful money games (``length == 0``) or ``length``-point matches of A (player 0) against B.

    ``points[m]`` is A's net points in match ``m`` (money: in game ``m``, a
    multiple of the final cube); ``won[m]`` whether A won it (money: won the
    game).  ``matches`` holds the :class:`bgnet.game.Match` of each, with
    every action, for :meth:`save`.  The headline is A's points per game in
    money play and A's match win rate in matches, each with its 95% CI over
    the duplicate-dice pairs.
    """

    a: str
    b: str
    seed: int
    length: int
    points: np.ndarray
    won: np.ndarray
    matches: list
    seconds: float
    illegal: list[IllegalPlay] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.points)

    @property
    def metric(self) -> str:
        return "match_win_rate" if self.length else "ppg"

    def headline(self) -> tuple[float, float]:
        """(value, 95% CI half-width) of :attr:`metric`."""
        if self.length:
            return paired_ci(self.won.astype(np.float64))
        return paired_ci(self.points)

    def _games(self):
        return [g for m in self.matches for g in m.games]

    def cube_stats(self) -> dict:
        games = self._games()
        actions = [a for g in games for a in g.actions]
        return {
            "games": len(games),
            "doubles": sum(a.kind == "double" for a in actions),
            "takes": sum(a.kind == "take" for a in actions),
            "drops": sum(a.kind == "drop" for a in actions),
            "max_cube": max((g.cube.value for g in games), default=1),
            "crawford_games": sum(g.crawford for g in games),
            "mean_plies": float(np.mean([g.plies for g in games])) if games else 0.0,
        }

    def to_json(self) -> dict:
        def num(x: float) -> float | None:
            return round(x, 6) if math.isfinite(x) else None

        value, ci = self.headline()
        out = {
            "a": self.a,
            "b": self.b,
            "mode": f"{self.length}-point matches" if self.length else "cubeful money games",
            "cube": True,
            "match_length": self.length,
            "seed": self.seed,
            "metric": self.metric,
            "value": num(value),
            "ci95": num(ci),
            "seconds": num(self.seconds),
            "illegal_plays": len(self.illegal),
            "illegal": [x.to_json() for x in self.illegal[:20]],
            **self.cube_stats(),
        }
        if self.length:
            ppm, ppm_ci = paired_ci(self.points)
            out.update(
                matches=self.count,
                match_win_rate=num(value),
                points_per_match=num(ppm),
                points_per_match_ci95=num(ppm_ci),
            )
        else:
            out.update(
                games=self.count,
                ppg=num(value),
                win_rate=num(float(self.won.mean())),
                ci95_unpaired=num(unpaired_ci(self.points)),
            )
        return out

    def summary(self) -> str:
        value, ci = self.headline()
        st = self.cube_stats()
        if self.length:
            ppm, ppm_ci = paired_ci(self.points)
            head = [
                f"{self.a} (A) vs {self.b} (B): {self.count} {self.length}-point matches "
                f"({self.count // 2} duplicate-dice pairs), seed {self.seed}",
                f"A's match win rate: {value:.2%} +- {ci:.2%} (95% CI over pairs); "
                f"A's points per match: {ppm:+.3f} +- {ppm_ci:.3f}",
            ]
        else:
            head = [
                f"{self.a} (A) vs {self.b} (B): {self.count} cubeful money games "
                f"({self.count // 2} duplicate-dice pairs), seed {self.seed}",
                f"A's points per game (with the cube): {value:+.4f} +- {ci:.4f} (95% CI over pairs; "
                f"+- {unpaired_ci(self.points):.4f} unpaired); A wins {float(self.won.mean()):.2%}",
            ]
        head.append(
            f"{st['games']} games: {st['doubles']} doubles, {st['takes']} takes, {st['drops']} drops, "
            f"highest cube {st['max_cube']}, {st['crawford_games']} Crawford games, "
            f"{st['mean_plies']:.1f} plies a game; {self.seconds:.1f} s"
        )
        if self.illegal:
            who = sorted({x.player for x in self.illegal})
            head.append(
                f"ILLEGAL PLAYS: {len(self.illegal)} by {', '.join(who)} (replaced by the first legal play)"
            )
        return "\n".join(head)

    def save(self, path: str | os.PathLike) -> list[str]:
        """Write the games as ``.mat`` files (:mod:`bgnet.matfile`); returns the paths written.

        Money games go into one money session file; a single match into
        ``path``; several matches into ``STEM-0001.mat``, ... next to it (a
        ``.mat`` file holds one match).
        """
        path = Path(path)
        if not self.length:
            session = Match(0, (self.a, self.b), games=len(self.matches))
            for m in self.matches:
                _replay(session, m.games[0])
            return [str(write_mat(session, path))]
        if len(self.matches) == 1:
            return [str(write_mat(self.matches[0], path))]
        return [
            str(write_mat(m, path.with_name(f"{path.stem}-{k + 1:04d}{path.suffix or '.mat'}")))
            for k, m in enumerate(self.matches)
        ]


def _replay(into: Match, game: Game) -> None:
    """Replay ``game``'s actions as the next game of match ``into``, through the game's rules."""
    g = into.new_game(game.opening_dice)
    moves = 0
    for a in game.actions:
        if a.kind == "move":
            if moves:
                g.roll(a.dice)
            g.move(find_play(g, a.steps))
            moves += 1
        elif a.kind == "double":
            g.double()
        elif a.kind == "take":
            g.take()
        elif a.kind == "drop":
            g.drop()


def play_cubeful(
    a: Player | str,
    b: Player | str,
    count: int,
    seed: int = 1,
    *,
    length: int = 0,
    slots: int = DEFAULT_SLOTS,
    progress: Callable[[int], None] | None = None,
    interruptible: bool = False,
) -> CubefulResult:
    """Play ``count`` (even) cubeful money games (``length`` 0) or ``length``-point matches.

    Each game is a :class:`bgnet.game.Game` run by :class:`bgnet.engine.Engine`
    (the rules: who may double, Crawford and post-Crawford, the dead cube,
    scoring of drops and of gammons at the cube's value).  Before each roll
    where the side on roll may double, its player's ``double`` is asked
    (batched over the games); a double is answered by the other player's
    ``take``; a drop ends the game.  Plays are chosen in one batch per ply
    with the referee, as in :func:`play`, on duplicate dice
    (:func:`bgnet.dice.duplicate_dice`).  ``progress(n)`` is called as ``n``
    more games or matches finish.  With ``interruptible``, Ctrl-C
    (KeyboardInterrupt) stops the run and the result holds the duplicate
    pairs finished by then (it is raised again when none is).
    """
    if count < 2 or count % 2:
        raise ArenaError(f"duplicate dice play each dice sequence twice: give an even number, not {count}")
    if length < 0:
        raise ArenaError(f"the match length must be 0 (money) or more, got {length}")
    players: list[CubePlayer] = []
    for spec in (a, b):
        p = make_player(spec) if isinstance(spec, str) else spec
        if not supports_cube(p):
            raise ArenaError(
                f"player {p.name} takes no cube decisions: it cannot play with --cube or --match"
            )
        players.append(p)
    log: list[IllegalPlay] = []
    names = (players[0].name, players[1].name)
    matches: list[Match] = []
    rolls: dict[int, np.ndarray] = {}  # per match: the rolls of its current game
    number: dict[int, int] = {}  # id(game) -> its match's number

    def roll(game: Game) -> Dice:
        return Dice.of(*(int(x) for x in rolls[number[id(game)]][game.plies - 1]))

    refereed = [referee(p.choose, p.name, log) for p in players]
    engine = Engine(
        players,
        chooser=duel((refereed[0], refereed[1])),
        roll=roll,
        max_plies=MAX_PLIES,
    )

    def start_game(m: int) -> Game:
        match = matches[m]
        opening, rolls[m] = duplicate_dice(seed, m, MAX_PLIES, match_game=len(match.games))
        game = match.new_game(opening)
        number[id(game)] = m
        return game

    def start_match() -> None:
        matches.append(Match(length, names, games=None if length else 1))
        live.append(len(matches) - 1)
        start_game(live[-1])

    live: list[int] = []  # match numbers being played
    t = time.perf_counter()
    try:
        while len(matches) < count and len(live) < slots:
            start_match()
        while live:
            # One decision round: each game advances to its next roll at most once per round
            # (the engine batches the cube actions and the plays over all live games).
            engine.advance_round([matches[m].games[-1] for m in live])  # each live match has a game
            done = 0
            still: list[int] = []
            for m in live:
                match = matches[m]
                if not match.games[-1].over:
                    still.append(m)
                elif not match.over:
                    start_game(m)
                    still.append(m)
                else:
                    done += 1
            live = still
            while len(matches) < count and len(live) < slots:
                start_match()
            if done and progress is not None:
                progress(done)
    except KeyboardInterrupt:
        if not interruptible:
            raise
        # Stopped: keep the whole duplicate pairs that finished.
        finished = [m for m in range(len(matches)) if matches[m].over]
        pairs = sorted({m // 2 for m in finished if (m ^ 1) in finished})
        matches = [matches[m] for k in pairs for m in (2 * k, 2 * k + 1)]
        if not matches:
            raise
    points = np.array([m.score[0] - m.score[1] for m in matches], dtype=np.int64)
    if length:
        won = np.array([m.winner == 0 for m in matches], dtype=bool)
    else:
        won = points > 0
    return CubefulResult(names[0], names[1], seed, length, points, won, matches, time.perf_counter() - t, log)
