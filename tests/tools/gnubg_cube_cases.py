"""Evaluate cube decisions with GNU Backgammon's embedded Python, in one process.

Run inside gnubg (not with bgnet's Python)::

    BGNET_GNUBG_CASES=cases.json BGNET_GNUBG_OUT=out.json \\
        /usr/games/gnubg -t -q -r -p tests/tools/gnubg_cube_cases.py < /dev/null

``cases.json`` holds ``{"cases": [...]}``, each case a dict: ``id`` (GNUBG
Position ID, side on roll as ``board[1]``), ``fmove`` (0/1: which of gnubg's
players is on roll, to exercise both), ``length`` (0 = money), ``score``
([side on roll, opponent]), ``cube``, ``owner`` ("center", "me", "opp"),
``crawford``, ``jacoby``, ``beavers``.

For each case the script writes gnubg's 0-ply cubeless probabilities
(``gnubg.evaluate``), its position class (``gnubg.classifypos``), the pip count
of the side on roll, and its 0-ply cube decision (``gnubg.cfevaluate``:
optimal, no double, double/take, double/pass as normalised equities, the
decision's code and text), plus in a match the three as match winning
chances (``gnubg.eq2mwc``).  It also writes the match equity table gnubg has
loaded (``gnubg.met(25)``), so the caller can check it is Kazaross-XG2.
"""

import json
import os

import gnubg

EVAL_CUBELESS = {"cubeful": 0, "plies": 0, "deterministic": 1, "prune": 0, "noise": 0.0}
EVAL_CUBEFUL = {"cubeful": 1, "plies": 0, "deterministic": 1, "prune": 0, "noise": 0.0}


def cubeinfo(case):
    fmove = case["fmove"]
    me, opp = case["score"]
    score = (me, opp) if fmove == 0 else (opp, me)
    owner = {"center": -1, "me": fmove, "opp": 1 - fmove}[case["owner"]]
    crawford = 1 if case["crawford"] else 0
    ci = gnubg.cubeinfo(case["cube"], owner, fmove, case["length"], score, crawford, 0)
    if case["length"] == 0:
        # gnubg.cubeinfo() takes Jacoby and beavers from the session; set them, and the
        # money gammon price that goes with them (SetCubeInfoMoney), explicitly.
        ci["jacoby"] = 1 if case["jacoby"] else 0
        ci["beavers"] = 1 if case["beavers"] else 0
        price = 0.0 if (case["jacoby"] and owner == -1) else 1.0
        ci["gammonprice"] = ((price, price), (price, price))
    return ci


def main():
    with open(os.environ["BGNET_GNUBG_CASES"], encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    results = []
    probs_of = {}
    for case in cases:
        board = gnubg.positionfromid(case["id"])
        ci = cubeinfo(case)
        # Each gnubg call waits milliseconds for its worker thread (it polls), so evaluate
        # thread; later ones hit its cache.  So evaluate each position once.
        key = (case["id"], case["fmove"])
        if key not in probs_of:
            probs_of[key] = list(gnubg.evaluate(board, ci, EVAL_CUBELESS))[:5]
        probs = probs_of[key]
        cf = gnubg.cfevaluate(board, ci, EVAL_CUBEFUL)
        mwc = None
        if case["length"]:
            mwc = [gnubg.eq2mwc(x, ci) for x in cf[1:4]]
        results.append(
            {
                "cls": gnubg.classifypos(board, 0),
                "pips": sum((i + 1) * n for i, n in enumerate(board[1])),
                "probs": probs,
                "cf": list(cf[:4]),
                "code": cf[4],
                "text": cf[5],
                "mwc": mwc,
            }
        )
    met = gnubg.met(25)
    out = {"met": {"pre": met[0], "post": [met[1], met[2]]}, "results": results}
    with open(os.environ["BGNET_GNUBG_OUT"], "w", encoding="utf-8") as f:
        json.dump(out, f)


main()
