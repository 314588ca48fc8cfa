"""One eligibility rule for every answer a buyer ranks (int_result_eligibility, the mart
result_eligibility), and MLCommons' `inferred` flag read as its checker sets it.

The checker (mlcommons/inference tools/submission/submission_checker, docs/definitions.md 1b) flags a
row whenever its folder's scenario differs from the run's effective_scenario as a case-sensitive
string; it converts a result only when they differ ignoring case, on an edge system, to Offline or
MultiStream. Every expected number is re-read from ../shared/mlcommons with `published()` or from the
run summary, with the arithmetic written out.
"""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import connect_file
from tests.shared_rows import load_excerpt, one, published, record, records, rows
from tests.test_claims import audit, claim
from tests.test_claims import load as load_claims_text
from tests.trees_layout import TREES
from warehouse.export.report_answer import answers
from warehouse.identity.rounds import load_registry
from warehouse.trees.run import rebuild_rounds
from warehouse.store import db
from warehouse.views import materialize
from warehouse.views import rebuild as rebuild_views

# ---------------------------------------------------------------------------------------------
# A v6.1-shaped round: the endpoint harness's rows flagged inferred = 1 although measured

VR_OFFLINE, VR_SERVER = 2392.7, 2323.27          # the Vera Rubin NVL72 runs' own qps (tests/fixtures/trees_v6.1)
GB300_X72_OFFLINE, GB300_X72_SERVER = 1304.6, 1210.7  # constructed: VR / GB300 = 1.834 and 1.919, as the review read v6.1
GB300_X4_OFFLINE = 91.68                           # constructed: 1.497 x NVIDIA's v6.0 6.0-0077 (61.2443)


def v61_round() -> list[dict]:
    """v6.1 rows in the final table's shape, every one flagged inferred = 1 as v6.1 publishes the
    endpoint harness's rows (its folders say 'offline' / 'online'): NVIDIA's Vera Rubin NVL72 and GB300
    NVL72 and a GB300 x4 tray on Qwen3-VL, built on NVIDIA's real v6.0 GB300 Qwen3-VL entry (6.0-0077)."""
    offline = record("v6.0", "6.0-0077", "qwen3-vl-235b-a22b", "Offline")
    server = record("v6.0", "6.0-0077", "qwen3-vl-235b-a22b", "Server")

    def row(base: dict, result_id: str, value: float, **changes) -> dict:
        folder = "offline" if base["Scenario"] == "Offline" else "online"
        platform = changes.get("Platform", base["Platform"])
        return {**base, "ID": result_id, "version": "v6.1", "inferred": 1, "Performance_Result": value,
                "Location": f"./closed/NVIDIA/results/{platform}/qwen3-vl-235b-a22b/{folder}/performance/run_1",
                "Unique ID (e.g. for Audit)": f"datacenter/closed/NVIDIA/{platform}",
                "Details": f"https://github.com/mlcommons/submissions_inference_v6.1/tree/main/closed/NVIDIA/results/{platform}",
                **changes}
    rubin = dict(System="NVIDIA Vera Rubin NVL72 (72x VR-288GB_aarch64)", Platform="VR-NVL72_VR-288GB_aarch64x72_TRT",
                 Accelerator="NVIDIA Vera Rubin", Nodes=18, **{"a#": 4, "Total Accelerators": 72},
                 Software="TRTLLM-rubin, vLLM-CentML:mlperf-inf-mm-q3vl-v6.1, Dynamo")
    rack = dict(Platform="GB300-NVL72_GB300-288GB_aarch64x72_TRT", Nodes=18, **{"a#": 4, "Total Accelerators": 72})
    return [row(offline, "6.1-0106", VR_OFFLINE, **rubin), row(server, "6.1-0106", VR_SERVER, **rubin),
            row(offline, "6.1-0074", GB300_X72_OFFLINE, **rack), row(server, "6.1-0074", GB300_X72_SERVER, **rack),
            row(offline, "6.1-0073", GB300_X4_OFFLINE)]


@pytest.fixture
def with_v61(tmp_path):
    con = db.connect(str(tmp_path / "w.duckdb"))
    load_excerpt(con, "v6.0", records("v6.0"), tmp_path)
    load_excerpt(con, "v6.1", v61_round(), tmp_path)
    materialize(con)
    yield con
    con.close()


def test_an_endpoint_harness_row_flagged_inferred_takes_part_in_every_comparison(with_v61, tmp_path):
    con = with_v61
    # the flag as published, and what set it: a datacenter system, where the checker converts nothing
    flagged = rows(con, "SELECT result_id, scenario, inferred, inferred_cause, procurement_grade, excluded_because "
                        "FROM result_eligibility WHERE round = 'v6.1' ORDER BY result_id, scenario")
    assert {(r["scenario"], r["inferred"], r["inferred_cause"]) for r in flagged} == {
        ("Offline", True, "no conversion on a datacenter system"), ("Server", True, "no conversion reaches Server")}
    # verified entries (the v6.0 record they are built on is available, closed): measured, procurement grade
    assert record("v6.0", "6.0-0077", "qwen3-vl-235b-a22b", "Offline")["Availability"] == "available"
    assert all(r["procurement_grade"] for r in flagged), flagged
    # the generation speedup at 72 GPUs: Vera Rubin over GB300, 2392.7 / 1304.6 = 1.8341 and
    # 2323.27 / 1210.7 = 1.9190, procurement grade, both ran TensorRT (TRTLLM named first)
    speedups = {r["scenario"]: r for r in rows(
        con, "SELECT * FROM generation_speedups WHERE round = 'v6.1' AND accelerator_new = 'Vera Rubin'")}
    assert speedups["Offline"]["speedup"] == pytest.approx(VR_OFFLINE / GB300_X72_OFFLINE, rel=1e-12)
    assert speedups["Server"]["speedup"] == pytest.approx(VR_SERVER / GB300_X72_SERVER, rel=1e-12)
    assert {(r["stack_new"], r["stack_base"], r["procurement_grade"]) for r in speedups.values()} == \
        {("TensorRT", "TensorRT", True)}
    # the software gain of the GB300 x4 tray, v6.0 -> v6.1: 91.68 / 61.2443 = 1.4970
    assert published("v6.0", "6.0-0077", "qwen3-vl-235b-a22b", "Offline") == 61.2443
    gain = one(con, "SELECT * FROM software_gains WHERE basis = 'same_scale' AND accelerator = 'GB300' "
                    "AND benchmark = 'qwen3-vl-235b-a22b' AND round_to = 'v6.1'")
    assert gain["gain"] == pytest.approx(GB300_X4_OFFLINE / 61.2443, rel=1e-12)
    assert (gain["result_id_from"], gain["result_id_to"], gain["procurement_grade"]) == ("6.0-0077", "6.1-0073", True)
    # and a claim of it is graded from those rows: 1.5x holds, 2.5x is overstated
    sw = dict(vendor="NVIDIA", kind="software_gain", round="v6.1", round_from="v6.0", submitter="NVIDIA",
              accelerator="GB300", model="qwen3-vl-235b-a22b", scenario="Offline", total_accelerators=4)
    load_claims_text(con, tmp_path, claim("honest", **sw, multiplier=1.5) + claim("inflated", **sw, multiplier=2.5))
    assert (audit(con, "honest")["grade"], audit(con, "inflated")["grade"]) == ("holds", "overstated")
    assert audit(con, "honest")["figure_supported"] == pytest.approx(GB300_X4_OFFLINE / 61.2443, rel=1e-12)


