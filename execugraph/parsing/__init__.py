"""Pure parsing of model output: no LLM, no I/O, nothing executed (code is only compiled).

Small local models rarely follow an output format exactly: they fence, chat, cut off mid-JSON and
invent their own keys. This package owns reading their replies back, and naming every liberty it
takes as a repair tag that traces and stats record. Every parser returns `Parsed(value, repairs,
ok, dropped)` (`result`).

Public functions:
- `extract_code(text, entry_point, aliases)`: the program in a reply (`code_extract`, over the
  candidate blocks of `code_blocks` and the AST facts of `python_source`).
- `parse_plan(text)`: the planner's or explainer's prose without chatter or code (`plan`).
- `parse_review(text)`, `normalise_severity(raw)`: the reviewer's critique (`review`).
- `parse_generated_tests(text, entry_point, aliases, signature)`: sandbox call tests a model wrote
  (`generated_tests`).
- `parse_generated_stdio_tests(text)`: sandbox stdio tests (input text -> output text) a model wrote
  for a program without an entry point (`stdio_tests`).
- `parse_json_object(text, required, aliases)`: a JSON object fitted to required keys (`json_object`).
- `loads_lenient(text)`, `iter_json_candidates(text)`: JSON-ish values, repaired (`lenient_json`).
- `clean_model_text(text)`, `find_fenced_blocks(text)`: the shared first clean-up (`model_text`).
- `parse_python(source)`: `ast.parse` one thread at a time (CPython 3.11's AST constructor is not thread-safe;
  `python_ast`).
"""

from execugraph.parsing.code_extract import extract_code
from execugraph.parsing.generated_tests import parse_generated_tests
from execugraph.parsing.json_object import parse_json_object
from execugraph.parsing.lenient_json import JSONRepairError, iter_json_candidates, loads_lenient
from execugraph.parsing.model_text import clean_model_text, find_fenced_blocks
from execugraph.parsing.plan import parse_plan
from execugraph.parsing.python_ast import parse_python
from execugraph.parsing.result import Parsed, add_repair
from execugraph.parsing.review import normalise_severity, parse_review
from execugraph.parsing.stdio_tests import parse_generated_stdio_tests

__all__ = [
    "JSONRepairError",
    "Parsed",
    "add_repair",
    "clean_model_text",
    "extract_code",
    "find_fenced_blocks",
    "iter_json_candidates",
    "loads_lenient",
    "normalise_severity",
    "parse_generated_stdio_tests",
    "parse_generated_tests",
    "parse_json_object",
    "parse_plan",
    "parse_python",
    "parse_review",
]
