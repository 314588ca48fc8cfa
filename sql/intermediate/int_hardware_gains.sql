-- What did each hardware gain, whoever submitted it, from one round to the previous round in which it
-- ran the same benchmark and scenario at the same size? (software gains, basis 'hardware_best')
-- Each side is the best verified row of the hardware at a hardware count in its round by the one
-- eligibility rule (int_best_eligible best_of_hardware: the row the leaderboard ranks first among
-- that hardware's rows), so a row a finding keeps out of the leaderboard is never the hardware's best
-- while a procurement-grade row of it exists.
-- The headline gain of a piece of hardware (the run report's); the submitter's own gain (same_scale,
-- int_software_gains) is the second basis beside it. Google's GB200 x72 DeepSeek-R1 Server gained
-- 2.48x over its own v6.0 entry, which ran at 47% of NVIDIA's; the hardware gained 1.18x.
-- Columns as int_software_gains' (int_software_gains_graded unites them); the pair's terms (eras,
-- rounds_spanned, the ceiling, corroborated, software_alone...) are defined there. has_finding_from,
-- has_finding_to: each side has a finding its own evidence shows (int_result_eligibility: not usable),
-- which happens only when no row of that hardware and size in its round is procurement grade. These pairs raise no
-- finding themselves: an implausible one is graded down here (implausible), never blamed on a row.
WITH sides AS (
    SELECT *, NOT usable AS has_finding
    FROM int_best_eligible
    WHERE best_of_hardware
),
paired AS (
    SELECT
        s.*,
        lag(round) OVER w AS round_from,
        lag(round_order) OVER w AS round_order_from,
        lag(value) OVER w AS value_from,
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
        lag(has_finding) OVER w AS has_finding_from,
        lag(procurement_grade) OVER w AS procurement_grade_from
    FROM sides AS s
    LEFT JOIN int_figure_eras AS fe USING (round, benchmark, scenario)
    WINDOW w AS (PARTITION BY hardware, hardware_count, benchmark, scenario, units, fe.era ORDER BY round_order)
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
           CASE WHEN p.higher_is_better THEN p.value / p.value_from ELSE p.value_from / p.value END AS gain,
           p.submitter_from = p.submitter AND p.platform_from = p.platform
               AND p.notes_hash_from IS NOT DISTINCT FROM p.notes_hash AS corroborated,
           c.ceiling,
           coalesce(gain > c.ceiling AND NOT corroborated, false) AS implausible
    FROM paired AS p
    LEFT JOIN stg_plausibility_ceilings AS c ON c.comparison = 'software_gain'
    WHERE p.round_from IS NOT NULL
)
SELECT
    'hardware_best' AS basis, p.submitter, p.submitter_from, p.hardware, p.hardware_kind, p.accelerator, p.cpu,
    p.total_accelerators, p.benchmark, p.scenario, p.units, p.round_from, p.round AS round_to,
    p.value_from, p.value AS value_to, p.gain,
    p.hardware_count AS scale_from, p.hardware_count AS scale_to, false AS scale_changed,
    p.total_accelerators_from, p.total_accelerators AS total_accelerators_to,
    coalesce(s.rounds_spanned, []) AS rounds_spanned,
    p.software_from, p.software AS software_to, p.stack_from, p.stack AS stack_to,
    p.result_id_from, p.result_id AS result_id_to,
    p.source_id_from, p.record_no_from, p.source_id AS source_id_to, p.record_no AS record_no_to,
    'verified' AS verification_from, 'verified' AS verification_to,
    p.has_finding_from, p.has_finding AS has_finding_to,
    p.platform_from, p.platform AS platform_to, p.processor_from, p.processor AS processor_to,
    p.platform_from IS DISTINCT FROM p.platform OR p.submitter_from <> p.submitter AS system_changed,
    p.processor_from IS DISTINCT FROM p.processor AS host_changed,
    p.submitter_from = p.submitter AND p.platform_from IS NOT DISTINCT FROM p.platform
        AND p.processor_from IS NOT DISTINCT FROM p.processor AS software_alone,
    p.corroborated, p.ceiling, p.implausible,
    p.procurement_grade_from AND p.procurement_grade AND NOT p.implausible AS procurement_grade
FROM judged AS p
LEFT JOIN spans AS s USING (round_from, round)
