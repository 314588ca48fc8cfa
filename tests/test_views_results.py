"""verified_results and leaderboard on the real rows of the shared mirror (v4.1, v5.1, v6.0, v6.1).

Every expected number below was read by hand from
../shared/mlcommons/mirror/inference_results_vX.Y/main/summary_results.json; the comments name the
result IDs and the raw values, and `published()` re-reads them so a typo in a literal fails loudly.
"""
from __future__ import annotations

import pytest

from tests.shared_rows import checker_rows, one, published, records, rows
from warehouse.views import materialize

# ---------------------------------------------------------------------------------------------
# verified_results


def test_verified_results_holds_one_row_per_closed_available_record(shared_con):
    # closed + available records in the JSON files: v4.1 823, v5.1 607, v6.0 495, and rows of v6.1's
    # summary.csv: 466 (one performance row each; nothing in these files is quarantined).
    expected = {
        name: sum(r["Category"] == "closed" and r["Availability"] == "available" for r in records(name))
        for name in ("v4.1", "v5.1", "v6.0")
    }
    expected["v6.1"] = sum(r["Division"] == "closed" and r["Availability"] == "available" for r in checker_rows("v6.1"))
    assert expected == {"v4.1": 823, "v5.1": 607, "v6.0": 495, "v6.1": 466}
    counted = dict(shared_con.execute(
        "SELECT round, count(*) FROM verified_results GROUP BY round").fetchall())
    assert counted == expected
    assert shared_con.execute("SELECT DISTINCT verification FROM verified_results").fetchall() == [("verified",)]


def test_verified_row_has_canonical_hardware_and_value_per_accelerator(shared_con):
    # 6.0-0040 Google "NVIDIA DGX B200 (8x B200-SXM-180GB, TensorRT)", deepseek-r1 Server:
    # Performance_Result 41027.9 Tokens/s, Accelerator "NVIDIA B200-SXM-180GB", Total Accelerators 8,
    # Software "TensorRT 10.14, CUDA 13.1". B200 is NVIDIA Blackwell, generation 5 (accelerators.csv).
    assert published("v6.0", "6.0-0040", "deepseek-r1", "Server") == 41027.9
    row = one(shared_con, "SELECT * FROM verified_results WHERE result_id = '6.0-0040' "
                          "AND benchmark = 'deepseek-r1' AND scenario = 'Server'")
    assert row["result"] == 41027.9
    assert row["result_unit"] == "Tokens/s" and row["higher_is_better"] is True
    assert row["accelerator_raw"] == "NVIDIA B200-SXM-180GB"
    assert row["accelerator"] == "B200"
    assert (row["vendor"], row["family"], row["generation"]) == ("NVIDIA", "Blackwell", 5)
    assert row["accelerator_count"] == 8
    assert row["result_per_accelerator"] == pytest.approx(41027.9 / 8, rel=1e-12)
    assert row["software"] == "TensorRT 10.14, CUDA 13.1"
    assert row["suite"] == "datacenter" and row["submitter"] == "Google"


def test_total_accelerators_before_v6_is_nodes_times_accelerators_per_node(shared_con):
    # v4.1 has no "Total Accelerators" field. v4.1-0036 JuniperNetworks "4x8xH100-SXM-80GB",
    # llama2-70b-99 Offline: Nodes 4, a# 8.0, Performance_Result 82749.6 Tokens/s -> 4 x 8 = 32.
    assert published("v4.1", "v4.1-0036", "llama2-70b-99", "Offline") == 82749.6
    row = one(shared_con, "SELECT * FROM verified_results WHERE result_id = 'v4.1-0036' "
                          "AND benchmark = 'llama2-70b-99' AND scenario = 'Offline'")
    assert (row["nodes"], row["accelerators_per_node"], row["accelerator_count"]) == (4, 8, 4 * 8)
    assert row["accelerator"] == "H100 SXM"
    assert row["result_per_accelerator"] == pytest.approx(82749.6 / 32, rel=1e-12)


def test_latency_and_cpu_only_rows_have_no_value_per_accelerator(shared_con):
    # 6.0-0068 Lenovo (2x L4) resnet SingleStream: 0.400845 Latency (ms) -> lower is better, no
    # per-accelerator value. 6.0-0067 Lenovo ThinkEdge SE100 resnet Offline: 834.804 Samples/s with
    # Accelerator "" and a# "" (CPU only) -> no accelerator, no total, no per-accelerator value.
    latency = one(shared_con, "SELECT * FROM verified_results WHERE result_id = '6.0-0068' "
                              "AND benchmark = 'resnet' AND scenario = 'SingleStream'")
    assert latency["result"] == 0.400845 and latency["result_unit"] == "Latency (ms)"
    assert latency["higher_is_better"] is False
    assert latency["accelerator_count"] == 2 and latency["result_per_accelerator"] is None
    cpu = one(shared_con, "SELECT * FROM verified_results WHERE result_id = '6.0-0067' "
                          "AND benchmark = 'resnet' AND scenario = 'Offline'")
    assert cpu["result"] == 834.804
    assert cpu["accelerator"] is None and cpu["accelerator_raw"] is None
    assert cpu["accelerator_count"] is None and cpu["result_per_accelerator"] is None


