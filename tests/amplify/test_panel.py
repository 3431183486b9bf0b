"""The independent-solutions panel on real HumanEval problems, in the real sandbox: a unanimous panel outvotes a wrong
reference (humaneval_97's unit digit of -587), a split panel drops an input whose answer the statement leaves open
(humaneval_132), an agreeing panel keeps the input; members failing the original tests are excluded; a bad panel file
is named by file, problem and field."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from execugraph.amplify.build import AMPLIFIED_KEY, amplify_benchmark, candidate_inputs
from execugraph.amplify.expected import reference_answers_many
from execugraph.amplify.panel import PanelFileError, bundled_panel, panel_many, read_panel
from execugraph.benchmarks import load_humaneval
from execugraph.domain.problem import Problem


def _humaneval(problem_id: str) -> Problem:
    return next(p for p in load_humaneval() if p.id == problem_id)


def test_bundled_panel_reads_and_a_bad_file_is_named(tmp_path: Path) -> None:
    panel = bundled_panel("humaneval")
    assert len(panel["humaneval_97"]) >= 2 and all(code.strip() for _, code in panel["humaneval_97"])
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps({"problems": {"humaneval_97": [{"author": "x", "code": ""}]}}), encoding="utf-8")
    with pytest.raises(PanelFileError, match=r"p\.json: problem humaneval_97 member 0: field 'code'"):
        read_panel(bad)
    bad.write_text("[]", encoding="utf-8")
    with pytest.raises(PanelFileError, match="field 'problems'"):
        read_panel(bad)


@pytest.mark.integration
def test_unanimous_panel_answers_split_panel_drops_agreeing_panel_keeps() -> None:
    from sandbox import SandboxPool

    multiply, nested = _humaneval("humaneval_97"), _humaneval("humaneval_132")
    wrong_member = ("wrong", "def multiply(a, b):\n    return a * b\n")  # fails the original tests: excluded
    exprs = {multiply.id: ["multiply(14, -587)", "multiply(148, 412)"],
             nested.id: ["is_nested('][][]][]][[')", "is_nested('[[]]')"]}
    with SandboxPool(workers=2) as pool:
        answers = reference_answers_many(pool, [(p, p.reference or "", exprs[p.id]) for p in (multiply, nested)])
        assert answers[0][0].test["expected"] == 12  # the canonical reads -587's unit digit as 3
        panel = bundled_panel("humaneval")
        found, outcomes = panel_many(pool, [(multiply, answers[0], [*panel[multiply.id], wrong_member]),
                                            (nested, answers[1], panel[nested.id])])
    assert found[0][0].test["expected"] == 28 and outcomes[0].overridden == 1  # 4 * 7, as every member reads it
    assert found[0][1].test["expected"] == 16  # members and reference agree: kept as it was
    assert outcomes[0].excluded == ["wrong"] and outcomes[0].members == len(panel[multiply.id])
    assert found[1][0].test is None and "panel split" in found[1][0].dropped  # "subsequence" read two ways
    assert found[1][1].test["expected"] is True and outcomes[1].split == 1


@pytest.mark.integration
def test_amplified_multiply_fails_the_canonical_where_the_panel_outvotes_it() -> None:
    from sandbox import SandboxPool

    problem = _humaneval("humaneval_97")
    with SandboxPool(workers=2) as pool:
        result = amplify_benchmark(pool, "humaneval", [problem], per_problem=30).problems[0]
    canonical = {}  # what HumanEval's canonical answers (`abs(a % 10) * abs(b % 10)`), and so "expected" without a panel
    for test in result.problem.tests:
        if test.get(AMPLIFIED_KEY):
            a, b = ast.literal_eval(test["expr"][len("multiply"):])
            canonical[test["expr"]] = (test["expected"], abs(a % 10) * abs(b % 10))
    outvoted = {e: pair for e, pair in canonical.items() if pair[0] != pair[1]}
    assert outvoted and all("-" in e for e in outvoted), outvoted  # only negative numbers read otherwise
    assert "answer(s) given" in result.note, result.note


def test_sign_contracts_are_relaxed_only_where_a_panel_judges() -> None:
    with_panel = [e for e, _ in candidate_inputs(_humaneval("humaneval_150"), 0, 60)[0]]
    assert any(e.startswith(("x_or_y(0,", "x_or_y(-")) for e in with_panel), with_panel
    unjudged = [e for e, _ in candidate_inputs(_humaneval("humaneval_46"), 0, 60)[0]]  # fib4: no panel
    assert not any(e.startswith("fib4(-") for e in unjudged), unjudged


def test_examples_the_check_never_grades_become_inputs() -> None:
    found = dict(candidate_inputs(_humaneval("humaneval_46"), 0, 60)[0])
    assert found.get("fib4(0)") == "example" and found.get("fib4(3)") == "example"
    assert "fib4(5)" not in found  # graded by the original check already
