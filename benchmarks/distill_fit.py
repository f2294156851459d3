"""Can a phase network learn its own search's values?  (docs/strength.md, "What each lever gave").

Plays self-play games with a checkpoint's networks, labels the positions one
phase network values (outside the bearoff database) with their ``--ply``
values, and regresses a copy of that network on them for a few epochs at
each learning rate.  Reports, by epoch, the training loss and the mean
|0-ply equity - ply equity| on held-out positions from other games: if it
does not fall, the labels teach the network nothing that carries over.

    python benchmarks/distill_fit.py CHECKPOINT [--net race] [--ply 2] [--games 600] [--lr 1e-5,3e-5,1e-4]
"""

import argparse
import time

import numpy as np
import torch

from bgnet.evaluator import NetEvaluator
from bgnet.lockstep import Lockstep
from bgnet.probabilities import equity
from bgnet_training.train import SelfPlayChooser, trained_rows


def positions(ev: NetEvaluator, net: str, games: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    engine = Lockstep(min(games, 256), games, rng, record=True)
    choose = SelfPlayChooser(ev, 0.0, rng)
    finished = []
    while engine.running:
        finished += engine.step(choose)
    boards = np.concatenate([g.history for g in finished])
    return np.unique(boards[trained_rows(ev, boards, net)], axis=0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--net", default="race", choices=("main", "race"))
    ap.add_argument("--ply", type=int, default=2)
    ap.add_argument("--games", type=int, default=600, help="self-play games whose positions are labelled")
    ap.add_argument("--held", type=int, default=600, help="held-out positions")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", default="1e-5,3e-5,1e-4")
    args = ap.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(0)
    ev = NetEvaluator.from_checkpoint(args.checkpoint)
    train = positions(ev, args.net, args.games, seed=5)
    held = positions(ev, args.net, max(args.games // 4, 100), seed=6)[: args.held]
    t = time.perf_counter()
    y = ev.probabilities(train, ply=args.ply)
    print(f"{len(train)} positions labelled at {args.ply}-ply in {time.perf_counter() - t:.0f} s")
    held_eq = equity(ev.probabilities(held, ply=args.ply))
    model, encoder = ev.networks()[args.net]
    x, y_t = torch.from_numpy(encoder.encode(train)), torch.from_numpy(y)
    xh = torch.from_numpy(encoder.encode(held))
    start = {k: v.clone() for k, v in model.state_dict().items()}

    def measure() -> str:
        model.eval()
        with torch.no_grad():
            gap = np.abs(equity(model(xh).numpy()) - held_eq).mean()
            loss = ((model(x) - y_t) ** 2).sum(1).mean().item()
        return f"{gap:.4f}/{loss:.6f}"

    print(f"held-out mean |0-ply - {args.ply}-ply| equity / training loss, by epoch (0: before)")
    for lr in (float(v) for v in args.lr.split(",")):
        model.load_state_dict(start)
        opt = torch.optim.Adam(model.parameters(), lr=lr)
        gen = torch.Generator().manual_seed(0)
        row = [measure()]
        for _ in range(args.epochs):
            model.train()
            order = torch.randperm(len(x), generator=gen)
            for lo in range(0, len(x), 128):
                i = order[lo : lo + 128]
                loss = ((model(x[i]) - y_t[i]) ** 2).sum(1).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            row.append(measure())
        print(f"lr {lr:g}: " + " ".join(row))


if __name__ == "__main__":
    main()
