"""Fault suite, case 1: `mlperf-wh sql` reads the warehouse and nothing else, and writes nothing.

Every statement runs against a copy of the known-good warehouse through the real CLI; each refusal
is one line, exit 1, and the digest of results, quarantine and sources is unchanged. So is a planted
<db>.wal symlink, and a query stopped at its time or memory limit; the queries analysts write (joins,
windows, lambdas, PIVOT, EXPLAIN...) still run, from the argument, a file or stdin.
"""
from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

from tests.faults import copy_of, digest, file_digest, one_error_line, run  # noqa: F401 - run: a fixture
from warehouse.store.publish import publish
from tests.readers import connect_file

OUTSIDE = "OUTSIDE"  # replaced by a path in the test's own directory


@pytest.fixture
def warehouse(shared_warehouse, tmp_path):
    """A warehouse with its published copy (what `sql` reads), as every load leaves it."""
    path = copy_of(shared_warehouse, tmp_path)
    publish(path)
    return path


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
    # issue 22: decided by the parsed tree, so quoting, qualifying or a comment hides no call
    "quoted-query": ("SELECT * FROM \"query\"('SELECT * FROM read_text(''/etc/hostname'')')", "refused query()"),
    "quoted-query-scalar": ("SELECT \"query\"('SELECT 1')", "refused query()"),
    "quoted-read-blob": ("SELECT * FROM \"read_blob\"('WAREHOUSE')", "refused read_blob()"),
    "quoted-read-duckdb": (f"SELECT * FROM \"read_duckdb\"('{OUTSIDE}/link.duckdb')", "refused read_duckdb()"),
    "quoted-checkpoint": ("SELECT * FROM \"checkpoint\"()", "refused checkpoint()"),
    "qualified-upper-case": ("SELECT * FROM system.main.\"READ_TEXT\"('/etc/hostname')", "refused read_text()"),
    "comment-before-paren": ("SELECT * FROM read_text/**/('/etc/hostname')", "refused read_text()"),
    "in-a-subquery": ("SELECT (SELECT count(*) FROM glob('/etc/*')) AS n", "refused glob()"),
    "in-a-lateral-join": ("SELECT * FROM results, LATERAL query_table('results')", "refused query_table()"),
    "describe-a-query": ("DESCRIBE SELECT * FROM read_text('/etc/hostname')", "refused read_text()"),
    "summarize-a-file": ("SUMMARIZE FROM read_blob('WAREHOUSE')", "refused read_blob()"),
    "describe-a-file": (f"DESCRIBE '{OUTSIDE}/x.csv'", "no other file or URL"),
    "table-function-not-allowed": ("SELECT * FROM test_all_types()", "refused test_all_types()"),
    "write-log": ("SELECT write_log('x')", "refused write_log()"),
    "explain-analyze-create-temp": ("EXPLAIN ANALYZE CREATE TEMP TABLE results AS SELECT 1", "refused EXPLAIN CREATE"),
    "explain-analyze-create-then-query": (
        "EXPLAIN ANALYZE CREATE TEMP TABLE results AS SELECT 1 AS x; SELECT * FROM results", "refused EXPLAIN CREATE"),
    "explain-copy": (f"EXPLAIN COPY results TO '{OUTSIDE}/out.csv'", "refused EXPLAIN COPY"),
    "explain-analyze-file": ("EXPLAIN ANALYZE SELECT * FROM read_text('/etc/hostname')", "refused read_text()"),
    "create-temp-as-pivot": ("CREATE TEMP TABLE results AS PIVOT results ON round USING count(*)", "refused CREATE"),
    "pivot-over-a-file": ("PIVOT (SELECT * FROM \"read_text\"('/etc/hostname')) ON filename USING count(*)",
                          "refused read_text()"),
    "pivot-then-write": ("PIVOT results ON round USING count(*); DELETE FROM results", "refused DELETE"),
}


@pytest.fixture(scope="module")
def refusing_warehouse(shared_warehouse, tmp_path_factory):
    """One published warehouse for every refusal (each test checks it is unchanged after its own)."""
    path = copy_of(shared_warehouse, tmp_path_factory.mktemp("refusals"))
    publish(path)
    return path, file_digest(path)


