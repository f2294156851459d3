"""bgnet's cube decisions against the real GNU Backgammon program (Debian's ``gnubg`` 1.07).

One gnubg process (``tests/tools/gnubg_cube_cases.py`` in its embedded
Python) evaluates every case at 0-ply: it gives its cubeless probabilities of
a position and its cube decision for a cube and match state.  bgnet then gets
the same probabilities, cube and match state (and the efficiency gnubg's
``EvalEfficiency`` uses for the position's class) and must give the same
No double, Double/take and Double/pass equities, the same match winning
chances and the same decision.

Positions: deterministic picks from ``tests/data/movegen_positions.txt``
(gnubg 0-ply and random self-play); gnubg's exact two-sided bearoff classes
(which use bearoff databases, not Janowski's formulas) are left out.

Needs ``/usr/games/gnubg`` (``apt-get install -y gnubg``); skipped, saying
so, where it is absent.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from bgnet import met
from bgnet.cube import CubeOwner, CubeState, MatchState, cube_decision

pytestmark = pytest.mark.slow  # runs the real gnubg program on 680 cases

GNUBG = Path("/usr/games/gnubg")
HERE = Path(__file__).parent
SCRIPT = HERE / "tools" / "gnubg_cube_cases.py"
POSITIONS = HERE / "data" / "movegen_positions.txt"

# gnubg positionclass values (eval.h): which cube efficiency EvalEfficiency uses.
CLASS_BEAROFF2, CLASS_BEAROFF_TS, CLASS_BEAROFF1, CLASS_BEAROFF_OS = 4, 5, 6, 7
CLASS_RACE, CLASS_CRASHED, CLASS_CONTACT = 8, 9, 10
ONE_SIDED_BEAROFF_EFFICIENCY = 0.6  # gnubg rOSCubeX

N_POSITIONS = 170
SETTINGS_PER_POSITION = 4
EQ_TOL = 2e-5  # gnubg computes in float32
DECISION_MARGIN = 1e-4  # closer calls than this may fall either way between float32 and float64


def money(cube=1, owner="center", jacoby=False, beavers=False):
    return dict(
        length=0, score=[0, 0], cube=cube, owner=owner, crawford=False, jacoby=jacoby, beavers=beavers
    )


def match(length, me, opp, cube=1, owner="center", crawford=False):
    return dict(
        length=length, score=[me, opp], cube=cube, owner=owner, crawford=crawford, jacoby=False, beavers=False
    )


SETTINGS = [
    # money play
    money(),
    money(jacoby=True),
    money(beavers=True),
    money(jacoby=True, beavers=True),
    money(cube=2, jacoby=True),  # a centred cube on 2 after an automatic double
    money(cube=2, owner="me"),
    money(cube=4, owner="me", beavers=True),
    money(cube=2, owner="opp"),
    # matches: several scores, centred and owned cubes
    match(5, 0, 0),
    match(7, 2, 4),
    match(7, 4, 2),
    match(7, 4, 2, cube=2, owner="me"),
    match(7, 2, 4, cube=2, owner="opp"),
    match(9, 3, 6),
    match(11, 5, 8, cube=4, owner="me"),
    match(15, 0, 0),
    match(25, 10, 12),
    match(25, 0, 0, cube=2, owner="me"),
    match(13, 10, 11),  # 3-away/2-away
    match(3, 0, 1),  # 3-away/2-away
    match(3, 1, 1),  # 2-away/2-away: gnubg's dead centred cube
    match(13, 11, 11),  # 2-away/2-away
    match(7, 3, 5, cube=2, owner="me"),  # 4-away/2-away: a redouble kills the cube for the opponent
    match(21, 18, 16, cube=2, owner="opp"),
    # dead cubes: the current cube already wins the match for the side on roll
    match(5, 3, 3, cube=2, owner="me"),
    match(7, 5, 3, cube=2, owner="me"),
    match(9, 6, 7, cube=4, owner="me"),
    # the Crawford game, leader or trailer on roll
    match(5, 4, 2, crawford=True),
    match(5, 2, 4, crawford=True),
    match(11, 3, 10, crawford=True),
    # post-Crawford: trailer on roll (may double), leader on roll (may not), owned cubes
    match(5, 2, 4),
    match(5, 4, 2),
    match(5, 3, 4),
    match(11, 1, 10),
    match(7, 6, 3, cube=2, owner="me"),
    match(7, 3, 6, cube=2, owner="opp"),
]


@cache
def _cases() -> list[dict]:
    rng = np.random.default_rng(20240611)
    lines = [ln.split() for ln in POSITIONS.read_text().splitlines() if ln and not ln.startswith("#")]
    strong = [ln[0] for ln in lines if ln[2] == "strong"]
    rand = [ln[0] for ln in lines if ln[2] != "strong"]
    ids = list(rng.choice(strong, size=N_POSITIONS * 3 // 4, replace=False))
    ids += list(rng.choice(rand, size=N_POSITIONS - len(ids), replace=False))
    cases = []
    for pid in ids:
        fmove = int(rng.integers(2))  # one per position: gnubg then evaluates each position once
        for k in rng.choice(len(SETTINGS), size=SETTINGS_PER_POSITION, replace=False):
            cases.append(dict(SETTINGS[int(k)], id=str(pid), fmove=fmove))
    return cases


def _gnubg_run(tmp: str) -> dict:
    """Run gnubg once on every case; its JSON output."""
    cases_path = Path(tmp) / "cases.json"
    out_path = Path(tmp) / "out.json"
    cases_path.write_text(json.dumps({"cases": _cases()}))
    env = dict(os.environ, BGNET_GNUBG_CASES=str(cases_path), BGNET_GNUBG_OUT=str(out_path))
    proc = subprocess.run(
        [str(GNUBG), "-t", "-q", "-r", "-p", str(SCRIPT)],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if not out_path.exists():
        tail = f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}"
        pytest.fail(f"gnubg wrote no results (exit {proc.returncode}):\n{tail}")
    return json.loads(out_path.read_text())


@pytest.fixture(scope="module")
def gnubg_out(tmp_path_factory):
    if not GNUBG.exists():
        pytest.skip(f"gnubg not installed: {GNUBG} is absent (apt-get install -y gnubg)")
    return _gnubg_run(str(tmp_path_factory.mktemp("gnubg_cube")))


def _efficiency_args(cls: int, pips: int) -> dict | None:
    """bgnet's arguments for the class gnubg's EvalEfficiency sees; None where gnubg uses no formula."""
    if cls in (CLASS_CONTACT, CLASS_CRASHED):
        return {}
    if cls == CLASS_RACE:
        return {"pips": pips}
    if cls in (CLASS_BEAROFF1, CLASS_BEAROFF_OS):
        return {"efficiency": ONE_SIDED_BEAROFF_EFFICIENCY}
    return None  # game over, hypergammon, two-sided bearoff databases (exact cubeful equities)


def _state(case: dict) -> tuple[CubeState, MatchState]:
    cube = CubeState(case["cube"], CubeOwner.parse(case["owner"]))
    if case["length"]:
        return cube, MatchState.match(case["length"], tuple(case["score"]), crawford=case["crawford"])
    return cube, MatchState.money(jacoby=case["jacoby"], beavers=case["beavers"])


# gnubg's decision texts (GetCubeRecommendation) and ours.  gnubg says "Double, beaver" and
# "No double, beaver" whoever owns the cube; we say "Redouble"/"No redouble" for an owned one.
_GNUBG_UNAVAILABLE = "Unknown cube decision"  # gnubg's text for NOT_AVAILABLE (the opponent owns the cube)


def _same_action(ours: str, theirs: str, owned: bool) -> bool:
    if theirs == _GNUBG_UNAVAILABLE:
        return ours == "No double (cube not available)"
    if owned:
        theirs = theirs.replace("Double, beaver", "Redouble, beaver").replace(
            "No double, beaver", "No redouble, beaver"
        )
        theirs = theirs.replace("Optional double, beaver", "Optional redouble, beaver")
    return ours == theirs


def _close_call(nd: float, dt: float, dp: float) -> bool:
    """Two of the three equities (or DT and its beaver boundaries) are too close to call."""
    pairs = [(nd, dt), (nd, dp), (dt, dp), (2 * dt, nd), (dt, 0.0), (dt, -2.0)]
    return any(abs(a - b) < DECISION_MARGIN for a, b in pairs) or any(
        abs(abs(a - b) - 1e-5) < DECISION_MARGIN for a, b in [(nd, dt), (nd, dp)]
    )


def _kind(case: dict, state: MatchState) -> str:
    if not case["length"]:
        return "money"
    if case["crawford"]:
        return "crawford"
    return "post-crawford" if state.post_crawford else "match"


def _compare(out: dict) -> dict:
    """bgnet's decision for every case gnubg evaluated, and how it differs."""
    report = {
        "n": 0,
        "skipped_class": 0,
        "max_eq": 0.0,
        "max_mwc": 0.0,
        "eq_fail": [],
        "action_fail": [],
        "close": 0,
        "actions": collections.Counter(),
        "kinds": collections.Counter(),
    }
    for case, res in zip(_cases(), out["results"], strict=True):
        eff = _efficiency_args(res["cls"], res["pips"])
        if eff is None:
            report["skipped_class"] += 1
            continue
        cube, state = _state(case)
        d = cube_decision(res["probs"], cube, state, **eff)
        report["n"] += 1
        report["actions"][res["text"]] += 1
        report["kinds"][_kind(case, state)] += 1
        opt, nd, dt, dp = res["cf"]
        ours = [d.no_double, d.double_take, d.double_pass]
        theirs = [nd, dt, dp]
        if not (res["text"].endswith("beaver") and dt >= nd):
            # gnubg's optimal is DT in its "double, but beaver" case; ours is the better of ND and 2 DT
            ours.append(d.optimal)
            theirs.append(opt)
        err = max(abs(a - b) for a, b in zip(ours, theirs, strict=True))
        report["max_eq"] = max(report["max_eq"], err)
        if err > EQ_TOL:
            report["eq_fail"].append((case, res, ours))
        if res["mwc"] is not None:
            ours_mwc = (d.mwc["no_double"], d.mwc["double_take"], d.mwc["double_pass"])
            e = max(abs(a - b) for a, b in zip(ours_mwc, res["mwc"], strict=True))
            report["max_mwc"] = max(report["max_mwc"], e)
            if e > EQ_TOL:
                report["eq_fail"].append((case, res, ours_mwc))
        if not _same_action(d.action, res["text"], not cube.centered):
            if _close_call(nd, dt, dp):
                report["close"] += 1
            else:
                report["action_fail"].append((case, res, d.action))
    return report


