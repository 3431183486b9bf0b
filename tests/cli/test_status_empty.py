"""`status` on a database without batch runs says so, rather than printing nothing; `--json` stays a JSON list."""

from __future__ import annotations

import json

from execugraph.cli import main


def test_status_without_batch_runs_says_so(tmp_path, capsys) -> None:
    db = f"sqlite:///{tmp_path / 'empty.db'}"
    assert main(["--db", db, "status"]) == 0
    shown = capsys.readouterr().out
    assert "no batch runs in this database yet" in shown and "`batch` queues one" in shown
    assert main(["--db", db, "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
