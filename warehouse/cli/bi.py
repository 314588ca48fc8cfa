"""CLI commands for people outside SQL: BI exports, the static report, the column documentation."""
from __future__ import annotations

import sys
from pathlib import Path


def cmd_docs(args) -> int:
    from warehouse.views.column_docs import VIEWS_MD, empty_warehouse_markdown
    out = Path(args.out) if args.out else VIEWS_MD
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(empty_warehouse_markdown(), encoding="utf-8")
    print(out)
    return 0


def cmd_export(args) -> int:
    from warehouse.export import ExportError, export_views
    from warehouse.store import db
    views = [v.strip() for v in args.views.split(",") if v.strip()] if args.views else None
    with db.connect(args.db, read_only=True) as con:
        try:
            manifest = export_views(con, Path(args.directory), args.format, views,
                                    warehouse_file=db.db_path(args.db))
        except ExportError as exc:
            return _fail(f"{exc}\nnothing was written; {args.directory} is as it was")
    rows = sum(v["rows"] for v in manifest["views"].values())
    files = len({f["path"] for f in manifest["files"]})
    print(f"exported {len(manifest['views'])} views ({rows} rows) as {args.format} to {args.directory}: "
          f"{files} file{'s' if files != 1 else ''}, see {Path(args.directory) / 'manifest.json'}")
    return 0


def cmd_report(args) -> int:
    from warehouse.export.report import render_report
    from warehouse.store import db
    with db.connect(args.db, read_only=True) as con:
        try:
            page = render_report(con, Path(args.out), db.db_path(args.db))
        except FileExistsError as exc:
            return _fail(f"{exc}\nnothing was written")
    print(f"report: {page} (charts as PNG and SVG in {page.parent / 'charts'})")
    return 0


def register(sub, common) -> None:
    from warehouse.export import EXPORT_FORMATS
    p = sub.add_parser("export", parents=[common],
                       help="write every mart and dimension to files for BI tools, with a manifest")
    p.add_argument("directory", help="replaced whole, atomically, by the new export")
    p.add_argument("--format", choices=EXPORT_FORMATS, default="parquet",
                   help="parquet (partitioned by round), csv (nested values as JSON), xlsx (a sheet per view)")
    p.add_argument("--views", default=None, help="comma-separated, e.g. software_gains,claim_audit "
                                                 "(default: every mart; `results` is available too)")
    p.set_defaults(handler=cmd_export)

    p = sub.add_parser("report", parents=[common],
                       help="a static HTML report (no network needed to view it) with each chart as PNG and SVG")
    p.add_argument("--out", default="report", help="directory, replaced whole (default: report/)")
    p.set_defaults(handler=cmd_report)

    p = sub.add_parser("docs", help="write docs/views.md: every mart and its column descriptions")
    p.add_argument("--out", default=None, help="default: docs/views.md of the checkout")
    p.set_defaults(handler=cmd_docs)


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1
