"""Publication: export runs as checkable bundles, import ours and the published layout, rescore without an LLM.

- `export_bundle(store, run_ids, out)` / `bundle_files(store, run_ids)` / `zip_bytes(files)`
- `import_path(store, path)` / `import_zip_bytes(store, data, name)` -> ImportResult
- `rescore_run(store, run_id, pool=...)` -> RescoreReport
Bad input raises `BundleFormatError` naming the file, line and field; nothing is written then.
"""

from execugraph.publication.export import ExportError, bundle_files, export_bundle, zip_bytes
from execugraph.publication.formats import BundleFormatError, Issue
from execugraph.publication.importing import import_fileset, import_path, import_zip_bytes
from execugraph.publication.rescore import rescore_run
from execugraph.publication.rescore_report import RescoreReport
from execugraph.publication.results import ImportedRun, ImportResult

__all__ = [
    "BundleFormatError",
    "ExportError",
    "ImportResult",
    "ImportedRun",
    "Issue",
    "RescoreReport",
    "bundle_files",
    "export_bundle",
    "import_fileset",
    "import_path",
    "import_zip_bytes",
    "rescore_run",
    "zip_bytes",
]
