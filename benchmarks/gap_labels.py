"""How close are decision labels' gaps to gnubg-nn's?  (docs/strength.md, measurement only)

Takes files of decision labels made with the same settings
(``python -m bgnet_training.rollout_labels ... --plays K``, by rollouts or
``--search N``), keeps the plays all of them have labelled (the same boards:
the same settings draw the same decisions), and values the same boards with
gnubg-nn at ``--ply`` (the reference), with a networks file at 0- and
1-ply, and with gnubg-nn at each ply below the reference's (how far a strong
network's own shallower search is from it).  Each way is scored by its
gaps: a play's equity less its decision's mean, against the reference's
(rms, mEq), by how often its best play is the reference's, and by what its
best play loses by the reference (mEq a decision, with a 95% CI).  A rollout
file's gaps carry its noise.  The reference only measures: nothing here
trains.

    .venv/bin/python benchmarks/gap_labels.py checkpoints/crashed-decisions.npz \\
        checkpoints/crashed-decisions-2ply.npz
"""

from __future__ import annotations

import argparse

import numpy as np

from bgnet.errors import BgnetError
from bgnet.evaluator import NetEvaluator
from bgnet.formats import board_to_gnubg
from bgnet.players import import_gnubg
from bgnet.probabilities import equity
from bgnet_training.rollout_labels import load


def gaps(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Each value less the mean of its decision's (``group`` sorted)."""
    _, first, counts = np.unique(group, return_index=True, return_counts=True)
    means = np.add.reduceat(values, first) / counts
    return values - np.repeat(means, counts)


def score(name: str, mover: np.ndarray, ref: np.ndarray, group: np.ndarray) -> str:
    rms = 1000 * float(np.sqrt(np.mean((gaps(mover, group) - gaps(ref, group)) ** 2)))
    _, first = np.unique(group, return_index=True)
    loss, same = [], 0
    for a, b in zip(first, [*first[1:], len(group)], strict=True):
        mine, theirs = a + int(np.argmax(mover[a:b])), a + int(np.argmax(ref[a:b]))
        same += mine == theirs
        loss.append(1000 * (ref[theirs] - ref[mine]))
    lost = np.array(loss)
    ci = 1.96 * lost.std(ddof=1) / np.sqrt(len(lost)) if len(lost) > 1 else float("nan")
    return (
        f"{name:<40} gaps' rms error {rms:6.1f} mEq   best play the reference's {same / len(lost):6.1%}"
        f"   its loss {lost.mean():5.2f} ± {ci:.2f} mEq a decision"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("labels", nargs="+", help="decision labels files of the same settings")
    ap.add_argument("--checkpoint", default="bgnet/networks/bgnet-default.pt", help="valued at 0- and 1-ply")
    ap.add_argument("--ply", type=int, default=2, choices=(0, 1, 2), help="gnubg-nn's ply (default 2)")
    args = ap.parse_args()
    try:
        files = [load(p) for p in args.labels]
    except (BgnetError, OSError) as e:
        raise SystemExit(f"gap_labels.py: {e}") from None
    n = min(f.done for f in files)
    first = files[0]
    for path, f in zip(args.labels, files, strict=True):
        if not (
            np.array_equal(f.boards[:n], first.boards[:n]) and np.array_equal(f.group[:n], first.group[:n])
        ):
            raise SystemExit(f"gap_labels.py: {path} labels other decisions than {args.labels[0]}")
    if 0 < n < len(first.group) and first.group[n] == first.group[n - 1]:  # whole decisions only
        n = int(np.searchsorted(first.group[:n], first.group[n - 1]))
    if n == 0 or len(np.unique(first.group[:n])) < 2:
        raise SystemExit("gap_labels.py: fewer than two decisions labelled in every file")
    boards, group = first.boards[:n], first.group[:n]
    try:
        g = import_gnubg()
    except BgnetError as e:
        raise SystemExit(f"gap_labels.py: {e}") from None

    def gnubg_values(ply: int) -> np.ndarray:
        """gnubg-nn's equities of the boards at ``ply`` (the mover's, who left them)."""
        return -equity(np.array([g.probabilities(board_to_gnubg(b), ply) for b in boards]))

    ref = gnubg_values(args.ply)
    ev = NetEvaluator.from_checkpoint(args.checkpoint, bearoff=True)
    print(f"{len(np.unique(group))} decisions, {n} plays; reference gnubg-nn {args.ply}-ply")
    for path, f in zip(args.labels, files, strict=True):
        how = (
            f"{f.settings['search']}-ply"
            if f.settings.get("search")
            else f"{f.settings.get('trials')} trials"
        )
        print(score(f"{path} ({how})", -equity(f.probs[:n]), ref, group))
    for ply in (0, 1):
        print(score(f"{args.checkpoint} at {ply}-ply", -equity(ev.probabilities(boards, ply)), ref, group))
    for ply in range(args.ply):  # what gnubg-nn's own shallower search gets of its deeper one
        print(score(f"gnubg-nn at {ply}-ply", gnubg_values(ply), ref, group))


if __name__ == "__main__":
    main()
