"""Fault suite, issue 40 (messages): the confusing failures say what is wrong, in one `error:` line,
and change nothing: a `sql` query of comments only ("No such option"), DuckDB's advice to SET a
setting the sandbox locks, and `export /` (which blamed a warehouse file several levels down)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.faults import one_error_line, run  # noqa: F401 - run: a fixture
from tests.test_faults_paths import state, warehouse  # noqa: F401 - warehouse: a fixture


def refused(run, warehouse: str, *args) -> str:
    before = state(warehouse)
    code, out, err = run("--db", warehouse, *args)
    assert (code, out) == (1, ""), err
    assert state(warehouse) == before
    return one_error_line(err)


@pytest.mark.parametrize("args", [("sql", "-- nothing"), ("sql", "-- nothing", "--format", "json"),
                                  ("sql", "--format", "csv", "-- one\n-- two")])
def test_a_query_of_comments_only_says_so(run, warehouse, args):
    """It said "No such option: -- nothing" (the word was read as an option)."""
    assert refused(run, warehouse, *args) == "error: no statement to run: the query holds only comments or spaces"


def test_a_query_starting_with_a_comment_runs(run, warehouse):
    code, out, err = run("--db", warehouse, "sql", "-- the count\nSELECT 42 AS n", "--format", "csv")
    assert (code, out, err) == (0, "n\n42\n", "")


@pytest.mark.parametrize("query", ["SELECT " + "(" * 1100 + "1" + ")" * 1100,
                                   "SELECT " + "abs(" * 1100 + "1" + ")" * 1100])
def test_a_query_nested_past_duckdbs_depth_gets_no_advice_to_set_it(run, warehouse, query):
    """DuckDB says: Use "SET max_expression_depth TO x"; `sql` refuses SET, so the advice misled."""
    line = refused(run, warehouse, "sql", query)
    assert "SET max_expression_depth" not in line and "Use " not in line
    assert "Max expression depth limit of 1000 exceeded." in line
    assert "`sql` cannot change max_expression_depth: its settings are locked; write the query with fewer nested levels" in line


def test_export_to_a_directory_holding_other_files_says_it_is_not_empty(run, warehouse):
    """`export /` blamed the warehouse file several levels below it."""
    line = refused(run, warehouse, "export", "/")
    assert line == ("error: / is not empty and holds no export written by mlperf-wh (no readable "
                    ".mlperf-wh-output.json): choose a new or empty directory; nothing was written")
    line = refused(run, warehouse, "export", Path(warehouse).parent)
    assert line.startswith(f"error: {Path(warehouse).parent} holds the warehouse file {warehouse}")
