"""Read an import input (a folder, or a zip of one) as files streamed on demand, within size caps.

Both importers work on this one shape, so a bundle or a published results tree
imports the same way from disk, from a zip on disk, or from the dashboard's
upload (bytes). Nothing is read whole into memory unless asked for: JSONL
files are read line by line (`FileView.jsonl`), identities are SHA-256s
computed while streaming (`FileView.digest`), and only small JSON documents
are read whole (`FileView[name]`, at most MAX_DOCUMENT_BYTES).

Limits, so a hostile or broken input cannot exhaust the machine:
- the total unpacked size (default 1 GiB; `--max-size`, EXECUGRAPH_IMPORT_MAX_BYTES)
  is checked against the sizes a zip declares before anything is read, and
  again on the bytes actually produced while reading, so a zip bomb is refused
  as soon as it passes the limit, whatever its headers say;
- one JSONL line and one document read whole: MAX_LINE_BYTES / MAX_DOCUMENT_BYTES;
- at most MAX_MEMBERS files.
Zip members with absolute paths, `..` components, symbolic links, duplicate
names or encryption are refused before reading; in folders, symbolic links and
special files are skipped (never followed). Archives inside the input are never
opened. A member whose data is damaged (bad CRC, broken compression, cut short)
is refused naming the member. Every refusal is a BundleFormatError, raised
before the importers write anything.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import stat
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import IO, Any

from execugraph.configuration.settings import DEFAULT_IMPORT_MAX_BYTES, format_size, parse_size
from execugraph.domain.json_types import JsonObject
from execugraph.inputs.readers import FileRefused, read_capped_stream, read_json_lines
from execugraph.publication.formats import BundleFormatError, Issue, IssueCollector

__all__ = ["FileSet", "FileView", "InputTooLargeError", "format_size", "parse_size", "read_input", "read_zip_bytes"]

DEFAULT_MAX_BYTES = DEFAULT_IMPORT_MAX_BYTES  # unpacked bytes accepted from one input (settings can change it)
MAX_LINE_BYTES = 64 * 1024**2  # one JSONL line
MAX_DOCUMENT_BYTES = 64 * 1024**2  # one JSON document read whole (bundle.json, run_meta.json, ...)
MAX_MEMBERS = 100_000
_CHUNK = 1024**2
_IGNORED_PARTS = ("__MACOSX",)
_IGNORED_NAMES = (".DS_Store", "Thumbs.db")


class InputTooLargeError(BundleFormatError):
    """The input unpacks (or would unpack) to more than the import size limit; nothing was written."""


def _refuse(label: str, message: str, error: type[BundleFormatError] = BundleFormatError) -> BundleFormatError:
    return error([Issue(label, None, None, message)])


def _too_large(label: str, limit: int, what: str) -> InputTooLargeError:
    return InputTooLargeError(
        [
            Issue(
                label,
                None,
                None,
                f"{what}, over the import limit of {format_size(limit)} (if you trust this input, raise the "
                "limit with --max-size or EXECUGRAPH_IMPORT_MAX_BYTES)",
            )
        ]
    )


class _Member:
    """One file of the input: its path, the size it claims, how to open it, and what reading it found."""

    def __init__(self, path: str, size: int, opener: Callable[[], IO[bytes]]) -> None:
        self.path = path
        self.size = size
        self.opener = opener
        self.read_so_far = 0  # high-water mark of bytes produced, what the budget was charged
        self.sha256: str | None = None  # known once the member was read to its end


class _Budget:
    """Counts the unpacked bytes of one input against its limit, each member's bytes once."""

    def __init__(self, limit: int, label: str) -> None:
        self.limit = limit
        self.label = label
        self.total = 0

    def charge(self, member: _Member, position: int) -> None:
        if position <= member.read_so_far:
            return
        self.total += position - member.read_so_far
        member.read_so_far = position
        if self.total > self.limit:
            raise _too_large(self.label, self.limit, f"unpacks to more than {format_size(self.limit)}")


