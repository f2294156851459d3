"""The one-sided race network: trained on roll distributions that bgnet works out itself.

    .venv/bin/python -m bgnet_training.onesided bgnet/networks/bgnet-default.pt OUT.pt --games 10000 --seed 1

Why
---
In a race (no contact) the two sides never meet again: each side's number of
rolls to bear off is a random variable of its own checkers and the dice, so
the side on roll's cubeless chances are sums over two independent
distributions, as in the bearoff database (``bgnet/bearoff.py``).
:class:`bgnet.network.OneSidedRaceNet` predicts each side's distributions
with one shared trunk and combines them exactly; this module makes its
training data and fits it.  TD self-play taught the two-sided race network
only roughly (about five times gnubg's race error), and regressing it on
two-sided values of the kind below did not help (docs/strength.md).

How
---
* **Near home, exact.** :func:`bgnet.bearoff.build_tables` with ``points = P``
  (default 9) gives, for every way to place up to 15 checkers on points 1..P,
  the distribution of rolls to bear off all checkers and (15 on the board) the
  first one, under the policy that minimises the expected number of rolls
  (C(24, 9) = 1,307,504 positions; about two minutes on one core, then cached
  in ``$BGNET_CACHE`` next to the bearoff database).
* **Further out, sampled.** A side with a checker beyond point P plays
  ``trials`` one-sided games (no opponent: nothing can block or hit it) until
  every checker is within P points, then reads the table: its distribution is
  the average over the trials of the table's distribution shifted by the rolls
  it took.  Each roll is played by the table's policy extended beyond it: the
  play whose result has the smallest ``E[rolls of the result with the outside
  checkers on point P] + (their pips beyond P) / (49 / 6)`` (49/6: the mean
  pips of a roll; an effective pip count).
* **The third distribution**: rolls until the last checker has left the other
  side's home board (points 19..24), which decides backgammons, sampled with
  its own policy: the play with the fewest pips still to go to leave those
  points (saving the backgammon; the all-off key breaks ties).
* **Both sides** (:func:`race_labels`, and the network's forward pass): with
  ``X`` our rolls to bear off all (we are on roll), ``Y`` theirs, ``X1`` /
  ``Y1`` to bear off the first checker (0 once one is off), ``Xb`` / ``Yb``
  the third: win ``P(X <= Y)``, win a gammon ``P(X <= Y1)``, a backgammon
  ``P(X <= Yb)``, lose a gammon ``P(Y < X1)``, a backgammon ``P(Y < Xb)``
  (gammons capped by their wins and losses, backgammons by their gammons).
  The approximations are the bearoff database's: a side minimises its expected
  rolls rather than maximising its chances, the gammon figures use the
  "first checker" policy and the backgammon figures the clearing one.

The data
--------
The sides of every race position (outside the bearoff database) of ``games``
greedy 0-ply self-play games of the networks, with every result of ``rolls``
random rolls of each side (the sides a network values when it chooses a play,
not only those of the plays chosen), their distributions sampled with
``trials`` trials beyond the tables; and ``table`` sides drawn uniformly from
the tables, exact.  bgnet's own games and bgnet's own arithmetic
(self-taught).  The network (:func:`fit_one_sided`) learns them by
cross-entropy; the command writes the networks file with it as the race
network (the main network kept), which ``--player bgnet:checkpoint=OUT.pt``
plays and ``bgnet_training.ship --race OUT.pt`` ships.

Refinement (``--refine N``)
---------------------------
The sampled distributions beyond the tables follow a rough policy (the
effective pip count), and the network fits them only so well.
``--refine N`` starts from the networks file's own one-sided race network and
regresses it ``N`` times on one roll of its own lookahead
(:func:`backup_targets`): for each of the 21 rolls the best play by the
network's expected rolls (the ``prune`` best plays of the tables' key
valued), its distributions (exact within the tables) one roll later, mixed
over the rolls: the one-sided analogue of search-bootstrapped targets, cheap
because one side's lookahead is 21 rolls, not 21 x 21.  The exact tables
are its fixed point (a test checks it).

    .venv/bin/python -m bgnet_training.onesided NETWORKS.pt OUT.pt --refine 1 --games 10000 --seed 2 \
        --epochs 4 --lr 3e-4
"""

