"""Your own serving measurements: one row per benchmark run you made (vLLM's `vllm bench serve
--save-result`, AIPerf or GenAI-Perf's JSON export, or a CSV of the same fields), and the
per-request rows when the file has them. They are labelled `own measurement` and never enter an
MLPerf comparison or leaderboard; `own_vs_mlperf` sets them beside the audited rows.

A run is quarantined, with every reason, when it has no model id, no accelerator or count, no
positive output throughput, or a number that is negative, infinite or not a number; units are
normalised by the readers (times in ms, throughputs per second)."""
from __future__ import annotations

import pandera.polars as pa
import polars as pl

# What wrote the file: `--format` chooses the reader (aiperf reads GenAI-Perf's export too).
FORMATS = ["vllm", "aiperf", "csv"]
TOOLS = ["vllm", "aiperf", "genai-perf", "csv"]
VERIFICATION = "own measurement"
# The latency statistics every run may carry, each in ms: time to first token, time per output token
# (after the first), inter-token latency (between streamed chunks) and end-to-end request latency.
LATENCIES = ["ttft", "tpot", "itl", "e2el"]
STATISTICS = ["mean", "median", "p99"]
LATENCY_COLUMNS = [f"{metric}_{stat}_ms" for metric in LATENCIES for stat in STATISTICS]


def _latency(metric: str, stat: str) -> pa.Field:
    words = {"ttft": "time to first token", "tpot": "time per output token after the first",
             "itl": "inter-token latency (between streamed chunks)", "e2el": "end-to-end request latency"}
    return pa.Field(nullable=True, ge=0, description=f"{stat} {words[metric]}, ms")


class OwnRun(pa.DataFrameModel):
    """One run of a serving benchmark against your deployment (table `own_measurements`)."""

    run_id: str = pa.Field(unique=True, description="first 12 hex digits of the file's sha256, '-', run_no")
    file_sha256: str = pa.Field(str_matches=r"^[0-9a-f]{64}$", description="the file it was read from")
    run_no: pl.Int64 = pa.Field(ge=1, description="its place in the file (a CSV row, a JSON line)")
    tool: str = pa.Field(isin=TOOLS, description="what wrote the file")
    tool_version: str = pa.Field(description="the version of the tool that wrote the file", nullable=True)
    label: str = pa.Field(nullable=True, description="your name for the run (--label, the file's label)")
    model_id: str = pa.Field(str_length={"min_value": 1}, description="the model as the tool reports it")
    accelerator_raw: str = pa.Field(str_length={"min_value": 1},
                                    description="the accelerator as you named it (resolved in the views)")
    accelerators: pl.Int64 = pa.Field(ge=1, description="accelerators serving the run")
    system: str = pa.Field(nullable=True, description="the system, as you describe it")
    measured_at: pl.Datetime = pa.Field(nullable=True, description="when the run started, as the tool wrote it")
    backend: str = pa.Field(nullable=True, description="the serving endpoint type (openai-chat, vllm...)")
    max_concurrency: pl.Int64 = pa.Field(nullable=True, ge=1, description="requests in flight at most")
    request_rate: float = pa.Field(nullable=True, gt=0, description="requests offered per second; null = unbounded")
    completed: pl.Int64 = pa.Field(nullable=True, ge=0, description="requests that succeeded")
    failed: pl.Int64 = pa.Field(nullable=True, ge=0, description="requests that failed")
    duration_s: float = pa.Field(nullable=True, gt=0, description="the run's wall time, s")
    input_tokens: pl.Int64 = pa.Field(nullable=True, ge=0, description="prompt tokens, all requests")
    output_tokens: pl.Int64 = pa.Field(nullable=True, ge=0, description="generated tokens, all requests")
    mean_input_tokens: float = pa.Field(nullable=True, ge=0, description="prompt tokens per request")
    mean_output_tokens: float = pa.Field(nullable=True, ge=0, description="generated tokens per request")
    request_throughput: float = pa.Field(nullable=True, ge=0, description="requests per second")
    output_tokens_per_second: float = pa.Field(gt=0, description="generated tokens per second, the whole system")
    total_tokens_per_second: float = pa.Field(nullable=True, ge=0, description="prompt + generated tokens per second")
    ttft_mean_ms: float = _latency("ttft", "mean")
    ttft_median_ms: float = _latency("ttft", "median")
    ttft_p99_ms: float = _latency("ttft", "p99")
    tpot_mean_ms: float = _latency("tpot", "mean")
    tpot_median_ms: float = _latency("tpot", "median")
    tpot_p99_ms: float = _latency("tpot", "p99")
    itl_mean_ms: float = _latency("itl", "mean")
    itl_median_ms: float = _latency("itl", "median")
    itl_p99_ms: float = _latency("itl", "p99")
    e2el_mean_ms: float = _latency("e2el", "mean")
    e2el_median_ms: float = _latency("e2el", "median")
    e2el_p99_ms: float = _latency("e2el", "p99")
    tokens_per_second_per_user: float = pa.Field(nullable=True, gt=0, description="what one user sees: the "
                                                 "tool's per-user rate, else 1000 / tpot_mean_ms")
    verification: str = pa.Field(description="always 'own measurement': never an MLPerf row", isin=[VERIFICATION])
    extra: str = pa.Field(nullable=True, description="JSON: the run's other fields, as the file has them")

    @pa.dataframe_check(error="a number is infinite or not a number")
    def numbers_finite(cls, data) -> pl.LazyFrame:
        floats = [name for name, dtype in data.lazyframe.collect_schema().items() if dtype == pl.Float64]
        return data.lazyframe.select(pl.all_horizontal(pl.col(c).is_finite().fill_null(True) for c in floats))


class OwnRequest(pa.DataFrameModel):
    """One request of a run, when the file keeps them (vLLM's --save-detailed arrays): table
    `own_measurement_requests`, for your own percentiles."""

    run_id: str = pa.Field(description="the run the request belongs to (own_measurements.run_id)")
    request_no: pl.Int64 = pa.Field(description="its place in the run, from 1", ge=1)
    input_tokens: pl.Int64 = pa.Field(description="prompt tokens of the request", nullable=True, ge=0)
    output_tokens: pl.Int64 = pa.Field(description="generated tokens of the request", nullable=True, ge=0)
    ttft_ms: float = pa.Field(nullable=True, ge=0, description="time to first token, ms")
    latency_ms: float = pa.Field(nullable=True, ge=0, description="end-to-end latency, ms")
    tpot_ms: float = pa.Field(nullable=True, ge=0, description="(latency - ttft) / (output tokens - 1), ms")
    error: str = pa.Field(nullable=True, description="the request's error; null when it succeeded")
