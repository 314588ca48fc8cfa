"""The endpoint harness's vocabulary: the files MLPerf's new harness (and its endpoint client) leave in
a run folder instead of LoadGen's logs, where they lie, and the columns of `run_summaries` they fill
beside LoadGen's (schemas/loadgen.py). The parsers (warehouse/trees/parsing_endpoints.py) read the
files by it; warehouse/store/tree_tables.py makes the table's columns of it; schemas/trees.py
validates the rows.

Seen in mlcommons/inference_results_v6.1 (tests/fixtures/trees_v6.1/README.md names the files):
- `<scenario>/performance/result_summary.json`: the harness's own summary (NVIDIA's Vera Rubin
  NVL72 entries), times in ns;
- `<scenario>/report.txt`: the same figures as text, times in ms with two decimals (the fallback);
- `<scenario>/performance/run_1/results.json`: the endpoint client's output (Lambda): the run's
  totals and rate before every response it received (20 MB); only its head is read.
"""
from __future__ import annotations

LOADGEN = "LoadGen"
ENDPOINT_HARNESS = "endpoint harness"
ENDPOINT_CLIENT = "endpoint client"
HARNESSES = (LOADGEN, ENDPOINT_HARNESS, ENDPOINT_CLIENT)

# Where a run folder's files lie, relative to its scenario folder (the run folder is
# <scenario>/performance/run_1), in the order they are looked for: the first found is read.
RUN_FILES: tuple[tuple[str, str], ...] = (
    ("performance/run_1/mlperf_log_summary.txt", LOADGEN),
    ("performance/result_summary.json", ENDPOINT_HARNESS),
    ("performance/run_1/results.json", ENDPOINT_CLIENT),
    ("report.txt", ENDPOINT_HARNESS),
)
# results.json carries every response after its header: only this many first bytes are fetched.
HEAD_BYTES = {"results.json": 256 * 1024}

# The load pattern -> the scenario LoadGen would have run: Server and Interactive runs are both
# Poisson arrivals (Interactive with tighter limits), as LoadGen prints `Scenario : Server` for both.
LOAD_PATTERN_SCENARIO = {"max_throughput": "Offline", "poisson": "Server"}

# The harness's percentile keys ("99.9") -> the column suffixes LoadGen's use; the other
# percentiles it prints (1, 5, 10, 25, 75, 80) are kept as unparsed lines.
PERCENTILE_KEYS = {"50.0": "p50", "90.0": "p90", "95.0": "p95", "97.0": "p97", "99.0": "p99", "99.9": "p999"}
EARLY_STOPPING_KEYS = {"90.0": "p90", "99.0": "p99", "99.9": "p999"}
# The harness's statistics blocks -> the column prefix (ttft_, tpot_, latency_; early stopping:
# ttft_early_stopping_, tpot_early_stopping_, early_stopping_ as LoadGen's).
BLOCKS = {"ttft": "ttft", "tpot": "tpot", "latency": "latency"}
EARLY_STOPPING_PREFIX = {"ttft": "ttft_", "tpot": "tpot_", "latency": ""}

# Columns of run_summaries only the endpoint files fill (null for LoadGen's rows but harness and
# summary_path), with their types.
ENDPOINT_COLUMNS: dict[str, str] = {
    "harness": "text", "harness_version": "text", "summary_path": "text", "load_pattern": "text",
    "samples_issued": "int", "samples_completed": "int", "samples_failed": "int", "duration_ns": "int",
    "run_complete": "bool", "output_tokens_total": "int", "output_tokens_mean": "float",
}


def endpoint_column_descriptions() -> dict[str, str]:
    return {
        "harness": f"what wrote the file the row was read from: '{LOADGEN}' (mlperf_log_summary.txt), "
                   f"'{ENDPOINT_HARNESS}' (result_summary.json, or report.txt when that is all the folder "
                   f"holds) or '{ENDPOINT_CLIENT}' (results.json)",
        "harness_version": "the harness's version as its file prints it ('version'); null for LoadGen's "
                           "summary and the endpoint client, which print none",
        "summary_path": "the file the row was read from, relative to the round repository",
        "load_pattern": "the endpoint harness's load pattern (run_config.load_pattern.type: max_throughput "
                        "runs Offline, poisson Server and Interactive); null for LoadGen and the endpoint "
                        "client (whose scenario is Server when it names a target_qps, else Offline)",
        "samples_issued": "samples the harness issued (n_samples_issued; the client's 'total')",
        "samples_completed": "samples that completed (n_samples_completed; the client's 'successful')",
        "samples_failed": "samples that failed (n_samples_failed; the client's 'failed')",
        "duration_ns": "the run's duration, ns (duration_ns; the client's elapsed_time x 1e9)",
        "run_complete": "the harness says the run completed (complete: true); null for LoadGen and the client",
        "output_tokens_total": "output tokens generated over the run (output_sequence_lengths.total)",
        "output_tokens_mean": "mean output tokens per sample (output_sequence_lengths.avg)",
    }