# ---------------------------------------------------------------------------------------------
# Conversion bounds: an edge Offline figure no conversion of its entry's own runs could give is measured


def conversion_bound(singlestream_ms: float, multistream_ms: float) -> float:
    """Twice the larger rate a conversion reports from a run at its published percentile
    (docs/definitions.md 1b): 1000 / SingleStream ms, 8 samples x 1000 / MultiStream ms."""
    return 2 * max(1000 / singlestream_ms, 8000 / multistream_ms)


def test_an_edge_offline_figure_above_any_conversion_of_its_own_runs_is_measured(shared_con):
    # GATEOverflow's 2x GeForce RTX 4090 resnet, v6.0 6.0-0035, every row flagged inferred on an edge system:
    # Offline 87945.5 samples/s beside its own SingleStream 0.303116 ms (1000 / 0.303116 = 3299/s) and
    # MultiStream 0.399625 ms (8000 / 0.399625 = 20019/s): 87945.5 > 2 x 20019 = 40038, measured.
    offline, single, multi = (published("v6.0", "6.0-0035", "resnet", s) for s in ("Offline", "SingleStream", "MultiStream"))
    assert (offline, single, multi) == (87945.5, 0.303116, 0.399625)
    assert record("v6.0", "6.0-0035", "resnet", "Offline")["inferred"] == 1
    assert offline > conversion_bound(single, multi) == pytest.approx(40037.5, abs=0.1)
    row = one(shared_con, "SELECT * FROM stg_results WHERE result_id = '6.0-0035' AND benchmark = 'resnet' "
                          "AND scenario = 'Offline' AND metric = 'performance'")
    assert (row["inferred_cause"], row["inferred_result"], row["not_comparable_because"]) == (
        "above any conversion of its own runs", False, None)
    # Dell's XE7745 L40S x8 yolo-95 Offline 153.544 is 1.094x its SingleStream rate (1000 / 7.124808): a
    # conversion gives as much, so without its tree it stays possibly converted
    dell = [published("v6.0", "6.0-0029", "yolo-95", s) for s in ("Offline", "SingleStream", "MultiStream")]
    assert dell == [153.544, 7.124808, 54.674812] and dell[0] < conversion_bound(dell[1], dell[2])
    assert one(shared_con, "SELECT inferred_cause FROM stg_results WHERE result_id = '6.0-0029' AND benchmark = "
                           "'yolo-95' AND scenario = 'Offline' AND metric = 'performance'")["inferred_cause"] == \
        "possibly converted"


def edge_yolo(offline: float) -> list[dict]:
    """GATEOverflow's real v6.0 yolo-95 entry (6.0-0034: SingleStream, MultiStream and Offline, flagged
    inferred on an edge system) with the newest round's figures: SingleStream p90 76.66 ms, MultiStream
    8 x 76.66 = 613.28 ms, and the given Offline figure."""
    figures = {"SingleStream": 76.66, "MultiStream": 613.28, "Offline": offline}
    return [dict(record("v6.0", "6.0-0034", "yolo-95", scenario), Performance_Result=value, inferred=1)
            for scenario, value in figures.items()]


@pytest.mark.parametrize(("offline", "cause"), [
    (146.2, "above any conversion of its own runs"),   # 146.2 / (1000 / 76.66) = 11.2x a conversion's rate
    (26.2, "above any conversion of its own runs"),    # just above 2 x 13.045 = 26.09
    (26.0, "possibly converted"),                      # just below: a conversion could come near it
    (13.1, "possibly converted")])                     # what a conversion of the SingleStream run gives
@pytest.mark.slow
def test_the_conversion_bound_on_the_newest_rounds_yolo_row(tmp_path, offline, cause):
    assert conversion_bound(76.66, 613.28) == pytest.approx(26.09, abs=0.005)
    con = db.connect(str(tmp_path / "w.duckdb"))
    load_excerpt(con, "v6.0", edge_yolo(offline), tmp_path)
    materialize(con)
    row = one(con, "SELECT inferred_cause, inferred_result FROM stg_results WHERE scenario = 'Offline' "
                   "AND metric = 'performance'")
    con.close()
    assert (row["inferred_cause"], row["inferred_result"]) == (cause, cause == "possibly converted")


