"""An interrupted command says what the interruption left: a rolled-back load only when the command
was writing the warehouse; a reader (sql, export, report) says the warehouse was not written."""
from __future__ import annotations

import signal

import pytest

from tests.faults import one_error_line
from warehouse.cli.failures import run_reporting_failures
from warehouse.errors import Interrupted
from warehouse.store import lock

pytestmark = pytest.mark.unit


def interrupted(_=None):
    raise Interrupted(signal.SIGTERM)


def test_a_reader_interrupted_says_the_warehouse_was_not_written(capsys, monkeypatch):
    monkeypatch.setattr(lock, "WRITES_BEGUN", [])
    assert run_reporting_failures(interrupted) == 143
    assert one_error_line(capsys.readouterr().err) == \
        "error: interrupted by SIGTERM: the warehouse was not written"


def test_a_writer_interrupted_says_its_load_was_rolled_back(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr(lock, "WRITES_BEGUN", [])

    def write_then_interrupt():
        with lock.writer(str(tmp_path / "w.duckdb"), "a test load"):
            interrupted()
    assert run_reporting_failures(write_then_interrupt) == 143
    assert "the load in flight was rolled back" in one_error_line(capsys.readouterr().err)
