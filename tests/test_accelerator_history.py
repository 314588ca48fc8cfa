"""accelerator_history: an accelerator's best verified figure in every round it ran, from the rebuilt
trees (v0.5, v0.7, v2.1) and the published tables (v4.1, v5.1, v6.0), each traced to its run folder;
and benchmark eras keeping gains from crossing a change of metric or data set."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import SHARED
from tests.readers import connect_file
from tests.shared_rows import checker_row, published, rows
from warehouse.identity.rounds import load_registry
from warehouse.trees.run import rebuild_rounds
from warehouse.views import rebuild as rebuild_views

TREES = SHARED / "trees"


@pytest.fixture(scope="module")
def history_warehouse(shared_warehouse, tmp_path_factory) -> str:
    """The three table rounds plus v0.5, v0.7 and v2.1 rebuilt from their trees."""
    path = str(tmp_path_factory.mktemp("history") / "w.duckdb")
    shutil.copyfile(shared_warehouse, path)
    registry = load_registry()
    done = rebuild_rounds([registry[r] for r in ("v0.5", "v0.7", "v2.1")], str(TREES), path)
    assert [r.missing for r in done] == [None, None, None]
    rebuild_views(path, "test")
    return path


def _history(path: str, accelerator: str) -> list[dict]:
    with connect_file(path, read_only=True) as con:
        return rows(con, "SELECT * FROM accelerator_history WHERE accelerator = ? AND accelerator_count = 8 "
                         "AND benchmark = 'resnet' AND scenario = 'Server' ORDER BY round_order(round)", [accelerator])


def test_t4_x8_resnet_server_from_v05_to_v07(history_warehouse):
    found = _history(history_warehouse, "T4")
    assert [(r["round"], r["result"], r["submitter"]) for r in found] == [
        ("v0.5", 41546.64, "NVIDIA"),   # v0.5 closed/NVIDIA/results/T4x8/resnet/Server: "Scheduled samples per second : 41546.64"
        ("v0.7", 46936.34, "Inspur"),   # v0.7 closed/Inspur/results/T4x8_TRT/resnet50/Server: "... : 46936.34"
    ]
    assert found[0]["run_path"] == "closed/NVIDIA/results/T4x8/resnet/Server/performance/run_1"
    assert found[1]["run_path"] == "closed/Inspur/results/T4x8_TRT/resnet50/Server/performance/run_1"
    assert {r["source_kind"] for r in found} == {"submission tree"} and found[1]["result_id"] is None
    # 46936.34 / 41546.64 = 1.12973 (v0.5 "resnet" and v0.7 "resnet50" are one benchmark, one era)
    assert found[1]["gain_from_previous"] == pytest.approx(46936.34 / 41546.64)
    assert (found[1]["round_previous"], found[1]["round_first"], found[1]["rounds_skipped"]) == ("v0.5", "v0.5", [])


def test_a100_sxm_x8_resnet_server_keeps_each_variant_apart_and_names_the_rounds_between(history_warehouse):
    # v0.7's "NVIDIA A100-SXM4" (40 GB, by Inspur's and NVIDIA's descriptions) and v2.1's "A100-SXM-40GB" are one
    # part; v2.1's "A100-SXM-80GB" and Nettrix's "A100-SXM4-80GB CTS" (described "TDP: 500W") are two others.
    # Before the variants, the three were one "A100 SXM" series: v0.7 262,305.32 -> v2.1 313,967.41, an 80 GB
    # system's gain over a 40 GB one.
    results = TREES / "inference_results_v2.1/closed"
    run = "resnet50/Server/performance/run_1/mlperf_log_summary.txt"
    assert "Scheduled samples per second : 280065.75" in (
        results / "HPE/results/Apollo_6500_gen10_plus_A100-SXM-40GBx8_TRT" / run).read_text()
    assert "Scheduled samples per second : 314367.96" in (
        results / "H3C/results/R5500G5_Intel_A100_A100-SXM-80GBx8_TRT" / run).read_text()
    forty = _history(history_warehouse, "A100 SXM 40GB")
    assert [(r["round"], r["result"]) for r in forty] == [
        ("v0.7", 262305.32),   # closed/Inspur/results/DGX-A100_A100-SXM4x8_TRT/resnet50/Server (status "on-premise")
        ("v2.1", 280065.75),   # closed/HPE/results/Apollo_6500_gen10_plus_A100-SXM-40GBx8_TRT/resnet50/Server
    ]
    later = forty[1]
    # 280065.75 / 262305.32 = 1.06771; v1.0, v1.1, v2.0 lie between and are not loaded (no tree here)
    assert later["gain_from_previous"] == pytest.approx(280065.75 / 262305.32)
    assert (later["rounds_skipped"], later["rounds_not_loaded"]) == ([], ["v1.0", "v1.1", "v2.0"])
    # HPE's own 4-GPU Apollo to it scales above 1.05: a pair questions the figure, it does not remove it
    assert (later["has_finding"], later["procurement_grade"]) == (True, True)
    assert forty[0]["procurement_grade"] is False   # the first figure has no previous one to compare with
    # the 80 GB part's best is H3C's Intel-hosted R5500 G5, which its own 4-GPU R5300 G5 questions
    # ((314367.96 / 141029.59) / (8 / 4) = 1.1145) and no evidence of its own contradicts
    eighty = _history(history_warehouse, "A100 SXM 80GB")
    assert [(r["round"], r["result"], r["submitter"]) for r in eighty] == [("v2.1", 314367.96, "H3C")]
    assert eighty[0]["run_path"] == "closed/H3C/results/R5500G5_Intel_A100_A100-SXM-80GBx8_TRT/resnet50/Server/performance/run_1"
    assert [r["result"] for r in _history(history_warehouse, "A100 SXM 80GB 500W")] == [307265.42]   # Nettrix, CTS


def test_a_figure_a_pair_finding_questions_stays_the_best(history_warehouse):
    # RTX PRO 6000 Blackwell Server Edition x8 llama3.1-8b Offline, v6.0: HPE's 6.0-0047 (49580.2 tokens/s) has no
    # finding of its own; HPE's 4-GPU 6.0-0054 (23556.7) to it scales (49580.2 / 23556.7) / (8 / 4) = 1.0524,
    # above 1.05. The pair questions it; before, it blamed it, and the hardware's best was Dell's 6.0-0023
    # (49036.1). A result is not wrong because another system ran slower: 49580.2 / 46841.8 = 1.05846 over
    # HPE's v5.1 5.1-0051, procurement grade.
    before, questioned = published("v5.1", "5.1-0051", "llama3.1-8b", "Offline"), published("v6.0", "6.0-0047", "llama3.1-8b", "Offline")
    small = published("v6.0", "6.0-0054", "llama3.1-8b", "Offline")
    assert (before, questioned, small) == (46841.8, 49580.2, 23556.7)
    assert (questioned / small) / (8 / 4) == pytest.approx(1.0524, abs=5e-5)
    with connect_file(history_warehouse, read_only=True) as con:
        found = rows(con, "SELECT * FROM accelerator_history WHERE accelerator = 'RTX PRO 6000 Blackwell Server Edition' "
                          "AND accelerator_count = 8 AND benchmark = 'llama3.1-8b' AND scenario = 'Offline' "
                          "ORDER BY round_order(round)")
        questioned_because = con.execute("SELECT questioned_because FROM int_result_eligibility "
                                         "WHERE result_id = '6.0-0047' AND benchmark = 'llama3.1-8b' "
                                         "AND scenario = 'Offline'").fetchone()[0]
    # v6.1 (summary.csv): the best of its RTX PRO 6000 Blackwell Server Edition x8 llama3.1-8b Offline rows
    # is HPE's HPE_PROLIANT_DL380A_RTX_PRO_6000_PCIE_96GBx8, 50965.3 (Cisco's x8: 50453.7), numbered
    # 6.1-0049: 50965.3 / 49580.2 = 1.02794 over v6.0's best, 6.0-0047
    hpe = checker_row("v6.1", "HPE", "HPE_PROLIANT_DL380A_RTX_PRO_6000_PCIE_96GBx8", "llama3.1-8b", "Offline")
    assert (hpe["Result"], hpe["total_accelerators"]) == ("50965.3", "8")
    assert [(r["round"], r["result_id"], r["result"]) for r in found] == [
        ("v5.1", "5.1-0051", before), ("v6.0", "6.0-0047", questioned), ("v6.1", "6.1-0049", 50965.3)]
    assert found[2]["gain_from_previous"] == pytest.approx(50965.3 / questioned, rel=1e-12)
    later = found[1]
    assert later["comparable_with_previous"] and later["gain_from_previous"] == pytest.approx(questioned / before)
    assert (later["has_finding"], later["procurement_grade"]) == (True, True)
    assert questioned_because == "questioned by other results: scaling_superlinear (with 6.0-0054)"
    with connect_file(history_warehouse, read_only=True) as con:
        counts = rows(con, "SELECT count(*) FILTER (WHERE comparable_with_previous) AS comparable, "
                           "count(*) FILTER (WHERE procurement_grade) AS graded FROM accelerator_history")
    # 129 gains of v0.5 to v6.0 compare with their previous round (156 while the variants were one part: a
    # series of the A100 SXM 40GB, 80GB and 500W is three now, fewer pairs), and every one is procurement
    # grade: a finding that blamed a figure for another system's result no longer takes a figure out (2 did
    # before). v6.1 adds 77: its (accelerator, count, benchmark, scenario) with a closed, available row in
    # v6.0 too, counted from summary.csv and v6.0's table (GB300 18, RTX PRO 6000 16, B300 14, GB200 10,
    # B200 8, MI355X 5, RTX PRO 4500 3, MI350X 3), 75 of them procurement grade: not GB300 x4 WAN 2.2
    # Offline and SingleStream (Oracle's 6.1-0086, 0.013837 videos/s against NVIDIA's v6.0 x4 6.0-0077,
    # 0.036622: its own row has a finding)
    assert counts == [{"comparable": 129 + 77, "graded": 129 + 75}]


def test_no_gain_across_a_change_of_metric_or_data_set(history_warehouse):
    with connect_file(history_warehouse, read_only=True) as con:
        crossed = rows(con, "SELECT benchmark, scenario, round_previous, round, gain_from_previous, not_comparable_because "
                            "FROM accelerator_history WHERE round_previous IS NOT NULL AND NOT comparable_with_previous")
        gains = rows(con, "SELECT benchmark, scenario, round_from, round_to FROM software_gains "
                          "WHERE (benchmark LIKE '3d-unet%' OR scenario IN ('SingleStream', 'MultiStream')) "
                          "AND round_order(round_from) < 2000 AND round_order(round_to) >= 2000")
    assert crossed and all(r["gain_from_previous"] is None and r["not_comparable_because"] for r in crossed)
    unet = [r for r in crossed if r["benchmark"] == "3d-unet-99" and r["scenario"] == "Offline"]
    assert unet and all("KiTS19" in r["not_comparable_because"] for r in unet)
    assert gains == []   # software_gains never pairs v0.7 with v2.1 across those changes either
