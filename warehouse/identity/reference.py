"""The reference tables (accelerators, benchmarks, rack capacity), read and validated.

Names are resolved with them at every materialize, in SQL (sql/base/, joined by sql/staging/stg_results.sql);
warehouse.identity.resolve.canonical_accelerators applies that same rule to other names."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import polars as pl

from schemas.reference import AcceleratorAlias, BenchmarkAlias, RackCapacity
from warehouse import settings
from warehouse.identity.rounds import REFERENCE_DIR


@dataclass(frozen=True)
class Reference:
    accelerators: pl.DataFrame
    benchmarks: pl.DataFrame
    racks: pl.DataFrame


def load_reference(directory: Path = REFERENCE_DIR) -> Reference:
    def read(name, model):
        return model.validate(pl.read_csv(directory / name, infer_schema_length=0)
                              .with_columns(_casts(model)))
    return Reference(read("accelerators.csv", AcceleratorAlias),
                     read("benchmarks.csv", BenchmarkAlias),
                     read("rack_capacity.csv", RackCapacity))


def _casts(model) -> list[pl.Expr]:
    dtypes = {name: column.dtype.type for name, column in model.to_schema().columns.items()}
    return [pl.col(name).cast(dtype, strict=True) for name, dtype in dtypes.items()]


def reference_dir() -> Path:
    """MLPERF_REFERENCE_DIR (a copy of warehouse/identity/reference you edit), else the shipped tables."""
    return settings.current().reference_dir or REFERENCE_DIR


def default_reference() -> Reference:
    directory = reference_dir()
    files = tuple((directory / name).stat().st_mtime_ns for name in REFERENCE_FILES)
    return _cached_reference(directory, files)


REFERENCE_FILES = ("accelerators.csv", "benchmarks.csv", "rack_capacity.csv")


@lru_cache(maxsize=4)
def _cached_reference(directory: Path, _mtimes: tuple[int, ...]) -> Reference:
    return load_reference(directory)
