"""Identity, resolved: the reference tables written into DuckDB for the SQL models (sql/base and
sql/staging resolve every published name through them at each materialize). Round order has one SQL
form here too, `round_order(name)`, the macro twin of `warehouse.identity.rounds.round_sort_key`.
That same SQL rule applied to names outside `results` (claims, prices): warehouse.views.identities."""
from __future__ import annotations

import duckdb
import polars as pl

from schemas import results as vocabulary
from warehouse.identity.reference import Reference, default_reference
from warehouse.identity.rounds import ROUND_ORDER_MACRO
from warehouse.store import db

VOCABULARY = {
    "unit": vocabulary.KNOWN_UNITS, "scenario": vocabulary.SCENARIOS,
    "division": vocabulary.DIVISIONS, "availability": vocabulary.AVAILABILITIES,
    "suite": vocabulary.SUITES,
}


# What a result counts (ref_result_fields.counts) as the unit a note prints it in.
PER_COUNT_MACRO = ("CREATE OR REPLACE MACRO per_count(counts) AS "
                   "CASE counts WHEN 'tokens' THEN 'tokens/s' WHEN 'samples' THEN 'samples/s' "
                   "WHEN 'latency' THEN 'ms' WHEN 'samples_per_query' THEN 'samples per query' END")


def _listed(units: list[str]) -> str:
    return ", ".join("'" + u.replace("'", "''") + "'" for u in units)


# What a unit label says its number counts (tokens | samples | latency; null for a unit of no known
# kind), from the schema's lists: the one place a unit's kind is written for the SQL models.
UNIT_COUNTS_MACRO = (f"CREATE OR REPLACE MACRO unit_counts(units) AS "
                     f"CASE WHEN units IN ({_listed(vocabulary.TOKEN_UNITS)}) THEN 'tokens' "
                     f"WHEN units IN ({_listed(vocabulary.SAMPLE_UNITS)}) THEN 'samples' "
                     f"WHEN units IN ({_listed(vocabulary.LATENCY_UNITS)}) THEN 'latency' END")


# What a throughput unit counts, a query and a sample alike (a Server query is one sample): the key by
# which one entry's Server rate is set against its Offline rate.
RATE_KIND_MACRO = ("CREATE OR REPLACE MACRO rate_kind(units) AS "
                   "CASE WHEN unit_counts(units) = 'samples' THEN 'samples' ELSE units END")


def vocabulary_frame() -> pl.DataFrame:
    """The words the schema knows, by kind (what `drift` compares each loaded row with)."""
    return pl.DataFrame([{"kind": kind, "term": term} for kind, terms in VOCABULARY.items() for term in terms])


def load_reference_tables(con: duckdb.DuckDBPyConnection, ref: Reference | None = None) -> None:
    ref = ref or default_reference()
    con.execute(ROUND_ORDER_MACRO)
    con.execute(PER_COUNT_MACRO)
    con.execute(UNIT_COUNTS_MACRO)
    con.execute(RATE_KIND_MACRO)
    con.execute(first_match_macro("processor_of", ref.processors, "processor"))
    con.execute(first_match_macro("family_of", ref.model_ids, "family", exclude="exclude"))
    # priority: file order; the first pattern that matches a name wins (accelerator_rows lists them by it).
    accelerators = ref.accelerators.with_row_index("priority")
    for macro in accelerator_macros(accelerators, ref.variant_markers):
        con.execute(macro)
    processors = ref.processors.with_row_index("priority")
    software_stacks = ref.software_stacks.with_row_index("priority")
    for table, frame in (("ref_accelerators", accelerators), ("ref_benchmarks", ref.benchmarks),
                         ("ref_rack_capacity", ref.racks), ("ref_result_fields", ref.result_fields),
                         ("ref_processors", processors), ("ref_system_power", ref.system_power),
                         ("ref_model_ids", ref.model_ids), ("ref_scenario_constraints", ref.scenario_constraints),
                         ("ref_software_stacks", software_stacks),
                         ("ref_plausibility_ceilings", ref.plausibility_ceilings),
                         ("ref_benchmark_eras", ref.benchmark_eras),
                         ("ref_variant_markers", ref.variant_markers),
                         ("ref_vocabulary", vocabulary_frame())):
        with db.registered(con, _ref=frame):
            con.execute(f"CREATE OR REPLACE TABLE {table} AS SELECT * FROM _ref")
    con.execute("CREATE TABLE IF NOT EXISTS prices (accelerator VARCHAR PRIMARY KEY, "
                "dollars_per_accelerator_hour DOUBLE NOT NULL CHECK (dollars_per_accelerator_hour > 0), "
                "note VARCHAR, source VARCHAR, priced_on DATE)")
    # warehouses whose prices were loaded before a price had its source and date
    con.execute("ALTER TABLE prices ADD COLUMN IF NOT EXISTS source VARCHAR")
    con.execute("ALTER TABLE prices ADD COLUMN IF NOT EXISTS priced_on DATE")


