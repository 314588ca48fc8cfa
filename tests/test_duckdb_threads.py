"""MLPERF_DUCKDB_THREADS: the threads of every DuckDB connection a command opens, and one configuration
for all of them (DuckDB refuses a second connection, in one process, to a file already open there with
another configuration: a load's connection is open while it publishes the copy readers open)."""
from __future__ import annotations

import duckdb
import pytest

from tests.readers import connect_file
from warehouse import settings
from warehouse.store import db, sandbox
from warehouse.store.publish import publish
from warehouse.store.paths import published_path


def threads(con: duckdb.DuckDBPyConnection) -> int:
    return con.execute("SELECT current_setting('threads')").fetchone()[0]


def test_every_connection_of_a_command_runs_on_the_threads_set(monkeypatch, tmp_path):
    monkeypatch.setenv("MLPERF_DUCKDB_THREADS", "3")
    path = str(tmp_path / "warehouse.duckdb")
    with db.connect(path) as writer:
        assert threads(writer) == 3
        publish(path)  # a second connection to the open file, as a load publishes: same configuration
        with connect_file(path) as test_reader:  # the suite's own reads, beside the product's
            assert threads(test_reader) == 3
    with sandbox.connect(str(published_path(path))) as query:
        assert threads(query) == 3


def test_unset_is_duckdbs_own_default(monkeypatch, tmp_path):
    monkeypatch.delenv("MLPERF_DUCKDB_THREADS", raising=False)
    with duckdb.connect() as plain:
        default = threads(plain)
    with db.connect(str(tmp_path / "warehouse.duckdb")) as con:
        assert threads(con) == default


@pytest.mark.parametrize("value", ["0", "two", "1.5", "-1"])
def test_a_bad_thread_count_names_the_variable(monkeypatch, value):
    monkeypatch.setenv("MLPERF_DUCKDB_THREADS", value)
    with pytest.raises(settings.SettingsError, match="MLPERF_DUCKDB_THREADS"):
        settings.current()


def test_the_sql_sandbox_cannot_change_them(monkeypatch, tmp_path, plain_cli):
    monkeypatch.setenv("MLPERF_DUCKDB_THREADS", "1")
    path = str(tmp_path / "warehouse.duckdb")
    with db.connect(path):
        pass
    code, out, _ = plain_cli("sql", "--db", path, "--format", "csv", "SELECT current_setting('threads') AS threads")
    assert (code, out.split()) == (0, ["threads", "1"])
    code, _, err = plain_cli("sql", "--db", path, "SET threads = 4")
    assert code != 0 and "refused SET" in err
