-- Which results contradict themselves or their neighbours, and by which rule?
-- One row per finding: a result's own (int_row_findings: unit_suspect, accelerator_count_disagrees,
-- offline_below_singlestream, out_of_range, stale_value; scope 'result') or a pair's (scope 'pair'):
--   scaling_superlinear: scaling efficiency above 1.05 between two sizes of one submitter's accelerator
--     (int_scaling_pairs);
--   implausible_gain: a software gain (int_software_gains) or generation speedup
--     (int_generation_speedups) above its ceiling (plausibility_ceilings.csv) whose sides are not
--     corroborated.
-- A pair finding is listed on the row that earned it (int_pair_findings says which); related_result_id
-- names the other side (of a pair, or the entry's other scenario), related names it for a reader: its
-- result_id, or for a row rebuilt from a submission tree (no result_id) its submitter and platform
-- ("DellEMC DSS8440_T4x12_TRT"). detail says what was found, in numbers.
-- A result with a finding, and the result a pair finding blames, stay in every table and mart, and
-- leave every procurement-grade answer (int_result_eligibility): the ranks, the best per accelerator,
-- per rack and per kW, generation speedups, software gains, scaling efficiency and the claim audit's
-- figures.
SELECT round, result_id, submitter, accelerator, benchmark, scenario, verification, rule, detail,
       related_result_id, related, 'result' AS scope
FROM int_row_findings
UNION ALL
SELECT round, result_id, submitter, accelerator, benchmark, scenario, verification, rule, detail,
       related_result_id, related, scope
FROM int_pair_findings
