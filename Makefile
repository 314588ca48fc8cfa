VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install run test test-slow test-unit test-readme test-superset bench docs report serve clean

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

run: install
	$(VENV)/bin/mlperf-wh backfill

# Every test but the slow ones (over ~10 s: whole processes starting Prefect, several flow runs in
# a row, a fuzz, a Dask cluster, a fresh venv): those run in `make test-slow`, which CI runs after this.
# --dist loadfile: a module's fixtures (its exports, the report page) are built by one worker, not both.
test: install
	$(PY) -m pytest -q -n 2 --dist loadfile -m "not slow"

test-slow: install
	$(PY) -m pytest -q -n 2 --dist loadfile -m slow

# The unit tests alone (pure functions: no ../shared, no Prefect, no servers), in seconds.
test-unit: install
	$(PY) -m pytest -q -m unit

# Every shell command of README.md and of the guides in docs/, as written, in a fresh copy of the checkout
# (CI runs it after `make test`; the order is DOCUMENTS in tests/readme_commands.py).
test-readme: install
	$(PY) tests/readme_commands.py

# A real Apache Superset on the published read-only copy (docs/bi-superset.md): its own venv from
# tests/superset/requirements.txt (a ~2.5 min install, never the project's venv), one round ingested
# from the mirror with the project's CLI, then tests/superset/check_superset.py with Superset's Python
# (it imports Superset only). Optional: not part of `make test` or CI.
SUPERSET_VENV ?= .venv-superset
MIRROR ?= ../shared/mlcommons/mirror
SUPERSET_ROUND ?= v6.0

$(SUPERSET_VENV)/.installed: tests/superset/requirements.txt tests/superset/constraints.txt
	python3 -m venv $(SUPERSET_VENV)
	$(SUPERSET_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(SUPERSET_VENV)/bin/python -m pip install --quiet -r tests/superset/requirements.txt -c tests/superset/constraints.txt
	touch $@

test-superset: install $(SUPERSET_VENV)/.installed
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(VENV)/bin/mlperf-wh --quiet --db "$$tmp/w.duckdb" ingest $(SUPERSET_ROUND) --source $(MIRROR) && \
	env -u PYTHONPATH $(SUPERSET_VENV)/bin/python tests/superset/check_superset.py \
		"$$tmp/w.read.duckdb" --marts-dir sql/marts --home "$$tmp/superset"

# The package alone, as a user installs it (no extras): bench/core_path_bench.py measures the core path
# in it beside the dev venv, whose test extra brings pandas and hypothesis, which Pandera then imports.
CORE_VENV ?= .venv-core

$(CORE_VENV)/.installed: pyproject.toml
	python3 -m venv $(CORE_VENV)
	$(CORE_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(CORE_VENV)/bin/python -m pip install --quiet -e .
	touch $@

bench: install $(CORE_VENV)/.installed
	$(PY) bench/run.py

# The Chromium tests (tests/test_report.py, in make test-slow) leave screenshots of the page for a reviewer.
SCREENSHOTS := $(CURDIR)/build/report-screenshots
report: install
	$(VENV)/bin/mlperf-wh report --out report
	@if [ -d "$(SCREENSHOTS)" ]; then echo "screenshots of the page in Chromium (from the last make test-slow): $(SCREENSHOTS)/"; \
	else echo "screenshots of the page in Chromium: make test-slow writes them to $(SCREENSHOTS)/"; fi

docs: install
	$(VENV)/bin/mlperf-wh docs

# Both deployments served to a Prefect server that serve starts on 127.0.0.1:4200 (UI at
# http://127.0.0.1:4200); Ctrl-C stops the deployments, then the server.
serve: install
	env -u PREFECT_API_URL $(VENV)/bin/mlperf-wh serve

clean:
	rm -rf $(VENV) warehouse/*.duckdb
