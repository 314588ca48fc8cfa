"""Where the reference tables are read from, without reading them: a run that only looks for changes
needs their bytes (to know whether the views are current), not the typed tables (warehouse.identity.reference)."""
from __future__ import annotations

from pathlib import Path

from warehouse import settings
from warehouse.identity.rounds import REFERENCE_DIR

REFERENCE_FILES = ("accelerators.csv", "benchmarks.csv", "rack_capacity.csv", "result_fields.csv",
                   "processors.csv", "system_power.csv", "model_ids.csv", "scenario_constraints.csv",
                   "software_stacks.csv", "plausibility_ceilings.csv", "benchmark_eras.csv", "variant_markers.csv")
REGISTRY_FILE = "rounds.toml"


def reference_dir() -> Path:
    """MLPERF_REFERENCE_DIR (a copy of warehouse/identity/reference you edit), else the shipped tables."""
    return settings.current().reference_dir or REFERENCE_DIR


def reference_file(directory: Path, name: str) -> Path:
    """A table an edited copy of the directory does not hold (one added by a later version) is the shipped one."""
    path = directory / name
    return path if path.exists() or directory == REFERENCE_DIR else REFERENCE_DIR / name


def reference_bytes() -> list[tuple[str, bytes]]:
    """(name, bytes) of every reference table the views are built from, and of the round registry."""
    directory = reference_dir()
    return [(name, reference_file(directory, name).read_bytes()) for name in REFERENCE_FILES] + [
        (REGISTRY_FILE, (REFERENCE_DIR / REGISTRY_FILE).read_bytes())]
