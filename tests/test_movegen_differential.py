"""Differential tests: bgnet's move generator against GNU Backgammon's.

For every line ``POSITION_ID DICE KIND`` of ``data/movegen_positions.txt``
the set of positions that :func:`bgnet.movegen.generate` produces must be
exactly the set of distinct positions that ``gnubg_nn.moves`` produces (gnubg
is run here, at test time; the file only holds the inputs).  ``data/perft.txt``
holds golden counts of distinct plays (``len(gnubg_nn.moves(...))``).

Both files are written by ``tests/tools/make_movegen_data.py``.

Orientation, checked once more below:

* a Position ID decodes with ``gnubg_nn.board_from_position_id`` to
  ``[side_not_on_roll, side_on_roll]``;
* ``gnubg_nn.moves`` returns 20-letter position keys with the mover still as
  ``board[1]``, i.e. seen by the side that just moved;
* bgnet's ``MoveBatch.positions`` are seen by the opponent (now on roll), so
  they are flipped back with :func:`bgnet.position.flip` before comparing.

Each comparison runs on whole chunks: one ``generate`` call per chunk of
lines, gnubg's keys decoded to boards with numpy, and the two sides compared
as sorted arrays of ``(line, board bytes)`` records.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from bgnet.formats import board_from_gnubg, board_from_position_id, board_to_gnubg
from bgnet.movegen import generate
from bgnet.position import Position, flip

pytestmark = pytest.mark.slow  # 35,000 (position, roll) pairs against gnubg-nn and the perft file

DATA = Path(__file__).parent / "data"
POSITIONS_FILE = DATA / "movegen_positions.txt"
PERFT_FILE = DATA / "perft.txt"

KINDS = ("strong", "random", "bearoff_hit", "bar_vs_board", "doubles_partial", "larger_die", "misc")
ROLLS = {(hi, lo) for hi in range(1, 7) for lo in range(1, hi + 1)}
MIN_LINES = 20_000
MIN_PER_KIND = 100
CHUNK = 4096  # lines per generate() call
SHOW = 5  # failing lines shown in full in a message
SHOW_POSITIONS = 8  # positions listed per side of a failing line


# ----------------------------------------------------------------------------
# data files
# ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    lineno: int
    pid: str
    d1: int
    d2: int
    tag: str  # KIND for positions, expected COUNT (as text) for perft


def _read(path: Path) -> tuple[Case, ...]:
    cases = []
    for lineno, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pid, dice, tag = line.split()
        assert len(pid) == 14 and len(dice) == 2 and dice.isdigit(), f"{path.name}:{lineno}: {line!r}"
        d1, d2 = int(dice[0]), int(dice[1])
        assert 1 <= d1 <= 6 and 1 <= d2 <= 6, f"{path.name}:{lineno}: {line!r}"
        cases.append(Case(lineno, pid, d1, d2, tag))
    return tuple(cases)


@cache
def positions() -> tuple[Case, ...]:
    return _read(POSITIONS_FILE)


@cache
def perft() -> tuple[Case, ...]:
    return _read(PERFT_FILE)


# ----------------------------------------------------------------------------
# gnubg <-> bgnet layouts, vectorised
# ----------------------------------------------------------------------------


def gnubg_to_ours(g: np.ndarray) -> np.ndarray:
    """(M, 2, 25) gnubg boards ``[opponent, side on roll]`` -> (M, 26) int8 bgnet boards
    seen by ``g[:, 1]``: slot s (1..24) = our point s, 25 = our bar, 0 = their bar."""
    g = np.asarray(g, dtype=np.int16)
    out = np.zeros((g.shape[0], 26), dtype=np.int16)
    out[:, 1:26] = g[:, 1, :]  # our points 1..24 and our bar
    out[:, 1:25] -= g[:, 0, 23::-1]  # their point q is our point 25 - q
    out[:, 0] = -g[:, 0, 24]
    return out.astype(np.int8)


def keys_to_gnubg(keys: list[str]) -> np.ndarray:
    """Decode gnubg's 20-letter position keys to (M, 2, 25) boards.

    A key is the 10-byte GNUBG position key, one letter per nibble
    ('A' + nibble, high nibble first); its bits, least significant first,
    are runs of 1s (one per checker) closed by a 0 for each of the 50 slots.
    """
    m = len(keys)
    if m == 0:
        return np.zeros((0, 2, 25), dtype=np.int16)
    raw = np.frombuffer("".join(keys).encode("ascii"), dtype=np.uint8).reshape(m, 20) - ord("A")
    key = (raw[:, 0::2] << 4) | raw[:, 1::2]
    bits = np.unpackbits(key, axis=1, bitorder="little")
    slot = np.cumsum(bits == 0, axis=1, dtype=np.int16)  # slot of a 1 bit = zeros before it
    rows, cols = np.nonzero(bits)
    slots = slot[rows, cols].astype(np.int64)
    assert slots.max(initial=0) < 50, "malformed gnubg key"
    counts = np.bincount(rows * 50 + slots, minlength=m * 50)
    return counts.reshape(m, 2, 25).astype(np.int16)


def input_boards(cases) -> np.ndarray:
    """Boards of the cases as gnubg decodes their IDs, in bgnet's layout."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    g = np.array([gnubg_nn.board_from_position_id(c.pid) for c in cases], dtype=np.int16)
    return gnubg_to_ours(g)


