-- Which pairs of results contradict each other, and which result of the pair does each finding blame?
-- One row per pair finding, listed on the row that earned it (source_id, record_no: its key in
-- stg_results; result_id, null for a row rebuilt from a submission tree) with the other side beside it
-- (related_source_id, related_record_no, related_result_id):
--   scaling_superlinear: scaling efficiency above 1.05 between two sizes of one submitter's
--     accelerator (int_scaling_pairs); blamed: the side with an anomaly finding of its own when only
--     the smaller has one (that finding explains the pair), else the larger system;
--   implausible_gain: a software gain (int_software_gains) or generation speedup
--     (int_generation_speedups) above its ceiling (plausibility_ceilings.csv) whose sides are not
--     corroborated; blamed: the earlier result (or the baseline) when only it has a finding of its own,
--     else the newer result.
-- round, benchmark and scenario are the blamed row's. int_result_eligibility keeps the row
-- (source_id, record_no) names out of every procurement-grade answer. detail says what was found, in
-- numbers. related: the other side for a reader, its result_id, or for a row without one its
-- submitter and platform ("DellEMC DSS8440_T4x12_TRT").
WITH found AS (
    SELECT CASE WHEN earned_by_first THEN first_round ELSE second_round END AS round,
           submitter, accelerator, benchmark, scenario, rule, detail, scope,
           CASE WHEN earned_by_first THEN first_id ELSE second_id END AS result_id,
           CASE WHEN earned_by_first THEN second_id ELSE first_id END AS related_result_id,
           CASE WHEN earned_by_first THEN first_verification ELSE second_verification END AS verification,
           CASE WHEN earned_by_first THEN first_source ELSE second_source END AS source_id,
           CASE WHEN earned_by_first THEN first_record ELSE second_record END AS record_no,
           CASE WHEN earned_by_first THEN second_source ELSE first_source END AS related_source_id,
           CASE WHEN earned_by_first THEN second_record ELSE first_record END AS related_record_no
    FROM (
        SELECT round AS first_round, round AS second_round, submitter, accelerator, benchmark, scenario,
               'scaling_superlinear' AS rule, 'pair' AS scope,
               format('scaling efficiency {} from {} to {} accelerators ({} {} -> {} {}): above 1.05, more than linear{}',
                      round(efficiency, 4), accelerators_small, accelerators_large, value_small, units, value_large,
                      units, CASE WHEN has_finding_small AND NOT has_finding_large
                                  THEN '; the smaller system has a finding of its own, which explains it' ELSE '' END)
                   AS detail,
               has_finding_small AND NOT has_finding_large AS earned_by_first,
               result_id_small AS first_id, verification_small AS first_verification,
               source_id_small AS first_source, record_no_small AS first_record,
               result_id_large AS second_id, verification_large AS second_verification,
               source_id_large AS second_source, record_no_large AS second_record
        FROM int_scaling_pairs
        WHERE superlinear
        UNION ALL
        SELECT round_from, round_to, submitter, accelerator, benchmark, scenario, 'implausible_gain', 'pair',
               format('software gain {}x ({}) from {} to {} is above the {}x ceiling and the two sides are not one '
                      'system with the same notes{}', round(gain, 3), basis, round_from, round_to, ceiling,
                      CASE WHEN has_finding_from AND NOT has_finding_to
                           THEN '; the earlier result has a finding of its own' ELSE '' END),
               has_finding_from AND NOT has_finding_to,
               result_id_from, verification_from, source_id_from, record_no_from,
               result_id_to, verification_to, source_id_to, record_no_to
        FROM int_software_gains
        WHERE implausible
        UNION ALL
        SELECT round, round, submitter_new, accelerator_new, benchmark, scenario, 'implausible_gain', 'pair',
               format('generation speedup {}x of {} over {} is above the {}x ceiling and not corroborated '
                      '(submitters {} / {}, stacks {} / {}){}', round(speedup, 3), hardware_new, hardware_base,
                      ceiling, submitter_new, submitter_base, coalesce(stack_new, 'unknown'),
                      coalesce(stack_base, 'unknown'),
                      CASE WHEN has_finding_base AND NOT has_finding_new
                           THEN '; the baseline has a finding of its own' ELSE '' END),
               has_finding_base AND NOT has_finding_new,
               result_id_base, verification_base, source_id_base, record_no_base,
               result_id_new, verification_new, source_id_new, record_no_new
        FROM int_generation_speedups
        WHERE implausible
    )
)
SELECT f.*,
       coalesce(f.related_result_id, o.submitter || ' ' || o.platform) AS related
FROM found AS f
LEFT JOIN int_best_results AS o ON o.source_id = f.related_source_id AND o.record_no = f.related_record_no
