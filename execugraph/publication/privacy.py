"""What an export leaves out unless asked (`--include-host`): host names, user names and local paths.

A bundle is meant to be published, so by default it carries nothing that
identifies the machine or the person that made it:
- a run's `host` is emptied (run_meta.json shows it empty too);
- a file-based suite is recorded by file name and SHA-256 (`config.suite`),
  and `benchmark_options.path` keeps the file name only;
- in every other text (configs, model specs, error messages, stderr, step
  outputs, LLM transcripts) a path under a private folder (home, temp, the
  working directory, the database's folder, /home, /Users, /tmp, /mnt, ...)
  is cut to its file name, a path under the Python installation or the
  project becomes `<python>/...` or `<project>/...`, and a URL or `host:port`
  naming this machine or an LLM/Ray endpoint of the exported runs names
  `<host>` instead (in error messages and program output, the bare name
  too), and `user@` for the current user becomes `<user>@`.
Program text is exported exactly as stored, since rescoring reruns it: the
final code of trials, the code of executions, and the problems with their
tests. Replacements only ever produce text that they leave alone, so
exporting an imported bundle again gives the same bytes.
"""

from __future__ import annotations

import getpass
import os
import re
import socket
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.domain.json_types import JsonObject
from execugraph.publication.formats import Row

PRIVATE_ROOTS = ("/home", "/Users", "/root", "/tmp", "/var/tmp", "/private", "/run/user", "/mnt", "/media")
LOOPBACK = frozenset({"localhost", "127.0.0.1", "::1", "0.0.0.0", "[::1]", "<host>"})
# Columns and JSON keys holding program or test text: exported exactly, never rewritten.
EXACT_COLUMNS = frozenset({("trial", "final_code"), ("execution", "code")})
EXACT_KEYS = frozenset({"code", "final_code", "expr", "expected", "got", "tests", "source", "call"})
# Diagnostics (error messages, program output) may name a host as a bare word; elsewhere only in URLs.
DIAGNOSTIC_KEYS = frozenset({"error", "message", "stderr", "stdout"})
_END = r"""\s"'`,;)\]}>"""  # characters that end a path in running text
_ENDPOINT_KEYS = ("ollama_hosts", "ollama_host", "ray_address", "endpoints", "host")


def _user() -> str:
    try:
        return getpass.getuser()
    except Exception:  # no user name in the environment or the password database
        return ""


def _variants(path: str | Path) -> set[str]:
    text = str(path).rstrip("/")
    found = {text} if len(text) > 1 else set()
    try:
        real = os.path.realpath(text)
        if len(real) > 1:
            found.add(real)
    except OSError:
        pass
    return found


def _host_of(value: str) -> str | None:
    text = value.strip()
    if not text:
        return None
    parsed = urlsplit(text if "://" in text else f"//{text}")
    return parsed.hostname


