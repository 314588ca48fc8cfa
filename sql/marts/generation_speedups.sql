-- How much faster is a newer accelerator generation than an older one from the same vendor, on the
-- same benchmark and scenario, in the same round, at the same total accelerator count?
-- Each side is the best verified-or-preview closed-division result of that accelerator at that scale
-- (int_best_results, best_of_hardware).
-- speedup = value_new / value_base for throughput, value_base / value_new for latency.
-- Generation order comes from ref_accelerators. procurement_grade is true only when both sides are
-- verified; preview rows take part and are labelled.
WITH best AS (
    SELECT * FROM int_best_results WHERE best_of_hardware AND generation IS NOT NULL
)
SELECT
    n.round, n.benchmark, n.scenario, n.units, n.total_accelerators,
    n.vendor,
    n.accelerator AS accelerator_new, b.accelerator AS accelerator_base,
    n.generation AS generation_new, b.generation AS generation_base,
    n.value AS value_new, b.value AS value_base,
    CASE WHEN n.higher_is_better THEN n.value / b.value ELSE b.value / n.value END AS speedup,
    n.submitter AS submitter_new, b.submitter AS submitter_base,
    n.result_id AS result_id_new, b.result_id AS result_id_base,
    n.verification AS verification_new, b.verification AS verification_base,
    (n.verification = 'verified' AND b.verification = 'verified') AS procurement_grade
FROM best AS n
JOIN best AS b USING (round, benchmark, scenario, units, total_accelerators, vendor)
WHERE n.generation > b.generation
