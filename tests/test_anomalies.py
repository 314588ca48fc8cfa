"""anomalies: results that contradict themselves or their neighbours, one row per finding, and what a
finding does to every procurement-grade comparison. Every case is a real row of ../shared/mlcommons;
`published()` / `record()` re-read the values and the arithmetic is written out."""
from __future__ import annotations

import duckdb
import pytest

from tests.shared_rows import one, published, record, rows
from tests.test_claims import DIRECTIONAL, audit, claim, load, warehouse  # noqa: F401 (a fixture)
from tests.readers import connect_file

FINDING = "SELECT * FROM anomalies WHERE result_id = ? AND rule = ? ORDER BY benchmark, scenario"


def test_an_accelerator_count_the_name_contradicts(shared_con):
    # AMD v6.0 6.0-0001 "AMD Instinct MI355X 288GB HBM3e (x87)" on 11 nodes x 8 = 88 (Total Accelerators
    # 88), 6.0-0003 "(x94)" on 12 x 8 = 96: per-GPU figures are off by 1/88 and 2/96 if the name is right.
    assert record("v6.0", "6.0-0001", "llama2-70b-99", "Offline")["Accelerator"].endswith("(x87)")
    assert record("v6.0", "6.0-0001", "llama2-70b-99", "Offline")["Total Accelerators"] == 88
    assert record("v6.0", "6.0-0003", "gpt-oss-120b", "Offline")["Accelerator"].endswith("(x94)")
    found = rows(shared_con, FINDING, ["6.0-0001", "accelerator_count_disagrees"])
    assert len(found) == 6  # llama2-70b-99 and -99.9, Offline, Server, Interactive
    assert found[0]["detail"] == "the accelerator name states 87 accelerators; the entry has 88 (11 nodes x 8)"
    assert one(shared_con, FINDING + " LIMIT 1", ["6.0-0003", "accelerator_count_disagrees"])["detail"] == \
        "the accelerator name states 94 accelerators; the entry has 96 (12 nodes x 8)"
    # Mixed systems whose named counts add up ("(x8) and (x8) and (x8)" on 24) are not findings.
    assert rows(shared_con, FINDING, ["6.0-0031", "accelerator_count_disagrees"]) == []


def test_a_result_with_a_finding_leaves_every_procurement_grade_comparison(shared_con):
    # 6.0-0001 is verified, but no comparison resting on it is procurement grade, and the leaderboard
    # lists it unranked with its finding.
    # AMD MI355X llama2-70b-99 from 8 GPUs (6.0-0002) to the 88 of 6.0-0001: listed, not procurement grade.
    scaling = rows(shared_con, "SELECT * FROM scaling_efficiency WHERE '6.0-0001' IN (result_id_small, result_id_large)")
    assert scaling and {s["procurement_grade"] for s in scaling} == {False}
    board = rows(shared_con, "SELECT * FROM leaderboard WHERE result_id = '6.0-0001'")
    assert board and {(b["rank_system"], b["rank_per_accelerator"]) for b in board} == {(None, None)}
    assert {tuple(b["findings"]) for b in board} == {("accelerator_count_disagrees",)}
    verified = one(shared_con, "SELECT findings FROM verified_results WHERE result_id = '6.0-0001' "
                               "AND benchmark = 'llama2-70b-99' AND scenario = 'Offline'")
    assert verified["findings"] == ["accelerator_count_disagrees"]
    # The rank it would have held goes to the next result: v6.0 llama2-70b-99 Offline datacenter, rank 1
    # is a result without findings.
    first = one(shared_con, "SELECT * FROM leaderboard WHERE round = 'v6.0' AND suite = 'datacenter' "
                            "AND benchmark = 'llama2-70b-99' AND scenario = 'Offline' AND rank_system = 1")
    assert first["findings"] == [] and first["result_id"] != "6.0-0001"


