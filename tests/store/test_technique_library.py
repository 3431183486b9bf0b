"""Each database's technique library (the shipped seed + its edits, kept in the store) and the pin runs record.

Edits go to the store on SQLite and PostgreSQL, never to data/techniques.jsonl;
a second database does not see them; the library a run pinned is kept whole,
so it can be searched again after later edits.
"""

from __future__ import annotations

import hashlib

import pytest

from execugraph.domain.config import TechniqueLibraryRef
from execugraph.retrieval import DEFAULT_LIBRARY_PATH, LibraryFormatError, Technique, library_digest, load_library
from execugraph.store import Store
from execugraph.store.technique_library import (
    add_technique,
    current_library,
    pin_library,
    pinned_techniques,
    update_technique,
)

pytestmark = pytest.mark.integration


def technique(tid: str = "ui-reservoir", **changes: object) -> Technique:
    data: dict[str, object] = {
        "id": tid,
        "name": "Reservoir sampling",
        "category": "math",
        "when_to_use": "Choosing k items uniformly at random from a stream of unknown length, in one pass.",
        "key_idea": "Keep the first k items; replace a random slot with the i-th item with probability k/i.",
        "complexity": "O(n) time, O(k) memory",
        "pitfalls": "Off-by-one in the probability.",
        "tags": ["random", "sampling", "stream"],
    }
    return Technique(**(data | changes))


@pytest.fixture
def seed_bytes() -> bytes:
    """The shipped seed before the test; the test checks it is byte-identical afterwards."""
    before = DEFAULT_LIBRARY_PATH.read_bytes()
    yield before
    assert DEFAULT_LIBRARY_PATH.read_bytes() == before


def test_a_fresh_database_searches_the_shipped_seed(store: Store, seed_bytes: bytes) -> None:
    library = current_library(store)
    assert library.techniques == load_library(DEFAULT_LIBRARY_PATH)
    assert library.ref.source == "store" and library.ref.edits == 0 and library.ref.path == "data/techniques.jsonl"
    assert library.ref.digest == library_digest(library.techniques) and library.ref.techniques == len(library.techniques)


def test_edits_are_kept_in_the_store_in_order_and_the_seed_is_never_written(store: Store, seed_bytes: bytes) -> None:
    seed = load_library(DEFAULT_LIBRARY_PATH)
    added = add_technique(store, technique())
    assert [t.id for t in added.techniques] == [*(t.id for t in seed), "ui-reservoir"]
    renamed = seed[0].model_copy(update={"name": "Memoised recursion, renamed"})
    updated = update_technique(store, renamed)
    assert updated.techniques[0].name == "Memoised recursion, renamed"
    assert [t.id for t in updated.techniques] == [t.id for t in added.techniques]  # updated in place
    again = current_library(store)  # what another process reading this database sees
    assert again.techniques == updated.techniques and again.ref == updated.ref and again.ref.edits == 2
    assert len({library_digest(seed), added.ref.digest, updated.ref.digest}) == 3
    assert [(e.action, e.technique_id) for e in store.technique_edits()] == [
        ("add", "ui-reservoir"), ("update", seed[0].id),
    ]


def test_refused_edits_name_the_field_and_store_nothing(store: Store) -> None:
    add_technique(store, technique())
    with pytest.raises(LibraryFormatError, match="already exists") as duplicate:
        add_technique(store, technique(name="Another"))
    with pytest.raises(LibraryFormatError, match="no technique with id 'nope'") as unknown:
        update_technique(store, technique("nope"))
    assert duplicate.value.field == unknown.value.field == "id"
    assert len(store.technique_edits()) == 1
    assert current_library(store).techniques[-1].name == "Reservoir sampling"


def test_a_second_database_has_its_own_library(store: Store, tmp_path) -> None:
    add_technique(store, technique())
    with Store.open(str(tmp_path / "other.db")) as other:
        assert "ui-reservoir" not in [t.id for t in current_library(other).techniques]
        assert current_library(other).ref.digest == library_digest(load_library(DEFAULT_LIBRARY_PATH))


def test_a_pinned_library_is_kept_whole_and_survives_later_edits(store: Store) -> None:
    ref = pin_library(store)
    before = current_library(store).techniques
    pin_library(store)  # pinning the same library again keeps the one copy
    update_technique(store, before[0].model_copy(update={"pitfalls": "changed after the run was queued"}))
    assert current_library(store).ref.digest != ref.digest
    assert pinned_techniques(store, ref) == before
    kept = store.library_snapshot(ref.digest)
    assert kept is not None and len(kept) == ref.techniques
    lines = "".join(Technique.model_validate(t).to_json_line() + "\n" for t in kept)
    assert hashlib.sha256(lines.encode()).hexdigest() == ref.digest


def test_a_recorded_library_this_database_lacks_is_refused_with_the_reason(store: Store) -> None:
    foreign = TechniqueLibraryRef(digest="ab" * 32, techniques=3, path="data/techniques.jsonl", edits=2)
    with pytest.raises(LibraryFormatError, match="does not hold") as refused:
        pin_library(store, recorded=foreign)
    assert refused.value.field == "technique_library"
    with pytest.raises(LookupError, match="does not hold"):
        pinned_techniques(store, foreign)
    # a configuration recorded elsewhere with this database's current library is accepted (and kept here)
    current = current_library(store).ref
    assert store.library_snapshot(current.digest) is None
    assert pin_library(store, recorded=current) == current
    assert store.library_snapshot(current.digest) is not None


def test_a_whole_library_file_replaces_the_database_library(store: Store, tmp_path) -> None:
    add_technique(store, technique())
    path = tmp_path / "mine.jsonl"
    path.write_text(technique("only-one").to_json_line() + "\n", encoding="utf-8")
    ref = pin_library(store, library_path=path)
    assert ref.source == "file" and ref.techniques == 1 and ref.path == str(path) and ref.edits == 0
    assert [t.id for t in pinned_techniques(store, ref)] == ["only-one"]
