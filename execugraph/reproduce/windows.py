"""A family's comparisons on all problems and on the problems released in a window (`reproduce --released-after`).

The published verdicts (the reference set) of the family's runs, with the release dates the
import kept, go through `verdicts.windows`; runs are named by the study, never by database id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from execugraph.domain.json_types import JsonObject
from execugraph.stats.from_records import build_report_from_records
from execugraph.store.release_dates import release_dates
from execugraph.verdicts.verdict_sets import PUBLISHED
from execugraph.verdicts.windows import Window, window_lines, windowed_comparisons

if TYPE_CHECKING:
    from execugraph.reproduce.families import StudyFamily
    from execugraph.store import Store
    from execugraph.verdicts.verdict_sets import RunVerdicts


def family_window(store: Store, family: StudyFamily, verdicts: Mapping[int, RunVerdicts],
                  meta: Mapping[str, Mapping[str, object]], window: Window, cutoffs: Mapping[str, str],
                  n_boot: int, seed: int) -> JsonObject:
    """The family's `contamination_window` section of reproduce.json (with its text lines under `lines`)."""
    ids = [r.name for r in family.runs]
    records = [{**rec, "run_id": r.name} for r in family.runs for rec in verdicts[r.id].records[PUBLISHED]]
    full = build_report_from_records(records, ids, runs_meta=meta, family=family.stats_family(), n_boot=n_boot,
                                     seed=seed)
    section = windowed_comparisons(full, records, release_dates(store, [r.id for r in family.runs]), ids,
                                   window=window, cutoffs=cutoffs, runs_meta=meta, family=family.stats_family(),
                                   names={r.name: r.name for r in family.runs})
    return {**section.to_json_dict(), "lines": window_lines(section)}