def test_offline_below_its_own_singlestream_rate(shared_con):
    # v4.1 v4.1-0085 Krai (a CPU-only entry) bert-99: Offline 2.68543 samples/s, SingleStream 285.046831 ms
    # a sample -> 1000 / 285.046831 = 3.508195 samples/s: Offline, the throughput ceiling, is 23.5 % below
    # one-at-a-time. Both rows carry the finding, each naming the other.
    assert published("v4.1", "v4.1-0085", "bert-99", "Offline") == 2.68543
    assert published("v4.1", "v4.1-0085", "bert-99", "SingleStream") == 285.046831
    assert 2.68543 < 0.95 * (1000 / 285.046831)
    found = {r["scenario"]: r for r in rows(shared_con, FINDING, ["v4.1-0085", "offline_below_singlestream"])}
    assert set(found) == {"Offline", "SingleStream"}
    assert found["Offline"]["detail"] == ("Offline 2.68543 samples/s is below the 3.508195 samples/s its own "
                                          "SingleStream latency (285.046831 Latency (ms)) implies")
    assert found["Offline"]["related_result_id"] == "v4.1-0085"
    # within 5 %, two runs of one system: Lenovo's v5.1 5.1-0064 (RTX 2000E Ada) stable-diffusion-xl, Offline
    # 0.13291 against 1000 / 7479.348703 = 0.133701 samples/s (0.6 % apart), a finding before the margin
    assert published("v5.1", "5.1-0064", "stable-diffusion-xl", "Offline") == 0.13291
    assert 0.13291 > 0.95 * (1000 / 7479.348703)
    assert rows(shared_con, FINDING, ["5.1-0064", "offline_below_singlestream"]) == []


def test_superlinear_scaling_is_a_finding_of_the_pair(shared_con):
    # v5.1 GATEOverflow GeForce RTX 4090 retinanet Offline: 1 GPU 5.1-0035 76.4481 samples/s, 2 GPUs
    # 5.1-0044 1766.71: (1766.71 / 76.4481) / 2 = 11.555 "efficiency". v6.0 HPE RTX PRO 6000 mixtral-8x7b
    # Server: 4 GPUs 6.0-0053 13846.1, 8 GPUs 6.0-0046 32151: (32151 / 13846.1) / 2 = 1.16101, above 1.05.
    assert published("v5.1", "5.1-0035", "retinanet", "Offline") == 76.4481
    assert published("v5.1", "5.1-0044", "retinanet", "Offline") == 1766.71
    pair = one(shared_con, FINDING, ["5.1-0044", "scaling_superlinear"])
    assert (pair["scope"], pair["related_result_id"]) == ("pair", "5.1-0035")
    assert pair["detail"].startswith("scaling efficiency 11.555 from 1 to 2 accelerators")
    hpe = one(shared_con, "SELECT * FROM scaling_efficiency WHERE result_id_small = '6.0-0053' "
                          "AND result_id_large = '6.0-0046' AND scenario = 'Server'")
    assert hpe["efficiency"] == pytest.approx((32151 / 13846.1) / 2, rel=1e-12)
    assert (hpe["superlinear"], hpe["procurement_grade"]) == (True, False)
    # The rows themselves keep their other comparisons: a pair finding is the pair's.
    assert rows(shared_con, "SELECT * FROM anomalies WHERE result_id = '6.0-0046' AND scope = 'result'") == []
    assert rows(shared_con, "SELECT * FROM scaling_efficiency WHERE superlinear AND procurement_grade") == []


def test_a_value_its_run_summary_contradicts_is_listed(trees_warehouse):
    # With the submission trees loaded: 5.1-0228 and 5.1-0368 GATEOverflow pointpainting SingleStream,
    # 564.018264 ms in the table, 495.947315 ms in the run summary (tests/test_units_checked.py).
    with connect_file(trees_warehouse, read_only=True) as con:
        found = rows(con, "SELECT result_id, detail FROM anomalies WHERE rule = 'unit_suspect' ORDER BY 1")
    assert found == [
        {"result_id": "5.1-0228", "detail": "published as 564.018264 Latency (ms); the run summary prints 495.947315 ms"},
        {"result_id": "5.1-0368", "detail": "published as 564.018264 Latency (ms); the run summary prints 495.947315 ms"}]


def test_a_result_far_outside_its_peers(shared_con):
    # v5.1 5.1-0245 GATEOverflow (open) GeForce RTX 4090 resnet Offline: 2961.06 samples/s per GPU,
    # 0.067x the median of the 3 resnet Offline results on that GPU.
    found = one(shared_con, FINDING, ["5.1-0245", "out_of_range"])
    assert found["detail"].startswith("2961.06 Samples/s per accelerator is 0.067x the median of 3 results")


