"""software_gains, software_gain_summary, generation_speedups and scaling_efficiency on the real rows
of the shared mirror (v4.1, v5.1, v6.0).

Every expected number was read by hand from
../shared/mlcommons/mirror/inference_results_vX.Y/main/summary_results.json; comments name the result
IDs and raw values, the arithmetic is written out, and `published()` re-reads the raw values from the
JSON so a typo in a literal fails loudly.
"""
from __future__ import annotations

import re

import pytest

from tests.shared_rows import one, published, record, records, rows

# ---------------------------------------------------------------------------------------------
# scaling_efficiency


def test_scaling_efficiency_gb300_deepseek_offline_72_to_288(shared_con):
    # Acceptance case. v6.0 closed available, NVIDIA, deepseek-r1 Offline:
    # 6.0-0078 "NVIDIA GB300 NVL72 (72x ...)" Total Accelerators 72: 647076 Tokens/s
    # 6.0-0076 "NVIDIA GB300 NVL72 (72x ...)" Total Accelerators 288 (72 nodes x 4): 2494310 Tokens/s
    # efficiency = (2494310 / 647076) / (288 / 72) = 0.9637
    assert published("v6.0", "6.0-0078", "deepseek-r1", "Offline") == 647076
    assert published("v6.0", "6.0-0076", "deepseek-r1", "Offline") == 2494310
    row = one(shared_con, "SELECT * FROM scaling_efficiency WHERE round = 'v6.0' AND submitter = 'NVIDIA' "
                          "AND accelerator = 'GB300' AND benchmark = 'deepseek-r1' AND scenario = 'Offline'")
    assert (row["accelerator_count_small"], row["accelerator_count_large"]) == (72, 288)
    assert (row["throughput_small"], row["throughput_large"]) == (647076, 2494310)
    assert row["efficiency"] == pytest.approx((2494310 / 647076) / (288 / 72), rel=1e-9)
    assert row["efficiency"] == pytest.approx(0.9637, abs=5e-5)
    assert (row["result_id_small"], row["result_id_large"]) == ("6.0-0078", "6.0-0076")
    assert row["procurement_grade"] is True


def test_scaling_efficiency_nebius_gb300_server_8_to_72(shared_con):
    # v6.0 Nebius deepseek-r1 Server: 6.0-0082 (Nodes 2 x a# 4 = 8 GB300) 64510 Tokens/s;
    # 6.0-0081 (72 GB300) 575580 Tokens/s. efficiency = (575580 / 64510) / (72 / 8) = 0.99137
    assert published("v6.0", "6.0-0082", "deepseek-r1", "Server") == 64510
    assert published("v6.0", "6.0-0081", "deepseek-r1", "Server") == 575580
    row = one(shared_con, "SELECT * FROM scaling_efficiency WHERE round = 'v6.0' AND submitter = 'Nebius' "
                          "AND benchmark = 'deepseek-r1' AND scenario = 'Server'")
    assert (row["accelerator_count_small"], row["accelerator_count_large"]) == (8, 72)
    assert row["efficiency"] == pytest.approx((575580 / 64510) / (72 / 8), rel=1e-9)
    assert (row["result_id_small"], row["result_id_large"]) == ("6.0-0082", "6.0-0081")


def test_scaling_efficiency_v41_sizes_from_nodes_times_accelerators(shared_con):
    # v4.1 has no Total Accelerators: NVIDIA llama2-70b-99 Offline, v4.1-0045 (1x H200-SXM-141GB-CTS,
    # a# 1.0) 4487.88 Tokens/s and v4.1-0046 (8x, a# 8.0) 34864.2 Tokens/s.
    # efficiency = (34864.2 / 4487.88) / (8 / 1) = 0.97107
    assert published("v4.1", "v4.1-0045", "llama2-70b-99", "Offline") == 4487.88
    assert published("v4.1", "v4.1-0046", "llama2-70b-99", "Offline") == 34864.2
    row = one(shared_con, "SELECT * FROM scaling_efficiency WHERE round = 'v4.1' AND submitter = 'NVIDIA' "
                          "AND accelerator = 'H200 SXM CTS' AND benchmark = 'llama2-70b-99' AND scenario = 'Offline'")
    assert (row["accelerator_count_small"], row["accelerator_count_large"]) == (1, 8)
    assert row["efficiency"] == pytest.approx((34864.2 / 4487.88) / (8 / 1), rel=1e-9)
    assert row["procurement_grade"] is True


