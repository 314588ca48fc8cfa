"""The reference tables (accelerators, benchmarks, rack capacity), read and validated.

Names are resolved with them at every materialize, in SQL (sql/base/, joined by sql/staging/stg_results.sql);
warehouse.identity.resolve.canonical_accelerators applies that same rule to other names."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import polars as pl

from schemas import polars_types
from schemas.reference import AcceleratorAlias, BenchmarkAlias, RackCapacity
from warehouse import settings
from warehouse.identity.rounds import REFERENCE_DIR
from warehouse.resources import checksum, read_record, write_record


@dataclass(frozen=True)
class Reference:
    accelerators: pl.DataFrame
    benchmarks: pl.DataFrame
    racks: pl.DataFrame


def load_reference(directory: Path = REFERENCE_DIR) -> Reference:
    """The three tables, typed and validated; a file whose bytes are the shipped ones, which CI
    validates (recorded in reference/_validated.json), is not validated again."""
    validated = _validated_checksums()
    return Reference(*(_read(directory / name, model, validated.get(name)) for name, model in MODELS.items()))


def _read(path: Path, model, validated_checksum: str | None = None) -> pl.DataFrame:
    content = path.read_bytes()
    types = polars_types(model)
    frame = pl.read_csv(content, infer_schema_length=0).with_columns(
        pl.col(name).cast(dtype, strict=True) for name, dtype in types.items())
    return frame if checksum(content) == validated_checksum else model.validate(frame)


VALIDATED_FILE = REFERENCE_DIR / "_validated.json"


@lru_cache(maxsize=1)
def _validated_checksums() -> dict[str, str]:
    return read_record(VALIDATED_FILE)


def shipped_checksums() -> dict[str, str]:
    """What reference/_validated.json should hold: the checksum of each shipped file, each file
    validated first (raises on a file that does not pass)."""
    for name, model in MODELS.items():
        _read(REFERENCE_DIR / name, model)
    return {name: checksum((REFERENCE_DIR / name).read_bytes()) for name in MODELS}


def write_validated_checksums() -> Path:
    """Validate the shipped reference tables and record their checksums (`python -m warehouse.identity`)."""
    return write_record(VALIDATED_FILE, shipped_checksums())


def reference_dir() -> Path:
    """MLPERF_REFERENCE_DIR (a copy of warehouse/identity/reference you edit), else the shipped tables."""
    return settings.current().reference_dir or REFERENCE_DIR


def default_reference() -> Reference:
    directory = reference_dir()
    files = tuple((directory / name).stat().st_mtime_ns for name in REFERENCE_FILES)
    return _cached_reference(directory, files)


MODELS = {"accelerators.csv": AcceleratorAlias, "benchmarks.csv": BenchmarkAlias, "rack_capacity.csv": RackCapacity}
REFERENCE_FILES = tuple(MODELS)


@lru_cache(maxsize=4)
def _cached_reference(directory: Path, _mtimes: tuple[int, ...]) -> Reference:
    return load_reference(directory)
