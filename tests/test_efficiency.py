"""Efficiency as a history (issue 62, item 3): samples or tokens per joule of measured system power, per
result, from the published tables (v4.1 on) and the old rounds' power files read as the checker reads
them, on one basis; each part's history per benchmark era, the field's record, and the gains of
software and of a new generation, power-optimized (MaxQ) and performance (MaxP) entries apart.

Every expected number is read from the real files in ../shared/mlcommons/trees, the arithmetic written
beside it: the result from the run's mlperf_log_summary.txt, the mean Watts of its spl.txt strictly
between its mlperf_log_detail.txt's power_begin and power_end (the checker's window)."""
from __future__ import annotations

import pytest

from tests.faults import query
from tests.trees_layout import TREES

A100_X8_MAXQ = "closed/NVIDIA/results/DGX-A100_A100-SXM-80GBx8_TRT_MaxQ/resnet50/Offline/performance/run_1"
# v1.1: "Samples per second: 244537"; 794 positive samples between 09:36:52.317 and 09:50:06.895 summing
# to 2,339,278.9 W: mean 2,339,278.9 / 794 = 2,946.195088 W; 244,537 / 2,946.195088 = 83.000953 samples/J.
V11_A100 = {"result": 244537.0, "samples": 794, "watts_sum": 2339278.9, "per_joule": 83.000953}
# v2.1: "Samples per second: 288733"; 777 samples between 03:21:15.973 and 03:34:13.163 summing to
# 2,394,922.6 W: mean 3,082.268468 W; 288,733 / 3,082.268468 = 93.675487 samples/J.
V21_A100 = {"result": 288733.0, "samples": 777, "watts_sum": 2394922.6, "per_joule": 93.675487}
A100_GAIN = 93.675487 / 83.000953   # 1.128607: v1.1 -> v2.1, the same DGX A100 x8 MaxQ


def _window_mean(round_name: str, run: str) -> tuple[int, float]:
    """The positive Watts samples of the run's spl.txt strictly inside its detail log's window, read
    plainly (a check that the numbers above are the files')."""
    import json
    from datetime import datetime
    folder = TREES / f"inference_results_{round_name}" / run
    window = {}
    for line in (folder / "mlperf_log_detail.txt").read_text().splitlines():
        record = json.loads(line.split(":::MLLOG", 1)[1])
        if record["key"] in ("power_begin", "power_end"):
            window.setdefault(record["key"], datetime.strptime(record["value"], "%m-%d-%Y %H:%M:%S.%f"))
    watts = [float(f[3]) for f in (line.split(",") for line in (folder / "spl.txt").read_text().splitlines() if line)
             if window["power_begin"] < datetime.strptime(f[1], "%m-%d-%Y %H:%M:%S.%f") < window["power_end"]
             and float(f[3]) > 0]
    return len(watts), sum(watts)


def test_the_hand_numbers_are_the_files():
    for round_name, expected in (("v1.1", V11_A100), ("v2.1", V21_A100)):
        count, total = _window_mean(round_name, A100_X8_MAXQ)
        assert count == expected["samples"] and total == pytest.approx(expected["watts_sum"], rel=1e-12)
        assert expected["result"] / (total / count) == pytest.approx(expected["per_joule"], rel=1e-7)


def test_both_sources_are_one_basis_beside_their_performance_rows(old_rounds_warehouse):
    counted = query(old_rounds_warehouse, """
        SELECT round, measured_from, list(DISTINCT power_basis), list(DISTINCT power_unit ORDER BY power_unit), count(*)
        FROM stg_measured_power GROUP BY ALL ORDER BY ALL""")
    # every power figure of the trees (194 + 191) and of the tables (31 + 24 rows of metric 'power')
    assert counted == [
        ("v1.1", "submission tree", ["measured system power"], ["Joules", "Watts"], 194),
        ("v2.1", "submission tree", ["measured system power"], ["Joules", "Watts"], 191),
        ("v4.1", "published table", ["measured system power"], ["Watts", "millijoules"], 31),
        ("v5.1", "published table", ["measured system power"], ["Watts", "millijoules"], 24)]
    # one figure per performance row, each row a performance row
    assert query(old_rounds_warehouse, """
        SELECT count(*), count(DISTINCT (m.source_id, m.record_no)), count(r.record_no)
        FROM stg_measured_power AS m
        LEFT JOIN results AS r ON r.source_id = m.source_id AND r.record_no = m.record_no AND r.metric = 'performance'
        """) == [(440, 440, 440)]
    # token_economics reads the same figures: the trees' Watts too (v1.1 and v2.1 had none before)
    assert query(old_rounds_warehouse, """
        SELECT round, count(*) FROM token_economics WHERE measured_watts IS NOT NULL AND round IN ('v1.1', 'v2.1')
        GROUP BY ALL ORDER BY ALL""") == [("v1.1", 147), ("v2.1", 125)]


