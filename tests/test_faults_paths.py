"""Fault suite, issue 31 (writes): every path the warehouse writes through is its own.

The lock file, the write-ahead log, the published copy and the warehouse file itself are checked
before anything is opened: a symlink is never written through, a file the warehouse did not make is
never truncated or replaced, and a `--db` that is not a DuckDB file (by content, whatever its name)
is one line and exit 1 for every command. Each case asserts the exit code, the one `error:` line,
the digest of the warehouse's rows (results, quarantine, sources and the ledger) and the bytes of
every file in the directory.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import MIRROR, ROOT
from tests.faults import DIGEST_TABLES, LEDGER_TABLES, copy_of, digest, file_digest, files_in, one_error_line, query, run  # noqa: F401 - run: a fixture
from warehouse.store.publish import publish

PRICES = ROOT / "examples" / "prices.example.csv"
CLAIMS = ROOT / "examples" / "claims_v6.1_nvidia.example.toml"


@pytest.fixture
def warehouse(shared_warehouse, tmp_path) -> str:
    """A copy of the session's warehouse, alone in its directory, with its published copy."""
    (tmp_path / "w").mkdir()
    path = copy_of(shared_warehouse, tmp_path / "w")
    publish(path)
    return path


def state(db: str) -> tuple:
    """What must not change: the rows, the ledger, and every file beside the warehouse."""
    return digest(db, tables=DIGEST_TABLES + LEDGER_TABLES), files_in(Path(db).parent)


WRITERS = {
    "prices": lambda: ("prices", "load", PRICES),
    "claims": lambda: ("claims", "load", CLAIMS),
    "views": lambda: ("views", "refresh"),
}


@pytest.mark.parametrize(("how", "command"), [("symlink", "prices"), ("symlink", "claims"), ("symlink", "views"),
                                             ("hard-link", "prices"), ("foreign-content", "prices")])
def test_the_lock_file_is_never_written_through(run, warehouse, tmp_path, command, how):
    """A writer truncates <db>.lock on every run: a symlink or a second name of another file, or a
    file holding anything but a writer's line, would lose that file (a config went to 0 bytes)."""
    victim = tmp_path / "settings.conf"
    victim.write_text("listen = 0.0.0.0\n")
    lock = Path(f"{warehouse}.lock")
    lock.unlink(missing_ok=True)
    {"symlink": lambda: lock.symlink_to(victim), "hard-link": lambda: os.link(victim, lock),
     "foreign-content": lambda: lock.write_text("listen = 0.0.0.0\n")}[how]()
    before, victim_before = state(warehouse), file_digest(victim)
    code, out, err = run("--db", warehouse, *WRITERS[command]())
    assert code == 1, err
    line = one_error_line(err)
    assert line.startswith(f"error: {lock}: ") and ("the writer lock" in line or "writer's name" in line)
    assert state(warehouse) == before and file_digest(victim) == victim_before


def test_a_lock_file_a_writer_left_is_taken(run, warehouse):
    Path(f"{warehouse}.lock").write_text("pid 12345 on elsewhere (mlperf-wh backfill, since 2026-01-01 00:00:00 UTC)")
    code, _, err = run("--db", warehouse, "prices", "load", PRICES)
    assert code == 0, err
    assert Path(f"{warehouse}.lock").read_text() == ""


NOT_DUCKDB = {
    "csv": b"accelerator,dollars_per_accelerator_hour\nH100,2.5\n",
    "parquet": b"PAR1\x15\x04\x15\x10\x15\x14L\x15\x02\x15\x00\x12\x00\x00PAR1",
    "json": b'[{"round": "v6.0"}]\n',
    "empty": b"",
}
EVERY_COMMAND = {
    "prices-load": ("prices", "load", PRICES),
    "claims-load": ("claims", "load", CLAIMS),
    "views-refresh": ("views", "refresh"),
    "sql": ("sql", "SELECT 1"),
    "status": ("status",),
    "loads": ("loads",),
    "history": ("history",),
    "measurements": ("measurements",),
    "export": ("export", "OUT", "--views", "dim_rounds"),
}


@pytest.mark.parametrize(("kind", "command"), [("csv", command) for command in EVERY_COMMAND]
                         + [(kind, "prices-load") for kind in NOT_DUCKDB if kind != "csv"])