def test_scaling_efficiency_preview_side_is_labelled_not_procurement_grade(shared_con):
    # v4.1 AMD MI300X llama2-70b-99 Offline: 1 GPU v4.1-0001 (verified) 3062.72; at 8 GPUs the best is
    # the preview entry v4.1-0070 24109.8 (the verified v4.1-0002 has 23514.8).
    # efficiency = (24109.8 / 3062.72) / (8 / 1) = 0.98400; procurement_grade false.
    assert published("v4.1", "v4.1-0070", "llama2-70b-99", "Offline") == 24109.8
    assert published("v4.1", "v4.1-0002", "llama2-70b-99", "Offline") == 23514.8
    row = one(shared_con, "SELECT * FROM scaling_efficiency WHERE round = 'v4.1' AND submitter = 'AMD' "
                          "AND benchmark = 'llama2-70b-99' AND scenario = 'Offline'")
    assert (row["result_id_small"], row["result_id_large"]) == ("v4.1-0001", "v4.1-0070")
    assert row["efficiency"] == pytest.approx((24109.8 / 3062.72) / 8, rel=1e-9)
    assert (row["verification_small"], row["verification_large"]) == ("verified", "preview")
    assert row["procurement_grade"] is False


def test_scaling_efficiency_pairs_every_size_of_one_submitter(shared_con):
    # v4.1 UntetherAI speedAI240 Slim resnet Offline (Samples/s): v4.1-0067 x1 56277.1,
    # v4.1-0068 x3 168720, v4.1-0069 x4 221845, v4.1-0066 x6 334462 -> 4 sizes, C(4, 2) = 6 pairs.
    # 4 -> 6: (334462 / 221845) / (6 / 4) = 1.00509 (a little better than linear).
    found = rows(shared_con, "SELECT * FROM scaling_efficiency WHERE round = 'v4.1' AND submitter = 'UntetherAI' "
                             "AND accelerator = 'speedAI240 Slim' AND benchmark = 'resnet' AND scenario = 'Offline'")
    assert sorted((r["accelerator_count_small"], r["accelerator_count_large"]) for r in found) == [
        (1, 3), (1, 4), (1, 6), (3, 4), (3, 6), (4, 6)]
    four_six = next(r for r in found if (r["accelerator_count_small"], r["accelerator_count_large"]) == (4, 6))
    assert four_six["efficiency"] == pytest.approx((334462 / 221845) / (6 / 4), rel=1e-9)


def test_scaling_efficiency_never_has_latency_scenarios_or_mixes_submitters(shared_con):
    # UntetherAI also published resnet SingleStream at 1, 3 and 4 accelerators (v4.1-0067 0.121029 ms,
    # v4.1-0068 0.120438 ms, v4.1-0069 0.124016 ms): latency never scales, so no row.
    assert rows(shared_con, "SELECT * FROM scaling_efficiency WHERE scenario IN ('SingleStream', 'MultiStream') "
                            "OR throughput_unit LIKE 'Latency%'") == []
    # GB300 deepseek-r1 Offline: Nebius has 8 and 72, NVIDIA has 72 and 288; no pair crosses
    # submitters (no 8 -> 288 row, no 8 -> 72 row for NVIDIA).
    pairs = {(r["submitter"], r["accelerator_count_small"], r["accelerator_count_large"]) for r in rows(
        shared_con, "SELECT * FROM scaling_efficiency WHERE round = 'v6.0' AND accelerator = 'GB300' "
                    "AND benchmark = 'deepseek-r1' AND scenario = 'Offline'")}
    assert pairs == {("NVIDIA", 72, 288), ("Nebius", 8, 72)}


# ---------------------------------------------------------------------------------------------
# generation_speedups


