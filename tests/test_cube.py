"""The cube module: Janowski's formulas against worked values, the MET, match play rules, the CLI.

The decisions are checked against the real gnubg program in ``test_cube_gnubg.py``;
here they are checked against values worked out by hand from the literature
(Janowski 1993, "Take-Points in Money Games") and against the published
Kazaross-XG2 table.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bgnet import met
from bgnet.cli import _Parser
from bgnet.commands import cube as cube_command
from bgnet.cube import (
    CubeOwner,
    CubeState,
    InvalidCubeError,
    InvalidMatchError,
    InvalidProbabilitiesError,
    MatchState,
    automatic_double,
    cube_decision,
    cube_efficiency,
    cubeful_equity,
    equity_to_mwc,
    mwc_to_equity,
    take_point,
)
from bgnet.errors import BgnetError
from bgnet.probabilities import equity

MONEY = MatchState.money()
NO_GAMMONS = (0.0, 0.0, 0.0, 0.0)


def gammonless(w: float) -> tuple[float, ...]:
    return (w, *NO_GAMMONS)


def with_values(w: float, big_w: float, big_l: float) -> tuple[float, ...]:
    """Probabilities whose average win is ``big_w`` and average loss ``big_l`` (gammons, no backgammons)."""
    return (w, w * (big_w - 1.0), 0.0, (1.0 - w) * (big_l - 1.0), 0.0)


# --------------------------------------------------------------------------
# Janowski's formulas, money play
# --------------------------------------------------------------------------


def test_dead_cube_take_point_is_25_percent():
    d = cube_decision(gammonless(0.75), efficiency=0.0)
    assert d.double_take == pytest.approx(1.0, abs=1e-12) and d.double_pass == 1.0
    assert take_point(gammonless(0.6), efficiency=0.0) == pytest.approx(0.25, abs=1e-9)


def test_fully_live_cube_take_point_is_20_percent():
    d = cube_decision(gammonless(0.8), efficiency=1.0)
    assert d.double_take == pytest.approx(1.0, abs=1e-12)
    assert take_point(gammonless(0.6), efficiency=1.0) == pytest.approx(0.20, abs=1e-9)


def test_take_point_at_x_068_is_janowskis():
    # Janowski: TP = (L - 1/2) / (W + L + x/2); no gammons: 0.5 / 2.34 = 21.37 %
    tp = 0.5 / 2.34
    assert take_point(gammonless(0.7)) == pytest.approx(tp, abs=1e-9)
    d = cube_decision(gammonless(1.0 - tp))
    assert d.double_take == pytest.approx(d.double_pass, abs=1e-12)


@pytest.mark.parametrize(
    ("big_w", "big_l", "x"),
    [
        (1.0, 1.0, 0.68),
        (1.3, 1.2, 0.68),
        (1.25, 1.25, 0.68),
        (1.5, 1.1, 0.6),
        (1.2, 1.4, 0.7),
        (1.4, 1.0, 0.9),
    ],
)
def test_take_point_with_gammons_is_janowskis(big_w, big_l, x):
    # The taker's average loss is the doubler's average win, and vice versa.
    expected = (big_w - 0.5) / (big_w + big_l + 0.5 * x)
    assert take_point(with_values(0.7, big_w, big_l), efficiency=x) == pytest.approx(expected, abs=1e-9)
    d = cube_decision(with_values(1.0 - expected, big_w, big_l), efficiency=x)
    assert d.double_take == pytest.approx(1.0, abs=1e-9)


def test_worked_cubeful_equities_at_x_068():
    # p = 0.70, no gammons: dead equity 0.4; live: TP 0.2, CP 0.8 (W = L = 1).
    p = gammonless(0.7)
    dead = 0.4
    centred_live = -1.0 + 2.0 * (0.7 - 0.2) / (0.8 - 0.2)  # 2/3
    owned_live = -1.0 + 2.0 * 0.7 / 0.8  # 0.75
    unavailable_live = -1.0 + 2.0 * (0.7 - 0.2) / 0.8  # 0.25
    for owner, live, value in [
        (CubeOwner.CENTERED, centred_live, 0.5813333333),
        (CubeOwner.ME, owned_live, 0.638),
        (CubeOwner.OPPONENT, unavailable_live, 0.298),
    ]:
        got = cubeful_equity(p, CubeState(1 if owner is CubeOwner.CENTERED else 2, owner))
        assert got == pytest.approx(0.32 * dead + 0.68 * live, abs=1e-12)
        assert got == pytest.approx(value, abs=1e-9)


def test_a_dead_cube_gives_the_cubeless_equity():
    p = (0.55, 0.2, 0.02, 0.12, 0.01)
    for owner in CubeOwner:
        cube = CubeState(1 if owner is CubeOwner.CENTERED else 2, owner)
        assert cubeful_equity(p, cube, efficiency=0.0) == pytest.approx(float(equity(p)), abs=1e-12)


def test_race_efficiency_follows_the_pip_count():
    assert cube_efficiency() == 0.68
    assert cube_efficiency(10) == 0.6 and cube_efficiency(40) == pytest.approx(0.6)
    assert cube_efficiency(80) == pytest.approx(0.65) and cube_efficiency(100) == pytest.approx(0.675)
    assert cube_efficiency(120) == pytest.approx(0.7) and cube_efficiency(200) == 0.7
    p = gammonless(0.7)
    assert cubeful_equity(p, pips=80) == pytest.approx(cubeful_equity(p, efficiency=0.65), abs=1e-15)
    assert cube_decision(p, pips=100).efficiency == pytest.approx(0.675)


# --------------------------------------------------------------------------
# Money decisions: names, redoubles, Jacoby, beavers, availability, costs
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("probs", "cube", "action"),
    [
        (gammonless(0.6), CubeState(), "No double, take"),
        (gammonless(0.72), CubeState(), "Double, take"),
        (gammonless(0.85), CubeState(), "Double, pass"),
        ((0.9, 0.6, 0.05, 0.01, 0.0), CubeState(), "Too good to double, pass"),
        (gammonless(0.6), CubeState(2, CubeOwner.ME), "No redouble, take"),
        (gammonless(0.75), CubeState(2, CubeOwner.ME), "Redouble, take"),
        (gammonless(0.85), CubeState(4, CubeOwner.ME), "Redouble, pass"),
        ((0.9, 0.6, 0.05, 0.01, 0.0), CubeState(2, CubeOwner.ME), "Too good to redouble, pass"),
        (gammonless(0.9), CubeState(2, CubeOwner.OPPONENT), "No double (cube not available)"),
    ],
)
def test_money_decisions(probs, cube, action):
    d = cube_decision(probs, cube)
    assert d.action == action
    assert d.double == action.startswith(("Double", "Redouble"))
    assert d.too_good == action.startswith("Too good")
    assert d.take == (not action.endswith("pass"))


def test_a_decision_reports_every_equity_and_the_cost_of_each_wrong_action():
    d = cube_decision(gammonless(0.72))  # Double, take
    assert d.double_pass == 1.0 and d.no_double < d.double_take < d.double_pass
    assert d.optimal == d.double_take and d.doubler_action == "Double" and d.taker_action == "take"
    assert d.costs["double"] == 0.0 and d.costs["no_double"] == pytest.approx(d.double_take - d.no_double)
    assert d.costs["take"] == 0.0 and d.costs["pass"] == pytest.approx(d.double_pass - d.double_take)
    assert d.mwc is None and d.available


def test_jacoby_centred_cube_ignores_gammons_until_the_cube_is_turned():
    p = (0.9, 0.6, 0.05, 0.01, 0.0)
    jacoby = MatchState.money(jacoby=True)
    # with the Jacoby rule a big gammon favourite must double to win gammons: no "too good"
    assert cube_decision(p, match=jacoby).action == "Double, pass"
    assert cube_decision(p, match=MONEY).action == "Too good to double, pass"
    # dead-cube equity without gammons; after the take gammons count again
    assert cubeful_equity(p, match=jacoby, efficiency=0.0) == pytest.approx(2 * 0.9 - 1)
    d0 = cube_decision(p, match=jacoby, efficiency=0.0)
    assert d0.double_take == pytest.approx(2 * float(equity(p)))
    # an owned cube has no Jacoby rule
    owned = CubeState(2, CubeOwner.ME)
    assert cubeful_equity(p, owned, jacoby) == cubeful_equity(p, owned, MONEY)


def test_beavers():
    p = (0.45, 0.1, 0.0, 0.1, 0.0)
    d = cube_decision(p, match=MatchState.money(beavers=True))
    assert d.action == "No double, beaver" and d.beaver and d.take and not d.double
    assert d.double_take < 0 and d.costs["beaver"] == 0.0 and d.costs["take"] == pytest.approx(-d.double_take)
    assert cube_decision(p).action == "No double, take"
    owned = cube_decision(p, CubeState(2, CubeOwner.ME), MatchState.money(beavers=True))
    assert owned.action == "No redouble, beaver"


def test_automatic_doubles_up_to_the_limit():
    rules = MatchState.money(jacoby=True, auto_doubles=2)
    c = automatic_double(CubeState(), rules)
    assert c == CubeState(2, CubeOwner.CENTERED)
    c = automatic_double(c, rules)
    assert c == CubeState(4, CubeOwner.CENTERED)
    assert automatic_double(c, rules) == c
    assert automatic_double(CubeState(), MONEY) == CubeState()
    assert automatic_double(CubeState(), MatchState.match(7)) == CubeState()
    assert automatic_double(CubeState(2, CubeOwner.ME), rules) == CubeState(2, CubeOwner.ME)
    # equities are normalised to the cube; a centred cube on 4 is still under the Jacoby rule
    p = (0.6, 0.2, 0.0, 0.1, 0.0)
    assert cubeful_equity(p, c, rules) == cubeful_equity(p, CubeState(), rules)


def test_cubeful_equity_with_cube_action_is_the_optimal_equity():
    for w in (0.3, 0.55, 0.68, 0.75, 0.85, 0.95):
        p = (w, 0.3 * w, 0.01 * w, 0.2 * (1 - w), 0.0)
        for cube, match in [
            (CubeState(), MONEY),
            (CubeState(2, CubeOwner.ME), MONEY),
            (CubeState(), MatchState.match(7, (2, 3))),
            (CubeState(2, CubeOwner.ME), MatchState.match(9, (1, 4))),
        ]:
            d = cube_decision(p, cube, match)
            assert cubeful_equity(p, cube, match, cube_action=True) == pytest.approx(d.optimal, abs=1e-12)
            assert cubeful_equity(p, cube, match) == pytest.approx(d.no_double, abs=1e-12)
    p = gammonless(0.9)
    opp = CubeState(2, CubeOwner.OPPONENT)
    assert cubeful_equity(p, opp, cube_action=True) == cubeful_equity(p, opp)


# --------------------------------------------------------------------------
# Match play
# --------------------------------------------------------------------------


def test_double_pass_is_the_met_entry_and_equities_convert_to_mwc():
    m = MatchState.match(7, (2, 4))  # 5-away / 3-away
    d = cube_decision((0.6, 0.15, 0.01, 0.1, 0.0), match=m)
    assert d.mwc["double_pass"] == met.pre_crawford(4, 3) == 0.42850
    assert d.double_pass == 1.0
    for key in ("no_double", "double_take", "double_pass"):
        eq = getattr(d, key)
        assert equity_to_mwc(eq, 1, m) == pytest.approx(d.mwc[key], abs=1e-12)
        assert mwc_to_equity(d.mwc[key], CubeState(), m) == pytest.approx(eq, abs=1e-12)
    assert equity_to_mwc(-1.0, 1, m) == pytest.approx(met.pre_crawford(5, 2))
    assert equity_to_mwc(1.0, 2, m) == pytest.approx(met.pre_crawford(3, 3))


def test_two_away_two_away_the_centred_cube_is_dead_and_the_take_point_is_the_met_s():
    m = MatchState.match(5, (3, 3))
    d = cube_decision(gammonless(0.6), match=m)
    # no double: cubeless MWC; double/take: the game decides the match; double/pass: 1-away/2-away
    assert d.mwc["no_double"] == pytest.approx(0.6 * 0.67736 + 0.4 * 0.32264, abs=1e-12)
    assert d.mwc["double_take"] == pytest.approx(0.6, abs=1e-12)
    assert d.mwc["double_pass"] == 0.67736
    assert d.action == "Double, take"
    assert take_point(gammonless(0.6), match=m) == pytest.approx(0.32264, abs=1e-9)
    assert cube_decision(gammonless(0.5), match=m).action == "Optional double, take"


def test_double_match_point_gammons_do_not_count():
    m = MatchState.match(9, (8, 8))
    for p in [(0.6, 0.3, 0.1, 0.2, 0.05), gammonless(0.6)]:
        d = cube_decision(p, match=m)
        assert d.mwc["no_double"] == pytest.approx(0.6, abs=1e-12)
        assert d.action == "Never double, take (dead cube)" and not d.available


def test_crawford_game_no_cube_and_the_post_crawford_row():
    m = MatchState.match(5, (4, 2), crawford=True)  # 1-away / 3-away
    p = (0.6, 0.1, 0.0, 0.05, 0.0)
    d = cube_decision(p, match=m)
    assert d.action == "Never double, take (dead cube)" and not d.double and d.costs["double"] is None
    # lose a single: 1-away/2-away post-Crawford; lose a gammon: 1-away/1-away
    expected = 0.6 * 1.0 + 0.35 * (1 - met.post_crawford(2)) + 0.05 * (1 - met.post_crawford(1))
    assert d.mwc["no_double"] == pytest.approx(expected, abs=1e-12)
    trailer = cube_decision(p, match=MatchState.match(5, (2, 4), crawford=True))
    assert not trailer.available and trailer.action == "Never double, take (dead cube)"


def test_post_crawford_the_trailer_may_double_the_leader_may_not():
    p = (0.6, 0.1, 0.0, 0.05, 0.0)
    trailer = MatchState.match(5, (2, 4))
    assert trailer.post_crawford
    assert cube_decision(p, match=trailer).action == "Double, take"
    leader = cube_decision(p, match=MatchState.match(5, (4, 2)))
    assert leader.action == "Never double, take (dead cube)"
    # after the trailer's double the leader owns a dead cube
    owned = cube_decision(p, CubeState(2, CubeOwner.ME), MatchState.match(7, (6, 3)))
    assert owned.action == "Never redouble, take (dead cube)"


def test_a_cube_that_would_win_the_match_is_dead():
    p = (0.6, 0.1, 0.0, 0.05, 0.0)
    d = cube_decision(p, CubeState(2, CubeOwner.ME), MatchState.match(7, (5, 3)))  # 2-away with a 2-cube
    assert d.action == "Never redouble, take (dead cube)"
    live = cube_decision(p, CubeState(2, CubeOwner.ME), MatchState.match(7, (3, 5)))  # 4-away
    assert live.available


# --------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------

STATES = [
    (CubeState(), MONEY),
    (CubeState(), MatchState.money(jacoby=True, beavers=True)),
    (CubeState(2, CubeOwner.ME), MatchState.money(beavers=True)),
    (CubeState(), MatchState.match(7, (0, 0))),
    (CubeState(), MatchState.match(11, (6, 9))),
    (CubeState(2, CubeOwner.ME), MatchState.match(9, (2, 5))),
    (CubeState(), MatchState.match(5, (2, 4))),
    (CubeState(), MatchState.match(25, (3, 20))),
]


@st.composite
def probabilities(draw):
    w = draw(st.floats(0.0, 1.0))
    wg = draw(st.floats(0.0, 1.0)) * w
    wbg = draw(st.floats(0.0, 1.0)) * wg
    lg = draw(st.floats(0.0, 1.0)) * (1.0 - w)
    lbg = draw(st.floats(0.0, 1.0)) * lg
    return (w, wg, wbg, lg, lbg)


@settings(max_examples=300, deadline=None)
@given(probabilities(), st.sampled_from(STATES), st.floats(0.0, 1.0))
def test_the_right_actions_cost_nothing_and_the_wrong_ones_something(p, state, x):
    cube, match = state
    d = cube_decision(p, cube, match, efficiency=x)
    costs = {k: v for k, v in d.costs.items() if v is not None}
    assert all(v >= 0.0 for v in costs.values())
    assert d.optimal >= d.no_double - 1e-12
    if d.double:
        assert costs["double"] == 0.0
    elif d.available and not d.optional:
        assert costs["no_double"] == 0.0
    if d.available:
        assert costs[d.taker_action] == 0.0
    if d.mwc is not None:
        assert 0.0 <= d.mwc["double_pass"] <= 1.0
        assert mwc_to_equity(d.mwc["no_double"], cube, match) == pytest.approx(d.no_double, abs=1e-9)


# --------------------------------------------------------------------------
# The match equity table
# --------------------------------------------------------------------------

# From eXtreme Gammon's file of the table ("Kazaross XG2.met"), a second source.
PUBLISHED = {
    (1, 1): 0.50000,
    (1, 2): 0.67736,
    (2, 1): 0.32264,
    (2, 3): 0.59947,
    (3, 2): 0.40053,
    (4, 4): 0.50000,
    (5, 9): 0.72540,
    (7, 5): 0.37362,
    (10, 11): 0.548547,
    (13, 7): 0.225879,
    (15, 25): 0.80883,
    (25, 1): 0.00095,
    (25, 24): 0.46914,
    (1, 25): 0.99905,
}
PUBLISHED_POST = {1: 0.500000, 2: 0.48803, 3: 0.32264, 4: 0.31002, 5: 0.19012, 10: 0.065161, 25: 0.001230}


def test_met_entries_are_the_published_ones():
    assert len(met.PRE_CRAWFORD) == 25 and all(len(r) == 25 for r in met.PRE_CRAWFORD)
    assert len(met.POST_CRAWFORD) == 25
    for (a, b), v in PUBLISHED.items():
        assert met.pre_crawford(a, b) == v
    for a, v in PUBLISHED_POST.items():
        assert met.post_crawford(a) == v
    for i in range(25):
        for j in range(25):
            assert met.PRE_CRAWFORD[i][j] + met.PRE_CRAWFORD[j][i] == pytest.approx(1.0, abs=1e-9)


GNUBG_MET = Path("/usr/share/gnubg/met/Kazaross-XG2.xml")


def test_met_equals_gnubgs_kazaross_xg2_file():
    if not GNUBG_MET.exists():
        pytest.skip(f"gnubg not installed: {GNUBG_MET} is absent (apt-get install -y gnubg)")
    text = GNUBG_MET.read_text()
    pre = text[text.index("<pre-crawford-table") : text.index("</pre-crawford-table>")]
    rows = [[float(v) for v in re.findall(r"<me>([^<]+)</me>", r)] for r in pre.split("<row>")[1:]]
    post = [float(v) for v in re.findall(r"<me>([^<]+)</me>", text[text.index("<post-crawford-table") :])]
    assert [list(r) for r in met.PRE_CRAWFORD] == rows
    assert list(met.POST_CRAWFORD) == post


# --------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "probs",
    [
        (0.5, 0.1, 0.0, 0.1),
        (1.2, 0, 0, 0, 0),
        (0.5, 0.6, 0, 0, 0),
        (0.5, 0.1, 0.2, 0, 0),
        (0.5, 0, 0, 0.6, 0),
        (0.5, 0, 0, 0.1, 0.2),
        ("a", 0, 0, 0, 0),
        (float("nan"), 0, 0, 0, 0),
    ],
)
def test_bad_probabilities_are_named(probs):
    with pytest.raises(InvalidProbabilitiesError):
        cube_decision(probs)


def test_bad_states_are_named():
    for make in (
        lambda: CubeState(3),
        lambda: CubeState(0),
        lambda: CubeState(2, "sideways"),
        lambda: cube_decision(gammonless(0.5), match=MatchState.match(26)),
        lambda: MatchState.match(7, (7, 0)),
        lambda: MatchState.match(7, (-1, 0)),
        lambda: MatchState.match(7, (3, 3), crawford=True),
        lambda: MatchState(7, (3, 3), jacoby=True),
        lambda: MatchState(0, (0, 0), crawford=True),
        lambda: cube_decision(gammonless(0.5), CubeState(2), MatchState.match(7)),
        lambda: cube_decision(
            gammonless(0.5), CubeState(2, "me"), MatchState.match(5, (4, 1), crawford=True)
        ),
        lambda: cube_decision(gammonless(0.5), efficiency=1.5),
        lambda: cube_decision(gammonless(0.5), pips=0),
        lambda: equity_to_mwc(0.5, 1, MONEY),
    ):
        with pytest.raises(BgnetError) as e:
            make()
        assert isinstance(e.value, (InvalidCubeError, InvalidMatchError, InvalidProbabilitiesError))
        assert isinstance(e.value, ValueError) and str(e.value)


# --------------------------------------------------------------------------
# bgnet cube
# --------------------------------------------------------------------------


def run_cli(capsys, *argv):
    """Run ``bgnet cube`` as bgnet.cli.main runs a command: BgnetError -> one line, exit 2."""
    parser = _Parser(prog="bgnet")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    cube_command.register(sub)
    try:
        args = parser.parse_args(["cube", *argv])
        code = args.func(args)
    except BgnetError as e:
        print(f"bgnet: error: {e}", file=__import__("sys").stderr)
        code = 2
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_json_money(capsys):
    code, out, _ = run_cli(capsys, "--probs", "0.72,0,0,0,0", "--json")
    doc = json.loads(out)
    assert code == 0
    assert {"no_double", "double_take", "double_pass", "double", "take", "too_good"} <= set(doc)
    assert doc["double"] is True and doc["take"] is True and doc["too_good"] is False
    assert doc["action"] == "Double, take" and "mwc" not in doc
    d = cube_decision(gammonless(0.72))
    assert doc["no_double"] == d.no_double and doc["double_take"] == d.double_take


def test_cli_json_match_has_mwc(capsys):
    code, out, _ = run_cli(
        capsys,
        "--probs",
        "0.6,0.15,0.01,0.1,0",
        "--length",
        "7",
        "--score",
        "2,4",
        "--cube",
        "2",
        "--owner",
        "me",
        "--json",
    )
    doc = json.loads(out)
    d = cube_decision((0.6, 0.15, 0.01, 0.1, 0), CubeState(2, CubeOwner.ME), MatchState.match(7, (2, 4)))
    assert code == 0 and doc["mwc"] == d.mwc and doc["action"] == d.action


def test_cli_options_reach_the_decision(capsys):
    p = "0.45,0.1,0,0.1,0"
    _, out, _ = run_cli(capsys, "--probs", p, "--beaver", "--jacoby", "--json")
    assert json.loads(out)["action"] == "No double, beaver"
    _, out, _ = run_cli(capsys, "--probs", p, "--pips", "80", "--json")
    assert json.loads(out)["efficiency"] == pytest.approx(0.65)
    _, out, _ = run_cli(
        capsys, "--probs", "0.6,0.1,0,0.05,0", "--length", "5", "--score", "4,2", "--crawford"
    )
    assert "Crawford game" in out and "Never double, take (dead cube)" in out


def test_cli_text(capsys):
    code, out, _ = run_cli(capsys, "--probs", "0.6,0.15,0.01,0.1,0", "--length", "7", "--score", "2,4")
    assert code == 0 and "No double" in out and "MWC" in out and "Proper cube action:" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["--probs", "0.5,0.1"],
        ["--probs", "0.5,x,0,0,0"],
        ["--probs", "0.5,0,0,0,0", "--length", "7", "--jacoby"],
        ["--probs", "0.5,0,0,0,0", "--length", "7", "--score", "7,1"],
        ["--probs", "0.5,0,0,0,0", "--score", "1,1"],
        ["--probs", "0.5,0,0,0,0", "--crawford"],
        ["--probs", "0.5,0,0,0,0", "--length", "7", "--cube", "2"],
        ["--probs", "0.5,0,0,0,0", "--cube", "3"],
        ["--probs", "0.5,0,0,0,0", "--money", "--length", "5"],
        ["--probs", "0.5,0,0,0,0", "--owner", "them"],
    ],
)
def test_cli_bad_input_is_one_line_and_exit_2(capsys, argv):
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("bgnet: error:")


def test_register_returns_the_parser():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    assert cube_command.register(sub).prog.endswith("cube")