from __future__ import annotations

import argparse
import sys
import time
import zipfile
from math import comb
from pathlib import Path

import numpy as np

from bgnet.atomic import write_atomic
from bgnet.bearoff import (
    MAX_CHECKERS,
    _best_results,
    build_tables,
    default_path,
    index_of,
)
from bgnet.errors import BgnetError
from bgnet.movegen import generate
from bgnet.position import NUM_SLOTS
from bgnet.pubeval import is_race
from bgnet.race import one_roll, policy_keys, side_counts, side_inputs

MAX_STEPS = 64  # one-sided rolls before every checker is within P points: at most about 25 in practice


class RaceLabelError(BgnetError):
    """A race value asked of a position that is not a race, or a bad argument."""


# --------------------------------------------------------------------------- tables


class Tables:
    """One-sided roll distributions over points 1..``points`` (:func:`bgnet.bearoff.build_tables`)."""

    VERSION = "bgnet-race-tables-v1"

    def __init__(self, points: int, rolls: np.ndarray, first: np.ndarray) -> None:
        self.points = points
        self.base = comb(MAX_CHECKERS - 1 + points, points)
        if rolls.shape[0] != comb(MAX_CHECKERS + points, points) or first.shape[0] != len(rolls) - self.base:
            raise ValueError(f"tables of shape {rolls.shape}, {first.shape} for {points} points")
        self.rolls = np.ascontiguousarray(rolls, dtype=np.float32)
        """``(C(15 + P, P), L)``: P(bear off all checkers in exactly n rolls)."""
        self.first = np.ascontiguousarray(first, dtype=np.float32)
        """``(C(14 + P, P - 1), M)``: for index ``base + i``, P(bear off the first checker in n rolls)."""
        self.mean = self.rolls.astype(np.float64) @ np.arange(self.rolls.shape[1])
        self.first_mean = np.zeros(len(self.rolls))
        self.first_mean[self.base :] = self.first.astype(np.float64) @ np.arange(self.first.shape[1])

    @classmethod
    def load_or_build(cls, points: int = 9) -> Tables:
        """The tables of ``points`` points, from the cache (next to the bearoff database), else built."""
        if not 6 <= points <= 12:
            raise RaceLabelError(f"points must be 6 to 12, got {points}")
        path = default_path().with_name(f"race-os15-p{points}.npz")
        try:
            with np.load(path, allow_pickle=False) as z:
                if str(z["version"]) == cls.VERSION:
                    return cls(points, z["rolls"], z["first"])
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
            pass
        rolls, first = build_tables(points)
        tables = cls(points, rolls, first)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(
                path,
                lambda f: np.savez(f, version=np.array(cls.VERSION), rolls=tables.rolls, first=tables.first),
            )
        except OSError as e:
            print(f"warning: cannot cache the race tables at {path}: {e.strerror or e}", file=sys.stderr)
        return tables

    def index(self, counts: np.ndarray) -> np.ndarray:
        """Indices of ``(n, 24)`` checker counts on points 1..24 with the checkers beyond P counted on P."""
        c = counts[:, : self.points].astype(np.int64)
        c[:, -1] += counts[:, self.points :].sum(axis=1)
        return index_of(c)

    def keys(self, results: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The policies' keys of the mover's side in ``(n, 26)`` one-sided results of the move generator
        (seen by the empty opponent): the tables' expected rolls to bear off all, and the first, with the
        checkers beyond P counted on P, plus their pips beyond P in rolls (an effective pip count); and
        the pips still to go to leave points 19..24 (:func:`bgnet.race.policy_keys`)."""
        return policy_keys(results, self.mean, self.first_mean, self.points)


# --------------------------------------------------------------------------- one side


def _shifted(table: np.ndarray, rows: np.ndarray, shift: np.ndarray, width: int) -> np.ndarray:
    """``table[rows]`` moved right by ``shift`` columns, in ``width`` columns."""
    out = np.zeros((len(rows), width))
    cols = shift[:, None] + np.arange(table.shape[1])
    np.put_along_axis(out, cols, table[rows], axis=1)
    return out


def side_distributions(
    counts: np.ndarray, tables: Tables, trials: int, rng: np.random.Generator, width: int = 96
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For ``(n, 24)`` checker counts of one side (points 1..24, its own numbering), the distributions
    (each ``(n, width)``) of its rolls to bear off all checkers, the first checker (0 once one is off)
    and to bring its last checker out of points 19..24 (the other side's home board)."""
    counts = np.asarray(counts, dtype=np.int64)
    n = len(counts)
    all_off = np.zeros((n, width))
    first = np.zeros((n, width))
    clear = np.zeros((n, width))
    full = counts.sum(axis=1) == MAX_CHECKERS
    inside = counts[:, tables.points :].sum(axis=1) == 0
    first[~full, 0] = 1.0
    clear[counts[:, 18:].sum(axis=1) == 0, 0] = 1.0  # nothing on 19..24 (always so within P <= 18 points)
    rows = np.flatnonzero(inside)
    idx = tables.index(counts[rows])
    all_off[rows] = _shifted(tables.rolls, idx, np.zeros(len(rows), np.int64), width)
    f = full[rows]
    first[rows[f]] = _shifted(tables.first, idx[f] - tables.base, np.zeros(int(f.sum()), np.int64), width)

    out = np.flatnonzero(~inside)
    if len(out) == 0:
        return all_off, first, clear
    # Sampled rows: (side, policy, trial); policy 0 bears off all, 1 the first checker (sides with 15), 2
    # brings the last checker out of points 19..24 (sides with checkers there).
    side = np.repeat(out, trials)
    policy = np.zeros(len(side), np.int64)
    fo = out[full[out]]
    bo = out[counts[out, 18:].sum(axis=1) > 0]
    side = np.concatenate([side, np.repeat(fo, trials), np.repeat(bo, trials)])
    policy = np.concatenate([policy, np.ones(len(fo) * trials, np.int64), np.full(len(bo) * trials, 2)])
    state = counts[side].copy()
    steps = np.zeros(len(side), np.int64)
    cleared = np.where(state[:, 18:].sum(axis=1) == 0, 0, -1)
    entry = np.full(len(side), -1, np.int64)
    live = np.arange(len(side))
    for step in range(1, MAX_STEPS + 1):
        boards = np.zeros((len(live), NUM_SLOTS), np.int8)
        boards[:, 1:25] = state[live]
        dice = rng.integers(1, 7, size=(len(live), 2))
        batch = generate(boards, dice)
        res = -batch.positions[:, 24:0:-1].astype(np.int64)  # results as our counts on points 1..24
        seg = np.repeat(np.arange(len(live)), np.diff(batch.offsets))
        keys = np.choose(policy[live][seg], tables.keys(batch.positions))
        # the first of the smallest key per input (results are in the generator's order)
        chosen = _best_results(keys, np.arange(len(res)), batch.offsets)
        state[live] = res[chosen]
        home_clear = state[live, 18:].sum(axis=1) == 0
        newly = home_clear & (cleared[live] < 0)
        cleared[live[newly]] = step
        within = state[live, tables.points :].sum(axis=1) == 0
        entry[live[within]] = tables.index(state[live[within]])
        done = within | ((policy[live] == 2) & home_clear)  # a clearing trial ends once it has cleared
        steps[live[done]] = step
        live = live[~done]
        if len(live) == 0:
            break
    if len(live):
        raise RuntimeError("a one-sided race longer than the step limit")

    pos = np.searchsorted(out, side)  # out is sorted
    for p, table, target, base in ((0, tables.rolls, all_off, 0), (1, tables.first, first, tables.base)):
        sel = np.flatnonzero(policy == p)
        if len(sel) == 0:
            continue
        dist = np.zeros((len(sel), width))
        # a roll that brings the last checker within P points may bear one off too (then X1 = its step)
        on = entry[sel] >= base
        dist[on] = _shifted(table, entry[sel][on] - base, steps[sel][on], width)
        dist[np.flatnonzero(~on), steps[sel][~on]] = 1.0
        acc = np.zeros((len(out), width))
        np.add.at(acc, pos[sel], dist)
        got = np.bincount(pos[sel], minlength=len(out))
        has = got > 0
        target[out[has]] = acc[has] / got[has, None]
    sel = np.flatnonzero(policy == 2)
    acc = np.zeros((len(out), width))
    np.add.at(acc, (pos[sel], cleared[sel]), 1.0)
    got = np.bincount(pos[sel], minlength=len(out))
    has = got > 0
    clear[out[has]] = acc[has] / got[has, None]
    return all_off, first, clear


# --------------------------------------------------------------------------- both sides


def race_labels(boards: np.ndarray, tables: Tables, trials: int, rng: np.random.Generator) -> np.ndarray:
    """Cubeless ``(win, wg, wbg, lg, lbg)`` of the side on roll of ``(N, 26)`` race boards (float64)."""
    b = np.asarray(boards, dtype=np.int64).reshape(-1, NUM_SLOTS)
    if not is_race(b.astype(np.int8)).all():
        raise RaceLabelError("race labels of a position with contact or a checker on the bar")
    import torch

    from bgnet.network import OneSidedRaceNet

    d = np.stack(side_distributions(side_counts(b), tables, trials, rng), axis=1)  # (2N, 3, width)
    n = len(b)
    out = OneSidedRaceNet.combine(torch.from_numpy(d[:n]), torch.from_numpy(d[n:])).numpy()
    return np.clip(out, 0.0, 1.0)  # the float32 tables' rounding


# --------------------------------------------------------------------------- one-sided examples


def after_rolls(sides: np.ndarray, rolls: int, rng: np.random.Generator) -> np.ndarray:
    """``sides`` and every result of ``rolls`` random rolls of each (alone on the board), distinct: the sides
    a race network values when it chooses a play, not only those of the plays chosen."""
    counts = np.asarray(sides, dtype=np.int64)
    found = [counts]
    boards = np.zeros((len(counts), NUM_SLOTS), np.int8)
    boards[:, 1:25] = counts
    for _ in range(rolls):
        batch = generate(boards, rng.integers(1, 7, size=(len(boards), 2)))
        found.append(-batch.positions[:, 24:0:-1].astype(np.int64))
    out = np.unique(np.concatenate(found), axis=0)
    return out[out.sum(axis=1) > 0]


def one_sided_targets(
    sides: np.ndarray, tables: Tables, trials: int, rng: np.random.Generator, width: int, chunk: int = 4000
) -> np.ndarray:
    """``(n, 3, width)`` float32: the all-off, first-off and home-board-clear distributions of each side
    (:func:`side_distributions`: exact within the tables' points, sampled beyond)."""
    out = np.zeros((len(sides), 3, width), np.float32)
    for lo in range(0, len(sides), chunk):
        d = np.stack(side_distributions(sides[lo : lo + chunk], tables, trials, rng), axis=1)
        if d[:, :, width:].any():
            raise RuntimeError(f"a distribution longer than {width} rolls")
        out[lo : lo + chunk] = d[:, :, :width]
    return out


def known_distributions(net, sides: np.ndarray, tables: Tables, width: int, chunk: int = 65536) -> np.ndarray:
    """``(n, 3, width)`` distributions of ``(n, 24)`` counts: exact for a side within the tables' points
    (and a side with nothing left: 0 rolls), else the network's (:class:`bgnet.network.OneSidedRaceNet`)."""
    import torch

    sides = np.asarray(sides, dtype=np.int64)
    out = np.zeros((len(sides), 3, width), np.float32)
    empty = sides.sum(axis=1) == 0
    inside = (sides[:, tables.points :].sum(axis=1) == 0) & ~empty
    out[empty, :, 0] = 1.0
    if inside.any():
        out[inside] = np.stack(
            side_distributions(sides[inside], tables, 1, np.random.default_rng(0), width), 1
        )
    rest = np.flatnonzero(~inside & ~empty)
    if len(rest) and net.rolls > width:
        raise ValueError(f"the network's distributions have {net.rolls} roll counts, more than {width}")
    with torch.no_grad():
        for lo in range(0, len(rest), chunk):
            rows = rest[lo : lo + chunk]
            d = net.distributions(torch.from_numpy(side_inputs(sides[rows]))).numpy()
            out[rows, :, : net.rolls] = d
    return out


def backup_targets(
    net, sides: np.ndarray, tables: Tables, width: int, prune: int = 4, chunk: int = 2048
) -> np.ndarray:
    """``(n, 3, width)`` float32: one roll of lookahead on ``(n, 24)`` counts of one side.

    For each of the 21 rolls the side plays the best play by the network's own figures (the result with
    the smallest expected rolls to bear off all for the all-off distribution, to bear off the first for
    the other two: :func:`side_distributions`' policies), and the result's distributions
    (:func:`known_distributions`: exact within the tables) move one roll later; the target is their mix
    over the rolls.  Regressing the network on these (the one-sided analogue of search-bootstrapped
    targets) improves its policy and smooths its errors; repeated, it approaches the tables' fixed point.
    Only the ``prune`` best plays of a roll by each of :func:`side_distributions`' keys (the tables'
    expectation plus an effective pip count) are valued by the network (a move filter).
    """
    return one_roll(
        sides, lambda s: known_distributions(net, s, tables, width), tables.keys, width, prune, chunk
    )


def table_sides(tables: Tables, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` distinct positions drawn uniformly from the tables, as ``(n, 24)`` counts."""
    from bgnet.bearoff import _all_positions

    idx = rng.choice(len(tables.rolls), size=min(count, len(tables.rolls)), replace=False)
    out = np.zeros((len(idx), 24), np.int64)
    out[:, : tables.points] = _all_positions(tables.points)[idx]
    return out[out.sum(axis=1) > 0]


def fit_one_sided(
    net,
    sides: np.ndarray,
    targets: np.ndarray,
    epochs: int,
    lr: float,
    rng: np.random.Generator,
    minibatch: int = 256,
    held_out: float = 0.05,
    log=print,
) -> list[float]:
    """Fit a :class:`bgnet.network.OneSidedRaceNet` to one-sided distributions by cross-entropy (Adam,
    cosine learning rate to 0); returns the held-out mean absolute error of the expected rolls to bear
    off all, before training and after each epoch."""
    import torch

    x = torch.from_numpy(side_inputs(sides))
    d = torch.from_numpy(np.ascontiguousarray(targets, dtype=np.float32))
    order = rng.permutation(len(x))
    cut = max(1, int(len(x) * held_out))
    test, train = torch.from_numpy(order[:cut]), order[cut:]
    ar = torch.arange(d.shape[2], dtype=torch.float32)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    total = epochs * ((len(train) + minibatch - 1) // minibatch)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda i: 0.5 * (1 + np.cos(np.pi * min(i, total) / total))
    )

    def held() -> float:
        net.eval()
        with torch.no_grad():
            p = net.distributions(x[test])[:, 0]
            return float(((p - d[test][:, 0]) @ ar).abs().mean())

    curve = [held()]
    log(f"held-out mean |error| of the expected rolls {curve[0]:.4f} ({cut} sides)")
    for epoch in range(epochs):
        net.train()
        perm = torch.from_numpy(train[rng.permutation(len(train))])
        for lo in range(0, len(perm), minibatch):
            idx = perm[lo : lo + minibatch]
            loss = -(d[idx] * torch.log(net.distributions(x[idx]) + 1e-9)).sum(dim=2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
        curve.append(held())
        log(f"epoch {epoch + 1}: held-out mean |error| of the expected rolls {curve[-1]:.4f}")
    net.eval()
    return curve


# --------------------------------------------------------------------------- command


def _one_sided(args: argparse.Namespace) -> int:
    import torch

    from bgnet import checkpoint
    from bgnet.encoding import RACE
    from bgnet.evaluator import NetEvaluator
    from bgnet.network import OneSidedRaceNet

    from .races import harvest
    from .train import SelfPlayChooser

    state = checkpoint.read(args.networks)
    if args.refine:
        race = state.get("race")
        if not isinstance(race, dict) or race.get("shape", {}).get("kind") != "one-sided":
            raise RaceLabelError(f"{args.networks} has no one-sided race network to refine")
        loaded = checkpoint.phase_network_from(state, "race", str(args.networks))
        assert loaded is not None and isinstance(loaded[0], OneSidedRaceNet)
        net = loaded[0].eval()
        args.width = net.rolls  # its distributions' length
    evaluator = NetEvaluator.from_checkpoint(args.networks, bearoff=True, race_lookahead=False)
    rng = np.random.default_rng(args.seed)
    torch.manual_seed(args.seed)
    t0 = time.perf_counter()
    boards = harvest(SelfPlayChooser(evaluator, 0.0, rng), args.games, rng, every=True)
    sides = after_rolls(np.unique(side_counts(boards), axis=0), args.rolls, rng)
    print(f"{len(sides)} sides from {len(boards)} race positions of {args.games} games", flush=True)
    tables = Tables.load_or_build(args.points)
    t1 = time.perf_counter()
    exact = table_sides(tables, args.table, rng)
    exact_targets = one_sided_targets(exact, tables, 1, rng, args.width)
    if args.refine:
        far = sides[sides[:, args.points :].sum(axis=1) > 0]
        near = sides[sides[:, args.points :].sum(axis=1) == 0]
        exact = np.concatenate([exact, near])
        exact_targets = np.concatenate([exact_targets, one_sided_targets(near, tables, 1, rng, args.width)])
        curve = []
        teacher = net
        if args.fresh:  # a new network of --hidden learns the lookahead of the file's
            net = OneSidedRaceNet(RACE.width, args.hidden, "relu", args.width)
        for it in range(args.refine):
            t1 = time.perf_counter()
            targets = backup_targets(teacher, far, tables, args.width, prune=args.prune)
            teacher = net
            print(f"pass {it + 1}: {len(far)} sides backed up ({time.perf_counter() - t1:.0f} s)", flush=True)
            curve += fit_one_sided(
                net,
                np.concatenate([far, exact]),
                np.concatenate([targets, exact_targets]),
                args.epochs,
                args.lr,
                rng,
                minibatch=args.minibatch,
            )
    else:
        targets = one_sided_targets(sides, tables, args.trials, rng, args.width)
        sides = np.concatenate([sides, exact])
        targets = np.concatenate([targets, exact_targets])
        t2 = time.perf_counter()
        print(f"{len(sides)} one-sided distributions ({t2 - t1:.0f} s)", flush=True)
        net = OneSidedRaceNet(RACE.width, args.hidden, "relu", args.width)
        curve = fit_one_sided(net, sides, targets, args.epochs, args.lr, rng, minibatch=args.minibatch)
    t3 = time.perf_counter()
    race = {
        "encoder": RACE.name,
        "encoder_version": RACE.version,
        "shape": net.shape,
        "model": {k: v.detach().clone() for k, v in net.state_dict().items()},
    }
    source = {
        "command": "bgnet_training.onesided",
        "networks": str(args.networks),
        "games": args.games,
        "seed": args.seed,
        "points": args.points,
        "trials": args.trials,
        "refine": args.refine,
        "prune": args.prune,
        "fresh": args.fresh,
        "rolls": args.rolls,
        "table": args.table,
        "sides": len(sides),
        "epochs": args.epochs,
        "lr": args.lr,
        "minibatch": args.minibatch,
        "held_out_error": curve,
        "seconds": round(t3 - t0),
    }
    checkpoint.save(args.out, state | {"race": race, "race_source": source})
    print(f"one-sided race network -> {args.out} ({t3 - t0:.0f} s in all)")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bgnet_training.onesided", description=__doc__.split("\n")[0])
    ap.add_argument("networks", help="the networks that play the games, whose main network is kept")
    ap.add_argument("out", help="the networks file to write (its race network: the one-sided one)")
    ap.add_argument("--games", type=int, default=10_000, help="self-play games (default 10000)")
    ap.add_argument("--seed", type=int, default=1, help="dice, shuffling and weights seed (default 1)")
    ap.add_argument("--points", type=int, default=9, help="points of the exact tables (6-12, default 9)")
    ap.add_argument("--trials", type=int, default=8, help="one-sided games a side beyond them (default 8)")
    ap.add_argument(
        "--rolls", type=int, default=2, help="random rolls whose results join each side (default 2)"
    )
    ap.add_argument(
        "--table", type=int, default=300_000, help="exact sides drawn from the tables (default 300000)"
    )
    ap.add_argument(
        "--hidden", type=_layers, default=[256], help="hidden layers, e.g. 256 or 256,128 (default 256)"
    )
    ap.add_argument(
        "--refine",
        type=int,
        default=0,
        metavar="N",
        help="refine the networks' own one-sided race network by N passes of one-roll lookahead targets "
        "(backup_targets) instead of sampling distributions (default 0: a new network)",
    )
    ap.add_argument(
        "--fresh",
        action="store_true",
        help="with --refine: a new network of --hidden learns the first pass's targets",
    )
    ap.add_argument(
        "--prune", type=int, default=4, help="plays of a roll the lookahead values by network (default 4)"
    )
    ap.add_argument("--width", type=int, default=64, help="roll counts of each distribution (default 64)")
    ap.add_argument("--epochs", type=int, default=8, help="passes over the sides (default 8)")
    ap.add_argument("--minibatch", type=int, default=512, help="sides a step (default 512)")
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate, cosine to 0 (default 1e-3)")
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    for name in ("games", "trials", "epochs", "table", "width", "minibatch", "prune"):
        if getattr(args, name) < 1:
            print(f"error: --{name} must be >= 1", file=sys.stderr)
            return 2
    if args.rolls < 0 or args.refine < 0:
        print("error: --rolls and --refine must be >= 0", file=sys.stderr)
        return 2
    if not 6 <= args.points <= 12:
        print("error: --points must be 6 to 12", file=sys.stderr)
        return 2
    if not (args.lr > 0 and np.isfinite(args.lr)):
        print("error: --lr must be a positive number", file=sys.stderr)
        return 2
    from .races import writing_command

    return writing_command(Path(args.out), lambda: _one_sided(args))


def _layers(value: str) -> list[int]:
    try:
        layers = [int(h) for h in value.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"hidden layers must be sizes like 256 or 256,128, got {value!r}"
        ) from None
    if not layers or min(layers) < 1:
        raise argparse.ArgumentTypeError(f"hidden layers must be sizes >= 1, got {value!r}")
    return layers


if __name__ == "__main__":
    sys.exit(main())
