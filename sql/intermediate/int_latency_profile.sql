-- How fast does each result answer one user: time to first token and time per output token at p50
-- and p99 next to the constraints the run had to meet, and tokens per second per user?
-- One row per performance result with a run summary (mlperf-wh trees): LoadGen's, or the endpoint
-- harness's (result_summary.json, results.json, report.txt; harness and harness_version say which).
-- Times in milliseconds = the files' nanoseconds / 1e6. tokens_per_second_per_user = 1 / mean TPOT
-- = 1e9 / tpot_mean_ns (higher is better; null without TPOT statistics, i.e. Offline runs, non-LLM
-- benchmarks and the endpoint client's results.json, which has no latencies).
-- Constraints: LoadGen's summary prints the ones its run had to meet; the endpoint harness prints
-- none, so its runs take the scenario's from scenario_constraints.csv (stg_scenario_constraints, by
-- benchmark and the row's scenario); constraint_source says which ('run summary',
-- 'scenario_constraints.csv'), null when neither gives one (Offline; Qwen3-VL, whose Server limit is
-- on the whole request's latency, not TTFT/TPOT).
-- met_constraints: LoadGen's own verdict ('Result is : VALID', which includes the latency
-- constraints); for the endpoint harness, which prints no verdict, both p99s within the constraints
-- (null when a constraint or a p99 is unknown). ttft_within_constraint / tpot_within_constraint:
-- p99 <= the constraint.
-- Interactive results are run by LoadGen as Server with tighter constraints (loadgen_scenario).
-- Stored once per load for the marts latency_profile, token_economics and interactivity_frontier,
-- which find a result's row by (source_id, record_no, units).
WITH profiled AS (
    SELECT
        r.*, s.loadgen_scenario, s.harness, s.harness_version, s.result_valid,
        s.latency_p50_ns, s.latency_p99_ns, s.ttft_p50_ns, s.ttft_p99_ns, s.tpot_p50_ns, s.tpot_p99_ns,
        s.tpot_mean_ns, s.target_qps,
        CASE WHEN s.harness = 'LoadGen' THEN s.ttft_constraint_ns / 1e6 ELSE c.ttft_p99_ms END AS ttft_constraint_ms,
        CASE WHEN s.harness = 'LoadGen' THEN s.tpot_constraint_ns / 1e6 ELSE c.tpot_p99_ms END AS tpot_constraint_ms,
        CASE WHEN s.harness = 'LoadGen' AND coalesce(s.ttft_constraint_ns, s.tpot_constraint_ns) IS NOT NULL
                 THEN 'run summary'
             WHEN s.harness <> 'LoadGen' AND c.benchmark IS NOT NULL THEN 'scenario_constraints.csv'
        END AS constraint_source
    FROM stg_results AS r
    JOIN stg_run_summaries AS s USING (round, run_path)
    LEFT JOIN stg_scenario_constraints AS c ON c.benchmark = r.benchmark AND c.scenario = r.scenario
    WHERE r.metric = 'performance'
)
SELECT
    round, submitter, system, result_id, accelerator, total_accelerators,
    benchmark, scenario, loadgen_scenario, value, units, verification,
    latency_p50_ns / 1e6 AS latency_p50_ms,
    latency_p99_ns / 1e6 AS latency_p99_ms,
    ttft_p50_ns / 1e6 AS ttft_p50_ms,
    ttft_p99_ns / 1e6 AS ttft_p99_ms,
    ttft_constraint_ms,
    tpot_p50_ns / 1e6 AS tpot_p50_ms,
    tpot_p99_ns / 1e6 AS tpot_p99_ms,
    tpot_constraint_ms,
    1e9 / nullif(tpot_mean_ns, 0) AS tokens_per_second_per_user,
    CASE WHEN harness = 'LoadGen' THEN result_valid
         ELSE ttft_p99_ns / 1e6 <= ttft_constraint_ms AND tpot_p99_ns / 1e6 <= tpot_constraint_ms
    END AS met_constraints,
    ttft_p99_ns / 1e6 <= ttft_constraint_ms AS ttft_within_constraint,
    tpot_p99_ns / 1e6 <= tpot_constraint_ms AS tpot_within_constraint,
    target_qps,
    harness, harness_version, constraint_source,
    source_id, entry_id, model, used_model, run_path, record_no
FROM profiled
