-- How much faster did the same hardware get on the same benchmark and scenario from one round to the
-- previous round in which it submitted that benchmark? (verified rows on both sides)
-- hardware: the canonical accelerator or, for a CPU-only system, processor (stg_results).
-- basis 'same_scale': same submitter, hardware and hardware count (total accelerators, or processors);
--   values are the system results. gain = value_to / value_from for throughput, value_from / value_to
--   for latency. The only basis that isolates software: the system did not change size.
-- basis 'per_accelerator': same submitter and accelerator at any scale, throughput only; values are
--   throughput / total accelerators (a 4-GPU slice one round, the full rack the next).
--   gain = value_to / value_from. total_accelerators is null; the sizes are in scale_from / scale_to.
--   scale_changed: the two sides are systems of different sizes, so the gain mixes software with
--   scale (a rack's NVLink domain against a tray): never procurement grade.
-- basis 'hardware_best' (what the hardware gained, whoever submitted it) is paired apart, after the
--   anomaly rules, from the best rows they clear (int_hardware_gains): this table's pairs are what the
--   implausible-gain rule reads (int_pair_findings), so they cannot wait for it.
-- Each side is the best verified result of its key in its round (int_best_results).
-- system_changed: the two sides are different systems (platform: Dell's XE9685L one round, its XE9780
--   the next); host_changed: the host processor differs (platform_from, platform_to, processor_from,
--   processor_to: each side's, as published). software_alone: one submitter's same system,
--   host and size on both sides: the only pairs whose gain is software's alone (README question 2).
-- Both sides are of one era of the benchmark and scenario (int_figure_eras, benchmark_eras.csv): no
--   change of model, data set, accuracy target or metric lies between them (3d-unet's data set in v2.0,
--   MultiStream's metric in v2.0): a pair across one is never made.
-- rounds_spanned: the rounds the warehouse knows of (stg_rounds) strictly between round_from and
--   round_to that it has not loaded; a gain across them may fold in a round nobody compared; empty
--   when every round between is loaded.
-- Only rows that compare as their hardware take part (int_best_results: not run without the
-- accelerator, not inferred): Dell's GB10 "CPU only submission" of v6.0 is never a GB10's baseline.
-- stack_from, stack_to: the serving stack family of each side (stg_results.stack).
-- corroborated: the two sides are one submitter's same system (platform) with the same published
--   notes: the gain can only come from what the system ran.
-- ceiling: the largest gain believed without corroboration (stg_plausibility_ceilings, software_gain);
--   implausible: gain above it and not corroborated: a finding of the pair (`anomalies`,
--   implausible_gain), never procurement grade.
-- has_finding_from, has_finding_to: each side's own anomaly finding (int_row_findings).
-- source_id_from, record_no_from, source_id_to, record_no_to: each side's row key (stg_results), by
--   which int_software_gains_graded grades it (int_result_eligibility) and int_pair_findings blames it:
--   a row rebuilt from a submission tree has no result_id. Internal: no mart shows them.
-- procurement_grade: both sides verified (always, here) at the same scale, neither with an anomaly
-- finding (int_row_findings), and not implausible; int_software_gains_graded (what the marts
-- software_gains and software_gain_summary read) also requires both sides to be procurement grade by
-- the one eligibility rule (int_result_eligibility: no pair finding blames them either).
-- Stored once per load for the marts software_gains and software_gain_summary.
WITH same_scale AS (
    SELECT 'same_scale' AS basis, submitter, submitter AS submitter_key, hardware, hardware_kind, accelerator, cpu,
           hardware_count AS scale_key, benchmark, scenario, units, higher_is_better, round, round_order,
           value AS basis_value, hardware_count AS scale, total_accelerators, software, stack, platform,
           processor, notes_hash, result_id, source_id, record_no, verification, has_finding
    FROM int_best_results
    WHERE verification = 'verified'
),
per_accelerator AS (
    SELECT 'per_accelerator' AS basis, submitter, submitter AS submitter_key, hardware, hardware_kind, accelerator,
           cpu, NULL::BIGINT AS scale_key, benchmark, scenario, units, higher_is_better, round, round_order,
           value_per_accelerator AS basis_value, hardware_count AS scale, total_accelerators, software,
           stack, platform, processor, notes_hash, result_id, source_id, record_no, verification, has_finding
    FROM int_best_results
    WHERE best_per_accelerator_of_submitter
),
sides AS (
    SELECT * FROM same_scale
    UNION ALL BY NAME SELECT * FROM per_accelerator
),
paired AS (
    SELECT
        s.*,
        lag(round) OVER w AS round_from,
        lag(round_order) OVER w AS round_order_from,
        lag(basis_value) OVER w AS value_from,
        lag(scale) OVER w AS scale_from,
        lag(total_accelerators) OVER w AS total_accelerators_from,
        lag(software) OVER w AS software_from,
        lag(stack) OVER w AS stack_from,
        lag(platform) OVER w AS platform_from,
        lag(processor) OVER w AS processor_from,
        lag(submitter) OVER w AS submitter_from,
        lag(notes_hash) OVER w AS notes_hash_from,
        lag(result_id) OVER w AS result_id_from,
        lag(source_id) OVER w AS source_id_from,
        lag(record_no) OVER w AS record_no_from,
        lag(verification) OVER w AS verification_from,
        lag(has_finding) OVER w AS has_finding_from
    FROM sides AS s
    LEFT JOIN int_figure_eras AS fe USING (round, benchmark, scenario)
    WINDOW w AS (PARTITION BY basis, submitter_key, hardware, scale_key, benchmark, scenario, units, fe.era
                 ORDER BY round_order)
),
spans AS (
    SELECT k.round_from, k.round,
           list(r.round ORDER BY r.round_order) FILTER (WHERE r.round IS NOT NULL) AS rounds_spanned
    FROM (SELECT DISTINCT round_from, round_order_from, round, round_order FROM paired
          WHERE round_from IS NOT NULL) AS k
    LEFT JOIN stg_rounds AS r
      ON NOT r.loaded AND r.round_order > k.round_order_from AND r.round_order < k.round_order
    GROUP BY k.round_from, k.round
),
judged AS (
    SELECT p.*,
           CASE WHEN p.higher_is_better THEN p.basis_value / p.value_from ELSE p.value_from / p.basis_value END AS gain,
           p.submitter_from = p.submitter AND p.platform_from = p.platform
               AND p.notes_hash_from IS NOT DISTINCT FROM p.notes_hash AS corroborated,
           c.ceiling,
           gain > c.ceiling AND NOT corroborated AS implausible
    FROM paired AS p
    LEFT JOIN stg_plausibility_ceilings AS c ON c.comparison = 'software_gain'
    WHERE p.round_from IS NOT NULL
)
SELECT
    p.basis, p.submitter, p.submitter_from, p.hardware, p.hardware_kind, p.accelerator, p.cpu,
    CASE WHEN p.basis <> 'per_accelerator' THEN p.total_accelerators END AS total_accelerators,
    p.benchmark, p.scenario, p.units,
    p.round_from, p.round AS round_to,
    p.value_from, p.basis_value AS value_to,
    p.gain,
    p.scale_from, p.scale AS scale_to, p.scale_from <> p.scale AS scale_changed,
    p.total_accelerators_from, p.total_accelerators AS total_accelerators_to,
    coalesce(s.rounds_spanned, []) AS rounds_spanned,
    p.software_from, p.software AS software_to, p.stack_from, p.stack AS stack_to,
    p.result_id_from, p.result_id AS result_id_to,
    p.source_id_from, p.record_no_from, p.source_id AS source_id_to, p.record_no AS record_no_to,
    p.verification_from, p.verification AS verification_to,
    p.has_finding_from, p.has_finding AS has_finding_to,
    p.platform_from, p.platform AS platform_to, p.processor_from, p.processor AS processor_to,
    p.platform_from IS DISTINCT FROM p.platform OR p.submitter_from <> p.submitter AS system_changed,
    p.processor_from IS DISTINCT FROM p.processor AS host_changed,
    p.submitter_from = p.submitter AND p.platform_from IS NOT DISTINCT FROM p.platform
        AND p.processor_from IS NOT DISTINCT FROM p.processor AND p.scale_from = p.scale AS software_alone,
    p.corroborated, p.ceiling, coalesce(p.implausible, false) AS implausible,
    p.scale_from = p.scale AND p.verification_from = 'verified' AND p.verification = 'verified'
        AND NOT p.has_finding_from AND NOT p.has_finding AND NOT coalesce(p.implausible, false) AS procurement_grade
FROM judged AS p
LEFT JOIN spans AS s USING (round_from, round)