def test_a_claim_resting_on_a_row_with_a_finding_is_directional(warehouse, tmp_path):
    # AMD's 88-GPU MI355X result, cited as it stands: verified and reproduced exactly, yet its
    # accelerator count contradicts its name.
    load(warehouse, tmp_path, claim("amd-88", vendor="AMD", kind="absolute", submitter="AMD", model="llama2-70b-99",
                                    scenario="Offline", accelerator="MI355X", total_accelerators=88,
                                    multiplier=1042110.0, cited_result_ids=["6.0-0001"]))
    row = audit(warehouse, "amd-88")
    assert row["recomputed"] == 1042110.0
    assert row["findings_used"] == ["accelerator_count_disagrees"]
    assert (row["verdict"], row["procurement_grade"]) == (DIRECTIONAL, False)
    assert row["verdict_reason"] == "a row it rests on breaks an anomaly rule (accelerator_count_disagrees; see anomalies)"


def test_the_run_report_lists_corrected_units_and_anomalies_of_the_loaded_rounds(private_con):
    # What a backfill of v6.0 prints after its table: 37 whisper Offline rows relabelled (Samples/s ->
    # Tokens/s), the 8 findings of AMD's two count mismatches and 23 superlinear pairs (HPE's RTX PRO
    # 4500 and 6000 systems, named by their larger side).
    from warehouse.export.run_report import build
    from warehouse.ingest.pipeline import RoundOutcome
    report = build(private_con, "backfill", None, [RoundOutcome("v6.0", "loaded", source_id="official/v6.0")], None)
    lines = dict(report.sections())[
        "Corrected units and anomalies (out of procurement-grade comparisons)"]
    assert lines == ["v6.0: 8 accelerator_count_disagrees (6.0-0001, 6.0-0003)",
                     "v6.0: 23 scaling_superlinear (6.0-0044, 6.0-0045, 6.0-0046, 6.0-0047, 6.0-0050)",
                     "v6.0: 37 units corrected (whisper Offline (Samples/s -> Tokens/s))"]


@pytest.mark.slow
def test_a_pair_finding_one_sides_own_finding_explains_is_listed_on_that_side(tmp_path):
    # Nebius v6.0 deepseek-r1 Server: 6.0-0082 on 8 GB300 64510 Tokens/s, 6.0-0081 on 72 575580:
    # efficiency (575580 / 64510) / (72 / 8) = 0.99137. Reshaped as a broken small entry (an
    # accelerator name stating "(x4)" on 8, and half the throughput, 32255) the pair reads
    # (575580 / 32255) / 9 = 1.98274, superlinear; the small side's own accelerator_count_disagrees
    # explains it, so the pair's finding is listed on 6.0-0082, not on the sound 72-GPU entry.
    from tests.shared_rows import load_excerpt
    from warehouse.store import db
    from warehouse.views import materialize
    small = record("v6.0", "6.0-0082", "deepseek-r1", "Server")
    large = record("v6.0", "6.0-0081", "deepseek-r1", "Server")
    assert (small["Performance_Result"], large["Performance_Result"]) == (64510, 575580)
    broken = dict(small, Accelerator=small["Accelerator"] + " (x4)", Performance_Result=64510 / 2)
    with db.connect(str(tmp_path / "w.duckdb")) as con:
        load_excerpt(con, "v6.0", [broken, large], tmp_path)
        materialize(con)
        pair = one(con, "SELECT * FROM scaling_efficiency")
        assert pair["efficiency"] == pytest.approx((575580 / 32255) / 9, rel=1e-12)
        assert (pair["superlinear"], pair["has_finding_small"], pair["has_finding_large"]) == (True, True, False)
        found = one(con, "SELECT * FROM anomalies WHERE rule = 'scaling_superlinear'")
        assert (found["result_id"], found["related_result_id"]) == ("6.0-0082", "6.0-0081")
        assert found["detail"].endswith("the smaller system has a finding of its own, which explains it")
        assert [r["rule"] for r in rows(con, "SELECT rule FROM anomalies WHERE result_id = '6.0-0081'")] == []
