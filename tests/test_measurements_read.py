"""The readers of your own measurements, on the small files in tests/fixtures/measurements/ written to
each tool's format (vllm bench serve --save-result, AIPerf's and GenAI-Perf's JSON export, the CSV),
and on variants of them made here. Pure functions: no warehouse, no shared data."""
from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import duckdb
import pytest

from warehouse.identity.reference import default_reference
from warehouse.identity.resolve import load_reference_tables
from warehouse.ledger.measurement_formats import MeasurementFileError, detect_format, read_file
from warehouse.ledger.measurements import RunOptions, prepare

pytestmark = pytest.mark.unit

FIXTURES = Path(__file__).parent / "fixtures" / "measurements"
VLLM_C64 = FIXTURES / "openai-chat-infqps-concurrency64-Llama-3.1-8B-Instruct-20261110-101500.json"
VLLM_C1024 = FIXTURES / "vllm-infqps-concurrency1024-Llama-3.1-8B-Instruct-20261110-113000.json"
VLLM_DETAILED = FIXTURES / "vllm-detailed-four-requests.json"
AIPERF = FIXTURES / "profile_export_aiperf.json"
GENAI_PERF = FIXTURES / "profile_export_genai_perf.json"
CSV = FIXTURES / "own_runs.csv"
H200_X8 = RunOptions(accelerator="H200", accelerators=8)


def prepared(path: Path, options: RunOptions = H200_X8, content: bytes | None = None, fmt=None):
    return prepare(path.name, path.read_bytes() if content is None else content, fmt, options)


def only_run(result) -> dict:
    assert result.runs.height == 1, result.quarantine
    return result.runs.row(0, named=True)


def test_each_fixture_is_told_apart_by_its_content():
    assert detect_format(VLLM_C64.name, VLLM_C64.read_bytes()) == "vllm"
    assert detect_format(AIPERF.name, AIPERF.read_bytes()) == "aiperf"
    assert detect_format(GENAI_PERF.name, GENAI_PERF.read_bytes()) == "aiperf"
    assert detect_format(CSV.name, CSV.read_bytes()) == "csv"
    assert detect_format("runs.txt", CSV.read_bytes()) == "csv"  # the header says so
    with pytest.raises(MeasurementFileError, match="give --format"):
        detect_format("x.json", b'{"hello": 1}')


