"""Suite files uploaded to the dashboard: parsed with their faults named, kept on disk by content hash.

A kept file stays while a run's configuration names it (a batch resumes from it); one that no run names
is deleted a day after it was last uploaded (`prune_uploads`, run whenever a new file is kept).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from execugraph.store import Store

UNREFERENCED_GRACE_S = 24 * 3600  # an upload no run names yet may still be being planned


def parse_upload(benchmark: str, data: bytes, name: str, max_bytes: int | None = None) -> list[Any]:
    """Problems from an uploaded suite file (`user` schema, APPS rows or the published layout); faults are named.

    A file over `max_bytes` (default: the upload_max_bytes setting) is refused with FileTooLargeError.
    """
    from execugraph.benchmarks import parse_apps_jsonl, parse_published_jsonl, parse_user_jsonl
    from execugraph.configuration.settings import load_settings
    from execugraph.grading.suite_files import check_size

    limit = load_settings().upload_max_bytes if max_bytes is None else max_bytes
    check_size(len(data), limit, "an uploaded suite", name, "EXECUGRAPH_UPLOAD_MAX_BYTES")

    if benchmark == "apps":
        return parse_apps_jsonl(data, source=name)
    if benchmark == "published":
        return parse_published_jsonl(data, source=name)
    if benchmark == "livecodebench":  # code_generation_lite rows (execugraph.benchmarks.livecodebench)
        from execugraph.benchmarks.livecodebench import parse_livecodebench_jsonl

        return parse_livecodebench_jsonl(data, source=name)
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
    else:
        os.utime(path)  # uploaded again: its grace period starts again
    return path


def prune_uploads(folder: Any, store: Store, *, keep: Path | None = None, now: float | None = None) -> list[Path]:
    """Delete kept uploads that no run of `store` names and that are older than the grace period."""
    from execugraph.store.run_reads import suite_paths_in_use

    folder = Path(folder)
    if not folder.is_dir():
        return []
    in_use = suite_paths_in_use(store)
    moment = time.time() if now is None else now
    removed = []
    for path in folder.iterdir():
        resolved = str(path.resolve())
        if not path.is_file() or resolved in in_use or (keep is not None and path.resolve() == keep.resolve()):
            continue
        if moment - path.stat().st_mtime > UNREFERENCED_GRACE_S:
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed
