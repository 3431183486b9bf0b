"""A published study whose every name is an attack on whoever reads its reproduction.

Payloads sit in folder names (so run titles), problem ids, categories, model names, code, stderr and the family
names of a families file: HTML and script, Markdown images and javascript: links, spreadsheet formulas, LaTeX
`\\input` and a newline that would end a LaTeX comment before `\\immediate\\write18`, a terminal escape that sets
the window title, a right-to-left override, table pipes and backticks. `write_study(root)` writes `root/study/`
(three run folders of one benchmark) and `root/families.json`; nothing in it can be rerun (no benchmark file
holds its problems), so the published verdicts are kept and reproducing it needs no sandbox job. One pair is
written worse-minus-better, so its delta is negative (a number a CSV must keep as a number).
"""

from __future__ import annotations

import json
from pathlib import Path

SCRIPT = "<script>alert(1)</script>"
IMG_HTML = "<img src=http://127.0.0.1:9/x>"
IMG_MD = "![x](http://127.0.0.1:9/y.png)"
JS_LINK = "[link](javascript:alert(1))"
FORMULA = '=HYPERLINK("http://x","y")'
PLUS = "+cmd"
AT = "@SUM(A1)"
INPUT = "\\input{/etc/passwd}"
WRITE18 = "\n\\immediate\\write18{touch /tmp/pwned}"
OSC = "\x1b]0;owned\x07"
RLO = "\u202e"
PIPE = "| pipe |"
TICKS = "`tick` ``x``"
PAYLOADS = (SCRIPT, IMG_HTML, IMG_MD, JS_LINK, FORMULA, PLUS, AT, INPUT, WRITE18, OSC, RLO, PIPE, TICKS)

# Folder names cannot hold "/": theirs are the payloads that can.
FOLDERS = {
    "a": f"{FORMULA.replace('http://', 'http:')} {OSC}{RLO}cba",
    "b": f"{PLUS} {JS_LINK} {PIPE} {TICKS}",
    "c": "-2 ![x](y.png)\n\\immediate\\write18{touch pwned} \\input{passwd} <b>bold",
}
PROBLEMS = [f"p{i} {payload}" if i % 2 else payload for i, payload in enumerate(PAYLOADS)]
HTML_LINK = '<a href="http://127.0.0.1:9/z">z</a>'  # plotly draws this one as a link, were it not escaped
CATEGORIES = [FORMULA, IMG_MD, SCRIPT, f"dp{WRITE18}", f"{OSC}{RLO}graph", AT, HTML_LINK]
MODELS = {"a": f"{IMG_MD} {SCRIPT}", "b": f"{FORMULA} {OSC}", "c": f"{PLUS}{WRITE18}"}
FAMILY_NAMES = (f"{FORMULA} {SCRIPT}{WRITE18}", f"{IMG_MD} {OSC}{RLO} {INPUT} {PIPE}")
PASSES = {"a": {0, 1, 2}, "b": set(range(9)), "c": set(range(12))}


def records(arm: str) -> list[dict]:
    """One record per problem; the arms differ only in which problems they pass."""
    out = []
    for i, pid in enumerate(PROBLEMS):
        ok = i in PASSES[arm]
        out.append({
            "problem_id": pid, "category": CATEGORIES[i % len(CATEGORIES)], "source": SCRIPT,
            "condition": "single-oneshot", "model_planner": MODELS[arm], "model_generator": MODELS[arm],
            "seed": 0, "trial": 0, "retry_budget": 0, "passed": ok, "tests_total": 1, "tests_passed": int(ok),
            "retries_used": 0, "error_class": "none" if ok else "wrong_answer", "test_source": "deterministic",
            "wallclock_s": 1.0 + i, "tokens_in": 10, "tokens_out": 5, "llm_calls": 1,
            "code": f"# {SCRIPT} {IMG_MD} {OSC}{RLO}\ndef f():\n    return '{FORMULA}'\n",
            "stderr": "" if ok else f"{OSC}{RLO} {SCRIPT} {INPUT}{WRITE18}",
            "timestamp": 1778400000 + i,
        })
    return out


def write_study(root: Path) -> tuple[Path, Path]:
    """Write the results folder and the families file under `root`; returns (folder, families file)."""
    folder = root / "study"
    for arm, name in FOLDERS.items():
        (folder / name).mkdir(parents=True, exist_ok=True)
        (folder / name / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records(arm)))
    families = root / "families.json"
    families.write_text(json.dumps({"families": [
        {"name": FAMILY_NAMES[0], "runs": list(FOLDERS.values()), "baseline": FOLDERS["a"]},
        {"name": FAMILY_NAMES[1], "pairs": [[FOLDERS["c"], FOLDERS["a"]], [FOLDERS["b"], FOLDERS["c"]]]},
    ]}))
    return folder, families
