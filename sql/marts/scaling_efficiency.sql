-- How close to linear does throughput grow when the same submitter runs more of the same accelerator
-- on the same benchmark and throughput scenario in one round?
-- efficiency = (throughput_large / throughput_small) / (accelerator_count_large / accelerator_count_small);
-- 1.0 is linear. A partition of a device (MIG 1g.10gb) is paired only with the same partition:
-- accelerator names it ('A100 SXM (MIG 1g.10gb)') and the counts are its instances.
-- Each size is that submitter's best verified-or-preview result at that size; superlinear
-- (efficiency above 1.05) is an anomaly of the pair; procurement_grade is true only when both sides are
-- verified, without findings, and not superlinear (int_scaling_pairs), and both sides procurement grade by
-- the one eligibility rule (int_result_eligibility, each side by its row, a row rebuilt from a
-- submission tree as any other).
WITH graded AS (
    SELECT p.* REPLACE (p.hardware AS accelerator,
                        p.procurement_grade AND coalesce(s.procurement_grade AND l.procurement_grade, false)
                        AS procurement_grade)
    FROM int_scaling_pairs AS p
    LEFT JOIN int_result_eligibility AS s ON s.source_id = p.source_id_small AND s.record_no = p.record_no_small
    LEFT JOIN int_result_eligibility AS l ON l.source_id = p.source_id_large AND l.record_no = p.record_no_large
)
SELECT * EXCLUDE (hardware, source_id_small, record_no_small, source_id_large, record_no_large)
         RENAME (units AS throughput_unit, accelerators_small AS accelerator_count_small,
                 accelerators_large AS accelerator_count_large, value_small AS throughput_small,
                 value_large AS throughput_large)
FROM graded