def dice_of(cases) -> np.ndarray:
    return np.array([(c.d1, c.d2) for c in cases], dtype=np.int64)


def gnubg_results(cases) -> tuple[np.ndarray, np.ndarray]:
    """gnubg's distinct resulting positions, seen by the mover: (offsets, (M, 26) boards)."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    keys: list[str] = []
    offsets = [0]
    for c in cases:
        g = gnubg_nn.board_from_position_id(c.pid)
        keys.extend(gnubg_nn.moves(g, c.d1, c.d2))
        offsets.append(len(keys))
    return np.asarray(offsets, dtype=np.int64), gnubg_to_ours(keys_to_gnubg(keys))


def run_generate(boards: np.ndarray, dice: np.ndarray):
    """Call bgnet and check the shape of what comes back."""
    n = boards.shape[0]
    batch = generate(boards.copy(), dice.copy())
    offsets = np.asarray(batch.offsets)
    positions_ = np.asarray(batch.positions)
    steps = np.asarray(batch.steps)
    assert offsets.shape == (n + 1,), f"offsets has shape {offsets.shape}, want {(n + 1,)}"
    assert offsets[0] == 0 and np.all(np.diff(offsets) >= 0), "offsets must start at 0 and never decrease"
    m = int(offsets[-1])
    assert positions_.shape == (m, 26), f"positions has shape {positions_.shape}, want {(m, 26)}"
    assert positions_.dtype == np.int8, f"positions dtype is {positions_.dtype}, want int8"
    assert steps.shape == (m, 4, 2), f"steps has shape {steps.shape}, want {(m, 4, 2)}"
    return offsets.astype(np.int64), positions_, steps


def _records(rows: np.ndarray, line: np.ndarray) -> np.ndarray:
    """Sorted (line, board bytes) records, comparable with ==."""
    m = rows.shape[0]
    rec = np.empty((m, 30), dtype=np.uint8)
    rec[:, :4] = line.astype(">u4").view(np.uint8).reshape(m, 4)
    rec[:, 4:] = np.ascontiguousarray(rows, dtype=np.int8).view(np.uint8)
    return np.sort(rec.view(np.dtype((np.void, 30))).ravel())


def _line_ids(offsets: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))


def differing_lines(off_a, rows_a, off_b, rows_b) -> tuple[set[int], set[int]]:
    """Indices of lines whose sets differ, and of lines where ``rows_a`` repeats a position."""
    n_a, n_b = np.diff(off_a), np.diff(off_b)
    bad = set(np.flatnonzero(n_a != n_b).tolist())
    keep = n_a == n_b
    la, lb = _line_ids(off_a), _line_ids(off_b)
    ra = _records(rows_a[keep[la]], la[keep[la]])
    rb = _records(rows_b[keep[lb]], lb[keep[lb]])
    diff = np.flatnonzero(ra != rb)
    bad |= {int.from_bytes(bytes(ra[i])[:4], "big") for i in diff}
    # duplicates among rows_a (all lines)
    allr = _records(rows_a, la)
    dup = np.flatnonzero(allr[1:] == allr[:-1])
    dups = {int.from_bytes(bytes(allr[i])[:4], "big") for i in dup}
    return bad | dups, dups


def _board_text(board: np.ndarray) -> str:
    return str(Position(np.asarray(board, dtype=np.int8), validate=False))


def _pos_repr(row: bytes) -> str:
    return repr(Position(np.frombuffer(row, dtype=np.int8), validate=False))


def describe(case: Case, board: np.ndarray, ours: list[bytes], theirs: list[bytes], note: str = "") -> str:
    a, b = set(ours), set(theirs)
    only_ours = sorted(a - b)
    only_gnubg = sorted(b - a)
    lines = [
        f"--- line {case.lineno}: {case.pid} dice {case.d1}{case.d2} ({case.tag}) {note}",
        _board_text(board),
        f"bgnet: {len(ours)} rows, {len(a)} distinct; gnubg: {len(b)} distinct"
        + (f"; {len(ours) - len(a)} duplicate rows in bgnet" if len(ours) != len(a) else ""),
        "(positions below are seen by the side that moved, i.e. flip(MoveBatch.positions))",
        f"only in bgnet ({len(only_ours)}):",
        *(f"  {_pos_repr(r)}" for r in only_ours[:SHOW_POSITIONS]),
        f"only in gnubg ({len(only_gnubg)}):",
        *(f"  {_pos_repr(r)}" for r in only_gnubg[:SHOW_POSITIONS]),
    ]
    if len(only_ours) > SHOW_POSITIONS or len(only_gnubg) > SHOW_POSITIONS:
        lines.append(f"  (lists cut at {SHOW_POSITIONS})")
    return "\n".join(lines)


def _chunks(seq, size=CHUNK):
    for i in range(0, len(seq), size):
        yield seq[i : i + size]


# ----------------------------------------------------------------------------
# the data files themselves
# ----------------------------------------------------------------------------


def test_positions_file_is_big_and_covers_every_kind():
    cases = positions()
    assert len(cases) >= MIN_LINES, f"{POSITIONS_FILE.name} has {len(cases)} lines, want >= {MIN_LINES}"
    kinds = Counter(c.tag for c in cases)
    unknown = set(kinds) - set(KINDS)
    assert not unknown, f"unknown KINDs {unknown}"
    thin = {k: kinds[k] for k in KINDS if kinds[k] < MIN_PER_KIND}
    assert not thin, f"KINDs with fewer than {MIN_PER_KIND} lines: {thin}"
    rolls = {(max(c.d1, c.d2), min(c.d1, c.d2)) for c in cases}
    assert rolls == ROLLS, f"rolls missing: {sorted(ROLLS - rolls)}"
    assert any(c.d1 < c.d2 for c in cases) and any(c.d1 > c.d2 for c in cases), (
        "both dice orders should occur"
    )


def test_position_ids_decode_with_side_on_roll_second():
    """The IDs decode to legal boards: <= 15 checkers a side, no shared point,
    and both sides still have checkers (the side on roll is board[1])."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    g = np.array([gnubg_nn.board_from_position_id(c.pid) for c in positions()], dtype=np.int16)
    assert (g >= 0).all()
    per_side = g.sum(axis=2)
    assert (per_side <= 15).all() and (per_side >= 1).all()
    assert not np.any((g[:, 0, :24] > 0) & (g[:, 1, 23::-1] > 0)), "a point holds checkers of both sides"