def test_a_singlestream_run_reported_as_offline_is_an_inference(trees_warehouse):
    # Lenovo SE100 resnet50 v6.0 6.0-0067: its Offline folder holds a SingleStream run (LoadGen's summary:
    # "Scenario : SingleStream"), which the checker converted: an inference, in no comparison.
    summary = TREES / "inference_results_v6.0/closed/Lenovo/results/SE100/resnet50/offline/performance/run_1"
    assert "Scenario : SingleStream" in (summary / "mlperf_log_summary.txt").read_text()
    con = connect_file(trees_warehouse, read_only=True)
    row = one(con, "SELECT * FROM result_eligibility WHERE result_id = '6.0-0067' AND benchmark = 'resnet' "
                   "AND scenario = 'Offline'")
    assert (row["inferred_cause"], row["comparable"], row["procurement_grade"]) == (
        "converted from SingleStream", False, False)
    assert row["excluded_because"] == ("MLCommons inferred it from another scenario's run (inferred = 1; the run "
                                       "summary in its folder is a SingleStream run)")
    assert rows(con, "SELECT * FROM int_best_results WHERE result_id = '6.0-0067' AND scenario = 'Offline'") == []
    # the same round's Dell XE7745 L40S x8 yolo-99 Offline folder holds an Offline run: flagged for the
    # folder's letter case alone, it compares
    dell = one(con, "SELECT * FROM result_eligibility WHERE result_id = '6.0-0029' AND benchmark = 'yolo-99' "
                    "AND scenario = 'Offline'")
    assert (dell["inferred"], dell["inferred_cause"], dell["comparable"]) == (
        True, "same scenario, other letter case", True)
    con.close()


# ---------------------------------------------------------------------------------------------
# One rule: no result is ranked in one answer and excluded in another


def grade_of(con) -> dict[tuple, bool]:
    return {(r["round"], r["result_id"], r["benchmark"], r["scenario"]): r["procurement_grade"]
            for r in rows(con, "SELECT round, result_id, benchmark, scenario, procurement_grade FROM result_eligibility "
                               "WHERE result_id IS NOT NULL")}


def sides(con, sql: str) -> set[tuple]:
    return {tuple(r.values()) for r in rows(con, sql)}


RANKED = {
    "leaderboard": "SELECT round, result_id, benchmark, scenario FROM leaderboard "
                   "WHERE rank_system IS NOT NULL OR rank_per_accelerator IS NOT NULL",
    "rack_throughput": "SELECT round, result_id, benchmark, scenario FROM rack_throughput WHERE rank_per_rack IS NOT NULL",
    "accelerator_comparison": """
        SELECT round, result_id_per_accelerator, benchmark, scenario FROM accelerator_comparison
        UNION SELECT round, result_id_per_rack, benchmark, scenario FROM accelerator_comparison
              WHERE result_id_per_rack IS NOT NULL
        UNION SELECT round, result_id_same_scale, benchmark, scenario FROM accelerator_comparison
              WHERE result_id_same_scale IS NOT NULL""",
    "token_economics": "SELECT round, result_id, benchmark, scenario FROM token_economics WHERE procurement_grade",
    "software_gains": """
        SELECT round_from, result_id_from, benchmark, scenario FROM software_gains WHERE procurement_grade
        UNION SELECT round_to, result_id_to, benchmark, scenario FROM software_gains WHERE procurement_grade""",
    "generation_speedups": """
        SELECT round, result_id_new, benchmark, scenario FROM generation_speedups WHERE procurement_grade
        UNION SELECT round, result_id_base, benchmark, scenario FROM generation_speedups WHERE procurement_grade""",
    "scaling_efficiency": """
        SELECT round, result_id_small, benchmark, scenario FROM scaling_efficiency WHERE procurement_grade
        UNION SELECT round, result_id_large, benchmark, scenario FROM scaling_efficiency WHERE procurement_grade""",
    # the later figure of each procurement-grade gain (the earlier one is its previous row's figure)
    "accelerator_history": "SELECT round, result_id, benchmark, scenario FROM accelerator_history WHERE procurement_grade",
    # the field's record per joule, and each round's best (both procurement grade by construction)
    "efficiency_records": """
        SELECT round, round_best_result_id, benchmark, scenario FROM efficiency_records
        UNION SELECT record_round, record_result_id, benchmark, scenario FROM efficiency_records""",
}


def report_figures(con, round_name: str) -> set[tuple]:
    found = set()
    for answer in answers(con, round_name, {}):
        for ranked in (answer.per_accelerator, answer.rack_measured, answer.rack_estimated, answer.per_kw):
            for figure in (ranked.best, ranked.runner_up):
                if figure is not None:
                    found.add((round_name, figure.result_id, answer.benchmark, answer.scenario))
    return found


def test_no_result_is_ranked_in_one_answer_and_excluded_in_another(shared_con):
    grade = grade_of(shared_con)
    for mart, sql in RANKED.items():
        used = sides(shared_con, sql)
        assert used, mart
        outside = sorted(k for k in used if not grade.get(k, False))
        assert outside == [], f"{mart} ranks results the eligibility rule excludes: {outside[:5]}"
    for round_name in ("v4.1", "v5.1", "v6.0"):
        outside = sorted(k for k in report_figures(shared_con, round_name) if not grade.get(k, False))
        assert outside == [], f"the report's answer for {round_name} names excluded results: {outside[:5]}"
    # and the other way: every procurement-grade verified row is ranked on the leaderboard
    unranked = rows(shared_con, "SELECT e.result_id FROM result_eligibility AS e JOIN leaderboard AS l "
                                "USING (round, result_id, benchmark, scenario) "
                                "WHERE e.procurement_grade AND l.rank_system IS NULL")
    assert unranked == []


