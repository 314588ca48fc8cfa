"""The submission-tree tables: one run summary per result (LoadGen's, or the endpoint harness's),
one description per system.

A file whose parsed row fails any check here is quarantined whole, with every check it failed.
"""
from __future__ import annotations

import pandera.polars as pa
import polars as pl

from schemas import ROUND
from schemas.endpoints import ENDPOINT_CLIENT, ENDPOINT_HARNESS, HARNESSES, LOAD_PATTERN_SCENARIO, LOADGEN

LOADGEN_SCENARIOS = ["Offline", "Server", "SingleStream", "MultiStream"]
# LoadGen before v1.0 printed "Performance" and "Submission" for what later versions call "PerformanceOnly" and "SubmissionRun".
MODES = ["PerformanceOnly", "AccuracyOnly", "SubmissionRun", "FindPeakPerformance", "Performance", "Submission"]
PERCENTILE_ORDER = ("p50", "p90", "p95", "p97", "p99", "p999")


class _RunFolderRow(pa.DataFrameModel):
    """What every row of run_summaries has, whichever harness wrote the file it was read from."""

    round: str = pa.Field(description="the round of the run folder", str_matches=ROUND)
    run_path: str = pa.Field(str_matches=r"^[^/]+/[^/]+/results/",
                             description="the run folder, relative to the round repository")
    sha256: str = pa.Field(str_length=64, description="of the file loaded (see tree_files)")
    harness: str = pa.Field(isin=list(HARNESSES), description="what wrote the file the row was read from")
    summary_path: str = pa.Field(description="the file the row was read from, relative to the round repository")
    per_second: float = pa.Field(alias=r"^.*(_per_second|_per_second_inferred|_loadgen_overhead)$",
                                 regex=True, nullable=True, ge=0,
                                 description="samples / tokens / queries per second, as printed")
    nanoseconds: pl.Int64 = pa.Field(alias=r"^.*_ns$", regex=True, nullable=True, ge=0,
                                     description="latency, TTFT, TPOT statistics and constraints, durations")
    target_qps: float = pa.Field(nullable=True, ge=0)
    counts: pl.Int64 = pa.Field(alias=r"^(samples_per_query|max_async_queries|min_duration_ms|"
                                      r"max_duration_ms|min_query_count|max_query_count|"
                                      r"performance_sample_count|accuracy_sample_count|warnings|"
                                      r"errors|output_tokens_total)$", regex=True, nullable=True, ge=0)
    samples_issued: pl.Int64 = pa.Field(nullable=True, ge=0)
    samples_completed: pl.Int64 = pa.Field(nullable=True, ge=0)
    samples_failed: pl.Int64 = pa.Field(nullable=True, ge=0)
    output_tokens_mean: float = pa.Field(nullable=True, ge=0)
    unparsed_lines: list[str] = pa.Field(description="lines (or JSON fields) no column takes, kept verbatim")

    @pa.dataframe_check(error="a second summary for the same round and run folder")
    def one_per_run(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.struct("round", "run_path").is_first_distinct())

    @pa.dataframe_check(error="percentiles are not in increasing order")
    def percentiles_increase(cls, data) -> pl.LazyFrame:
        ok = pl.lit(True)
        for prefix in ("latency", "ttft", "tpot"):
            cols = [pl.col(f"{prefix}_{p}_ns") for p in PERCENTILE_ORDER]
            for low, high in zip(cols, cols[1:]):
                ok = ok & (low <= high).fill_null(True)
        return data.lazyframe.select(ok)

    class Config:
        strict = False
        coerce = False


class RunSummary(_RunFolderRow):
    """mlperf_log_summary.txt of one result's run folder, as LoadGen printed it. Times in ns, as
    published; rates per second. Interactive runs print `Scenario : Server` (LoadGen runs them
    as Server with tighter TTFT/TPOT constraints): `loadgen_scenario` is LoadGen's, the result
    row's scenario is the table's. Rows the endpoint harness's files gave are validated by
    EndpointRunSummary and EndpointClientRun and land in the same table."""

    harness: str = pa.Field(isin=[LOADGEN], description="what wrote the file the row was read from")
    sut_name: str = pa.Field(nullable=True)
    loadgen_scenario: str = pa.Field(isin=LOADGEN_SCENARIOS)
    mode: str = pa.Field(isin=MODES)
    result_valid: bool = pa.Field(description="Result is : VALID")
    performance_constraints_satisfied: bool = pa.Field(nullable=True, description="Server runs only")
    min_duration_satisfied: bool = pa.Field(nullable=True)
    min_queries_satisfied: bool = pa.Field(nullable=True)
    early_stopping_satisfied: bool = pa.Field(nullable=True)
    result_latency_percentile: float = pa.Field(nullable=True, gt=0, le=100)
    seeds: pl.UInt64 = pa.Field(alias=r"^.*_rng_seed$", regex=True, nullable=True)


