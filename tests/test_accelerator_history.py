"""accelerator_history: an accelerator's best verified figure in every round it ran, from the rebuilt
trees (v0.5, v0.7, v2.1) and the published tables (v4.1, v5.1, v6.0), each traced to its run folder;
and benchmark eras keeping gains from crossing a change of metric or data set."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import SHARED
from tests.readers import connect_file
from tests.shared_rows import published, rows
from warehouse.identity.rounds import load_registry
from warehouse.ingest.tree_rebuild_load import rebuild_rounds
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
    found = _history(history_warehouse, "A100 SXM")
    assert [(r["round"], r["result"]) for r in found] == [
        ("v0.7", 262305.32),   # closed/Inspur/results/DGX-A100_A100-SXM4x8_TRT/resnet50/Server (status "on-premise")
        ("v2.1", 314367.96),   # closed/H3C/results/R5500G5_Intel_A100_A100-SXM-80GBx8_TRT/resnet50/Server
    ]
    later = found[1]
    assert later["run_path"] == "closed/H3C/results/R5500G5_Intel_A100_A100-SXM-80GBx8_TRT/resnet50/Server/performance/run_1"
    # 314367.96 / 262305.32 = 1.19848; v1.0, v1.1, v2.0 lie between and are not loaded (no tree here)
    assert later["gain_from_previous"] == pytest.approx(314367.96 / 262305.32)
    assert later["gain_since_first"] == pytest.approx(314367.96 / 262305.32)
    assert (later["rounds_skipped"], later["rounds_not_loaded"]) == ([], ["v1.0", "v1.1", "v2.0"])
    # but the v2.1 figure is blamed by a pair: H3C's own 4-GPU R5300G5_A100_SXM_80GBx4_TRT ("Scheduled samples
    # per second : 141029.59") to this 8-GPU system scales (314367.96 / 141029.59) / (8 / 4) = 1.1145, above
    # 1.05: the one eligibility rule keeps it out of every procurement-grade answer, this one too (before,
    # the mart read the row's own findings only, and it was procurement grade)
    small = TREES / "inference_results_v2.1/closed/H3C/results/R5300G5_A100_SXM_80GBx4_TRT/resnet50/Server/performance/run_1"
    assert "Scheduled samples per second : 141029.59" in (small / "mlperf_log_summary.txt").read_text()
    assert (314367.96 / 141029.59) / (8 / 4) == pytest.approx(1.1145, abs=5e-5)
    assert (later["has_finding"], later["procurement_grade"]) == (True, False)
    assert found[0]["procurement_grade"] is False   # the first figure has no previous one to compare with


def test_a_figure_a_pair_finding_blames_is_not_procurement_grade(history_warehouse):
    # HPE's RTX PRO 6000 x8 llama3.1-8b Offline: v5.1 5.1-0051 46841.8 -> v6.0 6.0-0047 49580.2 tokens/s,
    # 49580.2 / 46841.8 = 1.05846. 6.0-0047 has no finding of its own; the 4-GPU 6.0-0054 (23556.7) to it
    # scales (49580.2 / 23556.7) / (8 / 4) = 1.0524, above 1.05, and the pair blames it
    # (int_result_eligibility): the gain is shown, not procurement grade (before: procurement grade).
    before, after = published("v5.1", "5.1-0051", "llama3.1-8b", "Offline"), published("v6.0", "6.0-0047", "llama3.1-8b", "Offline")
    small = published("v6.0", "6.0-0054", "llama3.1-8b", "Offline")
    assert (before, after, small) == (46841.8, 49580.2, 23556.7)
    assert (after / small) / (8 / 4) == pytest.approx(1.0524, abs=5e-5)
    with connect_file(history_warehouse, read_only=True) as con:
        found = rows(con, "SELECT * FROM accelerator_history WHERE accelerator = 'RTX PRO 6000 Blackwell' "
                          "AND accelerator_count = 8 AND benchmark = 'llama3.1-8b' AND scenario = 'Offline' "
                          "ORDER BY round_order(round)")
        own = rows(con, "SELECT rule FROM int_row_findings WHERE result_id = '6.0-0047' AND benchmark = 'llama3.1-8b' "
                        "AND scenario = 'Offline'")
    assert own == []
    assert [(r["round"], r["result_id"], r["result"]) for r in found] == [
        ("v5.1", "5.1-0051", before), ("v6.0", "6.0-0047", after)]
    later = found[1]
    assert later["comparable_with_previous"] and later["gain_from_previous"] == pytest.approx(after / before)
    assert (later["has_finding"], later["procurement_grade"]) == (True, False)
    # every procurement-grade figure of the mart is procurement grade by the one rule, and so is its previous
    with connect_file(history_warehouse, read_only=True) as con:
        outside = rows(con, """
            SELECT h.accelerator, h.accelerator_count, h.benchmark, h.scenario, h.round
            FROM accelerator_history AS h
            JOIN int_best_results AS b
              ON b.best_verified_of_hardware AND b.hardware_kind = 'accelerator' AND b.hardware = h.accelerator
             AND b.total_accelerators = h.accelerator_count AND b.benchmark = h.benchmark AND b.scenario = h.scenario
             AND b.round IN (h.round, h.round_previous)
            JOIN int_result_eligibility AS e ON e.source_id = b.source_id AND e.record_no = b.record_no
            WHERE h.procurement_grade AND NOT e.procurement_grade""")
        counts = rows(con, "SELECT count(*) FILTER (WHERE comparable_with_previous) AS comparable, "
                           "count(*) FILTER (WHERE procurement_grade) AS graded FROM accelerator_history")
    assert outside == []
    # 155 gains compare with their previous round; 12 rest on a blamed figure (before: 145 graded). 145
    # before every part was named: Jetson AGX Xavier's 9 (v0.5 "NVIDIA Xavier" -> v0.7 "NVIDIA AGX
    # Xavier") and Mali-T860's 1 (v0.5 -> v0.7) had no name to be compared by
    assert counts == [{"comparable": 155, "graded": 143}]


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
