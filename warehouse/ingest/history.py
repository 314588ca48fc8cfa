"""`load_events`: every load of a source file (and every failed attempt), with what it changed."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from typing import TYPE_CHECKING

import duckdb
import polars as pl

from warehouse.ingest.fetch import Fetched
from warehouse.ingest.outcome import RoundOutcome, source_id_for
from warehouse.store import db

if TYPE_CHECKING:
    from warehouse.ingest.pipeline import Prepared

# schemas.rounds.LoadEvent's columns, in its order (tests/test_watch.py checks that they are): named
# here so that recording an event needs no Pandera (a run that finds nothing new records one per round).
EVENT_COLUMNS = ["loaded_at", "flow_run_id", "run_kind", "round", "source_id", "url", "status", "sha256",
                 "previous_sha256", "rows_read", "rows_loaded", "rows_quarantined", "results_new",
                 "results_changed", "results_removed", "change_summary"]


@dataclass(frozen=True)
class Run:
    """Who is writing: the Prefect flow run (when there is one) and what kind of run it is."""
    kind: str                      # watch | backfill | ingest
    flow_run_id: str | None = None


@dataclass(frozen=True)
class Changes:
    new: int
    changed: int
    removed: int
    quarantined: int = 0   # rows the new table publishes in a failed record: kept stale, not removed
    restored: int = 0      # stale rows the new table publishes good again

    def summary(self, first_load: bool, same_file: bool = False, gone: str = "removed") -> str:
        """`gone`: what the rows the new table lacks are ('withdrawn' when MLCommons withdrew them)."""
        if first_load:
            return f"first load: {self.new} results"
        if not (self.new or self.changed or self.removed or self.quarantined or self.restored):
            return ("reloaded: the same file, the same results" if same_file
                    else "reloaded: the same results (the file changed, its results did not)")
        stale = [f"{self.quarantined} quarantined (last good value kept)"] if self.quarantined else []
        stale += [f"{self.restored} restored"] if self.restored else []
        return ", ".join([f"reloaded: {self.new} new, {self.changed} changed, {self.removed} {gone} results", *stale])


def counted(rows: pl.DataFrame) -> Changes:
    """A load's result rows per kind of change, read from its ledger rows (changes.field_changes): a
    row the new table publishes in a quarantined record is kept, not removed (counted once, when it
    goes stale)."""
    from warehouse.ingest import changes
    kinds = changes.changed_results(rows)
    return Changes(kinds["added"], kinds["changed"], kinds["withdrawn"], kinds["quarantined"], kinds["restored"])


def load_with_history(con: duckdb.DuckDBPyConnection, fetched: Fetched, prepared: "Prepared",
                      round_name: str, origin: str, run: Run, allow=frozenset()) -> RoundOutcome:
    """pipeline.load, and in its transaction one load event saying what the load changed: a load is
    never kept without its event (a signal between the two left the reload out of `mlperf-wh loads`)."""
    from warehouse.ingest.pipeline import load
    from warehouse.ingest import changes as field_changes
    source_id = source_id_for(round_name, origin, fetched.file_name)
    before = field_changes.rows_before(con, source_id)
    previous = _previous_sha256(con, source_id)
    loaded_at = datetime.now(timezone.utc)  # the load event's and its result_changes rows' (one load)
    v = prepared.validated
    rows = field_changes.field_changes(before, v.good, v.quarantined_rows)
    changes = counted(rows) if previous else Changes(v.rows_loaded, 0, 0)
    withdrawn = previous is not None and _a_withdrawal(con, source_id, prepared, rows, round_name, origin)
    summary = changes.summary(first_load=previous is None, same_file=previous == fetched.sha256,
                              gone="withdrawn" if withdrawn else "removed")
    if withdrawn:
        summary += f" ({withdrawal_words(v.rows_read, round_name)})"
    event = {
        "loaded_at": loaded_at, "flow_run_id": run.flow_run_id, "run_kind": run.kind,
        "round": round_name, "source_id": source_id, "url": fetched.location,
        "status": "reloaded" if previous else "loaded", "sha256": fetched.sha256,
        "previous_sha256": previous,
        "rows_read": v.rows_read, "rows_loaded": v.rows_loaded,
        "rows_quarantined": v.rows_quarantined, "results_new": changes.new,
        "results_changed": changes.changed, "results_removed": changes.removed,
        "change_summary": summary,
    }
    write_changes = field_changes.writer(loaded_at, round_name, source_id, rows)

    def also(con: duckdb.DuckDBPyConnection) -> None:
        write_changes(con)
        record(con, event)
    outcome = load(con, fetched, prepared, round_name, origin, allow, also=also,
                   excused=frozenset({"short-of-round"}) if withdrawn else frozenset())
    # the run report reads what the load changed from its outcome, whether or not a flow run holds it
    outcome.results_new, outcome.results_changed, outcome.change_summary = changes.new, changes.changed, summary
    return outcome


def _a_withdrawal(con: duckdb.DuckDBPyConnection, source_id: str, prepared: "Prepared", rows: pl.DataFrame,
                  round_name: str, origin: str) -> bool:
    """A reload short of its round's recorded records that is MLCommons withdrawing results, not a
    cut (guards.withdrawal); asked only of a table `short-of-round` refuses."""
    from warehouse.identity.rounds import published_records
    from warehouse.ingest import guards
    if not any(f.guard == "short-of-round" for f in prepared.findings) or origin != "official":
        return False
    added = rows.filter(pl.col("change") == "added").select(changes_key()).unique().height
    reload = guards.Reload(added, _last_record_kept(con, source_id, prepared))
    return guards.withdrawal(prepared.validated.rows_read, published_records(round_name), prepared.format, reload)


def _last_record_kept(con: duckdb.DuckDBPyConnection, source_id: str, prepared: "Prepared") -> bool:
    """The last record of the loaded table (by its place in its file) is in the new table, good or
    quarantined: what tells a CSV that lost rows in its middle from one cut at a line break."""
    key = changes_key()
    last = db.query_frame(con, f"SELECT {', '.join(key)} FROM results WHERE source_id = ? "
                               "ORDER BY record_no DESC LIMIT 1", [source_id])
    if last.height == 0:
        return False
    v = prepared.validated
    present = [frame.select(key) for frame in (v.good, v.quarantined_rows) if frame is not None and frame.height]
    if not present:
        return False
    new = pl.concat([f.cast({c: pl.String for c in key}) for f in present])
    return new.join(last.cast({c: pl.String for c in key}), on=key, how="semi", nulls_equal=True).height > 0


def changes_key() -> list[str]:
    from warehouse.ingest.changes import result_key
    return result_key()


def withdrawal_words(records: int, round_name: str) -> str:
    """What a load that MLCommons' withdrawal made says of it (load_events, the run's table)."""
    from warehouse.identity.rounds import published_records
    return (f"withdrawn by MLCommons: the table is whole, {records} of the {published_records(round_name)} "
            f"records {round_name} was published with, and holds no result the loaded one lacked")


def _previous_sha256(con: duckdb.DuckDBPyConnection, source_id: str) -> str | None:
    found = con.execute("SELECT sha256 FROM sources WHERE source_id = ?", [source_id]).fetchall()
    return found[0][0] if found else None


def record_failure(con: duckdb.DuckDBPyConnection, outcome: RoundOutcome, run: Run) -> None:
    record(con, {
        "loaded_at": datetime.now(timezone.utc), "flow_run_id": run.flow_run_id, "run_kind": run.kind,
        "round": outcome.round, "source_id": outcome.source_id, "url": outcome.location,
        "status": "failed", "sha256": None, "previous_sha256": None, "rows_read": 0, "rows_loaded": 0,
        "rows_quarantined": 0, "results_new": 0, "results_changed": 0, "results_removed": 0,
        "change_summary": f"failed: {outcome.message}",
    })


def record_unchanged(con: duckdb.DuckDBPyConnection, outcome: RoundOutcome, run: Run, sha256: str | None) -> None:
    """A run looked at the round's file and found it as the last load left it: said in the history
    (`mlperf-wh loads`), so a quiet week of runs is visible as such."""
    record(con, {
        "loaded_at": datetime.now(timezone.utc), "flow_run_id": run.flow_run_id, "run_kind": run.kind,
        "round": outcome.round, "source_id": outcome.source_id, "url": outcome.location,
        "status": "unchanged", "sha256": sha256, "previous_sha256": sha256, "rows_read": 0,
        "rows_loaded": 0, "rows_quarantined": 0, "results_new": 0, "results_changed": 0,
        "results_removed": 0, "change_summary": "checked: unchanged since the last load",
    })


def record(con: duckdb.DuckDBPyConnection, event: dict) -> None:
    # The table's column types refuse a value of another type. LoadEvent's value checks are not run
    # on every event: each is built above from counts and fixed words (validating one row cost 20 ms
    # a load); tests/test_watch.py validates the events real runs store.
    con.execute(f"INSERT INTO load_events ({', '.join(EVENT_COLUMNS)}) "
                f"VALUES ({', '.join('?' for _ in EVENT_COLUMNS)})", [event[c] for c in EVENT_COLUMNS])


def events(con: duckdb.DuckDBPyConnection, flow_run_id: str | None = None,
           round_name: str | None = None) -> pl.DataFrame:
    where, params = [], []
    if flow_run_id:
        where.append("flow_run_id = ?")
        params.append(flow_run_id)
    if round_name:
        where.append("round = ?")
        params.append(round_name)
    clause = f"WHERE {' AND '.join(where)}" if where else ""
    return db.query_frame(con, f"SELECT * FROM load_events {clause} ORDER BY loaded_at, round", params or None)


def for_screen(frame: pl.DataFrame) -> pl.DataFrame:
    """The columns of `events` a person reads, checksum and flow run id shortened."""
    return frame.select("loaded_at", "run_kind", "round", "status", pl.col("sha256").str.slice(0, 12),
                        "rows_read", "rows_loaded", "rows_quarantined", "change_summary",
                        pl.col("flow_run_id").str.slice(0, 8).alias("flow_run"))


def ingest_location_with_history(con: duckdb.DuckDBPyConnection, round_name: str, origin: str, file_name: str,
                                 location: str, run: Run, allow=frozenset()) -> RoundOutcome:
    """Fetch -> prepare -> load in one call, without Prefect, recorded as a run records its loads
    (load_events, result_changes): pipeline.ingest_location with history."""
    from warehouse.ingest.fetch import FetchSettings, fetch
    from warehouse.ingest.pipeline import prepare
    fetched = fetch(location, file_name, FetchSettings())
    return load_with_history(con, fetched, prepare(fetched.content, file_name, round_name, origin, location),
                             round_name, origin, run, allow)
