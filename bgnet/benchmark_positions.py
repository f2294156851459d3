"""Benchmark positions: GNU Backgammon's ``.bm`` files, our JSON-lines format, scoring and labelling.

A benchmark position is a position, a roll and some candidate plays with a
reference equity each (the mover's cubeless money equity after the play).
A player is scored by the equity it loses against the best candidate, on
average, in thousandths: the "error rate" GNU Backgammon publishes for its
benchmarks (about 10.5 for gnubg 0-ply on contact, 44.2 for pubeval).

Formats
-------
``.bm`` (GNU Backgammon's benchmark files, ``nn-training/1.00/benchmarks``)
    One record a line; only move records are read::

        m <key> <d1> <d2> <best key> <best equity> <key 2> <loss 2> ...

    ``key`` is the position before the move: 20 letters ``A``..``P``, two
    per byte (high nibble first), the 10 bytes of gnubg's position key
    (the Position ID's bits: the side not on roll first, then the side on
    roll).  The candidates are results of the move, keyed with the mover
    first (the opponent is on roll); the first has its rollout equity, the
    others their equity *loss* against it (>= 0).  Other lines (``s``
    settings, ``o`` cube records) are skipped.  Lines ``class<TAB>line<TAB>m
    ...`` (the sample's ``sample-300.tsv``) are read too, with their class.

JSON lines (ours)
    One object a line::

        {"position": "<GNUBG Position ID>", "dice": [3, 1], "class": "contact",
         "plays": [{"play": "8/5 6/5", "position": "<ID of the result>", "equity": 0.159}, ...],
         "reference": "gnubg-nn 2-ply"}

    ``position`` is seen from the side on roll (any form
    :func:`bgnet.formats.parse_position` reads); each play's ``position`` is
    the result seen by the opponent, now on roll (as ``bgnet moves``
    prints it); ``equity`` is the mover's; ``play`` and ``reference`` are
    informative.  Plays need not be sorted.

Classes
-------
A record's class is, in order: the JSON ``class`` field or the TSV column;
``contact``, ``crashed`` or ``race`` when the file name contains that word
(gnubg's benchmark files are one class each); else ``race`` when no contact
is left (:func:`bgnet.pubeval.is_race`), ``crashed`` by gnubg's crashed test
(:func:`bgnet.pubeval.is_crashed`) and ``contact`` otherwise.

Plays not listed
----------------
A ``.bm`` record lists only the candidates gnubg's rollout kept.  A player
whose play is not among them is charged the largest loss listed for that
record (0 if only the best is listed), the convention of gnubg's own scorer
(``referr.py`` in gnubg-nn's training scripts: "charge the worst recorded
loss"); such plays are counted as ``unlisted`` in the report.  The same rule
applies to our JSON lines.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bgnet.errors import BgnetError, read_text
from bgnet.formats import board_from_position_id, board_to_gnubg, parse_position, position_id
from bgnet.game import final_probabilities
from bgnet.movegen import generate
from bgnet.notation import format_play
from bgnet.players import import_gnubg
from bgnet.position import NUM_SLOTS
from bgnet.probabilities import equity
from bgnet.pubeval import is_crashed, is_race
from bgnet.stats import mean_ci

__all__ = [
    "BenchmarkError",
    "BenchmarkPosition",
    "Candidate",
    "Score",
    "board_from_key",
    "key_of_board",
    "label",
    "load_positions",
    "read_bm",
    "read_jsonl",
    "score",
    "to_json",
]

CLASSES = ("contact", "crashed", "race")


class BenchmarkError(BgnetError):
    """A benchmark file or record that cannot be read."""


@dataclass(frozen=True)
class Candidate:
    """One candidate play: its result (seen by the opponent, on roll) and the mover's reference equity."""

    position: np.ndarray
    equity: float
    play: str = ""


@dataclass(frozen=True)
class BenchmarkPosition:
    """A position (from the side on roll), its roll, candidates best first, class and source."""

    board: np.ndarray
    dice: tuple[int, int]
    candidates: tuple[Candidate, ...]
    cls: str
    source: str = ""
    reference: str = ""

    @property
    def best(self) -> float:
        return self.candidates[0].equity

    def losses(self) -> np.ndarray:
        """Each candidate's equity loss against the best (>= 0)."""
        return np.array([self.best - c.equity for c in self.candidates])


# --------------------------------------------------------------------------
# Keys of the .bm files
# --------------------------------------------------------------------------

