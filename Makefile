# The two commands of the README: `make run` and `make test`. Everything else is a helper.
PORT ?= 8501
HOST ?= 127.0.0.1
PY := .venv/bin/python
# Test processes of `make test` (pytest-xdist; one test file per process at a time). TEST_WORKERS=0: in this process.
# Files start slowest first (tests/support/schedule.py); --durations prints the times that list is refreshed from.
TEST_WORKERS ?= 3

.PHONY: run test test-long test-fast docs bootstrap system-deps lint bytecode bench doctor clean

bootstrap:
	@scripts/bootstrap.sh

system-deps:
	@scripts/system-deps.sh

# No file watcher: watching the tree (.venv, .cache, the database) costs a core when idle; restart to pick up edits.
# ui/serve.py refuses HOST beyond loopback without EXECUGRAPH_DASHBOARD_TOKEN and sets server.allowedHosts.
run: bootstrap
	$(PY) -m ui.serve --host $(HOST) --port $(PORT)

# `make test`: every behaviour once (--tier default); `make test-long`: the repeats and long sweeps it leaves out
# (tests/support/tiers.py). CI (.ci/run) runs both.
test: bootstrap system-deps lint bytecode
	$(PY) -m pytest -q --timeout=900 -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=30 --tier default $(PYTEST_ARGS)

test-long: bootstrap system-deps bytecode
	$(PY) -m pytest -q --timeout=900 -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=15 --tier long $(PYTEST_ARGS)

# The pure tests (no processes, servers, databases, browsers or sandbox), in parallel: under 2 minutes.
test-fast: bootstrap bytecode
	$(PY) -m pytest -q -n auto -m "not integration and not browser and not slow and not postgres" $(PYTEST_ARGS)

# The documentation site (MkDocs) into site/; strict: a broken link or a page left out of the nav fails it.
docs: bootstrap
	$(PY) -m mkdocs build --strict --site-dir site

lint: bootstrap
	$(PY) -m ruff check .

# The project's modules compiled once, before the tests: each test process and the hundreds of CLI, dashboard and
# worker processes the tests start would otherwise compile what they import from source again, wherever
# PYTHONDONTWRITEBYTECODE is set (Python still reads these files; about a tenth of a CLI-heavy test file's CPU).
bytecode: bootstrap
	@$(PY) -m compileall -q -j 0 app.py execugraph sandbox ui pages standins tests examples bench

doctor: bootstrap
	$(PY) -m execugraph doctor

bench: bootstrap
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf .venv .cache .pytest_cache .ruff_cache test-artifacts site