class _CountedReader(io.RawIOBase):
    """A member's bytes as they are unpacked: counted against the budget, hashed, damage named."""

    def __init__(self, member: _Member, budget: _Budget, label: str, describe: Callable[[BaseException], str]) -> None:
        self._member = member
        self._budget = budget
        self._label = label
        self._describe = describe
        self._position = 0
        self._hash = hashlib.sha256()
        try:
            self._inner = member.opener()
        except BundleFormatError:
            raise
        except Exception as exc:
            raise _refuse(label, describe(exc)) from None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            data = self._inner.read(len(buffer))
        except Exception as exc:  # zipfile.BadZipFile, zlib.error, EOFError, OSError
            raise _refuse(self._label, self._describe(exc)) from None
        n = len(data)
        buffer[:n] = data
        if n:
            self._position += n
            self._hash.update(data)
            self._budget.charge(self._member, self._position)
        else:
            self._member.sha256 = self._hash.hexdigest()
        return n

    def close(self) -> None:
        inner = getattr(self, "_inner", None)
        if inner is not None:
            inner.close()
        super().close()


def _zip_damage(member: str) -> Callable[[BaseException], str]:
    def describe(exc: BaseException) -> str:
        text = str(exc)
        if isinstance(exc, zipfile.BadZipFile) and "CRC" in text:
            return f"member {member} is corrupt (CRC mismatch)"
        if isinstance(exc, zipfile.BadZipFile):
            return f"member {member} is corrupt ({text})"
        if isinstance(exc, zlib.error):
            return f"member {member} is corrupt (damaged compressed data: {text})"
        if isinstance(exc, EOFError):
            return f"member {member} is corrupt (its data ends early)"
        if isinstance(exc, NotImplementedError):
            return f"member {member} uses a compression method this reader does not support ({text})"
        if isinstance(exc, RuntimeError) and "encrypted" in text:
            return f"member {member} is encrypted; unpack the archive and zip it again without a password"
        return f"member {member} cannot be read ({type(exc).__name__}: {text})"

    return describe


def _file_damage(path: str) -> Callable[[BaseException], str]:
    def describe(exc: BaseException) -> str:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return f"{path}: cannot be read ({reason})"

    return describe


