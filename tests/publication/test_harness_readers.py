"""The harness readers without a sandbox: detection, pairing, numbering, API objects, status words, refusals."""

from __future__ import annotations

import json

import pytest

from execugraph.publication.formats import IssueCollector
from execugraph.publication.harness import HarnessOptions, find_inputs
from execugraph.publication.harness.common import completion_text, numbered, problem_of, stem
from execugraph.publication.harness.evalplus import read_evalplus, status_verdict
from execugraph.publication.harness.human_eval import read_human_eval, verdict_of
from execugraph.publication.source import FileSet


def _jsonl(*rows: object) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode()


def test_files_are_detected_and_paired_within_their_folder() -> None:
    sample = {"task_id": "HumanEval/0", "completion": "x"}
    fileset = FileSet.from_bytes("in", {
        "a/samples.jsonl": _jsonl(sample),
        "a/samples.jsonl_results.jsonl": _jsonl(sample | {"result": "passed", "passed": True}),
        "b/run_eval_results.json": b'{"eval": {}}',
        "b/run.jsonl": _jsonl({"task_id": "HumanEval/0", "solution": "x"}),
        "c/generations_humaneval.json": b"[]",
        "c/evaluation_results.json": b"{}",
        "d/plus.jsonl": _jsonl({"task_id": "HumanEval/0", "solution": "x"}),
        "e/notes.jsonl": _jsonl({"id": 1}),
    })
    found = {(f.format, tuple(sorted(f.files.items()))) for f in find_inputs(fileset)}
    assert found == {
        ("human-eval", (("results", "a/samples.jsonl_results.jsonl"), ("samples", "a/samples.jsonl"))),
        ("evalplus", (("eval_results", "b/run_eval_results.json"), ("samples", "b/run.jsonl"))),
        ("bigcode", (("evaluation", "c/evaluation_results.json"), ("generations", "c/generations_humaneval.json"))),
        ("evalplus", (("samples", "d/plus.jsonl"),)),
    }


def test_samples_are_numbered_per_task_in_order_of_appearance() -> None:
    assert numbered(["T/2", "T/0", "T/2", "T/2", "T/0"]) == [0, 0, 1, 2, 1]
    assert problem_of("HumanEval/12") == ("humaneval_12", "humaneval")
    assert problem_of("Mbpp/7") == ("mbpp_7", "mbpp")
    assert stem("out/samples.jsonl_results.jsonl") == "samples" and stem("x_eval_results.json") == "x"


def test_api_objects_are_read_only_when_unambiguous() -> None:
    assert completion_text({"choices": [{"text": "a"}]}) == "a"
    assert completion_text({"choices": [{"message": {"role": "assistant", "content": "b"}}]}) == "b"
    assert completion_text({"choices": [{"text": "a"}, {"text": "b"}]}) is None
    assert completion_text({"choices": []}) is None and completion_text(3) is None


def test_status_words_map_to_verdicts() -> None:
    assert verdict_of("passed", True) == (True, None)
    assert verdict_of("timed out", False) == (False, "timeout")
    assert verdict_of("failed: AssertionError", False) == (False, "failed")
    assert isinstance(verdict_of("passed", False), str) and isinstance(verdict_of("passed", "yes"), str)
    assert status_verdict("pass") == (True, None) and status_verdict("timeout") == (False, "timeout")
    assert status_verdict("error") == (False, "failed")  # unknown counts as failure, as in EvalPlus


def test_human_eval_results_keep_order_condition_model_and_sha() -> None:
    rows = [{"task_id": "HumanEval/1", "completion": "a", "result": "passed", "passed": True},
            {"pass@1": 0.5},
            {"task_id": "HumanEval/0", "completion": {"choices": [{"text": "b"}]}, "result": "timed out",
             "passed": False},
            {"task_id": "HumanEval/1", "completion": "c", "result": "failed: x", "passed": False}]
    fileset = FileSet.from_bytes("in", {"s.jsonl_results.jsonl": _jsonl(*rows)})
    issues = IssueCollector()
    run = read_human_eval(fileset, None, "s.jsonl_results.jsonl", HarnessOptions("zs", None), issues)
    assert not issues
    got = [(r["problem_id"], r["trial"], r["passed"], r.get("error_class"), r["code"], r["condition"],
            r["model_generator"]) for _, r in run.records]
    assert got == [("humaneval_1", 0, True, None, "a", "zs", "s"), ("humaneval_0", 0, False, "timeout", "b", "zs", "s"),
                   ("humaneval_1", 1, False, "failed", "c", "zs", "s")]
    assert len(run.sha256["s.jsonl_results.jsonl"]) == 64
    assert any("without task_id" in w for w in run.warnings)


def test_evalplus_old_layout_needs_as_many_samples_as_verdicts() -> None:
    fileset = FileSet.from_bytes("in", {
        "eval_results.json": json.dumps({"eval": {"HumanEval/0": {"nfiles": 2, "base": [["pass", []], ["fail", []]],
                                                                  "plus": [["pass", []], ["fail", []]]}}}).encode(),
        "samples.jsonl": _jsonl({"task_id": "HumanEval/0", "completion": "x"}),
    })
    issues = IssueCollector()
    read_evalplus(fileset, "eval_results.json", "samples.jsonl", HarnessOptions(), issues)
    (issue,) = issues.issues
    assert str(issue) == ("eval_results.json: field \"eval['HumanEval/0'].base\": read as evalplus eval results "
                          "(old layout): 2 verdicts but samples.jsonl holds 1 samples of HumanEval/0")


@pytest.mark.parametrize("doc", [b"[1, 2]", b'{"eval": 3}', b"{broken"])
def test_evalplus_results_that_are_not_the_format_are_refused(doc: bytes) -> None:
    fileset = FileSet.from_bytes("in", {"r_eval_results.json": doc})
    issues = IssueCollector()
    assert read_evalplus(fileset, "r_eval_results.json", None, HarnessOptions(), issues) is None
    assert "read as evalplus eval results" in str(issues.issues[0])
