"""Exports leak nothing local by default: no host name, user name or private path anywhere in a bundle.

A real batch over a user suite kept in tmp_path runs through the real worker
and sandbox (scripted models); a second run carries local names in every kind
of field a real run can fill (an endpoint on this host, a GGUF under the home
folder, error messages, stderr with paths into the Python installation, step
outputs, LLM transcripts). The whole bundle, every byte of every file, is then
searched for this machine's host name, the user name and the paths.
"""

from __future__ import annotations

import getpass
import json
import re
import socket
import sys
import tempfile
from pathlib import Path

import pytest

from execugraph import cli
from execugraph.batch.control import enqueue_batch
from execugraph.batch.runner import Worker
from execugraph.batch.spec import BatchSpec
from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.grading.suite_files import suite_identity
from execugraph.publication import bundle_files, import_path
from execugraph.store import Store
from execugraph.workflow.trial import TrialDeps
from tests.publication.test_publication_roundtrip import models
from tests.support.trace_rows import add_step, finish_step

pytestmark = pytest.mark.integration

HOST = socket.gethostname()
USER = getpass.getuser()
SUITE_LINES = [
    {
        "id": f"double_{i}",
        "statement": f"Double x ({i}).",
        "entry_point": "double",
        "tests": [{"kind": "call", "expr": f"double({j})", "expected": 2 * j, "visible": j == 0} for j in range(3)],
    }
    for i in range(2)
]


@pytest.fixture(scope="module")
def pool():
    from sandbox import SandboxPool

    with SandboxPool(workers=2) as shared:
        yield shared


@pytest.fixture(scope="module")
def local_db(tmp_path_factory, pool) -> tuple[Path, Path, list[int]]:
    """A database full of local names: a batch over a suite file in tmp, and a run with local names everywhere."""
    folder = tmp_path_factory.mktemp("private")
    suite = folder / "suites" / "my-suite.jsonl"
    suite.parent.mkdir()
    suite.write_text("".join(json.dumps(line) + "\n" for line in SUITE_LINES))
    db = folder / "runs.db"
    spec = BatchSpec(
        benchmark="user",
        benchmark_options={"path": str(suite)},
        conditions=["single-oneshot", "multi-full"],
        default_model="ollama:scripted",
        overrides={"cache": False},
        title="local batch",
    )
    home_model = f"llamacpp:{Path.home() / 'models' / 'coder.gguf'}"
    with Store.open(str(db)) as store:
        batch = enqueue_batch(store, spec)
        Worker(store, deps_factory=lambda: TrialDeps(pool=pool, chat_models=models())).run_forever(
            poll_s=0.1, exit_when_idle=True
        )
        assert store.get_run(batch).status == "done"
        single = store.create_run(
            "single",
            "by hand",
            {"conditions": {"single-oneshot": {"default_model": home_model}}, "ollama_host": f"http://{HOST}:11434"},
            models={"generator": home_model},
            status="done",
        )
        store.update_run(single, error=f"cannot read {suite}: see {folder}/log.txt")
        trial = store.create_trial(single, "double_0", "single-oneshot", 0, 0, benchmark="user", category="x")
        step = add_step(store, trial, "generator", output={"plan": f"read {tempfile.gettempdir()}/scratch.txt"})
        store.add_llm_call(
            trial,
            step,
            role="generator",
            provider="llamacpp",
            model=str(Path.home() / "models" / "coder.gguf"),
            messages=[{"role": "user", "content": f'stderr was: File "{sys.prefix}/lib/x.py", line 1 in {folder}'}],
            response=f"connect to {HOST}:11434 as {USER}@{HOST}",
        )
        store.add_execution(
            trial,
            step,
            purpose="grading",
            code="def double(x):\n    return 2 * x\n",
            verdict="runtime_error",
            stderr=f'Traceback:\n  File "{PROJECT_ROOT}/sandbox/child.py", line 9\n  File "{Path.home()}/x.py"',
            results=[{"name": "t", "passed": False, "stderr": f"{folder}/out.txt missing", "got": None}],
        )
        finish_step(store, step)
        store.finish_trial(trial, passed=False, error_class="runtime_error", message=f"{suite} vanished on {HOST}")
    return db, suite, [batch, single]


def _leaks(files: dict[str, bytes], folder: Path) -> list[str]:
    """Every local name found anywhere in the bundle's bytes.

    Paths are searched as they are; the host and user names wherever a name
    can stand (URL, user@host, host:port, a JSON value, a path segment, and
    the bare word in the message this test put it in), so a host called like
    an ordinary word ('build', 'test') cannot make the search fail by itself.
    """
    text = "\n".join(data.decode("utf-8") for data in files.values())
    found = []
    for needle in {str(folder), str(folder.resolve()), tempfile.gettempdir() + "/", str(PROJECT_ROOT), sys.prefix}:
        if needle in text:
            found.append(needle)
    if str(Path.home()) not in ("/", "") and re.search(re.escape(str(Path.home())) + r"(?![\w.-])", text):
        found.append(str(Path.home()))
    h, u = re.escape(HOST), re.escape(USER)
    host_forms = [rf"://{h}\b", rf"@{h}\b", rf"\b{h}:\d", rf'"{h}"', rf"vanished on {h}\b"]
    user_forms = [rf"/{u}(/|\b)", rf"pytest-of-{u}\b", rf"\b{u}@", rf'"{u}"']
    found += [f"host {HOST} as {form}" for form in host_forms if re.search(form, text, re.IGNORECASE)]
    found += [f"user {USER} as {form}" for form in user_forms if re.search(form, text)]
    return found


