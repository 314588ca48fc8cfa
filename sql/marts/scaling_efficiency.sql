-- How close to linear does throughput grow when the same submitter runs more of the same accelerator
-- on the same benchmark and throughput scenario in one round?
-- efficiency = (throughput_large / throughput_small) / (accelerator_count_large / accelerator_count_small);
-- 1.0 is linear.
-- Each size is that submitter's best verified-or-preview result at that size; superlinear
-- (efficiency above 1.05) is an anomaly of the pair; procurement_grade is true only when both sides are
-- verified, without findings, and not superlinear (int_scaling_pairs), and both sides procurement grade by
-- the one eligibility rule (int_result_grades).
WITH graded AS (
    SELECT p.* REPLACE (p.procurement_grade AND coalesce(s.procurement_grade AND l.procurement_grade, false)
                        AS procurement_grade)
    FROM int_scaling_pairs AS p
    LEFT JOIN int_result_grades AS s
      ON s.round = p.round AND s.result_id = p.result_id_small AND s.benchmark = p.benchmark AND s.scenario = p.scenario
    LEFT JOIN int_result_grades AS l
      ON l.round = p.round AND l.result_id = p.result_id_large AND l.benchmark = p.benchmark AND l.scenario = p.scenario
)
SELECT * EXCLUDE (source_id_small, record_no_small, source_id_large, record_no_large)
         RENAME (units AS throughput_unit, accelerators_small AS accelerator_count_small,
                 accelerators_large AS accelerator_count_large, value_small AS throughput_small,
                 value_large AS throughput_large)
FROM graded