def test_preview_and_open_rows_never_appear_in_verified_results(shared_con):
    # Closed but preview: v4.1-0070 AMD (MI300X x8, llama2-70b 24109.8 Tokens/s, better than the
    # verified v4.1-0002 23514.8), 5.1-0097 CoreWeave (GB300 x8), 6.0-0101 Intel (Arc Pro B70).
    # Open division: 6.0-0104 CoreWeave (GB300 x64 deepseek-r1 627653), 5.1-0098 AMD (MI355X), and
    # the 13 'datacenter,edge' entries v4.1-0093 .. v4.1-0105 (NeuralMagic, all open).
    assert published("v4.1", "v4.1-0070", "llama2-70b-99", "Offline") == 24109.8
    excluded = ["v4.1-0070", "5.1-0097", "6.0-0101", "6.0-0104", "5.1-0098"]
    excluded += [f"v4.1-{n:04d}" for n in range(93, 106)]
    found = rows(shared_con, "SELECT result_id FROM verified_results WHERE list_contains(?, result_id)",
                 [excluded])
    assert found == []
    # ...while the results table does hold them (the view filtered them out).
    held = shared_con.execute("SELECT count(DISTINCT result_id) FROM results WHERE list_contains(?, result_id)",
                              [excluded]).fetchone()[0]
    assert held == len(excluded)


# ---------------------------------------------------------------------------------------------
# leaderboard


def test_leaderboard_latency_scenario_ranks_lowest_latency_first(shared_con):
    # v6.0 edge resnet SingleStream, Latency (ms), verified: 6.0-0035 GATEOverflow (2x RTX 4090)
    # 0.303116; 6.0-0068 Lenovo (2x L4) 0.400845; 6.0-0067 Lenovo SE100 (CPU) 1.203352;
    # 6.0-0055 HPE (1x RTX PRO 4500) 10.561798; 6.0-0056 HPE (5x RTX PRO 4500) 10.991706.
    # Lower is better, so rank 1 is the lowest value; no per-accelerator rank for latency.
    board = rows(shared_con, "SELECT * FROM leaderboard WHERE round = 'v6.0' AND suite = 'edge' "
                             "AND benchmark = 'resnet' AND scenario = 'SingleStream' ORDER BY rank_system")
    assert [(r["rank_system"], r["result_id"], r["result"]) for r in board] == [
        (1, "6.0-0035", 0.303116),
        (2, "6.0-0068", 0.400845),
        (3, "6.0-0067", 1.203352),
        (4, "6.0-0055", 10.561798),
        (5, "6.0-0056", 10.991706),
    ]
    assert min(board, key=lambda r: r["result"])["rank_system"] == 1
    assert all(r["rank_per_accelerator"] is None for r in board)


def test_leaderboard_rank_per_accelerator_differs_from_rank_system(shared_con):
    # v6.0 datacenter llama3.1-405b Offline (Tokens/s), verified rows:
    #   6.0-0078 NVIDIA GB300 x72 19511.7 -> 19511.7/72 = 270.996 per accelerator
    #   6.0-0075 NVIDIA GB200 x72 15461.5 -> 15461.5/72 = 214.743
    #   6.0-0010 Cisco B300 x8 1971.11 -> 246.389;  6.0-0089 QCT B300 x8 1953.77 -> 244.221
    #   6.0-0073 NVIDIA B300 x8 1951.6 -> 243.95;   6.0-0039 GigaComputing B300 x8 1947.91 -> 243.489
    #   6.0-0040 Google B200 x8 1350.24 -> 168.78
    # The GB200 rack is 2nd on system throughput but only 6th per accelerator.
    values = {"6.0-0078": (19511.7, 72), "6.0-0075": (15461.5, 72), "6.0-0010": (1971.11, 8),
              "6.0-0089": (1953.77, 8), "6.0-0073": (1951.6, 8), "6.0-0039": (1947.91, 8),
              "6.0-0040": (1350.24, 8)}
    for rid, (value, _) in values.items():
        assert published("v6.0", rid, "llama3.1-405b", "Offline") == value
    by_system = sorted(values, key=lambda rid: -values[rid][0])
    by_accelerator = sorted(values, key=lambda rid: -values[rid][0] / values[rid][1])
    board = {r["result_id"]: r for r in rows(
        shared_con, "SELECT * FROM leaderboard WHERE round = 'v6.0' AND suite = 'datacenter' "
                    "AND benchmark = 'llama3.1-405b' AND scenario = 'Offline'")}
    assert set(board) == set(values)
    for rid in values:
        assert board[rid]["rank_system"] == by_system.index(rid) + 1
        assert board[rid]["rank_per_accelerator"] == by_accelerator.index(rid) + 1
    gb200 = board["6.0-0075"]
    assert (gb200["rank_system"], gb200["rank_per_accelerator"]) == (2, 6)
    assert gb200["result_per_accelerator"] == pytest.approx(15461.5 / 72, rel=1e-12)
    assert (board["6.0-0078"]["rank_system"], board["6.0-0078"]["rank_per_accelerator"]) == (1, 1)


