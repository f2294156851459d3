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

import numpy as np

from bgnet.errors import BgnetError
from bgnet.lockstep import Chooser, Lockstep, duel
from bgnet.movegen import MoveBatch
from bgnet.players import Player, make_player

__all__ = [
    "ArenaError",
    "IllegalPlay",
    "MatchResult",
    "duplicate_dice",
    "paired_ci",
    "play",
    "referee",
]

Z95 = 1.959963984540054
MAX_PLIES = 2000
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


def referee(choose: Chooser, name: str, log: list[IllegalPlay]) -> Chooser:
    """Wrap a chooser: check each row against its roll's legal results, log and replace illegal ones."""

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
        from bgnet.formats import position_id

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
                    position_id(boards[i]) if boards is not None else "?",
                    (int(dice[i][0]), int(dice[i][1])) if dice is not None else (0, 0),
                    int(rows[i]),
                    reason,
                )
            )
        return np.where(ok, rows, np.where(none, -1, lo))

    return checked


def duplicate_dice(seed: int, max_plies: int = MAX_PLIES, first_game: int = 0) -> Callable:
    """The :data:`bgnet.lockstep.GameDice` of duplicate dice: games ``2k`` and ``2k + 1`` share a sequence.

    ``first_game`` is added to the engine's game numbers (a worker that plays
    games ``first_game, ...`` of a larger match).
    """

    def dice(game: int) -> tuple[tuple[int, int], np.ndarray]:
        g = game + first_game
        rng = np.random.default_rng([seed, g // 2])
        a, b = (int(x) for x in rng.integers(1, 7, size=2))
        while a == b:
            a, b = (int(x) for x in rng.integers(1, 7, size=2))
        rolls = rng.integers(1, 7, size=(max_plies, 2), dtype=np.int8)
        return ((a, b) if g % 2 == 0 else (b, a)), rolls

    return dice


def paired_ci(points: np.ndarray) -> tuple[float, float]:
    """Mean and 95% CI half-width of per-game points in duplicate pairs ``(0, 1), (2, 3), ...``.

    The interval is over the pair means (they are independent, the two games
    of a pair are not); ``len(points)`` must be even.  With a single pair
    the half-width is infinite.
    """
    pts = np.asarray(points, dtype=np.float64)
    if len(pts) % 2:
        raise ArenaError(f"duplicate games come in pairs; got {len(pts)} games")
    pairs = pts.reshape(-1, 2).mean(axis=1)
    if len(pairs) < 2:
        return float(pts.mean()) if len(pts) else 0.0, math.inf
    return float(pairs.mean()), Z95 * float(pairs.std(ddof=1)) / math.sqrt(len(pairs))


def unpaired_ci(points: np.ndarray) -> float:
    """95% CI half-width treating the games as independent."""
    pts = np.asarray(points, dtype=np.float64)
    if len(pts) < 2:
        return math.inf
    return Z95 * float(pts.std(ddof=1)) / math.sqrt(len(pts))


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
        }

    def summary(self) -> str:
        """A few lines of text for people."""
        ra, rb = self.rates("a"), self.rates("b")
        width = max(len(self.a), len(self.b), 4)
        lines = [
            f"{self.a} (A) vs {self.b} (B): {self.games} games ({self.games // 2} duplicate-dice pairs), "
            f"seed {self.seed}",
            f"A's points per game: {self.ppg:+.4f} +- {self.ci95:.4f} (95% CI over pairs; "
            f"+- {self.ci95_unpaired:.4f} unpaired)",
            f"    {'':<{width}}  {'wins':>7}  {'gammons':>7}  {'backgammons':>11}",
        ]
        for tag, name, r in (("A", self.a, ra), ("B", self.b, rb)):
            lines.append(
                f"  {tag} {name:<{width}}  {r['win']:>7.2%}  {r['gammon']:>7.2%}  {r['backgammon']:>11.2%}"
            )
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


def _play_range(
    a: Player,
    b: Player,
    first_game: int,
    games: int,
    seed: int,
    slots: int,
    progress: Callable[[int], None] | None,
) -> tuple[np.ndarray, np.ndarray, list[IllegalPlay]]:
    """Play games ``first_game .. first_game + games - 1``; A's points and plies in game order."""
    log: list[IllegalPlay] = []
    engine = Lockstep(
        slots,
        games,
        np.random.default_rng(seed),
        max_plies=MAX_PLIES,
        dice=duplicate_dice(seed, MAX_PLIES, first_game),
    )
    chooser = duel((referee(a.choose, a.name, log), referee(b.choose, b.name, log)))
    points = np.zeros(games, dtype=np.int64)
    plies = np.zeros(games, dtype=np.int64)
    while engine.running:
        done = engine.step(chooser)
        for g in done:
            points[g.game] = g.points
            plies[g.game] = g.plies
        if done and progress is not None:
            progress(len(done))
    return points, plies, log


# Worker processes (--jobs): each builds its players once from their specs.
_WORKER: dict = {}


def _init_worker(spec_a: str, spec_b: str, threads: int) -> None:
    import torch

    torch.set_num_threads(threads)
    _WORKER["players"] = (make_player(spec_a), make_player(spec_b))


def _worker_chunk(args: tuple[int, int, int, int]) -> tuple[int, np.ndarray, np.ndarray, list[IllegalPlay]]:
    first, games, seed, slots = args
    a, b = _WORKER["players"]
    points, plies, log = _play_range(a, b, first, games, seed, slots, None)
    return first, points, plies, log


def play(
    a: Player | str,
    b: Player | str,
    games: int,
    seed: int = 1,
    *,
    jobs: int = 1,
    slots: int = DEFAULT_SLOTS,
    progress: Callable[[int], None] | None = None,
) -> MatchResult:
    """Play ``games`` (even) cubeless games of ``a`` against ``b`` with duplicate dice.

    ``a`` and ``b`` are players or specs (:func:`bgnet.players.make_player`);
    ``jobs > 1`` splits the games among that many processes, which needs
    specs (each process builds its own players).  ``progress(n)`` is called
    as ``n`` more games finish.  The results are in game order and do not
    depend on ``jobs`` or ``slots``.
    """
    if games < 2 or games % 2:
        raise ArenaError(
            f"duplicate dice play each dice sequence twice: give an even number of games, not {games}"
        )
    if jobs < 1:
        raise ArenaError(f"jobs must be 1 or more, got {jobs}")
    if jobs == 1:
        pa = make_player(a) if isinstance(a, str) else a
        pb = make_player(b) if isinstance(b, str) else b
        t = time.perf_counter()
        points, plies, log = _play_range(pa, pb, 0, games, seed, slots, progress)
        return MatchResult(pa.name, pb.name, seed, points, plies, time.perf_counter() - t, log)
    if not (isinstance(a, str) and isinstance(b, str)):
        raise ArenaError("jobs > 1 needs player specs (strings): each process builds its own players")
    if any(s.strip().lower().startswith("human") for s in (a, b)):
        raise ArenaError("a human player plays in one process: use jobs 1")
    return _play_parallel(a, b, games, seed, jobs, slots, progress)


def _chunks(games: int, jobs: int, slots: int) -> list[tuple[int, int]]:
    """(first game, games) chunks of whole pairs: about 4 per job, at least two batches each."""
    pairs = games // 2
    size = max(slots, -(-pairs // (4 * jobs)))  # pairs per chunk
    return [(2 * p, 2 * min(size, pairs - p)) for p in range(0, pairs, size)]


def _play_parallel(
    a: str, b: str, games: int, seed: int, jobs: int, slots: int, progress: Callable[[int], None] | None
) -> MatchResult:
    import multiprocessing as mp

    # Check the specs here, once, so a bad one fails with its message and not in a worker.
    names = (make_player(a).name, make_player(b).name)
    ctx = mp.get_context("spawn")
    tasks = [(first, n, seed, slots) for first, n in _chunks(games, jobs, slots)]
    points = np.zeros(games, dtype=np.int64)
    plies = np.zeros(games, dtype=np.int64)
    log: list[IllegalPlay] = []
    threads = max(1, (os.cpu_count() or 1) // jobs)
    t = time.perf_counter()
    with ctx.Pool(jobs, initializer=_init_worker, initargs=(a, b, threads)) as pool:
        for first, pts, pl, lg in pool.imap(_worker_chunk, tasks):
            points[first : first + len(pts)] = pts
            plies[first : first + len(pl)] = pl
            log += lg
            if progress is not None:
                progress(len(pts))
    return MatchResult(names[0], names[1], seed, points, plies, time.perf_counter() - t, log)
