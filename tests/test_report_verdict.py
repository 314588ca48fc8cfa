"""The report's verdict and its answer tables, from the shared warehouse without a browser (issue 63
item 1): a line per market and workload family from the figures the answer already holds, twins with
the same answer as one row (the run message's rule), columns empty throughout a table left out with
the reason, and where prices come from said once a table. The page itself: test_report_reading.py."""
from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.shared_rows import published, record
from warehouse.export.report import answer_columns, price_footnote
from warehouse.export.report_answer import answers_by_market, evidence, merged_twins, verdicts

PRICES = ROOT / "examples" / "prices.example.csv"


@pytest.fixture(scope="module")
def v60(shared_warehouse):
    from tests.readers import connect_file
    with connect_file(shared_warehouse, read_only=True) as con:
        return answers_by_market(con, "v6.0", {})


def test_twins_with_one_answer_are_one_row_and_twins_that_differ_stay_apart(v60):
    # v6.0, the edge buyer, llama2-70b Offline: the same entry leads both accuracy targets with one figure
    edge = {(a.label, a.scenario): a for a in v60["edge"]}
    merged = edge[("llama2-70b-99 / -99.9", "Offline")]
    best = merged.per_accelerator.best
    assert merged.benchmark == "llama2-70b-99" and merged.twins == ("llama2-70b-99.9",)
    count = int(record("v6.0", best.result_id, "llama2-70b-99", "Offline")["Total Accelerators"])
    for benchmark in ("llama2-70b-99", "llama2-70b-99.9"):
        assert best.value == pytest.approx(published("v6.0", best.result_id, benchmark, "Offline") / count, rel=1e-12)
    assert ("llama2-70b-99.9", "Offline") not in {(a.benchmark, a.scenario) for a in v60["edge"]}
    # the datacenter buyer's llama2-70b-99 and -99.9 Server: B300 6.0-0010 leads -99 (114504 / 8); its
    # -99.9 figures differ, so two rows
    datacenter = {(a.label, a.scenario): a for a in v60["datacenter"]}
    server = datacenter[("llama2-70b-99", "Server")]
    assert server.per_accelerator.best.value == published("v6.0", "6.0-0010", "llama2-70b-99", "Server") / 8
    assert ("llama2-70b-99.9", "Server") in datacenter and server.twins == ()
    # merging again changes nothing: a merged answer is no twin of its other half
    assert merged_twins(v60["edge"]) == v60["edge"]


def test_a_verdict_per_market_and_family_takes_the_answers_own_figures(v60):
    found = {(v.market, v.family): v for v in verdicts(v60)}
    assert set(found) == {(m, f) for m in ("datacenter", "edge") for f in ("LLM serving", "other workloads")}
    llm = found[("datacenter", "LLM serving")]
    # the answer the page opens on: llama2-70b-99 Server (the most compared LLM, its Server row); B300
    # 6.0-0010 114504 / 8 per accelerator, GB300 NVL72 6.0-0078's measured rack, per kW on an estimate
    assert llm.answer.key == "llama2-70b-99 · Server"
    assert llm.answer.per_accelerator.best.value == published("v6.0", "6.0-0010", "llama2-70b-99", "Server") / 8
    rack, measure = llm.rack
    assert (rack.result_id, rack.value, measure) == (
        "6.0-0078", published("v6.0", "6.0-0078", "llama2-70b-99", "Server"), "measured")
    assert evidence("per_accelerator", llm.answer.per_accelerator.best) == ("measured", "measured")
    assert evidence("rack_measured", rack) == ("measured", "measured rack")
    assert evidence("per_kw", llm.answer.per_kw.best) == ("estimated", "system power estimated")
    # "first in N of M": the LLM answers of the table whose per-accelerator leader is the verdict's
    llms = [a for a in v60["datacenter"] if a.llm and a.per_accelerator.best is not None]
    assert llm.workloads == len(llms) and llm.led == sum(a.per_accelerator.best.accelerator == "B300" for a in llms)
    # the edge buyer: no rack ran whole, so the verdict names an estimate or none
    assert found[("edge", "LLM serving")].rack[1] == "estimated"


def test_a_column_empty_throughout_a_table_is_left_out_with_why(v60):
    shown, left_out = answer_columns(v60["datacenter"], priced=False)
    assert [m for m, _ in shown] == ["per_accelerator", "rack_measured", "rack_estimated", "per_kw"]
    assert left_out == []
    # v6.0's edge entries: no whole rack ran, none is a server to scale one from, no price is loaded
    assert not any(a.rack_measured.best or a.rack_estimated.best for a in v60["edge"])
    shown, left_out = answer_columns(v60["edge"], priced=True)
    assert [m for m, _ in shown] == ["per_accelerator", "per_kw"]
    assert left_out == ["per rack, measured (no entry here ran a whole rack)",
                        "per rack, estimated (no entry here has a whole server to scale a rack from)",
                        "per dollar (no accelerator here has a price and tokens)"]


def test_where_a_price_is_from_is_said_once_a_table_not_in_each_cell(private_con):
    from warehouse.ledger.prices import load_prices
    from warehouse.views import materialize
    assert load_prices(private_con, PRICES) > 0
    materialize(private_con, changed={"prices"})  # as `mlperf-wh prices load` does
    found = answers_by_market(private_con, "v6.0", {})["datacenter"]
    costs = [f for a in found for f in (a.per_dollar.best, a.per_dollar.runner_up) if f is not None]
    assert costs and all(f.basis.endswith(" per accelerator-hour") and "example" not in f.basis for f in costs)
    # examples/prices.example.csv: every price "made-up example, not a quote", 2026-11-01
    [(source, priced)] = price_footnote(found)
    assert source == "made-up example, not a quote, 2026-11-01"
    assert set(priced) == {f.accelerator for f in costs} and "B200" in priced
