"""Long nardy and acey-deucey through the formats and the command line.

Positions written, drawn and read back; the refusals (one line, exit 2);
``in/22`` and acey-deucey's 1-2 turns written and typed back part by part;
``moves --json`` with ``double`` and ``again``; ``play --variant
acey-deucey`` where a 1-2 turn gives the same side another roll; ``watch``
and ``bench play`` to the end of their games.  Expected positions and plays
are written by hand from the rules (docs/variants.md).
"""

from __future__ import annotations

import io
import json
import random
import re

import numpy as np
import pytest

from bgnet.commands import variant_play
from bgnet.commands.variant_play import (
    DOUBLE_PROMPT,
    Console,
    VariantSession,
    default_bot_spec,
    match_games,
    watch_variant,
)
from bgnet.errors import IllegalMoveError
from bgnet.players import make_player
from bgnet.variant_format import (
    draw_variant,
    format_variant_position,
    legal_variant_plays,
    parse_variant_play,
    parse_variant_position,
)
from bgnet.variants import variant
from tests.test_variant_format import random_game_boards, run

EMPTY = "0,0,0,0,0,0/0,0,0,0,0,0/0,0,0,0,0,0/0,0,0,0,0,0"
# By hand: 15 on our 24 (the head), theirs on their 24 = our 12.
NARDY_START = "long-nardy:0,0,0,0,0,0/0,0,0,0,0,-15/0,0,0,0,0,0/0,0,0,0,0,15:bar=0,0:wait=0,0"
# By hand: no checker on the points, 15 waiting on each side.
ACEY_START = f"acey-deucey:{EMPTY}:bar=0,0:wait=15,15"
# Ours: 1 on 21, 2 on 22, 12 waiting; theirs: 2 on our 4, one on their bar, 12 waiting.
ACEY_MID = "acey-deucey:0,0,0,-2,0,0/0,0,0,0,0,0/0,0,0,0,0,0/0,0,1,2,0,0:bar=0,1:wait=12,12"
LABELS = ("long-nardy", "acey-deucey", "acey-deucey+enter-all", "acey-deucey+european-1-2")


def acey(points: str = EMPTY, bar: str = "0,0", wait: str = "15,15", label: str = "acey-deucey"):
    return parse_variant_position(f"{label}:{points}:bar={bar}:wait={wait}")


# --------------------------------------------------------------------------
# Positions
# --------------------------------------------------------------------------


