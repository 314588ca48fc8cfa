"""Hardware and benchmark identity: map raw published names to canonical ones."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import polars as pl

from schemas.reference import AcceleratorAlias, BenchmarkAlias, RackCapacity
from warehouse.rounds import REFERENCE_DIR

# "AMD Instinct MI355X 288GB HBM3e (x87)" / "(Power Cap 1000 W)": annotations, not identity.
_ANNOTATION = re.compile(r"\((x\d+|power cap[^)]*)\)", re.IGNORECASE)
# Systems with several accelerator types list them joined by commas, "and" or "+".
_SEPARATORS = re.compile(r",|\band\b|\+", re.IGNORECASE)


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
    """MLPERF_REFERENCE_DIR (a copy of warehouse/reference you edit), else the shipped tables."""
    return Path(os.environ.get("MLPERF_REFERENCE_DIR") or REFERENCE_DIR)


def default_reference() -> Reference:
    directory = reference_dir()
    files = tuple((directory / name).stat().st_mtime_ns for name in REFERENCE_FILES)
    return _cached_reference(directory, files)


REFERENCE_FILES = ("accelerators.csv", "benchmarks.csv", "rack_capacity.csv")


@lru_cache(maxsize=4)
def _cached_reference(directory: Path, _mtimes: tuple[int, ...]) -> Reference:
    return load_reference(directory)


def canonical_accelerator(raw: str | None, aliases: tuple[tuple[re.Pattern, str], ...]) -> str | None:
    """Canonical name; several types -> 'A + B'; None when any part matches no alias."""
    if raw is None or not raw.strip():
        return None
    names = []
    for part in _SEPARATORS.split(_ANNOTATION.sub("", raw)):
        if not part.strip():
            continue
        match = next((name for pattern, name in aliases if pattern.search(part)), None)
        if match is None:
            return None
        if match not in names:
            names.append(match)
    return " + ".join(sorted(names)) if names else None


def compiled_aliases(accelerators: pl.DataFrame) -> tuple[tuple[re.Pattern, str], ...]:
    return tuple((re.compile(p), a) for p, a in accelerators.select("pattern", "accelerator").iter_rows())