_KEY = re.compile(r"[A-P]{20}")


def board_from_key(key: str) -> np.ndarray:
    """Our board (from the side on roll) of a ``.bm`` position key (20 letters A-P)."""
    if not _KEY.fullmatch(key):
        raise BenchmarkError(f"a .bm position key is 20 letters A-P, got {key!r}")
    data = bytes(((ord(key[2 * i]) - 65) << 4) | (ord(key[2 * i + 1]) - 65) for i in range(10))
    pid = base64.b64encode(data).decode("ascii").rstrip("=")
    try:
        return board_from_position_id(pid)
    except BgnetError as e:
        raise BenchmarkError(f"bad .bm position key {key!r}: {e}") from None


def key_of_board(board: np.ndarray) -> str:
    """The ``.bm`` key of our board (from the side on roll)."""
    data = base64.b64decode(position_id(board) + "==")
    return "".join(chr(65 + (x >> 4)) + chr(65 + (x & 15)) for x in data)


def _class_from_name(name: str) -> str | None:
    low = Path(name).name.lower()
    for c in CLASSES:
        if c in low:
            return c
    return None


def _fallback_class(board: np.ndarray) -> str:
    if bool(is_race(board)[0]):
        return "race"
    return "crashed" if bool(is_crashed(board)[0]) else "contact"


# --------------------------------------------------------------------------
# Readers and writer
# --------------------------------------------------------------------------


def _parse_bm_record(fields: list[str], cls: str | None, source: str) -> BenchmarkPosition:
    try:
        board = board_from_key(fields[1])
        d1, d2 = int(fields[2]), int(fields[3])
        rest = fields[4:]
        if len(rest) < 2 or len(rest) % 2:
            raise BenchmarkError(f"expected candidate (key, number) pairs, got {len(rest)} fields")
        best = float(rest[1])
        cands = [Candidate(board_from_key(rest[0]), best)]
        for k in range(2, len(rest), 2):
            loss = float(rest[k + 1])
            cands.append(Candidate(board_from_key(rest[k]), best - loss))
    except (ValueError, IndexError) as e:
        raise BenchmarkError(f"{source}: bad move record ({e})") from None
    if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
        raise BenchmarkError(f"{source}: bad dice {d1} {d2}")
    # The candidate keys list the mover first: as a board from the side on roll (the opponent) it is
    # already the result seen by the opponent, bgnet's convention for results.
    cands.sort(key=lambda c: -c.equity)
    return BenchmarkPosition(
        board, (max(d1, d2), min(d1, d2)), tuple(cands), cls or _fallback_class(board), source
    )


def read_bm(lines: Iterable[str], name: str = "<bm>") -> Iterator[BenchmarkPosition]:
    """The move records of ``.bm`` lines (or ``class<TAB>line<TAB>record`` lines)."""
    file_cls = _class_from_name(name)
    for n, line in enumerate(lines, 1):
        cls = file_cls
        text = line
        if "\t" in line:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3 and parts[2].startswith("m "):
                cls, text = parts[0].strip() or file_cls, parts[2]
        fields = text.split()
        if not fields or fields[0] != "m":
            continue
        yield _parse_bm_record(fields, cls, f"{name}:{n}")


def read_jsonl(lines: Iterable[str], name: str = "<jsonl>") -> Iterator[BenchmarkPosition]:
    """The records of our JSON-lines format."""
    file_cls = _class_from_name(name)
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        source = f"{name}:{n}"
        try:
            obj = json.loads(line)
            board = parse_position(obj["position"])[0].board
            d1, d2 = (int(x) for x in obj["dice"])
            cands = [
                Candidate(
                    parse_position(p["position"])[0].board.copy(), float(p["equity"]), str(p.get("play", ""))
                )
                for p in obj["plays"]
            ]
        except (ValueError, KeyError, TypeError) as e:
            raise BenchmarkError(f"{source}: bad record ({type(e).__name__}: {e})") from None
        if not cands:
            raise BenchmarkError(f"{source}: a record needs at least one play")
        cands.sort(key=lambda c: -c.equity)
        yield BenchmarkPosition(
            board,
            (max(d1, d2), min(d1, d2)),
            tuple(cands),
            obj.get("class") or file_cls or _fallback_class(board),
            source,
            str(obj.get("reference", "")),
        )


