"""The training configuration: a typed, validated dataclass loaded from ``configs/*.toml``.

Every field has a docstring (the string under it), a type and a check; a bad
value raises :class:`ConfigError` naming the field and why.  Any field can be
overridden from the command line (``--lam 0.8``, ``--hidden 80,40``).  The
config is saved with the run (``runs/<name>/config.toml``) and inside every
checkpoint.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bgnet.errors import DEVICES, BgnetError, is_device_name

if TYPE_CHECKING:
    from bgnet.variants import Variant


TARGET_PLY = {"td": 0, "ply1": 1, "ply2": 2}
"""The training targets and the search depth of each (``td`` bootstraps from the game instead)."""

POLICY_DTYPES = ("float32", "bfloat16", "auto")
"""The values of ``policy_dtype``."""


class ConfigError(BgnetError):
    """A config file or value that is missing, malformed or out of range."""


@dataclass(frozen=True)
class TrainConfig:
    name: str = "default"
    """Run name: the run lives in ``runs/<name>/``."""

    seed: int = 1
    """Seed of the one numpy Generator and of torch; the same seed and config replay the same games."""

    variant: str = "backgammon"
    """The game (``bgnet.variants`` label: backgammon, portes, tavla, plakoto, fevga, each optionally with
    +no-forced-max ...): self-play, targets and evaluation follow its rules; not backgammon: 52-slot boards,
    encoder ``variant`` (``variant-rotate`` for fevga), evaluation against a random player."""

    encoder: str = "tesauro198"
    """Input encoder (``bgnet.encoding.ENCODERS``, or ``VARIANT_ENCODERS`` for a variant)."""

    hidden: tuple[int, ...] = (128,)
    """Hidden layer widths."""

    activation: str = "relu"
    """Hidden activation: relu, sigmoid or tanh."""

    race_hidden: tuple[int, ...] = ()
    """Hidden layer widths of a separate race network (positions without contact); empty: none."""

    race_encoder: str = "race"
    """Input encoder of the race network."""

    race_lr_scale: float = 1.0
    """The race network's learning rate is ``lr`` (as scheduled) times this."""

    race_network: str = ""
    """A networks file (e.g. the shipped ``bgnet/networks/bgnet-default.pt``) whose race network values
    every race of this run, frozen, in play and in search targets, with the race search where it is
    one-sided (:mod:`bgnet.race`), as the shipped networks value races; relative paths are from the
    current folder.  In place of a trained race network: needs ``race_hidden`` empty, ``train_nets``
    ``main`` or ``crashed`` and ``bearoff``.  Checkpoints keep a copy (under ``race``, with the file's
    ``race_source``), so the run's files value races as it played them and ``ship`` ships it; resuming
    checks the file still holds the same network.  Empty: none (races go to the run's own race network,
    or the main one)."""

    crashed_hidden: tuple[int, ...] = ()
    """Hidden layer widths of a separate crashed network (gnubg's crashed positions,
    :func:`bgnet.pubeval.is_crashed`); empty: none.  A new run whose ``init`` checkpoint has no crashed
    network starts it as a copy of that checkpoint's main network (crashed positions are contact
    positions): give it that network's widths (or wider ones) and its encoder (or one that extends it)."""

    crashed_encoder: str = ""
    """Input encoder of the crashed network; empty: the main network's (``encoder``)."""

    init: str = ""
    """Checkpoint to start a new run from (its networks' weights, widened to ``hidden`` when that is
    wider); relative paths are from the current folder; empty: random weights."""

    target: str = "td"
    """Training targets: ``td`` (lambda-returns of the game), ``ply1`` (the 1-ply values of the
    positions, the exact expectation over the 21 rolls with each side's best 0-ply reply) or ``ply2``
    (the same over two rolls: each side's best 0-ply reply valued at 1-ply)."""

    search_share: float = 1.0
    """With search targets (``ply1``, ``ply2``), the share of the positions labelled by the search, drawn
    at random; the others get their game's lambda-returns, as with ``td``.  A 1-ply label evaluates about
    420 positions (the replies to 21 rolls), a 0-ply play chooses among about 17, so a share spreads a
    budget of labels over more games."""

    train_nets: str = "all"
    """Which phase networks learn: ``all``, or only ``main``, ``race`` or ``crashed`` (the others still play,
    frozen; only the trained network's positions are labelled, which is what makes search targets for one
    phase cheap)."""

    start: str = "standard"
    """Where self-play games start: ``standard`` (the opening position and roll), ``race`` (a random
    race position of :func:`bgnet.position.random_race` each game, a random side on roll with any roll) or
    a ``.npz`` starts file of race or crashed positions from bgnet's own self-play (``training/races.py``;
    one drawn per game, the same way; relative paths are from the current folder): with ``train_nets =
    "race"`` (or ``"crashed"``), a run that trains that network on the positions real games reach."""

    average: int = 0
    """Keep an exponential moving average of the weights with a time constant of this many games, in the
    checkpoints, which ``ship`` ships (``training/average.py``); 0: none. Training never reads it."""

    snapshot: str = ""
    """A file that each checkpoint is also copied to (e.g. ``checkpoints/runs/NAME.pt``, committed so a run
    outlives the machine); a new run directory resumes from it when it exists. Empty: none."""

    bearoff: bool = False
    """Use the exact bearoff database in self-play and targets (covered positions are not trained)."""

    games: int = 100_000
    """Self-play games to train for in total (raise it and rerun to extend a finished run)."""

    parallel_games: int = 256
    """Games played in lockstep (B): each ply is one network forward over all their candidate positions."""

    lam: float = 0.7
    """TD lambda in [0, 1] (0: one-step TD, 1: Monte Carlo)."""

    lr: float = 1e-3
    """Initial learning rate."""

    lr_final: float = 1e-4
    """Learning rate at the end of the run."""

    lr_schedule: str = "cosine"
    """How the learning rate goes from ``lr`` to ``lr_final`` over the games: cosine, linear or constant."""

    lr_warmup: int = 0
    """Games over which the learning rate rises linearly to its schedule, from a 1/``lr_warmup`` share of
    it (0: none): a grown network's new layers and a fresh optimizer take their first steps small."""

    optimizer: str = "adam"
    """adam or sgd."""

    train_games: int = 64
    """Finished games whose positions are gathered into one round of updates."""

    minibatch: int = 512
    """Positions per gradient step."""

    epochs: int = 1
    """Each round of updates takes this many times its own number of positions in minibatch steps: passes
    over the round's positions, or with ``replay`` a uniform sample of the buffer."""

    replay: int = 0
    """Keep the last this many labelled positions and train each round on a uniform sample of them (0: each
    round trains on its own positions).  For search targets, which are dear to label; the buffer is not
    checkpointed and refills after a resume."""

    epsilon: float = 0.0
    """Probability of a uniformly random play in self-play (exploration); 0 plays greedily as TD-Gammon."""

    narrow: int = 4
    """Acey-deucey's 1-2 in self-play: go on to the doubles from only this many of the best plays of the 1
    and the 2, as the network values them for the mover still on roll (``Variant.generate``'s ``narrow``;
    docs/variants.md measures its cost and what it gives up); 0: all of them."""

    policy_dtype: str = "float32"
    """The precision of the network copy that chooses self-play's plays: float32 (the trained network
    itself), bfloat16 (a copy refreshed after every update: 1.3-1.5x the self-play games a second of a
    384-384-384 network on a CPU that computes in bfloat16, 0.84x of a 225-128 one), or auto (bfloat16 on
    such hardware, else float32).  With search targets (``ply1``, ``ply2``) the copy also picks each
    roll's reply at the last ply of the labels' lookahead, and only the replies picked are valued, in
    float32 (docs/strength.md measures the speed).  Values and updates stay in float32; the plays chosen
    differ from float32's in about 3% of decisions (docs/strength.md)."""

    checkpoint_every: int = 5_000
    """Games between checkpoints."""

    keep_checkpoints: int = 3
    """How many of the latest checkpoints are kept."""

    eval_every: int = 10_000
    """Games between evaluations against pubeval (0: never)."""

    eval_games: int = 2_000
    """Games per evaluation against pubeval."""

    workers: int = -1
    """Self-play worker processes: -1 one per CPU core, 0 none (self-play in the learner's process, the
    only mode whose games replay exactly from the seed), N that many."""

    max_policy_lag: int = -1
    """The most updates a worker's weights may be behind the learner's when its games are trained on
    (older batches are dropped); -1: twice the number of workers."""

    device: str = "auto"
    """auto (CUDA when available, else CPU), cpu, cuda or cuda:N."""

    threads: int = 0
    """torch CPU threads (0: torch's default)."""

    def __post_init__(self) -> None:
        def need(ok: bool, name: str, why: str) -> None:
            if not ok:
                raise ConfigError(f"config field '{name}': {why}, got {getattr(self, name)!r}")

        need(
            bool(self.name) and "/" not in self.name and self.name not in {".", ".."}, "name", "a plain name"
        )
        need(len(self.hidden) >= 1 and all(h >= 1 for h in self.hidden), "hidden", "positive widths")
        need(self.activation in {"relu", "sigmoid", "tanh"}, "activation", "relu, sigmoid or tanh")
        need(self.games >= 1, "games", "must be >= 1")
        need(self.parallel_games >= 1, "parallel_games", "must be >= 1")
        need(0.0 <= self.lam <= 1.0, "lam", "must be in [0, 1]")
        need(self.lr > 0, "lr", "must be > 0")
        need(self.lr_final > 0, "lr_final", "must be > 0")
        need(
            self.lr_schedule in {"cosine", "linear", "constant"}, "lr_schedule", "cosine, linear or constant"
        )
        need(self.lr_warmup >= 0, "lr_warmup", "must be >= 0")
        need(self.optimizer in {"adam", "sgd"}, "optimizer", "adam or sgd")
        need(self.train_games >= 1, "train_games", "must be >= 1")
        need(self.minibatch >= 1, "minibatch", "must be >= 1")
        need(self.epochs >= 1, "epochs", "must be >= 1")
        need(self.replay >= 0, "replay", "must be >= 0")
        need(0.0 <= self.epsilon < 1.0, "epsilon", "must be in [0, 1)")
        need(self.narrow >= 0, "narrow", "must be >= 0")
        need(self.policy_dtype in POLICY_DTYPES, "policy_dtype", "float32, bfloat16 or auto")
        need(self.checkpoint_every >= 1, "checkpoint_every", "must be >= 1")
        need(self.keep_checkpoints >= 1, "keep_checkpoints", "must be >= 1")
        need(self.eval_every >= 0, "eval_every", "must be >= 0")
        need(self.eval_games >= 2, "eval_games", "must be >= 2")
        need(is_device_name(self.device), "device", DEVICES)
        need(self.threads >= 0, "threads", "must be >= 0")
        need(self.workers >= -1, "workers", "-1 (one per core), 0 (none) or a count")
        need(self.max_policy_lag >= -1, "max_policy_lag", "-1 (twice the workers) or a count")
        need(all(h >= 1 for h in self.race_hidden), "race_hidden", "positive widths (or empty)")
        need(self.race_lr_scale > 0, "race_lr_scale", "must be > 0")
        need(self.target in TARGET_PLY, "target", "td, ply1 or ply2")
        need(0 < self.search_share <= 1, "search_share", "must be in (0, 1]")
        need(self.search_share == 1 or self.target != "td", "search_share", "needs target ply1 or ply2")
        need(all(h >= 1 for h in self.crashed_hidden), "crashed_hidden", "positive widths (or empty)")
        need(
            self.train_nets in {"all", "main", "race", "crashed"}, "train_nets", "all, main, race or crashed"
        )
        need(self.train_nets != "race" or bool(self.race_hidden), "train_nets", "race needs race_hidden")
        need(
            self.train_nets != "crashed" or bool(self.crashed_hidden),
            "train_nets",
            "crashed needs crashed_hidden",
        )
        if self.race_network:
            need(not self.race_hidden, "race_hidden", "empty with race_network (one race network)")
            need(
                self.train_nets in {"main", "crashed"},
                "train_nets",
                "main or crashed with race_network (the race network it names is not trained)",
            )
            need(self.bearoff, "bearoff", "true with race_network (its race search reads the database)")
            need(self.start != "race", "start", "not race with race_network (races are not trained)")
        need(self.average >= 0, "average", "must be >= 0 (0: no weight average)")
        need(
            self.start in {"standard", "race"} or self.start.endswith(".npz"),
            "start",
            "standard, race or a .npz starts file",
        )
        from bgnet.encoding import ENCODERS, VARIANT_ENCODERS, variant_encoder

        need(self.race_encoder in ENCODERS, "race_encoder", f"one of {sorted(ENCODERS)}")
        need(
            self.crashed_encoder == "" or self.crashed_encoder in ENCODERS,
            "crashed_encoder",
            f"empty (the main network's) or one of {sorted(ENCODERS)}",
        )
        game = self.game()
        need(self.start == "standard" or game is None, "start", "race and crashed starts are for backgammon")
        if game is None:
            need(self.encoder in ENCODERS, "encoder", f"one of {sorted(ENCODERS)}")
        else:
            need(
                self.encoder in VARIANT_ENCODERS,
                "encoder",
                f"one of {sorted(VARIANT_ENCODERS)} for a variant",
            )
            expected = variant_encoder(game.rotate).name
            need(self.encoder == expected, "encoder", f"{expected} for {game.label}")
            need(not self.race_hidden, "race_hidden", f"empty for {game.label} (no race network)")
            need(not self.race_network, "race_network", f"empty for {game.label} (no race network)")
            need(not self.crashed_hidden, "crashed_hidden", f"empty for {game.label} (no crashed network)")
            need(not self.bearoff, "bearoff", f"false for {game.label} (the database is backgammon's)")

    def game(self) -> Variant | None:
        """The variant of ``variant``, or None for standard backgammon (26-slot boards, the original code)."""
        from bgnet.errors import InvalidPositionError
        from bgnet.variants import variant

        try:
            v = variant(self.variant)
        except InvalidPositionError as e:
            raise ConfigError(f"config field 'variant': {e}") from None
        return None if v.label == "backgammon" else v

    def worker_count(self) -> int:
        """The number of self-play worker processes (0: self-play in the learner's process)."""
        return (os.cpu_count() or 1) if self.workers == -1 else self.workers

    def policy_lag(self) -> int:
        """The most updates a trained batch's weights may be behind (see ``max_policy_lag``)."""
        return 2 * max(1, self.worker_count()) if self.max_policy_lag == -1 else self.max_policy_lag

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}

    def to_toml(self) -> str:
        lines = []
        for k, v in self.to_dict().items():
            if isinstance(v, str):
                lines.append(f"{k} = {json.dumps(v)}")
            elif isinstance(v, bool):
                lines.append(f"{k} = {str(v).lower()}")
            else:
                lines.append(f"{k} = {v!r}")
        return "\n".join(lines) + "\n"

    def differences(self, other: TrainConfig) -> list[str]:
        """``field: ours != theirs`` for every field of the run's identity that differs.

        Where the run executes (``device``, ``threads``) and how long it goes on
        (``games``: raise it to extend a run) are not part of its identity.
        """
        a, b = self.to_dict(), other.to_dict()
        return [f"{k}: {a[k]!r} != {b[k]!r}" for k in a if k not in NOT_IDENTITY and a[k] != b[k]]


