"""`doctor`: is this machine ready? Exit 0 when the embedded default works (warnings allowed), 1 otherwise."""

from __future__ import annotations

import argparse
import json

MARK = {"ok": "ok  ", "warn": "WARN", "fail": "FAIL"}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the checks as JSON")
    parser.add_argument("--no-load", action="store_true", help="do not load the embedded model (faster)")
    parser.epilog = "Exit status: 0 when nothing failed (warnings such as an unreachable Ollama allowed), 1 otherwise."


def run(args: argparse.Namespace) -> int:
    """Run the checks and print them; exit 1 when one failed."""
    from execugraph.configuration.settings import load_settings
    from execugraph.providers.health import run_checks

    checks = run_checks(load_settings(args.db), load_model=not args.no_load)
    if args.json:
        print(json.dumps([c.to_dict() for c in checks], indent=2))
    else:
        for check in checks:
            line = f"[{MARK[check.level]}] {check.name}: {check.detail}"
            print(line + (f"\n       -> {check.fix}" if check.fix and check.level != "ok" else ""))
    return 1 if any(c.level == "fail" for c in checks) else 0