@pytest.mark.parametrize("label", LABELS)
@pytest.mark.parametrize("seed", [1])
def test_positions_of_random_games_round_trip_exactly(label, seed):
    v = variant(label)
    boards = random_game_boards(label, seed, 200)
    assert len(boards) > 20
    for b in boards[:: max(1, len(boards) // 25)]:
        text = format_variant_position(b, v)
        v2, b2 = parse_variant_position(text)
        assert v2 == v and np.array_equal(b2, b) and format_variant_position(b2, v2) == text


def test_the_starts_are_written_as_the_rules_describe_them():
    for text in (NARDY_START, ACEY_START):
        v, b = parse_variant_position(text)
        assert np.array_equal(b, v.start) and format_variant_position(v.start, v) == text


def test_waiting_checkers_are_drawn_beside_the_bars_and_count_25_pips():
    v, b = parse_variant_position(ACEY_MID)
    lines = draw_variant(b, v).splitlines()
    assert lines[7].endswith("|  O bar, O waiting 12") and lines[8].endswith("|  X bar, X waiting 12")
    assert " 1 |" in lines[7] and " 0 |" in lines[8]  # O's hit checker on its bar
    # By hand: X 21 + 2*22 + 12*25 = 365; O (its numbering: our 4 is its 21) 2*21 + 25 + 12*25 = 367.
    assert lines[-1].strip() == "X: pips 365, off 0    O: pips 367, off 0"
    nardy, start = parse_variant_position(NARDY_START)
    text = draw_variant(start, nardy)
    assert "waiting" not in text and "both move the same way" in text


@pytest.mark.parametrize(
    "text, message",
    [
        (
            NARDY_START.replace("wait=0,0", "wait=0,1").replace("-15", "-14"),
            "long-nardy has no checkers waiting",
        ),
        (NARDY_START.replace("bar=0,0", "bar=1,0").replace(",15:", ",14:"), "long-nardy has no hitting"),
        (NARDY_START.replace("-15", "-15p").replace(",15:", ",14:"), "long-nardy has no pins"),
        (NARDY_START.replace(",15:", ",16:"), "16 checkers"),
        (ACEY_START.replace("wait=15,15", "wait=15,16"), "more than 15"),
        (f"acey-deucey:1,{EMPTY[2:]}:bar=0,0:wait=15,15", "the side on roll has 16 checkers"),
        (f"acey-deucey:0,0,0,0,0,-1/{EMPTY[12:]}:bar=0,1:wait=15,14", "the opponent has 16 checkers"),
        (f"acey-deucey:-1p,{EMPTY[2:]}:bar=0,0:wait=14,14", "acey-deucey has no pins"),
        (f"acey-deucey:1,{EMPTY[2:]}:bar=0,0:wait=13,15", "1 borne off"),
        (
            f"acey-deucey:{EMPTY}:bar=0,0:wait=15,3",
            "the opponent has 3 checkers waiting to enter and 12 borne",
        ),
        (ACEY_START.replace("acey-deucey", "acey-deucey+no-dice"), "unknown house rule 'no-dice'"),
        (ACEY_START.replace("acey-deucey", "acey-ducey"), "unknown variant 'acey-ducey'"),
    ],
)
def test_bad_positions_are_one_line_and_exit_2(capsys, text, message):
    code, out, err = run(capsys, "moves", text, "21")
    assert code == 2 and out == ""
    assert err.startswith("bgnet: error: ") and message in err and err.count("\n") == 1


def test_a_house_rule_of_another_game_is_refused(capsys):
    code, _out, err = run(capsys, "moves", NARDY_START.replace("long-nardy", "long-nardy+european-1-2"), "21")
    assert code == 2 and err.count("\n") == 1 and "european-1-2" in err


def test_a_position_of_the_other_game_is_refused(capsys):
    code, _out, err = run(capsys, "moves", "--variant", "acey-deucey", NARDY_START, "21")
    assert code == 2 and "a long-nardy position, but the variant is acey-deucey" in err


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


@pytest.mark.parametrize("label", ["long-nardy", "acey-deucey", "acey-deucey+european-1-2"])
def test_the_default_bot_is_the_shipped_network_else_greedy(monkeypatch, tmp_path, label):
    monkeypatch.setattr(variant_play, "variant_network", lambda name: None)
    assert default_bot_spec(label) == "greedy"
    monkeypatch.setattr(variant_play, "variant_network", lambda name: tmp_path / f"{name}.pt")
    assert default_bot_spec(label) == "bgnet:ply=1"


# --------------------------------------------------------------------------
# Acey-deucey: entering, 1-2 turns written, typed and played
# --------------------------------------------------------------------------

# Theirs hold our 2..7 (two each), three wait; ours: 14 on 8 and one on 11 (or 10).
ACEY_SHUT = "acey-deucey:0,-2,-2,-2,-2,-2/-2,14,0,0,1,0/0,0,0,0,0,0/0,0,0,0,0,0:bar=0,0:wait=0,3"
# The position after it seen by the opponent: ours on its 17 and 14..19 = ... written by hand.
ACEY_SHUT_AFTER = "acey-deucey:0,0,0,0,0,0/0,0,0,0,0,0/0,0,0,0,-15,2/2,2,2,2,2,0:bar=0,0:wait=3,0"


def test_moves_acey_deucey_writes_entering_checkers_as_in(capsys):
    # By hand, 6-5 from the start: enter two (on 19 and 20), or one that goes on (in/19/14 = in/20/14).
    code, out, _ = run(capsys, "moves", ACEY_START, "65")
    assert code == 0
    assert [line.split() for line in out.splitlines()] == [
        ["in/20", "in/19", f"acey-deucey:0,0,0,0,-1,-1/{EMPTY[12:]}:bar=0,0:wait=15,13"],
        ["in/14", "acey-deucey:0,0,0,0,0,0/0,0,0,0,-1,0/0,0,0,0,0,0/0,0,0,0,0,0:bar=0,0:wait=15,14"],
    ]
    data = json.loads(run(capsys, "moves", ACEY_START, "65", "--json")[1])
    assert data["plays"][1]["steps"] == [[26, 19], [19, 14]] or data["plays"][1]["steps"] == [
        [26, 20],
        [20, 14],
    ]
    assert all(p["double"] == 0 and p["again"] is False and "parts" not in p for p in data["plays"])


def test_moves_json_gives_each_1_2_turn_its_double_and_re_roll(capsys):
    code, out, _ = run(capsys, "moves", "--json", ACEY_START, "12")
    plays = json.loads(out)["plays"]
    assert code == 0 and len({p["play"] for p in plays}) == len(plays)
    # From the start every double can be played four times (nothing blocks the entry points).
    assert {p["double"] for p in plays} == {1, 2, 3, 4, 5, 6} and all(p["again"] for p in plays)
    six = [p for p in plays if p["play"] == "2-1: in/24 in/23, 6-6: in/19(4), rolls again"]
    assert len(six) == 1 and six[0]["double"] == 6
    # Rolling again, the mover is still on roll: the result is seen by the mover (by hand).
    assert six[0]["position"] == f"acey-deucey:{EMPTY[:36]}4,0,0,0,1,1:bar=0,0:wait=9,15"
    assert [q["dice"] for q in six[0]["parts"]] == [[2, 1], [6, 6]]
    assert six[0]["steps"][2:] == [[26, 19]] * 4 and sorted(six[0]["steps"][:2]) == [[26, 23], [26, 24]]


def test_a_1_2_whose_double_cannot_be_played_or_whose_1_and_2_cannot_ends_the_turn(capsys):
    # 11/8 plays the 1 and the 2; then every double from 8 lands on their points: no double, no re-roll.
    plays = json.loads(run(capsys, "moves", "--json", ACEY_SHUT, "21")[1])["plays"]
    assert len(plays) == 1 and plays[0]["again"] is False and plays[0]["double"] in range(1, 7)
    d = plays[0]["double"]
    assert plays[0]["play"] == f"2-1: 11/8, {d}-{d}: no play" and plays[0]["position"] == ACEY_SHUT_AFTER
    # From 10 the 1 and the 2 cannot both be played: the higher alone, a plain play.
    plays = json.loads(run(capsys, "moves", "--json", ACEY_SHUT.replace("0,1,0/", "1,0,0/"), "21")[1])[
        "plays"
    ]
    assert [(p["play"], p["double"], p["again"]) for p in plays] == [("10/8", 0, False)]


@pytest.mark.parametrize("label", ["acey-deucey"])
def test_every_1_2_turn_is_read_back_from_its_notation_and_as_people_type_it(label):
    v = variant(label)
    rng = random.Random(label)
    boards = random_game_boards(label, 7, 60)
    for b in (v.start, boards[-1]):
        plays = legal_variant_plays(v, b, (2, 1))
        turns = [p for p in plays if p.double]
        assert turns and len({p.notation for p in plays}) == len(plays)
        for p in rng.sample(turns, min(25, len(turns))):
            assert parse_variant_play(p.notation, plays) == p
            parts = [f"{q.dice[0]}{q.dice[1]}: {q.notation or 'none'}" for q in p.parts[1:]]
            typed = ", ".join([p.parts[0].notation, *parts])  # no 2-1:, 66: for 6-6:, no "rolls again"
            assert parse_variant_play(typed, plays).position.tobytes() == p.position.tobytes()
            assert len(p.parts) == (3 if "european" in label and len(p.steps) > 6 else len(p.parts))


@pytest.mark.parametrize(
    "typed, message",
    [
        ("2-1: in/24 in/23, 5-3: in/20 in/22", "5-3 is not a double"),
        ("6-6: in/19(4)", "the roll is 2-1, not 6-6"),
        ("in/24 in/23", "incomplete: after the 1 and the 2 choose a double"),
        ("in/24 in/23, 5-5: in/19(4)", "5-5 cannot make in/19"),
        ("in/24 in/23, 6-6: in/19(3)", "incomplete: 6-6 must be played four times"),
        ("in/24 in/23, 6-6: in/19(4), 1-1: in/24(4)", "no complement part"),
        ("in/24 in/23, 6-6: in/19(4), 2-2: in/23(4)", "after 6-6 comes its complement to 7, 1-1"),
        ("in/24, 6-6: in/19(4)", "2-1 is not played in full"),
        ("in/24 in/23, 6-6: in/19(4), 1-1: x/y", "not a point"),
    ],
)
def test_bad_1_2_turns_get_one_line_naming_the_problem(typed, message):
    v, b = parse_variant_position(ACEY_START)
    plays = legal_variant_plays(v, b, (1, 2))
    with pytest.raises(IllegalMoveError) as e:
        parse_variant_play(typed, plays)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_plain_roll_is_not_typed_in_parts_and_in_is_only_a_source():
    v, b = parse_variant_position(ACEY_START)
    plays = legal_variant_plays(v, b, (6, 5))
    assert parse_variant_play("in/19 in/20", plays).notation == "in/20 in/19"
    assert parse_variant_play("26/14", plays).notation == "in/14"
    with pytest.raises(IllegalMoveError, match="only a 1-2 in acey-deucey is played in parts"):
        parse_variant_play("6-5: in/19, 5-5: in/20", plays)
    with pytest.raises(IllegalMoveError, match="cannot go back to those waiting"):
        parse_variant_play("19/in", plays)


class _Player:
    """The person's side of a scripted session: a 1-2 typed in two steps, else the first legal play."""

    def __init__(self, out: io.StringIO, stop_after_again: int = 1) -> None:
        self.session: VariantSession | None = None
        self.turn = None
        self.agains = 0
        self.stop = stop_after_again
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        assert self.session is not None
        self.prompts.append(prompt)
        if prompt == DOUBLE_PROMPT:
            return ", ".join(
                f"{q.dice[0]}-{q.dice[1]}: {q.notation or 'no play'}" for q in self.turn.parts[1:]
            )
        if self.agains >= self.stop:
            return "quit"
        plays = self.session.plays
        full = [p for p in plays if p.double and p.again]
        if full:
            self.agains += 1
            self.turn = full[len(full) // 2]
            return self.turn.parts[0].notation  # the 1 and the 2 alone: the game asks for the double
        return plays[0].notation


def test_play_acey_deucey_a_1_2_turn_typed_in_two_steps_rolls_again():
    out = io.StringIO()
    person = _Player(out)
    games = match_games("acey-deucey")
    session = VariantSession(
        games, [make_player("random:seed=1", games[0])], Console(out, reader=person), np.random.default_rng(4)
    )
    person.session = session
    assert session.run() == 0
    text = out.getvalue()
    assert person.agains == 1 and DOUBLE_PROMPT in person.prompts and "Traceback" not in text
    lines = text.splitlines()
    played = next(i for i, ln in enumerate(lines) if ln == f"You play {person.turn.notation}.")
    assert person.turn.notation.startswith("2-1: ") and person.turn.notation.endswith(", rolls again")
    assert lines[played + 1] == "You roll again."
    # The same side rolls next: the person's board and prompt, no bot move in between.
    following = lines[played + 2 :]
    prompt = next(i for i, ln in enumerate(following) if "Your play: " in ln)
    assert not any(ln.startswith("The bot rolls") for ln in following[:prompt])


def test_the_bot_s_1_2_turn_is_written_whole_and_it_rolls_again():
    out = io.StringIO()
    holder: dict[str, VariantSession] = {}
    games = match_games("acey-deucey")
    session = VariantSession(
        games,
        [make_player("random:seed=2", games[0])],
        Console(out, reader=lambda _p: holder["s"].plays[0].notation),
        np.random.default_rng(11),
    )
    holder["s"] = session
    assert session.run() == 0
    lines = out.getvalue().splitlines()
    again = [i for i, ln in enumerate(lines) if ln.startswith("The bot rolls 2-1 and plays 2-1: ")]
    assert again and "Games finished: 1" in lines[-1]
    for i in again:
        assert re.fullmatch(r"The bot rolls 2-1 and plays 2-1: .*, ([1-6])-\1: .*", lines[i])
        if lines[i].endswith(", rolls again."):
            assert lines[i + 1] == "The bot rolls again." and lines[i + 2].startswith("The bot rolls ")


def test_watch_acey_deucey_shows_repeated_turns_and_ends():
    out = io.StringIO()
    code = watch_variant("acey-deucey", "random:seed=1", "random:seed=2", 5, out)
    text = out.getvalue()
    assert code == 0
    moves = re.findall(r"^([XO]) \(([^)]+)\) rolls (\d-\d)(?:: no legal play| and plays (.*))$", text, re.M)
    assert len(moves) > 20 and text.count(" acey-deucey\n") == len(moves) + 1
    repeated = [k for k, m in enumerate(moves) if m[3].endswith(", rolls again")]
    assert repeated, "no 1-2 turn played in full in this game"
    for k in repeated:
        assert moves[k][2] == "2-1" and moves[k + 1][0] == moves[k][0]  # the same side rolls again
    assert re.search(r"[XO] \([^)]+\) wins: [123] points?\.\n$", text)
