"""Hardware and benchmark identity: map raw published names to canonical ones."""
from __future__ import annotations

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


@lru_cache(maxsize=1)
def default_reference() -> Reference:
    return load_reference()


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


def attach_identities(frame: pl.DataFrame, ref: Reference) -> pl.DataFrame:
    """Add canonical `accelerator` and `benchmark` columns (raw names stay as they are)."""
    aliases = compiled_aliases(ref.accelerators)
    raw_names = frame["accelerator_raw"].unique().to_list()
    accel = pl.DataFrame(
        {"accelerator_raw": raw_names,
         "accelerator": [canonical_accelerator(n, aliases) for n in raw_names]},
        schema={"accelerator_raw": pl.String, "accelerator": pl.String},
    )
    lookup = ref.benchmarks.select(pl.col("alias").str.to_lowercase(), "benchmark", "kind")
    model = lookup.rename({"alias": "_model", "benchmark": "_by_model", "kind": "_model_kind"})
    used = lookup.filter(pl.col("kind") == "benchmark").select(
        pl.col("alias").alias("_used"), pl.col("benchmark").alias("_by_used"))
    out = (
        frame.with_columns(pl.col("model").str.to_lowercase().alias("_model"),
                           pl.col("used_model").str.to_lowercase().alias("_used"))
        .join(accel, on="accelerator_raw", how="left", nulls_equal=True, maintain_order="left")
        .join(model, on="_model", how="left", maintain_order="left")
        .join(used, on="_used", how="left", maintain_order="left")
    )
    # A checker file's MlperfModel may hold a category (VLM): the model actually run names it then.
    benchmark = (pl.when(pl.col("_model_kind") == "category").then(pl.col("_by_used"))
                 .otherwise(pl.col("_by_model")))
    return out.with_columns(
        pl.coalesce(benchmark, pl.col("model")).alias("benchmark"),
        benchmark.is_not_null().alias("benchmark_matched"),
    ).drop("_model", "_used", "_by_model", "_model_kind", "_by_used")