def test_generation_speedup_gb300_over_gb200_at_72(shared_con):
    # Acceptance case, v6.0 deepseek-r1 at 72 accelerators, best verified result of each accelerator:
    # Server: GB300 6.0-0081 Nebius 575580 / GB200 6.0-0075 NVIDIA 336106 = 1.712
    # Offline: GB300 6.0-0081 Nebius 673936 / GB200 6.0-0075 NVIDIA 486141 = 1.386
    for scenario, new, base in (("Server", 575580, 336106), ("Offline", 673936, 486141)):
        assert published("v6.0", "6.0-0081", "deepseek-r1", scenario) == new
        assert published("v6.0", "6.0-0075", "deepseek-r1", scenario) == base
        row = one(shared_con, "SELECT * FROM generation_speedups WHERE round = 'v6.0' AND benchmark = 'deepseek-r1' "
                              "AND scenario = ? AND accelerator_count = 72 AND accelerator_new = 'GB300' "
                              "AND accelerator_base = 'GB200'", [scenario])
        assert (row["result_new"], row["result_base"]) == (new, base)
        assert row["speedup"] == pytest.approx(new / base, rel=1e-9)
        assert (row["submitter_new"], row["submitter_base"]) == ("Nebius", "NVIDIA")
        assert (row["result_id_new"], row["result_id_base"]) == ("6.0-0081", "6.0-0075")
        assert (row["verification_new"], row["verification_base"]) == ("verified", "verified")
        assert row["procurement_grade"] is True
    assert 575580 / 336106 == pytest.approx(1.712, abs=5e-4)
    assert 673936 / 486141 == pytest.approx(1.386, abs=5e-4)


def test_generation_speedup_b300_over_b200_at_8(shared_con):
    # v6.0 llama3.1-405b Offline at 8: best B300 is 6.0-0010 Cisco 1971.11 (above 6.0-0089 1953.77,
    # 6.0-0073 1951.6, 6.0-0039 1947.91); B200 is 6.0-0040 Google 1350.24. 1971.11 / 1350.24 = 1.4598
    assert published("v6.0", "6.0-0010", "llama3.1-405b", "Offline") == 1971.11
    assert published("v6.0", "6.0-0040", "llama3.1-405b", "Offline") == 1350.24
    row = one(shared_con, "SELECT * FROM generation_speedups WHERE round = 'v6.0' AND benchmark = 'llama3.1-405b' "
                          "AND scenario = 'Offline' AND accelerator_count = 8 AND accelerator_new = 'B300' "
                          "AND accelerator_base = 'B200'")
    assert row["speedup"] == pytest.approx(1971.11 / 1350.24, rel=1e-9)
    assert (row["result_id_new"], row["result_id_base"]) == ("6.0-0010", "6.0-0040")
    assert (row["submitter_new"], row["submitter_base"]) == ("Cisco", "Google")


def test_generation_speedup_on_latency_divides_base_by_new(shared_con):
    # v6.0 wan-2.2-t2v-a14b SingleStream, Latency (s), 8 accelerators:
    # B300 6.0-0039 GigaComputing 20.897894239; B200 6.0-0072 NVIDIA 25.458383354.
    # Lower is better: speedup = base / new. B300 vs B200: 25.458383354 / 20.897894239 = 1.2182.
    # The H200 SXM result, 6.0-0061 Krai 57.401991155, carries inferred = 1 from its folder's lower-case
    # 'singlestream' alone: the checker converts no result to SingleStream, so it was measured and is a
    # side: B300 over H200 57.401991155 / 20.897894239 = 2.7468, B200 over H200 57.401991155 /
    # 25.458383354 = 2.2547.
    assert published("v6.0", "6.0-0039", "wan-2.2-t2v-a14b", "SingleStream") == 20.897894239
    assert published("v6.0", "6.0-0072", "wan-2.2-t2v-a14b", "SingleStream") == 25.458383354
    assert published("v6.0", "6.0-0061", "wan-2.2-t2v-a14b", "SingleStream") == 57.401991155
    assert record("v6.0", "6.0-0061", "wan-2.2-t2v-a14b", "SingleStream")["inferred"] == 1
    found = {(r["accelerator_new"], r["accelerator_base"]): r for r in rows(
        shared_con, "SELECT * FROM generation_speedups WHERE round = 'v6.0' AND benchmark = 'wan-2.2-t2v-a14b' "
                    "AND scenario = 'SingleStream' AND accelerator_count = 8")}
    assert found[("B300", "B200")]["speedup"] == pytest.approx(25.458383354 / 20.897894239, rel=1e-9)
    assert found[("B300", "B200")]["result_unit"] == "Latency (s)"
    assert found[("B300", "B200")]["speedup"] > 1  # the newer part is faster
    assert found[("B300", "H200 SXM")]["speedup"] == pytest.approx(57.401991155 / 20.897894239, rel=1e-9)
    assert found[("B200", "H200 SXM")]["speedup"] == pytest.approx(57.401991155 / 25.458383354, rel=1e-9)


