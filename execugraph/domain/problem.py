"""The Problem type shared by benchmarks, agents, the store and the sandbox suite format."""

from __future__ import annotations

from pydantic import BaseModel, Field

from execugraph.domain.json_types import JsonObject


class Problem(BaseModel):
    """One programming problem with its tests in the sandbox suite format.

    `tests` are sandbox test dicts (see sandbox/README.md): kind `call`, `assert`
    or `stdio`. A test carrying `"visible": true` may feed the retry loop when
    `feedback_tests="visible"`; the others are held out for grading. A test carrying
    `"grading": false` is an example only (HumanEval's docstring examples): it may feed
    the loop but never grades. Which tests grade, and the sandbox suite a problem
    becomes, are decided in `execugraph.grading.rules` (`build_suite`).

    `preamble` is the benchmark prompt a `with-prompt` grading runs before the program
    in the candidate's module (HumanEval: imports, helpers and the stub); `timeout_s`
    is a benchmark's own per-test limit in CPU seconds, when it sets one. `reference` is a
    reference solution (HumanEval's canonical one, or a user suite's), whose CPU time per
    test calibrates the limits (`execugraph.grading.calibration`); it is never shown to a model.
    """

    id: str
    benchmark: str = "adhoc"
    category: str = "general"
    statement: str
    entry_point: str | None = None
    aliases: list[str] = Field(default_factory=list)
    signature: str = ""
    tests: list[JsonObject] = Field(default_factory=list)  # sandbox test dicts as read, validated by the sandbox
    difficulty: str = ""
    rationale: str = ""
    source: str = ""
    preamble: str = ""
    timeout_s: float | None = None
    reference: str = ""
    release_date: str = ""  # ISO date (YYYY-MM-DD) the problem was first published (LiveCodeBench's contest date)

    def visible_tests(self) -> list[JsonObject]:
        return [t for t in self.tests if t.get("visible")]

    def held_out_tests(self) -> list[JsonObject]:
        return [t for t in self.tests if not t.get("visible")]
