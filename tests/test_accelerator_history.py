"""accelerator_history: an accelerator's best verified figure in every round it ran, from the rebuilt
trees (v0.5, v0.7, v2.1) and the published tables (v4.1, v5.1, v6.0), each traced to its run folder;
and benchmark eras keeping gains from crossing a change of metric or data set."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import SHARED
from tests.readers import connect_file
from tests.shared_rows import rows
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
    assert later["procurement_grade"]


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
