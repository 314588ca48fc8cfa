-- How fast does each result answer one user: time to first token and time per output token at p50
-- and p99 next to the constraints the run had to meet, and tokens per second per user?
-- One row per performance result with a LoadGen run summary (mlperf-wh trees). Times in
-- milliseconds = LoadGen's nanoseconds / 1e6. tokens_per_second_per_user = 1 / mean TPOT
-- = 1e9 / tpot_mean_ns (higher is better; null without TPOT statistics, i.e. Offline runs and
-- non-LLM benchmarks). met_constraints: LoadGen's own verdict ('Result is : VALID', which includes
-- the latency constraints); ttft_within_constraint / tpot_within_constraint: p99 <= the constraint.
-- Interactive results are run by LoadGen as Server with tighter constraints (loadgen_scenario).
-- Stored once per load for the marts latency_profile, token_economics and interactivity_frontier,
-- which find a result's row by (source_id, record_no, units).
SELECT
    r.round, r.submitter, r.system, r.result_id, r.accelerator, r.total_accelerators,
    r.benchmark, r.scenario, s.loadgen_scenario, r.value, r.units, r.verification,
    s.latency_p50_ns / 1e6 AS latency_p50_ms,
    s.latency_p99_ns / 1e6 AS latency_p99_ms,
    s.ttft_p50_ns / 1e6 AS ttft_p50_ms,
    s.ttft_p99_ns / 1e6 AS ttft_p99_ms,
    s.ttft_constraint_ns / 1e6 AS ttft_constraint_ms,
    s.tpot_p50_ns / 1e6 AS tpot_p50_ms,
    s.tpot_p99_ns / 1e6 AS tpot_p99_ms,
    s.tpot_constraint_ns / 1e6 AS tpot_constraint_ms,
    1e9 / nullif(s.tpot_mean_ns, 0) AS tokens_per_second_per_user,
    s.result_valid AS met_constraints,
    s.ttft_p99_ns <= s.ttft_constraint_ns AS ttft_within_constraint,
    s.tpot_p99_ns <= s.tpot_constraint_ns AS tpot_within_constraint,
    s.target_qps,
    r.source_id, r.entry_id, r.model, r.used_model, r.run_path, r.record_no
FROM stg_results AS r
JOIN stg_run_summaries AS s USING (round, run_path)
WHERE r.metric = 'performance'
