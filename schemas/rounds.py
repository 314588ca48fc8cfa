"""The warehouse's own round table and its load history (`rounds`, `load_events`)."""
from __future__ import annotations

import pandera.polars as pa
import polars as pl

from schemas import ROUND

FOUND_BY = ["registry", "watcher", "first load"]
EVENT_STATUSES = ["loaded", "reloaded", "unchanged", "failed"]


class RoundRow(pa.DataFrameModel):
    """One MLPerf Inference round the warehouse knows: listed in warehouse/identity/reference/rounds.toml,
    found by the watcher at the source under a name the registry does not list yet, or loaded (an
    `ingest --file`) under such a name: dated the day it was first seen or first loaded."""

    round: str = pa.Field(description="round name, e.g. v6.0", unique=True, str_matches=ROUND)
    repository: str = pa.Field(str_length={"min_value": 1}, description="inference_results_vX.Y")
    branch: str = pa.Field(description="the repository branch the results are read from", str_length={"min_value": 1})
    files: pl.List(pl.String) = pa.Field(description="candidate result tables, in order of preference")
    published_on: pl.Date = pa.Field(description="registry: the day MLCommons published the results; "
                                                 "found by the watcher: the day it first saw the round; "
                                                 "first load: the day it was first loaded")
    found_by: str = pa.Field(description="registry (rounds.toml), watcher (found at the source) or first load", isin=FOUND_BY)


class LoadEvent(pa.DataFrameModel):
    """One load of one source file (or one failed attempt), with what it changed."""

    loaded_at: pl.Datetime(time_zone="UTC") = pa.Field(description="when the load (or failed attempt) finished, UTC")
    flow_run_id: str = pa.Field(nullable=True, description="the Prefect flow run that did it")
    run_kind: str = pa.Field(description="watch | backfill | ingest")
    round: str = pa.Field(description="the round loaded", str_matches=ROUND)
    source_id: str = pa.Field(description="sources.source_id of the file; null when the attempt failed before one was known", nullable=True)
    url: str = pa.Field(description="where the bytes came from (URL or local path)", nullable=True)
    status: str = pa.Field(isin=EVENT_STATUSES, description="loaded: first load of the source; "
                                                              "reloaded: it replaced an earlier load; "
                                                              "unchanged: a run found the file as loaded; "
                                                              "failed: an attempt that loaded nothing")
    sha256: str = pa.Field(description="checksum of the file loaded", nullable=True)
    previous_sha256: str = pa.Field(description="checksum of the load it replaced; null for a first load", nullable=True)
    rows_read: pl.Int64 = pa.Field(description="records in the file", ge=0)
    rows_loaded: pl.Int64 = pa.Field(description="records loaded into results", ge=0)
    rows_quarantined: pl.Int64 = pa.Field(description="records quarantined (see quarantine)", ge=0)
    results_new: pl.Int64 = pa.Field(ge=0, description="result rows whose key the earlier load lacked")
    results_changed: pl.Int64 = pa.Field(ge=0, description="same key (entry, model, scenario, metric, "
                                                           "units), another value")
    results_removed: pl.Int64 = pa.Field(ge=0, description="keys of the earlier load that are gone")
    change_summary: str = pa.Field(description="what the load changed, in words")

    class Config:
        strict = True
