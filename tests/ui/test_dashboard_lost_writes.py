"""The dashboard's own code paths (the sidebar's health check, every page opening the store) keep its writes.

Every page is run through AppTest in this process, the way the server runs it, with an audit hook
recording any Python-level open of the database or its -wal/-shm; then an idle worker and a
`status` (other processes) open and close the database, the dashboard writes again (a rename on
the Runs page) and another process reads what is on disk.
"""

from __future__ import annotations

import subprocess
import sys

from tests.store.test_store_lost_writes import cli
from tests.support import db_files
from tests.ui.conftest import PAGES, no_exception
from ui.keys import Runs


def test_every_page_keeps_sqlites_locks_and_a_rename_after_other_processes_closed_is_on_disk(
    app, seeded_db, tmp_path
) -> None:
    db = tmp_path / "runs.db"
    with db_files.python_opens(db) as opened:
        for page in PAGES:
            no_exception(app(page))
        at = app("runs", state={Runs.DETAIL: seeded_db.single})
    assert opened == [], f"the dashboard opened the database behind SQLite's back: {opened}"

    cli(db, "worker", "--idle-exit-s", "0.5")  # exits idle: closes what it believes is the last connection
    cli(db, "status")

    at.text_input(key=Runs.RENAME).input("renamed after the others closed")
    at.button(key=Runs.RENAME_SAVE).click().run()
    no_exception(at)
    code = (f"import sqlite3; c = sqlite3.connect({str(db)!r}); "
            f"print(c.execute('SELECT title FROM run WHERE id = {seeded_db.single}').fetchone()[0])")
    seen = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert seen.stdout.strip() == "renamed after the others closed", seen.stderr
