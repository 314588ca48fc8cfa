"""A partition of a device (an NVIDIA MIG instance) is what it is: its own hardware carrying its share
of the device, never ranked or paired beside whole devices; the device still counts its GPUs.
Real rows: NVIDIA's and HPE's v2.1 folders of ../shared/mlcommons/trees, rebuilt as the checker does."""
from __future__ import annotations

import polars as pl
import pytest

from tests.readers import connect_file
from tests.shared_rows import rows
from tests.trees_layout import TREES
from warehouse.trees.rebuilding import _assembled, rebuild_part, rules_for
from warehouse.trees.loading import load_rebuilt
from warehouse.store import db
from warehouse.views import rebuild as rebuild_views
from warehouse.views.identities import resolve_identities

SLICE = "DGX-A100_A100-SXM-80GB-MIG_1x1g.10gb_TRT"        # one 1g.10gb instance of one A100
HPE_SLICE = "Apollo_6500_gen10_plus_A100-SXM-80GB-MIG_1x1g.10gb_TRT"
WHOLE_X8 = "DGX-A100_A100-SXM-80GBx8_TRT"


@pytest.fixture(scope="module")
def v21(tmp_path_factory) -> str:
    """v2.1's closed/NVIDIA and closed/HPE folders rebuilt from the shared tree and loaded."""
    root = TREES / "inference_results_v2.1"
    part = rebuild_part(str(root), "v2.1", ["closed/NVIDIA", "closed/HPE"], rules_for("v2.1"))
    path = str(tmp_path_factory.mktemp("partitions") / "w.duckdb")
    with db.connect(path) as con:
        load_rebuilt(con, _assembled("v2.1", root, [part]))
    rebuild_views(path, "test")
    return path


def _query(path: str, sql: str, params: list | None = None) -> list[dict]:
    with connect_file(path, read_only=True) as con:
        return rows(con, sql, params or [])


@pytest.mark.unit
def test_the_partition_is_read_from_the_name_and_its_share_from_the_profile():
    published = pl.DataFrame({
        "accelerator_raw": ["NVIDIA A100-SXM-80GB (1x1g.10gb MIG)", "NVIDIA A100-SXM-80GB (7x1g.10gb MIG)",
                            "NVIDIA A30 (4x1g.6gb MIG)", "NVIDIA A100-SXM4 (1x1g.5gb MIG)",
                            "NVIDIA H100-SXM-80GB (1x3g.40gb MIG)", "NVIDIA A100-SXM-80GB"],
        "platform": [SLICE, "DGX-A100_A100-SXM-80GB-MIG_56x1g.10gb_TRT_Triton", "A30-MIG_32x1g.6gb_TRT_Triton",
                     "DGX-A100_A100-SXM4x1-MIG_1x1g.5gb_TRT", "H100_MIG", WHOLE_X8],
        "total_accelerators": [1, 8, 8, 1, 1, 8],
        "value": [5589.01, 278648.0, 149019.0, 4966.44, 700.0, 335144.0],
        "higher_is_better": [True] * 6, "metric": ["performance"] * 6,
    })
    by_platform = {r["platform"]: r for r in resolve_identities(published).to_dicts()}
    got = [by_platform[platform] for platform in published["platform"]]
    shape = [(r["partition"], r["partitions_per_device"], r["partition_fraction"], r["total_partitions"])
             for r in got]
    assert shape == [("1g.10gb", 1, pytest.approx(1 / 7), 1),
                     ("1g.10gb", 7, pytest.approx(1 / 7), 56),      # 8 GPUs x 7 instances
                     ("1g.6gb", 4, pytest.approx(1 / 4), 32),       # an A30 has 4 compute slices
                     ("1g.5gb", 1, pytest.approx(1 / 7), 1),
                     ("3g.40gb", 1, pytest.approx(3 / 7), 1),
                     (None, None, None, None)]
    assert [got[i]["hardware_count"] for i in (0, 1, 5)] == [1, 56, 8]
    # the device is matched without the annotation; the hardware a comparison keys on is the partition
    assert [r["accelerator"] for r in got[:2]] == ["A100 SXM 80GB", "A100 SXM 80GB"]
    assert [r["hardware"] for r in (got[0], got[5])] == ["A100 SXM 80GB (MIG 1g.10gb)", "A100 SXM 80GB"]
    # per device only where every device is filled: 56 instances x 1/7 = 8 GPUs; 278,648 / 8 = 34,831,
    # per instance 278,648 / 56 = 4,975.857; one instance of one A100 has no per-device figure
    assert got[1]["value_per_accelerator"] == 34831.0
    assert got[1]["value_per_partition"] == pytest.approx(4975.857, abs=1e-3)
    assert (got[0]["value_per_accelerator"], got[0]["value_per_partition"]) == (None, 5589.01)
    assert (got[5]["value_per_accelerator"], got[5]["value_per_partition"]) == (41893.0, None)