def test_generation_speedup_with_a_preview_side_is_not_procurement_grade(shared_con):
    # v4.1 gptj-99 Offline at 1 accelerator: GH200 144GB only from v4.1-0072 HPE, Availability
    # preview, 2632.76 Tokens/s; its predecessor GH200 96GB (same line, segment and form factor) from
    # v4.1-0057 QCT (verified) 2803.72 Tokens/s. speedup = 2632.76 / 2803.72 = 0.93902: the newer part
    # is slower here, flagged and kept; labelled preview, not procurement grade.
    assert published("v4.1", "v4.1-0072", "gptj-99", "Offline") == 2632.76
    assert published("v4.1", "v4.1-0057", "gptj-99", "Offline") == 2803.72
    row = one(shared_con, "SELECT * FROM generation_speedups WHERE round = 'v4.1' AND benchmark = 'gptj-99' "
                          "AND scenario = 'Offline' AND accelerator_count = 1 AND accelerator_new = 'GH200 144GB'")
    assert row["accelerator_base"] == "GH200 96GB" and row["generations_apart"] == 1
    assert row["speedup"] == pytest.approx(2632.76 / 2803.72, rel=1e-9)
    assert row["newer_is_slower"] is True
    assert (row["verification_new"], row["verification_base"]) == ("preview", "verified")
    assert row["procurement_grade"] is False
    # The datacenter superchip was once paired with an edge module, Jetson AGX Orin (v4.1-0051 NVIDIA
    # 64.4734 Tokens/s: "40.83x"); different lines and segments are never paired now.
    assert rows(shared_con, "SELECT * FROM generation_speedups WHERE accelerator_base = 'Jetson AGX Orin' "
                            "AND accelerator_new <> 'Jetson AGX Thor'") == []


def test_generation_speedups_never_pair_vendors_mixtures_or_other_lines(shared_con):
    # v6.0 llama2-70b-99 Offline at 8 holds AMD MI355X (6.0-0002, 103480) and NVIDIA B200/B300:
    # different vendors are never compared.
    assert published("v6.0", "6.0-0002", "llama2-70b-99", "Offline") == 103480
    cross = rows(shared_con, """
        SELECT g.* FROM generation_speedups AS g
        JOIN (SELECT DISTINCT accelerator, vendor FROM ref_accelerators) AS n ON n.accelerator = g.accelerator_new
        JOIN (SELECT DISTINCT accelerator, vendor FROM ref_accelerators) AS b ON b.accelerator = g.accelerator_base
        WHERE n.vendor <> b.vendor""")
    assert cross == []
    same_slice = "round = 'v6.0' AND benchmark = 'llama2-70b-99' AND scenario = 'Offline' AND accelerator_count = 8"
    present = {r["accelerator"] for r in rows(
        shared_con, "SELECT accelerator FROM int_best_results WHERE best_of_submitter AND "
                    + same_slice.replace("accelerator_count", "total_accelerators"))}
    assert {"MI355X", "B200", "B300"} <= present
    partners = {(r["accelerator_new"], r["accelerator_base"]) for r in rows(
        shared_con, f"SELECT * FROM generation_speedups WHERE {same_slice} AND accelerator_new = 'MI355X'")}
    assert partners == {("MI355X", "MI300X"), ("MI355X", "MI325X")}  # AMD only, never B200 or B300
    # Mixed systems ('MI300X + MI325X', 'MI300X + MI325X + MI355X') belong to no line.
    assert rows(shared_con, "SELECT * FROM generation_speedups WHERE accelerator_new LIKE '%+%' "
                            "OR accelerator_base LIKE '%+%'") == []
    # GB300 (an NVL72 rack) and B300 (an 8-GPU HGX board) are in different lines and form factors: v6.0
    # deepseek-r1 Offline at 8 has both (6.0-0017 CoreWeave GB300 78564, 6.0-0073 NVIDIA B300 70325.7),
    # never paired. Every pair is a predecessor chain of one line, segment and form factor.
    assert rows(shared_con, "SELECT * FROM generation_speedups WHERE accelerator_new = 'GB300' "
                            "AND accelerator_base = 'B300'") == []
    unlinked = rows(shared_con, """
        SELECT g.* FROM generation_speedups AS g
        LEFT JOIN stg_successions AS s ON s.hardware = coalesce(g.accelerator_new, g.cpu_new)
                                   AND s.ancestor = coalesce(g.accelerator_base, g.cpu_base)
        WHERE s.hardware IS NULL""")
    assert unlinked == []


