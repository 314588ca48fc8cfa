"""The plain functions behind the flows: parse + validate (pure) and load (DuckDB)."""
from __future__ import annotations

from dataclasses import dataclass, field

from warehouse.identity.rounds import published_records
from warehouse.ingest import guards
from warehouse.ingest.fetch import Fetched, FetchSettings, fetch
from warehouse.ingest.outcome import (ORIGINS, RoundOutcome, previous_fetch, previous_fetches,  # noqa: F401 - theirs
                                      source_id_for)
from warehouse.ingest.parse import RECORD_NO, detect_format, parse
from warehouse.ingest.validate import Validated, split_valid
from warehouse.store import db


@dataclass
class Prepared:
    format: str
    validated: Validated
    unknown_columns: list[str]
    findings: list[guards.Finding] = field(default_factory=list)  # what the file itself tells


def prepare(content: bytes, file_name: str, round_name: str, origin: str, label: str) -> Prepared:
    """Pure: bytes -> validated canonical rows and quarantined records. Raises MalformedFile."""
    source_id = source_id_for(round_name, origin, file_name)
    fmt = detect_format(file_name)
    raw, canonical, unknown = parse(content, file_name, round_name, origin, source_id, label)
    validated = split_valid(raw, canonical)
    validated.good = validated.good.rename({RECORD_NO: "record_no"})
    findings = [guards.incomplete_last_line(content, fmt, label),
                guards.round_markers(raw, fmt, round_name, label),
                guards.all_quarantined(validated.rows_read, validated.rows_loaded, label),
                guards.short_of_round(validated.rows_read, published_records(round_name) if origin == "official"
                                      else None, round_name, label)]
    return Prepared(fmt, validated, unknown, [f for f in findings if f is not None])


def load(con, fetched: Fetched, prepared: Prepared, round_name: str, origin: str,
         allow=frozenset(), also=None, excused: frozenset[str] = frozenset()) -> RoundOutcome:
    """Replace this source's rows, unless a guard refuses (GuardRefused: nothing changes); a row the
    new table publishes in a quarantined record keeps its last good value, marked stale; `also`
    writes in the same transaction (db.replace_source). `excused`: guards the file's own evidence
    answers (a withdrawal: warehouse.ingest.guards.withdrawal)."""
    v = prepared.validated
    source_id = source_id_for(round_name, origin, fetched.file_name)
    before = db.previous_source(con, source_id)
    shrink = guards.shrinks(before["rows_loaded"] if before else None, v.rows_loaded, fetched.location)
    overrides = guards.enforce([*prepared.findings, shrink], allow, excused)
    source = db.SourceRecord(
        source_id=source_id_for(round_name, origin, fetched.file_name), round=round_name,
        origin=origin, url=fetched.location, file_name=fetched.file_name, format=prepared.format,
        sha256=fetched.sha256, bytes=fetched.size, etag=fetched.etag,
        last_modified=fetched.last_modified, fetched_at=fetched.fetched_at,
        rows_read=v.rows_read, rows_loaded=v.rows_loaded, rows_quarantined=v.rows_quarantined,
        unknown_columns=prepared.unknown_columns, overrides=overrides,
    )
    db.replace_source(con, source, v.good, v.quarantine, also, v.quarantined_rows)
    return RoundOutcome(round_name, "loaded", v.rows_read, v.rows_loaded, v.rows_quarantined,
                        source.source_id, fetched.location, unknown_columns=prepared.unknown_columns)


def ingest_location(con, round_name: str, origin: str, file_name: str, location: str,
                    settings: FetchSettings | None = None) -> RoundOutcome:
    """Fetch -> prepare -> load in one call, without Prefect (one attempt, no skipping)."""
    fetched = fetch(location, file_name, settings or FetchSettings())
    return load(con, fetched, prepare(fetched.content, file_name, round_name, origin, location),
                round_name, origin)
