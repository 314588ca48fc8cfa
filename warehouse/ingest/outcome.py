"""What a round's run came to (RoundOutcome), which source a file is (source_id_for) and what its
last load saw (previous_fetch): the light part of the pipeline, which a run that only looks for
changes needs without parsing or validating anything (warehouse.ingest.look)."""
from __future__ import annotations

from dataclasses import dataclass, field

from warehouse.ingest.fetch import Previous
from warehouse.ingest.source_urls import redact
from warehouse.store import db

ORIGINS = ("official", "unofficial")


@dataclass
class RoundOutcome:
    round: str
    status: str                    # loaded | unchanged | not_published | refused | failed
    rows_read: int = 0
    rows_loaded: int = 0
    rows_quarantined: int = 0
    source_id: str | None = None
    location: str | None = None
    message: str = ""
    unknown_columns: list[str] = field(default_factory=list)
    unreachable: bool = False      # failed because the source could not be reached at all
    results_new: int | None = None        # a load: what it changed (as its load event says)
    results_changed: int | None = None
    change_summary: str | None = None

    @property
    def failed(self) -> bool:
        return self.status in ("failed", "refused")


def source_id_for(round_name: str, origin: str, file_name: str) -> str:
    """An official round has one result table; unofficial files are sources of their own."""
    if origin not in ORIGINS:
        raise ValueError(f"origin must be one of {ORIGINS}, not {origin!r}")
    return f"official/{round_name}" if origin == "official" else f"unofficial/{round_name}/{file_name}"


def previous_fetch(con, source_id: str, location: str) -> Previous | None:
    """What the last load saw; validators (ETag, Last-Modified) only count for the same URL."""
    return _previous(db.previous_source(con, source_id), location)


def previous_fetches(con, source_id: str, locations: list[str]) -> dict[str, Previous | None]:
    """previous_fetch of each place the source's file may be, from one look-up."""
    found = db.previous_source(con, source_id)
    return {location: _previous(found, location) for location in locations}


def _previous(found: dict | None, location: str) -> Previous | None:
    if not found:
        return None
    same_place = found["url"] == redact(location)
    return Previous(found["sha256"], found["etag"] if same_place else None,
                    found["last_modified"] if same_place else None)