def test_a_superlinear_row_is_questioned_and_stays_in_every_answer(shared_con):
    # HPE's RTX PRO 6000 Blackwell Server Edition llama3.1-8b Offline, v6.0: the 4-GPU 6.0-0054 (23556.7
    # tokens/s) to the 8-GPU 6.0-0047 (49580.2) scales (49580.2 / 23556.7) / (8 / 4) = 1.0524, above 1.05.
    # The pair says one of two systems is odd, not which, and no evidence of 6.0-0047's own contradicts it:
    # it is questioned (questioned_because), the pair is graded down, and the row stays procurement grade,
    # ranked in every answer (before, the pair blamed it out of all of them).
    small, large = (published("v6.0", i, "llama3.1-8b", "Offline") for i in ("6.0-0054", "6.0-0047"))
    assert (large / small) / (8 / 4) == pytest.approx(1.0524, abs=5e-5)
    questioned = one(shared_con, "SELECT * FROM result_eligibility WHERE result_id = '6.0-0047' "
                                 "AND benchmark = 'llama3.1-8b' AND scenario = 'Offline'")
    assert questioned["findings"] == ["scaling_superlinear"] and questioned["disqualifying_findings"] == []
    assert questioned["pair_findings"] == ["scaling_superlinear (with 6.0-0054)"]
    assert (questioned["procurement_grade"], questioned["excluded_because"], questioned["questioned_because"]) == (
        True, None, "questioned by other results: scaling_superlinear (with 6.0-0054)")
    key = ("v6.0", "6.0-0047", "llama3.1-8b", "Offline")
    assert key in sides(shared_con, RANKED["leaderboard"])
    pair = one(shared_con, "SELECT superlinear, procurement_grade FROM scaling_efficiency WHERE result_id_large = '6.0-0047' "
                           "AND result_id_small = '6.0-0054' AND benchmark = 'llama3.1-8b' AND scenario = 'Offline'")
    assert pair == {"superlinear": True, "procurement_grade": False}
    assert one(shared_con, "SELECT findings FROM token_economics WHERE result_id = '6.0-0047' "
                           "AND benchmark = 'llama3.1-8b' AND scenario = 'Offline'")["findings"] == ["scaling_superlinear"]


def test_exclusion_reasons_are_a_mart(shared_con):
    # every row outside procurement grade says why, every row inside says nothing
    assert rows(shared_con, "SELECT * FROM result_eligibility WHERE procurement_grade = (excluded_because IS NOT NULL)") == []
    reasons = {r["reason"] for r in rows(shared_con, "SELECT DISTINCT split_part(excluded_because, ' (', 1) AS reason "
                                                     "FROM result_eligibility WHERE round = 'v6.0'")}
    # a finding its own evidence shows excludes (AMD's 6.0-0001 names 87 MI355X, its entry counts 88); a
    # pair's questions the row and excludes nothing
    assert {"open division", "preview", "anomaly finding: accelerator_count_disagrees"} <= reasons
    assert not [r for r in reasons if r and "scaling_superlinear" in r]


# ---------------------------------------------------------------------------------------------
# Rows rebuilt from a submission tree (no result_id) are graded and blamed by their row key


@pytest.fixture(scope="module")
def old_trees(tmp_path_factory) -> str:
    """v0.5 and v0.7, the rounds MLCommons published no table of, rebuilt from ../shared/mlcommons/trees."""
    path = str(tmp_path_factory.mktemp("old_trees") / "w.duckdb")
    registry = load_registry()
    done = rebuild_rounds([registry[r] for r in ("v0.5", "v0.7")], str(TREES), path)
    assert [r.missing for r in done] == [None, None]
    rebuild_views(path, "test")
    return path


def test_a_software_gain_between_two_tree_rows_is_procurement_grade(old_trees):
    # NVIDIA's T4 x8 resnet Server: v0.5 closed/NVIDIA/results/T4x8/resnet/Server ("Scheduled samples per
    # second : 41546.64") to v0.7 closed/NVIDIA/results/T4x8_TRT/resnet50/Server ("... : 44504.81"):
    # 44504.81 / 41546.64 = 1.07120. T4 x20 resnet Offline: v0.5 T4x20 ("Samples per second: 113592") to
    # v0.7 T4x20_TRT ("Samples per second: 121564"): 121564 / 113592 = 1.07018. Both sides verified, no
    # finding: procurement grade, though neither side has a result_id to be graded by.
    runs = {"v0.5": ("T4x8/resnet/Server", "T4x20/resnet/Offline"),
            "v0.7": ("T4x8_TRT/resnet50/Server", "T4x20_TRT/resnet50/Offline")}
    paths = [f"closed/NVIDIA/results/{run}/performance/run_1" for found in runs.values() for run in found]
    for name, found in runs.items():
        for run in found:
            assert (TREES / f"inference_results_{name}/closed/NVIDIA/results/{run}/performance/run_1"
                    / "mlperf_log_summary.txt").is_file()
    con = connect_file(old_trees, read_only=True)
    gains = {(r["accelerator_count"], r["scenario"]): r for r in rows(
        con, "SELECT * FROM software_gains WHERE basis = 'same_scale' AND submitter = 'NVIDIA' AND accelerator = 'T4' "
             "AND benchmark = 'resnet' AND round_from = 'v0.5' AND round_to = 'v0.7'")}
    server, offline = gains[(8, "Server")], gains[(20, "Offline")]
    assert (server["result_from"], server["result_to"]) == (41546.64, 44504.81)
    assert server["gain"] == pytest.approx(44504.81 / 41546.64) == pytest.approx(1.07120, abs=5e-6)
    assert (offline["result_from"], offline["result_to"]) == (113592.0, 121564.0)
    assert offline["gain"] == pytest.approx(121564 / 113592) == pytest.approx(1.07018, abs=5e-6)
    for gain in (server, offline):
        assert (gain["result_id_from"], gain["result_id_to"]) == (None, None)
        assert (gain["verification_from"], gain["verification_to"]) == ("verified", "verified")
        assert gain["procurement_grade"], gain
    # and the four sides, each found by its run folder, are procurement grade rows of the one rule
    sides = rows(con, "SELECT r.run_path, r.result_id, e.procurement_grade, e.findings FROM int_result_eligibility AS e "
                      "JOIN stg_results AS r USING (source_id, record_no) WHERE r.run_path IN (SELECT unnest(?))",
                 [paths])
    assert sorted(r["run_path"] for r in sides) == sorted(paths)
    assert all(r["result_id"] is None and r["procurement_grade"] and r["findings"] == [] for r in sides), sides
    # every same-scale gain of v0.5 to v0.7 is between two verified rows without a finding: each is
    # procurement grade (none was, while a side was graded by its result_id): T4's 12 and Jetson AGX
    # Xavier's 9 (NVIDIA's v0.5 "NVIDIA Xavier" -> v0.7 "NVIDIA AGX Xavier", unnamed until every part was)
    counts = one(con, "SELECT count(*) AS gains, count(*) FILTER (WHERE procurement_grade) AS graded, "
                      "count(*) FILTER (WHERE has_finding_from OR has_finding_to) AS with_finding "
                      "FROM software_gains WHERE basis = 'same_scale' AND round_from = 'v0.5' AND round_to = 'v0.7'")
    assert counts == {"gains": 21, "graded": 21, "with_finding": 0}
    con.close()