# ---------------------------------------------------------------------------------------------
# software_gains


def test_software_gain_google_b200_deepseek_server(shared_con):
    # Acceptance case. Google "NVIDIA DGX B200 (8x B200-SXM-180GB, TensorRT)", deepseek-r1 Server:
    # v5.1 5.1-0047 14630.7 Tokens/s, Software "TensorRT 10.11, CUDA 12.9"
    # v6.0 6.0-0040 41027.9 Tokens/s, Software "TensorRT 10.14, CUDA 13.1"
    # gain = 41027.9 / 14630.7 = 2.804
    assert published("v5.1", "5.1-0047", "deepseek-r1", "Server") == 14630.7
    assert published("v6.0", "6.0-0040", "deepseek-r1", "Server") == 41027.9
    row = one(shared_con, "SELECT * FROM software_gains WHERE basis = 'same_scale' AND submitter = 'Google' "
                          "AND accelerator = 'B200' AND accelerator_count = 8 AND benchmark = 'deepseek-r1' "
                          "AND scenario = 'Server'")
    assert (row["round_from"], row["round_to"]) == ("v5.1", "v6.0")
    assert (row["result_from"], row["result_to"]) == (14630.7, 41027.9)
    assert row["gain"] == pytest.approx(41027.9 / 14630.7, rel=1e-9)
    assert row["gain"] == pytest.approx(2.804, abs=5e-4)
    assert (row["result_id_from"], row["result_id_to"]) == ("5.1-0047", "6.0-0040")
    assert row["software_from"] == "TensorRT 10.11, CUDA 12.9"
    assert row["software_to"] == "TensorRT 10.14, CUDA 13.1"


def test_software_gain_on_latency_skips_a_round_without_submission(shared_con):
    # Lenovo 2x L4 resnet SingleStream (Latency (ms)): v4.1-0042 "ThinkEdge SE360 V2" 0.386829;
    # v6.0 6.0-0068 "ThinkEdge SE455i V3" 0.400845. Lenovo published no L4 in v5.1, so the previous
    # round is v4.1. Lower is better: gain = 0.386829 / 0.400845 = 0.96503 (slightly slower).
    assert published("v4.1", "v4.1-0042", "resnet", "SingleStream") == 0.386829
    assert published("v6.0", "6.0-0068", "resnet", "SingleStream") == 0.400845
    assert not any(r["Submitter"] == "Lenovo" and re.search(r"\bL4\b", r["Accelerator"]) for r in records("v5.1"))
    row = one(shared_con, "SELECT * FROM software_gains WHERE basis = 'same_scale' AND submitter = 'Lenovo' "
                          "AND accelerator = 'L4' AND benchmark = 'resnet' AND scenario = 'SingleStream'")
    assert (row["round_from"], row["round_to"]) == ("v4.1", "v6.0")
    assert row["gain"] == pytest.approx(0.386829 / 0.400845, rel=1e-9)
    assert (row["result_id_from"], row["result_id_to"]) == ("v4.1-0042", "6.0-0068")


