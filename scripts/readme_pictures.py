"""Retake the README's pictures from a real-size study, in the dashboard as a user sees it.

The study has the shape of the published internal-30 grid (30 problems x one-shot, execution-retry and
multi-agent x N seeds, in the published layout), its verdicts drawn from a seeded model of per-problem
difficulty and per-arm skill (a simulated study, said so in the README), imported into its own database,
served by `streamlit run app.py` and photographed in Debian chromium: docs/screenshot.png (Ablations,
1280x800) and docs/statistics.png (Statistics, each arm against the one-shot baseline, 1400x1000).

    .venv/bin/python scripts/readme_pictures.py [--seeds 5] [--dir ~/execugraph-study] [--reuse]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from reproduce import MODEL  # noqa: E402 - bench/reproduce.py's published-grid model name

from execugraph.benchmarks import load_internal30  # noqa: E402
from execugraph.publication import import_path  # noqa: E402
from execugraph.store import Store  # noqa: E402

ARMS = {"e1_so": ("single-oneshot", 0.2, 1), "e1_sr": ("single-retry", 1.1, 3), "e1_mf": ("multi-full", 1.4, 7)}

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_http(url: str, timeout_s: float = 120) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as reply:
                if reply.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.5)


def _settled(page, timeout_s: float = 180) -> None:
    """Until the script run is over: no skeletons and no 'Running' status for a moment."""
    deadline, quiet = time.monotonic() + timeout_s, 0
    while time.monotonic() < deadline and quiet < 4:
        busy = (page.locator('[data-testid="stSkeleton"]').count()
                + page.locator('[data-testid="stStatusWidget"]:has-text("Running")').count())
        quiet = 0 if busy else quiet + 1
        page.wait_for_timeout(500)


def _records(seeds: int) -> dict[str, list[dict]]:
    """Trials of every arm: passed with probability logistic(skill - difficulty), seeded."""
    rng = random.Random(2026)
    problems = load_internal30()
    difficulty = {p.id: rng.gauss(0.0, 1.5) for p in problems}
    out: dict[str, list[dict]] = {}
    for folder, (condition, skill, calls) in ARMS.items():
        rows = []
        for seed in range(seeds):
            for p in problems:
                ok = rng.random() < 1 / (1 + math.exp(difficulty[p.id] - skill))
                used = 0 if calls == 1 else rng.randint(0, 3)
                rows.append({
                    "problem_id": p.id, "category": p.category, "source": "internal", "condition": condition,
                    "model_planner": MODEL, "model_generator": MODEL, "seed": seed, "trial": 0,
                    "retry_budget": 0 if calls == 1 else 3, "retries_used": used,
                    "tokens_in": 150 * calls * (1 + used), "tokens_out": 60 * calls * (1 + used),
                    "llm_calls": calls * (1 + used), "passed": ok, "tests_total": 5, "tests_passed": 5 if ok else 2,
                    "error_class": "none" if ok else rng.choice(["wrong_answer", "wrong_answer", "runtime_error",
                                                                 "timeout"]),
                    "test_source": "deterministic", "wallclock_s": round(rng.uniform(2, 9) * calls, 1),
                    "code": f"def {p.entry_point}(*args):\n    ...  # {condition} seed {seed}\n", "stderr": "",
                })
        out[folder] = rows
    return out


def build_study(folder: Path, seeds: int) -> dict[str, int]:
    """The study written in the published layout and imported into `folder/runs.db`; run folder name -> run id."""
    if folder.exists():
        shutil.rmtree(folder)
    for name, rows in _records(seeds).items():
        (folder / "study" / name).mkdir(parents=True)
        (folder / "study" / name / "trials.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    with Store.open(str(folder / "runs.db")) as store:
        imported = import_path(store, folder / "study")
        print(f"study: {sum(r.trials for r in imported.runs)} trials in {len(imported.runs)} runs", flush=True)
        return {run.name.rpartition("/")[2]: run.id for run in imported.runs}


def photograph(folder: Path, runs: dict[str, int], docs: Path) -> None:
    from playwright.sync_api import sync_playwright

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = dict(os.environ, EXECUGRAPH_DB=str(folder / "runs.db"), EXECUGRAPH_CACHE_DIR=str(folder / "cache"),
               OLLAMA_HOST="http://127.0.0.1:9")
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    internal = ",".join(str(runs[name]) for name in ("e1_so", "e1_sr", "e1_mf"))
    try:
        _wait_http(url)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            try:
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                page.goto(f"{url}/ablations?runs={internal}", timeout=180_000)
                page.get_by_text("Pass rate by arm").first.wait_for(timeout=180_000)
                _settled(page)
                page.screenshot(path=str(docs / "screenshot.png"))
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.goto(f"{url}/statistics?runs={internal}", timeout=180_000)
                page.get_by_role("heading", name="Paired comparisons").wait_for(timeout=180_000)
                _settled(page)
                page.get_by_role("combobox", name="Comparisons", exact=True).click()
                page.get_by_role("option", name=f"each arm against e1_so #{runs['e1_so']}").click()
                _settled(page)
                page.get_by_role("heading", name="Paired comparisons").scroll_into_view_if_needed()
                page.screenshot(path=str(docs / "statistics.png"))
            finally:
                browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(f"wrote {docs / 'screenshot.png'} and {docs / 'statistics.png'}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--dir", type=Path, default=Path.home() / "execugraph-study")
    parser.add_argument("--reuse", action="store_true", help="photograph the study already reproduced in --dir")
    args = parser.parse_args()
    if args.reuse:
        with Store.open(str(args.dir / "runs.db")) as store:
            runs = {run.title.rpartition("/")[2]: run.id for run in store.list_runs(kind="import")}
    else:
        runs = build_study(args.dir, args.seeds)
    photograph(args.dir, runs, ROOT / "docs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
