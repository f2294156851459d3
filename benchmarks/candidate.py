"""Measure a candidate network file against the shipped one: the figures docs/strength.md quotes, in one go.

Usage (from the repository root)::

    python benchmarks/candidate.py CAND.pt [--against OLD.pt] [--labels DIR] [--games 10000] [--no-play]

It runs the documented ``bgnet bench`` commands and prints one line per
measure (and, with ``--json FILE``, writes them all):

* the 300-position benchmark sample of gnubg's files (contact, crashed,
  race), 0-ply, paired against ``--against`` (default: the shipped network);
* the larger sets, wildbg's position lists, the crashed positions of
  ``benchmarks/data/crashed-positions.txt`` and the contact positions of
  ``benchmarks/data/contact-positions-s11.txt`` labelled by gnubg-nn at 2-ply
  (``bgnet bench label ... --ply 2 --rolls 2 --seed 1``: about 15, 2, 4 and
  28 CPU-minutes, done once and kept in ``--labels``), paired the same way;
* unless ``--no-play``: ``--games`` cubeless games against gnubg 0-ply (seed
  2), head to head against ``--against`` (seed 11) and against pubeval (seed
  1), each with duplicate dice, two processes, and luck-adjusted by stage 1's
  network as well (``--luck``).

Every number is a measurement of this machine's run; the seeds are those of
the tables in docs/strength.md, so a candidate and the shipped network see
the same dice.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "backgammon-data"
SAMPLE = SHARED / "gnubg-1.00-benchmark-sample"
WILDBG = SHARED / "wildbg-benchmark-positions"
BGNET = [sys.executable, "-c", "import sys; from bgnet.cli import main; sys.exit(main())"]


def run_bench(*args: str) -> str:
    """One ``bgnet bench`` command; its output (a failed command ends the script with one line)."""
    print("$ bgnet bench " + " ".join(args), file=sys.stderr, flush=True)
    done = subprocess.run([*BGNET, "bench", *args], cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"candidate: `bgnet bench {' '.join(args)}` failed: {done.stderr.strip()[-400:]}")
    return done.stdout


def bench(*args: str) -> dict:
    """One ``bgnet bench`` command with ``--json``: its JSON answer."""
    return json.loads(run_bench(*args, "--json"))


CRASHED = ROOT / "benchmarks" / "data" / "crashed-positions.txt"
"""1,000 crashed positions of the shipped network's self-play (``benchmarks/crashed_positions.py``)."""

CONTACT = ROOT / "benchmarks" / "data" / "contact-positions-s11.txt"
"""4,000 contact positions, neither race nor crashed, of stage 23's self-play
(``benchmarks/crashed_positions.py --kind contact --checkpoint S23.pt``): the self-play contact set."""


def labelled(labels: Path, name: str, source: Path | None = None) -> Path:
    """wildbg's ``name`` list (or the list ``source``, its labels named after its contents, so that a
    regenerated list is labelled again) labelled by gnubg-nn 2-ply, made once under ``labels``."""
    if source is None:
        out = labels / f"wildbg-{name}-2ply.jsonl"
    else:
        digest = hashlib.sha256(source.read_bytes()).hexdigest()[:12]
        out = labels / f"{name}-{digest}-2ply.jsonl"
    if not out.is_file():
        labels.mkdir(parents=True, exist_ok=True)
        tmp = out.with_suffix(".part")
        run_bench(
            "label",
            str(WILDBG / f"{name}.csv" if source is None else source),
            "--out",
            str(tmp),
            "--ply",
            "2",
            "--rolls",
            "2",
            "--seed",
            "1",
        )
        tmp.replace(out)
    return out


def decisions(label: str, files: list[Path], cand: str, old: str) -> dict:
    d = bench(
        "positions",
        *map(str, files),
        "--player",
        f"bgnet:checkpoint={cand}",
        "--against",
        f"bgnet:checkpoint={old}",
    )
    classes = " / ".join(f"{c} {v['error_memg']:#.3g}" for c, v in d["classes"].items())
    vs = d["against"]
    print(
        f"{label}: {d['error_memg']:#.3g} ± {d['error_se_memg']:#.2g} mEMG ({classes}); "
        f"paired {vs['difference_memg']:+#.3g} ± {vs['ci95_memg']:#.2g} against {old}"
    )
    return d


LUCK_REFERENCE = ROOT / "checkpoints" / "runs" / "phase-td.pt"
"""Stage 1's 225-128 network: the cheap reference of the luck-adjusted results (docs/strength.md)."""


def play(label: str, a: str, b: str, games: int, seed: int) -> dict:
    args = ["--a", a, "--b", b, "--games", str(games), "--seed", str(seed), "--no-progress", "--jobs", "2"]
    d = bench("play", *args, "--luck", str(LUCK_REFERENCE))
    adj = d["luck_adjusted"]
    print(
        f"{label}: {d['ppg']:+.4f} ± {d['ci95']:.4f} ppg over {d['games']} games (seed {seed}); "
        f"luck-adjusted {adj['ppg']:+.4f} ± {adj['ci95']:.4f}"
    )
    return d


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("candidate", type=Path)
    ap.add_argument("--against", type=Path, default=ROOT / "bgnet" / "networks" / "bgnet-default.pt")
    ap.add_argument(
        "--labels", type=Path, default=ROOT / "runs" / "labels", help="where the labelled sets are kept"
    )
    ap.add_argument("--games", type=int, default=10000)
    ap.add_argument("--no-play", action="store_true", help="decisions only")
    ap.add_argument("--json", type=Path, help="write every answer to this file")
    args = ap.parse_args()
    for f in (args.candidate, args.against):
        if not f.is_file():
            sys.exit(f"candidate: no network file at {f}")
    cand, old = str(args.candidate.resolve()), str(args.against.resolve())
    found = {
        "sample": decisions(
            "sample", [SAMPLE / f"{c}-sample.bm" for c in ("contact", "crashed", "race")], cand, old
        ),
        "contact": decisions("larger contact set", [labelled(args.labels, "contact")], cand, old),
        "race": decisions("larger race set", [labelled(args.labels, "race")], cand, old),
        "crashed": decisions("larger crashed set", [labelled(args.labels, "crashed", CRASHED)], cand, old),
        "selfplay": decisions(
            "self-play contact set", [labelled(args.labels, "contact-selfplay", CONTACT)], cand, old
        ),
    }
    if not args.no_play:
        me = f"bgnet:checkpoint={cand}"
        found["gnubg"] = play("vs gnubg 0-ply", me, "gnubg:ply=0", args.games, 2)
        found["h2h"] = play("head to head", me, f"bgnet:checkpoint={old}", args.games, 11)
        found["pubeval"] = play("vs pubeval", me, "pubeval", args.games, 1)
    if args.json:
        args.json.write_text(json.dumps(found, indent=1), encoding="utf-8")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("candidate: interrupted")
