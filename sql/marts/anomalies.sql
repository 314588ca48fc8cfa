-- Which results contradict themselves or their neighbours, and by which rule?
-- One row per finding: a result's own (int_row_findings: unit_suspect, accelerator_count_disagrees,
-- offline_below_singlestream, out_of_range; scope 'result') or a pair's (scaling_superlinear: scaling
-- efficiency above 1.05 between two sizes of one submitter's accelerator, int_scaling_pairs; scope
-- 'pair', result_id the larger system, related_result_id the smaller). detail says what was found, in
-- numbers; related_result_id names the other result a finding rests on.
-- A result with a finding, and a pair with one, stay in every table and mart, and leave every
-- procurement-grade comparison: generation speedups, software gains, scaling efficiency, the
-- leaderboard's ranks and the claim audit's comparable verdicts.
SELECT round, result_id, submitter, accelerator, benchmark, scenario, verification, rule, detail,
       related_result_id, 'result' AS scope
FROM int_row_findings
UNION ALL
SELECT round, result_id_large, submitter, accelerator, benchmark, scenario, verification_large,
       'scaling_superlinear',
       format('scaling efficiency {} from {} to {} accelerators ({} {} -> {} {}): above 1.05, more than linear',
              round(efficiency, 4), accelerators_small, accelerators_large, value_small, units, value_large, units),
       result_id_small, 'pair'
FROM int_scaling_pairs
WHERE superlinear