@pytest.fixture(scope="module")
def report(gnubg_out):
    return _compare(gnubg_out)


def test_gnubg_uses_the_kazaross_xg2_table(gnubg_out):
    pre, post = gnubg_out["met"]["pre"], gnubg_out["met"]["post"]
    for i in range(met.MAX_AWAY):
        for j in range(met.MAX_AWAY):
            assert pre[i][j] == pytest.approx(met.PRE_CRAWFORD[i][j], abs=1e-7), (i, j)
    # gnubg extends the post-Crawford row from n - 1 (matchequity.c InitMatchEquity): its
    # 25-away entry is Zadeh's, never reached in a match of 25 points or fewer.
    for side in (0, 1):
        for n in range(met.MAX_AWAY - 1):
            assert post[side][n] == pytest.approx(met.POST_CRAWFORD[n], abs=1e-7), (side, n)


def test_at_least_500_cases_of_every_kind(report):
    assert report["n"] >= 500, report["n"]
    assert report["skipped_class"] < report["n"] // 4
    for kind in ("money", "match", "crawford", "post-crawford"):
        assert report["kinds"][kind] >= 40, report["kinds"]


def test_equities_and_mwc_equal_gnubgs(report):
    assert not report["eq_fail"], report["eq_fail"][:5]
    assert report["max_eq"] < EQ_TOL and report["max_mwc"] < EQ_TOL


def test_decisions_equal_gnubgs(report):
    assert not report["action_fail"], report["action_fail"][:5]
    assert report["close"] <= report["n"] // 100, report["close"]


def test_the_cases_cover_the_decisions(report):
    seen = set(report["actions"])
    for text in (
        "No double, take",
        "Double, take",
        "Double, pass",
        "Too good to double, pass",
        "No redouble, take",
        "Redouble, take",
        "Redouble, pass",
        "Too good to redouble, pass",
        "No double, beaver",
        "Never double, take (dead cube)",
        "Never redouble, take (dead cube)",
        _GNUBG_UNAVAILABLE,
    ):
        assert text in seen, (text, report["actions"])
