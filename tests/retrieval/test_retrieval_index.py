"""Index cache reuse/rebuild (keyed on library content), ranking, edited libraries and recall maths,
with a deterministic hashing embedder.

The real MiniLM model is exercised in tests/retrieval/test_retrieval_model.py;
here a bag-of-words hashing embedder stands in so the cache logic is tested in
milliseconds. It is a real embedder (same protocol, unit vectors, cosine
meaningful on word overlap), just a much simpler one.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import numpy as np
import pytest

from execugraph.retrieval import (
    Hit,
    LibraryFormatError,
    Retriever,
    Technique,
    evaluate,
    format_for_prompt,
    library_digest,
    with_added,
    with_updated,
)
from execugraph.retrieval.evaluation import EvalCase
from execugraph.retrieval.index import INDEX_FILE, VectorIndex, cache_key
from tests.support.embedders import HashingEmbedder


def make(tid: str, words: str) -> Technique:
    return Technique(
        id=tid,
        name=f"{tid} technique",
        category="graph",
        when_to_use=words,
        key_idea=f"core idea of {tid}",
        complexity="O(n)",
        pitfalls="none known",
        tags=[tid],
    )


LIBRARY = [
    make("queue-walk", "visit nodes level by level with a queue fewest hops unweighted"),
    make("heap-paths", "cheapest weighted route non negative weights priority heap"),
    make("bucket-limit", "throttle requests per second api key burst tokens"),
    make("page-cursor", "page through a long changing list of records feed cursor"),
    make("pair-lookup", "two numbers adding to target using a dictionary of complements"),
]


def write_library(path: Path, techniques: list[Technique]) -> Path:
    path.write_text("".join(t.to_json_line() + "\n" for t in techniques), encoding="utf-8")
    return path


@pytest.fixture()
def lib(tmp_path: Path) -> Path:
    return write_library(tmp_path / "techniques.jsonl", LIBRARY)


def test_cache_key_depends_on_library_bytes_and_model() -> None:
    assert cache_key(b"abc", "m1") == cache_key(b"abc", "m1")
    assert cache_key(b"abc", "m1") != cache_key(b"abd", "m1")
    assert cache_key(b"abc", "m1") != cache_key(b"abc", "m2")


def test_first_load_builds_and_second_reuses_without_rebuilding(lib: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = Retriever.load(lib, cache, embedder=HashingEmbedder())
    assert first.index_builds == 1 and first.last_load_built
    index_file = first.index_folder / INDEX_FILE
    assert index_file.is_file() and (first.index_folder / "ids.json").is_file()
    assert first.index_folder.parent == cache
    mtime = index_file.stat().st_mtime_ns

    embedder = HashingEmbedder()
    second = Retriever.load(lib, cache, embedder=embedder)
    assert second.index_builds == 0 and not second.last_load_built
    assert second.index_folder == first.index_folder
    assert index_file.stat().st_mtime_ns == mtime
    assert embedder.calls == 0  # the library was not embedded again


def test_library_change_rebuilds_into_a_new_cache_entry(lib: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = Retriever.load(lib, cache, embedder=HashingEmbedder())
    write_library(lib, [*LIBRARY, make("sieve", "all primes below n")])
    second = Retriever.load(lib, cache, embedder=HashingEmbedder())
    assert second.index_builds == 1
    assert second.index_folder != first.index_folder
    assert [t.id for t in second.library][-1] == "sieve"


def test_model_change_rebuilds(lib: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = Retriever.load(lib, cache, embedder=HashingEmbedder("model-a"))
    second = Retriever.load(lib, cache, embedder=HashingEmbedder("model-b"))
    assert second.index_builds == 1 and second.index_folder != first.index_folder


def test_damaged_cache_entry_is_rebuilt_not_trusted(lib: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = Retriever.load(lib, cache, embedder=HashingEmbedder())
    (first.index_folder / INDEX_FILE).write_bytes(b"garbage")
    second = Retriever.load(lib, cache, embedder=HashingEmbedder())
    assert second.index_builds == 1
    assert second.retrieve("cheapest weighted route", k=1)[0].technique.id == "heap-paths"
    third = Retriever.load(lib, cache, embedder=HashingEmbedder())
    assert third.index_builds == 0


def test_retrieve_ranks_by_cosine_and_is_deterministic(lib: Path, tmp_path: Path) -> None:
    r = Retriever.load(lib, tmp_path / "cache", embedder=HashingEmbedder())
    hits = r.retrieve("limit each api key to a few requests per second", k=3)
    assert [h.rank for h in hits] == [1, 2, 3]
    assert hits[0].technique.id == "bucket-limit"
    assert hits[0].score >= hits[1].score >= hits[2].score
    again = Retriever.load(lib, tmp_path / "other-cache", embedder=HashingEmbedder())
    repeat = again.retrieve("limit each api key to a few requests per second", k=3)
    assert [(h.technique.id, h.score) for h in repeat] == [(h.technique.id, h.score) for h in hits]


def test_retrieve_clamps_k_and_rejects_bad_input(lib: Path, tmp_path: Path) -> None:
    r = Retriever.load(lib, tmp_path / "cache", embedder=HashingEmbedder())
    assert len(r.retrieve("anything at all", k=50)) == len(LIBRARY)
    with pytest.raises(ValueError, match="empty"):
        r.retrieve("   ")
    with pytest.raises(ValueError, match="k must be"):
        r.retrieve("queue", k=0)


def test_scores_are_best_view_cosines_matching_brute_force(lib: Path, tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    r = Retriever.load(lib, tmp_path / "cache", embedder=embedder)
    query = "fewest hops through an unweighted graph"
    hits = r.retrieve(query, k=len(LIBRARY))
    assert len({h.technique.id for h in hits}) == len(LIBRARY)  # each technique once despite two views
    q = embedder.encode([query])[0]
    best = {t.id: float(max(embedder.encode(list(t.embedding_texts())) @ q)) for t in LIBRARY}
    assert {h.technique.id: h.score for h in hits} == pytest.approx(best, abs=1e-6)
    assert [h.score for h in hits] == sorted(best.values(), reverse=True)


def test_vector_index_dedupes_rows_of_the_same_id() -> None:
    rows = np.array([[1, 0], [0.9, 0.436], [0, 1], [0.6, 0.8]], dtype=np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    index = VectorIndex.from_vectors(rows, ["a", "a", "b", "c"])
    result = index.search(np.array([1, 0], dtype=np.float32), 3)
    assert [tid for tid, _ in result] == ["a", "c", "b"]
    assert result[0][1] == pytest.approx(1.0)
    assert len(index.search(np.array([1, 0], dtype=np.float32), 10)) == 3


def test_an_added_technique_is_a_new_library_with_its_own_index(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    before = Retriever.of(LIBRARY, tmp_path / "cache", embedder=embedder)
    new = make("prime-sieve", "count all prime numbers below a bound crossing out multiples")
    after = Retriever.of(with_added(LIBRARY, new), tmp_path / "cache", embedder=embedder)
    assert after.index_builds == 1 and after.index_folder != before.index_folder
    assert after.library_digest != before.library_digest
    assert after.retrieve("count prime numbers below a bound", k=1)[0].technique.id == "prime-sieve"
    assert before.get("prime-sieve") is None and len(before.library) == len(LIBRARY)  # the old one is unchanged
    # the same content later (another process, a resumed batch) finds its index in the cache
    assert Retriever.of(with_added(LIBRARY, new), tmp_path / "cache", embedder=embedder).index_builds == 0


def test_an_updated_technique_keeps_its_place_and_is_found_by_its_new_text(tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    before = Retriever.of(LIBRARY, tmp_path / "cache", embedder=embedder)
    assert before.retrieve("matrix exponent modulo", k=1)[0].technique.id != "pair-lookup"
    edited = make("pair-lookup", "raise a matrix to an exponent modulo a prime")
    after = Retriever.of(with_updated(LIBRARY, edited), tmp_path / "cache", embedder=embedder)
    assert after.index_builds == 1 and after.get("pair-lookup") == edited
    assert [t.id for t in after.library] == [t.id for t in LIBRARY]  # order kept
    assert after.retrieve("matrix exponent modulo", k=1)[0].technique.id == "pair-lookup"


def test_the_index_cache_keys_on_content_not_on_file_bytes(lib: Path, tmp_path: Path) -> None:
    first = Retriever.load(lib, tmp_path / "cache", embedder=HashingEmbedder())
    spaced = tmp_path / "spaced.jsonl"  # the same techniques, written differently, with blank lines
    spaced.write_text("\n\n".join(json.dumps(t.model_dump(mode="json"), indent=None, separators=(",", ":"))
                                   for t in LIBRARY) + "\n", encoding="utf-8")
    again = Retriever.load(spaced, tmp_path / "cache", embedder=HashingEmbedder())
    assert spaced.read_bytes() != lib.read_bytes()
    assert again.index_builds == 0 and again.index_folder == first.index_folder
    assert again.library_digest == first.library_digest == library_digest(LIBRARY)


def test_a_library_with_duplicate_ids_or_none_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LibraryFormatError) as duplicate:
        Retriever.of([*LIBRARY, LIBRARY[0]], tmp_path / "cache", embedder=HashingEmbedder())
    assert duplicate.value.field == "id"
    with pytest.raises(LibraryFormatError, match="no techniques"):
        Retriever.of([], tmp_path / "cache", embedder=HashingEmbedder())


def test_malformed_library_refuses_to_load_with_line(tmp_path: Path) -> None:
    path = write_library(tmp_path / "lib.jsonl", LIBRARY)
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"id": "broken"}\n')
    with pytest.raises(LibraryFormatError) as info:
        Retriever.load(path, tmp_path / "cache", embedder=HashingEmbedder())
    assert info.value.line == len(LIBRARY) + 1 and info.value.field == "name"


def test_concurrent_reads_of_one_retriever_never_fail(tmp_path: Path) -> None:
    r = Retriever.of(LIBRARY, tmp_path / "cache", embedder=HashingEmbedder(), query_cache_size=4)
    errors: list[BaseException] = []

    def reader(n: int) -> None:
        for i in range(200):
            try:
                hits = r.retrieve(f"queue level hops {(n * 7 + i) % 9}", k=3)
                assert len(hits) == 3 and hits[0].technique.id == r.get(hits[0].technique.id).id
            except BaseException as exc:  # noqa: BLE001 - collected and re-raised by the assertion below
                errors.append(exc)

    threads = [threading.Thread(target=reader, args=(n,)) for n in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


def test_hit_row_has_exactly_the_store_fields() -> None:
    hit = Hit(technique=LIBRARY[1], score=np.float32(0.5), rank=2)
    row = hit.to_row()
    assert row == {"technique_id": "heap-paths", "technique_name": "heap-paths technique", "score": 0.5, "rank": 2}
    assert type(row["score"]) is float and type(row["rank"]) is int


def test_format_for_prompt_lists_hits_compactly() -> None:
    hits = [Hit(technique=LIBRARY[0], score=0.81234, rank=1), Hit(technique=LIBRARY[1], score=0.5, rank=2)]
    text = format_for_prompt(hits)
    assert "1. queue-walk technique" in text and "2. heap-paths technique" in text
    assert "0.81" in text and LIBRARY[0].key_idea in text and LIBRARY[1].pitfalls in text
    assert "No relevant techniques" in format_for_prompt([])


def test_vector_index_round_trips_through_disk(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(20, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = VectorIndex.from_vectors(vectors, [f"id{i}" for i in range(20)])
    index.save(tmp_path)
    loaded = VectorIndex.load(tmp_path)
    query = vectors[7]
    assert loaded.search(query, 3) == index.search(query, 3)
    assert loaded.search(query, 1)[0][0] == "id7"
    with pytest.raises(ValueError):
        VectorIndex.from_vectors(vectors, ["only-one"])


class ScriptedRetriever:
    """Returns fixed id lists, so recall maths can be checked by hand."""

    def __init__(self, answers: dict[str, list[str]]) -> None:
        self.answers = answers

    def retrieve(self, text: str, k: int = 3) -> list[Hit]:
        return [
            Hit(technique=make(tid, "x"), score=1.0 - i / 10, rank=i + 1)
            for i, tid in enumerate(self.answers[text][:k])
        ]


def test_recall_at_k_counts_any_labelled_technique() -> None:
    cases = [
        EvalCase(id="c1", statement="s1", expected=("a",)),  # rank 1
        EvalCase(id="c2", statement="s2", expected=("b", "z")),  # rank 3 via z
        EvalCase(id="c3", statement="s3", expected=("q",)),  # miss
        EvalCase(id="c4", statement="s4", expected=("d",)),  # rank 2
    ]
    scripted = ScriptedRetriever(
        {"s1": ["a", "b", "c"], "s2": ["a", "c", "z"], "s3": ["a", "b", "c"], "s4": ["a", "d", "c"]}
    )
    report = evaluate(scripted, cases, ks=(1, 3))
    assert report.recall(1) == 0.25
    assert report.recall(3) == 0.75
    assert [m.case_id for m in report.misses(3)] == ["c3"]
    assert report.mrr() == pytest.approx((1 + 1 / 3 + 1 / 2) / 4)
    summary = report.to_dict()
    assert summary["recall"] == {"@1": 0.25, "@3": 0.75} and summary["n"] == 4


def test_repeated_queries_reuse_their_vector_within_a_bounded_cache(lib: Path, tmp_path: Path) -> None:
    embedder = HashingEmbedder()
    r = Retriever.load(lib, tmp_path / "cache", embedder=embedder, query_cache_size=2)
    calls = embedder.calls
    first = r.retrieve("queue level hops")
    assert r.retrieve("  queue level hops ") == first and embedder.calls == calls + 1
    r.retrieve("second query")
    r.retrieve("third query")  # evicts "queue level hops"
    r.retrieve("queue level hops")
    assert embedder.calls == calls + 4

    uncached = Retriever.load(lib, tmp_path / "cache", embedder=embedder, query_cache_size=0)
    calls = embedder.calls
    uncached.retrieve("queue level hops")
    uncached.retrieve("queue level hops")
    assert embedder.calls == calls + 2


def test_get_retriever_keeps_one_retriever_per_library_digest(tmp_path: Path, monkeypatch) -> None:
    from collections import OrderedDict

    from execugraph.retrieval import search

    monkeypatch.setattr(search, "get_embedder", HashingEmbedder)
    monkeypatch.setattr(search, "_retrievers", OrderedDict())
    cache = tmp_path / "cache"
    first = search.get_retriever(LIBRARY, cache)
    assert search.get_retriever(list(LIBRARY), cache) is first  # same content, same retriever
    edited = with_added(LIBRARY, make("sieve", "all primes below a bound"))
    other = search.get_retriever(edited, cache)
    assert other is not first and other.get("sieve") is not None and first.get("sieve") is None
    for i in range(search.KEPT_RETRIEVERS):  # older libraries are let go once enough others were used
        search.get_retriever(with_added(LIBRARY, make(f"x-{i}", f"words {i}")), cache)
    assert search.get_retriever(LIBRARY, cache) is not first