@pytest.mark.parametrize("case", list(REFUSED))
def test_sql_refuses(case, run, refusing_warehouse, tmp_path):
    statement, said = REFUSED[case]
    warehouse, bytes_before = refusing_warehouse
    os.link(warehouse, tmp_path / "link.duckdb")  # the hard link the issue wrote through
    (tmp_path / "x.csv").write_text("a,b\n1,2\n")
    (tmp_path / "x.json").write_text('{"a": 1}\n')
    files_before = sorted(p.name for p in tmp_path.iterdir())
    statement = statement.replace(OUTSIDE, str(tmp_path)).replace("WAREHOUSE", warehouse)
    code, out, err = run("sql", statement, "--db", warehouse)
    assert code == 1, (out, err)
    assert said in one_error_line(err)
    assert out == ""
    # the same bytes and no write-ahead log: not a row of the warehouse (nor of its copy) changed
    assert file_digest(warehouse) == bytes_before and not Path(f"{warehouse}.wal").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == files_before  # nothing written outside


def test_sql_still_answers_queries_over_the_warehouse(run, shared_warehouse):
    code, out, err = run("sql", "SELECT count(*) AS n FROM verified_results", "--format", "json",
                         "--db", shared_warehouse)
    assert code == 0, err
    import duckdb
    con = connect_file(shared_warehouse, read_only=True)
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


def _unchanged(warehouse, before):
    assert digest(warehouse) == before["rows"] and file_digest(warehouse) == before["file"]
    assert sorted(p.name for p in Path(warehouse).parent.iterdir()) == before["files"]


def _state(warehouse):
    return {"rows": digest(warehouse), "file": file_digest(warehouse),
            "files": sorted(p.name for p in Path(warehouse).parent.iterdir())}


def test_a_wal_symlink_beside_the_warehouse_is_refused(run, warehouse, tmp_path):
    """DuckDB replays <db>.wal on open, even read-only: a planted symlink would read any file."""
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("not the warehouse's\n")
    Path(f"{warehouse}.wal").symlink_to(secret)
    before = _state(warehouse)
    code, out, err = run("sql", "SELECT * FROM results LIMIT 1", "--db", warehouse)
    assert code == 1 and out == ""
    assert f"{warehouse}.wal is not a write-ahead log DuckDB wrote" in one_error_line(err)
    _unchanged(warehouse, before)
    assert secret.read_text() == "not the warehouse's\n"


def test_a_query_past_the_time_limit_is_stopped(run, warehouse, monkeypatch):
    monkeypatch.setenv("MLPERF_SQL_TIMEOUT", "1")
    before = _state(warehouse)
    started = time.monotonic()
    code, out, err = run("sql", "SELECT count(*) FROM range(1000000000000)", "--db", warehouse)
    assert time.monotonic() - started < 8
    assert code == 1 and out == ""
    line = one_error_line(err)
    assert "time limit of 1 s" in line and "MLPERF_SQL_TIMEOUT=SECONDS" in line
    _unchanged(warehouse, before)


def test_a_query_past_the_memory_limit_is_stopped_without_spilling(run, warehouse, monkeypatch):
    monkeypatch.setenv("MLPERF_SQL_MEMORY_LIMIT", "48MB")
    before = _state(warehouse)
    code, out, err = run("sql", "SELECT count(DISTINCT range) FROM range(40000000)", "--db", warehouse)
    assert code == 1 and out == ""
    line = one_error_line(err)
    assert "memory than `sql`'s limit of 48MB" in line and "MLPERF_SQL_MEMORY_LIMIT=" in line
    _unchanged(warehouse, before)  # nothing spilled to a <warehouse>.tmp/ beside it


def test_a_share_of_memory_is_named_with_its_size(run, warehouse, monkeypatch):
    monkeypatch.setenv("MLPERF_SQL_MEMORY_LIMIT", "0.2%")
    code, _, err = run("sql", "SELECT count(DISTINCT range) FROM range(40000000)", "--db", warehouse)
    assert code == 1
    assert re.search(r"limit of 0\.2% of this machine's memory \(\d+ MiB\)", one_error_line(err))


@pytest.mark.parametrize("value", ["lots", "0%", "150%", "8 parsecs", "-1GB"])
def test_a_bad_memory_limit_is_a_usage_error(run, warehouse, monkeypatch, value):
    monkeypatch.setenv("MLPERF_SQL_MEMORY_LIMIT", value)
    code, out, err = run("sql", "SELECT 1", "--db", warehouse)
    assert code == 2 and out == ""
    assert one_error_line(err).startswith(f"error: MLPERF_SQL_MEMORY_LIMIT={value!r}")


