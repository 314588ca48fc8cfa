-- How close to linear does throughput grow when the same submitter runs more of the same accelerator
-- on the same benchmark and throughput scenario in one round?
-- efficiency = (value_large / value_small) / (accelerators_large / accelerators_small); 1.0 is linear.
-- Each size is that submitter's best verified-or-preview result at that size; procurement_grade is
-- true only when both sides are verified (int_best_results, best_of_submitter).
SELECT
    s.round, s.submitter, s.accelerator, s.benchmark, s.scenario, s.units,
    s.total_accelerators AS accelerators_small, l.total_accelerators AS accelerators_large,
    s.value AS value_small, l.value AS value_large,
    (l.value / s.value) / (l.total_accelerators::DOUBLE / s.total_accelerators) AS efficiency,
    s.result_id AS result_id_small, l.result_id AS result_id_large,
    s.verification AS verification_small, l.verification AS verification_large,
    (s.verification = 'verified' AND l.verification = 'verified') AS procurement_grade
FROM int_best_results AS s
JOIN int_best_results AS l USING (round, submitter, accelerator, benchmark, scenario, units)
WHERE s.higher_is_better AND s.best_of_submitter AND l.best_of_submitter
  AND s.total_accelerators < l.total_accelerators
