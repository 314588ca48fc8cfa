"""LoadGen's vocabulary: what a run summary (mlperf_log_summary.txt) and a system description
(systems/<platform>.json) say, and the columns of `run_summaries` and `systems` they become. The parser
(warehouse/trees/parsing.py) reads the files by it; the store (warehouse/store/tree_tables.py) makes the
tables of it; schemas/trees.py validates the rows."""
from __future__ import annotations

from schemas.endpoints import endpoint_column_descriptions

PERCENTILES = {"50.00": "p50", "90.00": "p90", "95.00": "p95", "97.00": "p97", "99.00": "p99",
               "99.90": "p999"}


# LoadGen's key (text before the first colon, stripped, lower case) -> (column, type).
# LoadGen has printed the same quantity under several names across versions; each maps here.
SUMMARY_KEYS: dict[str, tuple[str, str]] = {
    "sut name": ("sut_name", "text"),
    "scenario": ("loadgen_scenario", "text"),
    "mode": ("mode", "text"),
    "result is": ("result_valid", "bool"),
    "performance constraints satisfied": ("performance_constraints_satisfied", "bool"),
    "min duration satisfied": ("min_duration_satisfied", "bool"),
    "min queries satisfied": ("min_queries_satisfied", "bool"),
    "early stopping satisfied": ("early_stopping_satisfied", "bool"),
    "samples per second": ("samples_per_second", "float"),
    "completed samples per second": ("completed_samples_per_second", "float"),
    "scheduled samples per second": ("scheduled_samples_per_second", "float"),
    "tokens per second": ("tokens_per_second", "float"),
    "tokens per second (inferred)": ("tokens_per_second_inferred", "float"),
    "completed tokens per second": ("completed_tokens_per_second", "float"),
    "completed tokens per second (inferred)": ("completed_tokens_per_second_inferred", "float"),
    "qps w/ loadgen overhead": ("qps_with_loadgen_overhead", "float"),
    "qps w/o loadgen overhead": ("qps_without_loadgen_overhead", "float"),
    "min latency (ns)": ("latency_min_ns", "int"),
    "max latency (ns)": ("latency_max_ns", "int"),
    "mean latency (ns)": ("latency_mean_ns", "int"),
    "min first token latency (ns)": ("ttft_min_ns", "int"),
    "max first token latency (ns)": ("ttft_max_ns", "int"),
    "mean first token latency (ns)": ("ttft_mean_ns", "int"),
    "min time per output token (ns)": ("tpot_min_ns", "int"),
    "max time per output token (ns)": ("tpot_max_ns", "int"),
    "mean time per output token (ns)": ("tpot_mean_ns", "int"),
    "min time to output token (ns)": ("tpot_min_ns", "int"),      # LoadGen before v5.1
    "max time to output token (ns)": ("tpot_max_ns", "int"),
    "mean time to output token (ns)": ("tpot_mean_ns", "int"),
    "samples_per_query": ("samples_per_query", "int"),
    "samples per query": ("result_samples_per_query", "int"),  # MultiStream's result before v2.0
    "target_qps": ("target_qps", "float"),
    "target_latency (ns)": ("target_latency_ns", "int"),
    "ttft_latency (ns)": ("ttft_constraint_ns", "int"),
    "tpot_latency (ns)": ("tpot_constraint_ns", "int"),
    "max_async_queries": ("max_async_queries", "int"),
    "min_duration (ms)": ("min_duration_ms", "int"),
    "max_duration (ms)": ("max_duration_ms", "int"),
    "min_query_count": ("min_query_count", "int"),
    "max_query_count": ("max_query_count", "int"),
    "qsl_rng_seed": ("qsl_rng_seed", "int"),
    "sample_index_rng_seed": ("sample_index_rng_seed", "int"),
    "schedule_rng_seed": ("schedule_rng_seed", "int"),
    "accuracy_log_rng_seed": ("accuracy_log_rng_seed", "int"),
    "performance_sample_count": ("performance_sample_count", "int"),
    "accuracy_sample_count": ("accuracy_sample_count", "int"),
}
PERCENTILE_PREFIX = {"latency": "latency", "first token latency": "ttft", "time to output token": "tpot"}
EARLY_STOPPING_PERCENTILES = {90.0: "p90", 99.0: "p99", 99.9: "p999"}

