"""An independent-solutions panel answers every kept input beside the reference: a split panel drops the input, a
unanimous panel that disagrees with the reference gives the expected answer.

Why: the reference is one program, and the benchmark's own is sometimes wrong (HumanEval's `multiply` takes the unit
digit of -587 as 3), so its answer on a new input is only "expected" when programs written independently of it, from
the statement alone, answer the same. Rules (`RULES_VERSION` in `preconditions`):
- a panel member counts only if it passes the problem's original tests (checked in the sandbox here, every time);
  a problem needs `PANEL_MIN` such members, else the panel says nothing;
- a member that raises or times out on an input, or members answering differently, make the panel split there: the
  input's answer is doubtful and it is dropped ("panel split"), whatever the reference says;
- a unanimous panel agreeing with the reference keeps the input as it is;
- a unanimous panel disagreeing with the reference replaces the expected answer with its own ("panel answer"). Every
  member and the reference agree on the original tests, so the disagreement is on a new input within the statement's
  domain (preconditions already applied), where at least `PANEL_MIN` independent readings of the statement agree
  against one. The reference then fails that test, which is what its false passes look like;
- an input the reference could not answer (it raised, or ran past its CPU limit) is put to the panel too: a unanimous
  panel answer becomes the expected one ("panel answer where the reference fails": HumanEval's `fib` is exponential,
  its `vowels_count` raises on ""), anything less leaves it dropped. Members raise on what they read as outside the
  statement, so an input every reading rejects stays out.
The panel lives in `data/amplify/<benchmark>_panel.json` (written for this purpose, with provenance, never taken from
HumanEval+ or the canonical solutions).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from execugraph.amplify.expected import Answer, reference_answers_many
from execugraph.configuration.settings import DATA_DIR
from execugraph.domain.problem import Problem
from execugraph.grading.rules import GradingSettings, build_suite, problem_grading_tests

PANEL_DIR = DATA_DIR / "amplify"
PANEL_MIN = 2  # members passing the original tests a problem needs before the panel says anything
MEMBER_CPU_S = 0.5
REFERENCE_FAILED = ("reference raises ", "reference exceeds its CPU limit")  # drops the panel may answer instead


class PanelFileError(ValueError):
    """A panel file that is not {"problems": {id: [{"author", "code"}, ...]}} (names the file, record and field)."""


@dataclass
class PanelOutcome:
    """What the panel did to one problem's answers."""

    members: int = 0  # members that pass the original tests
    excluded: list[str] = field(default_factory=list)  # authors of members failing the original tests
    overridden: int = 0
    split: int = 0
    rescued: int = 0  # inputs the reference could not answer, answered by a unanimous panel

    def note(self) -> str:
        if not self.members and not self.excluded:
            return ""
        out = f"panel of {self.members}: {self.overridden} answer(s) given, {self.split} split"
        out += f", {self.rescued} answered where the reference fails" if self.rescued else ""
        return out + (f"; excluded (fail the original tests): {', '.join(self.excluded)}" if self.excluded else "")


