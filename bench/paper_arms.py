"""Stand-in per-problem outcomes for the paper's six main comparisons (its own per-problem logs are not in the repo).

The repository holds no per-problem outcomes of the paper's runs (only aggregates quoted in issues), so
`bench/sequential.py` replays these stand-ins, built to the published shapes:

- **internal-30** (30 problems x 5 seeds per arm): the simulated study the README's pictures show
  (`scripts/readme_pictures.py`): problem difficulty d ~ N(0, 1.5) and a trial passing with probability
  logistic(skill - d), skills 0.2 (one-shot), 1.1 (execution-retry), 1.4 (multi-agent), `random.Random(2026)`,
  drawn in the same order as that script, so these are the outcomes of the pictured study.
- **HumanEval-164**: the published pass rates, exactly: one-shot best-of-5 472 of 820 samples (57.6%),
  execution-retry 134 of 164 (81.7%), multi-agent 132 of 164 (80.5%), one trial per problem for the last two.
  A sample passes when its latent difficulty d + e (d ~ N(0, 1.5) per problem, e ~ N(0, 1) per sample,
  `numpy` seed 2026) is among the arm's k lowest, so the counts are exact and the arms share the problems'
  difficulty as real arms do.

Each comparison is (benchmark, baseline arm, compared arm), its per-problem differences being the compared
arm's mean pass rate minus the baseline's, weighted by the trials both arms ran on the problem.
"""

from __future__ import annotations

import math
import random

import numpy as np

INTERNAL_SKILLS = {"one-shot": 0.2, "retry": 1.1, "multi-agent": 1.4}  # scripts/readme_pictures.py's ARMS
HUMANEVAL_PASSED = {"one-shot": (472, 5), "retry": (134, 1), "multi-agent": (132, 1)}  # (passed, samples/problem)
COMPARISONS = [(bench, base, arm) for bench in ("internal-30", "HumanEval-164")
               for base, arm in (("one-shot", "retry"), ("one-shot", "multi-agent"), ("retry", "multi-agent"))]

Arms = dict[str, list[list[bool]]]  # arm -> per problem, its trials' outcomes


def internal30(seeds: int = 5) -> Arms:
    """The README pictures' simulated internal-30 study (the same draws, in the same order)."""
    rng = random.Random(2026)
    difficulty = [rng.gauss(0.0, 1.5) for _ in range(30)]
    out: Arms = {}
    for arm, skill in INTERNAL_SKILLS.items():
        calls = 1 if arm == "one-shot" else 3
        rows: list[list[bool]] = [[] for _ in range(30)]
        for _seed in range(seeds):
            for i, d in enumerate(difficulty):
                ok = rng.random() < 1 / (1 + math.exp(d - skill))
                rows[i].append(ok)
                # the script draws these too; drawn here so the next trial's draw is the same as there
                if calls != 1:
                    rng.randint(0, 3)
                if not ok:
                    rng.choice(["wrong_answer", "wrong_answer", "runtime_error", "timeout"])
                rng.uniform(2, 9)
        out[arm] = rows
    return out


def humaneval164() -> Arms:
    """HumanEval-164 at the published pass rates, exactly, with a shared per-problem difficulty."""
    rng = np.random.default_rng(2026)
    difficulty = rng.normal(0.0, 1.5, 164)
    out: Arms = {}
    for arm, (passed, samples) in HUMANEVAL_PASSED.items():
        latent = difficulty[:, None] + rng.normal(0.0, 1.0, (164, samples))
        cut = np.sort(latent, axis=None)[passed - 1]
        out[arm] = (latent <= cut).tolist()
    return out


def comparisons() -> list[tuple[str, list[float], list[int], int]]:
    """(label, per-problem differences, trials per problem in both arms, the baseline's trials per problem)."""
    arms = {"internal-30": internal30(), "HumanEval-164": humaneval164()}
    found = []
    for bench, base, arm in COMPARISONS:
        a, b = arms[bench][base], arms[bench][arm]
        diffs = [sum(y) / len(y) - sum(x) / len(x) for x, y in zip(a, b, strict=True)]
        found.append((f"{bench}: {arm} vs {base}", diffs, [len(x) + len(y) for x, y in zip(a, b, strict=True)],
                      round(sum(len(x) for x in a) / len(a))))
    return found
