# Two environments. .venv is what `make run` builds and every documented command uses: the package with
# its optional features (report, BI, Dask) and nothing for tests. .venv-test is the suite's: the test
# extra on top (pytest, and pandas and hypothesis, which Pandera imports whenever they are installed:
# about 0.5 s and 90 MiB more per run, so never in .venv).
# Both install the versions locked in requirements/ (hashed: the same files everywhere), with uv, itself
# pinned and hashed in requirements/uv.txt and installed into .venv-uv: about 15 s a venv, bytecode
# compiled, against pip's 80 s, every version fixed. `make lock` writes the lock again after a change to
# pyproject.toml's dependencies (tests/test_lock.py fails while it does not satisfy them).
VENV ?= .venv
PY := $(VENV)/bin/python
TEST_VENV ?= .venv-test
TEST_PY := $(TEST_VENV)/bin/python
UV_VENV ?= .venv-uv
UV := $(UV_VENV)/bin/uv
# one resolution for every platform, for the oldest Python the project supports (requires-python)
LOCK := $(UV) pip compile --quiet --universal --generate-hashes --python-version 3.11 --no-header pyproject.toml

.PHONY: install install-test run test test-slow test-unit test-readme test-superset bench yardstick docs report report-screenshots serve clean lock

# uv is one binary: put where python3's own pip can (no venv to bootstrap: ~6 s against ~20 s), else
# through a venv of its own when python3 has no pip.
$(UV): requirements/uv.txt
	if python3 -m pip --version >/dev/null 2>&1; then \
		python3 -m pip install --quiet --root-user-action=ignore --require-hashes --upgrade --target $(UV_VENV) -r requirements/uv.txt; \
	else \
		python3 -m venv $(UV_VENV) && $(UV_VENV)/bin/python -m pip install --quiet --require-hashes -r requirements/uv.txt; \
	fi
	touch $@

# $(1): the venv, $(2): its locked requirements. `uv pip sync` leaves exactly the locked versions (and
# removes what the lock does not name); the project goes in after, editable, on its own.
# --compile-bytecode: uv, unlike pip, writes no .pyc, and where PYTHONDONTWRITEBYTECODE is set (as on
# these machines) Python writes none either: every process then compiled Prefect, Pandera, Polars'
# Python and the rest from source, 6.1 s to import what `mlperf-wh` imports against 2.3 s compiled
# (about 12 s more per install, once).
define locked_venv
	$(UV) venv --quiet --allow-existing --python python3 $(1)
	$(UV) pip sync --quiet --compile-bytecode --python $(1)/bin/python --require-hashes $(2)
	$(UV) pip install --quiet --python $(1)/bin/python --no-deps -e .
	touch $(1)/.installed
endef

# Makefile too: a venv follows the recipe that built it (a change to locked_venv reaches every checkout).
$(VENV)/.installed: pyproject.toml requirements/run.txt Makefile $(UV)
	$(call locked_venv,$(VENV),requirements/run.txt)

$(TEST_VENV)/.installed: pyproject.toml requirements/test.txt Makefile $(UV)
	$(call locked_venv,$(TEST_VENV),requirements/test.txt)

lock: $(UV)
	$(LOCK) --extra all -o requirements/run.txt
	$(LOCK) --extra test -o requirements/test.txt

install: $(VENV)/.installed

install-test: $(TEST_VENV)/.installed

run: install
	$(VENV)/bin/mlperf-wh backfill

# The suites start many Python processes (the CLI, flows, servers, two pytest workers): empty, so each
# reuses the bytecode of the project's modules and of pytest's rewritten tests, written once into the
# checkout's __pycache__ (ignored by git), even where PYTHONDONTWRITEBYTECODE is set in the environment.
test test-slow test-unit test-readme: export PYTHONDONTWRITEBYTECODE :=

# Every test but the slow ones (over ~1.5 s on 2 cores: whole processes starting Prefect, several loads or
# flow runs in a row, a fuzz, a Dask cluster, a fresh venv): those run in `make test-slow`, which CI runs
# after this, so this suite stays within four minutes on 2 cores.
# --dist loadfile: a module's fixtures (its exports, the report page) are built by one worker, not both.
test: install-test
	$(TEST_PY) -m pytest -q -n 2 --dist loadfile -m "not slow"

