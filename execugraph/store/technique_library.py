"""Which technique library a database uses, how it is edited, and the pin every retrieving run records.

The shipped `data/techniques.jsonl` is read-only seed data. Edits (the
Retrieval page's add and update) are appended to the run store, so each
database has its own library: the seed with that database's edits applied in
order. A run whose condition retrieves records the library's digest, size and
origin (`RunConfig.technique_library`) and the store keeps those exact
techniques under the digest, so its trials, a resume, or a rerun of its
configuration search the same library even after later edits. A library file
given explicitly (`library_path`) replaces the whole library.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from execugraph.configuration.settings import PROJECT_ROOT
from execugraph.domain.config import RunConfig, TechniqueLibraryRef
from execugraph.retrieval.library import (
    DEFAULT_LIBRARY_PATH,
    LibraryFormatError,
    Technique,
    apply_edits,
    library_digest,
    load_library,
    parse_technique,
    with_added,
    with_updated,
)

if TYPE_CHECKING:
    from execugraph.retrieval.search import Retriever
    from execugraph.store import Store


@dataclass(frozen=True)
class Library:
    """A whole technique library and its identity (what a run records)."""

    techniques: list[Technique]
    ref: TechniqueLibraryRef


def _shown(path: Path) -> str:
    """A path as runs record it: relative to the project for the shipped seed, else as given."""
    try:
        return Path(path).resolve().relative_to(PROJECT_ROOT).as_posix()
    except ValueError:
        return str(path)


def _identity(techniques: list[Technique], source: str, path: Path, edits: int) -> Library:
    ref = TechniqueLibraryRef(digest=library_digest(techniques), techniques=len(techniques), source=source,
                              path=_shown(path), edits=edits)
    return Library(techniques=techniques, ref=ref)


def _stored_edits(store: Store) -> list[Technique]:
    edits = []
    for row in store.technique_edits():
        edits.append(parse_technique(row.technique, path=f"technique edit {row.id} in the database"))
    return edits


def current_library(store: Store | None, library_path: Path | str | None = None) -> Library:
    """The database's library (seed + its edits; the seed alone without a store), or the file at
    `library_path` as the whole library."""
    if library_path is not None:
        return _identity(load_library(library_path), "file", Path(library_path), 0)
    edits = _stored_edits(store) if store is not None else []
    return _identity(apply_edits(load_library(DEFAULT_LIBRARY_PATH), edits), "store", DEFAULT_LIBRARY_PATH,
                     len(edits))


def add_technique(store: Store, technique: Technique) -> Library:
    """Add a technique to the database's library; its id must be new (LibraryFormatError naming `id`)."""
    library = current_library(store)
    techniques = with_added(library.techniques, technique)
    store.add_technique_edit("add", technique.model_dump(mode="json"))
    return _identity(techniques, "store", DEFAULT_LIBRARY_PATH, library.ref.edits + 1)


def update_technique(store: Store, technique: Technique) -> Library:
    """Replace the technique with the same id in the database's library; the id must exist."""
    library = current_library(store)
    techniques = with_updated(library.techniques, technique)
    store.add_technique_edit("update", technique.model_dump(mode="json"))
    return _identity(techniques, "store", DEFAULT_LIBRARY_PATH, library.ref.edits + 1)


def _snapshot(store: Store, library: Library) -> TechniqueLibraryRef:
    store.save_library_snapshot(library.ref.digest, [t.model_dump(mode="json") for t in library.techniques])
    return library.ref


def pin_library(
    store: Store, *, recorded: TechniqueLibraryRef | None = None, library_path: Path | str | None = None
) -> TechniqueLibraryRef:
    """The library a new retrieving run will search, kept in the store under its digest.

    Without `recorded`: the current library (or the file). With `recorded` (a
    rerun of a stored configuration): that library, which this database must
    hold or have as its current one; otherwise LibraryFormatError says so.
    """
    if recorded is None:
        return _snapshot(store, current_library(store, library_path))
    if store.library_snapshot(recorded.digest) is not None:
        return recorded
    library = current_library(store, library_path)
    if library.ref.digest == recorded.digest:
        _snapshot(store, library)
        return recorded
    raise LibraryFormatError(
        None, None, "technique_library",
        f"the configuration searched the technique library {recorded.describe()}, which this database does not "
        f"hold; its library is {library.ref.describe()} (drop technique_library from the configuration to use it)",
    )


def pin_config(store: Store, config: RunConfig) -> RunConfig:
    """`config` with its library pinned when it retrieves (unchanged when it does not)."""
    if not config.retrieval:
        return config
    return config.model_copy(update={"technique_library": pin_library(store, recorded=config.technique_library)})


def pinned_techniques(store: Store, ref: TechniqueLibraryRef) -> list[Technique]:
    """The exact techniques a run recorded; LookupError when this database does not keep them."""
    kept = store.library_snapshot(ref.digest)
    if kept is None:
        library = current_library(store)
        if library.ref.digest == ref.digest:
            return library.techniques
        raise LookupError(
            f"this run searched the technique library {ref.describe()}, which this database does not hold "
            f"(its library now is {library.ref.describe()})"
        )
    techniques = [parse_technique(t, path=f"technique library {ref.digest[:12]}", line=i)
                  for i, t in enumerate(kept, start=1)]
    if library_digest(techniques) != ref.digest:
        raise LookupError(f"the technique library kept under {ref.digest[:12]} does not hash to its digest")
    return techniques


def retriever_for(store: Store, config: RunConfig, given: Retriever | Any | None = None) -> Retriever | Any:
    """The retriever a retrieving trial searches: the library its config pinned (the current one if none).

    A retriever passed in (tests, benches) is used as is, but must hold the
    pinned library when it can say which it holds.
    """
    ref = config.technique_library
    if given is not None:
        digest = getattr(given, "library_digest", None)
        if ref is not None and digest is not None and digest != ref.digest:
            raise LookupError(
                f"the retriever given searches library {digest[:12]}, but the run pinned {ref.describe()}"
            )
        return given
    from execugraph.retrieval.search import cached_retriever, get_retriever

    if ref is None:
        library = current_library(store)
        return get_retriever(library.techniques, source=library.ref.describe())
    built = cached_retriever(ref.digest)  # every trial of a batch after the first: no store read
    return built if built is not None else get_retriever(pinned_techniques(store, ref), source=ref.describe())