def first_match_macro(name: str, table: pl.DataFrame, canonical: str, exclude: str | None = None) -> str:
    """`accelerator_of(part)` (or `processor_of`, `family_of`): the canonical name of the first pattern
    of the reference table (file order) that the part of a published name matches (and, with an
    `exclude` column, whose exclusion pattern it does not); null when none does.
    The patterns are literals of the macro, so DuckDB compiles each once per query; joined on the
    pattern column, it compiled one per (name, pattern) pair, most of what resolving identity cost."""
    rows = table.select("pattern", canonical, pl.col(exclude) if exclude else pl.lit(None).alias("_no"))
    branches = [f"WHEN regexp_matches(part, {_sql_text(pattern)})"
                + (f" AND NOT regexp_matches(part, {_sql_text(unless)})" if unless else "")
                + f" THEN {_sql_text(value)}"
                for pattern, value, unless in rows.iter_rows()]
    body = f"CASE {' '.join(branches)} END" if branches else "CAST(NULL AS VARCHAR)"
    return f"CREATE OR REPLACE MACRO {name}(part) AS {body}"


def accelerator_macros(accelerators: pl.DataFrame, markers: pl.DataFrame) -> list[str]:
    """The rule that names the part a published accelerator name is (variant_markers.csv says it);
    `accelerators` carries the `priority` ref_accelerators is stored with. `variant_markers(part)`: the variant words the part of a name carries, each {kind, word, number,
    form_factor}; `accelerator_rows(part)`: the rows of accelerators.csv whose pattern the part
    matches, by their `priority` (file order), which base_accelerator_names joins to ref_accelerators to
    take the first row that accepts every marker (one rule over the row's columns: a CASE of a branch
    and a lambda per row, bound wherever it was written, was most of what building the models of a
    small warehouse cost); `virtualized_system(system_name)`: a system name saying it runs vGPUs."""
    in_names = markers.filter(pl.col("reads") == "accelerator name")
    found = [f"list_transform(regexp_extract_all(part, {_sql_text(pattern)}), lambda w: {{'kind': {_sql_text(kind)}, "
             f"'word': w, 'number': TRY_CAST(regexp_extract(w, '\\d+') AS DOUBLE), 'form_factor': {_sql_or_null(form)}}})"
             for kind, pattern, form in in_names.select("kind", "pattern", "form_factor").iter_rows()]
    in_systems = markers.filter(pl.col("reads") == "system name")["pattern"].to_list()
    system_rule = " OR ".join(f"regexp_matches(coalesce(system_name, ''), {_sql_text(p)})" for p in in_systems) or "false"
    rows = [f"CASE WHEN regexp_matches(part, {_sql_text(pattern)}) THEN [{priority}] ELSE []::INTEGER[] END"
            for priority, pattern in accelerators.select("priority", "pattern").iter_rows()]
    return [f"CREATE OR REPLACE MACRO variant_markers(part) AS flatten([{', '.join(found)}])",
            f"CREATE OR REPLACE MACRO virtualized_system(system_name) AS ({system_rule})",
            f"CREATE OR REPLACE MACRO accelerator_rows(part) AS flatten([{', '.join(rows) or '[]::INTEGER[]'}])"]


def _sql_or_null(value: str | None) -> str:
    return "NULL" if value is None else _sql_text(value)


def _sql_text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"
