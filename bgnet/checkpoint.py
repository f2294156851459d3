"""Checkpoint files: one ``torch.save`` dict, written atomically, checked on load.

A checkpoint holds the network's weights and shape (and optionally phase
networks, :data:`PHASES`), the encoder's name and
version, the game it plays (``variant``: a :mod:`bgnet.variants` label;
absent means ``backgammon``, so every older checkpoint loads as before), the
config that made it, and (for training checkpoints) the
optimizer, counters and RNG states.  Loading one that does not match the
code (another encoder version, another shape) or that is not a readable
checkpoint raises :class:`CheckpointError` with a message that says what is
wrong.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from bgnet.atomic import write_atomic
from bgnet.encoding import Encoder, get_encoder, variant_encoder
from bgnet.errors import BgnetError, InvalidPositionError
from bgnet.network import MainNet, OneSidedRaceNet, RaceNet, build_network
from bgnet.position import NUM_SLOTS
from bgnet.variants import Variant, variant

FORMAT = "bgnet-checkpoint-1"
DEFAULT = Path(__file__).resolve().parent / "networks" / "bgnet-default.pt"
"""The shipped networks: package data (``bgnet/networks/``), so an installed wheel finds them."""


class CheckpointError(BgnetError):
    """A checkpoint that is missing, corrupt, or made for other code."""


def save(path: str | Path, state: dict[str, Any]) -> Path:
    """Write ``state`` to ``path`` atomically: a temporary file in the same folder, then a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, lambda f: torch.save({"format": FORMAT, **state}, f))


def read(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint dict, or raise CheckpointError naming the problem."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"no checkpoint file at {path}")
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many types for a damaged file
        first = (str(e).strip().splitlines() or [""])[0][:120]
        raise CheckpointError(
            f"{path} is not a readable bgnet checkpoint ({type(e).__name__}: {first})"
        ) from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a bgnet checkpoint (format {FORMAT} expected)")
    return state


PHASES = ("race", "crashed", "crashed_off")
"""The phase networks a checkpoint may hold besides its main one, each an entry of that name with the main
network's keys: ``race`` values positions without contact, ``crashed`` gnubg's crashed positions
(:func:`bgnet.pubeval.is_crashed`, never a race), ``crashed_off`` (only beside ``crashed``) those of them in
which only the side off roll is crashed (:func:`bgnet.pubeval.crashed_sides`); the evaluator routes each
position to the one whose class it is in, else to the main network."""


def phase_network_from(
    state: dict[str, Any], name: str, source: str = "checkpoint"
) -> tuple[RaceNet, Encoder] | None:
    """The phase network ``name`` (one of :data:`PHASES`) of a checkpoint dict, or None when it has none."""
    if name not in PHASES:
        raise ValueError(f"no phase network called {name!r} (one of {', '.join(PHASES)})")
    entry = state.get(name)
    if entry is None:
        return None
    if not isinstance(entry, dict):
        raise CheckpointError(f"{source}: its {name} network entry is not a network description")
    if name == "crashed_off" and state.get("crashed") is None:
        raise CheckpointError(f"{source}: its crashed_off network has no crashed network beside it")
    return _network_from(entry, f"{source} ({name} network)", race=name == "race")


def network_from(state: dict[str, Any], source: str = "checkpoint") -> tuple[MainNet, Encoder]:
    """Build the (main) network of a checkpoint dict, checking it against this code."""
    model, encoder = _network_from(state, source, race=False)
    assert not isinstance(model, OneSidedRaceNet)  # _network_from allows it only as a race network
    return model, encoder


def _network_from(state: dict[str, Any], source: str, *, race: bool) -> tuple[RaceNet, Encoder]:
    """A network of a checkpoint dict; a one-sided race network
    (:class:`bgnet.network.OneSidedRaceNet`) only as a race network (``race``) reading race inputs."""
    try:
        encoder = get_encoder(state["encoder"])
    except (KeyError, ValueError) as e:
        raise CheckpointError(f"{source}: unknown encoder ({e})") from None
    if state.get("encoder_version") != encoder.version:
        raise CheckpointError(
            f"{source} was made with encoder version {state.get('encoder_version')!r}; "
            f"this code has {encoder.version!r}"
        )
    try:
        shape = state["shape"]
        inputs = shape["inputs"]  # the rest of the shape is its kind's (build_network)
        weights = state["model"]
    except (KeyError, TypeError) as e:
        raise CheckpointError(f"{source} lacks its network description ({type(e).__name__}: {e})") from None
    if inputs != encoder.width:
        raise CheckpointError(
            f"{source} expects {inputs} inputs; encoder {encoder.name} gives {encoder.width}"
        )
    try:
        model = build_network(shape)
        model.load_state_dict(weights)
    except (KeyError, RuntimeError, TypeError, ValueError) as e:
        first = (str(e).strip().splitlines() or [""])[0]
        raise CheckpointError(f"{source}: weights do not match the network shape {shape}: {first}") from None
    if isinstance(model, OneSidedRaceNet) and (not race or encoder.name != "race"):
        raise CheckpointError(f"{source}: a one-sided network can only be a race network reading race inputs")
    return model, encoder


def variant_label(state: dict[str, Any]) -> str:
    """The game a checkpoint dict plays: its ``variant`` entry, else its config's, else ``backgammon``."""
    label = state.get("variant")
    config = state.get("config")
    if label is None and isinstance(config, dict):
        label = config.get("variant")
    return str(label or "backgammon")


def variant_from(state: dict[str, Any], source: str = "checkpoint") -> Variant | None:
    """The :class:`~bgnet.variants.Variant` a checkpoint dict plays, or None for standard backgammon."""
    try:
        game = variant(variant_label(state))
    except InvalidPositionError as e:
        raise CheckpointError(f"{source}: {e}") from None
    return None if game.label == "backgammon" else game


def check_encoder(game: Variant | None, encoder: Encoder, source: str = "checkpoint") -> None:
    """Refuse a network whose encoder reads other boards than its game's (26 or 52 slots, direction)."""
    if game is None:
        if encoder.slots != NUM_SLOTS:
            raise CheckpointError(f"{source}: encoder {encoder.name} reads variant boards, not backgammon's")
        return
    expected = variant_encoder(game.rotate)
    if encoder.name != expected.name:
        raise CheckpointError(f"{source}: {game.label} needs encoder {expected.name}, not {encoder.name}")


def load_network(path: str | Path) -> tuple[MainNet, Encoder, dict[str, Any]]:
    """The network, encoder and checkpoint dict stored at ``path``."""
    state = read(path)
    model, encoder = network_from(state, str(path))
    model.eval()
    return model, encoder, state