class FileSet:
    """The files of one input by POSIX path relative to its root, read on demand within the input's limits.

    `name` names the input in run titles (a zip's stem, a folder's name);
    `label` names it in messages (`bundle.zip`). Close it (or use `with`) to
    release the archive.
    """

    def __init__(
        self,
        name: str,
        members: dict[str, _Member],
        *,
        label: str | None = None,
        limit: int = DEFAULT_MAX_BYTES,
        describe: Callable[[str], Callable[[BaseException], str]] = _file_damage,
        closer: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        self.label = label or name
        self._members = members
        self._budget = _Budget(limit, self.label)
        self._describe = describe
        self._closer = closer
        self._by_folder: dict[str, list[str]] | None = None

    @classmethod
    def from_bytes(cls, name: str, files: Mapping[str, bytes], *, limit: int = DEFAULT_MAX_BYTES) -> FileSet:
        """A FileSet over files already in memory (tests, generated inputs)."""
        members = {path: _Member(path, len(data), lambda data=data: io.BytesIO(data)) for path, data in files.items()}
        return cls(name, members, limit=limit)

    @property
    def files(self) -> Mapping[str, _Member]:
        """Every file of the input by path (the values are handles; read through `under`/`open`)."""
        return self._members

    @property
    def limit(self) -> int:
        """The unpacked-size limit this input is read under."""
        return self._budget.limit

    def names_under(self, prefix: str) -> list[str]:
        """The paths below `prefix` ('' or 'a/b/'), relative to it; an index built once, so N folders cost N, not N^2."""
        if self._by_folder is None:
            index: dict[str, list[str]] = {}
            for path in self._members:
                parts = path.split("/")
                for depth in range(len(parts)):
                    folder = "/".join(parts[:depth]) + "/" if depth else ""
                    index.setdefault(folder, []).append("/".join(parts[depth:]))
            self._by_folder = index
        return list(self._by_folder.get(prefix, ()))

    def under(self, folder: str) -> FileView:
        """The files inside `folder` ('' = the root), keyed relative to it."""
        return FileView(self, folder.rstrip("/") + "/" if folder else "")

    def open(self, path: str) -> io.BufferedReader:
        """A buffered binary stream of one file, counted against the input's limit."""
        member = self._members[path]
        raw = _CountedReader(member, self._budget, self.label, self._describe(path))
        return io.BufferedReader(raw, _CHUNK)

    def read_bytes(self, path: str, limit: int | None = None) -> bytes:
        """One whole file, refused when it holds more than `limit` bytes (default MAX_DOCUMENT_BYTES)."""
        limit = MAX_DOCUMENT_BYTES if limit is None else limit
        with self.open(path) as stream:
            try:
                data = read_capped_stream(stream, limit, path)
            except FileRefused:
                raise _refuse(
                    self.label,
                    f"{path} is larger than {format_size(limit)}, the most read whole (only .jsonl files are streamed)",
                ) from None
            stream.read(1)  # reach the end, where a zip member's CRC is checked
        return data

    def sha256(self, path: str) -> str:
        """SHA-256 of one file, streamed (and remembered)."""
        member = self._members[path]
        if member.sha256 is None:
            with self.open(path) as stream:
                while stream.read(_CHUNK):
                    pass
        assert member.sha256 is not None
        return member.sha256

    def lines(self, path: str) -> Iterator[tuple[int, bytes]]:
        """(line number, line without its newline) for every line, each at most MAX_LINE_BYTES."""
        with self.open(path) as stream:
            number = 0
            while True:
                line = stream.readline(MAX_LINE_BYTES + 1)
                if not line:
                    return
                number += 1
                if len(line) > MAX_LINE_BYTES and not line.endswith(b"\n"):
                    raise _refuse(
                        self.label,
                        f"{path}:{number}: line longer than {format_size(MAX_LINE_BYTES)}, the most one record may hold",
                    )
                if number == 1 and line.startswith(b"\xef\xbb\xbf"):
                    line = line[3:]
                yield number, line.rstrip(b"\r\n")

    def close(self) -> None:
        """Release the archive behind this input (a folder holds nothing open)."""
        if self._closer is not None:
            self._closer()
            self._closer = None

    def __enter__(self) -> FileSet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class FileView(Mapping[str, bytes]):
    """The files below one folder of a FileSet, keyed relative to it; `view[name]` reads a small file whole."""

    def __init__(self, fileset: FileSet, prefix: str) -> None:
        self.fileset = fileset
        self.prefix = prefix
        self._names = fileset.names_under(prefix)

    def __getitem__(self, name: str) -> bytes:
        if name not in self:
            raise KeyError(name)
        return self.fileset.read_bytes(self.prefix + name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (self.prefix + name) in self.fileset.files

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def jsonl(self, name: str, file: str, issues: IssueCollector) -> Iterator[tuple[int, JsonObject]]:
        """(line number, object) for every non-blank line of `name`, streamed; bad lines become issues on `file`."""
        return jsonl_objects(self.fileset, self.prefix + name, file, issues)

    def digest(self, names: tuple[str, ...] | list[str] | None = None) -> str:
        """`results.content_digest` of these files (default: all below this folder), streamed."""
        from execugraph.publication.results import digest_of_hashes

        chosen = [n for n in (names if names is not None else self._names) if n in self]
        return digest_of_hashes({name: self.fileset.sha256(self.prefix + name) for name in chosen})


def jsonl_objects(fileset: FileSet, path: str, file: str, issues: IssueCollector,
                  *, read_as: str | None = None) -> Iterator[tuple[int, JsonObject]]:
    """(line number, object) for every non-blank line of `path`, streamed; a line that is not UTF-8, not JSON or not
    an object becomes an issue on `file` (its message prefixed `read as <read_as>: ` when a format was tried)."""
    return read_json_lines(fileset.lines(path), file, issues, read_as=read_as)


def _ignored(path: PurePosixPath) -> bool:
    return any(part in _IGNORED_PARTS for part in path.parts) or path.name in _IGNORED_NAMES


def read_input(path: str | Path, *, max_bytes: int | None = None) -> FileSet:
    """A folder or a .zip file on disk (use as a context manager to close the archive)."""
    source = Path(path)
    limit = max_bytes or DEFAULT_MAX_BYTES
    if not source.exists():
        raise FileNotFoundError(f"{source}: no such file or folder")
    if source.is_dir():
        return _read_folder(source, limit)
    if not stat.S_ISREG(source.stat().st_mode):  # a FIFO would wait forever, /dev/zero never ends
        raise _refuse(str(source), "not a regular file (a pipe, a device or a socket), so it is not read")
    if zipfile.is_zipfile(source):
        try:
            archive = zipfile.ZipFile(source)
        except (zipfile.BadZipFile, OSError) as exc:
            raise _refuse(source.name, f"not a readable zip file ({exc})") from None
        return _zip_fileset(archive, source.stem, source.name, limit)
    if source.suffix.lower() in SINGLE_FILE_SUFFIXES:
        return _read_file(source, limit)
    raise _refuse(str(source), "not a folder or a zip file (nor a harness results file: .jsonl or .json)")


SINGLE_FILE_SUFFIXES = (".jsonl", ".json")  # a harness's results file imported on its own


def _read_file(source: Path, limit: int) -> FileSet:
    """One results file as an input of one member named after it (the input's name is its stem)."""
    size = source.stat().st_size
    if size > limit:
        raise _too_large(source.name, limit, f"holds {format_size(size)}")
    member = _Member(source.name, size, lambda: source.open("rb"))
    return FileSet(source.stem, {source.name: member}, label=source.name, limit=limit)


def read_zip_bytes(
    data: bytes, name: str = "upload", *, label: str | None = None, max_bytes: int | None = None
) -> FileSet:
    """A zip archive held in memory (e.g. a dashboard upload); `name` is its stem."""
    shown = label or f"{name}.zip"
    if shown.lower().endswith(SINGLE_FILE_SUFFIXES) and not zipfile.is_zipfile(io.BytesIO(data)):
        limit = max_bytes or DEFAULT_MAX_BYTES
        if len(data) > limit:
            raise _too_large(shown, limit, f"holds {format_size(len(data))}")
        single = FileSet.from_bytes(name, {shown: data}, limit=limit)
        single.label = shown
        return single
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise _refuse(shown, f"not a readable zip file ({exc})") from None
    return _zip_fileset(archive, name, shown, max_bytes or DEFAULT_MAX_BYTES)


def _zip_fileset(archive: zipfile.ZipFile, name: str, label: str, limit: int) -> FileSet:
    try:
        members = _zip_members(archive, label, limit)
    except BaseException:
        archive.close()
        raise
    return FileSet(name, members, label=label, limit=limit, describe=_zip_damage, closer=archive.close)


def _zip_members(archive: zipfile.ZipFile, label: str, limit: int) -> dict[str, _Member]:
    infos = [info for info in archive.infolist() if not info.is_dir()]
    if len(infos) > MAX_MEMBERS:
        raise _refuse(label, f"holds {len(infos)} files; an import takes at most {MAX_MEMBERS}")
    members: dict[str, _Member] = {}
    declared = 0
    for info in infos:
        raw_name = info.filename
        rel = PurePosixPath(raw_name)
        if rel.is_absolute() or ".." in rel.parts or "\\" in raw_name or re.match(r"^[A-Za-z]:", raw_name):
            raise _refuse(label, f"unsafe path in archive: {raw_name!r}")
        if stat.S_ISLNK(info.external_attr >> 16):
            raise _refuse(label, f"member {raw_name} is a symbolic link; links are not followed, zip the file itself")
        if info.flag_bits & 0x1:
            raise _refuse(label, f"member {raw_name} is encrypted; zip it again without a password")
        if _ignored(rel):
            continue
        key = str(rel)
        if key in members:
            raise _refuse(label, f"member {key} appears twice in the archive")
        declared += info.file_size
        members[key] = _Member(key, info.file_size, lambda info=info: archive.open(info))
    if declared > limit:
        raise _too_large(label, limit, f"unpacks to {format_size(declared)}")
    return members


def _read_folder(root: Path, limit: int) -> FileSet:
    members: dict[str, _Member] = {}
    declared = 0
    for folder, dirs, names in os.walk(root, followlinks=False):
        dirs.sort()
        for file_name in sorted(names):
            item = Path(folder) / file_name
            try:
                info = item.lstat()
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):  # symbolic links, FIFOs, devices: never read
                continue
            rel = PurePosixPath(item.relative_to(root).as_posix())
            if _ignored(rel):
                continue
            if len(members) >= MAX_MEMBERS:
                raise _refuse(root.name, f"holds more than {MAX_MEMBERS} files; an import takes at most that many")
            declared += info.st_size
            if declared > limit:
                raise _too_large(root.name, limit, f"holds more than {format_size(limit)} of files")
            members[str(rel)] = _Member(str(rel), info.st_size, lambda item=item: item.open("rb"))
    return FileSet(root.resolve().name, members, label=root.resolve().name, limit=limit)