SUMMARY_COLUMNS: dict[str, str] = {
    **{column: kind for column, kind in SUMMARY_KEYS.values()},
    **{f"{prefix}_{p}_ns": "int" for prefix in PERCENTILE_PREFIX.values() for p in PERCENTILES.values()},
    "result_latency_percentile": "float", "result_latency_ns": "int",
    "result_ttft_ns": "int",
    **{f"{block}early_stopping_{p}_ns": "int" for block in ("", "ttft_", "tpot_")
       for p in EARLY_STOPPING_PERCENTILES.values()},
    "warnings": "int", "errors": "int",
}

SYSTEM_TEXT_FIELDS = (
    "system_name", "submitter", "division", "status", "system_type",
    "host_processor_model_name", "host_memory_capacity", "host_memory_configuration",
    "host_networking", "host_networking_topology", "host_network_card_count",
    "accelerator_model_name", "accelerator_memory_capacity", "accelerator_memory_configuration",
    "accelerator_interconnect", "accelerator_interconnect_topology", "accelerator_host_interconnect",
    "cooling", "framework", "other_software_stack", "operating_system", "hw_notes", "sw_notes",
)
SYSTEM_COUNT_FIELDS = ("number_of_nodes", "host_processors_per_node", "host_processor_core_count",
                       "accelerators_per_node")


# What each column of `run_summaries` and `systems` holds, in LoadGen's and the system description's
# own words: the column comments of those tables (warehouse/views/source_docs.py).
_PREFIX_WORDS = {"latency": "latency", "ttft": "time to first token", "tpot": "time per output token"}


def summary_column_descriptions() -> dict[str, str]:
    described = {}
    for key, (column, _) in SUMMARY_KEYS.items():
        described.setdefault(column, f"the summary's '{key}' line, as printed")
    for words, prefix in PERCENTILE_PREFIX.items():
        for printed, p in PERCENTILES.items():
            described[f"{prefix}_{p}_ns"] = f"{printed} percentile {_PREFIX_WORDS[prefix]}, ns ('{printed} percentile {words} (ns)')"
    for block, words in (("", "latency"), ("ttft_", "time to first token"), ("tpot_", "time per output token")):
        for percentile, p in EARLY_STOPPING_PERCENTILES.items():
            described[f"{block}early_stopping_{p}_ns"] = (
                f"early-stopping estimate of the {percentile:g}th percentile {words}, ns")
    described |= {
        "result_latency_percentile": "the percentile the scenario's result line reports (e.g. 90 for SingleStream, 99 for MultiStream)",
        "result_latency_ns": "the scenario's reported latency at result_latency_percentile, ns",
        "result_ttft_ns": "the reported time to first token at the result percentile, ns",
        "warnings": "number of warnings LoadGen logged",
        "errors": "number of errors LoadGen logged",
    }
    return described | endpoint_column_descriptions()  # the endpoint harness's columns of the same table


def system_column_descriptions() -> dict[str, str]:
    described = {f: f"the description's '{f}' field, as published" for f in SYSTEM_TEXT_FIELDS}
    described |= {f: f"the description's '{f}' field, as an integer" for f in SYSTEM_COUNT_FIELDS}
    described |= {
        "system_name": "the system's name (system_name), as published",
        "status": "availability as the submitter wrote it (status): available, preview or rdi",
        "host_memory_gb": "host_memory_capacity in GB ('2 TB' -> 2000; null when not one number and a unit)",
        "accelerator_memory_gb": "accelerator_memory_capacity in GB ('180 GB' -> 180; null when not one number and a unit)",
    }
    return described
