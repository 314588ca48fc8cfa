"""power_readings: one measured power figure per run folder of a round rebuilt from its tree, beside
the run's performance row (the same round, source_id and run path), computed from the run's spl.txt
and mlperf_log_detail.txt (and, in v1.0, its power folder's timezone files) as MLCommons' checker
computes it (warehouse/trees/power.py). A figure that fails a check here is quarantined (source_id
'rebuilt/<round>/power') with every check it failed.

The columns a published table's power row carries line up: round, source_id, run_path (results.location
of a table round), system, model, scenario, value, unit ('Watts' or, per query, 'Joules' /
'millijoules': the checker's own words, as the tables publish them)."""
from __future__ import annotations

import pandera.polars as pa
import polars as pl

from schemas import ROUND

UNITS = ["Watts", "Joules", "millijoules"]
WATTS_SCENARIOS = ["Offline", "Server", "Interactive"]
ENERGY_SCENARIOS = ["SingleStream", "MultiStream"]
DIGEST = r"^[0-9a-f]{64}$"


class PowerReading(pa.DataFrameModel):
    """One run's measured power figure, as the round's submission checker computes it."""

    round: str = pa.Field(str_matches=ROUND, description="the round of the run folder")
    source_id: str = pa.Field(str_matches=r"^rebuilt/", description="the source of the run's performance row in "
                                                                      "results ('rebuilt/<round>')")
    run_path: str = pa.Field(str_matches=r"^[^/]+/[^/]+/results/[^/]+/[^/]+/[^/]+/performance/run_1$",
                             description="the run folder, relative to the round repository (results.location of "
                                         "its performance row)")
    division: str = pa.Field(description="closed, open or network, from the run folder")
    submitter: str = pa.Field(description="the submitter folder")
    platform: str = pa.Field(description="the system folder (results.platform)")
    system: str = pa.Field(nullable=True, description="the system's name in its systems/<platform>.json "
                                                      "(results.system); null when that description is not loaded")
    model: str = pa.Field(description="the benchmark folder as named (results.model)")
    benchmark: str = pa.Field(nullable=True, description="the canonical benchmark of the folder name "
                                                         "(benchmarks.csv); null when unknown")
    scenario: str = pa.Field(isin=WATTS_SCENARIOS + ENERGY_SCENARIOS, description="the scenario folder, as the "
                                                                                   "checker names it")
    value: float = pa.Field(gt=0, description="the power figure as the round's checker published it: mean Watts "
                                              "(Offline, Server, Interactive) or energy per query (SingleStream, "
                                              "MultiStream) in `unit`")
    unit: str = pa.Field(isin=UNITS, description="Watts; or Joules (to v2.1) or millijoules (from v3.0) per query")
    average_watts: float = pa.Field(gt=0, description="the mean of the positive Watts samples strictly inside the "
                                                      "window, whatever the scenario")
    samples: pl.Int64 = pa.Field(ge=1, description="the positive Watts samples the mean is of")
    samples_skipped: pl.Int64 = pa.Field(ge=0, description="non-positive samples inside the window, skipped as the "
                                                           "checker skips them (the analyzer's marker of a missing "
                                                           "reading)")
    power_begin: pl.Datetime("us") = pa.Field(description="the detail log's power_begin, as logged (UTC from "
                                                          "v1.1; v1.0's local time, to which the checker adds "
                                                          "power/client.json's timezone: see rule): the window's start")
    power_end: pl.Datetime("us") = pa.Field(description="the detail log's power_end: the window's end")
    duration_s: float = pa.Field(gt=0, description="power_end - power_begin, seconds")
    query_count: float = pa.Field(nullable=True, gt=0, description="the queries the energy is divided by, counted "
                                                                   "by the round's LoadGen rule (see rule); null for "
                                                                   "Watts")
    effective_scenario: str = pa.Field(nullable=True, description="the scenario LoadGen ran (a MultiStream result "
                                                                  "inferred from a SingleStream run counts x 8)")
    loadgen_version: str = pa.Field(nullable=True, description="the detail log's loadgen_version")
    rule: str = pa.Field(str_length={"min_value": 1}, description="how the figure was computed from the two files "
                                                                  "(the checker's formula and the query-count rule of "
                                                                  "the round's LoadGen)")
    checker: str = pa.Field(description="the checker functions the rule follows")
    spl_path: str = pa.Field(description="the sample log read, relative to the round repository")
    spl_sha256: str = pa.Field(str_matches=DIGEST, description="of the sample log read")
    detail_path: str = pa.Field(description="the detail log read, relative to the round repository")
    detail_sha256: str = pa.Field(str_matches=DIGEST, description="of the detail log read")

    @pa.dataframe_check(error="a second power figure for the same round and run folder")
    def one_per_run(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.struct("round", "run_path").is_first_distinct())

    @pa.dataframe_check(error="the unit does not fit the scenario (Watts for Offline, Server, Interactive; "
                              "energy per query for SingleStream, MultiStream)")
    def unit_of_scenario(cls, data) -> pl.LazyFrame:
        watts = pl.col("scenario").is_in(WATTS_SCENARIOS)
        return data.lazyframe.select(watts == (pl.col("unit") == "Watts"))

    @pa.dataframe_check(error="power_end is not after power_begin")
    def window_forward(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col("power_end") > pl.col("power_begin"))

    class Config:
        strict = True
        coerce = False
