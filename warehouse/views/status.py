"""What `mlperf-wh status` answers: what is loaded, quarantined, drifted, fetched from the trees,
claimed and due, one section each, and a line summing up each section (what a terminal shows first;
the rows on asking). A section whose view is not built yet (a warehouse whose first load failed before
the views were made) is left out; a section reading a name nothing defines is a bug."""
from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb
import polars as pl

from warehouse.identity.rounds import round_sort_key
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


def summary(section: Section, frame: pl.DataFrame) -> str:
    """The section's rows in one line: its totals, and the largest counts by kind."""
    if frame.height == 0:
        return "none"
    return SUMMARIES[section.key](frame)


def _total(frame: pl.DataFrame, column: str) -> int:
    return int(frame.get_column(column).cast(pl.Int64).sum() or 0)


def _by(frame: pl.DataFrame, key: str, column: str | None = None) -> str:
    """`column` (or the rows) summed per value of `key`, largest first: "loaded (7,021); missing (6)"."""
    count = pl.col(column).cast(pl.Int64).fill_null(0).sum() if column else pl.len()
    totals = (frame.group_by(pl.col(key).cast(pl.String)).agg(count.alias("count"))
              .sort(["count", key], descending=[True, False]))
    return "; ".join(f"{name} ({n:,})" for name, n in totals.iter_rows())


def _rounds(frame: pl.DataFrame) -> str:
    names = sorted(set(frame.get_column("round").drop_nulls().to_list()), key=_round_order)
    return f"{len(names)} round{'s' if len(names) != 1 else ''} ({', '.join(names)})"


def _round_order(name: str) -> tuple:
    """Publication order; a name the registry would refuse (never loaded so) last, as text."""
    try:
        return (0, *round_sort_key(name))
    except ValueError:
        return (1, name)


SUMMARIES = {
    "sources": lambda f: (f"{f.height} loads of {_rounds(f)}: {_total(f, 'rows_loaded'):,} rows loaded, "
                          f"{_total(f, 'rows_quarantined'):,} quarantined; by origin: {_by(f, 'origin')}"),
    "results": lambda f: (f"{_total(f, 'performance_rows'):,} performance and {_total(f, 'power_rows'):,} power "
                          f"rows in {_rounds(f)}; by verification: {_by(f, 'verification', 'rows')}"),
    "drift": lambda f: (f"{_total(f, 'terms'):,} new words or unmatched names on {_total(f, 'rows'):,} rows: "
                        f"{_by(f, 'kind', 'terms')} (mlperf-wh drift lists them)"),
    "run-summaries": lambda f: (f"{_total(f, 'with_run_summary'):,} of {_total(f, 'result_rows'):,} performance rows "
                                f"have a run summary; {_total(f, 'not_fetched'):,} not fetched, "
                                f"{_total(f, 'file_missing'):,} missing, {_total(f, 'file_quarantined'):,} "
                                f"quarantined, {_total(f, 'fetch_failed'):,} failed"),
    "tree-files": lambda f: f"{_total(f, 'files'):,} files: {_by(f, 'status', 'files')}",
    "fidelity": lambda f: f"{_total(f, 'results'):,} results in {_rounds(f)}: {_by(f, 'note', 'results')}",
    "units": lambda f: f"{_total(f, 'results'):,} results in {_rounds(f)}: {_by(f, 'unit_verdict', 'results')}",
    "anomalies": lambda f: f"{_total(f, 'findings'):,} findings in {_rounds(f)}: {_by(f, 'rule', 'findings')}",
    "claims": lambda f: f"{_total(f, 'claims'):,} claims: {_by(f, 'verdict', 'claims')}",
    "decisions-due": lambda f: f"{f.height} due: {', '.join(f.get_column('id').to_list())}",
}


def _not_built_yet(exc: duckdb.CatalogException) -> bool:
    """The missing relation is one the warehouse will have (a source table of sql/layers.toml, a model of
    sql/) but this one has not created yet."""
    from warehouse.views.catalog import Layering, definitions
    missing = re.search(r"with name (\w+) does not exist", str(exc))
    known = {v.name for v in definitions()} | set(Layering.read().sources)
    return bool(missing) and missing.group(1) in known
