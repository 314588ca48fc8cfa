-- Is each published result procurement grade, by the one eligibility rule (int_result_eligibility)?
-- One row per (round, result ID, benchmark, scenario) of the closed division: the key by which a pair
-- (a software gain, a generation speedup, a scaling pair, a claim's figure) names each of its sides.
-- procurement_grade: every row of that key is (int_result_eligibility.procurement_grade);
-- excluded_because: why not, the first reason of its rows (null when procurement grade).
SELECT round, result_id, benchmark, scenario,
       bool_and(procurement_grade) AS procurement_grade,
       min(excluded_because) AS excluded_because
FROM int_result_eligibility
WHERE result_id IS NOT NULL AND division = 'closed'
GROUP BY round, result_id, benchmark, scenario
