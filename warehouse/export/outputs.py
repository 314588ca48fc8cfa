"""Regenerate what people outside SQL read (the BI export and the static report) after a load.

One plain function for the scheduled flow to call after each backfill; it does nothing when the
load changed nothing.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from warehouse.errors import needs_extra
from warehouse import settings
from warehouse.store import db


@dataclass(frozen=True)
class Published:
    export_dir: Path | None
    report_page: Path | None


def loaded_something(outcomes) -> bool:
    """True when any round's outcome (pipeline.RoundOutcome) replaced rows in the warehouse."""
    return any(o.status == "loaded" for o in outcomes)


def publish_for_people(db_file: str, export_dir: str | Path | None = None,
                       report_dir: str | Path | None = None, fmt: str = "parquet") -> Published:
    """Write the export (every mart, with manifest.json) and the report from the warehouse file,
    each swapped in whole. Either directory may be None to skip it."""
    # Imported here: a run that publishes nothing never pays for the report stack (altair, jinja2).
    from warehouse.export.bi_files import export_views
    with needs_extra("report", "the report"):
        from warehouse.export.report import render_report
    with db.connect(db_file, read_only=True) as con:
        if export_dir is not None:
            export_views(con, Path(export_dir), fmt, warehouse_file=db_file)
        page = render_report(con, Path(report_dir), db_file) if report_dir is not None else None
    return Published(Path(export_dir) if export_dir is not None else None, page)


def publish_after_load(outcomes, db_file: str, export_dir=None, report_dir=None,
                       fmt: str = "parquet") -> Published | None:
    """For the scheduled flow: regenerate export and report only when the load changed something."""
    if not loaded_something(outcomes):
        return None
    return publish_for_people(db_file, export_dir, report_dir, fmt)


def configured_dirs() -> tuple[Path | None, Path | None]:
    """Where scheduled runs keep the BI export and the report: MLPERF_EXPORT_DIR, MLPERF_REPORT_DIR
    (unset: not regenerated)."""
    configured = settings.current()
    return configured.export_dir, configured.report_dir


def regenerate_after_run(outcomes, db_file: str) -> Published | None:
    """After a run, from the published read-only copy (the writer lock is already released):
    the export and the report the environment asks for, when the run loaded something."""
    from warehouse.store.publish import published_path
    export_dir, report_dir = configured_dirs()
    if export_dir is None and report_dir is None:
        return None
    copy = published_path(db_file)
    return publish_after_load(outcomes, str(copy if copy.exists() else db_file), export_dir, report_dir)