class Scrubber:
    """Rewrites exported values so they name no local host, user or private path (see the module doc)."""

    def __init__(self, hosts: Iterable[str] = (), folders: Iterable[str | Path] = ()) -> None:
        named = {socket.gethostname(), socket.getfqdn(), *hosts}
        named |= {h.split(".")[0] for h in named if h}
        self.hosts = sorted((h for h in named if h and h.lower() not in LOOPBACK), key=len, reverse=True)
        self.user = _user()
        roots: dict[str, str] = {}
        for prefix in (sys.prefix, sys.base_prefix, sys.exec_prefix):
            roots.update(dict.fromkeys(_variants(prefix), "<python>"))
        roots.update(dict.fromkeys(_variants(PROJECT_ROOT), "<project>"))
        private = [Path.home(), tempfile.gettempdir(), os.getcwd(), *folders, *PRIVATE_ROOTS]
        for folder in private:
            for variant in _variants(folder):
                roots.setdefault(variant, "")  # "" = keep only the file name
        self.roots = roots
        alternation = "|".join(re.escape(r) for r in sorted(roots, key=len, reverse=True))
        self._paths = re.compile(rf"(?<![\w.~-])({alternation})(?=/|[{_END}:]|$)([^{_END}]*)") if roots else None
        # A host is named only where it is clearly one: after :// or @, before :PORT, or as a whole value.
        self._host_patterns = [
            re.compile(
                rf"(?:(?<=://)|(?<=@)){re.escape(h)}(?=[:/{_END}]|$)|(?<![\w.-]){re.escape(h)}(?=:\d)",
                re.IGNORECASE,
            )
            for h in self.hosts
        ]
        self._user_at = re.compile(rf"(?<![\w.-]){re.escape(self.user)}@") if self.user else None
        self._host_words = [re.compile(rf"(?<![\w.-]){re.escape(h)}(?![\w-])", re.IGNORECASE) for h in self.hosts]

    def _path(self, match: re.Match[str]) -> str:
        root, rest = match[1], match[2]
        trailer = ""
        while rest and rest[-1] in ":.":  # "…/x.py:" in a message keeps its punctuation
            trailer = rest[-1] + trailer
            rest = rest[:-1]
        kind = self.roots[root]
        if kind:
            return f"{kind}{rest}{trailer}"
        segments = [part for part in rest.split("/") if part]
        name = segments[-1] if segments else ""
        if not name or name == self.user or (root in ("/home", "/Users") and len(segments) == 1):
            name = "<local>"
        return f"{name}{trailer}"

    def text(self, value: str, *, diagnostic: bool = False) -> str:
        """A free text with private paths and local host names replaced (as bare words too in a `diagnostic`)."""
        if not value:
            return value
        if value.strip().lower() in {h.lower() for h in self.hosts}:
            return "<host>"
        out = self._paths.sub(self._path, value) if self._paths else value
        if self._user_at is not None:
            out = self._user_at.sub("<user>@", out)
        for pattern in self._host_words if diagnostic else self._host_patterns:
            if pattern.search(out):
                out = pattern.sub("<host>", out)
        return out

    def value(self, value: Any, key: str | None = None) -> Any:
        """A JSON-like value, recursively; program and test text (EXACT_KEYS) is left as it is."""
        if key in EXACT_KEYS:
            return value
        if isinstance(value, str):
            return self.text(value, diagnostic=key in DIAGNOSTIC_KEYS)
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v) for v in value]
        return value

    def row(self, table: str, row: Row) -> Row:
        """One exported row of `table` (a store table name); problems are never passed here."""
        out: Row = {}
        for column, value in row.items():
            if (table, column) in EXACT_COLUMNS or not isinstance(value, (str, dict, list)):
                out[column] = value
            else:
                out[column] = self.value(value, column if column in EXACT_KEYS | DIAGNOSTIC_KEYS else None)
        if table == "run":
            out["host"] = ""
        return out


def endpoint_hosts(configs: Iterable[JsonObject], stored_hosts: Iterable[str] = ()) -> set[str]:
    """Host names the exported runs talked to (LLM endpoints, Ray) or were made on, loopback excluded."""
    found = {h for h in stored_hosts if h}
    stack: list[Any] = list(configs)
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in _ENDPOINT_KEYS:
                    values = value if isinstance(value, list) else [value]
                    found.update(h for v in values if isinstance(v, str) and (h := _host_of(v)))
                else:
                    stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)
    return {h for h in found if h.lower() not in LOOPBACK}


def suite_path(config: object) -> str | None:
    """The suite file a batch config reads (`batch.benchmark_options.path`), or None."""
    batch = config.get("batch") if isinstance(config, dict) else None
    options = batch.get("benchmark_options") if isinstance(batch, dict) else None
    path = options.get("path") if isinstance(options, dict) else None
    return path if isinstance(path, str) and path else None


def suite_path_to_name(config: JsonObject) -> JsonObject:
    """The run config with a file suite named by file name and SHA-256 instead of its local path."""
    from execugraph.grading.suite_files import suite_identity

    path = suite_path(config)
    if path is None:
        return config
    batch, options = config["batch"], config["batch"]["benchmark_options"]
    out = dict(config)
    suite = dict(out.get("suite") or suite_identity(path))
    out["suite"] = suite
    out["batch"] = dict(batch) | {"benchmark_options": dict(options) | {"path": suite["file"]}}
    return out
