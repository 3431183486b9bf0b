"""Files a user hands over by path or upload: their size caps, and how a suite file is identified.

Caps (documented in the README, "Limits"):
- a test suite for one problem (`run --tests`): SUITE_FILE_MAX_BYTES (16 MiB);
- a problem statement read from a file (`run --statement @FILE`): TEXT_FILE_MAX_BYTES (1 MiB);
- any file uploaded to the dashboard (a suite on the Batch page, a zip on the
  Import tab): the `upload_max_bytes` setting (EXECUGRAPH_UPLOAD_MAX_BYTES, 200 MiB);
- what an import may unpack to: the `import_max_bytes` setting (see publication.source).
The sandbox's own CLI (`python -m sandbox check`) applies the same 16 MiB to
its suite and 1 MiB to the program, in `sandbox/limits.py`.

A file suite is recorded in a run's config by file name and SHA-256
(`suite_identity`), so an exported run names the exact suite without the
local path it was read from, and a rerun can check it has the same file.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TypedDict

from execugraph.configuration.settings import format_size
from execugraph.domain.json_types import JsonObject
from execugraph.inputs.readers import FileRefused, read_capped_file

SUITE_FILE_MAX_BYTES = 16 * 1024**2
TEXT_FILE_MAX_BYTES = 1024**2


class FileTooLargeError(ValueError):
    """A file is larger than the cap for what it is used as."""


def check_size(size: int, limit: int, what: str, name: str, setting: str = "") -> None:
    """Raise FileTooLargeError naming the file, its size and the cap when `size` exceeds `limit`."""
    if size > limit:
        how = f" (raise it with {setting})" if setting else ""
        shown, cap = format_size(size), format_size(limit)
        if shown == cap:  # rounding would hide the difference
            shown, cap = f"{size} bytes", f"{limit} bytes"
        raise FileTooLargeError(f"{name} is {shown}; {what} may be at most {cap}{how}")


def read_capped(path: str | Path, limit: int, what: str) -> bytes:
    """The file's bytes, refused before reading when it is larger than `limit` or not a regular file."""
    try:
        return read_capped_file(path, limit)
    except FileRefused as exc:
        if exc.kind == "too-large":  # size None: the file grew past the cap after it was measured
            check_size(exc.size if exc.size is not None else limit + 1, limit, what, exc.name)
        if isinstance(exc.__cause__, OSError):
            raise exc.__cause__ from None  # FileNotFoundError and the like, as the caller always got them
        raise ValueError(str(exc)) from None  # not a regular file (a folder, a pipe, a device)


class SuiteIdentity(TypedDict):
    """A suite file as a run's config records it (`config["suite"]`)."""

    file: str  # the file's name, without the folder it was read from
    sha256: str | None  # SHA-256 of its bytes; None when the file is gone


def suite_identity(path: str | Path) -> SuiteIdentity:
    """`{"file": name, "sha256": hex}` of a suite file (sha256 None when the file is gone)."""
    source = Path(path)
    digest = hashlib.sha256()
    try:
        with source.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1024**2), b""):
                digest.update(chunk)
    except OSError:
        return {"file": source.name, "sha256": None}
    return {"file": source.name, "sha256": digest.hexdigest()}


def locate_suite(config: JsonObject, folder: Path) -> JsonObject:
    """A batch config read from a file, with a suite named only by file name found beside that file.

    The SHA-256 the run recorded is checked, so a rerun cannot silently use a different suite.
    """
    batch = config.get("batch", config)
    options = batch.get("benchmark_options") if isinstance(batch, dict) else None
    name = options.get("path") if isinstance(options, dict) else None
    if not isinstance(name, str) or not name or Path(name).is_absolute():
        return config
    candidate = folder / name
    if not candidate.exists() and Path(name).exists():
        candidate = Path(name)
    if not candidate.exists():
        raise FileNotFoundError(
            f"the batch reads the suite {name!r}, which is neither beside {folder} nor in the current folder; "
            "put the suite file there"
        )
    recorded = (config.get("suite") or {}).get("sha256") if "batch" in config else None
    actual = suite_identity(candidate)["sha256"]
    if recorded and recorded != actual:
        raise ValueError(
            f"{candidate} has SHA-256 {actual[:12]}..., but the run used a suite with {recorded[:12]}...; "
            "find the suite file the run used"
        )
    options = dict(options) | {"path": str(candidate.resolve())}
    if "batch" in config:
        return config | {"batch": dict(batch) | {"benchmark_options": options}}
    return config | {"benchmark_options": options}