def test_leaderboard_small_slice_wins_per_accelerator_but_not_on_latency(shared_con):
    # v6.0 datacenter wan-2.2-t2v-a14b. Offline (Samples/s): 6.0-0073 NVIDIA B300 x8 0.0585234 is the
    # best system; 6.0-0077 NVIDIA GB300 x4 0.036622 is 5th of 7 as a system but best per accelerator:
    # 0.036622/4 = 0.0091555 > 0.0585234/8 = 0.0073154.
    # SingleStream (Latency (s)): 6.0-0039 GigaComputing B300 20.897894239 is rank 1 and
    # 6.0-0061 Krai H200 57.401991155 is rank 7 (the slowest).
    offline = {r["result_id"]: r for r in rows(
        shared_con, "SELECT * FROM leaderboard WHERE round = 'v6.0' AND benchmark = 'wan-2.2-t2v-a14b' "
                    "AND scenario = 'Offline'")}
    assert offline["6.0-0073"]["rank_system"] == 1
    assert offline["6.0-0077"]["rank_system"] == 5
    assert offline["6.0-0077"]["rank_per_accelerator"] == 1
    assert 0.036622 / 4 > 0.0585234 / 8
    latency = {r["result_id"]: r for r in rows(
        shared_con, "SELECT * FROM leaderboard WHERE round = 'v6.0' AND benchmark = 'wan-2.2-t2v-a14b' "
                    "AND scenario = 'SingleStream'")}
    assert published("v6.0", "6.0-0039", "wan-2.2-t2v-a14b", "SingleStream") == pytest.approx(20.897894239)
    assert latency["6.0-0039"]["rank_system"] == 1
    assert latency["6.0-0061"]["rank_system"] == 7 == len(latency)
    assert all(r["result_unit"] == "Latency (s)" and r["rank_per_accelerator"] is None for r in latency.values())


def test_leaderboard_never_shows_open_datacenter_edge_or_preview_entries(shared_con):
    # The 13 v4.1 entries with Suite 'datacenter,edge' (v4.1-0093 .. v4.1-0105, NeuralMagic bert-99)
    # are all open division; 6.0-0101 Intel (Arc Pro B70) is preview. None may be ranked, and the
    # leaderboard's suite column never holds a comma-joined value.
    both = [r["ID"] for r in records("v4.1") if r["Suite"] == "datacenter,edge"]
    assert len(both) == 13 and all(r["Category"] == "open" for r in records("v4.1") if r["ID"] in both)
    hidden = both + ["6.0-0101"]
    assert rows(shared_con, "SELECT * FROM leaderboard WHERE list_contains(?, result_id)", [hidden]) == []
    suites = {s for (s,) in shared_con.execute("SELECT DISTINCT suite FROM leaderboard").fetchall()}
    assert suites == {"datacenter", "edge"}


def test_a_datacenter_edge_entry_is_ranked_in_both_suites(private_con):
    # The shared rounds hold 'datacenter,edge' entries only in the open division, so in a private
    # copy of the warehouse one of them is marked closed/available/verified:
    # v4.1-0097 NeuralMagic "PCSPECIALIST AMD AM5", bert-99 Offline, 360.571 Samples/s, CPU only.
    # v4.1 verified bert-99 Offline rows: 41 in datacenter, all above 360.571 (the lowest is
    # 1595.13, v4.1-0059 Supermicro) -> rank 42; 2 in edge (v4.1-0041 6502.66, v4.1-0042 1928.07)
    # -> rank 3.
    assert published("v4.1", "v4.1-0097", "bert-99", "Offline") == 360.571
    closed = [r for r in records("v4.1") if r["Category"] == "closed" and r["Availability"] == "available"
              and r["Model"] == "bert-99" and r["Scenario"] == "Offline"]
    above = {suite: sum(suite in r["Suite"].split(",") and r["Performance_Result"] > 360.571 for r in closed)
             for suite in ("datacenter", "edge")}
    assert above == {"datacenter": 41, "edge": 2}
    private_con.execute("UPDATE results SET division = 'closed', availability = 'available', "
                        "verification = 'verified' WHERE result_id = 'v4.1-0097'")
    materialize(private_con)  # the leaderboard is stored as a table: rebuild it after the change
    ranked = rows(private_con, "SELECT suite, rank_system, rank_per_accelerator, result FROM leaderboard "
                               "WHERE result_id = 'v4.1-0097' ORDER BY suite")
    assert ranked == [
        {"suite": "datacenter", "rank_system": 41 + 1, "rank_per_accelerator": None, "result": 360.571},
        {"suite": "edge", "rank_system": 2 + 1, "rank_per_accelerator": None, "result": 360.571},
    ]