ANALYST_QUERIES = {
    "join": "SELECT r.round, count(*) AS n FROM results r JOIN verified_results v USING (result_id) GROUP BY ALL",
    "window": "SELECT submitter, value, rank() OVER (PARTITION BY model, scenario ORDER BY value DESC) AS r "
              "FROM results QUALIFY r = 1",
    "list-functions": "SELECT list_sort(list_distinct(list(round))) AS rounds FROM results",
    "lambda": "SELECT list_transform([1, 2, 3], lambda x: x * 2) AS doubled, "
              "list_filter(list(DISTINCT submitter), lambda s: s LIKE 'N%') AS n FROM results",
    "regexp": "SELECT regexp_extract(system, '(\\d+)x', 1) AS count, regexp_matches(system, 'H100') AS h100 "
              "FROM results WHERE system ~ '.*'",
    "cte": "WITH per_round AS (SELECT round, count(*) AS n FROM results GROUP BY round) "
           "SELECT * FROM per_round ORDER BY round",
    "pivot": "PIVOT (SELECT round, scenario FROM results) ON round USING count(*) GROUP BY scenario",
    "pivot-in-a-cte": "WITH p AS (PIVOT (SELECT round, scenario FROM results) ON round USING count(*) "
                      "GROUP BY scenario) SELECT * FROM p",
    "pivot-static": "SELECT * FROM (SELECT round, scenario FROM results) "
                    "PIVOT (count(*) FOR round IN ('v5.0', 'v5.1'))",
    "unpivot": "UNPIVOT (SELECT 1 AS a, 2 AS b) ON a, b INTO NAME k VALUE v",
    "explain": "EXPLAIN SELECT * FROM results WHERE round = 'v5.0'",
    "explain-analyze": "EXPLAIN ANALYZE SELECT count(*) FROM results",
    "explain-pivot": "EXPLAIN PIVOT (SELECT round, scenario FROM results) ON round USING count(*)",
    "values": "VALUES (1, 'a'), (2, 'b')",
    "from-first": "FROM results SELECT round LIMIT 1",
    "describe": "DESCRIBE verified_results",
    "summarize": "SUMMARIZE SELECT value FROM results",
    "show": "SHOW TABLES",
    "catalog": "SELECT table_name, column_name FROM duckdb_columns() WHERE table_name = 'results'",
    "generate-series-unnest": "SELECT unnest(generate_series(1, 3)) AS i, * FROM range(2)",
    "json": "SELECT * FROM json_each('{\"a\": 1}')",
    "several": "SELECT 1; SELECT count(*) AS n FROM results",
    "a-name-like-a-function": "SELECT 1 AS query, 'read_text(x)' AS read_blob -- query('x')",
}


@pytest.mark.parametrize("case", list(ANALYST_QUERIES))
def test_analyst_queries_still_run(case, run, shared_warehouse):
    code, out, err = run("sql", ANALYST_QUERIES[case], "--format", "json", "--db", shared_warehouse)
    assert code == 0, err
    assert json.loads(out), out


def test_a_pivot_counts_what_duckdb_counts(run, shared_warehouse):
    code, out, err = run("sql", "PIVOT (SELECT round FROM results) ON round USING count(*)", "--format", "json",
                         "--db", shared_warehouse)
    assert code == 0, err
    import duckdb
    con = connect_file(shared_warehouse, read_only=True)
    expected = dict(con.execute("SELECT round, count(*) FROM results GROUP BY round").fetchall())
    con.close()
    assert json.loads(out) == [expected]


QUERY_FILE_TEXT = "SELECT count(*) AS n\nFROM results;\n"


@pytest.mark.parametrize("how", ["file", "dash", "piped"])
def test_the_query_comes_from_a_file_or_stdin(how, run, shared_warehouse, tmp_path, monkeypatch):
    query_file = tmp_path / "q.sql"
    query_file.write_text(QUERY_FILE_TEXT)
    args = {"file": ["-f", query_file], "dash": ["-"], "piped": []}[how]
    with open(query_file) as stdin:  # a real file: fstat says it is no terminal
        if how != "file":
            monkeypatch.setattr(sys, "stdin", stdin)
        code, out, err = run("sql", *args, "--format", "json", "--db", shared_warehouse)
    assert code == 0, err
    assert list(json.loads(out)[0]) == ["n"]


