"""Chromium's CPU per page load in the browser tests, for several sets of launch flags, measured side by side.

Usage: python bench/browser_cpu.py [--repeat 2] [--only NAME ...]

The browser tests launch Debian's chromium through Playwright (tests/support/dashboard.py's `launch_chromium`)
a hundred-odd times per `make test`; its renderers, browser and GPU processes used about a fifth of the suite's
CPU. This serves one real dashboard (`streamlit run app.py` on a small seeded store, as bench/pages.py does), then
for each flag set launches chromium, opens the pages the tests open (Synthesize, Runs, Statistics, Trace of one
trial) in a fresh context, waits after each until the script run is over and the page has been quiet for a while
(as the tests' `settled` does), and counts the CPU seconds (user + system) of chromium's whole process tree: every
process below Playwright's driver, with the children each has already reaped. Flag sets run interleaved, `--repeat`
rounds, so a busy neighbour weighs on all of them alike; it prints CPU seconds per page load and the ratio to the
baseline (the flags the tests used before).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.pages import CHROMIUM, _serve, _stop, seed  # noqa: E402 - after the path set-up above

# What the README requires of every browser the tests launch; each set below adds to it.
REQUIRED = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync")
# name -> (extra chromium switches, extra context options). Playwright already passes --disable-dev-shm-usage,
# --disable-extensions, --no-first-run, --mute-audio, --disable-renderer-backgrounding and disables PaintHolding
# and MediaRouter, so those are not tried again. The tests now launch with "reduced-motion" (test_idle.py excepted).
FLAG_SETS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "baseline": ((), {}),
    "no-swiftshader": (("--disable-software-rasterizer",), {}),
    "in-process-gpu": (("--in-process-gpu",), {}),
    "no-site-isolation": (("--disable-site-isolation-trials", "--disable-features=IsolateOrigins,site-per-process"),
                          {}),
    "one-renderer": (("--renderer-process-limit=1",), {}),
    "low-end": (("--enable-low-end-device-mode",), {}),
    "reduced-motion": ((), {"reduced_motion": "reduce"}),
    "combined": (("--disable-software-rasterizer", "--in-process-gpu", "--disable-site-isolation-trials",
                  "--renderer-process-limit=1"), {}),
}
VIEWPORT = {"width": 1400, "height": 1000}

# True once the app's script run is over (Streamlit's own `data-test-script-state`), nothing shows a skeleton or
# "Running...", and that has held for `quiet` ms: the tests' `settled`, less its websocket clock.
QUIET_JS = """([quiet]) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const busy = !app || app.getAttribute('data-test-script-state') !== 'notRunning'
    || !!document.querySelector('[data-testid="stSkeleton"]')
    || [...document.querySelectorAll('[data-testid="stStatusWidget"]')].some(w => /running/i.test(w.innerText));
  const now = performance.now();
  if (busy) { window.__benchSince = null; return false; }
  if (!window.__benchSince) { window.__benchSince = now; return false; }
  return now - window.__benchSince >= quiet;
}"""
QUIET_MS = 600


def _stat(pid: int) -> list[str]:
    """The fields of /proc/PID/stat after the command name (field 3 onwards)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def _tree(root: int) -> list[int]:
    """`root` and every live process below it."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                children.setdefault(int(_stat(int(entry))[1]), []).append(int(entry))
            except (OSError, IndexError):
                continue
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, ()))
    return found


def chromium_cpu(driver: int) -> float:
    """CPU seconds used so far by every chromium process below Playwright's driver (the driver itself left out),
    with what the children they reaped used (renderers that already exited)."""
    ticks = 0
    for pid in _tree(driver):
        if pid == driver:
            continue
        try:
            fields = _stat(pid)
        except OSError:
            continue
        ticks += sum(int(field) for field in fields[11:15])  # utime, stime, cutime, cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def _driver_pid(before: set[int]) -> int:
    """The Playwright driver this process started since `before` (its children then)."""
    started = [pid for pid in _tree(os.getpid()) if pid not in before and pid != os.getpid()]
    for pid in started:
        if int(_stat(pid)[1]) == os.getpid():
            return pid
    raise SystemExit("no Playwright driver process found")


def settle(page: Any) -> None:
    """Wait until the page's script run is over and it has been quiet for QUIET_MS."""
    page.evaluate("() => { window.__benchSince = null; }")
    page.wait_for_function(QUIET_JS, arg=[QUIET_MS], polling=100, timeout=300_000)


def one_launch(url: str, paths: list[str], args: tuple[str, ...], options: dict[str, Any]) -> float:
    """Launch chromium with REQUIRED + `args`, open every path in one context, and return chromium's CPU seconds."""
    from playwright.sync_api import sync_playwright

    before = set(_tree(os.getpid()))
    with sync_playwright() as playwright:
        driver = _driver_pid(before)
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=[*REQUIRED, *args])
        context = browser.new_context(viewport=VIEWPORT, **options)
        for path in paths:
            page = context.new_page()  # the tests open a fresh page per check
            page.goto(f"{url}/{path}", timeout=300_000)
            settle(page)
            if page.locator('[data-testid="stException"]').count():
                raise SystemExit(f"/{path} raised in the browser")
            page.close()
        used = chromium_cpu(driver)
        browser.close()
    return used


def run(repeat: int, names: list[str]) -> int:
    """Serve a seeded dashboard, measure every flag set `repeat` times interleaved, print the table."""
    with tempfile.TemporaryDirectory() as tmp:
        db, cache = Path(tmp) / "bench.db", Path(tmp) / "cache"
        os.environ["EXECUGRAPH_DB"] = str(db)
        ids = seed(db, 400)
        paths = ["", "runs", f"statistics?runs={ids['batch']}", f"trace?trial={ids['trial']}"]
        process, url = _serve(db, cache)
        try:
            one_launch(url, paths, (), {})  # warm the server's imports and caches; not counted
            used: dict[str, list[float]] = {name: [] for name in names}
            for round_ in range(repeat):
                for name in names:
                    args, options = FLAG_SETS[name]
                    used[name].append(one_launch(url, paths, args, options))
                    print(f"round {round_ + 1} {name:<18} {used[name][-1]:6.2f} CPU s", flush=True)
        finally:
            _stop(process, cache)
    base = statistics.median(used["baseline"]) if "baseline" in used else None
    print(f"\n{'flags':<18} {'CPU s / page':>12} {'runs (CPU s per launch)':>30} {'/ baseline':>11}")
    for name in names:
        per_page = statistics.median(used[name]) / len(paths)
        runs = " ".join(f"{value:.2f}" for value in used[name])
        ratio = f"{statistics.median(used[name]) / base:.2f}" if base else "-"
        print(f"{name:<18} {per_page:>12.2f} {runs:>30} {ratio:>11}")
    print(f"(median over {repeat} interleaved rounds; {len(paths)} pages per launch; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", nargs="+", choices=sorted(FLAG_SETS), help="flag sets to measure (baseline too)")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        print(f"{CHROMIUM} not found: skipped (apt-get install chromium)")
        return 0
    names = ["baseline", *[name for name in args.only if name != "baseline"]] if args.only else list(FLAG_SETS)
    started = time.perf_counter()
    code = run(args.repeat, names)
    print(f"{time.perf_counter() - started:.0f} s")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
