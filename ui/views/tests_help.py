"""What the Tests page shows before any amplified suite is stored: what amplifying does, the commands that
make a suite (per benchmark that can be amplified) and how a suite is used afterwards."""

from __future__ import annotations

AMPLIFIABLE = ("internal30", "humaneval")  # `amplify --benchmark` choices (execugraph/cli)

WHAT = ("An amplified suite is a stronger version of a benchmark's tests, made offline with no LLM and "
        "deterministically from a seed: the existing tests' inputs are mutated by type and drawn by Hypothesis, "
        "expected outputs come from reference solutions run in the sandbox, and the result is stored in this "
        "database as benchmark `<benchmark>+amplified:<digest>`.")
AFTERWARDS = ("Once stored, this page lists it per problem (original and amplified test counts, mutation scores, "
              "stored passing programs the new tests fail, with an input), `rescore --run R --suite amplified` "
              "regrades a run on it, and `reproduce --amplify` (or the Reproduce tab's amplify box) "
              "says which comparisons survive the stronger tests.")


def commands(db_hint: str = "") -> list[str]:
    """One `amplify` command per benchmark that can be amplified (`db_hint`: a `--db` argument, if any)."""
    return [f"python -m execugraph amplify --benchmark {b} --seed 0{db_hint}" for b in AMPLIFIABLE]
