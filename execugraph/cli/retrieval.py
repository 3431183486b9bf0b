"""`python -m execugraph retrieval-eval`: recall@1 and recall@k of the technique retriever.

It measures the library runs on `--db` search (the shipped seed plus that
database's edits), or the whole library in `--library FILE`; either way it
only reads. Heavy imports (torch, sentence-transformers, FAISS) happen inside
`run`, so building the CLI parser stays cheap for every other command.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def configure(parser: argparse.ArgumentParser) -> None:
    """Declare the command's options."""
    parser.add_argument("--k", type=int, default=3, help="depth for recall@k besides recall@1 (default 3)")
    parser.add_argument("--json", action="store_true", help="print a JSON report with per-case results")
    parser.add_argument(
        "--library", type=Path, default=None,
        help="a technique library JSONL to use as the whole library (default: the database's library, the "
        "shipped data/techniques.jsonl plus the edits kept in --db)",
    )
    parser.add_argument(
        "--eval-set", type=Path, default=None, help="labelled problems JSONL (default data/retrieval_eval.jsonl)"
    )
    parser.add_argument(
        "--cache-dir", type=Path, default=None, help="index cache folder (default <cache_dir>/retrieval)"
    )


def run(args: argparse.Namespace) -> int:
    """Evaluate and print; exit 2 on a malformed library or evaluation set."""
    from execugraph.retrieval import LibraryFormatError, Retriever, evaluate, load_eval_set

    if args.k < 1:
        print("error: --k must be at least 1", file=sys.stderr)
        return 2
    try:
        library = _library(args)
        retriever = Retriever.of(library.techniques, args.cache_dir, source=library.ref.describe())
        cases = load_eval_set(args.eval_set, retriever.library)
    except LibraryFormatError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    report = evaluate(retriever, cases, ks=(1, args.k))
    if args.json:
        payload = report.to_dict()
        payload["library"] = library.ref.model_dump()
        payload["techniques"] = len(retriever.library)
        payload["model"] = retriever.embedder.model_id
        print(json.dumps(payload, indent=2))
        return 0
    print(f"library: {library.ref.describe()}")
    print(f"techniques: {len(retriever.library)}  cases: {len(cases)}  model: {retriever.embedder.model_id}")
    for k in report.ks:
        print(f"recall@{k}: {report.recall(k):.3f}")
    print(f"MRR@{report.ks[-1]}: {report.mrr():.3f}")
    misses = report.misses(args.k)
    if misses:
        print(f"\nmisses at k={args.k}:")
        for miss in misses:
            print(f"  {miss.case_id}: expected {', '.join(miss.expected)}; got {', '.join(miss.retrieved)}")
    return 0


def _library(args: argparse.Namespace):
    """The `--library` file as the whole library, else the database's (opened for reading only)."""
    from execugraph.store.technique_library import current_library

    if args.library is not None:
        return current_library(None, args.library)
    from execugraph.cli.store import open_store

    store = open_store(args, writes=False)
    try:
        return current_library(store)
    finally:
        store.close()
