"""The current round whole (issue 60 item 7): every name v6.1's table publishes resolves (its end-to-end
RAG benchmarks, the Tasks/s unit, its Xeon 6 processors), `drift` on the shared rounds names nothing,
and every processor of a CPU-only system of the old rounds' trees has an identity.

Expected values are read from ../shared/mlcommons: v6.1's summary.csv (the checker's table, under its
own column names) and the old rounds' system descriptions.
"""
from __future__ import annotations

import pytest

from tests.readers import connect_file
from tests.shared_rows import checker_row, checker_rows, rows


def test_drift_on_the_shared_rounds_names_nothing(shared_con):
    # v4.1, v5.1, v6.0 and v6.1 as a backfill of the mirror loads them: before, v6.1 left 2 benchmarks
    # ("end to end question-answering", "end to end vector-database"), 1 unit (Tasks/s) and 3 processors
    # (Intel(R) Xeon(R) 6788P, 6972P, 6987P-C) unknown
    assert rows(shared_con, "SELECT round, kind, term, rows FROM drift") == []


@pytest.mark.slow  # the session's five tree rounds take ~15 s to rebuild
def test_drift_on_every_shared_round_trees_included_names_nothing(old_rounds_warehouse):
    # the five old rounds rebuilt from their trees beside the four tables. Before: 487 benchmark terms (the
    # open division's own models, mobilenet-v1-0.25-128 and the like, and Dividiti's two closed v0.7
    # "ssd-mobilenet-non-quantized" rows, the checker's ssd-small), 15 power statements (Qualcomm's "With
    # 75W Accelerator TDP constraints") and 58 processors of CPU-only systems
    with connect_file(old_rounds_warehouse, read_only=True) as con:
        assert rows(con, "SELECT round, kind, term, rows FROM drift") == []
        # the open division's own models stay what they are: named as published, compared with nothing
        assert con.execute("SELECT count(DISTINCT model) FROM stg_results WHERE division = 'open' "
                           "AND NOT benchmark_matched").fetchone()[0] > 100


@pytest.mark.parametrize("published_as, model, benchmark, units, output_unit", [
    ("end to end question-answering", "e2e-rag-qna", "e2e-rag-qna", "Tasks/s", "tasks"),
    ("end to end vector-database", "e2e-rag-db", "e2e-rag-db", "Samples/s", "documents"),
])
def test_the_end_to_end_rag_benchmarks_take_the_checkers_workload_names(shared_con, published_as, model,
                                                                        benchmark, units, output_unit):
    # summary.csv: Intel's platform "1-node-2S-Xeon_6787P" Offline, MlperfModel published_as, Model the checker's
    # workload (the LoadGen user.conf section: mlcommons/inference e2e-rag), Result 0.464076 Tasks/s (a
    # task is one of the 824 FRAMES questions answered) and 22.6141 Samples/s (a sample is one page of
    # the 2,515-page corpus embedded into the vector database)
    published = checker_row("v6.1", "Intel", "1-node-2S-Xeon_6787P", published_as, "Offline")
    assert (published["Model"], published["Units"]) == (model, units)
    row = rows(shared_con, "SELECT benchmark, benchmark_matched, output_unit, units, higher_is_better, unit_verdict, "
                           "value FROM stg_results WHERE round = 'v6.1' AND model = ?", [published_as])
    assert row == [{"benchmark": benchmark, "benchmark_matched": True, "output_unit": output_unit, "units": units,
                    "higher_is_better": True, "unit_verdict": "confirmed", "value": float(published["Result"])}]


def test_tasks_per_second_counts_loadgen_samples(shared_con):
    # The checker reads LoadGen's samples per second for an Offline run (result_fields.csv, benchmark
    # '*'); Tasks/s is its label for the RAG questions answered, so the label is confirmed, not "of no
    # known kind" as an unknown unit is.
    note = rows(shared_con, "SELECT unit_note FROM stg_results WHERE units = 'Tasks/s'")
    assert note == [{"unit_note": "the v6.1 submission checker reads LoadGen's result_samples_per_second for "
                                  "e2e-rag-qna Offline (https://github.com/mlcommons/inference/blob/v4.1/tools/"
                                  "submission/submission_checker.py), as labelled"}]


