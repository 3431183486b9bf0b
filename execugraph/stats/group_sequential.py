"""Group-sequential boundaries: Lan-DeMets alpha spending with the O'Brien-Fleming-type function.

Looking at a batch's comparison while it runs, and stopping when it is already clear, inflates
the false-positive rate unless each look tests against a stricter boundary. Lan and DeMets
(1983) spend the level alpha over the information fraction t (here: the share of problems
finished, which the paired order makes a random sample) with

    alpha(t) = 2 - 2 * Phi(z_{1 - alpha/2} / sqrt(t)),

which spends almost nothing early (O'Brien-Fleming-like) and all of alpha at t = 1, and need
not fix the number or timing of looks in advance. The boundary of look k is the z with
P(first crossing at look k) = alpha(t_k) - alpha(t_{k-1}) under the null, computed by the
recursive numerical integration of Armitage, McPherson and Rowe (1969) on the score scale
S_k = Z_k sqrt(t_k), whose increments are independent normals with variance t_k - t_{k-1}.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

GRID = 2001  # points per look for the integration (odd, for Simpson's rule)
TAIL = 9.0  # the continuation region is cut at this many standard deviations below 0


def obf_spent(t: float, alpha: float) -> float:
    """Alpha spent by information fraction `t` under the Lan-DeMets O'Brien-Fleming-type function."""
    if t <= 0:
        return 0.0
    return float(2.0 - 2.0 * norm.cdf(norm.ppf(1.0 - alpha / 2.0) / math.sqrt(min(t, 1.0))))


def _simpson(n: int) -> np.ndarray:
    w = np.ones(n)
    w[1:-1:2], w[2:-1:2] = 4.0, 2.0
    return w / 3.0


def hsd_spent(t: float, alpha: float, gamma: float = -2.0) -> float:
    """Alpha spent by `t` under the Hwang-Shih-DeCani (1990) function: alpha (1 - e^(-gamma t)) / (1 - e^-gamma).

    gamma = -4 is close to O'Brien-Fleming, gamma = 1 to Pocock; gamma = -2 spends more early than the first
    and keeps the final boundary lower than the second (2.16 two-sided at 0.05 over 10 equal looks, 3.13 at the first).
    """
    if t <= 0:
        return 0.0
    t = min(t, 1.0)
    if gamma == 0:
        return alpha * t
    return float(alpha * (1.0 - math.exp(-gamma * t)) / (1.0 - math.exp(-gamma)))


def obf_boundaries(
    fractions: Sequence[float], alpha: float = 0.025, *, two_sided: bool = False, points: int = GRID,
    spent: Callable[[float, float], float] = obf_spent,
) -> list[float]:
    """The z boundary of each look at these increasing information fractions (the last usually 1).

    `spent(t, alpha)` is the spending function (default the O'Brien-Fleming type; e.g. `hsd_spent`).

    One-sided: reject at look k when Z_k >= b_k, with overall level `alpha`. Two-sided: reject when
    |Z_k| >= b_k, with `alpha` the overall two-sided level, each side spending alpha / 2 through
    the function (as ld98, ldbounds and gsDesign do), so two-sided 0.05 is close to one-sided 0.025.
    `points` (odd, per look) trades accuracy for speed: 401 points agree with the default to about 1e-4 in z.
    """
    if points < 3 or points % 2 == 0:
        raise ValueError(f"points must be an odd number of at least 3, got {points}")
    ts = [float(t) for t in fractions]
    if not ts or any(not 0 < t <= 1 for t in ts) or any(b <= a for a, b in zip(ts, ts[1:], strict=False)):
        raise ValueError(f"information fractions must increase within (0, 1]; got {list(fractions)}")
    bounds: list[float] = []
    grid = dens = None  # the sub-density of S on the continuation region of the previous look
    spent_before = 0.0
    for t in ts:
        target = (2 * spent(t, alpha / 2) if two_sided else spent(t, alpha)) - spent_before
        sd_step = math.sqrt(t - (ts[len(bounds) - 1] if bounds else 0.0))

        def crossing(c: float, grid: np.ndarray | None = grid, dens: np.ndarray | None = dens,
                     sd_step: float = sd_step) -> float:
            if grid is None or dens is None:
                upper = norm.sf(c / sd_step)
                return float(2 * upper if two_sided else upper)
            h = grid[1] - grid[0]
            tail = norm.sf((c - grid) / sd_step) + (norm.cdf((-c - grid) / sd_step) if two_sided else 0.0)
            return float(h * np.sum(_simpson(len(grid)) * dens * tail))

        c = brentq(lambda c, target=target: crossing(c) - target, 1e-9, 40.0 * math.sqrt(t), xtol=1e-12)
        bounds.append(c / math.sqrt(t))
        spent_before += crossing(c)
        low = -c if two_sided else -TAIL * math.sqrt(t)
        new_grid = np.linspace(low, c, points)
        if grid is None or dens is None:
            new_dens = norm.pdf(new_grid / sd_step) / sd_step
        else:
            h = grid[1] - grid[0]
            kernel = norm.pdf((new_grid[:, None] - grid[None, :]) / sd_step) / sd_step
            new_dens = h * kernel @ (_simpson(len(grid)) * dens)
        grid, dens = new_grid, new_dens
    return bounds