@pytest.mark.parametrize("args, said", [
    (["SELECT 1", "-f", "q.sql"], "not both"),
    (["-f", "missing.sql"], "does not exist"),
    ([], "Missing argument 'QUERY'"),
])
def test_a_query_given_twice_or_nowhere_is_a_usage_error(args, said, run, shared_warehouse, tmp_path,
                                                         monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.sql").write_text("SELECT 2")
    code, out, err = run("sql", *args, "--db", shared_warehouse)
    assert code == 2 and out == ""
    assert said in one_error_line(err)


def test_types_polars_cannot_import_print_as_text(run, warehouse):
    code, out, err = run("sql", "SELECT INTERVAL 1 DAY AS waited, [INTERVAL 2 HOUR] AS steps",
                         "--format", "csv", "--db", warehouse)
    assert (code, err) == (0, "")
    assert out.splitlines() == ["waited,steps", "1 day,['02:00:00']"]


# --- issue 31: every DuckDB type in every output format, one line on every failure path -------------

# Each: a value of the type, and the CSV cell it prints as (DuckDB's own text where polars cannot
# hold the value, or holds it wrongly).
TYPES = {
    "date-infinity": ("'infinity'::DATE", "infinity"),
    "date-minus-infinity": ("'-infinity'::DATE", "'-infinity"),  # a leading '-' is quoted (cells.py)
    "timestamp-infinity": ("'infinity'::TIMESTAMP", "infinity"),
    "timestamptz-minus-infinity": ("'-infinity'::TIMESTAMPTZ", "'-infinity"),
    "timestamp-year-294247": ("'294247-01-10 04:00:54'::TIMESTAMP", "294247-01-10 04:00:54"),
    "timestamp_s-infinity": ("'infinity'::TIMESTAMP_S", "infinity"),
    "date-in-a-list": ("['infinity'::DATE]", "[infinity]"),
    "union": ("union_value(k := 1)", "1"),
    "blob": ("'abc'::BLOB", "616263"),
    "blob-in-a-list": ("['abc'::BLOB]", "[abc]"),
    "bit": ("'0101'::BIT", "0101"),
    "bignum": ("12345678901234567890123456789012345678901234567890::BIGNUM", "12345678901234567890123456789012345678901234567890"),
    "hugeint": ("170141183460469231731687303715884105727::HUGEINT", "170141183460469231731687303715884105727"),
    "uhugeint": ("340282366920938463463374607431768211455::UHUGEINT", "340282366920938463463374607431768211455"),
    "map-int-keys": ("MAP {1: 2}", "{1=2}"),
    "interval": ("INTERVAL 1 DAY", "1 day"),
    "date": ("DATE '2026-05-01'", "2026-05-01"),
}


@pytest.fixture(scope="module")
def typed_warehouse(shared_warehouse, tmp_path_factory) -> str:
    path = copy_of(shared_warehouse, tmp_path_factory.mktemp("types"))
    publish(path)
    return path


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
@pytest.mark.parametrize("kind", TYPES)
def test_every_type_prints_in_every_format(run, typed_warehouse, kind, fmt):
    """Rust panics (78-166 lines) on infinite dates and timestamps, UNION, BLOB and BIT as JSON;
    exit 70 for BIGNUM as CSV; UHUGEINT printed as -1; TIMESTAMP_S infinity as 1969."""
    value, cell = TYPES[kind]
    code, out, err = run("sql", f"SELECT {value} AS v", "--format", fmt, "--db", typed_warehouse)
    assert (code, err) == (0, ""), err
    if fmt == "csv":
        assert out.splitlines() == ["v", cell]
    elif fmt == "json":
        assert len(json.loads(out)) == 1
    else:
        assert "panicked" not in out and len(out.splitlines()) == 5


@pytest.mark.parametrize("fmt", ["table", "csv", "json"])
def test_columns_of_one_name_are_told_apart(run, typed_warehouse, fmt):
    """`SELECT r.round, s.round ...` exited 70 (polars holds a name once; so does a CSV header)."""
    code, out, err = run("sql", "SELECT r.round, s.round, 3 AS round_2 FROM rounds r, rounds s "
                         "WHERE r.round = 'v6.0' AND s.round = 'v5.1'", "--format", fmt, "--db", typed_warehouse)
    assert (code, err) == (0, ""), err
    if fmt == "csv":
        assert out.splitlines() == ["round,round_2,round_2_2", "v6.0,v5.1,3"]
    if fmt == "json":
        assert json.loads(out) == [{"round": "v6.0", "round_2": "v5.1", "round_2_2": 3}]


def test_the_time_limit_firing_while_rows_stream_is_one_line(run, typed_warehouse, monkeypatch):
    """Interrupted while polars read the rows, the error was polars' (exit 70). CSV streams (--limit 0):
    the rows printed before the limit are whole lines, whole batches of them, then the one line."""
    monkeypatch.setenv("MLPERF_SQL_TIMEOUT", "0.5")
    code, out, err = run("sql", "SELECT range, repeat('x', 200) AS pad FROM range(30000000)", "--format", "csv",
                         "--db", typed_warehouse)
    assert code == 1
    if out:  # the header, then whole batches of 2,048 rows
        assert out.endswith("\n") and (len(out.splitlines()) - 1) % 2048 == 0
    assert "time limit of 0.5 s" in one_error_line(err)


def test_a_limit_fetches_only_the_rows_it_prints(run, typed_warehouse, monkeypatch):
    """`--limit 1` of a 4 GB result held 4.1 GB: now one row (and one more) is fetched, DuckDB
    counts the rest, and MLPERF_SQL_MEMORY_LIMIT bounds that count."""
    import resource
    monkeypatch.setenv("MLPERF_SQL_MEMORY_LIMIT", "256MB")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    code, out, err = run("sql", "SELECT range, repeat('x', 1000) AS pad FROM range(2000000)", "--format", "csv",
                         "--limit", "1", "--db", typed_warehouse)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert (code, len(out.splitlines())) == (0, 2), err
    assert err == "showing 1 of 2,000,000 rows; --limit 0 for all\n"
    assert grown_mib < 500, f"peak grew by {grown_mib:.0f} MiB for a 2 GB result"


# --- limits that hold (issue 40) -------------------------------------------------------------------

COMMAND = Path(sys.executable).parent / "mlperf-wh"


def _sql_process(warehouse: str, *args: str, **env: str) -> tuple[int, int, bytes, bytes, float]:
    """`mlperf-wh sql ARGS` as its own process -> (exit code, peak RSS in MiB, the first 1 MB of
    stdout, stderr, seconds); stdout is read as it comes (counted, not kept whole)."""
    import subprocess
    started = time.monotonic()
    process = subprocess.Popen([str(COMMAND), "sql", *args, "--db", warehouse], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env={**os.environ, **env})
    head, lines = b"", 0
    while chunk := process.stdout.read(1 << 20):
        head = head or chunk
        lines += chunk.count(b"\n")
    err = process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_maxrss // 1024, head, err, time.monotonic() - started, lines


@pytest.mark.slow
def test_a_statement_that_ignores_the_interrupt_is_stopped_at_the_time_limit(warehouse):
    """`SELECT len(range(2000000000))` builds one list without looking for DuckDB's interrupt: still
    running at 60 s under MLPERF_SQL_TIMEOUT=2. The watchdog ends it STUCK_SECONDS after the interrupt.
    (Its 16 GB list is past the process's ceiling at the default memory limit: allowed all of memory,
    it grows for those 4 s.)"""
    from warehouse.store.sandbox import STUCK_SECONDS
    before = _state(warehouse)
    code, _, out, err, seconds, _ = _sql_process(warehouse, "SELECT len(range(2000000000))", MLPERF_SQL_TIMEOUT="2",
                                                 MLPERF_SQL_MEMORY_LIMIT="100%")
    assert (code, out) == (1, b""), err
    line = one_error_line(err.decode())
    assert "ran past `sql`'s time limit of 2 s and was stopped" in line and "MLPERF_SQL_TIMEOUT=SECONDS" in line
    assert 2 <= seconds < 2 + STUCK_SECONDS + 20  # the rest: starting Python under a shared machine's load
    _unchanged(warehouse, before)


@pytest.mark.slow
def test_limit_0_streams_csv_in_bounded_batches_under_the_memory_limit(warehouse):
    """`sql --limit 0` held every row: 6 GB under MLPERF_SQL_MEMORY_LIMIT=512MB. 2,000,000 rows of
    ~110 bytes (about 230 MB of CSV) held whole peaked ~600 MiB above `SELECT 1`; streamed, within
    120 MiB of it."""
    code, peak_mib, head, err, _, lines = _sql_process(
        warehouse, "SELECT range, repeat('x', 100) AS pad FROM range(2000000)", "--format", "csv", "--limit", "0",
        MLPERF_SQL_MEMORY_LIMIT="256MB")
    assert (code, err) == (0, b""), err
    assert head.startswith(b"range,pad\n0," + b"x" * 100 + b"\n1,") and lines == 2_000_001
    _, baseline_mib, _, _, _, _ = _sql_process(warehouse, "SELECT 1", "--format", "csv")
    assert peak_mib < baseline_mib + 120, f"peak {peak_mib} MiB, {baseline_mib} MiB for SELECT 1"


def test_limit_0_past_the_memory_limit_is_one_line(warehouse):
    code, _, out, err, _, _ = _sql_process(
        warehouse, "SELECT range, repeat('x', 100) AS pad FROM range(20000000) ORDER BY range DESC",
        "--format", "csv", "--limit", "0", MLPERF_SQL_MEMORY_LIMIT="128MB")
    assert (code, out) == (1, b"")
    assert "needed more memory than `sql`'s limit of 128MB" in one_error_line(err.decode())


# A list built by one scalar call is outside DuckDB's pool: under a 300MB limit, len(range(100000000))
# answered after holding 1.3 GB (len(range(2000000000)) at the default limits: 24 GB, then killed).
OUTSIDE_THE_POOL = "SELECT len(range(100000000))"


def test_a_query_is_bounded_in_the_process_not_only_in_duckdbs_pool(warehouse):
    """The process, with an address-space cap of 3 GB as a safety net for the machine."""
    import resource
    import subprocess
    cap = 3 * 1024 ** 3
    process = subprocess.Popen(
        [str(COMMAND), "sql", OUTSIDE_THE_POOL, "--db", warehouse], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "MLPERF_SQL_MEMORY_LIMIT": "300MB"},
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)))
    out, err = process.stdout.read(), process.stderr.read()
    _, status, usage = os.wait4(process.pid, 0)
    peak_mib = usage.ru_maxrss // 1024
    assert (os.waitstatus_to_exitcode(status), out) == (1, b""), err
    line = one_error_line(err.decode())
    assert "needed more memory than `sql`'s limit of 300MB" in line and "MLPERF_SQL_MEMORY_LIMIT=" in line
    assert peak_mib < 300 + 256 + 150, f"peak {peak_mib} MiB: the limit and 256 MiB for the process (and Python's start)"


