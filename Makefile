VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install run test test-slow test-unit test-readme bench docs report serve clean

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

bench: install
	$(PY) bench/run.py

report: install
	$(VENV)/bin/mlperf-wh report --out report

docs: install
	$(VENV)/bin/mlperf-wh docs

# A Prefect server on 127.0.0.1:4200 (UI at http://127.0.0.1:4200), then both deployments served to it.
serve: install
	$(VENV)/bin/prefect server start --host 127.0.0.1 --port 4200 & server=$$!; \
	trap 'kill $$server' EXIT INT TERM; \
	$(PY) -c "import time, urllib.request as u; exec('while True:\n try: u.urlopen(\'http://127.0.0.1:4200/api/health\'); break\n except OSError: time.sleep(1)')"; \
	PREFECT_API_URL=http://127.0.0.1:4200/api $(VENV)/bin/mlperf-wh serve

clean:
	rm -rf $(VENV) warehouse/*.duckdb
