"""Every mart column is described in sql/marts/_columns.toml, and the descriptions reach DuckDB and docs/views.md."""
from __future__ import annotations

import tomllib

import pytest

from tests.conftest import ROOT
from warehouse.views import SQL_DIR, column_docs, views_markdown


def test_every_mart_column_has_a_description(shared_con):
    missing = column_docs.missing_descriptions(shared_con)
    assert not missing, ("mart columns without a description; add them to sql/marts/_columns.toml "
                         "(then `make docs`): " + ", ".join(missing))


@pytest.mark.unit
def test_the_descriptions_file_is_well_formed(tmp_path, monkeypatch):
    assert column_docs.ColumnDocs.read("marts").problems() == []
    broken = tmp_path / "marts"
    broken.mkdir()
    (broken / "_columns.toml").write_text('[_common]\nround = ""\n[a]\nx = 3\n_same_as = "nowhere"\n')
    monkeypatch.setattr(column_docs, "SQL_DIR", tmp_path)
    assert column_docs.ColumnDocs.read("marts").problems() == [
        "[_common] round: not a non-empty text", "[a] x: not a non-empty text",
        "[a] _same_as = 'nowhere': no such table in the file"]


def test_no_description_names_a_column_that_does_not_exist(shared_con):
    stale = column_docs.stale_descriptions(shared_con)
    assert not stale, "sql/marts/_columns.toml describes columns that no longer exist: " + ", ".join(stale)


def test_a_new_undescribed_column_is_named_exactly(private_con):
    private_con.execute("CREATE OR REPLACE VIEW marts.dim_rounds AS "
                        "SELECT round, round_order, 1 AS novelty, 2 AS oddity FROM stg_results")
    assert column_docs.missing_descriptions(private_con) == ["dim_rounds.novelty", "dim_rounds.oddity"]
    # and the descriptions of the columns it dropped are reported as stale
    assert {"dim_rounds.verified_share", "dim_rounds.sources"} <= set(column_docs.stale_descriptions(private_con))


def test_descriptions_are_duckdb_comments(shared_con):
    with (SQL_DIR / "marts" / "_columns.toml").open("rb") as f:
        written = tomllib.load(f)
    comment = shared_con.execute(
        "SELECT comment FROM duckdb_columns() WHERE table_name = 'software_gains' AND column_name = 'gain'"
    ).fetchone()[0]
    assert comment == written["software_gains"]["gain"]
    # inherited through _same_as, and from [_common]
    inherited = shared_con.execute(
        "SELECT comment FROM duckdb_columns() WHERE table_name = 'procurement_grade_claims' AND column_name = 'verdict'"
    ).fetchone()[0]
    assert inherited == written["claim_audit"]["verdict"]
    common = shared_con.execute(
        "SELECT comment FROM duckdb_columns() WHERE table_name = 'leaderboard' AND column_name = 'scenario'"
    ).fetchone()[0]
    assert common == written["_common"]["scenario"]
    view_comment = shared_con.execute(
        "SELECT comment FROM duckdb_views() WHERE view_name = 'claim_audit'").fetchone()[0]
    assert view_comment.startswith("Does each vendor claim hold up")


def test_docs_reference_md_is_up_to_date_and_cites_every_power_figure():
    from warehouse.identity.reference import load_reference
    from warehouse.identity.reference_docs import REFERENCE_MD, render_reference_markdown
    generated = render_reference_markdown()
    assert (ROOT / REFERENCE_MD).read_text(encoding="utf-8") == generated, "docs/reference.md is out of date: run `make docs`"
    for url in load_reference().system_power["source_url"]:
        assert f"<{url}>" in generated


def test_docs_views_md_is_up_to_date():
    generated = views_markdown.empty_warehouse_markdown()
    assert (ROOT / column_docs.VIEWS_MD).read_text(encoding="utf-8") == generated, \
        "docs/views.md is out of date: run `make docs`"
    assert "| `gain` | `DOUBLE` |" in generated
