"""Make a shipped network file from a run's checkpoint: the networks, their config and counters, no optimizer.

    .venv/bin/python -m bgnet_training.ship checkpoints/runs/refine-ply1.pt bgnet/networks/bgnet-default.pt
    .venv/bin/python -m bgnet_training.ship MAIN.pt OUT.pt --race RACE.pt   # the race network of another run
    .venv/bin/python -m bgnet_training.ship MAIN.pt OUT.pt --crashed CRASHED.pt   # the crashed network of one
    .venv/bin/python -m bgnet_training.ship MAIN.pt OUT.pt --ensemble OTHER.pt   # main networks averaged
    .venv/bin/python -m bgnet_training.ship MAIN.pt OUT.pt --average-weights OTHER.pt   # weights averaged
    .venv/bin/python -m bgnet_training.ship MAIN.pt OUT.pt --crashed C.pt --crashed-ensemble OTHER.pt
    .venv/bin/python -m bgnet_training.ship MAIN.pt OUT.pt --crashed-off MAIN.pt --crashed-off OTHER.pt

The result loads everywhere a checkpoint does (``NetEvaluator.from_checkpoint``,
``--checkpoint``); it is about half the size of the training checkpoint.  With
``--race``, the race network comes from that checkpoint instead (a run that
trained only it, ``train_nets = "race"``); its run's name and counters are kept
under ``race_source``; ``--crashed`` does the same for the crashed network
(``train_nets = "crashed"``, under ``crashed_source``).  A run that keeps a weight average (``average`` in its
config, ``training/average.py``) ships the average, from each file; ``--live``
ships the last weights instead.  With ``--ensemble`` (repeatable), the main
network is an ensemble (:class:`bgnet.network.EnsembleNet`): the mean of the
probabilities of the source's main network and each other file's, every member
reading the source's inputs (a member whose encoder the source's extends is
grown to it with zero weights on the added inputs, which keeps its values).
``--crashed-ensemble`` (repeatable) does the same for the crashed network: the
mean of its probabilities and each other file's **main** network's (a main
network good at crashed positions, such as one refined on its own 1-ply
values, joins the crashed network that routing sends them to).  Ensembles are
evaluated, never trained.  ``--average-weights`` (repeatable) keeps one
network instead: the main network's weights replaced by their mean with each
other file's main network of the same game, shape and inputs (networks fitted
from one start, whose mean may keep their gains: docs/strength.md), as fast as
one network; each member's file, run and ``main_source`` are listed under
``main_source``'s ``weights_of``.  It is applied before ``--ensemble``, whose
first member is then the averaged network.  ``--crashed-off`` adds a second crashed network,
``crashed_off``, for the crashed positions in which only the side off roll is
crashed (:data:`bgnet.checkpoint.PHASES`): that file's ``crashed_off``
network where it has one, else its crashed network (its run under
``crashed_off_source``); given more than once, the ensemble of those
networks (their runs under the entry's ``ensemble_sources``).  Self-play runs
train no ``crashed_off`` network and do not carry one from the file they
start from.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bgnet import checkpoint
from bgnet.encoding import Encoder
from bgnet.errors import BgnetError
from bgnet.network import EnsembleNet, MainNet, OneSidedRaceNet, ValueNet
from bgnet_training.grow import widen_into

TRAINING_ONLY = ("optimizer", "rng", "average")


def averaged(state: dict[str, Any], source: str) -> dict[str, Any]:
    """``state`` with its networks replaced by the run's weight average, when it keeps one
    (``training/average.py``).  Each averaged network notes ``averaged``: the average's time constant
    (``games``), the game count it started at (``since``, None if not recorded) and the run's (``at``)."""
    average = state.get("average")
    if average is None:
        return state
    if not isinstance(average, dict) or not isinstance(average.get("main"), dict):
        raise checkpoint.CheckpointError(f"{source}: its weight average is malformed")
    counters = state.get("counters")
    at = counters.get("games") if isinstance(counters, dict) else None
    note = {"games": average.get("games"), "since": average.get("since"), "at": at}
    out = state | {"model": average["main"], "averaged": note}
    for name in checkpoint.PHASES:
        net = state.get(name)
        if isinstance(net, dict) and isinstance(average.get(name), dict):
            out[name] = net | {"model": average[name], "averaged": note}
    return out


