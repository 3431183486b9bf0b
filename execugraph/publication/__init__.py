"""Publication: export runs as checkable bundles, import ours and the published layout.

- `export_bundle(store, run_ids, out)` / `bundle_files(store, run_ids)` / `zip_bytes(files)`
- `import_path(store, path)` / `import_zip_bytes(store, data, name)` -> ImportResult
Bad input raises `BundleFormatError` naming the file, line and field; nothing is written then.

What lives where: the bundle format in `layout` and `formats` (canonical JSON, column
codecs, issues), `meta` and `privacy` (run metadata, nothing host-specific by default);
`export`; `source` (files from a folder or zip, size-capped), `importing` (which importer),
`bundle_checks` and `bundle_import` (ours), `published_records`, `published_import` and
`published_problems` (the published layout), `harness/` (human-eval, EvalPlus and
bigcode files, read into the published layout's runs), `results` (what an import reports);
`problems` (which tests a stored trial is graded with). Rescoring lives in
`execugraph.verdicts`. Rows are read and written through
the store's query modules (`bundle_rows`, `bulk_insert`, `run_reads`, `verdict_reads`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execugraph.domain.lazy_names import lazy_names

if TYPE_CHECKING:  # at run time `__getattr__` imports each: building the plugin registry (every command that names a
    # benchmark or condition) imports `harness.plugin`, which must not load the exporters and importers with it
    from execugraph.publication.export import ExportError, bundle_files, export_bundle, zip_bytes
    from execugraph.publication.formats import BundleFormatError, Issue
    from execugraph.publication.importing import import_fileset, import_path, import_zip_bytes
    from execugraph.publication.results import ImportedRun, ImportResult

__all__ = [
    "BundleFormatError",
    "ExportError",
    "ImportResult",
    "ImportedRun",
    "Issue",
    "bundle_files",
    "export_bundle",
    "import_fileset",
    "import_path",
    "import_zip_bytes",
    "zip_bytes",
]

# The submodules other packages import (tests/layout/test_package_interfaces.py).
__all__ += [
    "formats",
    "harness",
    "importing",
    "layout",
    "published_problems",
    "published_records",
    "results",
    "source",
]

_HOME = {
    **dict.fromkeys(("ExportError", "bundle_files", "export_bundle", "zip_bytes"), "export"),
    **dict.fromkeys(("BundleFormatError", "Issue"), "formats"),
    **dict.fromkeys(("import_fileset", "import_path", "import_zip_bytes"), "importing"),
    **dict.fromkeys(("ImportedRun", "ImportResult"), "results"),
}

__getattr__, __dir__ = lazy_names(__name__, _HOME, __all__)
