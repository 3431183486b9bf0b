"""How a reproduction names runs: by what the study itself says (folder names, titles), never by database ids.

The dashboard's own runs are `title #id` (`run_names.run_name`): right for a
database, wrong for a report that must come out the same on every database. So a
study's run is named by its title (a results tree's folder name, made unique by
its parents, or a bundle's run title); two runs that would share a name are told
apart by where they sit in the study (folder path, the bundle's own run number),
and only as a last resort by their position in it.

The statistics engine names arms with `run_name`, which appends `#id`; the
reports of a reproduction are computed with each run's study name as its id and
the `name #name` it gives back is turned into the study name (`portable`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from execugraph.domain.run_names import conditions_of, run_name


def unique_names(titles: Sequence[str], places: Sequence[str]) -> list[str]:
    """Each run's name: its title; `title (place)` where titles clash; `... [k]` (k-th in the study) if still."""
    names = [" ".join((t or "").split()) or (p or f"run {i + 1}") for i, (t, p) in enumerate(zip(titles, places,
                                                                                                   strict=True))]
    clashing = {n for n in names if names.count(n) > 1}
    names = [f"{n} ({p})" if n in clashing and p and p != n else n for n, p in zip(names, places, strict=True)]
    clashing = {n for n in names if names.count(n) > 1}
    return [f"{n} [{i + 1}]" if n in clashing else n for i, n in enumerate(names)]


def shown_name(key: str, meta: Mapping[str, Any]) -> str:
    """What the statistics engine calls a run whose id is `key` and whose metadata is `meta` (`title #key`)."""
    return run_name(key, meta.get("title"), benchmark=meta.get("benchmark"),
                    conditions=conditions_of(meta.get("config")), created=meta.get("created_at"))


def shown_names(meta: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Engine-made name -> study name, for runs keyed by their study names (`meta`: key -> run metadata)."""
    return {shown_name(key, m): key for key, m in meta.items()}


def portable(value: Any, shown: Mapping[str, str]) -> Any:
    """`value` (statistics reports, comparisons) with every engine-made name replaced by its study name."""
    order = sorted(shown, key=len, reverse=True)  # a longer name first, should one contain another

    def fix(item: Any) -> Any:
        if isinstance(item, str):
            for engine_name in order:
                if engine_name in item:
                    item = item.replace(engine_name, shown[engine_name])
            return item
        if isinstance(item, dict):
            return {k: fix(v) for k, v in item.items()}
        if isinstance(item, list):
            return [fix(v) for v in item]
        if isinstance(item, tuple):
            return tuple(fix(v) for v in item)
        return item

    return fix(value)
