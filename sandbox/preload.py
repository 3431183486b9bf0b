"""The standard-library modules a candidate may import, imported once in the warm worker.

Job processes run as an unprivileged user behind Landlock, so they could not
read the interpreter's library directory themselves (and should not pay for
imports per test). Everything importable is therefore imported by the worker
before it forks; inside a job the import system is then closed, so the
available set is the same on every host. This list is a convenience and a
reproducibility guarantee, not a security boundary: the kernel layers are.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

ALLOWED_MODULES: tuple[str, ...] = (
    "abc",
    "array",
    "ast",
    "base64",
    "binascii",
    "bisect",
    "builtins",
    "calendar",
    "cmath",
    "codecs",
    "collections",
    "collections.abc",
    "contextlib",
    "copy",
    "copyreg",
    "csv",
    "dataclasses",
    "datetime",
    "decimal",
    "difflib",
    "enum",
    "errno",
    "fnmatch",
    "fractions",
    "functools",
    "gc",
    "glob",
    "graphlib",
    "hashlib",
    "heapq",
    "hmac",
    "inspect",
    "io",
    "itertools",
    "json",
    "keyword",
    "linecache",
    "locale",
    "math",
    "numbers",
    "operator",
    "os",
    "os.path",
    "pathlib",
    "pickle",
    "pprint",
    "queue",
    "random",
    "re",
    "reprlib",
    "secrets",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "sys",
    "textwrap",
    "threading",
    "time",
    "tokenize",
    "traceback",
    "types",
    "typing",
    "unicodedata",
    "uuid",
    "warnings",
    "weakref",
    "zlib",
    "_strptime",
)


def preload() -> list[str]:
    """Import every allowed module and every text codec; returns the names that failed (normally none)."""
    failed = []
    for name in ALLOWED_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            failed.append(name)
    import encodings

    for info in pkgutil.iter_modules(encodings.__path__):
        try:
            importlib.import_module(f"encodings.{info.name}")
        except ImportError:
            pass  # Windows-only codecs (mbcs, oem)
    return failed


class _ClosedImports:
    """Meta-path finder installed in job processes: nothing new can be imported."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        raise ModuleNotFoundError(
            f"No module named {name!r} (the sandbox offers only its preloaded standard-library modules)", name=name
        )


def close_imports() -> None:
    """Make sys.modules the complete set of importable modules for this process."""
    sys.meta_path[:] = [_ClosedImports()]
    sys.path_hooks.clear()
    sys.path_importer_cache.clear()
    sys.path[:] = []