def test_the_xeon_6_processors_of_v6_1_are_named(shared_con):
    # summary.csv's CPU-only rows (accelerators_per_node 0) by processor: Xeon 6788P: Cisco
    # X410M8_1_node_4S_GNR_86C 3, Quanta_Cloud_Technology 1-node-2S-GNR_86C 4, Supermicro
    # 1-node-4S-GNR_86C 3 = 10; Xeon 6972P: RedHat_Intel 3; Xeon 6987P-C: Oracle 3
    cpu_only = [r for r in checker_rows("v6.1") if r["accelerators_per_node"] == "0"]
    counted = {name: sum(r["host_processor_model_name"] == f"Intel(R) Xeon(R) {name}" for r in cpu_only)
               for name in ("6788P", "6972P", "6987P-C")}
    assert counted == {"6788P": 10, "6972P": 3, "6987P-C": 3}
    found = rows(shared_con, "SELECT cpu, family, line, segment, count(*) AS n FROM stg_results WHERE round = 'v6.1' "
                             "AND cpu IN ('Xeon 6788P', 'Xeon 6972P', 'Xeon 6987P-C') GROUP BY ALL ORDER BY cpu")
    assert found == [{"cpu": f"Xeon {name}", "family": "Granite Rapids", "line": "Intel Xeon", "segment": "datacenter",
                      "n": n} for name, n in counted.items()]
    # Oracle's one socket: BM.Standard4.Ax.120 (platform 1-node-1S-GNR_120C), host_processors_per_node 1
    assert rows(shared_con, "SELECT DISTINCT hardware_count FROM stg_results WHERE cpu = 'Xeon 6987P-C'") == \
        [{"hardware_count": int(checker_row("v6.1", "Oracle", "1-node-1S-GNR_120C", "whisper", "Offline")
                                ["host_processors_per_node"])}]


def test_every_processor_of_a_cpu_only_system_of_the_old_rounds_is_named(old_rounds_warehouse):
    with connect_file(old_rounds_warehouse, read_only=True) as con:
        assert rows(con, "SELECT DISTINCT round, processor FROM stg_results WHERE accelerator_raw IS NULL "
                         "AND processor IS NOT NULL AND cpu IS NULL") == []
        assert rows(con, "SELECT * FROM drift WHERE kind = 'processor'") == []
        named = {(r["processor"], r["cpu"]) for r in rows(
            con, "SELECT DISTINCT processor, cpu FROM stg_results WHERE round IN ('v0.5', 'v1.1', 'v2.1')")}
    # as the system descriptions name them: dividiti's v0.5 Raspberry Pi 4 "Arm Cortex-A72 MP4"
    # (rpi4-tflite-v1.15.json, system_name "Raspberry Pi 4 (rpi4)"), cTuning's v1.1 "BCM2835" (rpi4-tvm-fp32.json:
    # "Raspberry Pi 4 Model B Rev 1.1"), Krai's v2.1 Jetson AGX Orin CPU run "Arm Cortex-A78AE v8.2" and
    # Jetson AGX Xavier's "NVIDIA Carmel (ARMv8.2)", Intel's v2.1 preview "(code named Sapphire Rapids)"
    assert {("Arm Cortex-A72 MP4", "Raspberry Pi 4 (BCM2711)"), ("BCM2835", "Raspberry Pi 4 (BCM2711)"),
            ("Arm Cortex-A78AE v8.2", "Orin Cortex-A78AE"), ("NVIDIA Carmel (ARMv8.2)", "Xavier Carmel"),
            ("Intel(R) Xeon(R) (code named Sapphire Rapids)", "Xeon (Sapphire Rapids)"),
            ("Intel(R) Xeon(R) Gold 8380H CPU @ 2.70GHz", "Xeon Platinum 8380H")} <= named


def test_a_cluster_whose_description_counts_accelerators_unreadably_is_not_cpu_only(old_rounds_warehouse):
    # network/Alibaba/systems/SINIAN_VODLA_EFLO_A100x8_A30x8.json (v2.1): accelerator_model_name "1 Node:
    # NVIDIA A100-SXM-80GBx8, 2 Nodes: NVIDIA A30x4", accelerators_per_node "(8,4)". It was read as a
    # CPU-only system of processor "Intel(R) Xeon(R) Platinum 8369B CPU (A100), Intel(R) Xeon(R) Silver
    # 4314 (A30)"; its bert-99 results are a mixed cluster's, their total unknown.
    with connect_file(old_rounds_warehouse, read_only=True) as con:
        found = rows(con, "SELECT DISTINCT platform, accelerator_raw, accelerator, total_accelerators, cpu "
                          "FROM stg_results WHERE round = 'v2.1' AND platform LIKE 'SINIAN_VODLA_EFLO_A100x%_A30x%' "
                          "ORDER BY platform")
    assert found == [
        {"platform": "SINIAN_VODLA_EFLO_A100x16_A30x16", "accelerator": "A100 SXM 80GB + A30", "total_accelerators": None,
         "cpu": None, "accelerator_raw": "2 Nodes: NVIDIA A100-SXM-80GBx8, 4 Nodes: NVIDIA A30x4"},
        {"platform": "SINIAN_VODLA_EFLO_A100x8_A30x8", "accelerator": "A100 SXM 80GB + A30", "total_accelerators": None,
         "cpu": None, "accelerator_raw": "1 Node: NVIDIA A100-SXM-80GBx8, 2 Nodes: NVIDIA A30x4"}]
