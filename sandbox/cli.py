"""`python -m sandbox check|layers`: evaluate one program from files, or show the isolation layers.

`check` prints one JSON object (with `limits`: the CPU limit per test, the
wall-clock backstop and how CPU was measured; the same in one line on stderr)
and exits 0 whenever the evaluation completed, whatever the verdict; it exits 2 with a message on stderr when a
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
        "--timeout-s", type=float, default=Limits.timeout_s,
        help="CPU seconds per test, counted over every process and thread of the job (default %(default)s)",
    )
    check.add_argument(
        "--suite-timeout-s", type=float, default=None, help="CPU seconds for the whole suite (default: no cap)"
    )
    check.add_argument(
        "--wall-factor", type=float, default=Limits.wall_factor,
        help="wall-clock backstop per test = this x its CPU limit + --wall-grace-s (default %(default)s)",
    )
    check.add_argument(
        "--wall-grace-s", type=float, default=Limits.wall_grace_s, help="see --wall-factor (default %(default)s)"
    )
    check.add_argument(
        "--blocked-factor", type=float, default=Limits.blocked_factor,
        help="time a test may spend blocked (sleeping, waiting, stopped: neither running nor waiting for a CPU) "
             "= this x its CPU limit + --blocked-grace-s (default %(default)s)",
    )
    check.add_argument(
        "--blocked-grace-s", type=float, default=Limits.blocked_grace_s, help="see --blocked-factor (default %(default)s)"
    )
    check.add_argument(
        "--run-all-tests", action="store_true",
        help="run every test even after one timed out (default: the rest are reported not run)",
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
        limits = Limits(timeout_s=args.timeout_s, memory_mb=args.memory_mb, suite_timeout_s=args.suite_timeout_s,
                        wall_factor=args.wall_factor, wall_grace_s=args.wall_grace_s,
                        blocked_factor=args.blocked_factor, blocked_grace_s=args.blocked_grace_s,
                        stop_after_timeout=not args.run_all_tests)
    except ValueError as exc:
        return _fail(str(exc))
    try:
        with SandboxPool(workers=1) as pool:
            result = pool.run_suite(code, suite, limits)
    except SandboxUnavailable as exc:
        return _fail(str(exc), EXIT_UNAVAILABLE)
    print(json.dumps(result.to_dict(), indent=2))
    print(f"limits: {limits_line(result.limits)}", file=sys.stderr)
    return EXIT_OK


def limits_line(limits: dict) -> str:
    """The time limits of a result in one line, e.g. for `check` and the dashboard."""
    text = (f"{limits.get('cpu_s_per_test', 0):g} s CPU per test, wall-clock backstop "
            f"{limits.get('wall_backstop_s_per_test', 0):g} s ({limits.get('wall_rule', '')})")
    if limits.get("suite_cpu_s"):
        text += f"; suite {limits['suite_cpu_s']:g} s CPU, backstop {limits.get('suite_wall_backstop_s', 0):g} s"
    if limits.get("blocked_s_per_test"):
        text += f"; blocked-time budget {limits['blocked_s_per_test']:g} s ({limits.get('blocked_rule', '')})"
    if limits.get("tests_with_own_cpu_limit"):
        text += f"; {limits['tests_with_own_cpu_limit']} test(s) with their own CPU limit"
    return f"{text}; CPU measured from {limits.get('cpu_accounting', 'unknown')}"


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
