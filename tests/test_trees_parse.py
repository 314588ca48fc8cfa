"""The pure tree parsers on real files of ../shared/mlcommons/trees (numbers read from the files)."""
from __future__ import annotations

import json

import pytest

from tests.trees_layout import TREES
from warehouse.trees.parsing import SUMMARY_COLUMNS, UnparsableFile, capacity_gb, parse_summary, parse_system, run_folder

V60_NVIDIA = TREES / "inference_results_v6.0" / "closed" / "NVIDIA"
GB200_X72 = "GB200-NVL72_GB200-186GB_aarch64x72_TRT"


def summary(path) -> dict:
    return parse_summary(path.read_bytes(), str(path))


def test_llm_interactive_summary_has_ttft_tpot_and_constraints():
    # v6.0 NVIDIA GB200 NVL72 (72x) deepseek-r1 Interactive: LoadGen runs it as Server.
    record = summary(V60_NVIDIA / "results" / GB200_X72 / "deepseek-r1" / "Interactive" / "performance"
                     / "run_1" / "mlperf_log_summary.txt")
    assert (record["loadgen_scenario"], record["mode"], record["result_valid"]) == ("Server", "PerformanceOnly", True)
    assert record["performance_constraints_satisfied"] is True
    assert record["completed_samples_per_second"] == 63.90
    assert record["completed_tokens_per_second"] == 240317.85   # printed twice, equal both times
    assert (record["ttft_p50_ns"], record["ttft_p99_ns"], record["ttft_mean_ns"]) == (327402350, 440345216, 333476905)
    assert (record["tpot_p50_ns"], record["tpot_p99_ns"], record["tpot_mean_ns"]) == (11852612, 14531267, 11890160)
    assert (record["tpot_min_ns"], record["tpot_max_ns"]) == (5269541, 17683774)
    assert (record["ttft_constraint_ns"], record["tpot_constraint_ns"]) == (1_500_000_000, 15_000_000)
    assert (record["target_qps"], record["min_duration_ms"], record["min_query_count"]) == (64.0, 600000, 144000)
    # Seeds are unsigned 64-bit: 14276810075590677512 > 2**63.
    assert record["sample_index_rng_seed"] == 14276810075590677512
    assert (record["warnings"], record["errors"]) == (0, 0)
    # Lines no column takes are kept verbatim.
    assert "TTFT Early Stopping Result:" in record["unparsed_lines"]
    assert "print_timestamps : 0" in record["unparsed_lines"]


def test_older_loadgen_multistream_and_offline_llm():
    # v4.1 MultiStream: the result is a percentile line and an early-stopping estimate.
    path = next((TREES / "inference_results_v4.1").glob(
        "closed/*/results/*/*/MultiStream/performance/run_1/mlperf_log_summary.txt"))
    text = path.read_text()
    record = summary(path)
    assert record["loadgen_scenario"] == "MultiStream"
    assert f"99th percentile latency (ns) : {record['result_latency_ns']}" in text \
        or f"99.0th percentile latency (ns) : {record['result_latency_ns']}" in text
    assert record["result_latency_percentile"] == 99.0
    assert f"percentile estimate: {record['early_stopping_p99_ns']}" in text
    assert record["ttft_p99_ns"] is None and record["tokens_per_second"] is None
    # v4.1 llama2-70b-99 Offline prints "Tokens per second" and "Time to Output Token" (older name).
    path = next((TREES / "inference_results_v4.1").glob(
        "closed/*/results/*/llama2-70b-99/Offline/performance/run_1/mlperf_log_summary.txt"))
    record = summary(path)
    assert record["loadgen_scenario"] == "Offline"
    assert record["samples_per_second"] > 0 and record["tokens_per_second"] > record["samples_per_second"]


def test_ttft_and_tpot_early_stopping_blocks_are_told_apart():
    # v6.0 open NVIDIA Jetson-Thor llama3.1-8b-edge SingleStream: three blocks of estimates.
    path = (TREES / "inference_results_v6.0" / "open" / "NVIDIA" / "results" / "Jetson-Thor"
            / "llama3.1-8b-edge" / "SingleStream" / "performance" / "run_1" / "mlperf_log_summary.txt")
    record = summary(path)
    assert record["result_latency_ns"] == 1357552837 and record["result_ttft_ns"] == 126477827
    assert (record["ttft_early_stopping_p90_ns"], record["ttft_early_stopping_p99_ns"]) == (132128483, 183878879)
    assert (record["tpot_early_stopping_p90_ns"], record["tpot_early_stopping_p99_ns"]) == (9879950, 12336296)
    assert record["early_stopping_p90_ns"] is None


def test_unknown_lines_are_kept_and_bad_files_give_every_reason():
    good = (V60_NVIDIA / "results" / GB200_X72 / "deepseek-r1" / "Offline" / "performance" / "run_1"
            / "mlperf_log_summary.txt").read_bytes()
    record = parse_summary(good + b"Quantum flux per second : 42\n", "x")
    assert record["unparsed_lines"][-1] == "Quantum flux per second : 42"
    assert set(SUMMARY_COLUMNS) <= set(record)
    broken = good.replace(b"Min latency (ns)                : ", b"Min latency (ns) : about ")
    with pytest.raises(UnparsableFile) as caught:
        parse_summary(broken, "run_1/mlperf_log_summary.txt")
    assert len(caught.value.reasons) == 1 and "Min latency (ns)" in caught.value.reasons[0]
    assert "is not an integer" in str(caught.value) and "run_1/mlperf_log_summary.txt" in str(caught.value)
    # A real file of the tree that is not a summary at all (v6.0 open Lattix rgat: warnings only).
    lattix = (TREES / "inference_results_v6.0" / "open" / "Lattix" / "results" / "DynamoNPU" / "rgat"
              / "offline" / "performance" / "run_1" / "mlperf_log_summary.txt")
    with pytest.raises(UnparsableFile, match="not a LoadGen summary: no loadgen_scenario, mode, result_valid"):
        summary(lattix)
    with pytest.raises(UnparsableFile, match="not valid UTF-8"):
        parse_summary(b"\xff\xfe", "x")


