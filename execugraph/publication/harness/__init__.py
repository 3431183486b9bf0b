"""Readers of other harnesses' published files (human-eval, EvalPlus, bigcode-evaluation-harness).

Why: a study published with another harness should import, rescore and reproduce like
our own layout. `detect.find_inputs` decides which format an input holds; one module
per format maps its records to the published-layout `RunFolder`s that
`published_import.write_folders` stores, so there is one writer; `grade` grades files
that carry no verdicts; `importer.import_harness` ties them together.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from execugraph.domain.lazy_names import lazy_names

if TYPE_CHECKING:  # at run time `__getattr__` imports each: the registry imports `plugin` here, not the importers
    from execugraph.publication.harness.common import HarnessOptions
    from execugraph.publication.harness.detect import find_inputs
    from execugraph.publication.harness.importer import import_harness

__all__ = ["HarnessOptions", "datasets", "find_inputs", "import_harness"]

_HOME = {"HarnessOptions": "common", "find_inputs": "detect", "import_harness": "importer"}

__getattr__, __dir__ = lazy_names(__name__, _HOME, __all__)
