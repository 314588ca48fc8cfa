"""The report's energy parts (issue 62, item 5): the per-kW answer takes the entry's measured power
wherever a measured figure exists, naming its basis; the efficiency chart's panels, colours and lines
from a hand-made history."""
from __future__ import annotations

from datetime import date

import polars as pl
import pytest

from warehouse.export.report_answer import answers
from warehouse.export.report_efficiency import EFFICIENCY_COLOURED, OTHER, efficiency_panels


def test_per_kw_takes_measured_power_wherever_a_measured_figure_exists(shared_con):
    # v4.1 llama2-70b-99 Offline: one accelerator has a measured figure, NVIDIA's H200 MaxQ v4.1-0049,
    # 25,262.1 tokens/s at 6,152.984435 W: 25,262.1 / 6.152984435 = 4,105.67 tokens/s per kW. Before,
    # the answer took the system estimate (several accelerators have one) over a measurement of one.
    # (-99 and -99.9 Offline have one answer in v4.1: one row, named by both)
    found = {(a.benchmark, a.scenario): a for a in answers(shared_con, "v4.1", {})}
    best = found["llama2-70b-99", "Offline"].per_kw.best
    assert (best.accelerator, best.result_id, best.power_basis) == ("H200 SXM", "v4.1-0049", "measured")
    assert best.value == pytest.approx(25262.1 / 6.152984435, rel=1e-9)
    # one of the parts the answer ranks has a measured figure: said, so the lead is read as one of one
    ran = shared_con.execute("""
        SELECT count(DISTINCT accelerator), count(DISTINCT accelerator) FILTER (WHERE throughput_per_kw_measured > 0)
        FROM token_economics WHERE round = 'v4.1' AND benchmark = 'llama2-70b-99' AND scenario = 'Offline'
          AND market = 'datacenter' AND procurement_grade AND NOT mixed_cluster AND accelerator IS NOT NULL
          AND partition IS NULL""").fetchall()
    assert ran == [(8, 1)] and best.basis == ("measured system power (the whole system at the wall, during the run); "
                                     "1 of the 8 parts that ran have one")
    assert found["llama2-70b-99", "Offline"].per_kw.runner_up is None   # no other measured figure: none ranked beside it
    # a benchmark no entry measured keeps an estimate, named
    v60 = answers(shared_con, "v6.0", {})
    assert v60 and all(a.per_kw.best is None or a.per_kw.best.power_basis in ("system estimate", "accelerators only")
                       for a in v60)


def _history(*points) -> pl.DataFrame:
    """Rows as efficiency_history_frame reads them: (benchmark, part, setting, round, per joule)."""
    dates = {"v1.1": date(2021, 9, 22), "v2.1": date(2022, 9, 8), "v4.1": date(2024, 8, 28)}
    return pl.DataFrame([{"family": b, "benchmark": b, "work_unit": "samples", "era": "", "accelerator": part,
                          "segment": "datacenter", "power_setting": setting, "round": r,
                          "round_order": int(r[1]) * 1000 + int(r[3]), "published_on": dates[r], "per_joule": v,
                          "accelerator_count": 8, "submitter": "S", "run_path": "p", "measured_watts": 1.0}
                         for b, part, setting, r, v in points])


@pytest.mark.unit
def test_a_part_is_a_line_per_power_setting_and_at_most_eight_parts_are_coloured():
    points = [("resnet", "A100", "MaxQ", "v1.1", 83.0), ("resnet", "A100", "MaxQ", "v2.1", 93.7),
              ("resnet", "A100", "MaxP", "v1.1", 66.9), ("resnet", "A100", "MaxP", "v2.1", 70.0),
              ("bert-99", "A100", "MaxQ", "v1.1", 7.0)]
    points += [("resnet", f"P{i}", "MaxP", r, 10.0 + i) for i in range(10) for r in ("v1.1", "v2.1")]
    records = pl.DataFrame([{"benchmark": "resnet", "power_setting": "MaxQ", "era": "", "round": r,
                             "round_order": o, "published_on": d, "work_per_joule_record": v, "record_round": r,
                             "record_accelerator": "A100", "label": "x"}
                            for r, o, d, v in (("v1.1", 1001, date(2021, 9, 22), 83.0),
                                               ("v2.1", 2001, date(2022, 9, 8), 93.7))])
    drawn = efficiency_panels(_history(*points), records)
    # bert-99 was measured in one round only: no panel
    assert set(drawn["panel"].drop_nulls()) == {"resnet · samples per joule"}
    a100 = drawn.filter((pl.col("kind") == "part") & (pl.col("accelerator") == "A100"))
    lines = dict(zip(a100["power_setting"], a100["line"]))
    assert lines["MaxQ"] != lines["MaxP"]
    shades = set(drawn.filter(pl.col("kind") == "part")["shade"])
    assert "A100" in shades and OTHER in shades and len(shades - {OTHER}) == EFFICIENCY_COLOURED
    # the record holder is coloured first; its label sits at the round that set the record, in the right
    # half of the time axis: drawn to the left of its point
    (label,) = drawn.filter(pl.col("kind") == "label").to_dicts()
    assert (label["round"], label["text"], label["right"]) == ("v2.1", "MaxQ record: A100 93.7 (v2.1)", True)
