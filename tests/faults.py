"""Helpers of the fault suite: a known-good warehouse copied per test, its digest, the CLI's answer."""
from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import duckdb
import pytest
from tests.readers import connect_file

DIGEST_TABLES = ("results", "quarantine", "sources")
# What the ledger commands write: a year of an operator's claims, decisions, prices and own runs.
LEDGER_TABLES = ("claims", "decisions", "prices", "measurement_files", "own_measurements",
                 "own_measurement_requests", "own_measurement_quarantine")


def digest(db: str | Path, times: bool = True, tables: tuple[str, ...] = DIGEST_TABLES) -> dict[str, str]:
    """A hash of every row of `tables` (results, quarantine and sources): the row count and the sum
    of each row's hash of its text, computed by DuckDB; any changed, added or lost row changes it, in
    any order (no sort: a sorted md5 of the rows was most of a fault test's own time). Without
    `times`, the sources' fetched_at and loaded_at are left out (to compare two runs)."""
    con = connect_file(str(db), read_only=True)
    try:
        shot = {}
        for table in tables:
            exclude = " EXCLUDE (fetched_at, loaded_at)" if table == "sources" and not times else ""
            shot[table] = con.execute(
                "SELECT count(*) || ':' || coalesce(sum(hash(CAST(t AS VARCHAR))::HUGEINT), 0) "
                f"FROM (SELECT *{exclude} FROM {table}) AS t").fetchall()[0][0]
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


def point_sources_at(path: str, old: str, source: str) -> None:
    """The warehouse remembers `source` where its rounds' URLs say `old` (sources.url); published."""
    from warehouse.store.publish import publish
    with connect_file(path) as con:
        con.execute("UPDATE sources SET url = replace(url, ?, ?)", [old, source])
        assert con.execute("SELECT count(*) FROM sources WHERE starts_with(url, ?)", [source]).fetchall()[0][0] > 0
    publish(path)


@pytest.fixture
def remembered(shared_warehouse, tmp_path, monkeypatch):
    """(warehouse, its source): a copy of the session's warehouse whose rounds came from a copy of the
    mirror holding those rounds alone (so a watch finds nothing else new)."""
    from tests.conftest import MIRROR, SHARED_ROUNDS
    monkeypatch.delenv("MLPERF_SOURCE", raising=False)
    mirror = tmp_path / "mirror"
    for round_name in SHARED_ROUNDS:
        shutil.copytree(MIRROR / f"inference_results_{round_name}", mirror / f"inference_results_{round_name}")
    (tmp_path / "w").mkdir()
    path = copy_of(shared_warehouse, tmp_path / "w")
    point_sources_at(path, str(MIRROR.resolve()), str(mirror))
    return path, mirror


def one_error_line(err: str) -> str:
    """stderr holds exactly one `error: ...` line and no traceback; returns it."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("error: ")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def run(capsys):
    """`mlperf-wh ARGS...` in this process, without Prefect -> (exit code, stdout, stderr)."""
    from warehouse.cli import main

    def invoke(*args):
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return invoke


def files_in(directory: str | Path) -> dict[str, str]:
    """Every entry of `directory` (not below it) -> its sha256, or what a symlink or directory is."""
    found = {}
    for path in sorted(Path(directory).iterdir()):
        if path.is_symlink():
            found[path.name] = f"-> {os.readlink(path)}"
        elif path.is_dir():
            found[path.name] = "dir: " + ",".join(sorted(p.name for p in path.iterdir()))
        else:
            found[path.name] = file_digest(path)
    return found