def test_a100_resnet_offline_samples_per_joule_v11_to_v21_with_run_paths(old_rounds_warehouse):
    """The acceptance question. v1.0 is not in the shared data; v1.1 -> v2.1 for the one A100 variant
    and count measured in both rounds' resnet Offline (A100 PCIe 40GB x8 in v1.1 and PCIe 80GB x8 in
    v2.1 are two variants: never one series)."""
    both = query(old_rounds_warehouse, """
        SELECT accelerator, accelerator_count, power_setting FROM efficiency_history
        WHERE accelerator LIKE 'A100%' AND benchmark = 'resnet' AND scenario = 'Offline'
        GROUP BY ALL HAVING list(round ORDER BY round) = ['v1.1', 'v2.1']""")
    assert both == [("A100 SXM 80GB", 8, "MaxQ")]
    history = query(old_rounds_warehouse, """
        SELECT round, work_per_joule, result, measured_watts, submitter, run_path, measured_from, round_previous,
               gain_from_previous, rounds_power_not_read, procurement_grade, run_path_previous
        FROM efficiency_history
        WHERE accelerator = 'A100 SXM 80GB' AND accelerator_count = 8 AND power_setting = 'MaxQ'
          AND benchmark = 'resnet' AND scenario = 'Offline' ORDER BY round""")
    (v11, v21) = history
    assert v11[:2] == ("v1.1", pytest.approx(V11_A100["per_joule"], rel=1e-6))
    assert v11[3] == pytest.approx(V11_A100["watts_sum"] / V11_A100["samples"], rel=1e-9)
    assert v11[4:7] == ("NVIDIA", A100_X8_MAXQ, "submission tree")
    # v2.1: NVIDIA's DGX A100 (93.68) is the best per joule of the two x8 MaxQ systems measured; Fujitsu's
    # PRIMERGY GX2570M6 ran 297,046 samples/s at 3,310.3 W, 89.7 samples/J
    assert v21[:2] == ("v2.1", pytest.approx(V21_A100["per_joule"], rel=1e-6))
    assert v21[4:8] == ("NVIDIA", A100_X8_MAXQ, "submission tree", "v1.1")
    assert v21[8] == pytest.approx(A100_GAIN, rel=1e-6)
    assert v21[9:] == (["v2.0"], True, A100_X8_MAXQ)   # v2.0's power files are not in the shared data
    gain = query(old_rounds_warehouse, """
        SELECT gain, same_system, procurement_grade, run_path_from, run_path_to FROM efficiency_gains
        WHERE kind = 'software' AND accelerator_to = 'A100 SXM 80GB' AND accelerator_count = 8
          AND benchmark = 'resnet' AND scenario = 'Offline'""")
    assert gain == [(pytest.approx(A100_GAIN, rel=1e-6), True, True, A100_X8_MAXQ, A100_X8_MAXQ)]


def test_maxq_and_maxp_entries_are_two_series_both_shown(old_rounds_warehouse):
    # v1.1 A100 SXM 80GB x4 resnet Offline: Dell's XE8545, a performance entry measured at the wall
    # (161,361 samples/s at 2,412.5 W: 66.885 samples/J), and NVIDIA's DGX Station A100 MaxQ (110.903)
    found = query(old_rounds_warehouse, """
        SELECT power_setting, submitter, round(work_per_joule, 3), round_previous FROM efficiency_history
        WHERE accelerator = 'A100 SXM 80GB' AND accelerator_count = 4 AND benchmark = 'resnet' AND scenario = 'Offline'
        ORDER BY power_setting""")
    assert found == [("MaxP", "Dell", 66.885, None), ("MaxQ", "NVIDIA", 110.903, None)]
    # no gain, software or generation, pairs a MaxQ side with a MaxP side
    assert query(old_rounds_warehouse, """
        SELECT count(*) FROM efficiency_gains AS g JOIN power_efficiency AS f ON f.run_path = g.run_path_from
        JOIN power_efficiency AS t ON t.run_path = g.run_path_to
        WHERE f.power_setting <> t.power_setting""") == [(0,)]
    # the records keep a record per setting: resnet Offline datacenter, both shown
    records = query(old_rounds_warehouse, """
        SELECT power_setting, round, record_accelerator, round(work_per_joule_record, 3) FROM efficiency_records
        WHERE benchmark = 'resnet' AND scenario = 'Offline' AND segment = 'datacenter' AND round = 'v2.1'
        ORDER BY power_setting""")
    assert records == [("MaxP", "v2.1", "Cloud AI 100 Pro", 216.999), ("MaxQ", "v2.1", "A100 PCIe 80GB", 122.188)]


