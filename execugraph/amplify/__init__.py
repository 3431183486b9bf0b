"""Stronger tests: new inputs for a benchmark's problems, graded by a reference solution, and their adequacy.

Why: a suite that a wrong-but-plausible program passes overstates pass rates (EvalPlus found
HumanEval's tests let through many wrong solutions). Everything here is offline and
deterministic from a seed, with no LLM:

- `templates`: which part of each existing test is an input (the literal arguments of a call);
- `mutation`: type-aware mutation of those inputs; `properties`: Hypothesis strategies inferred
  from them, drawn under a fixed seed; `contracts`: cheap preconditions the originals imply;
- `stated_values`: inputs spelled from the statement's listed words and the numbers its rules name;
- `references`: where a problem's reference solution comes from;
- `expected`: the reference's outputs in the sandbox (raising, slow or nondeterministic inputs dropped);
- `build`: one amplified problem and a whole amplified benchmark (name, digest, provenance), stored;
  references answered in rounds, only as far as each problem needs;
- `plan_worker`: the Hypothesis-heavy planning of many problems spread over worker processes;
- `adequacy`: mutation score of a suite against AST mutants of the reference;
- `distinguish`: of the mutants the original tests miss, which some input distinguishes (a large
  independent search), and the share of those the amplified tests kill (the 95% target);
- `differential`: without a reference, inputs on which stored passing programs disagree;
- `stored`: which stored amplified version `rescore --suite amplified[:<digest>]` grades a run on.

Amplified tests only grade (rescoring); they never feed a trial's retry loop.
"""

__all__ = [
    "adequacy",
    "agreement",
    "build",
    "differential",
    "references",
    "stored",
]