def test_a_default_bundle_names_no_host_user_or_local_path(local_db, tmp_path: Path) -> None:
    db, suite, run_ids = local_db
    with Store.open(str(db)) as store:
        files = bundle_files(store, run_ids)
    assert _leaks(files, db.parent) == []
    runs = [json.loads(line) for line in files["runs.jsonl"].splitlines()]
    assert [r["host"] for r in runs] == ["", ""]
    assert all(r["host"] == "" for r in json.loads(files["run_meta.json"])["runs"])
    batch_config = runs[0]["config"]
    assert batch_config["batch"]["benchmark_options"] == {"path": "my-suite.jsonl"}
    assert batch_config["suite"] == {"file": "my-suite.jsonl", "sha256": suite_identity(suite)["sha256"]}
    assert json.loads(files["config.json"])["suite"] == batch_config["suite"]
    assert runs[1]["config"]["ollama_host"] == "http://<host>:11434"
    assert runs[1]["models"] == {"generator": "llamacpp:coder.gguf"}
    trials = [json.loads(line) for line in files["trials.jsonl"].splitlines()]
    assert trials[-1]["message"] == "my-suite.jsonl vanished on <host>"
    assert all(t["final_code"] is None or "def double" in t["final_code"] for t in trials)  # code travels as is


def test_include_host_keeps_everything_and_both_kinds_import(local_db, tmp_path: Path) -> None:
    db, suite, run_ids = local_db
    with Store.open(str(db)) as store:
        full = bundle_files(store, run_ids, include_host=True)
        private = bundle_files(store, run_ids)
    runs = [json.loads(line) for line in full["runs.jsonl"].splitlines()]
    assert runs[0]["host"] == HOST and runs[0]["config"]["batch"]["benchmark_options"]["path"] == str(suite)
    assert runs[0]["config"]["suite"]["file"] == "my-suite.jsonl"
    assert str(db.parent) in full["trials.jsonl"].decode() + full["runs.jsonl"].decode()
    for name, files in (("full", full), ("private", private)):
        bundle = tmp_path / name
        for file, data in files.items():
            (bundle / file).parent.mkdir(parents=True, exist_ok=True)
            (bundle / file).write_bytes(data)
        with Store.open(str(tmp_path / f"{name}.db")) as target:
            result = import_path(target, bundle)
            assert [r.trials for r in result.runs] == [4, 1]
            again = bundle_files(target, [r.id for r in result.runs], include_host=name == "full")
            assert again == files, "exporting an import again gives the same bytes"


def test_the_cli_exports_privately_unless_asked_and_a_rerun_finds_the_suite(
    local_db, tmp_path: Path, monkeypatch, capsys
) -> None:
    db, suite, run_ids = local_db
    out = tmp_path / "bundle.zip"
    assert cli.main(["--db", str(db), "export", "--run", str(run_ids[0]), "--out", str(out)]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "zip"
    with tempfile.TemporaryDirectory() as unpacked:
        import zipfile

        with zipfile.ZipFile(out) as archive:
            archive.extractall(unpacked)
        files = {p.name: p.read_bytes() for p in Path(unpacked).iterdir()}
        assert _leaks(files, db.parent) == []
        config = Path(unpacked) / "config.json"
        monkeypatch.setattr("execugraph.batch.worker_process.ensure_worker", lambda url: None)
        rerun = str(tmp_path / "rerun.db")
        assert cli.main(["--db", rerun, "batch", "--config", str(config)]) == 2  # the suite is not beside it
        assert "my-suite.jsonl" in capsys.readouterr().err
        (Path(unpacked) / "my-suite.jsonl").write_bytes(suite.read_bytes())
        assert cli.main(["--db", rerun, "batch", "--config", str(config)]) == 0
        assert json.loads(capsys.readouterr().out)["trials"] == 4
        (Path(unpacked) / "my-suite.jsonl").write_text(suite.read_text() + "\n")
        assert cli.main(["--db", rerun, "batch", "--config", str(config)]) == 2
        assert "SHA-256" in capsys.readouterr().err
    full = tmp_path / "full.zip"
    assert cli.main(["--db", str(db), "export", "--run", str(run_ids[0]), "--out", str(full), "--include-host"]) == 0
    import zipfile

    with zipfile.ZipFile(full) as archive:
        assert json.loads(archive.read("runs.jsonl").splitlines()[0])["host"] == HOST