def test_a_tree_row_a_pair_finding_names_is_questioned_and_keeps_its_answers(old_trees):
    # DellEMC's T4 resnet Server, v0.7 (no result_id): DSS8440_T4x12_TRT 62311.87 queries/s to
    # DSS8440_T4x16_TRT 90615.61 scales (90615.61 / 62311.87) / (16 / 12) = 1.0907, above 1.05: the pair
    # names the larger system by its row, which is questioned and keeps every answer; the pair is not
    # procurement grade.
    assert (90615.61 / 62311.87) / (16 / 12) == pytest.approx(1.0907, abs=5e-5)
    con = connect_file(old_trees, read_only=True)
    large = one(con, "SELECT * FROM result_eligibility WHERE round = 'v0.7' AND system = 'Dell EMC DSS 8440 (16x T4)' "
                     "AND benchmark = 'resnet' AND scenario = 'Server'")
    assert large["result_id"] is None and large["verification"] == "verified"
    assert large["findings"] == ["scaling_superlinear"]
    assert large["pair_findings"] == ["scaling_superlinear (with DellEMC DSS8440_T4x12_TRT)"]
    assert (large["procurement_grade"], large["excluded_because"], large["questioned_because"]) == (
        True, None, "questioned by other results: scaling_superlinear (with DellEMC DSS8440_T4x12_TRT)")
    small = one(con, "SELECT * FROM result_eligibility WHERE round = 'v0.7' AND system = 'Dell EMC DSS 8440 (12x T4)' "
                     "AND benchmark = 'resnet' AND scenario = 'Server'")
    assert (small["findings"], small["procurement_grade"]) == ([], True)
    # 4 -> 16 scales (90615.61 / 21805.14) / (16 / 4) = 1.0389 and 4 -> 8 (R740_T4x4_TRT 21805.14 to
    # R7525_T4x8_TRT 44807.19) (44807.19 / 21805.14) / (8 / 4) = 1.0274: both procurement grade; 12 -> 16 not
    pairs = {(r["accelerator_count_small"], r["accelerator_count_large"]): r for r in rows(
        con, "SELECT * FROM scaling_efficiency WHERE round = 'v0.7' AND submitter = 'DellEMC' AND accelerator = 'T4' "
             "AND benchmark = 'resnet' AND scenario = 'Server'")}
    assert pairs[(4, 16)]["efficiency"] == pytest.approx((90615.61 / 21805.14) / (16 / 4))
    assert not pairs[(4, 16)]["superlinear"] and pairs[(4, 16)]["procurement_grade"]
    assert pairs[(12, 16)]["superlinear"] and not pairs[(12, 16)]["procurement_grade"]
    assert pairs[(4, 8)]["efficiency"] == pytest.approx((44807.19 / 21805.14) / (8 / 4))
    assert pairs[(4, 8)]["procurement_grade"]
    # ranked on the leaderboard, with the finding beside it
    board = one(con, "SELECT rank_system, findings FROM leaderboard WHERE round = 'v0.7' "
                     "AND system = 'Dell EMC DSS 8440 (16x T4)' AND benchmark = 'resnet' AND scenario = 'Server'")
    assert board["rank_system"] is not None and board["findings"] == ["scaling_superlinear"]
    con.close()


RANKED_SIDES = {
    "leaderboard": """
        SELECT round, submitter, accelerator, accelerator_count, benchmark, scenario, result_unit AS units,
               result AS value, false AS per_accelerator, system FROM leaderboard
        WHERE rank_system IS NOT NULL OR rank_per_accelerator IS NOT NULL""",
    "rack_throughput": """
        SELECT round, submitter, accelerator, accelerator_count, benchmark, scenario, throughput_unit,
               NULL::DOUBLE, false, system FROM rack_throughput WHERE rank_per_rack IS NOT NULL""",
    "accelerator_comparison": """
        SELECT round, submitter_per_accelerator, accelerator, accelerator_count_per_accelerator, benchmark,
               scenario, throughput_unit, throughput_per_accelerator, true, NULL FROM accelerator_comparison
        UNION ALL
        SELECT round, NULL, accelerator, same_scale_count, benchmark, scenario, throughput_unit,
               throughput_same_scale, false, NULL FROM accelerator_comparison WHERE throughput_same_scale IS NOT NULL""",
    "token_economics": """
        SELECT round, submitter, accelerator, accelerator_count, benchmark, scenario, throughput_unit, throughput,
               false, system FROM token_economics WHERE procurement_grade""",
    "software_gains": """
        SELECT round_from, submitter_from, accelerator, accelerator_count_from, benchmark, scenario, result_unit,
               result_from, basis = 'per_accelerator', NULL FROM software_gains WHERE procurement_grade
        UNION ALL
        SELECT round_to, submitter, accelerator, accelerator_count_to, benchmark, scenario, result_unit,
               result_to, basis = 'per_accelerator', NULL FROM software_gains WHERE procurement_grade""",
    "generation_speedups": """
        SELECT round, submitter_new, accelerator_new, accelerator_count, benchmark, scenario, result_unit,
               result_new, false, NULL FROM generation_speedups WHERE procurement_grade AND accelerator_new IS NOT NULL
        UNION ALL
        SELECT round, submitter_base, accelerator_base, accelerator_count, benchmark, scenario, result_unit,
               result_base, false, NULL FROM generation_speedups WHERE procurement_grade AND accelerator_base IS NOT NULL""",
    "scaling_efficiency": """
        SELECT round, submitter, accelerator, accelerator_count_small, benchmark, scenario, throughput_unit,
               throughput_small, false, NULL FROM scaling_efficiency WHERE procurement_grade
        UNION ALL
        SELECT round, submitter, accelerator, accelerator_count_large, benchmark, scenario, throughput_unit,
               throughput_large, false, NULL FROM scaling_efficiency WHERE procurement_grade""",
    "accelerator_history": """
        SELECT round, submitter, accelerator, accelerator_count, benchmark, scenario, result_unit, result, false, NULL
        FROM accelerator_history WHERE procurement_grade
        UNION ALL
        SELECT round_previous, NULL, accelerator, accelerator_count, benchmark, scenario, result_unit,
               result_previous, false, NULL FROM accelerator_history WHERE procurement_grade""",
}