def test_a_db_that_is_not_duckdb_is_one_line_whatever_the_command(run, tmp_path, kind, command):
    """DuckDB opens a CSV, Parquet or JSON file as an in-memory database: `prices load --db x.csv`
    printed "loaded" and kept nothing. Told by content: the same file under any name."""
    db = tmp_path / f"data.{kind if kind != 'empty' else 'duckdb'}"
    db.write_bytes(NOT_DUCKDB[kind])
    before = files_in(tmp_path)
    args = [str(tmp_path / "out") if a == "OUT" else a for a in EVERY_COMMAND[command]]
    code, out, err = run("--db", db, *args)
    assert code == 1, err
    assert f"{db}: not a DuckDB warehouse file" in one_error_line(err)
    assert files_in(tmp_path) == before  # no .lock, no .read copy, no output


@pytest.mark.parametrize("command", ["prices-load", "sql"])
def test_a_db_that_is_a_directory_or_a_fifo_is_one_line(run, tmp_path, command):
    for db, said in ((tmp_path / "dir.duckdb", "is a directory"), (tmp_path / "fifo.duckdb", "not a regular file")):
        db.mkdir() if said.endswith("directory") else os.mkfifo(db)
        code, _, err = run("--db", db, *EVERY_COMMAND[command])
        assert code == 1 and said in one_error_line(err)


def test_a_backfill_into_a_csv_is_refused_before_anything_runs(cli, tmp_path):
    db = tmp_path / "results.csv"
    db.write_bytes(NOT_DUCKDB["csv"])
    before = files_in(tmp_path)
    code, _, err = cli("backfill", "--source", MIRROR, "--rounds", "v6.0", "--db", db)
    assert code == 1 and "not a DuckDB warehouse file" in one_error_line(err)
    assert files_in(tmp_path) == before


PLANTED_COPIES = {
    "directory": lambda copy: (copy.mkdir(), (copy / "keep.txt").write_text("mine")),
    "symlink": lambda copy: copy.symlink_to(copy.with_name("elsewhere.duckdb")),
    "foreign-file": lambda copy: copy.write_text("round,result\nv6.0,1\n"),
}


@pytest.mark.parametrize("planted", PLANTED_COPIES)
def test_a_published_copy_path_the_warehouse_did_not_write_is_refused_before_the_load(run, warehouse, planted):
    """The published copy is replaced after a load commits: a directory there made the load commit
    and then exit 1 naming a temporary file. Refused before the load now, the rows unchanged."""
    copy = Path(warehouse).with_name("warehouse.read.duckdb")
    copy.unlink()
    PLANTED_COPIES[planted](copy)
    before = state(warehouse)
    code, _, err = run("--db", warehouse, "prices", "load", PRICES)
    assert code == 1
    line = one_error_line(err)
    assert str(copy) in line and "not a copy the warehouse wrote" in line and "nothing was loaded" in line
    assert state(warehouse) == before


def test_a_reader_never_reads_nor_replaces_a_foreign_published_copy(run, warehouse):
    copy = Path(warehouse).with_name("warehouse.read.duckdb")
    copy.unlink()
    copy.write_text("round,result\nv6.0,1\n")
    before = state(warehouse)
    code, out, err = run("--db", warehouse, "sql", "SELECT count(*) AS n FROM results", "--format", "csv")
    assert code == 0, err
    assert out == f"n\n{query(warehouse, 'SELECT count(*) FROM results')[0][0]}\n"  # the warehouse itself
    assert state(warehouse) == before


@pytest.mark.parametrize("storage", ["v0.0.1", "v9.9.9"])
def test_an_unknown_published_storage_is_refused_before_the_load(run, warehouse, monkeypatch, storage):
    monkeypatch.setenv("MLPERF_PUBLISHED_STORAGE", storage)
    before = state(warehouse)
    code, _, err = run("--db", warehouse, "prices", "load", PRICES)
    assert code == 2
    assert one_error_line(err).startswith(f"error: MLPERF_PUBLISHED_STORAGE={storage!r}: not a DuckDB storage version")
    assert state(warehouse) == before


def test_a_published_storage_version_is_written_by_a_load_holding_its_connection(run, warehouse, monkeypatch):
    """The copy in another storage version was made by attaching the warehouse a second time, which
    DuckDB refuses while the load's own connection is open (every load: exit 70)."""
    monkeypatch.setenv("MLPERF_PUBLISHED_STORAGE", "v1.0.0")
    code, _, err = run("--db", warehouse, "prices", "load", PRICES)
    assert code == 0, err
    import duckdb
    with duckdb.connect() as con:
        con.execute("ATTACH ? AS copy (READ_ONLY)", [str(Path(warehouse).with_name("warehouse.read.duckdb"))])
        assert con.execute("SELECT tags['storage_version'] FROM duckdb_databases() "
                           "WHERE database_name = 'copy'").fetchone()[0] == "v1.0.0+"
        assert con.execute("SELECT count(*) FROM copy.prices").fetchone()[0] > 0
