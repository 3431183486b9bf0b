"""Export (issue 41): the run config and the logs as downloads of their own beside the zip, and a reproduction's
comparison count said plainly."""

from __future__ import annotations

import io
import json
import zipfile

from execugraph.publication import bundle_files, layout
from tests.ui.conftest import no_exception
from ui.export_parts import bundle_parts
from ui.keys import Export
from ui.reproduce_job import Reproduced
from ui.reproduce_parts import comparisons_line


def test_the_config_and_the_logs_download_beside_the_zip(app, seeded_db, db_store):
    at = app("export", runs=str(seeded_db.batch))
    no_exception(at)
    at.button(key=Export.PREPARE).click().run()
    no_exception(at)
    labels = {b.proto.label for b in at.get("download_button")}
    assert "Run config (config.json)" in labels, labels
    assert any(label.startswith("Logs (logs.zip, ") for label in labels), labels
    (_, config, logs) = at.session_state[Export.PARTS]
    assert config[0] == "config.json" and json.loads(config[1]) == db_store.get_run(seeded_db.batch).config
    with zipfile.ZipFile(io.BytesIO(logs[1])) as archive:
        names = set(archive.namelist())
    assert {layout.TRIALS, layout.STEPS, layout.LLM_CALLS, layout.RUN_META} <= names
    assert layout.CONFIG not in names and layout.PROBLEMS not in names


def test_several_runs_give_a_zip_of_their_configs(seeded_db, db_store):
    files = bundle_files(db_store, [seeded_db.batch, seeded_db.single])
    (name, data, mime), _ = bundle_parts(files)
    assert name == "configs.zip" and mime == "application/zip"
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names = set(archive.namelist())
    assert layout.CONFIG in names and any(n.startswith(f"{layout.CONFIGS_DIR}/run-") for n in names)


def _done(sentences: list[tuple[str, list[str]]]) -> Reproduced:
    return Reproduced(name="s", archive=b"", html="", markdown="", sentences=sentences, warnings=[],
                      missing_figures=None, trials=4, runs=1)


def test_a_reproduction_says_how_many_comparisons_it_made_and_what_none_means():
    none = comparisons_line(_done([("all runs", [])]))
    assert none.startswith("**0 comparisons** in 1 family: nothing was compared") and "two arms" in none
    some = comparisons_line(_done([("a", ["x", "y"]), ("b", ["z"])]))
    assert some.startswith("**3 comparisons** in 2 families")