def key_of(con, sides_sql: str) -> list[dict]:
    """Each side with the stg_results rows its columns match (keys: [(source_id, record_no)]) and how
    many of them are procurement grade by the one rule (graded)."""
    return rows(con, f"""
        WITH sides (round, submitter, accelerator, accelerator_count, benchmark, scenario, units, value,
                    per_accelerator, system) AS ({sides_sql}),
        numbered AS (SELECT row_number() OVER () AS side, * FROM sides)
        SELECT s.side, any_value(s.round) AS round, any_value(s.submitter) AS submitter,
               any_value(s.accelerator) AS accelerator, any_value(s.accelerator_count) AS accelerator_count,
               any_value(s.benchmark) AS benchmark, any_value(s.scenario) AS scenario, any_value(s.value) AS value,
               list((r.source_id, r.record_no)) FILTER (WHERE r.record_no IS NOT NULL) AS keys,
               count(*) FILTER (WHERE e.procurement_grade) AS graded
        FROM numbered AS s
        LEFT JOIN stg_results AS r
          ON  r.metric = 'performance' AND r.round = s.round AND r.benchmark = s.benchmark
          AND r.scenario = s.scenario AND r.units = s.units AND r.accelerator IS NOT DISTINCT FROM s.accelerator
          AND (s.submitter IS NULL OR r.submitter = s.submitter) AND (s.system IS NULL OR r.system = s.system)
          AND (s.accelerator_count IS NULL OR r.total_accelerators = s.accelerator_count)
          AND (s.value IS NULL OR abs(CASE WHEN s.per_accelerator THEN r.value / r.total_accelerators
                                           ELSE r.value END - s.value) <= 1e-9 * abs(s.value))
        LEFT JOIN int_result_eligibility AS e ON e.source_id = r.source_id AND e.record_no = r.record_no
        GROUP BY s.side""")


def test_no_tree_row_is_ranked_in_one_answer_and_excluded_in_another(old_trees):
    # v0.5 and v0.7 rows have no result_id: the check by result_id above cannot see them. Every side a
    # mart ranks or calls procurement grade is found by its shown columns in stg_results; it must be
    # one row (else the columns do not name it), and that row procurement grade by int_result_eligibility.
    con = connect_file(old_trees, read_only=True)
    assert one(con, "SELECT count(*) AS n FROM stg_results WHERE result_id IS NOT NULL") == {"n": 0}
    checked, ambiguous = {}, {}
    for mart, sql in RANKED_SIDES.items():
        found = key_of(con, sql)
        checked[mart] = len(found)
        unmatched = [f for f in found if not f["keys"]]
        assert unmatched == [], f"{mart}: sides no stg_results row matches: {unmatched[:3]}"
        # a side its columns match to several rows (two systems with one figure: NVIDIA's v0.7 A100 PCIe
        # x1 resnet MultiStream, 1344 samples per query on two platforms) passes when every one is
        # procurement grade: whichever it is, it is eligible
        outside = [f for f in found if f["graded"] < len(f["keys"])]
        assert outside == [], f"{mart} ranks tree rows the eligibility rule excludes: {outside[:3]}"
        ambiguous[mart] = sum(len(f["keys"]) > 1 for f in found)
    # what the check covered on the tree warehouse: sides per mart (nothing is ranked per rack, no
    # generation speedup is procurement grade there: no rack capacity, no product line of these parts)
    assert {m: n > 0 for m, n in checked.items()} == {
        "leaderboard": True, "rack_throughput": False, "accelerator_comparison": True, "token_economics": True,
        "software_gains": True, "generation_speedups": False, "scaling_efficiency": True,
        "accelerator_history": True}
    # sides matched to more than one row, each of them procurement grade: system names every side of the
    # leaderboard and token_economics; accelerator_comparison and scaling_efficiency show no system. (14
    # before the Quadro RTX parts were named: v0.7 dlrm Server's same-scale count moved from 8 to 4, where
    # two T4 x4 systems share 126513.98 queries/s, for dlrm-99 and dlrm-99.9; A100 SXM x8 bert-99 Server's
    # shared 24757.49 left the same-scale side; 17 since a pair's finding no longer takes a row out: two
    # more same-scale sides are rows a pair questions)
    assert ambiguous == {"leaderboard": 0, "rack_throughput": 0, "accelerator_comparison": 17,
                         "token_economics": 0, "software_gains": 0, "generation_speedups": 0,
                         "scaling_efficiency": 10, "accelerator_history": 0}, sorted(ambiguous.items())
    # the report's answer for each tree round: its per-accelerator figures (a figure per rack or per kW is
    # derived, not a published figure its columns can find)
    for round_name in ("v0.5", "v0.7"):
        figures = [(round_name, f.submitter, f.accelerator, f.accelerator_count, a.benchmark, a.scenario, a.unit,
                    f.value)
                   for a in answers(con, round_name, {})
                   for f in (a.per_accelerator.best, a.per_accelerator.runner_up) if f is not None]
        assert figures, round_name
        values = ", ".join("(" + ", ".join("NULL" if v is None else repr(v) for v in f) + ", true, NULL)"
                           for f in figures)
        found = key_of(con, f"SELECT * FROM (VALUES {values})")
        assert [f for f in found if not f["keys"] or f["graded"] < len(f["keys"])] == [], round_name
    # and the other way: every procurement-grade tree row is ranked on the leaderboard, found by its key
    unranked = rows(con, """
        SELECT e.source_id, e.record_no FROM int_result_eligibility AS e
        JOIN int_leaderboard_ranks AS l USING (source_id, record_no)
        WHERE e.procurement_grade AND l.rank_system IS NULL""")
    assert unranked == []
    con.close()