FIELDS = {f.name: f for f in fields(TrainConfig)}
NOT_IDENTITY = frozenset(
    {
        "device",
        "threads",
        "games",
        "snapshot",
        "init",
        "workers",
        "max_policy_lag",
        "narrow",
        "average",
        "policy_dtype",
    }
)
"""Fields that may change between the sessions of one run."""


def _coerce(name: str, value: Any) -> Any:
    """Convert a TOML or command-line value to the field's type, or raise ConfigError."""
    f = FIELDS[name]
    kind = f.type if isinstance(f.type, str) else f.type.__name__
    try:
        if kind.startswith("tuple"):
            if isinstance(value, str):
                value = [v for v in value.replace(" ", "").split(",") if v]
            if not isinstance(value, list | tuple):
                raise ValueError
            return tuple(int(v) for v in value)
        if kind == "int":
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise ValueError
            return int(value.replace("_", "")) if isinstance(value, str) else int(value)
        if kind == "float":
            if isinstance(value, bool):
                raise ValueError
            return float(ast.literal_eval(value)) if isinstance(value, str) else float(value)
        if kind == "bool":
            if isinstance(value, str) and value.lower() in {"true", "false", "1", "0"}:
                return value.lower() in {"true", "1"}
            if not isinstance(value, bool):
                raise ValueError
            return value
        if kind == "str":
            if not isinstance(value, str):
                raise ValueError
            return value
    except (ValueError, SyntaxError, TypeError):
        raise ConfigError(f"config field '{name}': expected {kind}, got {value!r}") from None
    raise ConfigError(f"config field '{name}': unsupported type {kind}")


def make_config(values: dict[str, Any]) -> TrainConfig:
    """A validated config from a dict (unknown keys are an error)."""
    unknown = sorted(set(values) - set(FIELDS))
    if unknown:
        raise ConfigError(f"unknown config field(s): {', '.join(unknown)}; known: {', '.join(FIELDS)}")
    return TrainConfig(**{k: _coerce(k, v) for k, v in values.items()})


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Read a TOML config and apply command-line overrides."""
    p = Path(path)
    try:
        values = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as e:
        raise ConfigError(f"cannot read config {p}: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config {p} is not valid TOML: {e}") from None
    values.update(overrides or {})
    return make_config(values)


def default_field_help() -> dict[str, str]:
    """Each field's docstring, read from this module's source (for ``--help``)."""
    import inspect

    src = inspect.getsource(TrainConfig)
    tree = ast.parse(src)
    docs: dict[str, str] = {}
    body = tree.body[0].body  # type: ignore[attr-defined]
    for a, b in zip(body, body[1:], strict=False):
        if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant):
            docs[a.target.id] = str(b.value.value)  # type: ignore[union-attr]
    return docs
