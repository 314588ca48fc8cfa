"""The canonical results table: one row per (round, system entry, benchmark, scenario, metric, units).

The schema quarantines only what is broken: a missing, non-numeric, non-positive or non-finite
result; a missing submitter, platform, model or scenario; a duplicate; a unit that contradicts its
scenario's family (a latency unit on an Offline row). Words the warehouse has not seen yet (a new
unit, scenario, division, availability, suite, benchmark or accelerator) load, and are recorded in
the `drift` table against the vocabulary below.
"""
from __future__ import annotations

import pandera.polars as pa
import polars as pl

from schemas import ROUND

# The vocabulary the warehouse knows. A term outside it is admitted and reported as drift.
SCENARIOS = ["Offline", "Server", "Interactive", "SingleStream", "MultiStream"]
THROUGHPUT_SCENARIOS = ["Offline", "Server", "Interactive"]
LATENCY_SCENARIOS = ["SingleStream", "MultiStream"]
# What a throughput unit counts: tokens, or LoadGen samples (a Server query is one sample; a task of
# the end-to-end RAG benchmark, one question answered, is one sample: the checker reads LoadGen's
# samples per second and labels it Tasks/s).
TOKEN_UNITS = ["Tokens/s"]
SAMPLE_UNITS = ["Samples/s", "Queries/s", "Tasks/s"]
THROUGHPUT_UNITS = SAMPLE_UNITS + TOKEN_UNITS
LATENCY_UNITS = ["Latency (ms)", "Latency (s)"]
POWER_UNITS = ["Watts", "millijoules", "millijoules/Stream"]
# MultiStream's result before v2.0, in rows rebuilt from a submission tree (higher is better).
STREAM_UNITS = ["Samples/query"]
KNOWN_UNITS = THROUGHPUT_UNITS + LATENCY_UNITS + POWER_UNITS + STREAM_UNITS
DIVISIONS = ["closed", "open", "network"]
AVAILABILITIES = ["available", "preview", "rdi"]
SUITES = ["datacenter", "edge"]
VERIFICATIONS = ["verified", "preview", "rdi", "open", "unverified"]
METRICS = ["performance", "power"]
# Two rows with this key are one result published twice; MLCommons' final-report tool keeps the
# first of (ID, UsedModel, Scenario, Units); the later copies are quarantined here, not dropped.
DUPLICATE_KEY = ["round", "source_id", "entry_id", "model", "used_model", "scenario", "metric", "units"]
# A result within its source (round and source aside): what a load compares, keeps stale and counts.
ROW_KEY = [c for c in DUPLICATE_KEY if c not in ("round", "source_id")]

# The form of a unit says which way is better; the words inside it may be new ("Frames/s").
RATE_UNIT = r"(?i)(^.+/\s*s(ec(ond)?)?$|\bper\s+second\b)"
LATENCY_UNIT = r"(?i)^latency\b"


def unit_family(units: pl.Expr) -> pl.Expr:
    """'rate' (higher is better), 'latency' (lower is better) or null, from the unit's form."""
    return (pl.when(units.str.contains(LATENCY_UNIT)).then(pl.lit("latency"))
            .when(units.str.contains(RATE_UNIT)).then(pl.lit("rate"))
            .otherwise(pl.lit(None, dtype=pl.String)))


def is_power_unit(units: pl.Expr) -> pl.Expr:
    return units.is_in(POWER_UNITS) | units.str.contains("(?i)joule|watt")


