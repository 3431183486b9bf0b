"""run_meta.json: where, with what software and which models each exported run was made.

Per run it repeats the provenance the store recorded when the run was made
(host, Python and package versions, models per role, model digests when the
run recorded them, the sandbox policy versions its executions ran under, the
project commit when recorded). An `exporter` section says which ExecuGraph,
sandbox policy and project commit wrote the bundle. Everything comes from
stored data or the installed code, never from the clock, so exporting twice
gives identical bytes.
"""

from __future__ import annotations

import platform
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.domain.json_types import JsonObject

_DIGEST_KEYS = ("digests", "model_digests", "ollama_digests")
_COMMIT_KEYS = ("commit", "git_commit", "project_commit")


def project_commit(root: Path = PROJECT_ROOT) -> str | None:
    """The checked-out commit of the project's git repository, read from .git without running git; None if unknown."""
    git = root / ".git"
    try:
        head = (git / "HEAD").read_text().strip()
    except OSError:
        return None
    if not head.startswith("ref:"):
        return head or None
    ref = head.partition(":")[2].strip()
    try:
        return (git / ref).read_text().strip() or None
    except OSError:
        pass
    try:
        for line in (git / "packed-refs").read_text().splitlines():
            sha, _, name = line.partition(" ")
            if name.strip() == ref:
                return sha
    except OSError:
        pass
    return None  # a repository without commits yet


def sandbox_policy_version() -> str | None:
    """The policy version of the installed sandbox, or None when it cannot be imported."""
    try:
        from sandbox import POLICY_VERSION
    except Exception:  # the sandbox is optional for exporting
        return None
    return str(POLICY_VERSION)


def _model_digests(models: Mapping[str, object], versions: Mapping[str, object]) -> JsonObject:
    found: JsonObject = {}
    for source in (versions, models):
        for key in _DIGEST_KEYS:
            value = source.get(key)
            if isinstance(value, dict):
                found.update(value)
    return found


@dataclass(frozen=True)
class RunMetaEntry:
    """One run of run_meta.json: the provenance its store row recorded."""

    id: int  # the run's id in the bundle
    title: str
    kind: str | None  # batch, single, import, rescore, ...
    host: str  # where it ran ("" when scrubbed)
    python: str | None  # the Python version the run recorded
    versions: JsonObject  # package versions as the run recorded them (JSON column)
    models: JsonObject  # models per role as recorded (JSON column)
    model_digests: JsonObject  # model name -> digest, where the run recorded them
    sandbox_policy_versions: list[str]  # the sandbox policies its executions ran under, sorted
    project_commit: str | None  # the project commit the run recorded

    def as_dict(self) -> JsonObject:
        """The entry as run_meta.json holds it (keys in field order)."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}


def run_entry(local_id: int, run: Mapping[str, Any], policy_versions: list[str]) -> RunMetaEntry:
    """The run_meta.json entry of one run (a row as a dict of Run columns)."""
    versions = dict(run.get("versions") or {})
    models = dict(run.get("models") or {})
    commit = next((versions[k] for k in _COMMIT_KEYS if versions.get(k)), None)
    return RunMetaEntry(
        id=local_id,
        title=run.get("title", ""),
        kind=run.get("kind"),
        host=run.get("host", ""),
        python=versions.get("python"),
        versions=versions,
        models=models,
        model_digests=_model_digests(models, versions),
        sandbox_policy_versions=sorted(set(policy_versions)),
        project_commit=commit,
    )


def build_run_meta(entries: list[RunMetaEntry]) -> JsonObject:
    """The whole run_meta.json document."""
    from execugraph import __version__

    return {
        "runs": [entry.as_dict() for entry in entries],
        "exporter": {
            "execugraph": __version__,
            "python": platform.python_version(),
            "sandbox_policy_version": sandbox_policy_version(),
            "project_commit": project_commit(),
        },
    }
