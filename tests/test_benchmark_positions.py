"""Benchmark positions: .bm parsing on the gnubg sample, our JSON lines, scoring, labelling, the CLI."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np
import pytest

from bgnet import benchmark_positions as bp
from bgnet.cli import main
from bgnet.formats import position_id
from bgnet.movegen import generate
from bgnet.players import PubevalPlayer
from bgnet.position import STARTING, Position

# The sample of gnubg's benchmark files, not shipped: in the shared data folder next to the
# repository (../shared/backgammon-data/, see its README.md), or where BGNET_BENCHMARK_SAMPLE says.
SHARED = Path(__file__).resolve().parents[1] / ".." / "shared"
SAMPLE = Path(
    os.environ.get("BGNET_BENCHMARK_SAMPLE", SHARED / "backgammon-data" / "gnubg-1.00-benchmark-sample")
)
needs_sample = pytest.mark.skipif(not SAMPLE.is_dir(), reason="the gnubg benchmark sample is not here")

FIRST_CONTACT = (
    "m OAHDPAABDAOAHDPAABDA 2 4 JIGHPAABDAOAHDPAABDA 0.114795 OAHDOEABCBOAHDPAABDA 0.0421133 "
    "OAHDOBABCEOAHDPAABDA 0.0659233 OAHDMJABDAOAHDPAABDA 0.078762 OAHDPAABAJOAHDPAABDA 0.129732"
)


class Fixed:
    """A player that plays, per position, the candidate with the given index (or an unlisted play)."""

    name = "fixed"

    def __init__(self, positions, pick):
        self.positions = positions
        self.pick = pick

    def choose(self, batch, player):
        rows = []
        for i, pos in enumerate(self.positions):
            lo, hi = batch.offsets[i], batch.offsets[i + 1]
            k = self.pick(pos)
            if k is None:  # any legal play that is not a candidate
                cands = {c.position.tobytes() for c in pos.candidates}
                r = next(r for r in range(lo, hi) if batch.positions[r].tobytes() not in cands)
            else:
                want = pos.candidates[k].position
                r = next(r for r in range(lo, hi) if np.array_equal(batch.positions[r], want))
            rows.append(r)
        return np.array(rows, dtype=np.int64)


# --------------------------------------------------------------------------
# .bm
# --------------------------------------------------------------------------


def test_a_bm_record_decodes_to_the_position_dice_and_candidates():
    (pos,) = bp.read_bm([FIRST_CONTACT], "contact.bm")
    assert np.array_equal(pos.board, STARTING.board)
    assert pos.dice == (4, 2) and pos.cls == "contact" and pos.source == "contact.bm:1"
    assert len(pos.candidates) == 5
    assert pos.best == pytest.approx(0.114795)
    assert pos.losses() == pytest.approx([0, 0.0421133, 0.0659233, 0.078762, 0.129732])
    # The best play of 42 from the start, 8/4 6/4: the result seen by the opponent.
    eight_four = bp.board_from_key("JIGHPAABDAOAHDPAABDA")
    assert np.array_equal(pos.candidates[0].position, eight_four)
    mover = -eight_four[::-1]
    assert mover[4] == 2 and mover[6] == 4 and mover[8] == 2


def test_keys_round_trip():
    for key in ("OAHDPAABDAOAHDPAABDA", "NINOIGAAEEJLHLAMAIBA", "AAAAABNMAAAAAAAAAAAA"):
        assert bp.key_of_board(bp.board_from_key(key)) == key
    assert bp.key_of_board(STARTING.board) == "OAHDPAABDAOAHDPAABDA"
    with pytest.raises(bp.BenchmarkError, match="20 letters"):
        bp.board_from_key("OAHDPAABDAOAHDPAABDZ")


def test_keys_agree_with_gnubg():
    g = pytest.importorskip("gnubg_nn")
    from bgnet.formats import board_from_gnubg

    for key in ("OAHDPAABDAOAHDPAABDA", "NINOIGAAEEJLHLAMAIBA", "LHODAAAADMLGGNADALAA"):
        want = board_from_gnubg([list(s) for s in g.board_from_position_key(key)])
        assert np.array_equal(bp.board_from_key(key), want)


def test_bad_bm_records_name_the_line():
    with pytest.raises(bp.BenchmarkError, match=r"x.bm:2: bad move record"):
        list(bp.read_bm(["s version 1.93", "m OAHDPAABDAOAHDPAABDA 2 4 JIGHPAABDAOAHDPAABDA"], "x.bm"))
    assert list(bp.read_bm(["o OAHDPAABDAOAHDPAABDA 0.5 0.1 0 0.1 0", "", "s x"], "x.bm")) == []


@needs_sample
def test_the_gnubg_sample_parses():
    by_class = {}
    for name in ("contact", "crashed", "race"):
        positions = bp.load_positions(SAMPLE / f"{name}-sample.bm")
        assert len(positions) == 100
        assert {p.cls for p in positions} == {name}
        by_class[name] = positions
        for p in positions:
            losses = p.losses()
            assert losses[0] == 0 and (losses >= 0).all() and (np.diff(losses) >= -1e-12).all()
            # Every candidate is a legal result of the roll (bgnet's rules agree with gnubg's).
            results = {r.tobytes() for r in generate(p.board[None], np.array([p.dice])).positions}
            assert all(c.position.tobytes() in results for c in p.candidates)
    tsv = bp.load_positions(SAMPLE / "sample-300.tsv")
    assert len(tsv) == 300
    assert sorted({p.cls for p in tsv}) == ["contact", "crashed", "race"]
    assert [p.best for p in tsv if p.cls == "race"] == [p.best for p in by_class["race"]]


# --------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------


def test_scoring_charges_listed_losses_and_the_largest_for_unlisted_plays():
    positions = list(bp.read_bm([FIRST_CONTACT, FIRST_CONTACT.replace("2 4", "4 2")], "contact.bm"))
    perfect = bp.score(Fixed(positions, lambda p: 0), positions)
    assert perfect.error_memg == 0 and perfect.total.best == 2
    second = bp.score(Fixed(positions, lambda p: 1), positions)
    assert second.error_memg == pytest.approx(42.1133)
    assert second.total.error_se_memg == pytest.approx(0, abs=1e-9)
    mixed = bp.score(Fixed(positions, lambda p: 0 if p is positions[0] else 1), positions)
    # Losses 0 and 0.0421133: mean 21.06 mEMG, standard error sd / sqrt(2) = 21.06 too.
    assert mixed.error_memg == pytest.approx(21.05665) and mixed.total.error_se_memg == pytest.approx(
        21.05665
    )
    unlisted = bp.score(Fixed(positions, lambda p: None), positions)
    assert unlisted.error_memg == pytest.approx(129.732) and unlisted.total.unlisted == 2
    js = unlisted.to_json()
    assert js["positions"] == 2 and js["classes"]["contact"]["unlisted"] == 2


def test_an_illegal_row_is_counted_not_trusted():
    positions = list(bp.read_bm([FIRST_CONTACT], "contact.bm"))

    class Bad:
        name = "bad"

        def choose(self, batch, player):
            return np.array([len(batch.positions) + 5])

    s = bp.score(Bad(), positions)
    assert s.illegal == 1 and s.error_memg == pytest.approx(129.732)


@needs_sample
def test_pubeval_scores_like_gnubgs_published_figure_on_contact():
    positions = bp.load_positions(SAMPLE / "contact-sample.bm")
    s = bp.score(PubevalPlayer(), positions)
    # gnubg publishes 44.2 for pubeval on the full contact.bm; the 100-record sample gives 42.55.
    assert s.error_memg == pytest.approx(42.55, abs=0.01)
    assert s.classes["contact"].positions == 100


@needs_sample
def test_gnubg_0ply_scores_like_its_published_figure():
    pytest.importorskip("gnubg_nn")
    from bgnet.players import GnubgPlayer

    positions = bp.load_positions(SAMPLE / "contact-sample.bm")
    s = bp.score(GnubgPlayer(ply=0), positions)
    assert 5 < s.error_memg < 15  # 10.5 published on the full file; 9.64 on this sample
    assert s.total.unlisted == 0 and s.illegal == 0


# --------------------------------------------------------------------------
# JSON lines and labelling
# --------------------------------------------------------------------------


def test_json_lines_round_trip():
    (pos,) = bp.read_bm([FIRST_CONTACT], "contact.bm")
    line = json.dumps(bp.to_json(pos))
    (back,) = bp.read_jsonl([line], "mine.jsonl")
    assert np.array_equal(back.board, pos.board) and back.dice == pos.dice and back.cls == "contact"
    assert [position_id(c.position) for c in back.candidates] == [
        position_id(c.position) for c in pos.candidates
    ]
    assert back.losses() == pytest.approx(pos.losses())
    with pytest.raises(bp.BenchmarkError, match="mine.jsonl:1: bad record"):
        list(bp.read_jsonl(['{"position": "4HPwATDgc/ABMA"}'], "mine.jsonl"))


def test_jsonl_plays_need_not_be_sorted_and_class_falls_back():
    rec = {
        "position": "4HPwATDgc/ABMA",
        "dice": [1, 3],
        "plays": [
            {
                "position": position_id(generate(STARTING.board[None], np.array([[3, 1]])).positions[0]),
                "equity": 0.0,
            },
            {
                "position": position_id(generate(STARTING.board[None], np.array([[3, 1]])).positions[1]),
                "equity": 0.1,
            },
        ],
    }
    (pos,) = bp.read_jsonl([json.dumps(rec)], "x.jsonl")
    assert pos.dice == (3, 1) and pos.best == pytest.approx(0.1) and pos.cls == "contact"


def test_label_with_gnubg_matches_its_own_ranking():
    g = pytest.importorskip("gnubg_nn")
    from bgnet.formats import board_from_gnubg, board_to_gnubg

    rec = bp.label(STARTING.board, (3, 1), ply=0, candidates=16)
    assert rec.reference == "gnubg-nn 0-ply" and rec.cls == "contact"
    assert rec.candidates[0].play == "8/5 6/5"
    listed = g.best_move(board_to_gnubg(STARTING), 3, 1, n=0, b=1, list=1)[2]
    want = {
        board_from_gnubg([list(s) for s in g.board_from_position_key(key)]).tobytes(): eq
        for key, _m, _p, eq in listed
    }
    assert len(rec.candidates) == len(want) == 16
    for c in rec.candidates:
        assert c.equity == pytest.approx(want[c.position.tobytes()], abs=1e-5)
    one = bp.label(STARTING.board, (6, 5), ply=1, candidates=3)
    assert len(one.candidates) == 3 and one.candidates[0].play == "24/13"
    last_checker = Position.from_points({1: 1}, {1: 15}).board
    assert bp.label(last_checker, (6, 6)) is None  # one legal play: no decision to label


# --------------------------------------------------------------------------
# CLI
# --------------------------------------------------------------------------


def _run(argv, capsys):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@needs_sample
def test_bench_positions_cli(capsys):
    files = [str(SAMPLE / f"{c}-sample.bm") for c in ("contact", "race")]
    code, out, _ = _run(["bench", "positions", *files, "--player", "pubeval", "--json"], capsys)
    assert code == 0
    obj = json.loads(out)
    assert obj["positions"] == 200 and obj["error_memg"] > 0
    assert set(obj["classes"]) == {"contact", "race"}
    code, out, _ = _run(["bench", "positions", files[0], "--player", "pubeval"], capsys)
    assert code == 0 and "error (mEMG)" in out and "contact" in out


@needs_sample
def test_the_paired_difference_is_the_mean_of_the_per_decision_differences(capsys):
    from bgnet.players import make_player
    from bgnet.stats import Z95

    files = [str(SAMPLE / f"{c}-sample.bm") for c in ("contact", "race")]
    positions = bp.load_positions(files[0]) + bp.load_positions(files[1])
    a, b = (bp.score(make_player(p), positions) for p in ("pubeval", "random:seed=3"))
    diff, ci = bp.paired_difference(a, b)
    assert diff == pytest.approx(a.error_memg - b.error_memg)  # same decisions: the means subtract
    d = 1000 * (a.losses - b.losses)
    assert ci == pytest.approx(Z95 * np.std(d, ddof=1) / np.sqrt(len(d)))
    assert bp.paired_difference(a, a) == (0.0, 0.0)
    with pytest.raises(ValueError, match="cannot be paired"):
        bp.paired_difference(a, bp.score(make_player("pubeval"), positions[:5]))
    argv = ["bench", "positions", *files, "--player", "pubeval", "--against", "random:seed=3", "--json"]
    code, out, _ = _run(argv, capsys)
    assert code == 0
    got = json.loads(out)["against"]
    assert got["player"] == "random:seed=3" and got["difference_memg"] == pytest.approx(diff, abs=1e-3)


def test_bench_positions_cli_errors(capsys, tmp_path):
    code, _, err = _run(["bench", "positions", str(tmp_path / "none.bm")], capsys)
    assert code == 2 and "cannot read" in err
    empty = tmp_path / "empty.bm"
    empty.write_text("s settings only\n")
    code, _, err = _run(["bench", "positions", str(empty), "--player", "pubeval"], capsys)
    assert code == 2 and "no move records" in err


def test_bench_label_cli(capsys, tmp_path, monkeypatch):
    pytest.importorskip("gnubg_nn")
    src = tmp_path / "in.txt"
    src.write_text("# positions\n4HPwATDgc/ABMA 31\n4HPwATDgc/ABMA\n")
    out = tmp_path / "out.jsonl"
    code, _, err = _run(
        ["bench", "label", str(src), "--out", str(out), "--ply", "0", "--rolls", "2", "--no-progress"], capsys
    )
    assert code == 0 and "labelled" in err
    records = list(bp.read_jsonl(out.read_text().splitlines(), str(out)))
    assert 2 <= len(records) <= 3 and records[0].dice == (3, 1)
    assert all(r.reference == "gnubg-nn 0-ply" for r in records)
    code, o2, _ = _run(["bench", "positions", str(out), "--player", "pubeval", "--json"], capsys)
    assert code == 0 and json.loads(o2)["positions"] == len(records)


def test_bench_label_without_gnubg_says_how_to_install(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)
    code, _, err = _run(["bench", "label", "-", "--out", str(tmp_path / "o.jsonl")], capsys)
    assert code == 2 and "pip install 'bgnet[gnubg]'" in err


def test_load_positions_sniffs_json(tmp_path):
    (pos,) = bp.read_bm([FIRST_CONTACT], "contact.bm")
    f = tmp_path / "set.txt"
    f.write_text(json.dumps(bp.to_json(pos)) + "\n")
    (back,) = bp.load_positions(f)
    assert back.cls == "contact"
