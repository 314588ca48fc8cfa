"""An interrupted command says what the interruption left: a rolled-back load only when the signal
cut a write short; a command whose writes had ended says none was in flight; a reader (sql, export,
report) says the warehouse was not written."""
from __future__ import annotations

import signal

import pytest

from tests.faults import one_error_line
from warehouse.cli.failures import run_reporting_failures
from warehouse.errors import Interrupted
from warehouse.store import db, lock

pytestmark = pytest.mark.unit


def interrupted(_=None):
    raise Interrupted(signal.SIGTERM)


@pytest.fixture(autouse=True)
def no_writes_yet(monkeypatch):
    monkeypatch.setattr(lock, "WRITES_BEGUN", [])
    monkeypatch.setattr(lock, "WRITES_CUT_SHORT", [])


def test_a_reader_interrupted_says_the_warehouse_was_not_written(capsys):
    assert run_reporting_failures(interrupted) == 143
    assert one_error_line(capsys.readouterr().err) == \
        "error: interrupted by SIGTERM: the warehouse was not written"


def load_interrupted(warehouse: str, in_flight: bool):
    """A writer's load, a signal in its transaction (`in_flight`) or after it committed."""
    def load():
        with lock.writer(warehouse, "a test load"), db.connect(warehouse) as con:
            with db.transaction(con):
                con.execute("CREATE TABLE t AS SELECT 1 AS x")
                if in_flight:
                    interrupted()
            interrupted()
    return load


def test_a_writer_interrupted_says_its_load_was_rolled_back(capsys, tmp_path):
    assert run_reporting_failures(load_interrupted(str(tmp_path / "w.duckdb"), in_flight=True)) == 143
    assert "the load in flight was rolled back" in one_error_line(capsys.readouterr().err)


def test_a_writer_interrupted_between_its_transactions_says_none_was_rolled_back(capsys, tmp_path):
    """A signal after a load committed, while the run builds its report or publishes: the load is
    kept, and the line says so (it said "the load in flight was rolled back")."""
    assert run_reporting_failures(load_interrupted(str(tmp_path / "w.duckdb"), in_flight=False)) == 143
    assert one_error_line(capsys.readouterr().err) == \
        "error: interrupted by SIGTERM: no load was in flight (what was loaded is kept); rerun to finish"


def test_interrupted_after_its_writes_ended_it_says_no_load_was_in_flight(capsys, tmp_path):
    def write_then_wait_and_be_interrupted():
        with lock.writer(str(tmp_path / "w.duckdb"), "a test load"):
            pass
        interrupted()
    assert run_reporting_failures(write_then_wait_and_be_interrupted) == 143
    line = one_error_line(capsys.readouterr().err)
    assert "rolled back" not in line
    assert line == "error: interrupted by SIGTERM: no load was in flight (what was loaded is kept); rerun to finish"
