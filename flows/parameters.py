"""Flow parameters as the Prefect API stores them, without importing FastAPI to encode them.

Prefect turns a flow run's parameters into JSON with FastAPI's `jsonable_encoder`, and so imports
FastAPI (0.1-0.2 s here) in every process that starts a flow run, although a run against a server
needs nothing else of it. Our flows take text, numbers, booleans, dates, lists, dicts and
dataclasses of them (Round, TreeRun): encoded here as `jsonable_encoder` encodes them
(tests/test_flow_parameters.py holds them equal on each flow's real parameters). Any other value
goes to Prefect's own method (flows/prefect_flow.py).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import os
from typing import Callable

from warehouse.ingest.source_urls import redact
from warehouse.settings import variable


class _NotPlain(Exception):
    pass


def plain_json(value):
    """`value` as jsonable_encoder returns it, for the plain kinds above; _NotPlain for others."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, (list, tuple)):
        return [plain_json(v) for v in value]
    if type(value) is dict and all(type(k) is str for k in value):
        return {k: plain_json(v) for k, v in value.items()}
    if type(value) in (dt.date, dt.datetime):
        return value.isoformat()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain_json(dataclasses.asdict(value))
    raise _NotPlain(type(value).__name__)


def without_secrets(value):
    """Every URL in `value` (at any depth) without its credentials: what Prefect's database keeps."""
    if isinstance(value, str):
        return redact(value) if "://" in value else value
    if isinstance(value, list):
        return [without_secrets(v) for v in value]
    if isinstance(value, dict):
        return {k: without_secrets(v) for k, v in value.items()}
    return value


def deployable_source(source: str | None) -> str | None:
    """The `source` a deployment stores in Prefect. One with credentials is not stored: it goes to
    MLPERF_SOURCE of this process, where the runs this process serves read it."""
    if source is None or redact(source) == source:
        return source
    os.environ[variable("source")] = source
    return None


def api_parameters(parameters: dict, prefects_own: Callable[[dict], dict]) -> dict:
    """`parameters` as the API is sent them: plain JSON with their URLs' credentials removed."""
    try:
        serialized = {name: plain_json(value) for name, value in parameters.items()}
    except _NotPlain:
        serialized = prefects_own(parameters)
    return without_secrets(serialized)
