"""The sidebar's health panel: every check, with the sandbox's layers folded into one line that is always there."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from execugraph.providers.health import Check, Level

SANDBOX_PREFIX = "sandbox: "


def health_lines(checks: Sequence[Check]) -> list[Check]:
    """The checks to show: database, models, one `sandbox` summary line, then any sandbox layer that is not active.

    A healthy sandbox used to show nothing at all, which read as "no sandbox"; now it reads "15 of 15 isolation
    layers active".
    """
    layers = [c for c in checks if c.name.startswith(SANDBOX_PREFIX)]
    others = [c for c in checks if not c.name.startswith(SANDBOX_PREFIX)]
    if not layers:
        return others
    active = sum(1 for c in layers if c.level == "ok")
    missing = [c for c in layers if c.level != "ok"]
    level = "ok" if not missing else "warn"
    detail = f"{active} of {len(layers)} isolation layers active"
    if missing:
        detail += "; not active: " + ", ".join(c.name.removeprefix(SANDBOX_PREFIX) for c in missing)
    fix = missing[0].fix if missing else ""
    return [*others, Check("sandbox", level, detail, fix), *missing]


OK_MARK, FAIL_MARK = "✓", "✗"
REASON_CHARS = 70  # a problem's visible reason: one line of the 13-21 rem sidebar, the whole text on demand
_TITLES = {"database": "Database", "embedded model": "Model", "ollama": "Ollama", "openai server": "OpenAI server",
           "plugins": "Plugins", "sandbox": "Sandbox"}


@dataclass(frozen=True)
class SidebarLine:
    """One component in the sidebar: a short line with its mark, a visible one-line reason when it is not ok, and
    the check's whole message (detail and fix) for a tooltip or the details section."""

    level: Level
    text: str
    reason: str
    full: str


def _short(text: str, limit: int = REASON_CHARS) -> str:
    """The first line of `text`, cut at a word to `limit` characters with an ellipsis."""
    line = " ".join(text.split())
    if len(line) <= limit:
        return line
    return line[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:(") + "…"


def _database_name(detail: str) -> str:
    """`sqlite:////tmp/x/runs.db (schema 9)` -> `runs.db`; a server URL -> `PostgreSQL <dbname>` (no host, no user)."""
    url = detail.split(" (", 1)[0].strip()
    scheme, _, rest = url.partition("://")
    if scheme.startswith("sqlite"):
        return PurePosixPath(rest.lstrip("/")).name or "in memory"
    database = rest.rsplit("/", 1)[-1].split("?", 1)[0] if "/" in rest else ""
    return f"PostgreSQL {database}".strip() if scheme.startswith("postgres") else (scheme or "database")


def _server_state(detail: str) -> str:
    """What an Ollama / OpenAI-compatible check found, in two or three words."""
    if detail.startswith("not reachable"):
        return "not running"
    if "answered HTTP" in detail:
        return "HTTP " + detail.split("answered HTTP", 1)[1].split()[0]
    if "no models" in detail:
        return "no models"
    models = detail.split("models: ", 1)[1].split(", ") if "models: " in detail else []
    return f"{len(models)} model{'s' if len(models) != 1 else ''}"


def _state(check: Check) -> str:
    """The few words after the component's name."""
    detail = check.detail
    if check.name == "database" and check.level != "fail":
        return _database_name(detail) + (", read-only" if check.level == "warn" else "")
    if check.name == "embedded model" and check.level == "ok":
        return "embedded " + detail.split(" ", 1)[0].split("-", 1)[0]  # "SmolLM2-135M-Instruct present" -> SmolLM2
    if check.name in ("ollama", "openai server"):
        return _server_state(detail)
    if check.name == "plugins":
        return detail.split(":", 1)[0].removesuffix(" installed") if check.level == "ok" else "cannot list"
    if check.name == "sandbox" and check.level != "fail":
        active, _, total = detail.partition(" isolation layers active")[0].partition(" of ")
        return f"{active}/{total} layers" if total else _short(detail, 30)
    return "failed" if check.level == "fail" else _short(detail, 30)


def _reason(check: Check) -> str:
    """A problem's visible one-line reason; none when ok, or when the line's own words say it ("not running")."""
    if check.level == "ok":
        return ""
    if check.name == "sandbox" and check.level == "warn":
        return _short(check.detail.split("; ", 1)[-1])  # "not active: landlock_fs, ..."
    if check.level == "warn" and check.name in ("database", "ollama", "openai server"):
        return ""  # "read-only", "not running", "no models", "HTTP 401"
    return _short(check.detail)


def sidebar_lines(checks: Sequence[Check]) -> list[SidebarLine]:
    """The compact health block: one line per component (sandbox layers folded into one), ok ones marked ✓,
    failing ones ✗ with their reason on a line of its own; the full message of each in `full`."""
    lines = []
    for check in health_lines(checks):
        if check.name.startswith(SANDBOX_PREFIX):
            continue  # the sandbox line names the layers that are not active
        title = _TITLES.get(check.name, check.name[:1].upper() + check.name[1:])
        mark = {"ok": f" {OK_MARK}", "fail": f" {FAIL_MARK}"}.get(check.level, "")
        text = f"{title}: {_state(check)}{mark}"
        full = check.detail + (f" - {check.fix}" if check.fix and check.level != "ok" else "")
        lines.append(SidebarLine(check.level, text, _reason(check), full))
    return lines
