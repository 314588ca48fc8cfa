-- int_software_gains with procurement_grade by the one eligibility rule: the pair's own conditions
-- (same scale, both verified, no finding of either side's own, not implausible) and both sides
-- procurement grade (int_result_grades: no pair finding blames them either). What the marts
-- software_gains and software_gain_summary read.
SELECT g.* REPLACE (g.procurement_grade AND coalesce(f.procurement_grade AND t.procurement_grade, false)
                    AS procurement_grade)
FROM int_software_gains AS g
LEFT JOIN int_result_grades AS f
  ON f.round = g.round_from AND f.result_id = g.result_id_from AND f.benchmark = g.benchmark
  AND f.scenario = g.scenario
LEFT JOIN int_result_grades AS t
  ON t.round = g.round_to AND t.result_id = g.result_id_to AND t.benchmark = g.benchmark AND t.scenario = g.scenario
