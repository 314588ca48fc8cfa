"""`mlperf-wh sql QUERY` in its plainest forms runs without Typer (warehouse/cli/quick.py): each form
prints what Typer's parsing of it prints, and every other form is Typer's."""
from __future__ import annotations

import pytest

from warehouse.cli.quick import PlainSql, plain_sql

QUESTION = "SELECT round, count(*) AS n FROM results GROUP BY round ORDER BY round"


@pytest.mark.unit
@pytest.mark.parametrize("words, taken", [
    (["sql", "SELECT 1"], PlainSql("SELECT 1")),
    (["--db", "w.duckdb", "sql", "SELECT 1", "--format", "csv", "--limit", "5", "-q"],
     PlainSql("SELECT 1", "csv", 5, "w.duckdb", quiet=True)),
    (["sql", "--writer-file", "SELECT 1", "--db", "w.duckdb"], PlainSql("SELECT 1", db="w.duckdb", writer_file=True)),
    (["sql", "SELECT 1", "--raw", "--format", "markdown"], PlainSql("SELECT 1", "markdown", raw=True)),
    (["--wide", "sql", "SELECT 1"], PlainSql("SELECT 1", wide=True)),
])
def test_the_plainest_forms_are_taken(words, taken):
    assert plain_sql(words) == taken


@pytest.mark.unit
@pytest.mark.parametrize("words", [
    ["sql"], ["sql", "-"], ["sql", "--help"], ["sql", "-f", "q.sql"], ["-v", "sql", "SELECT 1"],
    ["sql", "SELECT 1", "--format=csv"], ["sql", "SELECT 1", "--format", "CSV"], ["sql", "SELECT 1", "--limit", "-1"],
    ["sql", "SELECT 1", "--limit", "x"], ["--format", "csv", "sql", "SELECT 1"], ["--db", "a", "--db", "b", "sql", "SELECT 1"],
    ["sql", "SELECT 1", "SELECT 2"], ["status"], ["sql", "SELECT 1", "--db"], ["sql", "SELECT 1", "--", "x"],
    ["views"], ["claims", "sql", "x"], ["--raw", "sql", "SELECT 1"], ["sql", "SELECT 1", "--raw", "--raw"],
    ["--wide", "sql", "SELECT 1", "--wide"],
])
def test_every_other_form_is_typers(words):
    assert plain_sql(words) is None


@pytest.mark.parametrize("words", [
    ["sql", QUESTION],
    ["sql", QUESTION, "--format", "csv"],
    ["sql", QUESTION, "--format", "json", "-q"],
    ["sql", QUESTION, "--format", "markdown", "--raw"],
    ["sql", "SELECT 1234567.891 AS big, 0.0001234 AS small, 2.5::DOUBLE AS d", "--raw"],
    ["sql", "SELECT 1234567.891 AS big, 0.0001234 AS small, 2.5::DOUBLE AS d"],
    ["sql", "SELECT MAP {'a': 1} AS m, 'infinity'::DATE AS day"],  # read through polars
    ["sql", "SELECT * FROM results ORDER BY result_id", "--limit", "3"],
    ["sql", "SELECT * FROM results ORDER BY result_id", "--format", "csv", "--limit", "2"],
    ["sql", "SELECT * FROM results"],  # 100 of them, and a note
    ["sql", "SELECT nope FROM results"],  # one line, exit 1
    ["sql", "COPY results TO 'x.csv'"],  # refused by the sandbox
    ["--writer-file", "sql", "SELECT count(*) FROM results"],
    ["--wide", "sql", "SELECT * FROM results ORDER BY result_id", "--limit", "3"],  # every cell whole
])
def test_each_form_prints_what_typer_prints(words, shared_warehouse, capsys):
    from warehouse.cli import app, main
    words = ["--db", shared_warehouse, *words]
    assert plain_sql(words) is not None
    quick = main(words), *capsys.readouterr()
    typer = app.run(words, verbose=False), *capsys.readouterr()
    assert quick == typer
    assert quick[1] or quick[2]