def test_a_vllm_result_reads_as_the_tool_wrote_it():
    run = only_run(prepared(VLLM_C64))
    assert run["tool"] == "vllm" and run["label"] == "h200-replay-c64"
    assert run["model_id"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert (run["accelerator_raw"], run["accelerators"]) == ("H200", 8)  # from the options: vLLM names none
    assert run["request_rate"] is None  # "inf": unbounded
    assert run["max_concurrency"] == 64 and run["completed"] == 2000 and run["failed"] == 0
    assert run["output_tokens_per_second"] == 19840.0 and run["duration_s"] == 100.8
    assert (run["ttft_p99_ms"], run["tpot_p99_ms"], run["itl_p99_ms"]) == (350.0, 28.0, 41.7)
    assert run["e2el_p99_ms"] is None  # vLLM saves E2EL statistics only when asked for them
    assert run["mean_output_tokens"] == pytest.approx(1999872 / 2000)
    assert run["tokens_per_second_per_user"] == pytest.approx(1000 / 22.5)  # 1 / mean TPOT
    assert run["measured_at"] == datetime(2026, 11, 10, 10, 15)  # "20261110-101500"
    assert run["verification"] == "own measurement"
    assert json.loads(run["extra"])["dp"] == "8"  # --metadata dp=8, kept
    assert run["run_id"].endswith("-1") and len(run["run_id"]) == 14


def test_per_request_arrays_are_kept_in_ms_and_an_old_spelling_is_read():
    doc = json.loads(VLLM_DETAILED.read_bytes())
    assert "request_goodput:" in doc  # the early-2025 spelling, with its colon
    doc["request_goodput:"] = 1.2
    result = prepared(VLLM_DETAILED, RunOptions("H200", 1), content=json.dumps(doc).encode())
    run = only_run(result)
    assert run["request_rate"] == 2.0 and run["max_concurrency"] is None
    assert json.loads(run["extra"])["request_goodput"] == 1.2
    requests = result.requests.sort("request_no").to_dicts()
    assert [r["request_no"] for r in requests] == [1, 2, 3, 4]
    first = requests[0]
    assert first["ttft_ms"] == pytest.approx(81.0)  # ttfts are seconds: 0.081 s
    assert first["latency_ms"] == pytest.approx(2748.3)
    # TPOT as vLLM defines it: (latency - ttft) / (output tokens - 1) = (2.7483 - 0.081) / 127 s
    assert first["tpot_ms"] == pytest.approx((2.7483 - 0.081) / 127 * 1000)
    assert first["error"] is None and first["output_tokens"] == 128


def test_append_result_lines_are_one_run_each():
    content = VLLM_C64.read_bytes().strip() + b"\n" + VLLM_C1024.read_bytes().strip() + b"\n"
    result = prepared(VLLM_C64, content=content)
    assert result.runs["run_no"].to_list() == [1, 2]
    assert result.runs["max_concurrency"].to_list() == [64, 1024]


def test_an_aiperf_export_reads_its_metrics_and_load():
    run = only_run(prepared(AIPERF, RunOptions("H200", 1, label="aiperf-c8")))
    assert (run["tool"], run["tool_version"], run["label"]) == ("aiperf", "0.3.0", "aiperf-c8")
    assert run["model_id"] == "meta-llama/Llama-3.1-8B-Instruct" and run["max_concurrency"] == 8
    assert run["completed"] == 100 and run["duration_s"] == 32.05
    assert run["output_tokens_per_second"] == 398.4
    assert (run["ttft_mean_ms"], run["ttft_median_ms"], run["ttft_p99_ms"]) == (52.3, 50.9, 80.2)
    # AIPerf's inter_token_latency is (latency - TTFT) / (OSL - 1): vLLM's TPOT
    assert (run["tpot_mean_ms"], run["tpot_p99_ms"]) == (19.6, 21.9)
    assert run["e2el_p99_ms"] == 2851.0 and run["tokens_per_second_per_user"] == 51.1
    assert run["input_tokens"] == 102400  # 1024 tokens x 100 requests
    assert run["output_tokens"] == 12770
    assert run["total_tokens_per_second"] == pytest.approx((102400 + 12770) / 32.05)
    assert run["measured_at"] == datetime(2026, 11, 7, 13, 38, 54, 793124)


def test_a_genai_perf_export_reads_with_the_aiperf_reader():
    run = only_run(prepared(GENAI_PERF, RunOptions("H100", 8)))
    assert run["tool"] == "genai-perf" and run["model_id"] == "meta-llama/Llama-2-70b-chat-hf"
    assert run["max_concurrency"] == 8 and run["request_rate"] is None
    assert run["tokens_per_second_per_user"] == 49.0  # output_token_throughput_per_request, its older name
    assert (run["ttft_p99_ms"], run["tpot_p99_ms"]) == (79.4, 21.8)
    assert run["measured_at"] is None  # GenAI-Perf writes no time


def test_times_are_converted_from_the_unit_each_metric_states():
    doc = json.loads(AIPERF.read_bytes())
    doc["time_to_first_token"] = {"unit": "sec", "avg": 0.0523, "p50": 0.0509, "p99": 0.0802}
    doc["inter_token_latency"] = {"unit": "requests/sec", "avg": 19.6, "p99": 21.9}  # a mislabelled time
    result = prepared(AIPERF, content=json.dumps(doc).encode())
    assert result.runs.height == 0
    assert result.quarantine["reasons"].to_list() == [["inter_token_latency: unit 'requests/sec' is not a time unit"]]
    del doc["inter_token_latency"]
    run = only_run(prepared(AIPERF, content=json.dumps(doc).encode()))
    assert run["ttft_p99_ms"] == pytest.approx(80.2)


def test_the_first_aiperf_layout_keeps_its_metrics_under_records():
    doc = json.loads(AIPERF.read_bytes())
    metrics = {k: {**v, "tag": k, "header": k} for k, v in doc.items() if isinstance(v, dict) and "unit" in v}
    early = {"records": metrics, "input_config": doc["input_config"], "start_time": doc["start_time"]}
    run = only_run(prepared(AIPERF, content=json.dumps(early).encode()))
    assert run["tool"] == "aiperf" and run["output_tokens_per_second"] == 398.4 and run["ttft_p99_ms"] == 80.2


def test_a_csv_run_with_a_negative_throughput_is_quarantined_and_the_others_load():
    result = prepared(CSV, RunOptions())
    assert result.runs["label"].to_list() == ["b200-replay-c32", "acme-replay"]
    bad = result.quarantine.to_dicts()
    assert [b["run_no"] for b in bad] == [2]
    assert bad[0]["reasons"] == ["output_tokens_per_second: failed greater_than(0) (got -5200.0)"]
    assert json.loads(bad[0]["raw_run"])["label"] == "b200-replay-broken"  # the row as the file had it
    assert json.loads(result.runs["extra"][0]) == {"notes": "replay of week 45 traffic"}


def test_an_option_the_file_contradicts_quarantines_the_run():
    result = prepared(CSV, RunOptions(accelerator="H200"))
    reasons = dict(zip(result.quarantine["run_no"].to_list(), result.quarantine["reasons"].to_list()))
    assert "accelerator: the file says 'B200', --accelerator says 'H200'" in reasons[1]
    assert result.runs.height == 0


def test_a_run_with_no_accelerator_says_which_option_names_it():
    # the count's option is --accelerator-count (issue 55: the reason named --accelerators, its old name)
    result = prepared(VLLM_C64, RunOptions())
    assert result.quarantine["reasons"].to_list() == [[
        "accelerator: none named (the file names none: give --accelerator NAME)",
        "accelerator_count: none given (the file gives none: give --accelerator-count N)"]]


def test_not_a_number_and_infinity_are_quarantined():
    doc = json.loads(VLLM_C64.read_bytes())
    doc["p99_ttft_ms"] = float("nan")
    doc["output_throughput"] = "fast"
    result = prepared(VLLM_C64, content=json.dumps(doc).encode())  # json writes NaN, as vLLM's json.dump does
    reasons = result.quarantine["reasons"].to_list()[0]
    assert "output_throughput: not a number (got 'fast')" in reasons
    assert any("infinite or not a number" in r and "ttft_p99_ms" in r for r in reasons)


@pytest.mark.parametrize("cut", [100, len(VLLM_C64.read_bytes()) - 2])
def test_a_truncated_file_is_refused_in_one_line(cut):
    with pytest.raises(MeasurementFileError) as refused:
        prepared(VLLM_C64, content=VLLM_C64.read_bytes()[:cut])
    message = str(refused.value)
    assert message.startswith(VLLM_C64.name) and "invalid JSON at line" in message and "cut short" in message
    assert "\n" not in message


def test_a_csv_without_its_required_columns_is_refused():
    with pytest.raises(MeasurementFileError, match="missing column.*tokens_per_second"):
        prepared(CSV, content=b"label,model_id\nx,y\n")


def family_of(names: list[str]) -> dict[str, str | None]:
    with duckdb.connect() as con:
        load_reference_tables(con, default_reference())
        return dict(con.execute("SELECT name, family_of(name) FROM unnest(?) AS t(name)", [names]).fetchall())


def test_model_ids_resolve_to_their_mlperf_family_and_other_models_do_not():
    assert family_of([
        "deepseek-ai/DeepSeek-R1-0528", "deepseek-ai/DeepSeek-R1-Distill-Llama-8B",
        "meta-llama/Llama-3.1-8B-Instruct", "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8", "llama3.1:8b",
        "meta-llama/Llama-3.1-70B-Instruct", "meta-llama/Llama-3.1-405B-Instruct-FP8",
        "meta-llama/Llama-2-70b-chat-hf", "openai/gpt-oss-120b", "openai/gpt-oss-20b",
        "Qwen/Qwen3-VL-235B-A22B-Instruct", "Qwen/Qwen3-VL-30B-A3B-Instruct",
        "mistralai/Mixtral-8x7B-Instruct-v0.1", "mistralai/Mixtral-8x22B-Instruct-v0.1",
        "openai/whisper-large-v3", "openai/whisper-small"]) == {
        "deepseek-ai/DeepSeek-R1-0528": "deepseek-r1",
        "deepseek-ai/DeepSeek-R1-Distill-Llama-8B": None,  # a distilled Llama: another model
        "meta-llama/Llama-3.1-8B-Instruct": "llama3.1-8b",
        "RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8": "llama3.1-8b",
        "llama3.1:8b": "llama3.1-8b",
        "meta-llama/Llama-3.1-70B-Instruct": None,  # no MLPerf benchmark runs it
        "meta-llama/Llama-3.1-405B-Instruct-FP8": "llama3.1-405b",
        "meta-llama/Llama-2-70b-chat-hf": "llama2-70b",
        "openai/gpt-oss-120b": "gpt-oss-120b",
        "openai/gpt-oss-20b": None,
        "Qwen/Qwen3-VL-235B-A22B-Instruct": "qwen3-vl-235b-a22b",
        "Qwen/Qwen3-VL-30B-A3B-Instruct": None,
        "mistralai/Mixtral-8x7B-Instruct-v0.1": "mixtral-8x7b",
        "mistralai/Mixtral-8x22B-Instruct-v0.1": None,
        "openai/whisper-large-v3": "whisper",
        "openai/whisper-small": None,
    }


def test_a_request_that_contradicts_itself_quarantines_its_run():
    doc = json.loads(VLLM_DETAILED.read_bytes())
    doc["ttfts"][2] = -0.09  # a negative time to first token
    result = prepared(VLLM_DETAILED, RunOptions("H200", 1), content=json.dumps(doc).encode())
    assert result.runs.height == 0 and result.requests.height == 0
    assert result.quarantine["reasons"].to_list() == [["request 3: ttft_ms: failed greater_than_or_equal_to(0) "
                                                       "(got -90.0)"]]
