"""Sequential comparisons: group-sequential looks at a paired batch, stopping when the answer is known.

`design` holds what a user plans (looks, level, futility rule), `rule` what one look decides
from the per-problem differences, `monitor` what a running batch stores at each look, and
`replay` the same rule run over finished runs in many problem orders; `plan` is the Batch form's
sentence about a design before launch.
"""

__all__ = [
    "design",
    "monitor",
    "plan",
    "replay",
    "summary",
]
