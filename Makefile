VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install run test bench docs report clean

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

run: install
	$(VENV)/bin/mlperf-wh backfill

test: install
	$(PY) -m pytest -q

bench: install
	$(PY) bench/run.py

report: install
	$(VENV)/bin/mlperf-wh report --out report

docs: install
	$(VENV)/bin/mlperf-wh docs

clean:
	rm -rf $(VENV) warehouse/*.duckdb
