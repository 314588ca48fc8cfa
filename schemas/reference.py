"""Reference tables shipped as data files in warehouse/identity/reference/ and edited by hand."""
from __future__ import annotations

import duckdb
import pandera.polars as pa
import polars as pl


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