def test_the_process_ceiling_is_lifted_after_the_query(run, warehouse, monkeypatch):
    """In this process: the same one line, and RLIMIT_DATA as it was, after a query past it and after one within it."""
    import resource
    before = resource.getrlimit(resource.RLIMIT_DATA)
    monkeypatch.setenv("MLPERF_SQL_MEMORY_LIMIT", "300MB")
    code, out, err = run("sql", OUTSIDE_THE_POOL, "--db", warehouse)
    assert (code, out) == (1, "") and "needed more memory than `sql`'s limit of 300MB" in one_error_line(err)
    assert resource.getrlimit(resource.RLIMIT_DATA) == before
    assert run("sql", "SELECT 42 AS x", "--db", warehouse, "--format", "csv")[:2] == (0, "x\n42\n")
    assert resource.getrlimit(resource.RLIMIT_DATA) == before


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_streamed_rows_print_as_a_whole_frame_does(run, warehouse, fmt):
    """Across batches (2,048 rows each), with the types the whole frame prints its own way."""
    query = ("SELECT range AS i, range * 1.5 AS x, 'r' || range AS s, [range, 2] AS l, {'k': range} AS st, "
             "DATE '2026-01-01' + range::INTEGER AS d, range::DECIMAL(10, 2) AS dec FROM range(5000)")
    streamed = run("sql", query, "--format", fmt, "--limit", "0", "--db", warehouse)
    whole = run("sql", query, "--format", fmt, "--limit", "5000", "--db", warehouse)
    assert streamed == whole and streamed[0] == 0
    if fmt == "json":
        assert len(json.loads(streamed[1])) == 5000


def test_limit_0_as_a_table_past_what_it_holds_is_one_line(run, warehouse):
    from warehouse.store.sandbox import ALL_ROWS_HELD
    code, out, err = run("sql", f"SELECT * FROM range({ALL_ROWS_HELD + 1})", "--limit", "0", "--db", warehouse)
    assert (code, out) == (1, "")
    assert (f"--limit 0 prints at most {ALL_ROWS_HELD:,} rows as a table" in one_error_line(err)
            and "and the query has 100,001" in err and "--format csv or json (streamed)" in err)