@pytest.mark.unit
def test_run_folder_from_published_locations():
    # v6.0 publishes the whole run folder, earlier rounds stop at the scenario.
    v60 = run_folder(f"./closed/NVIDIA/results/{GB200_X72}/deepseek-r1/Interactive/performance/run_1")
    assert v60.path == f"closed/NVIDIA/results/{GB200_X72}/deepseek-r1/Interactive/performance/run_1"
    assert v60.system_path == f"closed/NVIDIA/systems/{GB200_X72}.json"
    v41 = run_folder("closed/AMD/results/1xMI300X_2xEPYC-9374F/llama2-70b-99/Offline")
    assert v41.summary_path == ("closed/AMD/results/1xMI300X_2xEPYC-9374F/llama2-70b-99/Offline/"
                                "performance/run_1/mlperf_log_summary.txt")
    for bad in (None, "", "closed/AMD/1xMI300X/llama2-70b-99/Offline", "closed/AMD/results/../../x/y/z"):
        assert run_folder(bad) is None


def test_system_description_typed_and_kept_raw():
    path = V60_NVIDIA / "systems" / f"{GB200_X72}.json"
    record = parse_system(path.read_bytes(), str(path))
    assert record["system_name"] == "NVIDIA GB200 NVL72 (72x GB200-186GB_aarch64, TensorRT)"
    assert record["host_processor_model_name"] == "NVIDIA Grace CPU"
    assert (record["number_of_nodes"], record["accelerators_per_node"]) == (18, 4)
    assert (record["host_processors_per_node"], record["host_processor_core_count"]) == (2, 144)
    assert record["host_memory_capacity"] == "1.87 TB" and record["host_memory_gb"] == pytest.approx(1870.0)
    assert record["accelerator_memory_gb"] == 186.0
    assert json.loads(record["raw_json"]) == json.loads(path.read_bytes())
    assert record["untyped_fields"] == []


def test_system_description_failures():
    # A real JSON under a systems/ folder that is a list of system names, not a description.
    custom = TREES / "inference_results_v5.1" / "closed" / "HPE" / "code" / "common" / "systems" / "custom_list.json"
    with pytest.raises(UnparsableFile, match="required field"):
        parse_system(custom.read_bytes(), str(custom))
    with pytest.raises(UnparsableFile, match="invalid JSON at line 1"):
        parse_system(b'{"system_name": ', "x.json")
    with pytest.raises(UnparsableFile, match="expected a JSON object, found a list"):
        parse_system(b"[]", "x.json")
    minimal = parse_system(json.dumps({"system_name": "s", "accelerator_model_name": "N/A",
                                       "host_processor_model_name": "cpu",
                                       "host_processor_core_count": "56 (112 threads)"}).encode(), "x.json")
    assert minimal["host_processor_core_count"] is None
    assert minimal["untyped_fields"] == ["host_processor_core_count"]


DELL_XE8545 = TREES / "inference_results_v1.1" / "closed" / "Dell" / "systems" / "XE8545_A100-SXM-80GBx4_TRT.json"


def test_a_repeated_key_is_read_as_json_load_reads_it_and_recorded():
    # Dell's v1.1 XE8545 x4 gives "accelerator_cooling_type": "passive" (line 2), then "" (line 22), and
    # "host_cooling_type": "air", then "": MLCommons' checker reads it with json.load, the last wins
    content = DELL_XE8545.read_bytes()
    record = parse_system(content, str(DELL_XE8545))
    assert record["repeated_keys"] == ['accelerator_cooling_type: "passive", then "" (the last is read)',
                                       'host_cooling_type: "air", then "" (the last is read)']
    assert json.loads(record["raw_json"]) == json.loads(content)   # json.load's reading, every field
    assert (record["system_name"], record["accelerators_per_node"]) == \
        ("Dell EMC PowerEdge XE8545 (4x A100-SXM-80GB, TensorRT)", 4)


def test_a_repeated_key_a_row_uses_quarantines_the_description():
    content = DELL_XE8545.read_bytes()
    twice = content.replace(b'"accelerators_per_node": "4",', b'"accelerators_per_node": "4", "accelerators_per_node": "8",', 1)
    assert twice != content
    with pytest.raises(UnparsableFile, match=r'the key \'accelerators_per_node\' twice with two values \("4", then "8"\): '
                                             "a field the result rows use"):
        parse_system(twice, str(DELL_XE8545))
    # the same value twice is one value, and no finding (a v4.1 description gives "network_speed_mbit": "" twice)
    same = content.replace(b'"accelerators_per_node": "4",', b'"accelerators_per_node": "4", "accelerators_per_node": "4",', 1)
    assert len(parse_system(same, str(DELL_XE8545))["repeated_keys"]) == 2


@pytest.mark.unit
def test_capacity_in_gb():
    assert capacity_gb("2 TB") == 2000.0
    assert capacity_gb("96 GiB") == 96.0
    assert capacity_gb("512MB") == pytest.approx(0.512)
    for unreadable in (None, "", "N/A", "8x 96 GB", "Shared with host"):
        assert capacity_gb(unreadable) is None
