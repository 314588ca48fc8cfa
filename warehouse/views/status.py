"""What `mlperf-wh status` answers: what is loaded, quarantined, drifted, fetched from the trees,
claimed and due, one section each. A section whose view is not built yet (a warehouse whose first
load failed before the views were made) is left out; a section reading a name nothing defines is a bug."""
from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb
import polars as pl

from warehouse.store import db


@dataclass(frozen=True)
class Section:
    key: str      # what `status --section` names
    title: str
    query: str


SECTIONS = [
    Section("sources", "sources", """
        SELECT source_id, round, origin, format, rows_read, rows_loaded, rows_quarantined,
               left(sha256, 12) AS sha256, bytes, loaded_at, unknown_columns
        FROM sources ORDER BY round, source_id"""),
    Section("results", "results by round and verification (performance_rows: the count dim_rounds, the "
                        "report and the marts use; power_rows: the rounds' power and energy results)", """
        SELECT round, verification, count(*) FILTER (WHERE metric = 'performance') AS performance_rows,
               count(*) FILTER (WHERE metric <> 'performance') AS power_rows, count(*) AS rows
        FROM results GROUP BY ALL ORDER BY ALL"""),
    Section("drift", "drift: new words and unmatched names by round (details: mlperf-wh drift; unmatched "
                     "names: edit warehouse/identity/reference/*.csv, then mlperf-wh views refresh)", """
        SELECT round, kind, count(DISTINCT term) AS terms, sum(rows) AS rows,
               string_agg(DISTINCT term, ', ' ORDER BY term) AS examples
        FROM drift GROUP BY ALL ORDER BY ALL"""),
    Section("run-summaries", "result rows with a run summary (mlperf-wh trees)", """
        SELECT r.round, count(*) AS result_rows, count(s.run_path) AS with_run_summary,
               count(*) - count(s.run_path) AS without,
               count(*) FILTER (WHERE f.status = 'missing') AS file_missing,
               count(*) FILTER (WHERE f.status = 'quarantined') AS file_quarantined,
               count(*) FILTER (WHERE f.status = 'failed') AS fetch_failed,
               count(*) FILTER (WHERE f.status = 'unrecognized') AS folder_unrecognized,
               count(*) FILTER (WHERE f.status IS NULL) AS not_fetched,
               count(*) FILTER (WHERE s.harness <> 'LoadGen') AS from_endpoint_harness
        FROM stg_results AS r
        LEFT JOIN run_summaries AS s USING (round, run_path)
        LEFT JOIN tree_files AS f ON f.round = r.round AND f.run_path = r.run_path
        WHERE r.metric = 'performance'
        GROUP BY ALL ORDER BY ALL"""),
    Section("tree-files", "tree files by status", """
        SELECT round, kind, status, count(*) AS files FROM tree_files GROUP BY ALL ORDER BY ALL"""),
    Section("fidelity", "run summaries that disagree with their result "
                        "(every row: SELECT * FROM summary_fidelity WHERE NOT agrees)", """
        SELECT round, verification, note, count(*) AS results,
               string_agg(DISTINCT benchmark, ', ' ORDER BY benchmark) AS benchmarks,
               min(result_id) AS first_result_id
        FROM summary_fidelity WHERE NOT agrees GROUP BY ALL ORDER BY ALL"""),
    Section("units", "result units checked (stg_results: corrected and suspect rows; "
                     "every row: SELECT * FROM verified_results WHERE unit_verdict <> 'confirmed')", """
        SELECT round, unit_verdict, published_units, units, count(*) AS results,
               string_agg(DISTINCT benchmark, ', ' ORDER BY benchmark) AS benchmarks,
               min(result_id) AS first_result_id
        FROM stg_results
        WHERE metric = 'performance' AND unit_verdict IN ('corrected', 'suspect')
        GROUP BY ALL ORDER BY ALL"""),
    Section("anomalies", "anomalies: results that contradict themselves or their neighbours, kept out of "
                         "procurement-grade comparisons (every row: SELECT * FROM anomalies)", """
        SELECT round, rule, verification, count(*) AS findings,
               string_agg(DISTINCT result_id, ', ' ORDER BY result_id) AS result_ids
        FROM anomalies GROUP BY ALL ORDER BY ALL"""),
    Section("claims", "claims by verdict", """
        SELECT verdict, count(*) AS claims FROM claim_audit GROUP BY ALL ORDER BY ALL"""),
    Section("decisions-due", "decisions due for review", """
        SELECT id, title, review_due, due_because FROM decisions_due ORDER BY id"""),
]
SECTION_KEYS = [s.key for s in SECTIONS]


def sections(con: duckdb.DuckDBPyConnection, keys: list[str] | None = None) -> list[tuple[Section, pl.DataFrame]]:
    """Each section asked for (default all) with its rows, in order; views not built yet skip theirs."""
    found = []
    for section in SECTIONS:
        if keys and section.key not in keys:
            continue
        try:
            found.append((section, db.query_frame(con, section.query)))
        except duckdb.CatalogException as exc:
            if not _not_built_yet(exc):
                raise
    return found


def _not_built_yet(exc: duckdb.CatalogException) -> bool:
    """The missing relation is one the warehouse will have (a source table of sql/layers.toml, a model of
    sql/) but this one has not created yet."""
    from warehouse.views.catalog import Layering, definitions
    missing = re.search(r"with name (\w+) does not exist", str(exc))
    known = {v.name for v in definitions()} | set(Layering.read().sources)
    return bool(missing) and missing.group(1) in known
