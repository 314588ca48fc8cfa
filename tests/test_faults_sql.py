"""Fault suite, case 1: `mlperf-wh sql` reads the warehouse and nothing else, and writes nothing.

Every statement runs against a copy of the known-good warehouse through the real CLI; each refusal
is one line, exit 1, and the digest of results, quarantine and sources is unchanged.
"""
from __future__ import annotations

import json
import os

import pytest

from tests.faults import copy_of, digest, file_digest, one_error_line
from warehouse.cli import main

OUTSIDE = "OUTSIDE"  # replaced by a path in the test's own directory


@pytest.fixture
def run(capsys):
    def cli(*args):
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return cli


@pytest.fixture
def warehouse(shared_warehouse, tmp_path):
    return copy_of(shared_warehouse, tmp_path)


# Each: the statement, and what the refusal line must say.
REFUSED = {
    "copy-to": (f"COPY (SELECT * FROM results) TO '{OUTSIDE}/out.csv'", "refused COPY"),
    "copy-table-to": (f"COPY results TO '{OUTSIDE}/out.parquet' (FORMAT parquet)", "refused COPY"),
    "export-database": (f"EXPORT DATABASE '{OUTSIDE}/dump'", "refused EXPORT"),
    "attach-read-write": (f"ATTACH '{OUTSIDE}/link.duckdb' AS w2 (READ_WRITE)", "refused ATTACH"),
    "attach-read-only": (f"ATTACH '{OUTSIDE}/link.duckdb' AS w2 (READ_ONLY)", "refused ATTACH"),
    "attach-default": (f"ATTACH '{OUTSIDE}/new.duckdb'", "refused ATTACH"),
    "attach-memory": ("ATTACH ':memory:' AS m", "refused ATTACH"),
    "attach-then-delete": (f"ATTACH '{OUTSIDE}/link.duckdb' AS w2; DELETE FROM w2.results",
                           "refused ATTACH"),
    "detach": ("DETACH warehouse", "refused DETACH"),
    "install": ("INSTALL httpfs", "refused LOAD"),
    "load": ("LOAD httpfs", "refused LOAD"),
    "load-builtin": ("LOAD json", "refused LOAD"),
    "set-external-access": ("SET enable_external_access = true", "refused SET"),
    "set-threads": ("SET threads = 1", "refused SET"),
    "reset-lock": ("RESET lock_configuration", "refused SET"),
    "set-variable": ("SET VARIABLE x = 1", "refused SET"),
    "pragma-setting": ("PRAGMA enable_profiling", "refused PRAGMA"),
    "pragma-threads": ("PRAGMA threads = 1", "refused SET"),  # DuckDB parses it as SET
    "call-checkpoint": ("CHECKPOINT", "refused CALL"),
    "delete": ("DELETE FROM results", "refused DELETE"),
    "create-temp": ("CREATE TEMP TABLE t AS SELECT 1", "refused CREATE"),
    "import-database": (f"IMPORT DATABASE '{OUTSIDE}/dump'", "refused"),
    "query-then-write": ("SELECT 1; DROP TABLE results", "refused DROP"),
    # file-reading table functions: our check names them; DuckDB's enable_external_access = false
    # refuses them too (test_duckdb_itself_refuses_files_outside_the_warehouse)
    "read-csv": (f"SELECT * FROM read_csv('{OUTSIDE}/x.csv')", "reads only the warehouse's tables"),
    "read-csv-auto": (f"SELECT * FROM read_csv_auto('{OUTSIDE}/x.csv')", "reads only the warehouse's tables"),
    "replacement-scan": (f"SELECT * FROM '{OUTSIDE}/x.csv'", "no other file or URL"),
    "read-parquet": (f"SELECT * FROM read_parquet('{OUTSIDE}/x.parquet')", "reads only the warehouse's tables"),
    "read-json": (f"SELECT * FROM read_json('{OUTSIDE}/x.json')", "reads only the warehouse's tables"),
    "read-ndjson": (f"SELECT * FROM read_ndjson('{OUTSIDE}/x.json')", "reads only the warehouse's tables"),
    "read-text": ("SELECT * FROM read_text('/etc/hostname')", "reads only the warehouse's tables"),
    "read-blob": ("SELECT * FROM read_blob('/etc/hostname')", "reads only the warehouse's tables"),
    "glob": ("SELECT * FROM glob('/etc/*')", "reads only the warehouse's tables"),
    "sniff-csv": (f"SELECT * FROM sniff_csv('{OUTSIDE}/x.csv')", "reads only the warehouse's tables"),
    "parquet-metadata": (f"SELECT * FROM parquet_metadata('{OUTSIDE}/x.parquet')",
                         "reads only the warehouse's tables"),
    "read-csv-url": ("SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')", "reads only the warehouse's tables"),
    "read-the-warehouse-file": ("SELECT * FROM read_blob('WAREHOUSE')", "reads only the warehouse's tables"),
    "read-duckdb": (f"SELECT * FROM read_duckdb('{OUTSIDE}/link.duckdb')", "refused read_duckdb()"),
    "smuggled-in-query": ("SELECT * FROM query('SELECT * FROM read_text(''/etc/hostname'')')",
                          "refused query()"),
    "checkpoint-function": ("SELECT * FROM checkpoint()", "refused checkpoint()"),
    "enable-logging": ("SELECT * FROM enable_logging()", "refused enable_logging()"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_sql_refuses(case, run, warehouse, tmp_path):
    statement, said = REFUSED[case]
    os.link(warehouse, tmp_path / "link.duckdb")  # the hard link the issue wrote through
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    (tmp_path / "x.json").write_text('{"a": 1}\n')
    before, link_before = digest(warehouse), file_digest(warehouse)
    files_before = sorted(p.name for p in tmp_path.iterdir())
    statement = statement.replace(OUTSIDE, str(tmp_path)).replace("WAREHOUSE", warehouse)
    code, out, err = run("sql", statement, "--db", warehouse)
    assert code == 1, (out, err)
    assert said in one_error_line(err)
    assert out == ""
    assert digest(warehouse) == before
    assert file_digest(warehouse) == link_before
    assert sorted(p.name for p in tmp_path.iterdir()) == files_before  # nothing written outside


def test_sql_still_answers_queries_over_the_warehouse(run, shared_warehouse):
    code, out, err = run("sql", "SELECT count(*) AS n FROM verified_results", "--format", "json",
                         "--db", shared_warehouse)
    assert code == 0, err
    import duckdb
    con = duckdb.connect(shared_warehouse, read_only=True)
    expected = con.execute("SELECT count(*) FROM verified_results").fetchall()[0][0]
    con.close()
    assert json.loads(out) == [{"n": expected}]
    for query in ("DESCRIBE results", "SHOW TABLES", "SELECT * FROM pragma_table_info('results')",
                  "EXPLAIN SELECT 1", "WITH a AS (SELECT 1 AS x) SELECT * FROM a"):
        code, out, err = run("sql", query, "--db", shared_warehouse)
        assert code == 0, (query, err)


@pytest.mark.parametrize("function", ["read_csv", "read_parquet", "read_json", "read_text", "read_blob",
                                      "glob", "read_duckdb"])
def test_duckdb_itself_refuses_files_outside_the_warehouse(function, shared_warehouse, tmp_path):
    """The second lock holds on its own: the sandbox connection, without our statement check."""
    import duckdb

    from warehouse.store import sandbox
    (tmp_path / "x").write_text("a\n1\n")
    with sandbox.connect(shared_warehouse) as con, pytest.raises(duckdb.PermissionException):
        con.execute(f"SELECT * FROM {function}('{tmp_path / 'x'}')").fetchall()
