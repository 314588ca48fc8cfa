"""The endpoint harness's run files, parsed (pure functions) from the real v6.1 files trimmed into
tests/fixtures/trees_v6.1 (README.md there: paths and commits). Expected numbers are read from the
files by eye and written here with their arithmetic."""
from __future__ import annotations

import json

import pytest

from schemas.endpoints import HEAD_BYTES
from schemas.loadgen import SUMMARY_COLUMNS
from tests.trees_layout import V61_FIXTURES
from warehouse.trees.parsing_endpoints import parse_client_results, parse_report, parse_result_summary
from warehouse.ingest.fetch import FetchSettings, fetch
from warehouse.trees.parsing import UnparsableFile

pytestmark = pytest.mark.unit


def fixture(name: str) -> bytes:
    return (V61_FIXTURES / name).read_bytes()


def test_vera_rubin_qwen3_vl_offline_result_summary():
    record = parse_result_summary(fixture("vr_qwen3vl_offline.result_summary.json"), "offline")
    assert (record["harness"], record["harness_version"], record["load_pattern"]) == (
        "endpoint harness", "0.1.0", "max_throughput")
    # max_throughput is Offline: the rates fill LoadGen's Offline lines ("Samples/Tokens per second").
    assert record["loadgen_scenario"] == "Offline"
    assert record["samples_per_second"] == 2392.6979194587702         # qps
    assert round(record["samples_per_second"], 2) == 2392.70
    assert record["tokens_per_second"] == 102722.30022046335           # tps
    assert round(record["tokens_per_second"]) == 102722
    # Per GPU on the 72 of an NVL72: 102722.30022046335 / 72 = 1426.698...
    assert round(record["tokens_per_second"] / 72, 1) == 1426.7
    assert record["completed_samples_per_second"] is None and record["target_qps"] is None
    assert (record["samples_issued"], record["samples_completed"], record["samples_failed"]) == (1738404, 1738404, 0)
    assert (record["duration_ns"], record["run_complete"]) == (726545539185, True)
    # 1738404 samples in 726.545539185 s = 2392.70 samples/s: qps is samples completed / duration.
    assert 1738404 / 726.545539185 == pytest.approx(record["samples_per_second"], rel=1e-12)
    # tps / qps = mean output tokens per sample: 102722.30 / 2392.70 = 42.93 = output_sequence_lengths.avg
    assert record["output_tokens_mean"] == pytest.approx(record["tokens_per_second"] / record["samples_per_second"],
                                                         rel=1e-9)
    assert record["output_tokens_total"] == 74632429
    # An Offline run has no TTFT/TPOT ({}): those columns stay null; latency in ns, the median rounded.
    assert record["ttft_p99_ns"] is None and record["tpot_mean_ns"] is None
    assert (record["latency_p50_ns"], record["latency_p99_ns"], record["latency_mean_ns"]) == (
        131888232787, 255984205092, 132066942552)
    assert record["early_stopping_p99_ns"] == 256017759878
    assert set(SUMMARY_COLUMNS) <= set(record)


def test_vera_rubin_qwen3_vl_server_result_summary():
    record = parse_result_summary(fixture("vr_qwen3vl_server.result_summary.json"), "server")
    assert (record["loadgen_scenario"], record["load_pattern"], record["target_qps"]) == ("Server", "poisson", 2340.0)
    assert round(record["completed_samples_per_second"], 2) == 2323.27
    assert round(record["completed_tokens_per_second"]) == 99742
    # TTFT p99 4413215109 ns = 4.41 s; TPOT p99 161422662 ns = 161 ms.
    assert record["ttft_p99_ns"] == 4413215109 and round(record["ttft_p99_ns"] / 1e9, 2) == 4.41
    assert record["tpot_p99_ns"] == 161422662 and round(record["tpot_p99_ns"] / 1e6) == 161
    # TPOT is a mean over each response's tokens: fractions of a ns, rounded to the ns.
    assert (record["tpot_p50_ns"], record["tpot_p999_ns"], record["tpot_min_ns"]) == (115601741, 192576515, 13149802)
    assert (record["ttft_early_stopping_p99_ns"], record["tpot_early_stopping_p99_ns"]) == (4431160548, 161677862)
    # Percentiles without a column of their own, and every other figure, are kept as lines.
    lines = record["unparsed_lines"]
    assert "ttft.percentiles.80.0: 2640794314.0" in lines
    assert "legacy_loadgen_window_duration_ns: 665117315350" in lines
    assert "run_config.load_pattern.use_legacy_loadgen_qps_metrics: true" in lines