def test_software_gain_per_accelerator_across_a_change_of_scale(shared_con):
    # NVIDIA GB200 llama2-70b-99 Interactive: v5.1 5.1-0070 " (4x GB200-186GB_aarch64, TensorRT)"
    # 29745.6 Tokens/s on 4; v6.0 6.0-0075 "GB200 NVL72 (72x ...)" 754855 Tokens/s on 72.
    # per accelerator: 29745.6 / 4 = 7436.4 -> 754855 / 72 = 10484.10; gain = 1.40984.
    # The scale changed, so there is no same_scale row for it.
    assert published("v5.1", "5.1-0070", "llama2-70b-99", "Interactive") == 29745.6
    assert published("v6.0", "6.0-0075", "llama2-70b-99", "Interactive") == 754855
    row = one(shared_con, "SELECT * FROM software_gains WHERE basis = 'per_accelerator' AND submitter = 'NVIDIA' "
                          "AND accelerator = 'GB200' AND benchmark = 'llama2-70b-99' AND scenario = 'Interactive'")
    assert row["accelerator_count"] is None
    assert (row["accelerator_count_from"], row["accelerator_count_to"]) == (4, 72)
    assert row["result_from"] == pytest.approx(29745.6 / 4, rel=1e-12)
    assert row["result_to"] == pytest.approx(754855 / 72, rel=1e-12)
    assert row["gain"] == pytest.approx((754855 / 72) / (29745.6 / 4), rel=1e-9)
    assert (row["result_id_from"], row["result_id_to"]) == ("5.1-0070", "6.0-0075")
    assert rows(shared_con, "SELECT * FROM software_gains WHERE basis = 'same_scale' AND submitter = 'NVIDIA' "
                            "AND accelerator = 'GB200' AND benchmark = 'llama2-70b-99'") == []


def test_software_gain_uses_the_verified_side_not_a_better_preview(shared_con):
    # AMD MI300X x8 llama2-70b-99 Offline in v4.1: verified v4.1-0002 23514.8 and preview
    # v4.1-0070 24109.8 (better, but not available). v5.1 5.1-0001 27803.9.
    # gain = 27803.9 / 23514.8 = 1.18240 (not 27803.9 / 24109.8 = 1.15322).
    assert published("v5.1", "5.1-0001", "llama2-70b-99", "Offline") == 27803.9
    row = one(shared_con, "SELECT * FROM software_gains WHERE basis = 'same_scale' AND submitter = 'AMD' "
                          "AND accelerator = 'MI300X' AND accelerator_count = 8 AND benchmark = 'llama2-70b-99' "
                          "AND scenario = 'Offline'")
    assert row["result_from"] == 23514.8 and row["result_id_from"] == "v4.1-0002"
    assert row["gain"] == pytest.approx(27803.9 / 23514.8, rel=1e-9)
    assert row["software_from"] == "vLLM 0.4.3+rocm614, PyTorch 2.3.0, ROCm 6.1.2"


def test_software_gains_never_pair_open_or_preview_rows(shared_con):
    # Open division: AMD MI355X x8 llama2-70b-99 Offline 5.1-0098 (open) 93045.8 -> v6.0 6.0-0002
    # (verified) 103480; Krai H200 x8 llama2-70b-99.9 5.1-0380..0383 (open) -> 6.0-0109 (open).
    # Preview: CoreWeave GB300 x8 deepseek-r1 5.1-0097 (preview) 48047 -> 6.0-0017 (verified) 78564.
    assert published("v5.1", "5.1-0098", "llama2-70b-99", "Offline") == 93045.8
    assert published("v5.1", "5.1-0097", "deepseek-r1", "Offline") == 48047
    # (Into v6.1 both pair: AMD's MI355X 6.0-0002 and CoreWeave's v6.0 entries were verified, as their
    # v6.1 entries are; the assertions below hold every side of every pair to verified.)
    assert rows(shared_con, "SELECT * FROM software_gains WHERE round_to = 'v6.0' AND ((submitter = 'AMD' "
                            "AND accelerator = 'MI355X') OR submitter IN ('Krai', 'CoreWeave'))") == []
    unverified = [rid for (rid,) in shared_con.execute(
        "SELECT DISTINCT result_id FROM results WHERE verification <> 'verified'").fetchall()]
    assert "5.1-0097" in unverified and "5.1-0098" in unverified
    assert rows(shared_con, "SELECT * FROM software_gains WHERE list_contains(?, result_id_from) "
                            "OR list_contains(?, result_id_to)", [unverified, unverified]) == []
    sides = shared_con.execute("SELECT DISTINCT verification_from, verification_to FROM software_gains").fetchall()
    assert sides == [("verified", "verified")]


