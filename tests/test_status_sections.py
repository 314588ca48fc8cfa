"""`status` leaves out a section only when its view is not built yet; a name nothing defines is a bug."""
import dataclasses

import duckdb
import pytest

from warehouse.store import db
from warehouse.views import status

pytestmark = pytest.mark.unit


def test_a_warehouse_without_views_shows_its_table_sections_and_leaves_out_the_rest():
    with duckdb.connect() as con:
        con.execute(db.TABLES)  # the loader's tables, no view materialized yet
        shown = [section.key for section, _ in status.sections(con)]
    assert "sources" in shown and "results" in shown
    assert "drift" not in shown and "claims" not in shown  # drift and claim_audit are views of sql/


def test_a_section_reading_a_name_nothing_defines_fails_loudly(monkeypatch):
    renamed = dataclasses.replace(status.SECTIONS[0], query="SELECT * FROM stg_run_results")
    monkeypatch.setattr(status, "SECTIONS", [renamed])
    with duckdb.connect() as con, pytest.raises(duckdb.CatalogException, match="stg_run_results"):
        status.sections(con)
