"""latency_profile, summary_fidelity, interactivity_frontier, system_inventory and token_economics'
tokens_per_second_per_user, on the warehouse built from the shared mirror plus `mlperf-wh trees`.

Expected numbers are read from the real files under ../shared/mlcommons/trees (the helper below
re-reads the LoadGen line, so a typo in a literal fails loudly) and the arithmetic is written out.
"""
from __future__ import annotations

import duckdb
import pytest

from tests.shared_rows import one, record, rows
from tests.trees_layout import TREES
from tests.readers import connect_file

V60 = TREES / "inference_results_v6.0" / "closed"
GB200_X72 = "GB200-NVL72_GB200-186GB_aarch64x72_TRT"


@pytest.fixture
def con(trees_warehouse):
    connection = connect_file(trees_warehouse, read_only=True)
    yield connection
    connection.close()


def loadgen(run_folder, key: str) -> int:
    """The integer LoadGen printed for `key` in the run folder's mlperf_log_summary.txt."""
    text = (V60 / run_folder / "performance" / "run_1" / "mlperf_log_summary.txt").read_text()
    found = [line.split(":", 1)[1].strip() for line in text.splitlines()
             if line.split(":", 1)[0].strip() == key]
    assert len(found) == 1, (key, found)
    return int(found[0])


NVIDIA_DEEPSEEK = f"NVIDIA/results/{GB200_X72}/deepseek-r1"


def test_ttft_tpot_and_tokens_per_user_of_a_deepseek_interactive_result(con):
    # 6.0-0075 NVIDIA GB200 NVL72 (72x GB200) deepseek-r1 Interactive, 240318 Tokens/s. Its summary:
    # 99.00 percentile first token latency (ns) 440345216 -> 440.345216 ms (constraint 1500000000 ns
    # = 1500 ms); 99.00 percentile time to output token (ns) 14531267 -> 14.531267 ms (constraint
    # 15000000 ns = 15 ms); Mean Time per Output Token (ns) 11890160 -> 1e9 / 11890160 = 84.103
    # tokens/s per user. p99 under both constraints, and LoadGen says VALID.
    assert record("v6.0", "6.0-0075", "deepseek-r1", "Interactive")["Performance_Result"] == 240318.0
    folder = f"{NVIDIA_DEEPSEEK}/Interactive"
    assert (loadgen(folder, "99.00 percentile first token latency (ns)"),
            loadgen(folder, "99.00 percentile time to output token (ns)"),
            loadgen(folder, "Mean Time per Output Token (ns)"),
            loadgen(folder, "ttft_latency (ns)"), loadgen(folder, "tpot_latency (ns)")) \
        == (440345216, 14531267, 11890160, 1500000000, 15000000)
    row = one(con, "SELECT * FROM latency_profile WHERE result_id = '6.0-0075' AND benchmark = 'deepseek-r1' "
                   "AND scenario = 'Interactive'")
    assert (row["accelerator"], row["accelerator_count"], row["loadgen_scenario"]) == ("GB200", 72, "Server")
    assert row["ttft_p99_ms"] == pytest.approx(440345216 / 1e6, rel=1e-12)
    assert row["tpot_p99_ms"] == pytest.approx(14531267 / 1e6, rel=1e-12)
    assert (row["ttft_constraint_ms"], row["tpot_constraint_ms"]) == (1500.0, 15.0)
    assert row["ttft_p50_ms"] == pytest.approx(loadgen(folder, "50.00 percentile first token latency (ns)") / 1e6)
    assert row["tokens_per_second_per_user"] == pytest.approx(1e9 / 11890160, rel=1e-12)
    assert row["tokens_per_second_per_user"] == pytest.approx(84.1032, rel=1e-5)
    assert (row["met_constraints"], row["ttft_within_constraint"], row["tpot_within_constraint"]) == (True, True, True)
    # The same number in token_economics, and no per-user pace for the Offline run.
    economics = one(con, "SELECT tokens_per_second_per_user FROM token_economics WHERE result_id = '6.0-0075' "
                         "AND benchmark = 'deepseek-r1' AND scenario = 'Interactive'")
    assert economics["tokens_per_second_per_user"] == pytest.approx(1e9 / 11890160, rel=1e-12)
    offline = one(con, "SELECT tokens_per_second_per_user FROM token_economics WHERE result_id = '6.0-0075' "
                       "AND benchmark = 'deepseek-r1' AND scenario = 'Offline'")
    assert offline["tokens_per_second_per_user"] is None


