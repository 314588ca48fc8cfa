"""The floor for rebuilding old rounds from their trees: a plain reader that reads what `mlperf-wh
trees` reads of each round (every system description, every performance run_1 LoadGen summary, and a
power run's spl.txt and detail log), parses the primary figure of each summary with one regular
expression, each description with json.loads and each power run as the checker does (power_floor.py),
and writes the rows to a new DuckDB file in one transaction. No validation, no identity, no marts:
what any reader of the same files must pay.

    .venv/bin/python bench/trees_floor.py OUT.duckdb TREE_ROOT [TREE_ROOT ...]
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import duckdb
import polars as pl

from power_floor import figures as power_figures

# LoadGen's summary: the scenario, the validity and the line that is the scenario's result
SCENARIO = re.compile(rb"^Scenario\s*:\s*(\S+)", re.MULTILINE)
VALID = re.compile(rb"^Result is\s*:\s*(\S+)", re.MULTILINE)
FIGURE = re.compile(rb"^(Samples per second|Tokens per second|Completed samples per second|Scheduled samples per "
                    rb"second|90th percentile latency \(ns\)|Early stopping 90th percentile estimate|Samples per "
                    rb"query|99th percentile latency \(ns\))\s*:\s*([0-9.eE+-]+)", re.MULTILINE)


def summaries(root: Path):
    for path in root.glob("*/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt"):
        text = path.read_bytes()
        scenario, valid, figure = SCENARIO.search(text), VALID.search(text), FIGURE.search(text)
        yield (str(path.relative_to(root)), scenario and scenario.group(1).decode(), valid and valid.group(1).decode(),
               figure and figure.group(1).decode(), figure and float(figure.group(2)))


def systems(root: Path):
    for path in root.glob("*/*/systems/*.json"):
        try:
            described = json.loads(path.read_bytes())
        except ValueError:
            continue
        if isinstance(described, dict):
            yield (str(path.relative_to(root)), str(described.get("accelerator_model_name")),
                   str(described.get("accelerators_per_node")), str(described.get("status")))


def main(argv: list[str]) -> int:
    out, roots = argv[0], [Path(a) for a in argv[1:]]
    runs = [(root.name, *row) for root in roots for row in summaries(root)]
    described = [(root.name, *row) for root in roots for row in systems(root)]
    power = [(root.name, f["run_path"], f.get("value"), f.get("unit")) for root in roots
             for f in power_figures(str(root))]
    con = duckdb.connect(out)
    con.execute("BEGIN")
    con.execute("CREATE TABLE runs (tree VARCHAR, path VARCHAR, scenario VARCHAR, validity VARCHAR, metric VARCHAR, "
                "value DOUBLE)")
    con.execute("CREATE TABLE systems (tree VARCHAR, path VARCHAR, accelerator VARCHAR, per_node VARCHAR, "
                "status VARCHAR)")
    run_frame = pl.DataFrame(runs, schema=["tree", "path", "scenario", "validity", "metric", "value"], orient="row")
    system_frame = pl.DataFrame(described, schema=["tree", "path", "accelerator", "per_node", "status"], orient="row")
    con.execute("INSERT INTO runs SELECT * FROM run_frame")
    con.execute("INSERT INTO systems SELECT * FROM system_frame")
    con.execute("CREATE TABLE power (tree VARCHAR, path VARCHAR, value DOUBLE, unit VARCHAR)")
    power_frame = pl.DataFrame(power, schema=["tree", "path", "value", "unit"], orient="row")
    con.execute("INSERT INTO power SELECT * FROM power_frame")
    con.execute("COMMIT")
    con.close()
    print(f"{len(runs)} run summaries, {len(described)} system descriptions, {len(power)} power runs")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
