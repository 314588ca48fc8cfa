"""Reference tables shipped as data files in warehouse/identity/reference/ and edited by hand."""
from __future__ import annotations

import duckdb
import pandera.polars as pa
import polars as pl

from schemas import ROUND
from schemas.results import SCENARIOS

# What a throughput or latency result counts, as the round's submission checker reads it from LoadGen.
COUNTS = ["tokens", "samples", "latency"]


class AcceleratorAlias(pa.DataFrameModel):
    """accelerators.csv: alias regex -> canonical accelerator. First matching row wins."""

    pattern: str = pa.Field(unique=True, description="regular expression searched in the raw name")
    accelerator: str = pa.Field(str_length={"min_value": 1}, description="canonical name")
    vendor: str
    family: str = pa.Field(description="architecture, e.g. Blackwell Ultra")
    generation: pl.Int64 = pa.Field(ge=1, description="order within the vendor, newer is larger")
    memory_gb: float = pa.Field(nullable=True, gt=0)
    tdp_watts: float = pa.Field(nullable=True, gt=0, description="design power, where publicly stated")

    @pa.check("pattern", error="pattern is not a valid RE2 regular expression")
    def compiles(cls, series) -> pl.LazyFrame:
        patterns = series.lazyframe.select("pattern").collect().to_series().to_list()
        with duckdb.default_connection().cursor() as con:  # the process's in-memory database: no new one
            valid = [True] * len(patterns) if _all_compile(con, patterns) else [_compiles(con, p) for p in patterns]
        return pl.LazyFrame({"pattern": valid})

    @pa.dataframe_check(error="one canonical accelerator has conflicting vendor/generation/TDP")
    def consistent_attributes(cls, data) -> pl.LazyFrame:
        attrs = ["vendor", "family", "generation", "memory_gb", "tdp_watts"]
        distinct = pl.struct(attrs).n_unique().over("accelerator")
        return data.lazyframe.select(distinct == 1)


class BenchmarkAlias(pa.DataFrameModel):
    """benchmarks.csv: raw benchmark name -> canonical benchmark (or a category, e.g. VLM)."""

    alias: str = pa.Field(unique=True)
    benchmark: str = pa.Field(nullable=True, description="null for categories")
    kind: str = pa.Field(isin=["benchmark", "category"])
    output_unit: str = pa.Field(nullable=True)

    @pa.dataframe_check(error="alias repeated (aliases match case-insensitively)")
    def alias_unique_ignoring_case(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.col("alias").str.to_lowercase().is_unique())

    @pa.dataframe_check(error="a benchmark alias needs a canonical benchmark")
    def benchmark_named(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select((pl.col("kind") == "category") | pl.col("benchmark").is_not_null())


class RackCapacity(pa.DataFrameModel):
    """rack_capacity.csv: how many accelerators a rack holds; the assumption is stated."""

    accelerator: str = pa.Field(unique=True)
    accelerators_per_rack: pl.Int64 = pa.Field(ge=1)
    assumption: str


class ResultField(pa.DataFrameModel):
    """result_fields.csv: which LoadGen field each round's submission checker reads as the result of a
    benchmark and scenario, and so what the published number counts. The final table's unit label
    comes from a separate dictionary of the final-report tool and is sometimes wrong (whisper
    Offline: "Samples/s" for the checker's tokens per second); this table is what the label is
    checked against. A row holds from `round_from` until a later row of the same benchmark and
    scenario; benchmark '*' is the round's default for every benchmark without a row of its own."""

    benchmark: str = pa.Field(str_length={"min_value": 1},
                              description="canonical benchmark (benchmarks.csv), or * for every other")
    scenario: str = pa.Field(isin=SCENARIOS, description="Interactive runs are LoadGen Server runs")
    round_from: str = pa.Field(str_matches=ROUND, description="the first round the checker read this field")
    loadgen_field: str = pa.Field(str_length={"min_value": 1}, description="the key of mlperf_log_detail.txt")
    counts: str = pa.Field(isin=COUNTS, description="what the result counts per second (or its latency)")
    source: str = pa.Field(str_startswith="https://", description="the checker's source where it is read")

    @pa.dataframe_check(error="(benchmark, scenario, round_from) repeated")
    def one_rule_per_round(cls, data) -> pl.LazyFrame:
        return data.lazyframe.select(pl.struct("benchmark", "scenario", "round_from").is_unique())


def _all_compile(con: duckdb.DuckDBPyConnection, patterns: list[str]) -> bool:
    """One query for the usual case; only a file with a bad pattern is checked one pattern at a time."""
    try:
        con.execute("SELECT count(*) FROM unnest(?) AS t(pattern) WHERE regexp_matches('', pattern)", [patterns])
    except duckdb.Error:
        return False
    return True


def _compiles(con: duckdb.DuckDBPyConnection, pattern: str) -> bool:
    """The patterns run in DuckDB's regular expression engine (RE2), at view time."""
    try:
        con.execute("SELECT regexp_matches('', ?)", [pattern])
    except duckdb.Error:
        return False
    return True
