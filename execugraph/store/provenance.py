"""Where and with what a run was made: host name and Python/package versions.

Stored on every Run so a result can be traced to the software that produced it.
"""

from __future__ import annotations

import platform
import socket
from functools import cache
from importlib import metadata

# The packages whose version can change a result or its measurement.
TRACKED_PACKAGES = (
    "execugraph",
    "langgraph",
    "langchain-core",
    "langchain-ollama",
    "llama-cpp-python",
    "sentence-transformers",
    "faiss-cpu",
    "torch",
    "sqlmodel",
    "sqlalchemy",
)


@cache
def _versions() -> tuple[tuple[str, str], ...]:
    """Looked up once per process: metadata scans cost ~5 ms a package."""
    versions = {"python": platform.python_version()}
    for name in TRACKED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    if "execugraph" not in versions:
        from execugraph import __version__

        versions["execugraph"] = __version__
    return tuple(versions.items())


def runtime_versions() -> dict[str, str]:
    """Python and tracked package versions of this process; packages not installed are left out."""
    return dict(_versions())


def hostname() -> str:
    """This machine's name, as other tools on it would show it."""
    return socket.gethostname()
