"""The canonical results table: one row per (round, system entry, benchmark, scenario, metric)."""
from __future__ import annotations

import pandera.polars as pa
import polars as pl

from warehouse.parse import KNOWN_UNITS, LATENCY_UNITS, POWER_UNITS, THROUGHPUT_UNITS

SCENARIOS = ["Offline", "Server", "Interactive", "SingleStream", "MultiStream"]
THROUGHPUT_SCENARIOS = ["Offline", "Server", "Interactive"]
LATENCY_SCENARIOS = ["SingleStream", "MultiStream"]
DIVISIONS = ["closed", "open", "network"]
AVAILABILITIES = ["available", "preview", "rdi"]
VERIFICATIONS = ["verified", "preview", "rdi", "open", "unverified"]
DUPLICATE_KEY = ["round", "source_id", "entry_id", "model", "used_model", "scenario", "metric"]


class CanonicalResult(pa.DataFrameModel):
    """A published result, canonicalized. Rows failing any check go to the quarantine table."""

    round: str = pa.Field(str_matches=r"^v[0-9]+\.[0-9]+$")
    division: str = pa.Field(isin=DIVISIONS)
    availability: str = pa.Field(isin=AVAILABILITIES)
    suite: str = pa.Field(str_matches=r"^(datacenter|edge)(,(datacenter|edge))*$",
                          description="datacenter, edge or both comma-joined")
    submitter: str = pa.Field(str_length={"min_value": 1})
    system: str = pa.Field(nullable=True)
    platform: str = pa.Field(str_length={"min_value": 1})
    result_id: str = pa.Field(nullable=True, description="published or assigned, e.g. 6.0-0078")
    entry_id: str = pa.Field(description="Suite/Division/Submitter/Platform[/UsedModel]")
    model: str = pa.Field(str_length={"min_value": 1}, description="the benchmark, as published")
    used_model: str = pa.Field(nullable=True)
    scenario: str = pa.Field(isin=SCENARIOS)
    metric: str = pa.Field(isin=["performance", "power"])
    value: float = pa.Field(gt=0, description="finite and positive")
    units: str = pa.Field(isin=list(KNOWN_UNITS))
    higher_is_better: bool = pa.Field(nullable=True)
    accelerator_raw: str = pa.Field(nullable=True, description="as published; null for CPU-only")
    accelerators_per_node: pl.Int64 = pa.Field(nullable=True, ge=1)
    nodes: pl.Int64 = pa.Field(nullable=True, ge=1)
    total_accelerators: pl.Int64 = pa.Field(nullable=True, ge=1)
    processor: str = pa.Field(nullable=True)
    software: str = pa.Field(nullable=True)
    weight_data_types: str = pa.Field(nullable=True)
    accuracy: str = pa.Field(nullable=True)
    tokens_per_sample: float = pa.Field(nullable=True, gt=0)
    inferred: bool
    verification: str = pa.Field(isin=VERIFICATIONS)
    source_id: str

    @pa.dataframe_check(error="value is infinite")
    def value_is_finite(cls, data) -> pl.LazyFrame:
        # NaN is caught (as missing) by the column's own not-null check.
        return data.lazyframe.select(pl.col("value").is_infinite().not_().fill_null(True))

    @pa.dataframe_check(error="units do not fit the scenario and metric")
    def units_fit_scenario(cls, data) -> pl.LazyFrame:
        scenario, units, metric = pl.col("scenario"), pl.col("units"), pl.col("metric")
        fits = (
            pl.when(metric == "power").then(units.is_in(list(POWER_UNITS)))
            .when(scenario.is_in(THROUGHPUT_SCENARIOS)).then(units.is_in(list(THROUGHPUT_UNITS)))
            .when(scenario.is_in(LATENCY_SCENARIOS)).then(units.is_in(list(LATENCY_UNITS)))
            .otherwise(True)  # an unknown scenario or unit already fails its own check
        )
        return data.lazyframe.select(fits.fill_null(True))

    @pa.dataframe_check(error="duplicate of an earlier row (same round, entry, model, scenario, metric)")
    def not_a_duplicate(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.struct(DUPLICATE_KEY).is_first_distinct())

    class Config:
        strict = False
        coerce = False
