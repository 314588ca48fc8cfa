"""The current round's nameplate power (issue 62, item 4): v6.1's table carries `design_power_watts`
(MLCommons' checker writes it for a power submission: the system's power capacity, or its nameplate
PSUs'); where a row gives it, throughput and tokens per nameplate kW on their own named basis
('nameplate system power'); "None" is absent, never zero, and no nameplate figure is ever a measured one."""
from __future__ import annotations

import csv
import io

import pytest

from tests.conftest import MIRROR
from tests.shared_rows import one, rows

V61_TABLE = MIRROR / "inference_results_v6.1" / "main" / "summary.csv"
ASUS = "XA NB3I-E12"                      # ASUSTeK, 8 GPUs: given a nameplate figure below
AMD = "smci355-ccs-aus-m13-13 (AS -4126GS-NMR-LCC)"   # AMD, 8 MI355X: as published, "None"
STATED_WATTS = "10200"                    # constructed: the published table states none (see the test below)


def _excerpt(stated: dict[str, str]) -> bytes:
    """The real v6.1 rows of the two systems, every column as published but design_power_watts, which
    `stated` sets per system name (a system not named keeps its published value)."""
    with V61_TABLE.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        kept = [r for r in reader if r["SystemName"] in (ASUS, AMD) and r["Division"] == "closed"]
        fields = reader.fieldnames
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=fields, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writeheader()
    writer.writerows({**r, "design_power_watts": stated.get(r["SystemName"], r["design_power_watts"])} for r in kept)
    return out.getvalue().encode()


def _load(tmp_path, content: bytes):
    from warehouse.ingest.fetch import FetchSettings, fetch
    from warehouse.ingest.pipeline import load, prepare
    from warehouse.store import db
    from warehouse.views import materialize
    path = tmp_path / "summary.csv"
    path.write_bytes(content)
    con = db.connect(str(tmp_path / "w.duckdb"))
    fetched = fetch(str(path), "summary.csv", FetchSettings())
    load(con, fetched, prepare(fetched.content, "summary.csv", "v6.1", "official", str(path)), "v6.1", "official",
         allow=frozenset({"short-of-round"}))
    materialize(con)
    return con


def test_the_published_v61_table_states_no_nameplate_power():
    # every one of the 492 rows prints "None": no v6.1 entry made a power submission
    with V61_TABLE.open(newline="", encoding="utf-8") as handle:
        stated = [r["design_power_watts"] for r in csv.DictReader(handle)]
    assert len(stated) == 492 and set(stated) == {"None"}


def test_tokens_per_nameplate_kw_where_a_row_gives_it_and_none_is_absent(tmp_path):
    con = _load(tmp_path, _excerpt({ASUS: STATED_WATTS}))
    # the ingest keeps the column as published, in the row's `extra`
    kept = {(r["system"], r["stated"]) for r in rows(
        con, "SELECT DISTINCT system, json_extract_string(extra, '$.design_power_watts') AS stated "
             "FROM results WHERE metric = 'performance'")}
    assert kept == {(ASUS, STATED_WATTS), (AMD, "None")}
    # ASUSTeK XA NB3I-E12 x8 llama2-70b-99.9 Offline, 113,007 tokens/s as published; at 10,200 W of
    # nameplate: 113,007 / 10.2 = 11,079.1 tokens/s per nameplate kW, 113,007 / 10,200 = 11.079 tokens/J
    row = one(con, "SELECT * FROM token_economics WHERE system = $s AND benchmark = 'llama2-70b-99.9' "
                   "AND scenario = 'Offline'", {"s": ASUS})
    assert row["throughput"] == 113007.0
    assert row["nameplate_watts"] == 10200.0
    assert row["throughput_per_kw_nameplate"] == pytest.approx(113007 / 10.2, rel=1e-12)
    assert row["tokens_per_joule_nameplate"] == pytest.approx(113007 / 10200, rel=1e-12)
    # a nameplate is never a measurement, and never an estimate's basis
    assert (row["measured_watts"], row["throughput_per_kw_measured"]) == (None, None)
    assert one(con, "SELECT DISTINCT power_basis FROM stg_nameplate_power") == {"power_basis": "nameplate system power"}
    # "None" is absent, never zero: AMD's rows have no nameplate figure at all
    amd = rows(con, "SELECT nameplate_watts, throughput_per_kw_nameplate FROM token_economics WHERE system = $s",
               {"s": AMD})
    assert amd and {(r["nameplate_watts"], r["throughput_per_kw_nameplate"]) for r in amd} == {(None, None)}
    assert one(con, "SELECT count(*) AS n FROM stg_nameplate_power WHERE nameplate_watts IS NULL") == {"n": 0}
    con.close()


@pytest.mark.parametrize("stated, drift", [("None", None), ("", None), ("0", '"0"'), ("n/a", '"n/a"'),
                                           ("-500", '"-500"')])
@pytest.mark.slow
def test_a_value_that_is_not_a_positive_number_is_absent_and_named(tmp_path, stated, drift):
    """"None" and an empty value are the checker's "no power submission": absent, silently; any other
    value that is not a positive number of watts is absent too, and `drift` names it once."""
    con = _load(tmp_path, _excerpt({ASUS: stated}))
    assert one(con, "SELECT count(*) AS n FROM token_economics WHERE nameplate_watts IS NOT NULL") == {"n": 0}
    named = rows(con, "SELECT term, rows FROM drift WHERE kind = 'nameplate_power'")
    assert named == ([] if drift is None else [{"term": f"design_power_watts {drift}", "rows": 6}])
    con.close()