class CanonicalResult(pa.DataFrameModel):
    """A published result, canonicalized. Rows failing any check go to the quarantine table."""

    round: str = pa.Field(description="MLPerf Inference round the result was published in, e.g. v6.0", str_matches=ROUND)
    division: str = pa.Field(nullable=True, description="closed | open | network, or a new one")
    availability: str = pa.Field(nullable=True, description="available | preview | rdi, or a new one")
    suite: str = pa.Field(nullable=True, description="datacenter, edge or both comma-joined")
    submitter: str = pa.Field(description="organisation that submitted the result, as published", str_length={"min_value": 1})
    system: str = pa.Field(description="system name as published", nullable=True)
    platform: str = pa.Field(description="platform (system) identifier as published", str_length={"min_value": 1})
    result_id: str = pa.Field(nullable=True, description="published or assigned, e.g. 6.0-0078")
    entry_id: str = pa.Field(description="Suite/Division/Submitter/Platform[/UsedModel]")
    model: str = pa.Field(str_length={"min_value": 1}, description="the benchmark, as published")
    used_model: str = pa.Field(description="the model actually run, as published (UsedModel; may differ in the open division)", nullable=True)
    scenario: str = pa.Field(str_length={"min_value": 1},
                             description="LoadGen scenario (Offline, Server, Interactive, SingleStream, "
                                         "MultiStream): known ones in MLCommons' spelling, any case in the file")
    metric: str = pa.Field(description="performance (the result) or power (the entry's measured power for the same run)", isin=METRICS)
    value: float = pa.Field(gt=0, description="the result as published, in units: finite and positive")
    units: str = pa.Field(nullable=True, description="as published")
    higher_is_better: bool = pa.Field(nullable=True, description="from the unit's form; null if unknown")
    accelerator_raw: str = pa.Field(nullable=True, description="as published; null for CPU-only")
    accelerators_per_node: pl.Int64 = pa.Field(description="accelerators in each node, as published (a#)", nullable=True, ge=1)
    nodes: pl.Int64 = pa.Field(description="number of nodes in the system, as published", nullable=True, ge=1)
    total_accelerators: pl.Int64 = pa.Field(description="accelerators in the whole system (as published, else nodes x accelerators per node)", nullable=True, ge=1)
    accelerator_count_disagrees: bool = pa.Field(
        description="the file's total accelerators differs from nodes x accelerators per node")
    processor: str = pa.Field(nullable=True, description="host processor model, as published")
    processors_per_node: pl.Int64 = pa.Field(nullable=True, ge=1,
                                             description="host processors (sockets) per node: host_processors_per_node, else p#")
    software: str = pa.Field(description="software stack as published", nullable=True)
    weight_data_types: str = pa.Field(description="numeric format of the model weights, as published", nullable=True)
    accuracy: str = pa.Field(description="the accuracy field as published (for LLMs it reports TOKENS_PER_SAMPLE)", nullable=True)
    tokens_per_sample: float = pa.Field(description="mean tokens per sample, read from the accuracy field; turns samples into tokens", nullable=True, gt=0)
    inferred: bool = pa.Field(description="true when MLCommons inferred the result (e.g. a scenario derived from another)")
    verification: str = pa.Field(description="verified (closed, available, audited), preview, rdi, open or unverified (unofficial file)", isin=VERIFICATIONS)
    extra: str = pa.Field(nullable=True, description="JSON object of the fields the parser does not map")
    source_id: str = pa.Field(description="the load this row came from: sources.source_id")
    location: str = pa.Field(nullable=True, description="the run folder in the submission tree")
    notes: str = pa.Field(nullable=True, description="the entry's notes as published (a TGP or power cap may be stated there)")

    @pa.dataframe_check(error="value is infinite")
    def value_is_finite(cls, data) -> pl.LazyFrame:
        # NaN is caught (as missing) by the column's own not-null check.
        return data.lazyframe.select(pl.col("value").is_infinite().not_().fill_null(True))

    @pa.dataframe_check(error="units contradict the scenario")
    def units_fit_scenario(cls, data) -> pl.LazyFrame:
        scenario, family = pl.col("scenario"), unit_family(pl.col("units"))
        contradicts = (
            (pl.col("metric") == "performance")
            & ((scenario.is_in(THROUGHPUT_SCENARIOS) & (family == "latency"))
               | (scenario.is_in(LATENCY_SCENARIOS) & (family == "rate")))
        )
        return data.lazyframe.select(contradicts.not_().fill_null(True))

    @pa.dataframe_check(error="duplicate of an earlier row (same round, entry, model, scenario, metric, units)")
    def not_a_duplicate(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.struct(DUPLICATE_KEY).is_first_distinct())

    class Config:
        strict = False
        coerce = False