# The fast suite gives each DuckDB connection one thread (tests/conftest.py: two workers on two cores);
# the slow suite runs with DuckDB's default, a thread per core, as a user's commands do.
test-slow: export MLPERF_DUCKDB_THREADS :=
test-slow: install-test install  # install: tests/test_bench_smoke.py runs bench sections in .venv
	$(TEST_PY) -m pytest -q -n 2 --dist loadfile -m slow

# The unit tests alone (pure functions: no ../shared, no Prefect, no servers), in seconds.
test-unit: install-test
	$(TEST_PY) -m pytest -q -m unit

# Every shell command of README.md and of the guides in docs/, as written, in a fresh copy of the checkout
# (CI runs it after `make test`; the order is DOCUMENTS in tests/readme_commands.py).
test-readme: install install-test
	$(TEST_PY) tests/readme_commands.py

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

test-superset: install-test $(SUPERSET_VENV)/.installed
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	$(TEST_VENV)/bin/mlperf-wh --quiet --db "$$tmp/w.duckdb" ingest $(SUPERSET_ROUND) --source $(MIRROR) && \
	env -u PYTHONPATH $(SUPERSET_VENV)/bin/python tests/superset/check_superset.py \
		"$$tmp/w.read.duckdb" --marts-dir sql/marts --home "$$tmp/superset"

# The yardstick: MLCommons' final-report tool (../shared/anchors/mlcommons-final-report, never copied
# here) in an environment of its own holding only what it imports (bench/yardstick-requirements.txt).
# `make bench` runs it beside the core path (bench/core_path_bench.py).
ANCHOR ?= ../shared/anchors/mlcommons-final-report
YARDSTICK_VENV ?= .venv-yardstick

$(YARDSTICK_VENV)/.installed: bench/yardstick-requirements.txt
	python3 -m venv $(YARDSTICK_VENV)
	$(YARDSTICK_VENV)/bin/python -m pip install --quiet -r bench/yardstick-requirements.txt
	touch $@

yardstick: $(YARDSTICK_VENV)/.installed

# Timed in .venv, what `make run` builds (and in .venv-test too where it exists, to show what the test
# extra costs a run).
bench: install install-test $(YARDSTICK_VENV)/.installed
	MLPERF_BENCH_ANCHOR=$(ANCHOR) $(PY) bench/run.py

# The report, then what a reviewer reads before it ships: its first screen and its history chart in
# headless Chromium at 1400 x 1000 and 1000 x 1000 (tests/report_screenshots.py, through .venv-test where Playwright is),
# written to build/report-screenshots/ (not committed), with a warning if the page scrolls sideways or
# a chart panel draws nothing. Without .venv-test (make install-test) or Chromium, the report alone.
SCREENSHOTS := $(CURDIR)/build/report-screenshots
# The screenshots alone, of the report `make report` wrote (at 1400 and 1000 px: the first screen and
# every chart), each reading rule of issue 63 the page breaks printed as a warning.
report-screenshots: install-test
	$(TEST_PY) tests/report_screenshots.py report/index.html $(SCREENSHOTS)

report: install
	$(VENV)/bin/mlperf-wh report --out report
	@if [ -x "$(TEST_PY)" ] && command -v chromium >/dev/null 2>&1; then \
		$(TEST_PY) tests/report_screenshots.py report/index.html $(SCREENSHOTS); \
	else echo "screenshots of the page: make install-test (and apt-get install chromium), then make report"; fi

docs: install
	$(VENV)/bin/mlperf-wh docs

# Both deployments served to a Prefect server that serve starts on 127.0.0.1:4200 (UI at
# http://127.0.0.1:4200); Ctrl-C stops the deployments, then the server.
serve: install
	env -u PREFECT_API_URL $(VENV)/bin/mlperf-wh serve

clean:
	rm -rf $(VENV) $(TEST_VENV) $(UV_VENV) warehouse/*.duckdb