def test_key_decoder_matches_gnubg():
    """This file's vectorised key decoding agrees with gnubg_nn.board_from_position_key."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    cases = positions()[:: max(1, len(positions()) // 300)]
    keys = []
    for c in cases:
        keys.extend(gnubg_nn.moves(gnubg_nn.board_from_position_id(c.pid), c.d1, c.d2))
    keys = keys[::7] + [gnubg_nn.key_of_board(gnubg_nn.board_from_position_id(c.pid)) for c in cases]
    want = np.array([gnubg_nn.board_from_position_key(k) for k in keys], dtype=np.int16)
    np.testing.assert_array_equal(keys_to_gnubg(keys), want)


# ----------------------------------------------------------------------------
# bgnet.formats agrees with gnubg on the layouts
# ----------------------------------------------------------------------------


def _as_array(x) -> np.ndarray:
    return np.asarray(getattr(x, "board", x))


def test_bgnet_position_ids_agree_with_gnubg():
    cases = positions()
    want = input_boards(cases)
    bad = []
    for c, w in zip(cases, want, strict=True):
        got = _as_array(board_from_position_id(c.pid)).astype(np.int8)
        if got.shape != (26,) or not np.array_equal(got, w):
            bad.append(f"line {c.lineno}: {c.pid}: bgnet {got.tolist()} != gnubg {w.tolist()}")
            if len(bad) >= SHOW:
                break
    assert not bad, "bgnet.formats.board_from_position_id disagrees with gnubg_nn:\n" + "\n".join(bad)


def test_bgnet_gnubg_layout_conversion_round_trips():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    cases = positions()[::50]
    g = np.array([gnubg_nn.board_from_position_id(c.pid) for c in cases], dtype=np.int16)
    ours = gnubg_to_ours(g)
    for c, gb, ob in zip(cases, g, ours, strict=True):
        to_g = np.asarray(board_to_gnubg(ob), dtype=np.int16)
        assert np.array_equal(to_g, gb), (
            f"line {c.lineno}: board_to_gnubg gives {to_g.tolist()}, want {gb.tolist()}"
        )
        from_g = _as_array(board_from_gnubg(gb.tolist())).astype(np.int8)
        assert np.array_equal(from_g, ob), (
            f"line {c.lineno}: board_from_gnubg gives {from_g.tolist()}, want {ob.tolist()}"
        )


# ----------------------------------------------------------------------------
# the differential test
# ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_generate_matches_gnubg(kind):
    cases = [c for c in positions() if c.tag == kind]
    assert cases, f"no {kind} lines"
    failures: list[str] = []
    n_bad = 0
    for chunk in _chunks(cases):
        boards = input_boards(chunk)
        dice = dice_of(chunk)
        g_off, g_rows = gnubg_results(chunk)
        b_off, b_pos, _ = run_generate(boards, dice)
        b_rows = flip(b_pos)  # back to the mover's view, as gnubg's keys are
        bad, dups = differing_lines(b_off, b_rows, g_off, g_rows)
        n_bad += len(bad)
        for i in sorted(bad)[: max(0, SHOW - len(failures))]:
            ours = [r.tobytes() for r in b_rows[b_off[i] : b_off[i + 1]]]
            theirs = [r.tobytes() for r in g_rows[g_off[i] : g_off[i + 1]]]
            failures.append(describe(chunk[i], boards[i], ours, theirs, "(duplicates)" if i in dups else ""))
    assert not n_bad, (
        f"{n_bad} of {len(cases)} {kind} lines: bgnet's positions differ from gnubg's; "
        f"first {len(failures)}:\n" + "\n".join(failures)
    )


# ----------------------------------------------------------------------------
# the steps replay to the positions and use as many dice as gnubg's plays
# ----------------------------------------------------------------------------


def replay(boards: np.ndarray, offsets: np.ndarray, steps: np.ndarray) -> np.ndarray:
    """Apply each result's (from, to) steps to its input board, in the mover's
    numbering: from 25 = the bar, to 0 = borne off; landing on a single
    opposing checker sends it to the opponent's bar (slot 0).  Returns the
    positions seen by the mover."""
    line = _line_ids(offsets)
    pos = boards[line].astype(np.int16)
    rows = np.arange(pos.shape[0])
    for k in range(4):
        f = steps[:, k, 0].astype(np.int64)
        t = steps[:, k, 1].astype(np.int64)
        used = f >= 0
        r, f, t = rows[used], f[used], t[used]
        pos[r, f] -= 1
        on_board = (t >= 1) & (t <= 24)
        r, t = r[on_board], t[on_board]
        hit = pos[r, t] == -1
        pos[r[hit], t[hit]] = 0
        pos[r[hit], 0] -= 1
        pos[r, t] += 1
    return pos


def test_steps_replay_to_positions():
    gnubg_nn = pytest.importorskip("gnubg_nn")
    cases = list(positions())
    bad: list[str] = []
    n_bad = 0
    for chunk in _chunks(cases):
        boards = input_boards(chunk)
        off, pos, steps = run_generate(boards, dice_of(chunk))
        if steps.size and not np.all((steps >= -1) & (steps <= 25)):
            raise AssertionError("steps must be -1 (unused) or points 0..25")
        got = replay(boards, off, steps)
        want = flip(pos).astype(np.int16)
        wrong = np.flatnonzero(np.any(got != want, axis=1))
        # every result of a line uses the same number of dice as gnubg's plays
        n_steps = (steps[:, :, 0] >= 0).sum(axis=1) if steps.size else np.zeros(0, dtype=np.int64)
        line = _line_ids(off)
        for i, c in enumerate(chunk):
            ms = gnubg_nn.moves(gnubg_nn.board_from_position_id(c.pid), c.d1, c.d2, 1)
            want_n = len(ms[0][1]) if ms else 0
            mine = n_steps[off[i] : off[i + 1]]
            if np.any(mine != want_n):
                n_bad += 1
                if len(bad) < SHOW:
                    bad.append(
                        f"line {c.lineno}: {c.pid} dice {c.d1}{c.d2}: bgnet's plays use "
                        f"{sorted(set(mine.tolist()))} dice, gnubg's use {want_n}\n{_board_text(boards[i])}"
                    )
        for r in wrong:
            n_bad += 1
            if len(bad) < SHOW:
                c = chunk[line[r]]
                bad.append(
                    f"line {c.lineno}: {c.pid} dice {c.d1}{c.d2}: steps {steps[r].tolist()} replay to\n"
                    f"  {_pos_repr(got[r].astype(np.int8).tobytes())}\nbut the position (mover's view) is\n"
                    f"  {_pos_repr(want[r].astype(np.int8).tobytes())}\n{_board_text(boards[line[r]])}"
                )
    assert not n_bad, f"{n_bad} problems with MoveBatch.steps; first {len(bad)}:\n" + "\n".join(bad)


# ----------------------------------------------------------------------------
# perft
# ----------------------------------------------------------------------------


def test_perft_file_has_the_landmarks():
    cases = perft()
    assert 200 <= len(cases) <= 1000
    start = {(c.d1, c.d2) for c in cases if c.pid == "4HPwATDgc/ABMA"}
    assert start == ROLLS, "the start position with all 21 rolls"
    counts = [int(c.tag) for c in cases]
    assert counts.count(0) >= 5, "some rolls with no legal play"
    assert max(counts) >= 2000, "the largest counts found"


def test_perft_counts_are_gnubgs():
    """The golden counts still are what this gnubg-nn says (catches a changed gnubg-nn)."""
    gnubg_nn = pytest.importorskip("gnubg_nn")
    bad = []
    for c in perft():
        n = len(gnubg_nn.moves(gnubg_nn.board_from_position_id(c.pid), c.d1, c.d2))
        if n != int(c.tag):
            bad.append(f"line {c.lineno}: {c.pid} {c.d1}{c.d2}: file {c.tag}, gnubg_nn {n}")
    assert not bad, "\n".join(bad[:20])


def test_perft():
    cases = list(perft())
    boards = input_boards(cases)
    off, _, _ = run_generate(boards, dice_of(cases))
    got = np.diff(off)
    want = np.array([int(c.tag) for c in cases])
    bad = [
        f"line {c.lineno}: {c.pid} dice {c.d1}{c.d2}: bgnet {g}, gnubg {w}\n{_board_text(b)}"
        for c, b, g, w in zip(cases, boards, got, want, strict=True)
        if g != w
    ]
    assert not bad, (
        f"{len(bad)} of {len(cases)} perft counts differ; first {min(len(bad), SHOW)}:\n"
        + "\n".join(bad[:SHOW])
    )