def test_interactivity_frontier_of_gb200_on_deepseek(con):
    # v6.0 deepseek-r1, GB200, verified. Tokens/s per accelerator and 1e9 / mean TPOT (ns):
    #   CoreWeave 6.0-0015 Server      311531 / 64 = 4867.67, 1e9 / 56620037 = 17.66  -> on the frontier
    #   NVIDIA    6.0-0075 Server      336106 / 72 = 4668.14, 1e9 / 58306669 = 17.15  -> dominated by 6.0-0015
    #   Google    6.0-0042 Server      156781 / 72 = 2177.51, 1e9 / 51108483 = 19.57  -> dominated by 6.0-0075
    #                                                                                  Interactive
    #   NVIDIA    6.0-0075 Interactive 240318 / 72 = 3337.75, 1e9 / 11890160 = 84.10  -> on the frontier
    #   Offline runs (6.0-0015 468665 / 64, 6.0-0042 307874 / 72, 6.0-0075 486141 / 72): no per-user pace.
    for folder, mean_tpot in ((f"CoreWeave/results/GB200-NVL72_GB200-186GB_aarch64x64_TRT/deepseek-r1/Server", 56620037),
                              (f"Google/results/{GB200_X72}/deepseek-r1/Server", 51108483),
                              (f"{NVIDIA_DEEPSEEK}/Server", 58306669)):
        assert loadgen(folder, "Mean Time per Output Token (ns)") == mean_tpot
    points = {(r["result_id"], r["scenario"]): r for r in rows(
        con, "SELECT * FROM interactivity_frontier WHERE round = 'v6.0' AND benchmark = 'deepseek-r1' "
             "AND accelerator = 'GB200'")}
    expected = {
        ("6.0-0015", "Server"): (311531 / 64, 1e9 / 56620037, True),
        ("6.0-0075", "Server"): (336106 / 72, 1e9 / 58306669, False),
        ("6.0-0042", "Server"): (156781 / 72, 1e9 / 51108483, False),
        ("6.0-0075", "Interactive"): (240318 / 72, 1e9 / 11890160, True),
        ("6.0-0015", "Offline"): (468665 / 64, None, None),
        ("6.0-0042", "Offline"): (307874 / 72, None, None),
        ("6.0-0075", "Offline"): (486141 / 72, None, None),
    }
    assert set(points) == set(expected)
    for key, (per_accelerator, per_user, frontier) in expected.items():
        point = points[key]
        assert point["tokens_per_second_per_accelerator"] == pytest.approx(per_accelerator, rel=1e-12), key
        assert point["tokens_per_second_per_user"] == (None if per_user is None else pytest.approx(per_user, rel=1e-12))
        assert point["on_frontier"] is frontier, key
        assert point["verification"] == "verified" and point["preview"] is False
    # Preview rows are kept and labelled, never on the frontier; no other label appears.
    labels = rows(con, "SELECT DISTINCT verification, preview, on_frontier IS NULL AS unranked "
                       "FROM interactivity_frontier WHERE verification = 'preview'")
    assert labels == [{"verification": "preview", "preview": True, "unranked": True}]
    assert rows(con, "SELECT DISTINCT verification FROM interactivity_frontier ORDER BY 1") == \
        [{"verification": "preview"}, {"verification": "verified"}]


