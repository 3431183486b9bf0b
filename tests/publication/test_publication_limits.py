"""Imports cannot exhaust the machine: real zip bombs, damaged members, hostile archives, growing folders.

The bombs are built here (tests/support/zipbomb.py): 1.5 GiB of records in a
few megabytes, once with honest headers and once with headers claiming 64 KiB.
The import runs as `python -m execugraph import`, a child of a small Python
parent that reports the child's peak RSS, so the memory claim is measured on
the real command, not assumed.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import zipfile
from contextlib import nullcontext
from pathlib import Path

import pytest

from execugraph.cli import main
from execugraph.configuration.settings import PROJECT_ROOT, load_settings, parse_size
from execugraph.publication import BundleFormatError, bundle_files, export_bundle, import_path
from execugraph.publication import source as source_module
from execugraph.publication.formats import IssueCollector
from execugraph.publication.importing import import_fileset
from execugraph.publication.results import content_digest
from execugraph.publication.source import FileSet, InputTooLargeError, read_input, read_zip_bytes
from execugraph.store import Store
from tests.publication.test_publication_bundle import seed_store
from tests.support.zipbomb import MEMBER, RECORD, write_bomb, write_lying_bomb

pytestmark = pytest.mark.integration

BOMB_BYTES = int(1.5 * 1024**3)
RSS_CEILING_KB = 400 * 1024  # "well below" 1.5 GiB: the import must never hold the bomb

_MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)
sys.exit(done.returncode)
"""


def import_cli(path: Path, db: Path, *extra: str) -> tuple[subprocess.CompletedProcess, int]:
    """Run `python -m execugraph import PATH` and return it with its peak RSS in KiB."""
    argv = [sys.executable, "-c", _MEASURE, sys.executable, "-m", "execugraph", "--db", str(db), "import", str(path)]
    done = subprocess.run([*argv, *extra], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=600)
    *lines, rss = done.stderr.rstrip("\n").split("\n")
    return subprocess.CompletedProcess(done.args, done.returncode, done.stdout, "\n".join(lines)), int(rss)


def runs_in(db: Path) -> list:
    with Store.open(str(db)) as store:
        return store.list_runs()


@pytest.fixture(scope="module")
def bombs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bombs")
    honest, lying = folder / "bomb.zip", folder / "liar.zip"
    assert write_bomb(honest, BOMB_BYTES) > 1.4 * 1024**3
    assert write_lying_bomb(lying, BOMB_BYTES) > 1.4 * 1024**3
    assert honest.stat().st_size < 16 * 1024**2 and lying.stat().st_size < 16 * 1024**2
    return {"honest": honest, "lying": lying}


