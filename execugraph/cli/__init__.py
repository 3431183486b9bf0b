"""`python -m execugraph ...`: one argparse front door over per-topic command modules.

The package holds the command layer only (the work is done in the core):

- `batch`: batch, worker, status, cancel, resume (and the composition of batch
  executors: `executors()` is where Ray's is added);
- `run`: one problem under one condition;
- `stats`: stats and report;
- `publication`: export, import, rescore;
- `retrieval`: retrieval-eval;
- `doctor`: doctor (its checks are `execugraph.providers.health`);
- `amplify`: amplify (the work is `execugraph.amplify`);
- `store`: `open_store`, how every command opens the run store.

Each command group is one module exposing `configure(parser)` and `run(args) -> int`
(or `configure_<name>` / `run_<name>` for several commands); `COMMANDS` names each one's module and
functions, so adding a command is one module here and one line there.
The front door is lazy: building the parser imports no command module; only the command
named on the line is imported and has its arguments declared (`_LazyCommands`), and its `run`
is looked up when it runs. A command module is light at import (argparse, the project's words);
what does the work (the store, scipy, LangGraph, the sandbox) is imported inside its functions,
so `--help` and `status` start fast (`tests/cli/test_cli_layout.py`, `bench/cli_startup.py`).
A database that cannot be used (StoreUnavailableError, or a corrupt file met
while reading) ends any command here with one line on stderr and exit 2.
Every command writes through `terminal.inert_output`: no control sequence from
the data reaches the terminal.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple


class Command(NamedTuple):
    """Where a command lives: its module (imported only when the command is chosen), the function that
    declares its arguments and the one that runs it, both named in full so a search finds the caller."""

    module: str
    configure: str
    run: str
    help: str


# Command modules keep heavy imports (the store, torch, scipy, LangGraph) inside their functions.
COMMANDS: dict[str, Command] = {
    "doctor": Command("execugraph.cli.doctor", "configure", "run", "check the database, embedded model, Ollama and sandbox"),
    "run": Command("execugraph.cli.run", "configure", "run", "run one problem (ad-hoc or from a benchmark) under one condition"),
    "batch": Command("execugraph.cli.batch", "configure_batch", "run_batch", "enqueue a benchmark x conditions x seeds grid (--wait to follow it)"),
    "worker": Command("execugraph.cli.batch", "configure_worker", "run_worker", "run queued batches in this process until stopped"),
    "status": Command("execugraph.cli.batch", "configure_status", "run_status", "progress of batch runs"),
    "cancel": Command("execugraph.cli.batch", "configure_cancel", "run_cancel", "cancel a batch after its in-flight trials"),
    "resume": Command("execugraph.cli.batch", "configure_resume", "run_resume", "queue a cancelled or interrupted batch again"),
    "retrieval-eval": Command("execugraph.cli.retrieval", "configure", "run", "recall@1 and recall@k of the technique retriever on the labelled set"),
    "stats": Command("execugraph.cli.stats", "configure_stats", "run_stats", "paired comparisons of runs or conditions: delta, bootstrap CI, Wilcoxon, McNemar, Holm"),
    "report": Command("execugraph.cli.stats", "configure_report", "run_report", "publication tables (LaTeX, CSV, Markdown) and figures (SVG, PDF) of runs"),
    "export": Command("execugraph.cli.publication", "configure_export", "run_export", "write runs as a publication bundle (folder or .zip)"),
    "import": Command("execugraph.cli.publication", "configure_import", "run_import", "import a bundle or a published results tree (folder or .zip)"),
    "rescore": Command("execugraph.cli.publication", "configure_rescore", "run_rescore", "re-grade a run's stored programs in the current sandbox, no LLM"),
    "reproduce": Command("execugraph.cli.reproduce", "configure", "run", "import a published study, rescore it under both protocols, report what holds"),
    "sequential-replay": Command("execugraph.cli.sequential", "configure", "run", "what a sequential batch would have decided and saved on two finished runs"),
    "plugins": Command("execugraph.cli.plugins", "configure", "run", "what the installed plugins register: benchmarks, conditions, loops, agents, providers, result formats"),
    "amplify": Command("execugraph.cli.amplify", "configure", "run", "stronger tests: new inputs answered by a reference, stored as a benchmark version"),
}


class _Deferred:
    """A command's `run`, looked up in its module only when called (so `args._run(args)` works as before)."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(self, args: argparse.Namespace) -> Any:
        return getattr(importlib.import_module(self.module), self.name)(args)


class _LazyCommands(argparse._SubParsersAction):
    """The subcommands action that declares a command's arguments only once that command is chosen."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: dict[str, Command] = {}

    def configure(self, name: str) -> argparse.ArgumentParser:
        """The parser of command `name`, its module imported and its arguments declared (once)."""
        parser = self._name_parser_map[name]
        command = self.pending.pop(name, None)
        if command is not None:
            getattr(importlib.import_module(command.module), command.configure)(parser)
        return parser

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        if isinstance(values, Sequence) and values and values[0] in self.pending:
            self.configure(values[0])
        super().__call__(parser, namespace, values, option_string)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; a command's module is imported and its arguments declared only when it is parsed."""
    parser = argparse.ArgumentParser(prog="python -m execugraph", description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database path or SQLAlchemy URL (default: EXECUGRAPH_DB or ./runs.db)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", action=_LazyCommands)
    for name, command in COMMANDS.items():
        cmd = sub.add_parser(name, help=command.help, description=command.help)
        # --db is accepted after the command too (`import PATH --db URL`).
        cmd.add_argument("--db", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        cmd.set_defaults(_run=_Deferred(command.module, command.run))
        sub.pending[name] = command
    return parser


def command_parser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """Command `name`'s parser from `build_parser()`, its arguments declared (for tests and documentation)."""
    commands = next(a for a in parser._actions if isinstance(a, _LazyCommands))
    return commands.configure(name)


EXIT_BAD_DATABASE = 2


def main(argv: list[str] | None = None) -> int:
    from execugraph.cli.terminal import inert_output

    with inert_output():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args._run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        message = database_problem(exc, getattr(args, "db", None))
        if message is None:
            raise
        from execugraph.safety.redaction import scrub_message

        print(f"{args.command}: {scrub_message(message)}", file=sys.stderr)
        return EXIT_BAD_DATABASE


def database_problem(exc: BaseException, db: str | None) -> str | None:
    """The one-sentence message for an unusable database or a refused write, or None when `exc` is something else."""
    from execugraph.store.errors import StoreUnavailableError
    from execugraph.store.opening import describe_failure, is_database_error, redact, refused_value

    if isinstance(exc, StoreUnavailableError):
        return str(exc)
    refused = refused_value(exc)
    if refused is not None:
        return refused
    if is_database_error(exc):  # e.g. a page found corrupt only when a query reads it
        from execugraph.configuration.settings import load_settings

        url = load_settings(db).db_url
        where = url.removeprefix("sqlite:///") if url.startswith("sqlite:///") else redact(url)
        try:
            return describe_failure(exc, where, url)
        except Exception:  # an unparseable URL: say at least what the driver said
            return f"cannot use the database {where} ({' '.join(str(exc).split())[:300]})"
    return None

__all__ = [
    "Command",
    "build_parser",
    "command_parser",
    "database_problem",
    "main",
]
