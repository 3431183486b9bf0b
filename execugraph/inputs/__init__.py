"""The one input-diagnostics layer: how files a person hands over are read within caps and refused by file,
line and field. Every importer (benchmarks, publication, uploads, reproduce) reads and refuses through it."""

from execugraph.inputs.diagnostics import MAX_REPORTED_ISSUES, InputError, Issue, IssueCollector
from execugraph.inputs.readers import (
    TOO_DEEP,
    FileRefused,
    first_json_line,
    read_capped_file,
    read_capped_stream,
    read_json_document,
    read_json_lines,
    read_json_object,
    split_lines,
)

__all__ = [
    "MAX_REPORTED_ISSUES",
    "TOO_DEEP",
    "FileRefused",
    "InputError",
    "Issue",
    "IssueCollector",
    "first_json_line",
    "read_capped_file",
    "read_capped_stream",
    "read_json_document",
    "read_json_lines",
    "read_json_object",
    "split_lines",
]

# The submodules other packages import (tests/layout/test_package_interfaces.py).
__all__ += [
    "diagnostics",
    "readers",
]
