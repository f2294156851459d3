"""Rollouts: a position's value measured by playing it out many times, all games in lockstep.

A rollout of a board (seen from its side on roll, about to roll) plays
``games`` games from it to the end, each side choosing its plays with the
evaluator at ``ply`` (:meth:`bgnet.evaluator.Evaluator.choose`), and
averages the results: the 5 probabilities (win, win gammon, win backgammon,
lose gammon, lose backgammon) **for the side on roll of the rolled-out
board**, with their standard errors.  Cubeless.

Games in lockstep
-----------------
Every game of a rollout (and of every candidate play, when plays are rolled
out together) advances one ply at a time: the legal results of all running
games are generated in one compiled call and valued in one evaluator call
per ply.  ``jobs`` > 1 spreads the trials over worker processes, each with
its own evaluator (loaded by a picklable ``make_evaluator``).

Dice and common random numbers
------------------------------
Trial ``i`` has a fixed dice sequence that depends only on ``seed`` and
``i`` (never on batching or on the number of jobs), so the same seed gives
the same result, and every candidate play is rolled out on the same dice
streams (common random numbers: the luck is shared, the differences between
plays are measured much more precisely than the plays themselves).

With ``stratify`` the first two rolls are stratified, as gnubg's
quasi-random dice: in each block of 1296 trials, trial ``i`` gets ordered
roll ``perm0[i % 36]`` first and ``perm1[(i % 36 + i // 36) % 36]`` second
(``perm`` a seeded permutation of the 36 ordered rolls per block, per ply):
trials 36k to 36k + 35 see each first roll and each second roll once
(a Latin square), and every pair of first two rolls appears exactly once
per block; later rolls are independent.

Variance reduction (luck adjustment)
------------------------------------
With ``luck``, at each ply the evaluator values (at 0-ply) the mover's best
play of each of the 21 rolls; the luck of the roll actually thrown is its
value minus the weighted mean over the 21 rolls
(:data:`bgnet.dice.ROLL_WEIGHTS`), and each trial's result is its outcome
minus the sum of its luck, per probability (gnubg's variance reduction).
Each luck term has mean zero over the roll, whatever the evaluator, so the
estimate stays unbiased; the better the evaluator the smaller the variance
left.  At 0-ply the 21-roll evaluation also gives the play of the roll
thrown; at ``ply`` > 0 plays are still chosen at ``ply`` (the luck is
measured at 0-ply, a valid control variate that is cheaper than gnubg's
luck at the rollout's ply).

Ends of games
-------------
A game ends when a side bears off its last checker (exact result), when
``bearoff_stop`` is on and the position is in the evaluator's exact bearoff
database (its exact value is the result), or after ``truncate`` plies (the
evaluator's value at ``ply`` is the result).

Standard errors are the sample standard deviation of the trials' results
over the square root of their number (from :func:`bgnet.stats.mean_se`);
with stratified dice the trials are not independent and this estimate is
conservative, as gnubg's.
"""

from __future__ import annotations

import math
import os
import signal
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass, field
from multiprocessing import get_context

import numpy as np
import torch

from bgnet.dice import ALL_ROLLS, ROLL_DICE, ROLL_INDEX, ROLL_WEIGHTS, Dice
from bgnet.errors import BgnetError
from bgnet.evaluator import DEFAULT_FILTERS, Evaluator, MoveFilter
from bgnet.game import final_probabilities
from bgnet.movegen import generate
from bgnet.position import NUM_SLOTS
from bgnet.position import flip as flip_board
from bgnet.probabilities import FLIP, equity
from bgnet.probabilities import flip as flip_probs
from bgnet.stats import mean_se

__all__ = [
    "PlayRollout",
    "RolloutError",
    "RolloutResult",
    "RolloutSettings",
    "best_of_rolls",
    "candidate_rows",
    "play_out",
    "rollout_boards",
    "rollout_plays",
    "trial_dice",
]

BLOCK = 1296
"""Trials per stratified block: every pair of first two ordered rolls once."""

_LUCK_CHUNK = 2048
"""Running games valued together for the 21 rolls of the luck adjustment (bounds memory)."""

