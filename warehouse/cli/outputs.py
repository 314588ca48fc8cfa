"""Commands for people outside SQL: `export` (files for BI tools), `report` (the static HTML page),
`docs` (the column documentation)."""
from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from warehouse.cli.console import say
from warehouse.cli.global_options import command, current, reading_file
from warehouse.cli.progress import step
from warehouse.errors import EXIT_OK, ExpectedFailure
from warehouse.figures import few, plural


class ExportFormat(str, Enum):
    """warehouse.export.EXPORT_FORMATS, named here without importing the exporters for --help."""
    parquet = "parquet"
    csv = "csv"
    xlsx = "xlsx"


def register(app: typer.Typer) -> None:
    command(app, "export", "mlperf-wh export bi/", "mlperf-wh export bi-csv/ --format csv",
            "mlperf-wh export bi/ --views software_gains,claim_audit")(export)
    command(app, "report", "mlperf-wh report --out report/")(report)
    command(app, "docs", "mlperf-wh docs", "mlperf-wh docs --out /tmp/docs")(docs)


def export(
    directory: Annotated[Path, typer.Argument(metavar="DIRECTORY", show_default=False, help=(
        "new, empty or a previous export (replaced whole, atomically); a symlink is followed"))],
    fmt: Annotated[ExportFormat, typer.Option("--format", help=(
        "parquet (partitioned by round), csv (nested values as JSON), xlsx (a sheet per view)"))
    ] = ExportFormat.parquet,
    views: Annotated[Optional[str], typer.Option("--views", help=(
        "comma-separated, e.g. software_gains,claim_audit (default: every mart; `results` is available too)"))
    ] = None,
) -> int:
    """Write every mart and dimension to files for BI tools, with a manifest."""
    from warehouse.export.bi_files import ExportError, export_views, exported_views
    from warehouse.store import db
    chosen = [v.strip() for v in views.split(",") if v.strip()] if views else None
    before = exported_views(directory)
    with db.connect(reading_file(), read_only=True) as con, \
            step(f"exporting as {fmt.value}"):
        try:
            manifest = export_views(con, directory, fmt.value, chosen, warehouse_file=db.db_path(current().db))
        except ExportError as exc:
            raise ExpectedFailure(f"{exc}; nothing was written, {directory} is as it was") from None
    rows = sum(v["rows"] for v in manifest["views"].values())
    files = len({f["path"] for f in manifest["files"]})
    say(f"exported {plural(len(manifest['views']), 'view')} ({rows} rows) as {fmt.value} to {directory}: "
        f"{plural(files, 'file')}, see {directory / 'manifest.json'}")
    gone = [view for view in before if view not in manifest["views"]]
    if gone:
        say(f"it replaced the export of {len(before)} views there: {few(gone)} {'is' if len(gone) == 1 else 'are'} "
            f"no longer in {directory} "
            "(export without --views for every mart, or to another directory to keep both)")
    return EXIT_OK


def report(out: Annotated[Path, typer.Option("--out", help=(
        "directory: new, empty or a previous report (replaced whole); a symlink is followed"))] = Path("report"),
           images: Annotated[Optional[bool], typer.Option("--images/--no-images", help=(
               "also write each chart as PNG and SVG for slides in charts/ (default: when the previous "
               "report in --out has them; only charts whose rows changed are drawn again)"),
               show_default=False)] = None) -> int:
    """An HTML report to explore offline (tooltips, filters; no network needed); with --images, each
    chart also as PNG and SVG."""
    from warehouse.errors import needs_extra
    from warehouse.export import vega_bundle
    vega_bundle.start_early()  # a first report on this machine bundles Vega while the rest loads
    try:
        with needs_extra("report", "the report"):
            from warehouse.export.report import render_report
        from warehouse.store import db
        with db.connect(reading_file(), read_only=True) as con:
            page = render_report(con, out, db.db_path(current().db), images)
    finally:
        vega_bundle.close_early()
    charts = page.parent / "charts"
    say(f"report: {page}" + (f" (charts as PNG and SVG in {charts})" if charts.is_dir() else ""))
    return EXIT_OK


def docs(out: Annotated[Optional[Path], typer.Option("--out", help=(
        "the directory to write into (default: docs/ of the checkout)"))] = None) -> int:
    """Write docs/views.md (every mart and its column descriptions) and docs/reference.md (the
    reference tables and their sources)."""
    from warehouse.identity.reference_docs import REFERENCE_MD, render_reference_markdown
    from warehouse.views.views_markdown import VIEWS_MD, empty_warehouse_markdown
    directory = out or VIEWS_MD.parent
    directory.mkdir(parents=True, exist_ok=True)
    for name, text in ((VIEWS_MD.name, empty_warehouse_markdown()), (REFERENCE_MD.name, render_reference_markdown())):
        (directory / name).write_text(text, encoding="utf-8")
        print(directory / name)
    return EXIT_OK