def test_anomalies_name_the_other_side_of_a_tree_rows_finding(old_trees, shared_con):
    # A tree row has no result_id, so related_result_id is null; related names the other side by its
    # submitter and platform. The pair: DellEMC's v0.7 T4 resnet Server, DSS8440_T4x12_TRT 62311.87 to
    # DSS8440_T4x16_TRT 90615.61, (90615.61 / 62311.87) / (16 / 12) = 1.0907.
    con = connect_file(old_trees, read_only=True)
    pair = one(con, "SELECT * FROM anomalies WHERE round = 'v0.7' AND rule = 'scaling_superlinear' "
                    "AND submitter = 'DellEMC' AND accelerator = 'T4' AND benchmark = 'resnet' AND scenario = 'Server'")
    assert (pair["result_id"], pair["related_result_id"], pair["related"]) == (None, None, "DellEMC DSS8440_T4x12_TRT")
    assert pair["detail"].startswith("scaling efficiency 1.0907 from 12 to 16 accelerators")
    # NVIDIA's v0.7 Xavier NX 3d-unet-99: Offline "Samples per second: 1.29299" against the 1000 / 771.461139 =
    # 1.296242 samples/s its own SingleStream "90th percentile latency (ns) : 771461139" implies, 0.25 % apart:
    # two runs of one system, within the 5 % a finding needs (before the margin, a finding on both rows)
    run = TREES / "inference_results_v0.7/closed/NVIDIA/results/Xavier_NX_TRT/3d-unet-99"
    assert "Samples per second: 1.29299" in (run / "Offline/performance/run_1/mlperf_log_summary.txt").read_text()
    assert "90th percentile latency (ns) : 771461139" in (
        run / "SingleStream/performance/run_1/mlperf_log_summary.txt").read_text()
    assert 1 - 1.29299 / (1000 / 771.461139) == pytest.approx(0.0025, abs=5e-5)
    assert rows(con, "SELECT * FROM anomalies WHERE rule = 'offline_below_singlestream'") == []
    # every finding on the tree warehouse that rests on another row names it: the 14 superlinear pairs;
    # the 3 out_of_range findings rest on a median, not a row (Habana's v0.5 Goya resnet MultiStream and
    # Mobilint's two v0.7 Alveo U250 resnet Offline rows)
    assert one(con, "SELECT count(*) AS findings, count(related) AS named FROM anomalies") == {"findings": 17, "named": 14}
    assert rows(con, "SELECT rule FROM anomalies WHERE related IS NULL") == [{"rule": "out_of_range"}] * 3
    con.close()
    # on the published tables related is the result ID itself
    assert rows(shared_con, "SELECT * FROM anomalies WHERE related IS DISTINCT FROM related_result_id") == []
    assert one(shared_con, "SELECT related FROM anomalies WHERE result_id = '6.0-0047' AND benchmark = 'llama3.1-8b' "
                           "AND scenario = 'Offline' AND rule = 'scaling_superlinear'") == {"related": "6.0-0054"}


def test_a_claim_resting_on_a_questioned_tree_row_is_graded_by_its_rows_keys(old_trees, tmp_path):
    # DellEMC's v0.7 T4 resnet Server scaling, 12 -> 16 GPUs: the claim's rows are DSS8440_T4x16_TRT
    # 90615.61 (DellEMC's best at 16) over the best verified T4 x12, DSS8440_T4x12_TRT 62311.87:
    # (90615.61 / 62311.87) / (16 / 12) = 1.0907, within 5% of a claimed 1.09 (the grade holds). Both rows
    # are tree rows (no result_id), each graded by its key; the 16-GPU one is questioned by the pair
    # (scaling_superlinear), which disqualifies neither row: the verdict rests on their own evidence,
    # comparable across submitters (a pair's finding made it directional only before). NVIDIA's T4 x8 resnet Server software gain, v0.5 41546.64 ->
    # v0.7 44504.81 = 1.07120, rests on two tree rows without a finding: comparable across submitters.
    shutil.copy(old_trees, tmp_path / "w.duckdb")
    con = db.connect(str(tmp_path / "w.duckdb"))
    load_claims_text(con, tmp_path, claim(
        "dell-t4-scaling", vendor="DellEMC", kind="scaling_efficiency", round="v0.7", submitter="DellEMC",
        accelerator="T4", model="resnet", scenario="Server", accelerator_count=16, baseline_accelerator_count=12,
        multiplier=1.09) + claim(
        "nvidia-t4-software", vendor="NVIDIA", kind="software_gain", round="v0.7", round_from="v0.5",
        submitter="NVIDIA", accelerator="T4", model="resnet", scenario="Server", accelerator_count=8, multiplier=1.07))
    scaling = audit(con, "dell-t4-scaling")
    assert scaling["recomputed"] == pytest.approx((90615.61 / 62311.87) / (16 / 12)) == pytest.approx(1.0907, abs=5e-5)
    assert scaling["grade"] == "holds"
    assert [(r["role"], r["result_id"], r["label"], r["result"]) for r in scaling["rows_used"]] == [
        ("new", None, "DellEMC DSS8440_T4x16_TRT", 90615.61), ("base", None, "DellEMC DSS8440_T4x12_TRT", 62311.87)]
    assert scaling["findings_used"] == []
    assert (scaling["verdict"], scaling["procurement_grade"]) == ("comparable across submitters", True)
    # each row used is the row of the one eligibility rule with its key
    for used in scaling["rows_used"]:
        graded = one(con, "SELECT findings, procurement_grade FROM int_result_eligibility "
                          "WHERE source_id = ? AND record_no = ?", [used["source_id"], used["record_no"]])
        assert graded["procurement_grade"], (used, graded)
        assert graded["findings"] == ([] if used["accelerator_count"] == 12 else ["scaling_superlinear"])
    software = audit(con, "nvidia-t4-software")
    assert software["recomputed"] == pytest.approx(44504.81 / 41546.64) == pytest.approx(1.07120, abs=5e-6)
    assert [(r["label"], r["result"]) for r in software["rows_used"]] == [
        ("NVIDIA T4x8_TRT", 44504.81), ("NVIDIA T4x8", 41546.64)]
    assert (software["findings_used"], software["verdict"]) == ([], "comparable across submitters")
    con.close()


