"""Read an import input (a folder, or a zip of one) into memory as relative path -> bytes.

Both importers work on this one shape, so a bundle or a published results tree
imports the same way from disk, from a zip on disk, or from the dashboard's
upload (bytes). Zip members are checked before they are read: absolute paths
and `..` components are refused, and the total unpacked size is capped so a
hostile archive cannot fill the memory.
"""

from __future__ import annotations

import io
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from execugraph.publication.formats import BundleFormatError, Issue

MAX_TOTAL_BYTES = 4 * 1024**3  # unpacked size accepted from one input
_IGNORED_PARTS = ("__MACOSX",)
_IGNORED_NAMES = (".DS_Store", "Thumbs.db")


@dataclass
class FileSet:
    """The files of one input, by POSIX path relative to its root; `name` names the input itself."""

    name: str
    files: dict[str, bytes]

    def under(self, folder: str) -> dict[str, bytes]:
        """Files inside `folder` ('' = the root), keyed relative to it."""
        if not folder:
            return dict(self.files)
        prefix = folder.rstrip("/") + "/"
        return {path[len(prefix) :]: data for path, data in self.files.items() if path.startswith(prefix)}


def _ignored(path: PurePosixPath) -> bool:
    return any(part in _IGNORED_PARTS for part in path.parts) or path.name in _IGNORED_NAMES


def read_input(path: str | Path) -> FileSet:
    """A folder or a .zip file on disk."""
    source = Path(path)
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such file or folder")
    if source.is_dir():
        return _read_folder(source)
    if zipfile.is_zipfile(source):
        return read_zip_bytes(source.read_bytes(), name=source.stem)
    raise BundleFormatError([Issue(str(source), None, None, "not a folder or a zip file")])


def _read_folder(root: Path) -> FileSet:
    files: dict[str, bytes] = {}
    total = 0
    for item in sorted(root.rglob("*")):
        if not item.is_file() or item.is_symlink():
            continue
        rel = PurePosixPath(item.relative_to(root).as_posix())
        if _ignored(rel):
            continue
        total += item.stat().st_size
        if total > MAX_TOTAL_BYTES:
            raise BundleFormatError([Issue(str(root), None, None, f"more than {MAX_TOTAL_BYTES} bytes of files")])
        files[str(rel)] = item.read_bytes()
    return FileSet(root.resolve().name, files)


def read_zip_bytes(data: bytes, name: str = "upload") -> FileSet:
    """A zip archive held in memory (e.g. a dashboard upload)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise BundleFormatError([Issue(name, None, None, f"not a readable zip file ({exc})")]) from exc
    files: dict[str, bytes] = {}
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        total = sum(m.file_size for m in members)
        if total > MAX_TOTAL_BYTES:
            raise BundleFormatError([Issue(name, None, None, f"unpacks to {total} bytes, over {MAX_TOTAL_BYTES}")])
        for member in members:
            rel = PurePosixPath(member.filename)
            if rel.is_absolute() or ".." in rel.parts:
                raise BundleFormatError([Issue(name, None, None, f"unsafe path in archive: {member.filename!r}")])
            if _ignored(rel):
                continue
            files[str(rel)] = archive.read(member)
    return FileSet(name, files)
