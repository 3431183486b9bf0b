"""The Reproduce tab's "Also under stronger (amplified) tests" checkbox runs `reproduce --amplify`: the finished
report shows each comparison under the original and the amplified tests. Real app (AppTest), real sandbox."""

from __future__ import annotations

import zipfile
from pathlib import Path

from execugraph.configuration.settings import load_settings
from tests.reproduce.test_reproduce_amplify import _write_study
from tests.ui.conftest import no_exception
from ui import reproduce_job
from ui.keys import Reproduce


def test_the_amplify_checkbox_adds_the_stronger_tests_section(app, tmp_path: Path) -> None:
    folder = _write_study(tmp_path)
    archive = tmp_path / "study.zip"
    with zipfile.ZipFile(archive, "w") as z:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                z.write(path, f"{folder.name}/{path.relative_to(folder).as_posix()}")
    at = app("export")
    at.file_uploader(key=Reproduce.RESULTS).set_value([(archive.name, archive.read_bytes(), "application/zip")]).run()
    at.checkbox(key=Reproduce.FIGURES).uncheck().run()
    at.checkbox(key=Reproduce.AMPLIFY).check().run()
    at.button(key=Reproduce.RUN).click().run()
    no_exception(at)
    job = reproduce_job.current(load_settings().db_url)
    assert job is not None and job.request.amplify
    assert job.wait(300.0), "the reproduction did not end"
    at.run()
    no_exception(at)
    assert job.state == "done", (job.issues, job.error)
    assert job.result is not None
    assert "Conclusions under stronger tests" in job.result.markdown
    assert "Programs the stronger tests fail" in job.result.markdown
