"""Helpers of the fault suite: a known-good warehouse copied per test, its digest, the CLI's answer."""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import duckdb
from tests.readers import connect_file

DIGEST_TABLES = ("results", "quarantine", "sources")


def digest(db: str | Path, times: bool = True) -> dict[str, str]:
    """sha256 of every row of results, quarantine and sources, in a stable order; without
    `times`, the sources' fetched_at and loaded_at are left out (to compare two runs)."""
    con = connect_file(str(db), read_only=True)
    try:
        shot = {}
        for table in DIGEST_TABLES:
            exclude = " EXCLUDE (fetched_at, loaded_at)" if table == "sources" and not times else ""
            rows = con.execute(f"SELECT *{exclude} FROM {table} ORDER BY ALL").fetchall()
            shot[table] = hashlib.sha256(repr(rows).encode()).hexdigest()
        return shot
    finally:
        con.close()


def query(db: str | Path, sql: str) -> list[tuple]:
    """The rows of `sql` on the warehouse file, opened read-only for the one query."""
    con = connect_file(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def file_digest(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def copy_of(known_good: str, tmp_path: Path, name: str = "warehouse.duckdb") -> str:
    target = tmp_path / name
    shutil.copyfile(known_good, target)
    return str(target)


def one_error_line(err: str) -> str:
    """stderr holds exactly one `error: ...` line and no traceback; returns it."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    return lines[0]