def test_report_txt_gives_the_same_figures_to_its_two_decimals():
    for scenario in ("offline", "server"):
        exact = parse_result_summary(fixture(f"vr_qwen3vl_{scenario}.result_summary.json"), scenario)
        printed = parse_report(fixture(f"vr_qwen3vl_{scenario}.report.txt"), scenario)
        assert (printed["harness"], printed["harness_version"], printed["load_pattern"], printed["target_qps"]) == (
            exact["harness"], exact["harness_version"], exact["load_pattern"], exact["target_qps"])
        for column, value in exact.items():
            if column.endswith("_ns") and column != "duration_ns" and value is not None:
                # ms with two decimals: 4413.22 ms -> 4413220000 ns, within 0.005 ms of 4413215109.
                assert abs(printed[column] - value) <= 5_000, column
            elif column.endswith("_per_second") and value is not None:
                assert printed[column] == round(value, 2), column
    server = parse_report(fixture("vr_qwen3vl_server.report.txt"), "server")
    assert (server["ttft_p99_ns"], server["tpot_p99_ns"]) == (4_413_220_000, 161_420_000)
    assert (server["samples_issued"], server["duration_ns"]) == (1545248, 667_660_000_000)  # "667.66 seconds"
    assert server["output_tokens_mean"] == 42.93 and server["output_tokens_total"] is None
    assert "Median: 1800.56 ms" in server["unparsed_lines"]


def test_the_endpoint_clients_results_json_is_read_from_its_head():
    offline = parse_client_results(fixture("lambda_b200_qwen3vl_offline.results.json"), "offline")
    assert (offline["harness"], offline["harness_version"], offline["loadgen_scenario"]) == (
        "endpoint client", None, "Offline")
    assert offline["samples_per_second"] == 101.56072395081954
    # 48289 samples in 475.469237728 s = 101.5607 samples/s.
    assert 48289 / 475.469237728 == pytest.approx(offline["samples_per_second"], rel=1e-12)
    assert (offline["samples_issued"], offline["samples_completed"], offline["duration_ns"]) == (48289, 48289, 475469237728)
    assert "accuracy_scores.shopify_product_catalogue::q3vl.score: 0.7879966032452779" in offline["unparsed_lines"]
    assert not any(line.startswith("responses") for line in offline["unparsed_lines"])
    server = parse_client_results(fixture("lambda_b200_qwen3vl_server.results.json"), "server")
    assert (server["loadgen_scenario"], server["target_qps"], server["completed_samples_per_second"]) == (
        "Server", 70.0, 69.41536196217709)


def test_a_20_mb_results_json_is_fetched_only_to_its_head(tmp_path):
    # The published file holds every response after its header; a copy as large (48289 responses of
    # ~400 bytes: ~20 MB) is read to HEAD_BYTES and no further.
    data = json.loads(fixture("lambda_b200_qwen3vl_offline.results.json"))
    data["responses"] = {f"{i:032x}": "x" * 400 for i in range(48289)}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(data, indent=2))
    assert path.stat().st_size > 20_000_000
    fetched = fetch(str(path), "results.json", FetchSettings(), keep=HEAD_BYTES["results.json"])
    assert fetched.size == len(fetched.content) == 256 * 1024
    assert parse_client_results(fetched.content, str(path))["samples_per_second"] == 101.56072395081954


def test_bad_endpoint_files_give_every_reason():
    summary = json.loads(fixture("vr_qwen3vl_server.result_summary.json"))
    del summary["qps"]
    summary["n_samples_issued"] = "many"
    summary["run_config"]["load_pattern"]["type"] = "concurrency"
    with pytest.raises(UnparsableFile) as caught:
        parse_result_summary(json.dumps(summary).encode(), "result_summary.json")
    assert caught.value.reasons == [
        "'n_samples_issued': 'many' is not a whole number", "no 'qps'",
        "load pattern 'concurrency' is of no known scenario (known: max_throughput, poisson)"]
    with pytest.raises(UnparsableFile, match="invalid JSON at line 1"):
        parse_result_summary(b'{"version": ', "x")
    with pytest.raises(UnparsableFile, match="not an endpoint harness report: no Version, QPS, load_pattern line"):
        parse_report(b"MLPerf Results Summary\nScenario : Offline\n", "report.txt")
    with pytest.raises(UnparsableFile, match=r"line 12 \(QPS\): 'fast' is not a number$"):
        parse_report(fixture("vr_qwen3vl_offline.report.txt").replace(b"QPS: 2392.70", b"QPS: fast"), "report.txt")
    # The responses first: nothing before them, so no totals within the head.
    responses_first = b'{\n  "responses": {"a": "b"},\n  "results": {"qps": 1.0}\n}'
    with pytest.raises(UnparsableFile, match="no 'results' object before 'responses' in the first 56 bytes"):
        parse_client_results(responses_first, "results.json")
