"""Suite files uploaded to the dashboard: parsed with their faults named, kept on disk by content hash."""

from __future__ import annotations

from typing import Any


def parse_upload(benchmark: str, data: bytes, name: str, max_bytes: int | None = None) -> list[Any]:
    """Problems from an uploaded suite file (`user` schema, APPS rows or the published layout); faults are named.

    A file over `max_bytes` (default: the upload_max_bytes setting) is refused with FileTooLargeError.
    """
    from execugraph.benchmarks import parse_apps_jsonl, parse_published_jsonl, parse_user_jsonl
    from execugraph.settings import load_settings
    from execugraph.suite_files import check_size

    limit = load_settings().upload_max_bytes if max_bytes is None else max_bytes
    check_size(len(data), limit, "an uploaded suite", name, "EXECUGRAPH_UPLOAD_MAX_BYTES")

    if benchmark == "apps":
        return parse_apps_jsonl(data, source=name)
    if benchmark == "published":
        return parse_published_jsonl(data, source=name)
    return parse_user_jsonl(data, source=name, benchmark=benchmark)


def keep_upload(data: bytes, name: str, folder: Any) -> Any:
    """Save an uploaded suite under `folder` by content hash, so the batch config points at a file that exists."""
    import hashlib
    from pathlib import Path

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    suffix = Path(name).suffix or ".jsonl"
    path = folder / f"{hashlib.sha256(data).hexdigest()[:16]}{suffix}"
    if not path.exists():
        path.write_bytes(data)
    return path
