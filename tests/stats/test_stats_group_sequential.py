"""Lan-DeMets O'Brien-Fleming-type boundaries (`execugraph.stats.group_sequential`) against the published table."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from execugraph.stats.group_sequential import obf_boundaries, obf_spent

# Lan-DeMets O'Brien-Fleming-type spending, one-sided alpha 0.025, equally spaced looks: the boundaries
# ld98 (Reboussin, DeMets, Kim & Lan 2000) and gsDesign's sfLDOF print, to 4 decimals.
PUBLISHED = {
    2: [2.9626, 1.9686],
    3: [3.7103, 2.5114, 1.9930],
    4: [4.3326, 2.9631, 2.3590, 2.0141],
    5: [4.8769, 3.3569, 2.6803, 2.2898, 2.0310],
}


@pytest.mark.parametrize("looks", sorted(PUBLISHED))
def test_equally_spaced_boundaries_match_the_published_table(looks: int) -> None:
    got = obf_boundaries([k / looks for k in range(1, looks + 1)], alpha=0.025)
    assert got == pytest.approx(PUBLISHED[looks], abs=2e-4)


def test_the_spending_function_spends_all_of_alpha_at_the_end_and_little_early() -> None:
    assert obf_spent(1.0, 0.025) == pytest.approx(0.025)
    assert obf_spent(0.0, 0.025) == 0.0 and obf_spent(0.2, 0.025) < 1e-5
    assert obf_boundaries([1.0], alpha=0.025) == pytest.approx([norm.ppf(0.975)], abs=1e-6)


def test_two_sided_symmetric_spends_half_on_each_side() -> None:
    two = obf_boundaries([0.5, 1.0], alpha=0.05, two_sided=True)
    assert two == pytest.approx(PUBLISHED[2], abs=5e-4)


def test_simulated_paths_cross_with_the_planned_probability() -> None:
    fractions = [0.3, 0.6, 1.0]  # unequal looks: what the spending approach is for
    bounds = np.array(obf_boundaries(fractions, alpha=0.025))
    rng = np.random.default_rng(5)
    steps = np.sqrt(np.diff([0.0, *fractions]))
    paths = np.cumsum(rng.standard_normal((400_000, 3)) * steps, axis=1) / np.sqrt(fractions)
    crossed = (paths >= bounds).any(axis=1).mean()
    assert crossed == pytest.approx(0.025, abs=0.0015)
    first = (paths[:, 0] >= bounds[0]).mean()
    assert first == pytest.approx(obf_spent(0.3, 0.025), abs=3e-4)


def test_bad_fractions_are_refused() -> None:
    for bad in ([], [0.5, 0.5], [0.0, 1.0], [0.5, 1.2]):
        with pytest.raises(ValueError, match="information fractions"):
            obf_boundaries(bad)