def test_energy_per_query_figures_count_their_samples(old_rounds_warehouse):
    # v2.1 Jetson AGX Orin MaxQ resnet MultiStream (LoadGen ran MultiStream: a query of 8 samples):
    # 1,041 samples summing to 21,844.21 W (mean 20.983871 W) over 1,041.023 s / 270,336 queries =
    # 0.0808058 J a query; 8 / 0.0808058 = 99.0029 samples per joule.
    multi = "closed/NVIDIA/results/Orin_TRT_MaxQ/resnet50/MultiStream/performance/run_1"
    joules = 21844.21 / 1041 * 1041.023 / 270336
    assert query(old_rounds_warehouse, f"""
        SELECT power_unit, samples_per_query, joules_per_query, samples_per_joule FROM power_efficiency
        WHERE run_path = '{multi}'""") == [("Joules", 8, pytest.approx(joules, rel=1e-6),
                                             pytest.approx(8 / joules, rel=1e-6))]
    # v1.1 and v2.1 SingleStream: one sample a query, samples_per_joule = 1 / joules_per_query
    assert query(old_rounds_warehouse, """
        SELECT count(*) FROM power_efficiency WHERE scenario = 'SingleStream'
          AND (samples_per_query <> 1 OR abs(samples_per_joule * joules_per_query - 1) > 1e-12)""") == [(0,)]


def test_a_new_generation_over_its_predecessor_per_joule(old_rounds_warehouse):
    # Jetson AGX Orin (v2.1) over Jetson AGX Xavier (v1.1), resnet Offline, MaxQ, one module each. No
    # round measured both, so the pair is kind 'generation_and_software' (the gain mixes part and software):
    # Xavier: "Samples per second: 1506.53", 670 samples summing to 16,910.964 W (25.240245 W): 59.6876/J;
    # Orin: "Samples per second: 3525.91", 656 samples summing to 15,129.49 W (23.063247 W): 152.8800/J.
    xavier, orin = 1506.53 / (16910.964 / 670), 3525.91 / (15129.49 / 656)
    assert query(old_rounds_warehouse, """
        SELECT kind, accelerator_from, round_from, round_to, work_per_joule_from, work_per_joule_to, gain,
               rounds_power_not_read, procurement_grade
        FROM efficiency_gains WHERE accelerator_to = 'Jetson AGX Orin' AND benchmark = 'resnet' AND scenario = 'Offline'
        """) == [("generation_and_software", "Jetson AGX Xavier", "v1.1", "v2.1", pytest.approx(xavier, rel=1e-6),
                  pytest.approx(orin, rel=1e-6), pytest.approx(orin / xavier, rel=1e-6), ["v2.0"], True)]
    # every generation pair follows the predecessor chain (a CPU-only system's processor's too: Krai's
    # Jetson hosts, Xavier Carmel -> Orin Cortex-A78AE), within one segment and form factor
    assert query(old_rounds_warehouse, """
        SELECT count(*) FROM efficiency_gains AS g
        LEFT JOIN stg_successions AS s ON s.hardware = coalesce(g.accelerator_to, g.cpu_to)
                                      AND s.ancestor = coalesce(g.accelerator_from, g.cpu_from)
        WHERE g.kind <> 'software' AND (s.hardware IS NULL OR s.steps <> g.generations_apart)""") == [(0,)]


def test_no_estimate_enters_the_efficiency_marts(old_rounds_warehouse):
    # a result with no measured power has no row: v6.0 and v6.1 measured none
    assert query(old_rounds_warehouse, """
        SELECT DISTINCT round FROM power_efficiency ORDER BY round""") == [("v1.1",), ("v2.1",), ("v4.1",), ("v5.1",)]
    assert query(old_rounds_warehouse, "SELECT DISTINCT power_basis FROM efficiency_history") == [("measured system power",)]


def test_every_procurement_grade_side_is_procurement_grade_by_the_one_rule(old_rounds_warehouse):
    # each side of a procurement-grade gain, and each figure of a procurement-grade history row, is a
    # performance row the one eligibility rule grades procurement grade (a tree row has no result ID:
    # by its run folder)
    sides = """
        SELECT round_from AS round, run_path_from AS run_path FROM efficiency_gains WHERE procurement_grade
        UNION SELECT round_to, run_path_to FROM efficiency_gains WHERE procurement_grade
        UNION SELECT round, run_path FROM efficiency_history WHERE procurement_grade
        UNION SELECT round_previous, run_path_previous FROM efficiency_history WHERE procurement_grade"""
    graded = query(old_rounds_warehouse, f"""
        SELECT s.round, s.run_path, bool_or(e.procurement_grade)
        FROM ({sides}) AS s
        JOIN stg_results AS r ON r.round = s.round AND r.run_path = s.run_path AND r.metric = 'performance'
        JOIN int_result_eligibility AS e ON e.source_id = r.source_id AND e.record_no = r.record_no
        GROUP BY ALL""")
    assert len(graded) == len(query(old_rounds_warehouse, sides)) > 20
    assert [g for g in graded if not g[2]] == []