# ---------------------------------------------------------------------------------------------
# software_gain_summary


def test_summary_takes_the_largest_gain_and_names_its_scenario(shared_con):
    # Google B200 x8 deepseek-r1 same_scale v5.1 -> v6.0:
    # Server 41027.9 / 14630.7 = 2.8042 (5.1-0047 -> 6.0-0040); Offline 57116.9 / 31920.3 = 1.7894
    assert published("v5.1", "5.1-0047", "deepseek-r1", "Offline") == 31920.3
    assert published("v6.0", "6.0-0040", "deepseek-r1", "Offline") == 57116.9
    row = one(shared_con, "SELECT * FROM software_gain_summary WHERE submitter = 'Google' AND accelerator = 'B200' "
                          "AND benchmark = 'deepseek-r1' AND basis = 'same_scale'")
    assert row["gain"] == pytest.approx(max(41027.9 / 14630.7, 57116.9 / 31920.3), rel=1e-9)
    assert row["scenario"] == "Server"
    assert (row["round_from"], row["round_to"]) == ("v5.1", "v6.0")
    assert (row["result_id_from"], row["result_id_to"]) == ("5.1-0047", "6.0-0040")
    assert row["comparisons"] == 2


def test_summary_compares_latency_gains_in_the_right_direction(shared_con):
    # Lenovo 2x L4 bert-99 same_scale v4.1 -> v6.0 (v4.1-0042 -> 6.0-0068):
    # Offline (Samples/s): 1521.11 / 1928.07 = 0.78893; SingleStream (ms): 2.138389 / 2.166524 = 0.98701
    # -> the "up to" is SingleStream 0.98701 (a latency gain is old / new).
    assert published("v4.1", "v4.1-0042", "bert-99", "SingleStream") == 2.138389
    assert published("v6.0", "6.0-0068", "bert-99", "SingleStream") == 2.166524
    row = one(shared_con, "SELECT * FROM software_gain_summary WHERE submitter = 'Lenovo' AND accelerator = 'L4' "
                          "AND benchmark = 'bert-99' AND basis = 'same_scale'")
    assert row["gain"] == pytest.approx(max(1521.11 / 1928.07, 2.138389 / 2.166524), rel=1e-9)
    assert row["scenario"] == "SingleStream"
    # GATEOverflow 2x RTX 4090 resnet v5.1 -> v6.0 (5.1-0044 -> 6.0-0035) is the other latency case.
    # MultiStream 0.503471 / 0.399625 = 1.25986 is no gain: an edge system's MultiStream row flagged
    # inferred may be converted from its SingleStream run (no run summary loaded). Its SingleStream row,
    # flagged from the folder's letter case alone, is one: 0.305005 / 0.303116 = 1.00623. Its Offline row,
    # flagged too, is above any conversion of its own runs (docs/definitions.md 1b): 87945.5 / 88476.4
    # (v5.1, not flagged) = 0.99400.
    assert record("v6.0", "6.0-0035", "resnet", "MultiStream")["inferred"] == 1
    found = rows(shared_con, "SELECT basis, scenario, gain FROM software_gains WHERE result_id_to = '6.0-0035' "
                             "OR result_id_from = '6.0-0035' ORDER BY basis, scenario")
    assert [(r["basis"], r["scenario"]) for r in found] == [
        ("hardware_best", "Offline"), ("hardware_best", "SingleStream"), ("per_accelerator", "Offline"),
        ("same_scale", "Offline"), ("same_scale", "SingleStream")]
    latency = [r["gain"] for r in found if r["scenario"] == "SingleStream"]
    throughput = [r["gain"] for r in found if r["scenario"] == "Offline"]
    assert latency == [pytest.approx(0.305005 / 0.303116, rel=1e-9)] * 2
    assert throughput == [pytest.approx(87945.5 / 88476.4, rel=1e-9)] * 3


