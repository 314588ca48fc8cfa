"""The reference tables (accelerators, benchmarks, rack capacity, model ids...), read and validated.

Names are resolved with them at every materialize, in SQL (sql/base/, joined by sql/staging/stg_results.sql);
warehouse.views.identities.canonical_accelerators applies that same rule to other names."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import polars as pl

from schemas import polars_types
from schemas.reference import (AcceleratorAlias, BenchmarkAlias, BenchmarkEra, ModelId, PlausibilityCeiling, ProcessorAlias,
                               RackCapacity, ResultField, ScenarioConstraint, SoftwareStack, SystemPower, VariantMarker)
from warehouse.identity.reference_files import REFERENCE_FILES, reference_dir, reference_file
from warehouse.identity.rounds import REFERENCE_DIR
from warehouse.resources import checksum, read_record, write_record


@dataclass(frozen=True)
class Reference:
    accelerators: pl.DataFrame
    benchmarks: pl.DataFrame
    racks: pl.DataFrame
    result_fields: pl.DataFrame
    processors: pl.DataFrame
    system_power: pl.DataFrame
    model_ids: pl.DataFrame
    scenario_constraints: pl.DataFrame
    software_stacks: pl.DataFrame
    plausibility_ceilings: pl.DataFrame
    benchmark_eras: pl.DataFrame
    variant_markers: pl.DataFrame


def load_reference(directory: Path = REFERENCE_DIR) -> Reference:
    """The tables, typed and validated; a file whose bytes are the shipped ones, which CI validates
    (recorded in reference/_validated.json), is not validated again. A table an edited copy of the
    directory does not hold (one added by a later version) is the shipped one."""
    return _reference(directory, _validated_checksums())


def _reference(directory: Path, validated: dict[str, str]) -> Reference:
    reference = Reference(**{FIELDS[name]: _read(_in(directory, name), model, validated.get(name))
                             for name, model in MODELS.items()})
    _check_names(reference, directory)
    return reference


_in = reference_file


def _check_names(reference: Reference, directory: Path) -> None:
    """A rule for a benchmark benchmarks.csv does not know, or a power figure for an accelerator
    accelerators.csv does not know, would never apply: refused, naming it."""
    known = set(reference.benchmarks["benchmark"].drop_nulls().to_list())
    named = {"result_fields.csv": set(reference.result_fields["benchmark"].to_list()) - {"*"},
             "scenario_constraints.csv": set(reference.scenario_constraints["benchmark"].to_list()),
             "model_ids.csv": {b for listed in reference.model_ids["benchmarks"].to_list() for b in listed.split()},
             "benchmark_eras.csv": set(reference.benchmark_eras["benchmark"].to_list()) - {"*"}}
    for file, benchmarks in named.items():
        if unknown := sorted(benchmarks - known):
            raise ValueError(f"{_in(directory, file)}: benchmark {', '.join(unknown)} "
                             "is not a benchmark of benchmarks.csv")
    known = set(reference.accelerators["accelerator"].to_list())
    unknown = sorted(set(reference.system_power["accelerator"].to_list()) - known)
    if unknown:
        raise ValueError(f"{_in(directory, 'system_power.csv')}: accelerator {', '.join(unknown)} "
                         "is not an accelerator of accelerators.csv")


BOOLEAN_WORDS = {"true": True, "false": False}


def _read(path: Path, model, validated_checksum: str | None = None) -> pl.DataFrame:
    content = path.read_bytes()
    types = polars_types(model)
    frame = pl.read_csv(content, infer_schema_length=0).with_columns(
        pl.col(name).str.to_date("%Y-%m-%d") if dtype == pl.Date
        else pl.col(name).str.to_lowercase().replace_strict(BOOLEAN_WORDS, return_dtype=pl.Boolean)
        if dtype == pl.Boolean else pl.col(name).cast(dtype, strict=True)
        for name, dtype in types.items())
    return frame if checksum(content) == validated_checksum else model.validate(frame)


VALIDATED_FILE = REFERENCE_DIR / "_validated.json"


@lru_cache(maxsize=1)
def _validated_checksums() -> dict[str, str]:
    return read_record(VALIDATED_FILE)


def shipped_checksums() -> dict[str, str]:
    """What reference/_validated.json should hold: the checksum of each shipped file, each file
    validated first (raises on a file that does not pass)."""
    _reference(REFERENCE_DIR, validated={})
    return {name: checksum((REFERENCE_DIR / name).read_bytes()) for name in MODELS}


def write_validated_checksums() -> Path:
    """Validate the shipped reference tables and record their checksums (`python -m warehouse.identity`)."""
    return write_record(VALIDATED_FILE, shipped_checksums())


def default_reference() -> Reference:
    directory = reference_dir()
    files = tuple(_in(directory, name).stat().st_mtime_ns for name in REFERENCE_FILES)
    return _cached_reference(directory, files)


MODELS = {"accelerators.csv": AcceleratorAlias, "benchmarks.csv": BenchmarkAlias, "rack_capacity.csv": RackCapacity,
          "result_fields.csv": ResultField, "processors.csv": ProcessorAlias, "system_power.csv": SystemPower,
          "model_ids.csv": ModelId, "scenario_constraints.csv": ScenarioConstraint,
          "software_stacks.csv": SoftwareStack, "plausibility_ceilings.csv": PlausibilityCeiling,
          "benchmark_eras.csv": BenchmarkEra, "variant_markers.csv": VariantMarker}
FIELDS = {"accelerators.csv": "accelerators", "benchmarks.csv": "benchmarks", "rack_capacity.csv": "racks",
          "result_fields.csv": "result_fields", "processors.csv": "processors", "system_power.csv": "system_power",
          "model_ids.csv": "model_ids", "scenario_constraints.csv": "scenario_constraints",
          "software_stacks.csv": "software_stacks", "plausibility_ceilings.csv": "plausibility_ceilings",
          "benchmark_eras.csv": "benchmark_eras", "variant_markers.csv": "variant_markers"}


@lru_cache(maxsize=4)
def _cached_reference(directory: Path, _mtimes: tuple[int, ...]) -> Reference:
    return load_reference(directory)
