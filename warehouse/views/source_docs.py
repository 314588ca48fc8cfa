"""What every column of the source relations means (the tables the loader writes and the reference
tables: sql/layers.toml `sources`), from the Pandera model that validates each table's rows: its
field descriptions (schemas/*.py; the schema stays the documentation), LoadGen's own wording for the
run-summary and system-description columns (schemas/loadgen.py), and sql/_sources.toml for the tables
no model validates and the bookkeeping columns the loader adds (an entry there wins)."""
from __future__ import annotations

import functools
import importlib
import re
import tomllib

from warehouse.views.catalog import SQL_DIR, Layering, list_views

SOURCES_DOCS_FILE_NAME = "_sources.toml"

# table -> the Pandera model ("module:Class") its rows are validated by.
SOURCE_MODELS = {
    "results": "schemas.results:CanonicalResult",
    "rounds": "schemas.rounds:RoundRow",
    "load_events": "schemas.rounds:LoadEvent",
    "claims": "schemas.claims:Claim",
    "decisions": "schemas.claims:Decision",
    "prices": "schemas.prices:Price",
    "run_summaries": "schemas.trees:RunSummary",
    "systems": "schemas.trees:SystemDescription",
    "power_readings": "schemas.power:PowerReading",
    "own_measurements": "schemas.measurements:OwnRun",
    "own_measurement_requests": "schemas.measurements:OwnRequest",
    "ref_accelerators": "schemas.reference:AcceleratorAlias",
    "ref_benchmarks": "schemas.reference:BenchmarkAlias",
    "ref_rack_capacity": "schemas.reference:RackCapacity",
    "ref_result_fields": "schemas.reference:ResultField",
    "ref_processors": "schemas.reference:ProcessorAlias",
    "ref_system_power": "schemas.reference:SystemPower",
    "ref_model_ids": "schemas.reference:ModelId",
    "ref_scenario_constraints": "schemas.reference:ScenarioConstraint",
    "ref_software_stacks": "schemas.reference:SoftwareStack",
    "ref_plausibility_ceilings": "schemas.reference:PlausibilityCeiling",
    "ref_benchmark_eras": "schemas.reference:BenchmarkEra",
    "ref_variant_markers": "schemas.reference:VariantMarker",
}
# columns named by LoadGen's own words (schemas/loadgen.py), more precise than the model's pattern.
LOADGEN_TABLES = {"run_summaries": "summary_column_descriptions", "systems": "system_column_descriptions"}


@functools.lru_cache(maxsize=None)
def source_names() -> tuple[str, ...]:
    return tuple(sorted(Layering.read().sources))


@functools.lru_cache(maxsize=None)
def _written() -> dict[str, dict[str, str]]:
    path = SQL_DIR / SOURCES_DOCS_FILE_NAME
    with path.open("rb") as f:
        return tomllib.load(f)


@functools.lru_cache(maxsize=None)
def _model(table: str):
    module, name = SOURCE_MODELS[table].split(":")
    return getattr(importlib.import_module(module), name)


@functools.lru_cache(maxsize=None)
def _model_columns(table: str) -> tuple[tuple[str, bool, str | None], ...]:
    """(name or pattern, is a pattern, description) of each column of the table's model."""
    if table not in SOURCE_MODELS:
        return ()
    schema = _model(table).to_schema()
    return tuple((name, bool(column.regex), column.description) for name, column in schema.columns.items())


@functools.lru_cache(maxsize=None)
def _loadgen(table: str) -> dict[str, str]:
    if table not in LOADGEN_TABLES:
        return {}
    from schemas import loadgen
    return getattr(loadgen, LOADGEN_TABLES[table])()


def _first_sentence(text: str | None) -> str | None:
    """The docstring's first sentence, on one line."""
    if not text:
        return None
    flat = " ".join(text.split())
    return flat.split(". ", 1)[0].rstrip(".") + "."


def describe_table(table: str) -> str | None:
    """One line on what a row of the source table is: sql/_sources.toml `_about`, else the first
    sentence of its model's docstring."""
    about = _written().get(table, {}).get("_about")
    if about:
        return about
    return _first_sentence(_model(table).__doc__) if table in SOURCE_MODELS else None


def describe(table: str, column: str) -> str | None:
    """What one column of a source table means; None when nothing says."""
    written = _written().get(table, {}).get(column)
    if written:
        return written
    loadgen = _loadgen(table).get(column)
    if loadgen:
        return loadgen
    for name, is_pattern, description in _model_columns(table):
        if description and (name == column or (is_pattern and re.fullmatch(name, column))):
            return description
    return None


def problems() -> list[str]:
    """Tables of sql/_sources.toml that are not sources, and entries that are not text."""
    found = [f"[{t}]: not a source of sql/layers.toml" for t in _written() if t not in source_names()]
    for table, columns in _written().items():
        found += [f"[{table}] {c}: not a non-empty text" for c, d in columns.items()
                  if not (isinstance(d, str) and d.strip())]
    return found


def loaded_tables() -> list[tuple[str, str]]:
    """(name, what one row is) of every table the loaders and runs write and every reference table."""
    return [(name, describe_table(name) or "") for name in source_names()]


def every_relation():
    """`views --all`: the loaded tables (layer sources, what one row is), then every model."""
    import polars as pl
    models = list_views()
    tables = pl.DataFrame([(name, "sources", "table", about) for name, about in loaded_tables()],
                          schema=models.schema, orient="row")
    return pl.concat([tables, models])
