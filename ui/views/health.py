"""The sidebar's health panel: every check, with the sandbox's layers folded into one line that is always there."""

from __future__ import annotations

from collections.abc import Sequence

from execugraph.providers.health import Check

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