def to_json(pos: BenchmarkPosition) -> dict:
    """A record of our JSON-lines format."""
    obj = {
        "position": position_id(pos.board),
        "dice": list(pos.dice),
        "class": pos.cls,
        "plays": [
            {"play": c.play, "position": position_id(c.position), "equity": round(c.equity, 7)}
            for c in pos.candidates
        ],
    }
    if pos.reference:
        obj["reference"] = pos.reference
    return obj


def load_positions(path: str | Path) -> list[BenchmarkPosition]:
    """Read a ``.bm``/``.tsv`` file or our JSON lines (by the first non-blank character: ``{`` is JSON)."""
    path = Path(path)
    text = read_text(path, BenchmarkError)
    lines = text.splitlines()
    first = next((ln.lstrip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")), "")
    reader = read_jsonl if first.startswith("{") else read_bm
    return list(reader(lines, str(path)))


# --------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------


@dataclass
class ClassScore:
    positions: int = 0
    loss: float = 0.0
    loss_sq: float = 0.0
    best: int = 0
    unlisted: int = 0

    @property
    def error_memg(self) -> float:
        return 1000.0 * self.loss / self.positions if self.positions else 0.0

    @property
    def error_se_memg(self) -> float:
        """Standard error of :attr:`error_memg` (the sampling error of the positions' mean loss)."""
        n = self.positions
        if n < 2:
            return float("nan")
        var = max(self.loss_sq - self.loss * self.loss / n, 0.0) / (n - 1)
        return 1000.0 * (var / n) ** 0.5

    def to_json(self) -> dict:
        se = self.error_se_memg
        return {
            "positions": self.positions,
            "error_memg": round(self.error_memg, 3),
            "error_se_memg": round(se, 3) if se == se else None,
            "best_rate": round(self.best / self.positions, 4) if self.positions else None,
            "unlisted": self.unlisted,
        }


@dataclass
class Score:
    """A player's equity loss on a set of benchmark positions, overall and per class."""

    player: str
    total: ClassScore = field(default_factory=ClassScore)
    classes: dict[str, ClassScore] = field(default_factory=dict)
    losses: np.ndarray = field(default_factory=lambda: np.zeros(0))
    illegal: int = 0
    no_play: int = 0

    @property
    def positions(self) -> int:
        return self.total.positions

    @property
    def error_memg(self) -> float:
        return self.total.error_memg

    def to_json(self) -> dict:
        return {
            "player": self.player,
            "positions": self.positions,
            "error_memg": round(self.error_memg, 3),
            "error_se_memg": self.total.to_json()["error_se_memg"],
            "best_rate": self.total.to_json()["best_rate"],
            "unlisted": self.total.unlisted,
            "illegal": self.illegal,
            "classes": {c: s.to_json() for c, s in sorted(self.classes.items())},
        }

    def summary(self) -> str:
        lines = [
            f"player: {self.player}",
            f"{'class':<10}{'positions':>10}{'error (mEMG)':>14}{'+- s.e.':>9}"
            f"{'best play':>11}{'unlisted':>10}",
        ]
        rows = sorted(self.classes.items())
        if len(rows) > 1 or not rows:
            rows.append(("all", self.total))
        for name, s in rows:
            best = f"{s.best / s.positions:.1%}" if s.positions else "-"
            lines.append(
                f"{name:<10}{s.positions:>10}{s.error_memg:>14.2f}{s.error_se_memg:>9.2f}{best:>11}{s.unlisted:>10}"
            )
        if self.illegal:
            lines.append(f"ILLEGAL PLAYS: {self.illegal} (charged as unlisted)")
        return "\n".join(lines)


def score(player, positions: list[BenchmarkPosition], chunk: int = 4096) -> Score:
    """Score ``player`` (a :class:`bgnet.players.Player`) on ``positions``.

    The player chooses for all positions in batches of ``chunk`` (one
    :class:`~bgnet.movegen.MoveBatch` with its inputs each).  Its play is looked up among
    the candidates by the resulting position: the best costs 0, a listed one
    its loss, one not listed the record's largest listed loss.  A row that
    is not a legal play of the roll is counted as ``illegal`` and charged
    like an unlisted play.
    """
    result = Score(getattr(player, "name", str(player)))
    losses = np.zeros(len(positions))
    for lo in range(0, len(positions), chunk):
        part = positions[lo : lo + chunk]
        boards = np.array([p.board for p in part], dtype=np.int8).reshape(-1, NUM_SLOTS)
        dice = np.array([p.dice for p in part], dtype=np.int64).reshape(-1, 2)
        batch = generate(boards, dice)
        rows = np.asarray(player.choose(batch, np.zeros(len(part), dtype=np.int64)), dtype=np.int64)
        for i, pos in enumerate(part):
            s = result.classes.setdefault(pos.cls, ClassScore())
            row = int(rows[i])
            a, b = int(batch.offsets[i]), int(batch.offsets[i + 1])
            cand_losses = pos.losses()
            if a == b:
                result.no_play += 1
                loss, listed = 0.0, True
            elif not a <= row < b:
                result.illegal += 1
                loss, listed = float(cand_losses.max()), False
            else:
                chosen = batch.positions[row]
                match = [k for k, c in enumerate(pos.candidates) if np.array_equal(c.position, chosen)]
                if match:
                    loss, listed = float(cand_losses[match[0]]), True
                else:
                    loss, listed = float(cand_losses.max()), False
            losses[lo + i] = loss
            for target in (s, result.total):
                target.positions += 1
                target.loss += loss
                target.loss_sq += loss * loss
                target.best += int(listed and loss == 0.0)
                target.unlisted += int(not listed)
    result.losses = losses
    return result


def paired_difference(a: Score, b: Score) -> tuple[float, float]:
    """Mean per-decision loss of ``a`` minus ``b`` on the same positions, and its 95% CI half-width (mEMG)."""
    if len(a.losses) != len(b.losses):
        raise ValueError(f"scores of {len(a.losses)} and {len(b.losses)} positions cannot be paired")
    return mean_ci(1000.0 * (a.losses - b.losses))


# --------------------------------------------------------------------------
# Labelling with a reference engine (gnubg-nn)
# --------------------------------------------------------------------------


_GNUBG_CLASS: dict[int, str] = {}  # gnubg-nn's position classes, filled on first use


def _gnubg_class(g, b2x25) -> str:
    if not _GNUBG_CLASS:
        _GNUBG_CLASS.update(
            {g.c_contact: "contact", g.c_crashed: "crashed", g.c_race: "race", g.c_bearoff: "race"}
        )
    return _GNUBG_CLASS.get(g.classify(b2x25), "race")


def label(
    board: np.ndarray, dice: tuple[int, int], ply: int = 2, candidates: int = 16, source: str = ""
) -> BenchmarkPosition | None:
    """Label one (position, roll) with gnubg-nn: all legal plays at 0-ply, the best ``candidates`` at ``ply``.

    Returns None when the roll has fewer than two legal plays (no decision).
    The candidates' equities are the mover's cubeless money equities at
    ``ply``, computed as ``gnubg_nn.probabilities`` of each result (seen by
    the opponent) flipped; finished games get their exact value.  Plays not
    among the ``candidates`` best at 0-ply are left out (the ``.bm``
    convention: a player choosing one is charged the largest listed loss).
    The class is gnubg's (bearoff counts as race).
    """
    g = import_gnubg()
    d = (max(dice), min(dice))
    batch = generate(board[None, :], np.array([d], dtype=np.int64))
    n = int(batch.offsets[1])
    if n < 2:
        return None
    results = batch.positions[:n]
    over, exact = final_probabilities(results)

    def mover_equity(rows: np.ndarray, nply: int) -> np.ndarray:
        probs = np.empty((len(rows), 5))
        for k, r in enumerate(rows):
            probs[k] = exact[r] if over[r] else g.probabilities(board_to_gnubg(results[r]), nply)
        return -equity(probs)  # the opponent's equity, negated: probabilities are for the side on roll

    eq0 = mover_equity(np.arange(n), 0)
    keep = np.argsort(-eq0, kind="stable")[: max(candidates, 1)]
    eq = mover_equity(keep, ply) if ply > 0 else eq0[keep]
    cands = []
    for r, e in zip(keep, eq, strict=True):
        steps = [(int(f), int(t)) for f, t in batch.steps[r] if f >= 0]
        cands.append(Candidate(results[r].copy(), float(e), format_play(board, steps)))
    cands.sort(key=lambda c: -c.equity)
    return BenchmarkPosition(
        np.asarray(board, dtype=np.int8),
        d,
        tuple(cands),
        _gnubg_class(g, board_to_gnubg(board)),
        source,
        f"gnubg-nn {ply}-ply",
    )