Progress = Callable[[int], None]
"""``progress(n)``: ``n`` more games finished."""


class RolloutError(BgnetError):
    """Rollout settings that cannot be used (one line for the command line)."""


@dataclass(frozen=True)
class RolloutSettings:
    """How to roll out; see the module docstring.

    ``games`` trials; plays chosen at ``ply``; ``truncate`` plies at most
    (None: to the end); ``luck`` and ``stratify`` the two variance
    reductions; ``bearoff_stop`` ends a game in the exact bearoff
    database; ``seed`` fixes the dice.
    """

    games: int = BLOCK
    ply: int = 0
    truncate: int | None = None
    luck: bool = True
    stratify: bool = True
    bearoff_stop: bool = True
    seed: int = 0
    max_plies: int = 2000

    def __post_init__(self) -> None:
        if self.games < 2:
            raise RolloutError(f"a rollout needs at least 2 games, got {self.games}")
        if not 0 <= self.ply <= 1:
            raise RolloutError(f"rollouts play at ply 0 or 1, got {self.ply}")
        if self.seed < 0:
            raise RolloutError(f"--seed must be 0 or more, got {self.seed}")
        if self.truncate is not None and self.truncate < 1:
            raise RolloutError(f"--truncate must be 1 or more plies, got {self.truncate}")


@dataclass
class RolloutResult:
    """The rollout of one board: probabilities and equity for its side on roll, with standard errors.

    ``samples`` holds each trial's (luck-adjusted) 5 probabilities, in trial order.
    """

    samples: np.ndarray
    probabilities: np.ndarray = field(init=False)
    probabilities_se: np.ndarray = field(init=False)
    equity: float = field(init=False)
    equity_se: float = field(init=False)

    def __post_init__(self) -> None:
        s = np.asarray(self.samples, dtype=np.float64)
        cols = [mean_se(s[:, j]) for j in range(5)]
        self.probabilities = np.array([m for m, _ in cols])
        self.probabilities_se = np.array([e for _, e in cols])
        self.equity, self.equity_se = mean_se(equity(s))

    @property
    def games(self) -> int:
        return len(self.samples)

    def to_dict(self) -> dict:
        return {
            "games": self.games,
            "equity": round(self.equity, 6),
            "equity_se": round(self.equity_se, 6),
            "probabilities": [round(float(x), 6) for x in self.probabilities],
            "probabilities_se": [round(float(x), 6) for x in self.probabilities_se],
        }


# ---------------------------------------------------------------------------
# Dice


