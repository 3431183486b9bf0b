"""The dashboard's first page after a server start: seconds and modules imported before Synthesize is drawn.

Usage: python bench/pages.py --first-page [--before TREE] [--repeat 3]
       (or python bench/first_page.py ...)

Each measurement is a fresh Python process that imports streamlit (as `streamlit run` has before the app
starts), then renders app.py once with streamlit's AppTest on an empty database, as the first visitor's
browser does: the router, the sidebar's health lines and the Synthesize page. The background warm-up
(`ui.resources.warm_up`) is left out, so what is counted is what the first page itself needs. It prints the
seconds of that render, the modules it imported and whether SciPy, LangGraph, pandas or the statistics
engine were among them. With `--before TREE` (another checkout, e.g. `git archive HEAD | tar -x -C TREE`)
the same is measured there, interleaved, with the same interpreter, and the ratios are printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEAVY = ("scipy", "langgraph", "langchain_core", "pandas", "execugraph.stats.paired", "execugraph.workflow.graph")

# Run in the measured tree (cwd) by a fresh interpreter; prints one JSON line.
PROBE = """
import json, sys, time
sys.path.insert(0, '.')
import streamlit  # noqa: F401 - `streamlit run` has imported it before the app's first run
from streamlit.testing.v1 import AppTest
before = set(sys.modules)
started, cpu = time.perf_counter(), time.process_time()  # ui.resources is the router's import: counted
import ui.resources
ui.resources.start_worker = lambda url: False
ui.resources.warm_up = lambda: None  # what the first page needs, not what the warm-up thread loads beside it
at = AppTest.from_file('app.py', default_timeout=600).run()
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
assert not at.exception, at.exception[0].value
assert at.text_area, 'Synthesize drew no text area'
heavy = sorted(h for h in HEAVY if h in sys.modules)
print(json.dumps({'seconds': seconds, 'cpu': cpu, 'modules': len(set(sys.modules) - before), 'heavy': heavy}))
"""


def probe(tree: Path, db: Path) -> dict:
    """One fresh process rendering the first page in `tree`: {'seconds', 'cpu' (seconds of CPU, all threads), 'modules',
    'heavy'}."""
    env = dict(os.environ, EXECUGRAPH_DB=str(db), EXECUGRAPH_CACHE_DIR=str(db.parent / "cache"),
               OLLAMA_HOST="http://127.0.0.1:9", PYTHONPATH=str(tree))
    done = subprocess.run([sys.executable, "-c", f"HEAVY = {HEAVY!r}\n{PROBE}"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: the first page did not render:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def run(before: Path | None, repeat: int) -> int:
    """Measure this tree (and `before`, interleaved), print the table; 1 when the first page imports SciPy (LangGraph
    still comes with the sidebar's plugin health line, which registers the built-in agents)."""
    trees = {"this tree": ROOT} | ({"before": before.resolve()} if before else {})
    results: dict[str, list[dict]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(repeat):
            for name, tree in trees.items():
                db = Path(tmp) / f"{name.replace(' ', '-')}-{i}" / "runs.db"
                db.parent.mkdir(parents=True)
                results[name].append(probe(tree, db))
    load = os.getloadavg()[0]
    print(f"\n{'first page (Synthesize)':<24} {'median s':>9} {'min s':>7} {'CPU s':>6} {'modules':>8}  heavy modules")
    for name, rows in results.items():
        seconds = [r["seconds"] for r in rows]
        print(f"{name:<24} {statistics.median(seconds):>9.2f} {min(seconds):>7.2f} "
              f"{statistics.median(r['cpu'] for r in rows):>6.2f} {rows[0]['modules']:>8}  "
              f"{', '.join(rows[0]['heavy']) or 'none'}")
    if before:
        now, then = results["this tree"], results["before"]

        def ratio(field: str) -> float:
            return statistics.median(r[field] for r in then) / statistics.median(r[field] for r in now)

        print(f"before / this tree: {ratio('seconds'):.2f}x wall time, {ratio('cpu'):.2f}x CPU time (steadier under "
              f"load), {then[0]['modules'] / now[0]['modules']:.2f}x modules")
    print(f"{repeat} fresh process(es) each, interleaved; load average {load:.1f} on {os.cpu_count()} cores")
    return int("scipy" in results["this tree"][0]["heavy"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another checkout to measure the same way, side by side")
    parser.add_argument("--repeat", type=int, default=3, help="fresh processes per tree (the median is printed)")
    args = parser.parse_args()
    return run(args.before, args.repeat)


if __name__ == "__main__":
    raise SystemExit(main())
