"""The typed records publication hands between modules, and the JSON they become at the edges."""

from __future__ import annotations

import json

from execugraph.grading.suite_files import suite_identity
from execugraph.publication.export import ExportedRun, ExportWritten
from execugraph.publication.meta import RunMetaEntry, build_run_meta, run_entry
from execugraph.publication.published_problems import BenchmarkFile


def test_what_an_export_wrote_prints_with_the_keys_it_always_had() -> None:
    written = ExportWritten("out.zip", "zip", 11, (ExportedRun(7, 1, 3), ExportedRun(9, 2, 0)))
    assert json.dumps(written.as_dict()) == (
        '{"out": "out.zip", "format": "zip", "files": 11, "runs": [{"run_id": 7, "bundle_id": 1, "trials": 3}, '
        '{"run_id": 9, "bundle_id": 2, "trials": 0}]}'
    )


def test_a_run_meta_entry_keeps_every_field_of_run_meta_json() -> None:
    row = {"title": "t", "kind": "batch", "host": "", "versions": {"python": "3.11", "commit": "abc",
                                                                  "digests": {"m": "sha"}}, "models": {"generator": "m"}}
    entry = run_entry(2, row, ["p2", "p1", "p2"])
    assert isinstance(entry, RunMetaEntry)
    assert entry.as_dict() == {
        "id": 2, "title": "t", "kind": "batch", "host": "", "python": "3.11", "versions": row["versions"],
        "models": {"generator": "m"}, "model_digests": {"m": "sha"}, "sandbox_policy_versions": ["p1", "p2"],
        "project_commit": "abc",
    }
    assert build_run_meta([entry])["runs"] == [entry.as_dict()]


def test_a_benchmark_file_and_a_suite_are_named_in_configs_as_plain_json(tmp_path) -> None:
    assert BenchmarkFile("b/x.jsonl", "published:x@1", []).config() == {"benchmark": "published:x@1",
                                                                        "file": "b/x.jsonl", "problems": 0}
    suite = tmp_path / "suite.json"
    suite.write_bytes(b"{}")
    assert suite_identity(suite) == {"file": "suite.json",
                                     "sha256": "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"}
    assert suite_identity(tmp_path / "gone.json") == {"file": "gone.json", "sha256": None}