class _EndpointRow(_RunFolderRow):
    """A run of the endpoint harness or its client: the scenario comes from the load pattern
    (Offline: as fast as possible; Server: Poisson arrivals at a target rate), the counts are
    required, and no more samples complete than were issued."""

    loadgen_scenario: str = pa.Field(isin=["Offline", "Server"],
                                     description="the scenario the run's load pattern is LoadGen's name of")
    samples_issued: pl.Int64 = pa.Field(ge=0)
    samples_completed: pl.Int64 = pa.Field(ge=0)
    samples_failed: pl.Int64 = pa.Field(ge=0)
    duration_ns: pl.Int64 = pa.Field(gt=0)

    @pa.dataframe_check(error="more samples completed than were issued")
    def completed_within_issued(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col("samples_completed") <= pl.col("samples_issued"))

    @pa.dataframe_check(error="no samples per second for the run's scenario")
    def has_a_rate(cls, data) -> pl.LazyFrame:
        rate = pl.coalesce("samples_per_second", "completed_samples_per_second")
        return data.lazyframe.select(rate.is_not_null() & (rate > 0))


class EndpointRunSummary(_EndpointRow):
    """performance/result_summary.json (or report.txt) of the endpoint harness: times in ns (the
    report's ms x 1e6), rates per second, the harness's version."""

    harness: str = pa.Field(isin=[ENDPOINT_HARNESS], description="what wrote the file the row was read from")
    harness_version: str = pa.Field(str_length={"min_value": 1})
    load_pattern: str = pa.Field(isin=list(LOAD_PATTERN_SCENARIO))


class EndpointClientRun(_EndpointRow):
    """The head of performance/run_1/results.json of the endpoint client: its totals and rate (no
    latencies, no tokens)."""

    harness: str = pa.Field(isin=[ENDPOINT_CLIENT], description="what wrote the file the row was read from")


# The model a row is validated by, by the harness that wrote its file.
SUMMARY_MODELS = {LOADGEN: RunSummary, ENDPOINT_HARNESS: EndpointRunSummary, ENDPOINT_CLIENT: EndpointClientRun}


class SystemDescription(pa.DataFrameModel):
    """systems/<platform>.json: the hardware and software of one system, the published fields
    typed (counts as integers, capacities also in GB) and the JSON as published."""

    round: str = pa.Field(description="the round of the system description", str_matches=ROUND)
    system_path: str = pa.Field(description="the file, relative to the round repository: <division>/<submitter>/systems/<platform>.json", str_matches=r"^[^/]+/[^/]+/systems/[^/]+\.json$")
    sha256: str = pa.Field(description="of the file loaded (see tree_files)", str_length=64)
    system_name: str = pa.Field(str_length={"min_value": 1})
    submitter: str = pa.Field(nullable=True)
    division: str = pa.Field(nullable=True)
    status: str = pa.Field(nullable=True, description="availability as the submitter wrote it")
    system_type: str = pa.Field(nullable=True)
    host_processor_model_name: str = pa.Field(str_length={"min_value": 1})
    accelerator_model_name: str = pa.Field(nullable=True)
    counts: pl.Int64 = pa.Field(alias=r"^(number_of_nodes|host_processors_per_node|"
                                      r"host_processor_core_count|accelerators_per_node)$",
                                regex=True, nullable=True, ge=0)
    gigabytes: float = pa.Field(alias=r"^.*_memory_gb$", regex=True, nullable=True, gt=0)
    untyped_fields: list[str] = pa.Field(description="fields present but not typeable as counts")
    raw_json: str = pa.Field(description="the description as read, as JSON (a key given twice: its last value, as json.load reads it)")
    repeated_keys: list[str] = pa.Field(description="a finding on the description: each key given twice with two values, "
                                                    "with the values in file order; the last is read (as MLCommons' "
                                                    "checker's json.load reads it)")

    @pa.dataframe_check(error="a second description for the same round and system file")
    def one_per_system(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.struct("round", "system_path").is_first_distinct())

    class Config:
        strict = False
        coerce = False
