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


def test_a_section_sums_up_in_a_line_largest_counts_first_rounds_in_publication_order():
    import polars as pl
    anomalies = next(s for s in status.SECTIONS if s.key == "anomalies")
    frame = pl.DataFrame({"round": ["v10.0", "v9.1", "v9.1", "odd"], "rule": ["a", "b", "a", "b"],
                          "verification": ["verified"] * 4, "findings": [1, 5, 2, 1], "result_ids": [""] * 4})
    assert status.summary(anomalies, frame) == "9 findings in 3 rounds (v9.1, v10.0, odd): b (6); a (3)"
    assert status.summary(anomalies, frame.clear()) == "none"
    assert set(status.SUMMARIES) == set(status.SECTION_KEYS)  # every section sums up
