"""The Statistics page shows each pair's explanation of its limits (smallest attainable p, CI vs p) beside the
paired table, exactly as the report words it."""

from __future__ import annotations

from execugraph.safety.inert_text import md_text
from execugraph.stats import build_report
from tests.ui.conftest import no_exception, texts


def test_statistics_shows_each_pairs_explanation(app, seeded_db, db_store):
    at = app("statistics", runs=str(seeded_db.batch))
    no_exception(at)
    report = build_report(db_store, [str(seeded_db.batch)])
    info = " ".join(texts(at, "info"))
    explained = [p for p in report.pairs if p.explanation]
    for pair in explained:
        assert md_text(pair.explanation) in info
    assert ("What these comparisons can and cannot say" in info) == bool(explained)
    method = " ".join(texts(at, "markdown"))
    assert "smallest p each test could give" in method
