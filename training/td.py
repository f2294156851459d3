"""The TD(lambda) targets of one finished game: a pure function, tested on a hand-computed chain.

bgnet uses the **forward view**: when a game ends, the lambda-return of
every position of the game is computed from the network's values of the
positions that followed it (recomputed in one batched forward when the game
ends) and the exact result, and the network is regressed towards those
targets by minibatch gradient steps.  With no reward before the end and no
discounting this is the offline lambda-return algorithm, equivalent to
TD(lambda) with eligibility traces applied at the end of the game (Sutton &
Barto, *Reinforcement Learning*, 2nd ed., section 12.1).

Perspective: ``values[t]`` are the 5 probabilities of position ``t`` for
its side on roll; consecutive positions usually belong to alternate sides, so a
value is flipped (win <-> loss, gammons swapped) each time it steps back
one ply, except across a repeated turn (acey-deucey's 1-2: the mover is on
roll again at ``t + 1``), where it is the same side's value and is not
flipped.  Recursion, for the positions ``0 .. T-1`` of a game whose
terminal position ``T`` has the exact probabilities ``z``::

    R_T = z
    R_t = (1 - lam) * V_t + lam * G_t        for 1 <= t < T
    G_t = flip(R_{t+1})                      the target of position t
    G_t = R_{t+1}                            instead, when position t + 1 has the same side on roll
"""

from __future__ import annotations

import numpy as np

from bgnet.probabilities import flip as flip_probs


def lambda_returns(
    values: np.ndarray,
    lengths: np.ndarray,
    finals: np.ndarray,
    lam: float,
    same: np.ndarray | None = None,
) -> np.ndarray:
    """Targets of the positions of several games at once.

    Args:
        values: (G, T, 5) the network's probabilities of positions ``0 .. T-1``
            of each game (padded past ``lengths[g]``; row 0 is never used:
            nothing comes before it).
        lengths: (G,) the number of positions of each game before its
            terminal position.
        finals: (G, 5) the exact probabilities of each terminal position,
            for its side on roll.
        lam: lambda in [0, 1]: 0 is one-step TD, 1 is Monte Carlo.
        same: (G, T) bools or None: ``same[g, t]`` when position ``t + 1`` of
            game ``g`` (the terminal one at ``t + 1 == lengths[g]``) has the
            side on roll of position ``t`` (a repeated turn); None: the sides
            alternate at every ply.

    Returns:
        (G, T, 5) targets; rows past ``lengths[g]`` are zero.
    """
    g_count, t_max, _ = values.shape
    targets = np.zeros_like(values)
    r = finals.astype(values.dtype).copy()
    for t in range(t_max - 1, -1, -1):
        active = t < lengths
        g = flip_probs(r[active])
        if same is not None:
            keep = same[active, t]
            g[keep] = r[active][keep]
        targets[active, t] = g
        if t > 0:
            r[active] = (1.0 - lam) * values[active, t] + lam * g
    return targets
