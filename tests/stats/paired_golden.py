"""The paired comparison's every rendering on one seeded store, as hashes: the byte-identity check's golden."""

from __future__ import annotations

import hashlib
import json

from execugraph.figures.report_figures import comparison_figure
from execugraph.stats import build_report, build_report_from_records
from execugraph.stats.family import Family
from execugraph.stats.report_rows import deltas_against, family_rows, pairs_table
from execugraph.stats.table_format import render
from execugraph.stats.tables import category_paired_table, paired_table
from execugraph.store import Store
from tests.stats.test_stats_cli import N_BOOT, seed_runs


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def renderings(store: Store) -> dict[str, str]:
    """name -> sha256 of one output (JSON as `stats --json` prints it, tables, rows, the forest plot's JSON)."""
    ids, records, meta = seed_runs(store)
    out: dict[str, str] = {}
    families = {"all": Family(), "baseline": Family(baseline=ids[0])}
    for key, family in families.items():
        report = build_report(store, ids, family=family, n_boot=N_BOOT)
        out[f"{key}.json"] = _sha(json.dumps(report.to_json_dict(), indent=2))
        records_report = build_report_from_records(records, ids, runs_meta=meta, family=family, n_boot=N_BOOT)
        out[f"{key}.records.json"] = _sha(json.dumps(records_report.to_json_dict(), indent=2))
        for table in (paired_table(report), category_paired_table(report)):
            for fmt in ("latex", "csv", "markdown"):
                out[f"{key}.{table.key}.{fmt}"] = _sha(render(table, fmt))
            out[f"{key}.{table.key}.display"] = _sha(json.dumps(table.display_rows()))
        out[f"{key}.pairs_table"] = _sha(json.dumps(pairs_table(report)))
        out[f"{key}.family_rows"] = _sha(json.dumps(family_rows(report)))
        out[f"{key}.deltas"] = _sha(json.dumps(deltas_against(report, "multi-full")))
        figure = comparison_figure(report)
        out[f"{key}.forest"] = _sha(figure.to_json() if figure is not None else "")
    return out