def test_summary_per_accelerator_may_come_from_another_system_size(shared_con):
    # HPE RTX PRO 6000 Blackwell llama3.1-8b, v5.1 5.1-0051 (x8): Offline 46841.8, Server 46060,
    # Interactive 36052.3 published as "Queries/s": the v5.1 checker reads completed tokens per
    # second for llama3.1-8b Server runs (an Interactive run is one), so it is 36052.3 Tokens/s.
    # v6.0: 6.0-0047 (x8) Offline 49580.2, Server 48794.3, Interactive 44087.3 Tokens/s;
    # 6.0-0052 (x2) Offline 12495.2, Server 11899.7.
    # per_accelerator Offline: best v6.0 per GPU is 12495.2 / 2 = 6247.6 (> 49580.2 / 8 = 6197.5)
    #   gain (12495.2 / 2) / (46841.8 / 8) = 1.06701, from the 2-GPU system 6.0-0052;
    #   Interactive (44087.3 / 8) / (36052.3 / 8) = 1.22287 -> the "up to" is Interactive.
    # same_scale (x8): Offline 1.05846, Server 48794.3 / 46060 = 1.05936, Interactive 1.22287.
    assert record("v5.1", "5.1-0051", "llama3.1-8b", "Interactive")["Performance_Units"] == "Queries/s"
    assert published("v5.1", "5.1-0051", "llama3.1-8b", "Interactive") == 36052.3
    assert published("v6.0", "6.0-0047", "llama3.1-8b", "Interactive") == 44087.3
    # (v6.0 -> v6.1 is another pair of rounds: each pair has its own rows, and v6.0 -> v6.1 is not read here.)
    offline = one(shared_con, "SELECT * FROM software_gains WHERE submitter = 'HPE' AND basis = 'per_accelerator' "
                              "AND accelerator = 'RTX PRO 6000 Blackwell Server Edition' AND benchmark = 'llama3.1-8b' "
                              "AND scenario = 'Offline' AND round_to = 'v6.0'")
    assert offline["gain"] == pytest.approx((12495.2 / 2) / (46841.8 / 8), rel=1e-9)
    assert (offline["accelerator_count_to"], offline["result_id_to"]) == (2, "6.0-0052")
    per = one(shared_con, "SELECT * FROM software_gain_summary WHERE submitter = 'HPE' "
                          "AND accelerator = 'RTX PRO 6000 Blackwell Server Edition' AND benchmark = 'llama3.1-8b' "
                          "AND basis = 'per_accelerator' AND round_to = 'v6.0'")
    assert per["gain"] == pytest.approx((44087.3 / 8) / (36052.3 / 8), rel=1e-9)
    assert (per["scenario"], per["accelerator_count"], per["result_id_to"]) == ("Interactive", 8, "6.0-0047")
    same = one(shared_con, "SELECT * FROM software_gain_summary WHERE submitter = 'HPE' "
                           "AND accelerator = 'RTX PRO 6000 Blackwell Server Edition' AND benchmark = 'llama3.1-8b' "
                           "AND basis = 'same_scale' AND round_to = 'v6.0'")
    assert same["gain"] == pytest.approx(max(49580.2 / 46841.8, 48794.3 / 46060, 44087.3 / 36052.3), rel=1e-9)
    assert (same["scenario"], same["accelerator_count"]) == ("Interactive", 8)


def test_summary_has_nothing_without_a_verified_comparison(shared_con):
    # NVIDIA GB200 llama2-70b-99 ran on 4 in v5.1 and 72 in v6.0: no same_scale summary (only
    # per_accelerator; v6.1 ran no llama2-70b-99); CoreWeave (preview in v5.1) and AMD MI355X (open in
    # v5.1) have none from v5.1 to v6.0 (from v6.0 to v6.1, verified on both sides, they have).
    found = rows(shared_con, "SELECT basis FROM software_gain_summary WHERE submitter = 'NVIDIA' "
                             "AND accelerator = 'GB200' AND benchmark = 'llama2-70b-99'")
    assert found == [{"basis": "per_accelerator"}]
    assert rows(shared_con, "SELECT * FROM software_gain_summary WHERE round_to = 'v6.0' AND (submitter = 'CoreWeave' "
                            "OR (submitter = 'AMD' AND accelerator = 'MI355X'))") == []