def young_average(note: dict[str, Any]) -> str:
    """Why a weight average (its ``averaged`` note) may still hold much of its starting weights, or ''."""
    games, since, at = note.get("games"), note.get("since"), note.get("at")
    if not isinstance(since, int) or not isinstance(at, int) or not isinstance(games, int):
        return "its weight average does not record when it started"
    if at - since < 3 * games:
        return (
            f"its weight average covers {at - since} games, under 3 time constants ({3 * games}): "
            f"it still holds {100 * math.exp(-(at - since) / games):.0f}% of its starting weights"
        )
    return ""


def shipped_state(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` without what only training needs (optimizer states, RNG states), checked to load."""
    out = {k: v for k, v in state.items() if k not in TRAINING_ONLY and k != "format"}
    for name in checkpoint.PHASES:
        if isinstance(out.get(name), dict):
            out[name] = {k: v for k, v in out[name].items() if k not in TRAINING_ONLY}
    if out.get("crashed_off") is not None and out.get("crashed") is None:  # (what to give, before the check)
        raise checkpoint.CheckpointError(
            "a crashed_off network needs a crashed network beside it (give --crashed)"
        )
    checkpoint.network_from(out, "the shipped state")
    for name in checkpoint.PHASES:
        checkpoint.phase_network_from(out, name, "the shipped state")
    return out


def with_phase(state: dict[str, Any], name: str, other: dict[str, Any], source: str) -> dict[str, Any]:
    """``state`` with the phase network ``name`` (``race``, ``crashed``, ``crashed_off``) of ``other`` (a
    checkpoint dict read from ``source``; for ``crashed_off``, :func:`off_roll_entry`'s), its run noted
    under ``NAME_source``."""
    taken = off_roll_entry(other) if name == "crashed_off" else name
    net = other.get(taken)
    if not isinstance(net, dict):
        raise checkpoint.CheckpointError(f"{source}: has no {taken} network")
    key, theirs = f"{name}_source", f"{taken}_source"
    if isinstance(other.get(theirs), dict):  # made apart from the run (bgnet_training.onesided)
        return state | {name: net, key: other[theirs]}
    return state | {name: net, key: provenance(other)}


def off_roll_entry(other: dict[str, Any]) -> str:
    """The network of a checkpoint dict that ``--crashed-off`` takes: its ``crashed_off`` network, else its
    crashed network (a file's crashed network serves as another's off-roll one)."""
    return "crashed_off" if other.get("crashed_off") is not None else "crashed"


def off_roll_network(other: dict[str, Any], source: str) -> tuple[MainNet, Encoder]:
    """:func:`off_roll_entry`'s network of a checkpoint dict read from ``source``."""
    found = checkpoint.phase_network_from(other, off_roll_entry(other), source)
    if found is None:
        raise checkpoint.CheckpointError(f"{source}: has no crashed network")
    model, encoder = found
    assert not isinstance(model, OneSidedRaceNet)  # phase_network_from allows it only as a race network
    return model, encoder


def with_crashed_off(state: dict[str, Any], others: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
    """``state`` with the ``crashed_off`` network of each of ``others`` (checkpoint dicts and where they
    were read; :func:`with_phase`), their ensemble where there are several: the members' runs listed under
    the entry's ``ensemble_sources``, the first file's run under ``crashed_off_source``."""
    (first, source), rest = others[0], others[1:]
    out = with_phase(state, "crashed_off", first, source)
    if not rest:
        return out
    model, encoder = off_roll_network(first, source)
    game = checkpoint.variant_label(first)
    ensemble = ensemble_of(model, encoder, game, rest, network=off_roll_network, what="crashed network")
    sources = [
        member
        for other, where in others
        for member in member_sources(with_phase({}, "crashed_off", other, where), "crashed_off")
    ]
    return out | {"crashed_off": ensemble_entry(out["crashed_off"], ensemble, sources)}


def member_sources(state: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """Where the phase network ``name`` of a checkpoint dict comes from, as an ensemble lists its members:
    its own ``ensemble_sources`` when it is an ensemble, else its ``NAME_source`` (or the dict's run) with
    its weight average's note."""
    entry = state[name]
    own = state.get(f"{name}_source") or provenance(state)
    return list(entry.get("ensemble_sources") or [own | {"averaged": entry.get("averaged")}])


def ensemble_entry(
    entry: dict[str, Any], ensemble: EnsembleNet, sources: list[dict[str, Any]]
) -> dict[str, Any]:
    """A phase network's entry with its network replaced by ``ensemble`` of the members ``sources``."""
    kept = {k: v for k, v in entry.items() if k not in ("model", "shape", "averaged")}
    return kept | {"shape": ensemble.shape, "model": ensemble.state_dict(), "ensemble_sources": sources}


def provenance(state: dict[str, Any]) -> dict[str, Any]:
    """The run a checkpoint dict comes from: its config's name and its counters."""
    config = state.get("config")
    return {
        "run": config.get("name", "") if isinstance(config, dict) else "",
        "counters": state.get("counters", {}),
    }


def ensembled(state: dict[str, Any], others: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
    """``state`` with its main network replaced by the ensemble of its own and each of ``others``'
    (checkpoint dicts and where they were read), grown to ``state``'s encoder where it extends theirs."""
    model, encoder = checkpoint.network_from(state, "the source")
    ensemble = ensemble_of(model, encoder, checkpoint.variant_label(state), others)
    sources = [p for s in [state, *(other for other, _ in others)] for p in provenance_of_members(s)]
    return state | {"shape": ensemble.shape, "model": ensemble.state_dict(), "ensemble_sources": sources}


def ensembled_crashed(state: dict[str, Any], others: list[tuple[dict[str, Any], str]]) -> dict[str, Any]:
    """``state`` with its crashed network replaced by the ensemble of it and the **main** network of each
    of ``others`` (grown to the crashed network's encoder where it extends theirs): the members' runs are
    listed under the entry's ``ensemble_sources``, the crashed network's own first."""
    found = checkpoint.phase_network_from(state, "crashed", "the source")
    if found is None:
        raise checkpoint.CheckpointError("the source has no crashed network to ensemble (give --crashed)")
    model, encoder = found
    assert not isinstance(model, OneSidedRaceNet)  # phase_network_from allows it only as a race network
    ensemble = ensemble_of(model, encoder, checkpoint.variant_label(state), others)
    members = [p for other, _ in others for p in provenance_of_members(other)]
    sources = member_sources(state, "crashed") + members
    return state | {"crashed": ensemble_entry(state["crashed"], ensemble, sources)}


def ensemble_of(
    model: MainNet,
    encoder: Encoder,
    game: str,
    others: list[tuple[dict[str, Any], str]],
    network: Callable[[dict[str, Any], str], tuple[MainNet, Encoder]] = checkpoint.network_from,
    what: str = "main network",
) -> EnsembleNet:
    """The ensemble of ``model`` (reading ``encoder``, playing ``game``) and the ``what`` of each of
    ``others`` (``network`` of it: the main network unless said); a member whose encoder ``encoder`` extends
    is grown to it (zero weights on the new inputs)."""
    nets: list[MainNet] = [model]
    for other, source in others:
        same_game(other, source, game)
        theirs, their_encoder = network(other, source)
        if their_encoder.name == encoder.name:
            nets.append(theirs)
            continue
        if encoder.extends != their_encoder.name:
            raise checkpoint.CheckpointError(
                f"{source}: its {what} reads encoder {their_encoder.name}, the source's "
                f"{encoder.name}, which does not extend it"
            )
        for member in theirs.nets if isinstance(theirs, EnsembleNet) else [theirs]:
            grown = ValueNet(encoder.width, member.shape["hidden"], member.shape["activation"])
            widen_into(grown, member, np.random.default_rng(0))
            nets.append(grown)
    return EnsembleNet.of(nets)


def weights_averaged(
    state: dict[str, Any], others: list[tuple[dict[str, Any], str]], source: str = "the source"
) -> dict[str, Any]:
    """``state`` (read from ``source``) with its main network's weights replaced by their mean with the
    main networks' weights of each of ``others`` (checkpoint dicts and where they were read), which must
    play its game and have its shape and inputs; where each member comes from (its file, run, weight
    average note and ``main_source``) is listed under ``main_source``'s ``weights_of``."""
    files = [(state, source), *others]
    game = checkpoint.variant_label(state)
    nets: list[tuple[MainNet, Encoder]] = []
    for member, where in files:  # the source first: the others must match it
        same_game(member, where, game)
        model, encoder = checkpoint.network_from(member, where)
        if isinstance(model, EnsembleNet):
            raise checkpoint.CheckpointError(
                f"{where}: its main network is an ensemble, which has no weights to average"
            )
        if nets and (encoder.name != nets[0][1].name or model.shape != nets[0][0].shape):
            raise checkpoint.CheckpointError(
                f"{where}: its main network ({describe_network(model.shape, encoder)}) is not the "
                f"source's ({describe_network(nets[0][0].shape, nets[0][1])}), so their weights cannot be "
                "averaged"
            )
        nets.append((model, encoder))
    weights = [model.state_dict() for model, _ in nets]
    mean = {key: sum(w[key] for w in weights) / len(weights) for key in weights[0]}
    members = [noted_provenance(member) | {"file": where} for member, where in files]
    kept = {k: v for k, v in state.items() if k != "averaged"}
    return kept | {"model": mean, "main_source": {"weights_of": members}}


def same_game(other: dict[str, Any], where: str, game: str) -> None:
    """Refuse a checkpoint dict (read from ``where``) whose networks play another game than ``game``."""
    their_game = checkpoint.variant_label(other)
    if their_game != game:
        raise checkpoint.CheckpointError(f"{where} plays {their_game}; the source plays {game}")


def describe_network(shape: dict[str, Any], encoder: Encoder) -> str:
    """A value network's shape and inputs in a few words, e.g. ``384-384 relu on contact``."""
    hidden = "-".join(str(h) for h in shape["hidden"])
    return f"{hidden} {shape['activation']} on {encoder.name}"


def provenance_of_members(state: dict[str, Any]) -> list[dict[str, Any]]:
    """Where each main network of a checkpoint dict comes from: its own ``ensemble_sources`` when it is an
    ensemble already, else its run (:func:`provenance`), its weight average's note (if shipped averaged) and
    its ``main_source`` (if fitted or a weight mean)."""
    if isinstance(state.get("ensemble_sources"), list):
        return list(state["ensemble_sources"])
    return [noted_provenance(state)]


def noted_provenance(state: dict[str, Any]) -> dict[str, Any]:
    """A single main network's run (:func:`provenance`), its weight average's note (None unless shipped
    averaged) and its ``main_source`` where it has one (fitted, or a weight mean)."""
    fitted = {"main_source": state["main_source"]} if state.get("main_source") else {}
    return provenance(state) | {"averaged": state.get("averaged")} | fitted


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("source", type=Path, help="a training checkpoint")
    ap.add_argument("target", type=Path, help="the shipped network file to write")
    ap.add_argument("--race", type=Path, metavar="FILE", help="take the race network from this checkpoint")
    ap.add_argument(
        "--crashed", type=Path, metavar="FILE", help="take the crashed network from this checkpoint"
    )
    ap.add_argument(
        "--crashed-off",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="take this checkpoint's crashed_off network (else its crashed network) for the crashed "
        "positions in which only the side off roll is crashed (repeatable: their ensemble)",
    )
    ap.add_argument(
        "--ensemble",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="average the main network's probabilities with this checkpoint's main network (repeatable)",
    )
    ap.add_argument(
        "--average-weights",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="average the main network's weights with this checkpoint's main network of the same shape and "
        "inputs, e.g. fits from one start (repeatable; one network, unlike --ensemble)",
    )
    ap.add_argument(
        "--crashed-ensemble",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="average the crashed network's probabilities with this checkpoint's main network (repeatable)",
    )
    ap.add_argument(
        "--live",
        action="store_true",
        help="ship the last weights, not the run's weight average where it keeps one",
    )
    args = ap.parse_args(argv)

    def pick(path: Path) -> dict[str, Any]:
        state = checkpoint.read(path)
        if args.live:
            return state
        state = averaged(state, str(path))
        why = young_average(state["averaged"]) if "averaged" in state else ""
        if why:
            print(f"bgnet-ship: warning: {path}: {why}", file=sys.stderr)
        return state

    try:
        state = pick(args.source)
        for name in ("race", "crashed"):
            path = getattr(args, name)
            if path is not None:
                state = with_phase(state, name, pick(path), str(path))
        if args.crashed_off:
            state = with_crashed_off(state, [(pick(p), str(p)) for p in args.crashed_off])
        if args.average_weights:
            state = weights_averaged(
                state, [(pick(p), str(p)) for p in args.average_weights], str(args.source)
            )
        if args.ensemble:
            state = ensembled(state, [(pick(p), str(p)) for p in args.ensemble])
        if args.crashed_ensemble:
            state = ensembled_crashed(state, [(pick(p), str(p)) for p in args.crashed_ensemble])
        path = checkpoint.save(args.target, shipped_state(state))
    except (BgnetError, OSError) as e:
        print(f"bgnet-ship: {e}", file=sys.stderr)
        return 2
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
