"""Board power read in the forms submitters write it (base_hardware_statements, stg_results), and the
statements that cannot be read listed in `drift`, never skipped.

The rows are the real v6.0 GB300 NVL72 entry 6.0-0078 (llama2-70b-99 Offline), whose published notes
say "NVIDIA GB300 NVL72, 1400W TGP Per GPU", loaded again under other IDs with the notes other
submitters write.
"""
from __future__ import annotations

import pytest

from tests.shared_rows import load_excerpt, record, rows
from warehouse.store import db
from warehouse.views import materialize

NOTES = {
    "6.0-0901": ("NVIDIA GB300 NVL72, 1400W TGP Per GPU", 1400.0, "TGP"),        # as published (6.0-0078)
    "6.0-0902": ("Vera Rubin NVL72, 2300W TGP Per GPU", 2300.0, "TGP"),
    "6.0-0903": ("B300 TGP 1100W", 1100.0, "TGP"),
    "6.0-0904": ("MI355X Power Cap 1000 W", 1000.0, "power cap"),
    "6.0-0905": ("MI355X 1400W/1200W TGP Per GPU", 1400.0, "TGP"),               # two figures: the largest
    "6.0-0906": ("GPU TGP 2.3 kW", 2300.0, "TGP"),
    "6.0-0907": ("TDP: configurable per rack", None, None),                      # mentioned, no figure
    "6.0-0908": ("liquid cooled", None, None),                                   # no statement at all
    "6.0-0909": ("With 75W Accelerator TDP constraints", 75.0, "TGP"),           # Qualcomm's, v1.1-v3.1
}


@pytest.fixture
def stated(tmp_path):
    base = record("v6.0", "6.0-0078", "llama2-70b-99", "Offline")
    assert base["Notes"] == "NVIDIA GB300 NVL72, 1400W TGP Per GPU"
    records = [dict(base, ID=result_id, Notes=notes, Platform=f"{base['Platform']}_{result_id[-3:]}",
                    **{"Unique ID (e.g. for Audit)": f"{base['Unique ID (e.g. for Audit)']}_{result_id[-3:]}"})
               for result_id, (notes, _, _) in NOTES.items()]
    with db.connect(str(tmp_path / "w.duckdb")) as con:
        load_excerpt(con, "v6.0", records, tmp_path)
        materialize(con)
        yield con


def test_power_is_read_in_any_order_and_unit(stated):
    found = {r["result_id"]: r for r in rows(stated, "SELECT * FROM stg_results")}
    for result_id, (notes, watts, stated_as) in NOTES.items():
        row = found[result_id]
        assert (row["published_accelerator_watts"], row["accelerator_power_stated_as"]) == (watts, stated_as), notes
    assert found["6.0-0901"]["accelerator_power_statement"] == "1400W TGP"
    assert found["6.0-0905"]["accelerator_power_statement"] == "1400W/1200W TGP"
    assert found["6.0-0909"]["accelerator_power_statement"] == "75W Accelerator TDP"
    economics = {r["result_id"]: r for r in rows(stated, "SELECT * FROM token_economics")}
    # 72 GPUs x the stated 2300 W: the accelerators-only basis says TGP, not the (absent) TDP
    assert economics["6.0-0902"]["accelerators_only_watts"] == 72 * 2300
    assert economics["6.0-0902"]["accelerator_power_basis"] == "TGP"


def test_an_unreadable_power_statement_is_listed_in_drift(stated):
    found = rows(stated, "SELECT kind, term, rows FROM drift WHERE kind = 'power_statement'")
    assert found == [{"kind": "power_statement", "term": "TDP: configurable per rack", "rows": 1}]