# ---------------------------------------------------------------------------------------------
# A stated stage the cited rows contradict


def test_a_claim_stated_verified_that_cites_a_preview_entry_is_mislabelled(private_con, tmp_path):
    # v4.1 llama2-70b-99 Offline: NVIDIA's B200 v4.1-0074 is preview
    assert record("v4.1", "v4.1-0074", "llama2-70b-99", "Offline")["Availability"] == "preview"
    load_claims_text(private_con, tmp_path, claim(
        "b200-abs", vendor="NVIDIA", kind="absolute", round="v4.1", accelerator="B200", model="llama2-70b-99",
        scenario="Offline", multiplier=None, stage="mlcommons_verified", cited_result_ids=["v4.1-0074"]))
    row = audit(private_con, "b200-abs")
    assert row["stage_contradiction"] == "stated mlcommons_verified, but it cites v4.1-0074 (preview)"


# ---------------------------------------------------------------------------------------------
# The newest round's vocabulary


def test_v61_columns_benchmarks_and_accelerators_are_known(tmp_path):
    # A v6.1 row as the v6.1 table prints it (the columns results.py's ResultExporter adds from v6.1 on:
    # lower-case total_accelerators, PrivateID, design_power_watts), the agentic edge model qwen3.6-27b
    # (SingleStream, Latency (ms)) on Atlas Inference's Strix Halo ("AMD Radeon 8060S Graphics"), and an
    # AMD Instinct MI350P x8 entry: no drift, every name resolved, the accelerator total read.
    base = record("v6.0", "6.0-0028", "yolo-95", "SingleStream")
    agentic = {k: v for k, v in base.items() if k != "Total Accelerators"} | {
        "ID": "6.1-0021", "version": "v6.1", "Submitter": "Atlas_Inference", "Model": "qwen3.6-27b",
        "UsedModel": "qwen3.6-27b", "Accelerator": "AMD Radeon 8060S Graphics", "Platform": "Strix_Halo",
        "System": "Strix Halo", "Notes": "128 GB unified LPDDR5X", "Unique ID (e.g. for Audit)": "edge/closed/Atlas/Strix",
        "total_accelerators": 1, "PrivateID": None, "design_power_watts": None, "inferred": 1}
    mi350p = dict(agentic, ID="6.1-0151", Submitter="Dell_AMD", Accelerator="AMD Instinct MI350P", **{"a#": 8},
                  total_accelerators=8, Platform="Dell_MI350P", System="Dell MI350P x8",
                  **{"Unique ID (e.g. for Audit)": "edge/closed/Dell/MI350P"})
    con = db.connect(str(tmp_path / "w.duckdb"))
    load_excerpt(con, "v6.1", [agentic, mi350p], tmp_path)
    materialize(con)
    assert rows(con, "SELECT kind, term FROM drift WHERE round = 'v6.1'") == []
    found = rows(con, "SELECT result_id, benchmark, benchmark_matched, accelerator, total_accelerators, "
                      "inferred_cause FROM stg_results WHERE round = 'v6.1' ORDER BY result_id")
    assert [(r["benchmark"], r["benchmark_matched"], r["accelerator"], r["total_accelerators"]) for r in found] == [
        ("qwen3.6-27b", True, "Radeon 8060S", 1), ("qwen3.6-27b", True, "MI350P", 8)]
    # a SingleStream row is never a conversion's target: the flag is the folder's letter case
    assert {r["inferred_cause"] for r in found} == {"no conversion reaches SingleStream"}
    con.close()


def test_a_server_row_of_the_scheduled_rate_is_confirmed_by_its_run_summary(old_trees):
    # NVIDIA's v0.7 T4 x8 rnnt Server (closed/NVIDIA/results/T4x8_TRT/rnnt/Server): the checker read
    # "Scheduled samples per second : 8659.56" (result_scheduled_samples_per_sec until v4.1); the same
    # summary prints "Completed samples per second : 8595.03". |8659.56 - 8659.56| = 0 <= 0.5% of 8659.56:
    # a samples figure, as labelled (Queries/s): confirmed, not a suspect unit (27 v0.7 Server rows were).
    con = connect_file(old_trees, read_only=True)
    row = one(con, "SELECT value, unit_verdict, unit_note FROM stg_results WHERE round = 'v0.7' "
                   "AND submitter = 'NVIDIA' AND platform = 'T4x8_TRT' AND model = 'rnnt' AND scenario = 'Server'")
    assert row == {"value": 8659.56, "unit_verdict": "confirmed",
                   "unit_note": "the run summary prints 8659.56 samples/s, as labelled"}
    assert one(con, "SELECT count(*) AS n FROM anomalies WHERE rule = 'unit_suspect'") == {"n": 0}
    con.close()