def test_a_zip_bomb_is_refused_with_a_clear_message_and_bounded_memory(bombs, tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    done, rss_kb = import_cli(bombs["honest"], db)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == (
        "import: nothing imported: bomb.zip: unpacks to 1.5 GiB, over the import limit of 1 GiB "
        "(if you trust this input, raise the limit with --max-size or EXECUGRAPH_IMPORT_MAX_BYTES)"
    )
    assert rss_kb < RSS_CEILING_KB, f"peak RSS {rss_kb} KiB"
    assert runs_in(db) == []


def test_a_bomb_whose_headers_lie_is_stopped_where_they_say_it_ends(bombs, tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    done, rss_kb = import_cli(bombs["lying"], db)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"import: nothing imported: liar.zip: member {MEMBER} is corrupt (CRC mismatch)"
    assert rss_kb < RSS_CEILING_KB, f"peak RSS {rss_kb} KiB"
    assert runs_in(db) == []


# -- damaged members of a real bundle ----------------------------------------------------------------


@pytest.fixture(scope="module")
def bundle_files_of_seed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    with Store.open(str(tmp_path_factory.mktemp("seed") / "seed.db")) as store:
        ids = seed_store(store)
        return bundle_files(store, list(ids.values()))


def _zip(files: dict[str, bytes], path: Path, stored: tuple[str, ...] = ()) -> Path:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data, compress_type=zipfile.ZIP_STORED if name in stored else None)
    return path


def _data_offset(path: Path, member: str) -> int:
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(member)
    with path.open("rb") as fh:
        fh.seek(info.header_offset + 26)
        name_len, extra_len = int.from_bytes(fh.read(2), "little"), int.from_bytes(fh.read(2), "little")
    return info.header_offset + 30 + name_len + extra_len


def _flip(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x20
    path.write_bytes(bytes(data))


def test_a_member_with_a_bad_crc_is_one_line_exit_2_and_nothing_imported(bundle_files_of_seed, tmp_path: Path) -> None:
    bundle = _zip(bundle_files_of_seed, tmp_path / "bundle.zip", stored=("trials.jsonl",))
    _flip(bundle, _data_offset(bundle, "trials.jsonl") + 40)  # inside a JSON string: still valid JSON
    db = tmp_path / "runs.db"
    with Store.open(str(db)) as store:
        store.create_run("single", "already here", {}, status="done")
    done, _ = import_cli(bundle, db)
    assert done.returncode == 2
    assert done.stderr == "import: nothing imported: bundle.zip: member trials.jsonl is corrupt (CRC mismatch)"
    assert [r.title for r in runs_in(db)] == ["already here"]


def test_damaged_compressed_data_is_named(bundle_files_of_seed, tmp_path: Path) -> None:
    bundle = _zip(bundle_files_of_seed, tmp_path / "bundle.zip")
    _flip(bundle, _data_offset(bundle, "steps.jsonl") + 5)
    with Store.open(str(tmp_path / "runs.db")) as store:
        with pytest.raises(BundleFormatError, match="bundle.zip: member steps.jsonl is corrupt") as caught:
            import_path(store, bundle)
        assert "\n" not in str(caught.value)
        assert store.list_runs() == []


def test_a_damaged_last_member_imports_nothing_on_either_backend(bundle_files_of_seed, db_url: str, tmp_path) -> None:
    bundle = _zip(bundle_files_of_seed, tmp_path / "bundle.zip", stored=("problems.jsonl",))
    _flip(bundle, _data_offset(bundle, "problems.jsonl") + 30)
    with Store.open(db_url) as store:
        with pytest.raises(BundleFormatError, match="member problems.jsonl is corrupt"):
            import_path(store, bundle)
        assert store.list_runs() == []
        fine = _zip(bundle_files_of_seed, tmp_path / "fine.zip")
        assert len(import_path(store, fine).runs) == 3  # the same bundle undamaged goes in whole


def test_the_limit_is_configurable_on_the_command_line_and_in_the_environment(
    bundle_files_of_seed, tmp_path: Path, monkeypatch, capsys
) -> None:
    bundle = _zip(bundle_files_of_seed, tmp_path / "bundle.zip")
    db = tmp_path / "runs.db"

    def cli(*extra: str) -> tuple[int, str, str]:  # the CLI in this process: `python -m execugraph` is run above
        code = main(["--db", str(db), "import", str(bundle), *extra])
        out, err = capsys.readouterr()
        return code, out, err

    code, _, err = cli("--max-size", "4KiB")
    assert code == 2 and "over the import limit of 4 KiB" in err
    code, _, err = cli("--max-size", "lots")
    assert code == 2 and "--max-size: not a size: 'lots'" in err
    code, out, err = cli("--max-size", "64MiB")
    assert code == 0, err
    assert len(json.loads(out)["runs"]) == 3
    monkeypatch.setenv("EXECUGRAPH_IMPORT_MAX_BYTES", "2k")
    assert load_settings().import_max_bytes == 2048
    with Store.open(str(tmp_path / "other.db")) as store, pytest.raises(InputTooLargeError, match="2 KiB"):
        import_path(store, bundle)
    assert parse_size("1.5GiB") == BOMB_BYTES and parse_size("500MB") == 500_000_000


# -- hostile archives ---------------------------------------------------------------------------------


def _archive(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for info, data in entries:
            archive.writestr(info, data)
    return buffer.getvalue()


def test_hostile_members_are_refused_before_anything_is_read() -> None:
    link = zipfile.ZipInfo("run/trials.jsonl")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    cases = {
        "symbolic link": [(link, b"/etc/passwd")],
        "unsafe path": [("/abs/trials.jsonl", b"{}")],
        "appears twice": [("run/trials.jsonl", b"{}"), ("run/trials.jsonl", b"{}")],
    }
    for expected, entries in cases.items():
        with pytest.warns(UserWarning, match="Duplicate") if expected == "appears twice" else nullcontext():
            data = _archive(entries)
        with pytest.raises(BundleFormatError, match=expected):
            read_zip_bytes(data, "evil")
    encrypted = bytearray(_archive([("run/trials.jsonl", b"{}")]))
    for signature in (b"PK\x03\x04", b"PK\x01\x02"):  # set the 'encrypted' flag in both headers
        at = encrypted.index(signature) + (6 if signature == b"PK\x03\x04" else 8)
        encrypted[at] |= 0x1
    with pytest.raises(BundleFormatError, match="encrypted"):
        read_zip_bytes(bytes(encrypted), "locked")


def test_one_line_and_one_document_have_their_own_caps(monkeypatch) -> None:
    monkeypatch.setattr(source_module, "MAX_LINE_BYTES", 1024)
    monkeypatch.setattr(source_module, "MAX_DOCUMENT_BYTES", 1024)
    fileset = FileSet.from_bytes("big", {"run/trials.jsonl": RECORD + b'{"x": "' + b"y" * 5000 + b'"}\n'})
    issues = IssueCollector()
    rows = fileset.under("run").jsonl("trials.jsonl", "run/trials.jsonl", issues)
    assert next(rows)[0] == 1
    with pytest.raises(BundleFormatError, match=r"run/trials.jsonl:2: line longer than 1 KiB"):
        next(rows)
    assert not issues
    big = FileSet.from_bytes("big", {"bundle.json": b"{" + b" " * 2000 + b"}"})
    with pytest.raises(BundleFormatError, match="bundle.json is larger than 1 KiB"):
        big.under("")["bundle.json"]


# -- folders --------------------------------------------------------------------------------------------


def _tree(root: Path, records: int = 3) -> Path:
    run = root / "run-1"
    run.mkdir(parents=True)
    lines = [
        json.dumps({"problem_id": f"p{i}", "condition": "single-oneshot", "seed": 0, "trial": 0, "passed": i % 2 == 0})
        for i in range(records)
    ]
    (run / "trials.jsonl").write_text("\n".join(lines) + "\n")
    return root


def test_a_folder_growing_while_it_is_read_is_stopped_at_the_limit(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree")
    fileset = read_input(root, max_bytes=64 * 1024)  # sizes checked now: well under the limit
    with (root / "run-1" / "trials.jsonl").open("ab") as fh:  # ... then a writer keeps appending
        for _ in range(2000):
            fh.write(RECORD)
    with Store.open(str(tmp_path / "runs.db")) as store:
        with pytest.raises(InputTooLargeError, match="tree: unpacks to more than 64 KiB"):
            import_fileset(store, fileset)
        assert store.list_runs() == []


def test_folders_have_a_total_cap_and_never_follow_links_or_special_files(tmp_path: Path) -> None:
    root = _tree(tmp_path / "tree")
    (root / "run-1" / "notes.txt").write_bytes(b"x" * 5000)
    with pytest.raises(InputTooLargeError, match="holds more than 4 KiB of files"):
        read_input(root, max_bytes=4096)
    os.symlink("/dev/zero", root / "run-1" / "run_meta.json")  # followed, it would never end
    os.symlink("/etc", root / "etc")
    os.mkfifo(root / "run-1" / "run_summary.json")  # opened, it would block forever
    with read_input(root) as fileset:
        assert sorted(fileset.files) == ["run-1/notes.txt", "run-1/trials.jsonl"]
    with Store.open(str(tmp_path / "runs.db")) as store:
        (run,) = import_path(store, root).runs
        assert run.trials == 3


def test_an_exported_bundle_still_imports_and_round_trips(bundle_files_of_seed, tmp_path: Path) -> None:
    """The streamed importer reads what the export writes, folder and zip, byte for byte."""
    for out in (tmp_path / "folder", tmp_path / "bundle.zip"):
        with Store.open(str(tmp_path / f"{out.name}.db")) as store:
            source = _zip(bundle_files_of_seed, tmp_path / f"in-{out.name}.zip")
            result = import_path(store, source)
            export_bundle(store, [r.id for r in result.runs], out)
            with read_input(out) as fileset:
                assert dict(fileset.under("")) == bundle_files_of_seed
                # the streamed identity is the one earlier versions stored, so their imports still de-duplicate
                assert fileset.under("").digest() == content_digest(bundle_files_of_seed)