def read_panel(path: Any) -> dict[str, list[tuple[str, str]]]:
    """problem id -> [(author, code)] from a panel file; raises PanelFileError naming file, record and field."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PanelFileError(f"{path}: not readable JSON ({exc})") from exc
    problems = data.get("problems") if isinstance(data, dict) else None
    if not isinstance(problems, dict):
        raise PanelFileError(f"{path}: field 'problems' must be an object of problem id -> list of members")
    out: dict[str, list[tuple[str, str]]] = {}
    for pid, members in problems.items():
        if not isinstance(members, list):
            raise PanelFileError(f"{path}: problem {pid}: must be a list of members")
        for n, member in enumerate(members):
            for key in ("author", "code"):
                if not isinstance(member, dict) or not isinstance(member.get(key), str) or not member[key].strip():
                    raise PanelFileError(f"{path}: problem {pid} member {n}: field '{key}' must be a non-empty string")
        out[pid] = [(m["author"], m["code"]) for m in members]
    return out


@lru_cache(maxsize=8)
def bundled_panel(benchmark: str) -> dict[str, list[tuple[str, str]]]:
    """The panel shipped for a benchmark (`data/amplify/<benchmark>_panel.json`), or none."""
    path = PANEL_DIR / f"{benchmark.split('+', 1)[0]}_panel.json"
    return read_panel(path) if path.is_file() else {}


def _same(a: Any, b: Any, compare: str) -> bool:
    if compare == "set" and isinstance(a, list) and isinstance(b, list):
        return sorted(map(repr, a)) == sorted(map(repr, b))
    if isinstance(a, float) or isinstance(b, float):
        ok = isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool | str)
        return ok and math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y, compare) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k], compare) for k in a)
    return type(a) is type(b) and a == b


def _agree(a: Answer, b: Answer) -> bool:
    if a.test is None or b.test is None:
        return False
    compare = str(a.test.get("compare") or b.test.get("compare") or "exact")
    return _same(a.test.get("expected"), b.test.get("expected"), compare)


def reference_failed(answer: Answer) -> bool:
    """Whether an input was dropped because the reference raised or ran past its CPU limit (`expected._why_failed`)."""
    return answer.test is None and answer.dropped.startswith(REFERENCE_FAILED)


def _passing_members(pool: Any, items: list[tuple[Problem, list[tuple[str, str]]]]) -> list[list[tuple[str, str]]]:
    """Each item's members that pass its problem's original tests."""
    from sandbox import Limits

    limits = Limits(timeout_s=MEMBER_CPU_S * 4, stop_after_timeout=False)
    jobs = [(code, build_suite(problem, problem_grading_tests(problem), "standalone"), limits)
            for problem, members in items for _, code in members]
    results = iter(pool.run_many(jobs) if jobs else [])
    return [[m for m in members if next(results).passed] for _, members in items]


def panel_many(pool: Any, items: list[tuple[Problem, list[Answer], list[tuple[str, str]]]],
               settings: GradingSettings | None = None) -> tuple[list[list[Answer]], list[PanelOutcome]]:
    """Per item (problem, the reference's answers, panel members as (author, code)): the answers with split inputs
    dropped and a unanimous dissenting panel's answer in place of the reference's, and what the panel did."""
    outcomes = [PanelOutcome() for _ in items]
    out = [list(answers) for _, answers, _ in items]
    passing = _passing_members(pool, [(problem, members) for problem, _, members in items])
    asks: list[tuple[int, list[int], int]] = []  # (item, kept positions, members)
    jobs: list[tuple[Problem, str, list[str]]] = []
    for k, ((problem, answers, members), usable) in enumerate(zip(items, passing, strict=True)):
        outcomes[k].members = len(usable)
        outcomes[k].excluded = [author for author, code in members if (author, code) not in usable]
        kept = [n for n, a in enumerate(answers) if a.test is not None or reference_failed(a)]
        if len(usable) < PANEL_MIN or not kept:
            continue
        asks.append((k, kept, len(usable)))
        jobs += [(problem, code, [answers[n].expr for n in kept]) for _, code in usable]
    found = iter(reference_answers_many(pool, jobs, settings, cpu_s=MEMBER_CPU_S) if jobs else [])
    for k, kept, count in asks:
        said = [next(found) for _ in range(count)]
        for position, n in enumerate(kept):
            votes = [member[position] for member in said]
            if out[k][n].test is None:  # the reference failed here: only a unanimous panel answers
                if all(_agree(votes[0], v) for v in votes):
                    out[k][n] = Answer(out[k][n].expr, test=votes[0].test)
                    outcomes[k].rescued += 1
            elif not all(_agree(votes[0], v) for v in votes):
                out[k][n] = Answer(out[k][n].expr, dropped="panel split (independent solutions answer differently)")
                outcomes[k].split += 1
            elif not _agree(votes[0], out[k][n]):
                out[k][n] = Answer(out[k][n].expr, test=votes[0].test)
                outcomes[k].overridden += 1
    return out, outcomes
