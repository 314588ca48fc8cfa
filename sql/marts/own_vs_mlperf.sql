-- How far is each of your own runs from the audited MLPerf results of the same model on the same
-- accelerator, and from those of the other accelerators of its product line?
-- One row per (own run, MLPerf throughput row): every verified and, labelled, preview row (closed
-- division) of a benchmark of the run's family (stg_own_measurements.benchmarks) on the same
-- canonical accelerator (match 'same accelerator'), or on another accelerator of the same product line
-- of accelerators.csv (match 'same product line'). Runs whose accelerator or model matches no
-- reference pattern have no rows (see `drift`).
-- Throughput in generated tokens per second per accelerator on both sides (MLPerf's as
-- token_economics derives it, its unit checked; null for benchmarks that count samples);
-- own_over_mlperf = own / MLPerf. Per rack: each side's per accelerator x its accelerator's
-- accelerators_per_rack (rack_capacity.csv), own_over_mlperf_per_rack their ratio.
-- Interaction pattern: the p99 time to first token and time per output token of your run, of the
-- MLPerf run (latency_profile, once `mlperf-wh trees` has loaded its summary) and the scenario's
-- constraints (scenario_constraints.csv). pattern_match: your run keeps the scenario's constraints
-- (both p99s within them; false as soon as one is over); null for Offline, which has no latency
-- constraint (its throughput is a ceiling, not a pattern), or when a p99 is unknown.
-- pattern_distance = sqrt(ln(own ttft / ref ttft)^2 + ln(own tpot / ref tpot)^2), the reference being
-- the MLPerf run's measured p99 where known, else the scenario's constraint: 0 = the same pattern;
-- 0.69 = one latency twice or half the other; pattern_reference says which reference ('run p99' or
-- 'constraint'). nearest_pattern: the one row per run with the smallest distance, among usable rows
-- (int_result_eligibility: no anomaly finding, comparable as its hardware; mlperf_has_finding is its
-- negation), same accelerator before product line, verified before preview; ties (rows measured
-- against the same constraint tie by construction) to the highest published throughput per accelerator
-- in its own unit, then the smallest result ID: figures of the row itself, so loading a tree or
-- another round never reorders a tie.
WITH own AS (
    SELECT * FROM stg_own_measurements WHERE accelerator IS NOT NULL AND family IS NOT NULL
),
mlperf AS (
    SELECT e.*, lp.ttft_p99_ms, lp.tpot_p99_ms, NOT e.usable AS has_finding
    FROM int_token_economics AS e
    LEFT JOIN int_latency_profile AS lp
      ON lp.source_id = e.source_id AND lp.record_no = e.record_no AND lp.units = e.throughput_unit
    WHERE e.verification IN ('verified', 'preview')
),
paired AS (
    SELECT
        o.run_id, o.label, o.model_id, o.family,
        o.accelerator AS own_accelerator, o.accelerators AS own_accelerator_count,
        CASE WHEN m.accelerator = o.accelerator THEN 'same accelerator' ELSE 'same product line' END AS match,
        m.round, m.result_id, m.submitter, m.system,
        m.accelerator AS mlperf_accelerator, m.total_accelerators AS mlperf_accelerator_count,
        m.benchmark, m.scenario, m.verification, m.has_finding AS mlperf_has_finding,
        o.output_tokens_per_second AS own_tokens_per_second,
        o.tokens_per_second_per_accelerator AS own_tokens_per_second_per_accelerator,
        m.tokens_per_second AS mlperf_tokens_per_second,
        m.tokens_per_second_per_accelerator AS mlperf_tokens_per_second_per_accelerator,
        o.tokens_per_second_per_accelerator / m.tokens_per_second_per_accelerator AS own_over_mlperf,
        o.ttft_p99_ms AS own_ttft_p99_ms, m.ttft_p99_ms AS mlperf_ttft_p99_ms, c.ttft_p99_ms AS constraint_ttft_p99_ms,
        o.tpot_p99_ms AS own_tpot_p99_ms, m.tpot_p99_ms AS mlperf_tpot_p99_ms, c.tpot_p99_ms AS constraint_tpot_p99_ms,
        CASE WHEN m.scenario = 'Offline' OR c.benchmark IS NULL THEN NULL
             WHEN o.ttft_p99_ms > c.ttft_p99_ms OR o.tpot_p99_ms > c.tpot_p99_ms THEN false
             WHEN o.ttft_p99_ms IS NULL OR o.tpot_p99_ms IS NULL THEN NULL
             ELSE true END AS pattern_match,
        CASE WHEN m.scenario <> 'Offline' THEN
            sqrt(ln(o.ttft_p99_ms / coalesce(m.ttft_p99_ms, c.ttft_p99_ms)) ^ 2
                 + ln(o.tpot_p99_ms / coalesce(m.tpot_p99_ms, c.tpot_p99_ms)) ^ 2) END AS pattern_distance,
        CASE WHEN m.scenario = 'Offline' THEN NULL
             WHEN m.ttft_p99_ms IS NOT NULL AND m.tpot_p99_ms IS NOT NULL THEN 'run p99'
             WHEN c.benchmark IS NOT NULL THEN 'constraint' END AS pattern_reference,
        m.throughput_per_accelerator AS mlperf_throughput_per_accelerator, m.throughput_unit AS mlperf_throughput_unit,
        o.tokens_per_second_per_user AS own_tokens_per_second_per_user,
        m.tokens_per_second_per_user AS mlperf_tokens_per_second_per_user,
        o.accelerators_per_rack AS own_accelerators_per_rack, o.rack_basis AS own_rack_basis,
        o.tokens_per_second_per_rack AS own_tokens_per_second_per_rack,
        m.accelerators_per_rack AS mlperf_accelerators_per_rack, m.rack_basis AS mlperf_rack_basis,
        m.tokens_per_second_per_rack AS mlperf_tokens_per_second_per_rack,
        o.tokens_per_second_per_rack / m.tokens_per_second_per_rack AS own_over_mlperf_per_rack
    FROM own AS o
    JOIN stg_accelerators AS own_line ON own_line.accelerator = o.accelerator
    JOIN mlperf AS m ON list_contains(o.benchmarks, m.benchmark)
    JOIN stg_accelerators AS mlperf_line ON mlperf_line.accelerator = m.accelerator
    LEFT JOIN stg_scenario_constraints AS c ON c.benchmark = m.benchmark AND c.scenario = m.scenario
    WHERE m.accelerator = o.accelerator OR mlperf_line.line = own_line.line
)
SELECT
    *,
    pattern_distance IS NOT NULL AND NOT mlperf_has_finding AND row_number() OVER (
        PARTITION BY run_id
        ORDER BY pattern_distance IS NULL OR mlperf_has_finding, match = 'same product line',
                 verification <> 'verified', pattern_distance, mlperf_throughput_per_accelerator DESC NULLS LAST,
                 result_id, benchmark, scenario) = 1 AS nearest_pattern
FROM paired
