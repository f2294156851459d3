"""Long nardy and acey-deucey through the formats and the command line.

Positions written, drawn and read back; the refusals (one line, exit 2);
``in/22`` and acey-deucey's 1-2 turns written and typed back part by part;
``moves --json`` with ``double`` and ``again``; ``play --variant
acey-deucey`` where a 1-2 turn gives the same side another roll; ``watch``
and ``bench play`` to the end of their games.  Expected positions and plays
are written by hand from the rules (docs/variants.md).
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from bgnet.commands import variant_play
from bgnet.commands.variant_play import default_bot_spec
from bgnet.variant_format import (
    format_variant_position,
    parse_variant_position,
)
from bgnet.variants import variant
from tests.test_variant_format import random_game_boards, run

EMPTY = "0,0,0,0,0,0/0,0,0,0,0,0/0,0,0,0,0,0/0,0,0,0,0,0"
# By hand: 15 on our 24 (the head), theirs on their 24 = our 12.
NARDY_START = "long-nardy:0,0,0,0,0,0/0,0,0,0,0,-15/0,0,0,0,0,0/0,0,0,0,0,15:bar=0,0:wait=0,0"
# By hand: no checker on the points, 15 waiting on each side.
ACEY_START = f"acey-deucey:{EMPTY}:bar=0,0:wait=15,15"
# Ours: 2 on 23, 1 on 22, 12 waiting; theirs: 2 on our 4, one on their bar, 12 waiting.
ACEY_MID = "acey-deucey:0,0,0,-2,0,0/0,0,0,0,0,0/0,0,0,0,0,0/0,0,1,2,0,0:bar=0,1:wait=12,12"
LABELS = ("long-nardy",)


def acey(points: str = EMPTY, bar: str = "0,0", wait: str = "15,15", label: str = "acey-deucey"):
    return parse_variant_position(f"{label}:{points}:bar={bar}:wait={wait}")


# --------------------------------------------------------------------------
# Positions
# --------------------------------------------------------------------------


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_positions_of_random_games_round_trip_exactly(label, seed):
    v = variant(label)
    boards = random_game_boards(label, seed, 400)
    assert len(boards) > 20
    for b in boards[:: max(1, len(boards) // 25)]:
        text = format_variant_position(b, v)
        v2, b2 = parse_variant_position(text)
        assert v2 == v and np.array_equal(b2, b) and format_variant_position(b2, v2) == text


def test_the_starts_are_written_as_the_rules_describe_them():
    for text in (NARDY_START,):
        v, b = parse_variant_position(text)
        assert np.array_equal(b, v.start) and format_variant_position(v.start, v) == text


def test_a_house_rule_of_another_game_is_refused(capsys):
    code, _out, err = run(capsys, "moves", NARDY_START.replace("long-nardy", "long-nardy+european-1-2"), "21")
    assert code == 2 and err.count("\n") == 1 and "european-1-2" in err


# --------------------------------------------------------------------------
# Long nardy on the command line
# --------------------------------------------------------------------------


def test_moves_long_nardy_lists_the_head_rule_plays(capsys):
    # By hand: the first 6-6 takes two checkers off the head to 18 (18/12 is their head);
    # a 6-3 takes one checker: 24/15 only (24/18 and 24/21 together would take two).
    code, out, _ = run(capsys, "moves", "--variant", "long-nardy", NARDY_START, "66")
    assert code == 0
    assert out.split() == [
        "24/18(2)",
        NARDY_START.replace(",-15/", ",-13/").replace("0/0,0,0", "-2/0,0,0", 1),
    ]
    code, out, _ = run(capsys, "moves", NARDY_START, "63", "--json")
    data = json.loads(out)
    assert [p["play"] for p in data["plays"]] == ["24/15"]
    assert "double" not in data["plays"][0] and "again" not in data["plays"][0]


def test_watch_long_nardy_plays_a_game_to_the_end(capsys):
    code, out, err = run(
        capsys, "watch", "--variant", "long-nardy", "--opponent", "random", "--seed", "3", "--delay", "0"
    )
    assert code == 0 and err == ""
    plies = len(re.findall(r"^[XO] \(\w+\) rolls ", out, re.M))
    assert plies > 20 and out.count(" long-nardy\n") == plies + 1  # a board per ply and the final one
    assert re.search(r"[XO] \((greedy|random|bgnet)\) wins: [12] points?\.\n$", out)


def test_bench_play_long_nardy_is_refereed_and_scored_as_mars(capsys):
    code, out, _ = run(
        capsys,
        "bench",
        "play",
        "--variant",
        "long-nardy",
        "--a",
        "greedy",
        "--b",
        "random",
        "--games",
        "4",
        "--seed",
        "2",
        "--json",
        "--no-progress",
    )
    data = json.loads(out)
    assert code == 0 and data["variant"] == "long-nardy" and data["illegal_plays"] == 0
    assert sum(data["results"].values()) == 4 and data["results"]["3"] == data["results"]["-3"] == 0


@pytest.mark.parametrize("label", ["long-nardy"])
def test_the_default_bot_is_the_shipped_network_else_greedy(monkeypatch, tmp_path, label):
    monkeypatch.setattr(variant_play, "variant_network", lambda name: None)
    assert default_bot_spec(label) == "greedy"
    monkeypatch.setattr(variant_play, "variant_network", lambda name: tmp_path / f"{name}.pt")
    assert default_bot_spec(label) == "bgnet:ply=1"
