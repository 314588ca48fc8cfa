"""The reference tables (accelerators, benchmarks, rack capacity), read and validated.

Names are resolved with them at every materialize, in SQL (sql/base/, joined by sql/staging/stg_results.sql);
warehouse.identity.resolve.canonical_accelerators applies that same rule to other names."""
from __future__ import annotations

import hashlib
import json
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
    """The three tables, typed and validated; a file whose bytes are the shipped ones, which CI
    validates (recorded in reference/_validated.json), is not validated again."""
    validated = _validated_checksums()

    def read(name: str, model) -> pl.DataFrame:
        content = (directory / name).read_bytes()
        frame = _typed(content, model)
        return frame if validated.get(name) == hashlib.sha256(content).hexdigest() else model.validate(frame)
    return Reference(*(read(name, model) for name, model in MODELS.items()))


VALIDATED_FILE = REFERENCE_DIR / "_validated.json"


@lru_cache(maxsize=1)
def _validated_checksums() -> dict[str, str]:
    try:
        return json.loads(VALIDATED_FILE.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def shipped_checksums() -> dict[str, str]:
    """What reference/_validated.json should hold: the SHA-256 of each shipped file, each file
    validated first (raises on a file that does not pass)."""
    checksums = {}
    for name, model in MODELS.items():
        content = (REFERENCE_DIR / name).read_bytes()
        model.validate(_typed(content, model))
        checksums[name] = hashlib.sha256(content).hexdigest()
    return checksums


def write_validated_checksums() -> Path:
    """Validate the shipped reference tables and record their checksums (`python -m warehouse.identity`)."""
    VALIDATED_FILE.write_text(json.dumps(shipped_checksums(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return VALIDATED_FILE


def _typed(content: bytes, model) -> pl.DataFrame:
    dtypes = {name: column.dtype.type for name, column in model.to_schema().columns.items()}
    return pl.read_csv(content, infer_schema_length=0).with_columns(
        pl.col(name).cast(dtype, strict=True) for name, dtype in dtypes.items())


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
