-- Every software gain, graded by the one eligibility rule: what the marts software_gains and
-- software_gain_summary read.
-- same_scale and per_accelerator (int_software_gains): the pair's own conditions (same scale, both
-- verified, no finding of either side's own, not implausible) and both sides procurement grade
-- (int_result_eligibility, joined on each side's row key source_id, record_no: no pair finding blames
-- them either, and a row rebuilt from a submission tree, which has no result_id, is graded as every
-- other). hardware_best (int_hardware_gains): its sides are already the best rows that rule clears.
SELECT g.* REPLACE (g.procurement_grade AND coalesce(f.procurement_grade AND t.procurement_grade, false)
                    AS procurement_grade)
FROM int_software_gains AS g
LEFT JOIN int_result_eligibility AS f ON f.source_id = g.source_id_from AND f.record_no = g.record_no_from
LEFT JOIN int_result_eligibility AS t ON t.source_id = g.source_id_to AND t.record_no = g.record_no_to
UNION ALL BY NAME
SELECT * FROM int_hardware_gains
