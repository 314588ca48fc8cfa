-- How much faster is a part than its predecessors of the same product line, segment and form factor,
-- on the same benchmark and scenario, in the same round, at the same scale, and on what basis?
-- Pairs: hardware_new succeeds hardware_base in the reference tables' predecessor chain
-- (stg_successions: B300 -> B200 -> H200 SXM -> H100 SXM; GB300 -> GB200; MI355X -> MI325X -> MI300X;
-- Xeon 6980P -> Xeon Platinum 8592+; generations_apart = steps along it), both of one segment
-- (datacenter, workstation, edge, client) and one form factor, at the same hardware count. A pair
-- across segments or form factors never appears: a datacenter GPU "over" a gaming card, or an NVL72
-- tray over a PCIe card, says nothing a buyer can use.
-- Each side is the best verified-or-preview closed-division result of that hardware at that scale
-- (int_best_results, best_of_hardware: rows that compare as their hardware, so never a run without its
-- accelerator or an inferred result). hardware: an accelerator, or the processor of a CPU-only system.
-- speedup = value_new / value_base for throughput, value_base / value_new for latency.
-- newer_is_slower: speedup < 1; kept and flagged, never hidden.
-- The basis of the pair, so a speedup is read for what it is:
--   stack_new, stack_base: each side's serving stack family (stg_results.stack: TensorRT, vLLM...);
--     same_stack: both known and equal; same_submitter.
--   server_offline_ratio_new, _base: each side's own Server (or Interactive) rate over the same entry's
--     Offline rate on the benchmark, in the same count (a query is one sample: Queries/s against
--     Samples/s); null for Offline pairs and for an entry without an Offline result. The same entry:
--     the same system entry of the same load (source_id, entry_id), a published table's or a tree's.
--   baseline_lags: the baseline's ratio is below 0.8 x the new side's: the baseline serves far below
--     its own ceiling, so the speedup measures its serving as much as the part (RedHat's v6.0 H200
--     qwen3-vl ran Server at 11.05 of its Offline 18.22, 0.61, against 0.86 on its B200).
--   like_for_like: same_stack and not baseline_lags: the pairs the run report prints as headlines.
-- corroborated: same_submitter and same_stack: one submitter ran both parts with one stack.
-- ceiling: the largest speedup believed without corroboration (plausibility_ceilings.csv,
--   generation_speedup); implausible: above it and not corroborated: a finding of the pair
--   (`anomalies`, implausible_gain), never procurement grade.
-- run_path_new, run_path_base: each side's run folder (a row rebuilt from a tree has no result ID).
-- source_id_new, record_no_new, source_id_base, record_no_base: each side's row key (stg_results), by
--   which the mart generation_speedups grades it (int_result_eligibility) and int_pair_findings blames
--   it: a row rebuilt from a submission tree has no result_id. Internal: no mart shows them.
-- procurement_grade is true only when both sides are verified, neither has an anomaly finding
-- (int_row_findings) and the pair is not implausible; preview rows take part and are labelled. The
-- mart also requires both sides procurement grade by the one eligibility rule (int_result_eligibility).
-- Stored once per load for the marts generation_speedups and anomalies.
WITH best AS (
    SELECT b.*, h.vendor, h.generation, h.segment, h.form_factor, h.line
    FROM int_best_results AS b
    JOIN stg_hardware AS h USING (hardware, hardware_kind)
    WHERE b.best_of_hardware AND h.line IS NOT NULL
),
offline AS (
    -- a Server query is one sample: Queries/s and Samples/s count alike (Qwen3-VL publishes both).
    -- The entry is (source_id, entry_id), not result_id: a row rebuilt from a tree has no result_id.
    SELECT source_id, entry_id, benchmark, rate_kind(units) AS rate_kind, max(value) AS offline_value
    FROM stg_results
    WHERE metric = 'performance' AND scenario = 'Offline' AND higher_is_better
    GROUP BY ALL
),
pairs AS (
    SELECT
        n.round, n.benchmark, n.scenario, n.units, n.hardware_count, n.total_accelerators,
        n.hardware_kind, n.vendor, n.line, n.segment, n.form_factor,
        n.hardware AS hardware_new, b.hardware AS hardware_base,
        n.accelerator AS accelerator_new, b.accelerator AS accelerator_base,
        s.steps AS generations_apart,
        n.generation AS generation_new, b.generation AS generation_base,
        n.value AS value_new, b.value AS value_base,
        CASE WHEN n.higher_is_better THEN n.value / b.value ELSE b.value / n.value END AS speedup,
        CASE WHEN n.higher_is_better THEN n.value < b.value ELSE n.value > b.value END AS newer_is_slower,
        n.submitter AS submitter_new, b.submitter AS submitter_base,
        n.result_id AS result_id_new, b.result_id AS result_id_base,
        n.run_path AS run_path_new, b.run_path AS run_path_base,
        n.source_id AS source_id_new, n.record_no AS record_no_new,
        b.source_id AS source_id_base, b.record_no AS record_no_base,
        n.verification AS verification_new, b.verification AS verification_base,
        n.stack AS stack_new, b.stack AS stack_base,
        coalesce(n.stack = b.stack, false) AS same_stack,
        n.submitter = b.submitter AS same_submitter,
        CASE WHEN n.scenario <> 'Offline' AND n.higher_is_better THEN n.value / ono.offline_value END
            AS server_offline_ratio_new,
        CASE WHEN n.scenario <> 'Offline' AND n.higher_is_better THEN b.value / obo.offline_value END
            AS server_offline_ratio_base,
        n.has_finding AS has_finding_new, b.has_finding AS has_finding_base
    FROM best AS n
    JOIN stg_successions AS s ON s.hardware = n.hardware
    JOIN best AS b
      ON  b.hardware = s.ancestor AND b.round = n.round AND b.benchmark = n.benchmark AND b.scenario = n.scenario
      AND b.units = n.units AND b.hardware_count = n.hardware_count
      AND b.segment = n.segment AND b.form_factor = n.form_factor
    LEFT JOIN offline AS ono
      ON  ono.source_id = n.source_id AND ono.entry_id = n.entry_id AND ono.benchmark = n.benchmark
      AND ono.rate_kind = rate_kind(n.units)
    LEFT JOIN offline AS obo
      ON  obo.source_id = b.source_id AND obo.entry_id = b.entry_id AND obo.benchmark = b.benchmark
      AND obo.rate_kind = rate_kind(b.units)
)
SELECT
    p.* EXCLUDE (has_finding_new, has_finding_base),
    coalesce(p.server_offline_ratio_base < 0.8 * p.server_offline_ratio_new, false) AS baseline_lags,
    p.same_stack AND NOT baseline_lags AS like_for_like,
    p.same_submitter AND p.same_stack AS corroborated,
    c.ceiling,
    coalesce(p.speedup > c.ceiling AND NOT corroborated, false) AS implausible,
    p.has_finding_new, p.has_finding_base,
    (p.verification_new = 'verified' AND p.verification_base = 'verified' AND NOT p.has_finding_new
     AND NOT p.has_finding_base AND NOT implausible) AS procurement_grade
FROM pairs AS p
LEFT JOIN stg_plausibility_ceilings AS c ON c.comparison = 'generation_speedup'
