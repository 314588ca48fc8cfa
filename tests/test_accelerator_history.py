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


def test_a100_sxm_x8_resnet_server_from_v07_to_v21_names_the_rounds_between(history_warehouse):
    # v2.1's best A100 SXM x8 resnet Server run is H3C's Intel-hosted R5500 G5 (314367.96), but a pair blames it:
    # H3C's own 4-GPU R5300G5_A100_SXM_80GBx4_TRT ("Scheduled samples per second : 141029.59") to it scales
    # (314367.96 / 141029.59) / (8 / 4) = 1.1145, above 1.05. The leaderboard does not rank it; nor is it the
    # hardware's best here (before, it was, and its gain was not procurement grade): the best eligible row is
    # H3C's AMD-hosted R5500 G5, 313967.41, and 313967.41 / 262305.32 = 1.19695 is procurement grade.
    results = TREES / "inference_results_v2.1/closed/H3C/results"
    run = "resnet50/Server/performance/run_1/mlperf_log_summary.txt"
    assert "Scheduled samples per second : 141029.59" in (results / "R5300G5_A100_SXM_80GBx4_TRT" / run).read_text()
    assert "Scheduled samples per second : 314367.96" in (results / "R5500G5_Intel_A100_A100-SXM-80GBx8_TRT" / run).read_text()
    assert "Scheduled samples per second : 313967.41" in (results / "R5500G5_AMD_A100_A100-SXM-80GBx8_TRT" / run).read_text()
    assert (314367.96 / 141029.59) / (8 / 4) == pytest.approx(1.1145, abs=5e-5)
    found = _history(history_warehouse, "A100 SXM")
    assert [(r["round"], r["result"]) for r in found] == [
        ("v0.7", 262305.32),   # closed/Inspur/results/DGX-A100_A100-SXM4x8_TRT/resnet50/Server (status "on-premise")
        ("v2.1", 313967.41),   # closed/H3C/results/R5500G5_AMD_A100_A100-SXM-80GBx8_TRT/resnet50/Server
    ]
    later = found[1]
    assert later["run_path"] == "closed/H3C/results/R5500G5_AMD_A100_A100-SXM-80GBx8_TRT/resnet50/Server/performance/run_1"
    # 313967.41 / 262305.32 = 1.19695; v1.0, v1.1, v2.0 lie between and are not loaded (no tree here)
    assert later["gain_from_previous"] == pytest.approx(313967.41 / 262305.32)
    assert later["gain_since_first"] == pytest.approx(313967.41 / 262305.32)
    assert (later["rounds_skipped"], later["rounds_not_loaded"]) == ([], ["v1.0", "v1.1", "v2.0"])
    assert (later["has_finding"], later["procurement_grade"]) == (False, True)
    assert found[0]["procurement_grade"] is False   # the first figure has no previous one to compare with


def test_a_figure_a_pair_finding_blames_gives_way_to_the_best_eligible_row(history_warehouse):
    # RTX PRO 6000 x8 llama3.1-8b Offline, v6.0: HPE's 6.0-0047 (49580.2 tokens/s) has no finding of its
    # own, but HPE's 4-GPU 6.0-0054 (23556.7) to it scales (49580.2 / 23556.7) / (8 / 4) = 1.0524, above
    # 1.05, and the pair blames it. Before, it was the hardware's best (49580.2 / 46841.8 = 1.05846, not
    # procurement grade); now the best eligible row is: Dell's XE7745 6.0-0023, 49036.1, and
    # 49036.1 / 46841.8 = 1.04685 is procurement grade.
    before, blamed = published("v5.1", "5.1-0051", "llama3.1-8b", "Offline"), published("v6.0", "6.0-0047", "llama3.1-8b", "Offline")
    small, dell = published("v6.0", "6.0-0054", "llama3.1-8b", "Offline"), published("v6.0", "6.0-0023", "llama3.1-8b", "Offline")
    assert (before, blamed, small, dell) == (46841.8, 49580.2, 23556.7, 49036.1)
    assert (blamed / small) / (8 / 4) == pytest.approx(1.0524, abs=5e-5)
    with connect_file(history_warehouse, read_only=True) as con:
        found = rows(con, "SELECT * FROM accelerator_history WHERE accelerator = 'RTX PRO 6000 Blackwell' "
                          "AND accelerator_count = 8 AND benchmark = 'llama3.1-8b' AND scenario = 'Offline' "
                          "ORDER BY round_order(round)")
    # v6.1 (summary.csv): the best of its four RTX PRO 6000 Blackwell Server Edition x8 and x4 llama3.1-8b
    # Offline rows at 8 is HPE's HPE_PROLIANT_DL380A_RTX_PRO_6000_PCIE_96GBx8, 50965.3 (Cisco's x8: 50453.7),
    # numbered 6.1-0049: 50965.3 / 49036.1 = 1.03934 over v6.0's best eligible row
    hpe = checker_row("v6.1", "HPE", "HPE_PROLIANT_DL380A_RTX_PRO_6000_PCIE_96GBx8", "llama3.1-8b", "Offline")
    assert (hpe["Result"], hpe["total_accelerators"]) == ("50965.3", "8")
    assert [(r["round"], r["result_id"], r["result"]) for r in found] == [
        ("v5.1", "5.1-0051", before), ("v6.0", "6.0-0023", dell), ("v6.1", "6.1-0049", 50965.3)]
    assert found[2]["gain_from_previous"] == pytest.approx(50965.3 / dell, rel=1e-12)
    later = found[1]
    assert later["comparable_with_previous"] and later["gain_from_previous"] == pytest.approx(dell / before)
    assert (later["has_finding"], later["procurement_grade"]) == (False, True)
    with connect_file(history_warehouse, read_only=True) as con:
        counts = rows(con, "SELECT count(*) FILTER (WHERE comparable_with_previous) AS comparable, "
                           "count(*) FILTER (WHERE procurement_grade) AS graded FROM accelerator_history")
    # 156 gains compare with their previous round: 145 before every part was named, then Jetson AGX Xavier's 9
    # (v0.5 "NVIDIA Xavier" -> v0.7 "NVIDIA AGX Xavier") and Mali-T860's 1 (v0.5 -> v0.7), which had no name
    # to be compared by, and GATEOverflow's 2x RTX 4090 resnet Offline, v5.1 -> v6.0, since its v6.0 figure is
    # above any conversion of its own runs. 12 rested on a blamed figure before the best eligible row replaced
    # it; 2 still do: no row of that hardware and size in the round is eligible. v6.1 adds 77: its
    # (accelerator, count, benchmark, scenario) with a closed, available row in v6.0 too, counted from
    # summary.csv and v6.0's table (GB300 18, RTX PRO 6000 16, B300 14, GB200 10, B200 8, MI355X 5, RTX PRO
    # 4500 3, MI350X 3), 73 of them procurement grade: not GB300 x4 WAN 2.2 Offline and SingleStream
    # (Oracle's 6.1-0086, 0.013837 videos/s against NVIDIA's v6.0 x4 6.0-0077, 0.036622: its own row has a
    # finding), nor RTX PRO 4500 x5 llama3.1-8b Server and RTX PRO 6000 x8 gpt-oss-120b Server (their v6.0
    # rows, 6.0-0050 and 6.0-0047, have one)
    assert counts == [{"comparable": 156 + 77, "graded": 154 + 73}]


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
