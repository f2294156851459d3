"""The ``bgnet train`` command: arguments and entry point (the CLI layer of ``training/``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .config import FIELDS, ConfigError, default_field_help, load_config


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", required=True, help="a TOML config, e.g. configs/default.toml")
    parser.add_argument("--runs", default="runs", help="folder of run directories (default: runs)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--minutes",
        type=float,
        default=None,
        metavar="M",
        help="stop after M minutes of wall time, with a checkpoint (rerun to go on)",
    )
    parser.add_argument(
        "--ray",
        metavar="ADDRESS",
        default="",
        help="run the self-play workers as Ray actors on the cluster at ADDRESS (auto, HOST:PORT); "
        "needs bgnet[ray]",
    )
    docs = default_field_help()
    group = parser.add_argument_group("config overrides (each replaces the config file's value)")
    for name in FIELDS:
        group.add_argument(
            f"--{name.replace('_', '-')}",
            dest=f"set_{name}",
            metavar="V",
            help=docs.get(name, "").replace("%", "%%"),  # argparse formats help with %
        )


def run(args: argparse.Namespace) -> int:
    overrides = {
        name: getattr(args, f"set_{name}") for name in FIELDS if getattr(args, f"set_{name}") is not None
    }
    cfg = load_config(args.config, overrides)
    if args.minutes is not None and not args.minutes > 0:
        raise ConfigError(f"--minutes must be > 0, got {args.minutes}")
    from .train import Trainer  # torch and friends load only when training

    trainer = Trainer(cfg, Path(args.runs), progress=not args.no_progress)
    if trainer.resumed_from is not None:
        print(f"resuming from {trainer.resumed_from} ({trainer.state.games} games done)", flush=True)
    elif cfg.init:
        print(f"new run {trainer.dir}, networks from {cfg.init}", flush=True)

    try:  # SIGTERM (kill, a scheduler's stop) comes as a KeyboardInterrupt too (bgnet.cli): checkpoint first
        st = trainer.run(ray=args.ray, minutes=args.minutes)
    except KeyboardInterrupt:
        print(f"\nstopped: checkpoint {trainer.latest_checkpoint()} written; run the same command to resume")
        return 130
    if len(getattr(trainer, "nodes", {})) > 1:
        print("games by worker node: " + ", ".join(f"{n}: {g}" for n, g in sorted(trainer.nodes.items())))
    ppg = "n/a" if st.last_ppg is None else f"{st.last_ppg:+.3f} ± {st.last_ci:.3f}"
    who = "pubeval" if cfg.game() is None else "random"
    print(f"run {trainer.dir}: {st.games} games, {st.seconds:.0f} s training, last ppg vs {who} {ppg}")
    latest = trainer.latest_checkpoint()
    if latest is not None:
        print(f"latest checkpoint: {latest}")
    return 0