def test_a_slice_counts_its_instances_and_its_chassis_still_counts_its_gpus(v21):
    found = {r["platform"]: r for r in _query(
        v21, "SELECT platform, accelerator, hardware, partition, partition_fraction, total_accelerators, "
             "total_partitions, value, value_per_accelerator, value_per_partition FROM stg_results "
             "WHERE benchmark = 'resnet' AND scenario = 'Offline' AND platform IN (?, ?)", [SLICE, HPE_SLICE])}
    nvidia, hpe = found[SLICE], found[HPE_SLICE]
    assert (nvidia["accelerator"], nvidia["hardware"], nvidia["partition"]) == \
        ("A100 SXM 80GB", "A100 SXM 80GB (MIG 1g.10gb)", "1g.10gb")
    assert nvidia["partition_fraction"] == pytest.approx(1 / 7)
    assert (nvidia["total_accelerators"], nvidia["total_partitions"], nvidia["value_per_accelerator"],
            nvidia["value_per_partition"]) == (1, 1, None, 5589.01)
    # HPE's description counts 8 GPUs of "1x1g.10gb"; its platform names one instance, and its 5,559.41
    # samples/s is one instance's (NVIDIA's one instance: 5,589.01), not eight (5,559.41 / 8 = 694.9)
    assert (hpe["total_accelerators"], hpe["total_partitions"], hpe["value_per_partition"]) == (8, 1, 5559.41)


def test_no_scaling_pair_sets_a_slice_beside_whole_gpus(v21):
    pairs = _query(v21, "SELECT accelerator, accelerator_count_small, accelerator_count_large, superlinear "
                        "FROM scaling_efficiency WHERE submitter = 'NVIDIA' AND benchmark = 'resnet' "
                        "AND scenario = 'Server' AND accelerator LIKE 'A100 SXM%'")
    # Before: the slice (3,526.96 qps) was "A100 SXM x1" against DGX A100 x8's 300,063.99:
    # (300,063.99 / 3,526.96) / 8 = 10.635, superlinear, and the x8 result excluded
    assert not any(p["accelerator_count_small"] == 1 and p["accelerator"] == "A100 SXM 80GB" for p in pairs), pairs
    blamed = _query(v21, "SELECT f.rule, f.related FROM int_pair_findings AS f JOIN stg_results AS r "
                         "USING (source_id, record_no) WHERE r.platform = ?", [WHOLE_X8])
    assert blamed == []


def test_dgx_a100_x8_server_results_are_ranked_again_and_a_slice_only_beside_slices(v21):
    ranked = {r["benchmark"]: r for r in _query(
        v21, "SELECT l.benchmark, l.result, l.rank_system, l.excluded_because FROM leaderboard AS l "
             "WHERE l.round = 'v2.1' AND l.suite = 'datacenter' AND l.scenario = 'Server' AND l.system = "
             "'NVIDIA DGX A100 (8x A100-SXM-80GB, TensorRT)' AND l.benchmark IN ('resnet', 'bert-99', 'rnnt')")}
    assert {b: (r["result"], r["excluded_because"]) for b, r in ranked.items()} == {
        "resnet": (300063.99, None), "bert-99": (25389.18, None), "rnnt": (104020.33, None)}
    assert all(r["rank_system"] is not None for r in ranked.values())
    # the slices of resnet Offline are ranked among themselves: NVIDIA's 5,589.01 first, HPE's 5,559.41
    # second, whatever the whole systems of the round did
    slices = _query(v21, "SELECT submitter, result, result_per_partition, rank_system, rank_per_accelerator "
                         "FROM leaderboard WHERE round = 'v2.1' AND suite = 'datacenter' AND benchmark = 'resnet' "
                         "AND scenario = 'Offline' AND partition = '1g.10gb' AND rank_system IS NOT NULL "
                         "ORDER BY rank_system, submitter")
    assert [(r["submitter"], r["result"], r["rank_system"]) for r in slices][:2] == \
        [("NVIDIA", 5589.01, 1), ("HPE", 5559.41, 2)]
    wholes = _query(v21, "SELECT min(rank_system) AS best, count(*) AS ranked FROM leaderboard WHERE round = 'v2.1' "
                         "AND suite = 'datacenter' AND benchmark = 'resnet' AND scenario = 'Offline' "
                         "AND partition IS NULL AND rank_system IS NOT NULL")
    assert wholes[0]["best"] == 1


def test_per_accelerator_answers_give_a_slice_no_per_gpu_figure(v21):
    # Before: NVIDIA's one 1g.10gb instance was "A100 SXM x1" at 5,589.01 samples/s per GPU, beside
    # DGX A100 x8's 335,144 / 8 = 41,893 per GPU
    found = _query(v21, "SELECT accelerator, partition, accelerator_count, throughput_per_accelerator "
                        "FROM token_economics WHERE benchmark = 'resnet' AND scenario = 'Offline' AND system IN "
                        "('NVIDIA DGX A100 (1x A100-SXM-80GB-MIG-1x1g.10gb, TensorRT)', "
                        "'NVIDIA DGX A100 (8x A100-SXM-80GB, TensorRT)') ORDER BY accelerator_count")
    assert found == [{"accelerator": "A100 SXM 80GB", "partition": "1g.10gb", "accelerator_count": 1,
                      "throughput_per_accelerator": None},
                     {"accelerator": "A100 SXM 80GB", "partition": None, "accelerator_count": 8,
                      "throughput_per_accelerator": 41893.0}]