def trial_dice(seed: int, ply: int, trials: np.ndarray, *, stratify: bool, total: int) -> np.ndarray:
    """The ``(len(trials), 2)`` roll of ply ``ply`` (0: the first roll of the rollout) of each trial.

    Depends only on ``seed``, ``ply`` and the trial number (``total`` is the
    number of trials of the rollout, which sizes the draw).
    """
    trials = np.asarray(trials, dtype=np.int64)
    if stratify and ply < 2:
        block, pos = np.divmod(trials, BLOCK)
        # A Latin square: trials 36k..36k+35 see all 36 first rolls and all 36 second rolls.
        slot = pos % 36 if ply == 0 else (pos % 36 + pos // 36) % 36
        combo = np.empty(len(trials), dtype=np.int64)
        for b in np.unique(block):
            perm = np.random.default_rng([seed, 1, ply, int(b)]).permutation(36)
            mine = block == b
            combo[mine] = perm[slot[mine]]
        return np.stack([combo // 6 + 1, combo % 6 + 1], axis=1)
    drawn = np.random.default_rng([seed, 2, ply]).integers(1, 7, size=(total, 2))
    return drawn[trials]


# ---------------------------------------------------------------------------
# Playing out


def _to_root(probs: np.ndarray, own: np.ndarray) -> np.ndarray:
    """Probabilities for the side on roll turned to the root's side (``own``: the side on roll is it)."""
    probs = np.asarray(probs, dtype=np.float64)
    return np.where(own[:, None], probs, flip_probs(probs))


def best_of_rolls(ev: Evaluator, boards: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each board and each of the 21 rolls: the mover's best 0-ply result and its value.

    The best is the play :meth:`~bgnet.evaluator.Evaluator.choose` makes at
    0-ply (so a luck-adjusted rollout plays the games an unadjusted one
    does), valued as it was chosen: in races the evaluator's search values
    the few best plays of each roll, not every play of the 21 rolls.

    Returns ``(probs, results, moved)``: ``probs`` (N, 21, 5) for the mover,
    ``results`` (N, 21, 26) the result played (seen by the opponent; the
    flipped board when the roll cannot be played), ``moved`` (N, 21) bool.
    """
    n, k = len(boards), len(ALL_ROLLS)
    pairs = np.repeat(boards, k, axis=0)
    batch = generate(pairs, np.tile(ROLL_DICE, (n, 1)))
    rows, theirs = ev.best(batch, 0)
    moved = rows >= 0
    results = flip_board(pairs)
    results[moved] = batch.positions[rows[moved]]
    values = np.empty((n * k, 5), dtype=np.float64)
    values[moved] = theirs[moved]
    if (~moved).any():
        values[~moved] = ev.probabilities(results[~moved])
    return flip_probs(values).reshape(n, k, 5), results.reshape(n, k, NUM_SLOTS), moved.reshape(n, k)


def roll_luck(ev: Evaluator, boards: np.ndarray, rolls: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The cubeless luck of each board's roll ``rolls[i]`` (an index of :data:`ALL_ROLLS`) for its side on
    roll: the equity after its best 0-ply play (:func:`best_of_rolls`) less the mean over the rolls weighted
    by ``weights`` ((21,) or one row a board)."""
    values = equity(best_of_rolls(ev, boards)[0])
    return values[np.arange(len(boards)), rolls] - (values * weights).sum(axis=-1)


def play_out(
    ev: Evaluator,
    roots: np.ndarray,
    trials: np.ndarray,
    settings: RolloutSettings,
    progress: Progress | None = None,
) -> np.ndarray:
    """Play out trials ``trials`` of every root: ``(R, T, 5)`` results for each root's side on roll.

    All ``R x T`` games run in lockstep; trial ``trials[j]`` uses the same
    dice for every root (common random numbers).  With ``settings.luck`` the
    results are luck-adjusted.
    """
    roots = np.ascontiguousarray(roots, dtype=np.int8).reshape(-1, NUM_SLOTS)
    trials = np.asarray(trials, dtype=np.int64)
    n_roots, n_trials = len(roots), len(trials)
    g = n_roots * n_trials
    boards = np.repeat(roots, n_trials, axis=0)
    trial = np.tile(trials, n_roots)
    own = np.ones(g, dtype=bool)  # the side on roll is the root's side on roll
    luck = np.zeros((g, 5))
    out = np.zeros((g, 5))
    active = np.ones(g, dtype=bool)
    bearoff = ev.bearoff if settings.bearoff_stop else None

    def finish(idx: np.ndarray, probs: np.ndarray) -> None:
        out[idx] = _to_root(probs, own[idx])
        active[idx] = False
        if progress is not None and len(idx):
            progress(len(idx))

    for t in range(settings.max_plies + 1):
        idx = np.flatnonzero(active)
        if len(idx) == 0:
            break
        if bearoff is not None:
            covered = np.asarray(bearoff.covers(boards[idx]), dtype=bool)
            if covered.any():
                finish(idx[covered], bearoff.probabilities(boards[idx[covered]]))
                idx = idx[~covered]
        if settings.truncate is not None and t >= settings.truncate and len(idx):
            finish(idx, ev.probabilities(boards[idx], settings.ply))
            idx = idx[:0]
        if len(idx) == 0:
            continue
        if t == settings.max_plies:
            raise RuntimeError(f"a rollout game passed {settings.max_plies} plies")
        dice = trial_dice(settings.seed, t, trial[idx], stratify=settings.stratify, total=settings.games)
        new = np.empty((len(idx), NUM_SLOTS), dtype=np.int8)
        here = boards[idx]
        if settings.luck:
            roll = ROLL_INDEX[dice[:, 0], dice[:, 1]]
            # Early on many games share a board (every game starts from a root): value each once.
            uniq, inv = _distinct(here) if t < _DEDUP_PLIES else (here, np.arange(len(here)))
            for lo in range(0, len(uniq), _LUCK_CHUNK):
                probs, results, _moved = best_of_rolls(ev, uniq[lo : lo + _LUCK_CHUNK])
                mine = np.flatnonzero((inv >= lo) & (inv < lo + len(probs)))
                k = inv[mine] - lo
                mean = np.einsum("nkj,k->nj", probs, ROLL_WEIGHTS)
                thrown = probs[k, roll[mine]]
                luck[idx[mine]] += _diff_to_root(thrown - mean[k], own[idx[mine]])
                new[mine] = results[k, roll[mine]]
        if not settings.luck or settings.ply > 0:
            pairs = np.concatenate([here, dice.astype(np.int8)], axis=1)
            dedup = t < _DEDUP_PLIES
            uniq, back = _distinct(pairs) if dedup else (pairs, np.arange(len(pairs)))
            batch = generate(uniq[:, :NUM_SLOTS], uniq[:, NUM_SLOTS:].astype(np.int64))
            rows = ev.choose(batch, None, settings.ply)
            if dedup:
                rows = rows[back]
            moved = rows >= 0
            new[moved] = batch.positions[rows[moved]]
            new[~moved] = flip_board(here[~moved])
        boards[idx] = new
        own[idx] = ~own[idx]
        over, final = final_probabilities(new)
        if over.any():
            finish(idx[over], final[over])
    return (out - luck).reshape(n_roots, n_trials, 5)


_DEDUP_PLIES = 3
"""Plies at the start of the games where identical boards (and rolls) are evaluated once."""


def _distinct(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a 2-d int8 array and, for each row, the index of its distinct row."""
    uniq, inv = np.unique(rows, axis=0, return_inverse=True)
    return np.ascontiguousarray(uniq), inv.reshape(-1)


def _diff_to_root(diff: np.ndarray, own: np.ndarray) -> np.ndarray:
    """A difference of probabilities for the side on roll, turned to the root's side (flip is affine)."""
    other = diff[:, FLIP].copy()
    other[:, 0] = -diff[:, 0]
    return np.where(own[:, None], diff, other)


# ---------------------------------------------------------------------------
# Whole rollouts, in one process or several

_worker_ev: Evaluator | None = None


def _init_worker(make_evaluator: Callable[[], Evaluator]) -> None:
    global _worker_ev
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    torch.set_num_threads(1)
    _worker_ev = make_evaluator()


@contextmanager
def _children_ignore_ctrl_c() -> Iterator[None]:
    """Processes started inside ignore Ctrl-C from the start (a spawned interpreter keeps an ignored
    SIGINT ignored), before their initializer could say so; the main thread only (signals' rule)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _work(roots: np.ndarray, trials: np.ndarray, settings: RolloutSettings) -> tuple[np.ndarray, np.ndarray]:
    assert _worker_ev is not None
    return trials, play_out(_worker_ev, roots, trials, settings)


def rollout_boards(
    roots: np.ndarray,
    settings: RolloutSettings,
    *,
    evaluator: Evaluator | None = None,
    make_evaluator: Callable[[], Evaluator] | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
) -> list[RolloutResult]:
    """Roll out each of ``roots`` (each for its side on roll) on common dice; one result per root.

    ``jobs`` > 1 runs the trials on that many processes, each building its
    evaluator with ``make_evaluator`` (picklable); the result does not
    depend on ``jobs``.  ``progress(n)`` is told of finished games (root x trial).
    """
    roots = np.ascontiguousarray(roots, dtype=np.int8).reshape(-1, NUM_SLOTS)
    all_trials = np.arange(settings.games)
    if jobs < 1:
        raise RolloutError(f"--jobs must be 1 or more, got {jobs}")
    if jobs == 1:
        if evaluator is None:
            if make_evaluator is None:
                raise ValueError("give an evaluator or make_evaluator")
            evaluator = make_evaluator()
        samples = play_out(evaluator, roots, all_trials, settings, progress)
        return [RolloutResult(s) for s in samples]
    if make_evaluator is None:
        raise ValueError("jobs > 1 needs make_evaluator")
    pieces = min(settings.games, 4 * jobs)
    chunks = np.array_split(all_trials, pieces)
    samples = np.empty((len(roots), settings.games, 5))
    pool = ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=get_context("spawn"),
        initializer=_init_worker,
        initargs=(make_evaluator,),
    )
    try:
        with _children_ignore_ctrl_c():  # the processes start here: Ctrl-C is the parent's to handle
            pending = {pool.submit(_work, roots, c, settings) for c in chunks}
        while pending:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            for f in done:
                trials, part = f.result()
                samples[:, trials] = part
                if progress is not None:
                    progress(len(trials) * len(roots))
    except BaseException:  # Ctrl-C: stop the processes (no traceback), then let the pool wind down
        for p in list((getattr(pool, "_processes", None) or {}).values()):
            p.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return [RolloutResult(s) for s in samples]


# ---------------------------------------------------------------------------
# Plays of a roll


ROLLOUT_FILTER: MoveFilter = DEFAULT_FILTERS[0] or MoveFilter()
"""The 0-ply filter that picks the candidate plays rolled out (gnubg's: 8 within 0.16)."""


def candidate_rows(probs: np.ndarray, f: MoveFilter = ROLLOUT_FILTER) -> np.ndarray:
    """Rows (best first) of the plays that pass ``f``, from the mover's 0-ply probabilities of each play."""
    eq = equity(probs)
    order = np.argsort(-eq, kind="stable")
    keep = [
        int(r)
        for k, r in enumerate(order)
        if k < f.accept or (k < f.keep and eq[r] >= eq[order[0]] - f.window)
    ]
    return np.array(keep, dtype=np.int64)


@dataclass
class PlayRollout:
    """One candidate play rolled out: ``row`` in the roll's batch; the result is for the mover."""

    row: int
    result: RolloutResult
    loss: float = 0.0
    loss_se: float = 0.0


def rollout_plays(
    ev: Evaluator,
    board: np.ndarray,
    dice: Dice,
    settings: RolloutSettings,
    *,
    make_evaluator: Callable[[], Evaluator] | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
    on_candidates: Callable[[int], None] | None = None,
):
    """Roll out the candidate plays of ``dice`` from ``board`` on common dice, best first.

    Returns ``(batch, plays)``: the roll's :class:`~bgnet.movegen.MoveBatch`
    and a list of :class:`PlayRollout` (results for the mover) sorted by
    equity; ``loss`` is the best's equity minus the play's, ``loss_se`` the
    standard error of that difference over the paired trials.
    ``on_candidates(k)`` is told how many plays will be rolled out.
    """
    board = np.asarray(board, dtype=np.int8)
    batch = generate(board[None, :], np.array([[dice.high, dice.low]]))
    if len(batch.positions) == 0:
        return batch, []
    rows = candidate_rows(ev.rank(batch, 0))
    if on_candidates is not None:
        on_candidates(len(rows))
    results = rollout_boards(
        batch.positions[rows],
        settings,
        evaluator=ev,
        make_evaluator=make_evaluator,
        jobs=jobs,
        progress=progress,
    )
    mover = [RolloutResult(flip_probs(r.samples)) for r in results]
    plays = sorted(
        (PlayRollout(int(r), m) for r, m in zip(rows, mover, strict=True)), key=lambda p: -p.result.equity
    )
    best = equity(plays[0].result.samples)
    for p in plays:
        diff = best - equity(p.result.samples)
        p.loss, p.loss_se = mean_se(diff)
        if p is plays[0]:
            p.loss_se = 0.0
    return batch, plays


def default_jobs() -> int:
    """Worker processes for ``--jobs 0``: every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def games_per_second(games: int, seconds: float) -> float:
    return games / seconds if seconds > 0 else math.inf
