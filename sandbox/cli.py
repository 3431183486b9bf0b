"""`python -m sandbox check|layers`: evaluate one program from files, or show the isolation layers.

`check` prints one JSON object and exits 0 whenever the evaluation
completed, whatever the verdict; it exits 2 with a message on stderr when a
file is missing, too large (program 1 MiB, suite 16 MiB) or the suite is
malformed, and 3 when no sandbox worker could start.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sandbox.limits import CODE_FILE_MAX_BYTES, MIB, Limits
from sandbox.pool import SandboxPool, SandboxUnavailable, isolation_report
from sandbox.suite import SuiteError, load_suite_file

EXIT_OK, EXIT_BAD_INPUT, EXIT_UNAVAILABLE = 0, 2, 3


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sandbox", description="Run untrusted Python against tests in the sandbox."
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    check = sub.add_parser("check", help="run a program against a suite file and print the result as JSON")
    check.add_argument("--code", required=True, type=Path, help="the candidate program (Python source)")
    check.add_argument("--tests", required=True, type=Path, help="suite JSON: {entry_point, aliases, tests: [...]}")
    check.add_argument(
        "--timeout-s", type=float, default=Limits.timeout_s, help="wall-clock limit per test (default %(default)s)"
    )
    check.add_argument(
        "--memory-mb", type=int, default=Limits.memory_mb, help="memory the job may add (default %(default)s)"
    )
    sub.add_parser("layers", help="print each isolation layer as active or unavailable (runs a probe job)")
    return parser


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> int:
    print(f"error: {message}", file=sys.stderr)
    return code


def _check(args: argparse.Namespace) -> int:
    try:
        size = args.code.stat().st_size
        if size > CODE_FILE_MAX_BYTES:
            limit = CODE_FILE_MAX_BYTES // MIB
            return _fail(f"--code {args.code}: {size / MIB:.1f} MiB; a program may be at most {limit} MiB")
        code = args.code.read_text(encoding="utf-8")
    except FileNotFoundError:
        return _fail(f"--code {args.code}: no such file")
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"--code {args.code}: cannot read ({exc})")
    try:
        suite = load_suite_file(args.tests)
    except SuiteError as exc:
        return _fail(f"--tests {exc}")
    try:
        limits = Limits(timeout_s=args.timeout_s, memory_mb=args.memory_mb)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        with SandboxPool(workers=1) as pool:
            result = pool.run_suite(code, suite, limits)
    except SandboxUnavailable as exc:
        return _fail(str(exc), EXIT_UNAVAILABLE)
    print(json.dumps(result.to_dict(), indent=2))
    return EXIT_OK


def _layers() -> int:
    try:
        with SandboxPool(workers=1) as pool:
            report = isolation_report(pool)
    except SandboxUnavailable as exc:
        return _fail(str(exc), EXIT_UNAVAILABLE)
    print(json.dumps(report, indent=2))
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "check":
        return _check(args)
    return _layers()
