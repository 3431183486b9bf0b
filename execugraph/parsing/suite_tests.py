"""The sandbox tests parsing builds from a model's reply (the suite format of sandbox/README.md).

The evaluator asks its model for tests; `generated_tests` and `stdio_tests` turn the reply into
these, which go straight into a sandbox suite (and the trial's state) as the dicts they are.
"""

from __future__ import annotations

from typing import Literal, Required, TypedDict


class Comparison(TypedDict, total=False):
    """How the sandbox compares a call's result with the expected value, when not by equality."""

    compare: str  # the sandbox's compare mode: float, sorted, set, ...
    tol: float  # the absolute tolerance of a float comparison


class CallTest(Comparison, total=False):
    """`expr` (a call of the entry point on literal arguments) must return `expected`."""

    kind: Required[Literal["call"]]
    name: Required[str]  # unique within the suite
    expr: Required[str]
    expected: Required[object]  # a finite JSON value


class StdioTest(TypedDict):
    """The program fed `stdin` must print `expected_stdout`."""

    kind: Literal["stdio"]
    name: str  # unique within the suite
    stdin: str  # ends with a newline unless empty
    expected_stdout: str