def test_system_inventory_of_a_verified_result(con):
    # closed/NVIDIA/systems/GB200-NVL72_GB200-186GB_aarch64x72_TRT.json: 18 nodes of 4 GB200 (186 GB),
    # host "NVIDIA Grace CPU", 2 per node x 144 cores = 288 cores per node, host memory "1.87 TB"
    # = 1870 GB.
    found = rows(con, "SELECT * FROM system_inventory WHERE result_id = '6.0-0075' ORDER BY benchmark, scenario")
    assert len(found) == 17  # every verified row of the entry (17 benchmark/scenario results)
    row = next(r for r in found if (r["benchmark"], r["scenario"]) == ("deepseek-r1", "Interactive"))
    assert row["host_processor_model_name"] == "NVIDIA Grace CPU"
    assert row["host_cores_per_node"] == 2 * 144
    assert row["host_memory_capacity"] == "1.87 TB" and row["host_memory_gb"] == pytest.approx(1870.0)
    assert (row["number_of_nodes"], row["accelerators_per_node"], row["accelerator_memory_gb"]) == (18, 4, 186.0)
    assert row["cooling"].startswith("Mix of Liquid-cooled")
    assert row["framework"].startswith("TensorRT 10.14")
    assert row["system_path"] == f"closed/NVIDIA/systems/{GB200_X72}.json"
    # Only verified rows, and every verified row of a round whose tree is loaded has its system description:
    # v4.1 823 + v5.1 607 + v6.0 495 = 1925 (test_views_results.py counts them); v6.1's 466 have none (the
    # shared data holds its table alone).
    assert one(con, "SELECT count(*) AS n FROM system_inventory")["n"] == 823 + 607 + 495 == \
        one(con, "SELECT count(*) AS n FROM verified_results WHERE round IN (SELECT round FROM systems)")["n"]
    assert one(con, "SELECT count(*) AS n FROM system_inventory WHERE round = 'v6.1'")["n"] == 0


def test_fidelity_every_disagreement_is_listed_and_explained(con):
    counts = {(r["round"], r["note"]): r["n"] for r in rows(
        con, "SELECT round, note, count(*) AS n FROM summary_fidelity GROUP BY ALL")}
    # Every result row of the three rounds has a summary: 937 + 1448 + 520.
    assert sum(counts.values()) == 937 + 1448 + 520
    # Each row either agrees (note null) or carries one of four explanations.
    assert {note for _, note in counts} <= {
        None, "the table gives the summary's tokens per second under units Samples/s",
        "the table gives the summary's tokens per second under units Queries/s",
        "the run folder holds a SingleStream run, not MultiStream",
        "the run folder holds a SingleStream run, not Offline",
        "the table and the summary disagree by more than rounding"}
    # v6.0: every row agrees except whisper (table Samples/s = the summary's tokens/s) and two
    # folders that hold SingleStream runs.
    v60 = {note: n for (round_name, note), n in counts.items() if round_name == "v6.0"}
    assert v60 == {None: 481, "the table gives the summary's tokens per second under units Samples/s": 37,
                   "the run folder holds a SingleStream run, not MultiStream": 1,
                   "the run folder holds a SingleStream run, not Offline": 1}
    # 6.0-0040 Google whisper Offline: table 49327.2 "Samples/s"; the summary prints
    # "Samples per second: 777.32" and "Tokens per second: 49327.2".
    assert record("v6.0", "6.0-0040", "whisper", "Offline")["Performance_Units"] == "Samples/s"
    whisper = one(con, "SELECT * FROM summary_fidelity WHERE result_id = '6.0-0040' AND benchmark = 'whisper'")
    assert (whisper["result"], whisper["summary_result"], whisper["agrees"]) == (49327.2, 777.32, False)
    assert whisper["relative_difference"] == pytest.approx((49327.2 - 777.32) / 777.32, rel=1e-12)
    # An agreeing row: 6.0-0075 deepseek-r1 Interactive 240318 Tokens/s vs "Completed tokens per
    # second: 240317.85": |240318 - 240317.85| / 240317.85 = 6.2e-7 <= 0.5%.
    row = one(con, "SELECT * FROM summary_fidelity WHERE result_id = '6.0-0075' AND benchmark = 'deepseek-r1' "
                   "AND scenario = 'Interactive'")
    assert row["agrees"] and row["summary_result"] == 240317.85
    assert row["relative_difference"] == pytest.approx((240318 - 240317.85) / 240317.85, rel=1e-9)
    # Only two rows disagree without another explanation: v5.1 GATEOverflow open pointpainting
    # SingleStream, 564.018264 ms in the table, 495.947315 ms printed by LoadGen.
    unexplained = rows(con, "SELECT result_id, result, summary_result FROM summary_fidelity "
                            "WHERE note = 'the table and the summary disagree by more than rounding' ORDER BY 1")
    assert unexplained == [{"result_id": "5.1-0228", "result": 564.018264, "summary_result": 495.947315},
                           {"result_id": "5.1-0368", "result": 564.018264, "summary_result": 495.947315}]
