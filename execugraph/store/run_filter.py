"""`RunFilter`: which runs a listing shows, spelled once for the Store, the views and the Runs page.

The Runs page's filter row builds one, `views.run_rows` passes it on, `Store.list_runs` takes
it and `queries.run_filters` turns it into WHERE clauses: a new filter is one field here and
one clause there, not a keyword added to four signatures.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class RunFilter:
    """Conditions a listed run meets, all of them; a field left None (or empty) does not filter."""

    kind: str | None = None
    """The run's kind (one of `RUN_KINDS`), exactly."""
    status: str | None = None
    """The run's stored status (one of `RUN_STATUSES`), exactly."""
    benchmark: str | None = None
    """The benchmark's name, exactly."""
    model: str | None = None
    """A substring of any model spec the run used, in any case."""
    text: str | None = None
    """A substring of the title or the benchmark's name, in any case."""
    since: datetime | None = None
    """Created at or after this moment (a naive datetime is taken as UTC)."""
    until: datetime | None = None
    """Created before this moment (a naive datetime is taken as UTC)."""
    tag: str | None = None
    """A tag the run carries, exactly."""

    def with_fields(self, **fields: Any) -> RunFilter:
        """This filter with `fields` (keyword spellings like `kind="batch"`) set; an unknown name is a TypeError."""
        return replace(self, **fields) if fields else self
