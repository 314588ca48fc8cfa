"""Tree ingest without Prefect: plan which files the loaded results name, fetch + parse chunks of them
(tree_fetch.py, pure apart from the fetch), validate every parsed row at once, and load the outcome
in one transaction.

The flow (flows/trees.py) runs `fetch_chunk` as Prefect tasks, many at once, or on a Dask cluster
(tree_cluster.py); everything here also runs on its own (bench, tests).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import NamedTuple

import polars as pl

from schemas.failures import failures_of
from schemas.trees import RunSummary, SystemDescription
from warehouse.identity.rounds import Round
from warehouse.ingest.fetch import Previous
from warehouse.ingest.tree_fetch import PARSERS, FileOutcome, TreeFile
from warehouse.ingest.trees import SUMMARY_FILE, run_folder
from warehouse.store import db
from warehouse.store.tree_tables import SUMMARY_TYPES, SYSTEM_TYPES, polars_schema


class Kind(NamedTuple):
    model: type                    # the Pandera model a parsed row must pass
    types: dict[str, str]          # column -> type (warehouse/store/tree_tables.py)
    table: str
    key: str                       # the table's key column, besides round


KINDS = {"summary": Kind(RunSummary, SUMMARY_TYPES, "run_summaries", PARSERS["summary"].key),
         "system": Kind(SystemDescription, SYSTEM_TYPES, "systems", PARSERS["system"].key)}
DEFAULT_CHUNK = 64


@dataclass
class TreeOutcome:
    """What one tree ingest did, per status, and the one-line problems."""
    counts: dict[str, int]
    problems: list[str]
    seconds: float = 0.0

    @property
    def files(self) -> int:
        return sum(self.counts.values())

    @property
    def failed(self) -> bool:
        return self.counts.get("failed", 0) > 0

    def by_status(self) -> pl.DataFrame:
        return pl.DataFrame({"status": list(self.counts), "files": list(self.counts.values())},
                            schema={"status": pl.String, "files": pl.Int64})


# ---------------------------------------------------------------------------------------------
# plan


def tree_url(source: str, round: Round, path: str) -> str:
    return f"{source.rstrip('/')}/{round.repository}/{round.branch}/{path}"


def plan(con, rounds: list[Round], source: str) -> tuple[list[TreeFile], int]:
    """Every summary and system file the loaded result rows of these rounds name, with what the
    warehouse saw of each last time; and how many result rows name no usable run folder."""
    by_name = {r.name: r for r in rounds}
    locations = db.query_frame(
        con, "SELECT round, location, count(*) AS rows FROM results WHERE list_contains(?, round) "
             "AND metric = 'performance' GROUP BY ALL ORDER BY ALL", [list(by_name)])
    previous = _previous(con)
    files: dict[tuple[str, str], TreeFile] = {}
    unnamed = 0
    for round_name, location, rows in locations.iter_rows():
        folder = run_folder(location)
        if folder is None:
            unnamed += rows
            continue
        for kind, path in (("summary", folder.summary_path), ("system", folder.system_path)):
            url = tree_url(source, by_name[round_name], path)
            files.setdefault((round_name, path), TreeFile(
                round_name, path, kind, url, _previous_fetch(previous.get((round_name, path)), url)))
    return list(files.values()), unnamed


def _previous(con) -> dict[tuple[str, str], tuple]:
    rows = con.execute("SELECT round, path, sha256, etag, last_modified, url FROM tree_files "
                       "WHERE status IN ('loaded', 'quarantined')").fetchall()
    return {(r, p): rest for r, p, *rest in rows}


def _previous_fetch(found: tuple | None, url: str) -> Previous | None:
    """What the last load saw; validators (ETag, Last-Modified) only count for the same URL."""
    if found is None:
        return None
    sha256, etag, last_modified, previous_url = found
    same_place = previous_url == url
    return Previous(sha256, etag if same_place else None, last_modified if same_place else None)


def chunks(files: list[TreeFile], size: int = DEFAULT_CHUNK) -> list[list[TreeFile]]:
    return [files[i:i + size] for i in range(0, len(files), max(1, size))]


# ---------------------------------------------------------------------------------------------
# validate (every chunk's rows at once)


@dataclass
class Checked:
    """Every outcome with its final status, and the rows that passed their Pandera model."""
    outcomes: list[FileOutcome]
    summaries: pl.DataFrame
    systems: pl.DataFrame


def check(outcomes: list[FileOutcome]) -> Checked:
    """Validate every parsed row at once (one Pandera pass per table, not one per chunk): a row
    that fails any check quarantines its file."""
    frames = {kind: _validate(kind, [o for o in outcomes if o.status == "parsed" and o.file.kind == kind])
              for kind in KINDS}
    return Checked(outcomes, frames["summary"], frames["system"])


def _validate(kind: str, candidates: list[FileOutcome]) -> pl.DataFrame:
    """The rows that pass every check of the kind's model; the others' files become quarantined."""
    frame = pl.DataFrame([c.record for c in candidates], schema=polars_schema(KINDS[kind].types))
    reasons = row_failures(KINDS[kind].model, frame)
    for index, candidate in enumerate(candidates):
        if index in reasons:
            candidate.status, candidate.reasons = "quarantined", reasons[index]
        else:
            candidate.status, candidate.raw_text = "loaded", None
        candidate.record = None
    return frame.filter(~pl.int_range(pl.len()).is_in(list(reasons)))


def row_failures(model, frame: pl.DataFrame) -> dict[int, list[str]]:
    """{row index: every check it failed} under a Pandera model (lazy validation)."""
    failures: dict[int, list[str]] = {}
    for failure in failures_of(model, frame) if frame.height else []:
        if failure.index is None:  # a schema-level failure (a column of the wrong type): a bug
            raise RuntimeError(f"{model.__name__}: schema-level failure {failure}")
        failures.setdefault(failure.index, []).append(failure.message())
    return failures


# ---------------------------------------------------------------------------------------------
# load


def load(con, checked: Checked) -> TreeOutcome:
    """One transaction: a loaded file replaces its row, a quarantined one its quarantine record
    (and drops the row parsed from its earlier content); a file that is now missing or failed
    keeps whatever was loaded from it before and is only recorded when nothing was."""
    outcomes = checked.outcomes
    now = datetime.now(timezone.utc)
    frames = {
        "_tree_files": pl.DataFrame([_file_row(o, now) for o in outcomes if o.status != "unchanged"],
                                    schema=FILE_ROW_SCHEMA),
        "_tree_quarantine": pl.DataFrame([_quarantine_row(o) for o in outcomes
                                          if o.status == "quarantined"], schema=QUARANTINE_SCHEMA),
        "_run_summaries": checked.summaries,
        "_systems": checked.systems,
    }
    with db.registered(con, **frames), db.transaction(con):
        for kind in KINDS.values():
            con.execute(f"""DELETE FROM {kind.table} AS t USING _tree_files AS f
                            WHERE t.round = f.round AND f.status IN ('loaded', 'quarantined')
                              AND (t.{kind.key} = f.path OR t.{kind.key} || '/{SUMMARY_FILE}' = f.path)""")
            columns = ", ".join(frames[f"_{kind.table}"].columns)
            con.execute(f"INSERT INTO {kind.table} ({columns}) SELECT {columns} FROM _{kind.table}")
        con.execute("""DELETE FROM quarantine AS q USING _tree_files AS f
                       WHERE q.source_id = 'tree/' || f.round || '/' || f.path
                         AND f.status IN ('loaded', 'quarantined')""")
        con.execute("INSERT INTO quarantine SELECT * FROM _tree_quarantine")
        con.execute("""DELETE FROM tree_files AS t USING _tree_files AS f
                       WHERE t.round = f.round AND t.path = f.path
                         AND (f.status IN ('loaded', 'quarantined') OR t.status IN ('missing', 'failed'))""")
        con.execute("""INSERT INTO tree_files SELECT f.* FROM _tree_files AS f
                       WHERE NOT EXISTS (SELECT 1 FROM tree_files AS t
                                         WHERE t.round = f.round AND t.path = f.path)""")
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    problems = [f"{o.file.location}: {o.status}: {'; '.join(o.reasons)}"
                for o in outcomes if o.status in ("quarantined", "failed")]
    return TreeOutcome(counts, problems)


FILE_ROW_SCHEMA = {
    "round": pl.String, "path": pl.String, "kind": pl.String, "url": pl.String, "status": pl.String,
    "sha256": pl.String, "bytes": pl.Int64, "etag": pl.String, "last_modified": pl.String,
    "fetched_at": pl.Datetime("us", "UTC"), "loaded_at": pl.Datetime("us", "UTC"), "message": pl.String,
}
QUARANTINE_SCHEMA = {"round": pl.String, "source_id": pl.String, "record_no": pl.Int64,
                     "raw_record": pl.String, "reasons": pl.List(pl.String)}


def _file_row(o: FileOutcome, now: datetime) -> dict:
    f = o.fetched
    return {"round": o.file.round, "path": o.file.path, "kind": o.file.kind, "url": o.file.location,
            "status": o.status, "sha256": f.sha256 if f else None, "bytes": f.size if f else None,
            "etag": f.etag if f else None, "last_modified": f.last_modified if f else None,
            "fetched_at": f.fetched_at if f else now, "loaded_at": now,
            "message": "; ".join(o.reasons) or None}


def _quarantine_row(o: FileOutcome) -> dict:
    raw = json.dumps({"path": o.file.path, "url": o.file.location, "text": o.raw_text}, ensure_ascii=False)
    return {"round": o.file.round, "source_id": o.file.source_id, "record_no": 0, "raw_record": raw,
            "reasons": o.reasons}


def _replace(con, table: str, key: str, incoming: str, frame: pl.DataFrame | None) -> None:
    if frame is None or frame.height == 0:
        return
    con.execute(f"DELETE FROM {table} WHERE (round, {key}) IN (SELECT (round, {key}) FROM {incoming})")
    columns = ", ".join(frame.columns)
    con.execute(f"INSERT INTO {table} ({columns}) SELECT {columns} FROM {incoming}")
