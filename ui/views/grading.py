"""View models for grading: what an imported or rescored trial recorded, and protocol sensitivity as rows.

Imported trials (one `reference_record` step) and rescored ones (no steps) have no agent
steps to replay, but they do have a program, its stderr and a verdict; the Trace page
shows those from here. Testable without Streamlit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from execugraph.domain.steps import RECORD_NODE, RecordOutput
from ui.views import formatting  # `formatting.interval` loads the tables' formatter on first use, not here

if TYPE_CHECKING:
    from execugraph.stats.sensitivity_sections import SensitivityResult
    from execugraph.store import Store, Trial
    from ui.views.trace import StepRow

__all__ = ["RECORD_NODE", "recorded_grading", "replaced_text_note", "sensitivity_rows"]

# How the store keeps a character it cannot hold (a NUL, a lone surrogate): `store.models.CleanTextColumn`.
_REPLACEMENT = "\ufffd"


def replaced_text_note(code: str | None) -> str | None:
    """Why the program shown may not explain its verdict: the store kept some character as U+FFFD; else None."""
    if not code or _REPLACEMENT not in code:
        return None
    count = code.count(_REPLACEMENT)
    where = sorted({code.count("\n", 0, i) + 1 for i, ch in enumerate(code) if ch == _REPLACEMENT})
    lines = ", ".join(str(n) for n in where[:5]) + (", ..." if len(where) > 5 else "")
    return (f"This program shows {count} replacement character{'s' if count != 1 else ''} (U+FFFD, line "
            f"{lines}): the store keeps a NUL or a lone surrogate that way. The verdict was reached on the text as "
            "written, so it may not follow from the code shown (Python refuses a NUL in source as a syntax error).")


def _verdict(passed: Any, error_class: Any) -> str:
    if passed is True:
        return "passed"
    if passed is False:
        return str(error_class) if error_class not in (None, "", "none") else "failed"
    return "not recorded"


def recorded_grading(store: Store, trial: Trial, steps: list[StepRow]) -> dict[str, Any] | None:
    """Code, stderr and verdicts of a trial that has no agent steps to show (imported or rescored); else None."""
    record = next((s for s in steps if s["node"] == RECORD_NODE), None)
    if steps and record is None:
        return None
    executions = [e for e in store.executions_for_trial(trial.id) if e.purpose == "grading"]
    last = executions[-1] if executions else None
    if record is None and last is None and not trial.final_code:
        return None
    out = cast(RecordOutput, dict(record["output"]) if record else {})
    view: dict[str, Any] = {
        "kind": "imported" if record else "rescored",
        "code": trial.final_code or (last.code if last else ""),
        "stderr": last.stderr if last else "",
        "verdict": _verdict(trial.passed, trial.error_class),
        "tests": f"{trial.tests_passed}/{trial.tests_total}",
        "test_source": out.get("test_source_raw", trial.test_source),
        "grading_protocol": trial.grading_protocol or ("not recorded" if record else "standalone"),
        "policy_version": last.policy_version if last else "",
        "results": list(last.results or []) if last else [],
        "message": trial.message or "",
    }
    view["replaced_note"] = replaced_text_note(view["code"])
    if record:
        view["line"] = out.get("line")
        view["source"] = out.get("source", "")
        view["error_class_raw"] = out.get("error_class_raw")
        if "passed_original" in out or "error_class_original" in out:
            view["original_verdict"] = _verdict(out.get("passed_original"), out.get("error_class_original"))
        if out.get("rescore_status"):
            view["rescore_status"] = out["rescore_status"]
        if out.get("extra"):
            view["extra"] = out["extra"]
    return view


def sensitivity_rows(sensitivity: SensitivityResult) -> list[dict[str, Any]]:
    """One row per comparison, named as the paired table names it: delta, CI and Holm p under each verdict set
    (rounded as the paired table rounds them), whether the conclusion holds, and how many programs changed."""
    rows = []
    for pair in sensitivity.pairs:
        row: dict[str, Any] = {"comparison": f"{pair.b} - {pair.a}"}
        for name, values in pair.by_set.items():
            row[f"delta {name} (pp)"] = round(float(values.delta_pp), 1)
            row[f"CI {name}"] = formatting.interval(values.ci_lo, values.ci_hi)
            row[f"p Holm {name}"] = None if values.p_holm is None else round(float(values.p_holm), 4)
        row["same conclusion"] = "yes" if pair.same_conclusion else "NO"
        row["programs changed"] = len(pair.changed)
        rows.append(row)
    return rows
