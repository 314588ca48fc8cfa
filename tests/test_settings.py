"""Every MLPERF_* variable is declared once, typed, in warehouse/settings.py, and read at call time."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from warehouse import settings
from warehouse.ingest.fetch import FetchSettings
from warehouse.store import db

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = ("warehouse", "flows", "schemas", "sql")
# Variables of the bench and the tests, not of the tool: where each is read.
NOT_THE_TOOLS = {"MLPERF_BENCH_REPEAT": "bench/orchestration_bench.py", "MLPERF_SHARED_DIR": "tests/conftest.py"}
NAME = re.compile(r"\bMLPERF_[A-Z0-9_]*[A-Z0-9]\b")


def names_in(paths) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in paths:
        for name in NAME.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, set()).add(str(path.relative_to(ROOT)))
    return found


def test_every_mlperf_variable_in_the_code_and_docs_is_a_declared_setting():
    files = [p for d in PACKAGE_DIRS for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".sql", ".toml")]
    mentioned = names_in([*files, ROOT / "README.md", *(ROOT / "docs").glob("*.md")])
    declared = {row["variable"] for row in settings.settings_rows()}
    undeclared = {n: sorted(w) for n, w in mentioned.items() if n not in declared and n not in NOT_THE_TOOLS}
    assert not undeclared, f"declare these in warehouse/settings.py: {undeclared}"
    for name, reader in NOT_THE_TOOLS.items():
        assert name in (ROOT / reader).read_text(encoding="utf-8"), f"{name} is no longer read by {reader}"


def test_no_module_reads_an_mlperf_variable_from_the_environment_itself():
    reads = re.compile(r"""(environ(\.get)?|getenv)\(?\s*[\[(]?\s*f?["']MLPERF_""")
    offenders = [f"{p.relative_to(ROOT)}:{n}" for d in PACKAGE_DIRS for p in (ROOT / d).rglob("*.py")
                 for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if reads.search(line)]
    assert offenders == []


def test_rows_say_value_default_meaning_and_where_the_value_came_from(monkeypatch):
    monkeypatch.setenv("MLPERF_FETCH_RETRIES", "7")
    monkeypatch.setenv("MLPERF_REDIRECT_HOSTS", "A.example, b.example")
    monkeypatch.delenv("MLPERF_WRITER_WAIT", raising=False)
    rows = {row["variable"]: row for row in settings.settings_rows()}
    assert rows["MLPERF_FETCH_RETRIES"] == {
        "variable": "MLPERF_FETCH_RETRIES", "value": "7", "default": "3", "source": "env",
        "meaning": "retries of a failed fetch (timeouts, 5xx, cut bodies)"}
    assert rows["MLPERF_REDIRECT_HOSTS"]["value"] == "a.example,b.example"
    assert (rows["MLPERF_WRITER_WAIT"]["value"], rows["MLPERF_WRITER_WAIT"]["source"]) == ("60.0", "default")
    assert all(row["meaning"] for row in rows.values())


def test_settings_are_read_when_used_not_when_imported(monkeypatch):
    monkeypatch.setenv("MLPERF_FETCH_DEADLINE", "5")
    monkeypatch.setenv("MLPERF_REDIRECT_HOSTS", "mirror.example")
    monkeypatch.setenv("MLPERF_WAREHOUSE_DB", "/tmp/elsewhere.duckdb")
    fetch = FetchSettings.from_env()
    assert (fetch.deadline, fetch.redirect_hosts) == (5.0, ("mirror.example",))
    assert db.db_path() == "/tmp/elsewhere.duckdb"
    assert db.db_path("given.duckdb") == "given.duckdb"


def test_an_empty_variable_means_the_default(monkeypatch):
    monkeypatch.setenv("MLPERF_SHRINK_LIMIT", "")
    assert settings.current().shrink_limit == 0.10


@pytest.mark.parametrize("value, expected", [("1", True), ("yes", True), ("0", False), ("false", False)])
def test_debug_is_anything_but_zero(monkeypatch, value, expected):
    monkeypatch.setenv("MLPERF_DEBUG", value)
    assert settings.current().debug is expected


def test_a_bad_value_is_one_line_naming_the_variable_and_a_usage_error(monkeypatch):
    monkeypatch.setenv("MLPERF_FETCH_RETRIES", "three")
    monkeypatch.setenv("MLPERF_SHRINK_LIMIT", "1.5")
    with pytest.raises(settings.SettingsError) as caught:
        settings.current()
    message = str(caught.value)
    assert "\n" not in message
    assert "MLPERF_FETCH_RETRIES='three'" in message and "MLPERF_SHRINK_LIMIT='1.5'" in message
    assert caught.value.exit_code == 2


def test_the_cli_reports_a_bad_value_in_one_line_with_exit_2(monkeypatch, capsys):
    from warehouse.cli.failures import run_reporting_failures
    monkeypatch.setenv("MLPERF_WRITER_WAIT", "soon")
    assert run_reporting_failures(lambda: settings.current() and 0) == 2
    assert capsys.readouterr().err == ("error: MLPERF_WRITER_WAIT='soon': Input should be a valid number, "
                                       "unable to parse string as a number\n")


def test_config_prints_every_setting_with_where_its_value_came_from(capsys, monkeypatch):
    from warehouse.cli import main
    from warehouse.settings import FIELDS, variable
    monkeypatch.setenv("MLPERF_WRITER_WAIT", "5")
    assert main(["config", "--format", "json"]) == 0
    rows = {r["variable"]: r for r in json.loads(capsys.readouterr().out)}
    assert set(rows) == {variable(name) for name in FIELDS}
    assert (rows["MLPERF_WRITER_WAIT"]["value"], rows["MLPERF_WRITER_WAIT"]["source"]) == ("5.0", "env")
    assert rows["MLPERF_FETCH_RETRIES"]["source"] == "default" and rows["MLPERF_FETCH_RETRIES"]["meaning"]


def test_a_variable_changed_after_a_read_is_what_the_next_read_sees(monkeypatch):
    # current() keeps the settings it built for the MLPERF_* variables as they were; a change is a new build.
    monkeypatch.setenv("MLPERF_FETCH_RETRIES", "2")
    assert settings.current().fetch_retries == 2
    monkeypatch.setenv("MLPERF_FETCH_RETRIES", "5")
    assert settings.current().fetch_retries == 5
    monkeypatch.setenv("mlperf_shrink_limit", "0.5")  # names in any case, as pydantic-settings read them
    assert settings.current().shrink_limit == 0.5
    monkeypatch.delenv("mlperf_shrink_limit")
    monkeypatch.setenv("MLPERF_FETCH_RETRIES", "nine")
    with pytest.raises(settings.SettingsError, match="MLPERF_FETCH_RETRIES"):
        settings.current()
    monkeypatch.setenv("MLPERF_FETCH_RETRIES", "2")
    assert settings.current().fetch_retries == 2


def test_duckdb_runs_on_one_thread_for_the_block_and_as_before_after_it():
    import duckdb
    con = duckdb.connect()
    con.execute("SET threads = 3")
    with db.one_thread(con):
        assert con.execute("SELECT current_setting('threads')").fetchone()[0] == 1
    with pytest.raises(RuntimeError), db.one_thread(con):
        raise RuntimeError("a comment that failed")
    assert con.execute("SELECT current_setting('threads')").fetchone()[0] == 3


def test_duckdb_returns_freed_memory_for_the_block_and_as_before_after_it():
    import duckdb
    con = duckdb.connect()
    read = "SELECT current_setting('allocator_bulk_deallocation_flush_threshold')"
    con.execute("SET allocator_bulk_deallocation_flush_threshold = '64MB'")
    before = con.execute(read).fetchone()[0]
    with db.returning_freed_memory(con):
        assert con.execute(read).fetchone()[0] == "976.5 KiB"  # 1 MB (10^6 bytes), as DuckDB prints it
    with pytest.raises(RuntimeError), db.returning_freed_memory(con):
        raise RuntimeError("a model that failed")
    assert con.execute(read).fetchone()[0] == before


def test_a_statement_that_fails_inside_a_transaction_keeps_its_own_error_and_the_setting_is_restored():
    """The block's transaction fails (every later statement on it is refused until a rollback): the
    caller sees the failure itself, not a refused SET, and the setting is as it was."""
    import duckdb
    con = duckdb.connect()
    read = "SELECT current_setting('allocator_bulk_deallocation_flush_threshold')"
    before = con.execute(read).fetchone()[0]
    con.begin()
    with pytest.raises(duckdb.CatalogException, match="no_such_view"), db.returning_freed_memory(con):
        con.execute("CREATE TEMP TABLE snapshot AS SELECT * FROM no_such_view")
    con.rollback()
    assert con.execute(read).fetchone()[0] == before
