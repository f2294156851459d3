"""Confidence intervals of match results: the one place bgnet computes them.

A 95% confidence interval half-width is ``Z95 * sd / sqrt(n)`` over ``n``
independent samples (the normal approximation, fine for the thousands of
games a strength measurement plays).  Games played on duplicate dice come in
pairs that are not independent (that is the point: the luck cancels), so
:func:`paired_ci` takes the interval over the pair means.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Z95", "mean_ci", "mean_se", "paired_ci"]

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


def mean_se(samples: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of independent samples (rollouts report standard errors, as gnubg does)."""
    mean, half = mean_ci(samples)
    return mean, half / Z95


def mean_ci(samples: np.ndarray) -> tuple[float, float]:
    """Mean and 95% CI half-width of independent samples (points per game, say).

    Fewer than two samples give an infinite half-width (and a mean of 0 for none).
    """
    x = np.asarray(samples, dtype=np.float64).ravel()
    if len(x) == 0:
        return 0.0, math.inf
    if len(x) < 2:
        return float(x.mean()), math.inf
    return float(x.mean()), Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))


def paired_ci(samples: np.ndarray) -> tuple[float, float]:
    """Mean and 95% CI half-width of samples in duplicate pairs ``(0, 1), (2, 3), ...``.

    The interval is over the pair means (independent, where the two samples
    of a pair are not); ``len(samples)`` must be even (ValueError otherwise).
    """
    x = np.asarray(samples, dtype=np.float64).ravel()
    if len(x) % 2:
        raise ValueError(f"duplicate games come in pairs; got {len(x)} games")
    if len(x) == 0:
        return 0.0, math.inf
    mean, half = mean_ci(x.reshape(-1, 2).mean(axis=1))
    return mean, half
