# The two commands of the README: `make run` and `make test`. Everything else is a helper.
PORT ?= 8501
HOST ?= 127.0.0.1
PY := .venv/bin/python

.PHONY: run test bootstrap system-deps lint bench doctor clean

bootstrap:
	@scripts/bootstrap.sh

system-deps:
	@scripts/system-deps.sh

# No file watcher: watching the tree (.venv, .cache, the database) costs a core when idle; restart to pick up edits.
# ui/serve.py refuses HOST beyond loopback without EXECUGRAPH_DASHBOARD_TOKEN and sets server.allowedHosts.
run: bootstrap
	$(PY) -m ui.serve --host $(HOST) --port $(PORT)

test: bootstrap system-deps lint
	$(PY) -m pytest -q --timeout=900 $(PYTEST_ARGS)

lint: bootstrap
	$(PY) -m ruff check .

doctor: bootstrap
	$(PY) -m execugraph doctor

bench: bootstrap
	@for f in bench/*.py; do echo "== $$f"; $(PY) $$f || exit 1; done

clean:
	rm -rf .venv .cache .pytest_cache .ruff_cache test-artifacts
