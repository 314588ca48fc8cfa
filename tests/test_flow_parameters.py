"""Our flows hand the Prefect API their parameters exactly as Prefect's own encoder (FastAPI's
jsonable_encoder) would, without importing FastAPI (flows/parameters.py)."""
from __future__ import annotations

import datetime as dt
import subprocess
import sys

from fastapi.encoders import jsonable_encoder

from flows.ingest import backfill, ingest_file, scheduled_backfill
from flows.parameters import plain_json
from flows.prefect_flow import PlainParameterFlow
from flows.trees import TreeRun
from flows.watch import watch_rounds
from warehouse.identity.rounds import load_registry


def test_each_flow_encodes_its_real_parameters_as_prefect_would():
    rounds = list(load_registry().values())
    calls = [
        (backfill, {"rounds": rounds, "source": "../shared/mlcommons/mirror", "db_file": "w.duckdb",
                    "force": False, "allow": ["shrink"]}),
        (scheduled_backfill, {"source": None, "db_file": None, "rounds": "v5.1,v6.0", "trees": True}),
        (ingest_file, {"round_name": "v5.0", "path": "summary.csv", "origin": "unofficial",
                       "db_file": "w.duckdb", "force": True, "allow": None}),
        (watch_rounds, {"source": "http://127.0.0.1:8000", "db_file": "w.duckdb"}),
    ]
    for flow, parameters in calls:
        assert isinstance(flow.prefect, PlainParameterFlow), flow.name
        assert flow.prefect.serialize_parameters(parameters) == jsonable_encoder(parameters), flow.name
    assert rounds[0].published is not None  # a date among them, as the registry's rounds carry
    assert plain_json(TreeRun(dask_address="tcp://h:8786")) == jsonable_encoder(TreeRun(dask_address="tcp://h:8786"))
    assert plain_json(dt.datetime(2026, 1, 2, 3, tzinfo=dt.timezone.utc)) == "2026-01-02T03:00:00+00:00"


def test_other_values_go_to_prefects_own_encoder():
    parameters = {"kinds": frozenset({"a"})}
    assert watch_rounds.prefect.serialize_parameters(parameters) == {"kinds": ["a"]}


def test_watch_runs_without_importing_fastapi():
    probe = ("import sys; from flows.watch import watch_rounds; "
             "watch_rounds.prefect.serialize_parameters({'source': 's', 'db_file': 'd'}); "
             "print('fastapi' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
