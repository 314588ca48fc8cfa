"""Write views to Parquet or CSV files that BI tools (Superset, Power BI, Tableau, Excel) open."""
from __future__ import annotations

from pathlib import Path

import duckdb

from warehouse.views import LAYERS, definitions

EXPORT_FORMATS = ("parquet", "csv")


def default_views() -> list[str]:
    return ["results"] + [v.name for v in definitions() if v.layer == LAYERS[-1]]


def export_views(con: duckdb.DuckDBPyConnection, directory: Path, fmt: str,
                 views: list[str] | None = None) -> list[Path]:
    known = set(default_views()) | {v.name for v in definitions()} | {"sources", "quarantine"}
    chosen = views or default_views()
    unknown = [v for v in chosen if v not in known]
    if unknown:
        raise ValueError(f"unknown view(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for view in chosen:
        path = directory / f"{view}.{fmt}"
        option = "FORMAT parquet" if fmt == "parquet" else "FORMAT csv, HEADER true"
        target = path.as_posix().replace("'", "''")
        con.execute(f"COPY (SELECT * FROM {view}) TO '{target}' ({option})")
        written.append(path)
    return written
