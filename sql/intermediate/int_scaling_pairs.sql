-- How close to linear does throughput grow when the same submitter runs more of the same accelerator
-- on the same benchmark and throughput scenario in one round?
-- efficiency = (value_large / value_small) / (accelerators_large / accelerators_small); 1.0 is linear.
-- Both sides are the same hardware (stg_results): a partition of a device (MIG 1g.10gb of an A100) pairs
-- only with the same partition, and its sizes count partitions (1 -> 56 instances, the 56 on 8 GPUs);
-- a slice is never one side of a pair with whole devices.
-- Each size is that submitter's best verified-or-preview result at that size (int_best_results,
-- best_of_submitter).
-- superlinear: efficiency above 1.05. More accelerators do not do more than their share each without
-- a reason the comparison does not hold constant (another chassis, power cap or software build on one
-- side, a small system held back): a finding of the pair (`anomalies`), never procurement grade.
-- has_finding_small, has_finding_large: each side's own anomaly finding (int_row_findings); a
-- superlinear pair one of whose sides has a finding of its own is that side's finding (`anomalies`).
-- source_id_small, record_no_small, source_id_large, record_no_large: each side's row key (stg_results),
--   by which the mart scaling_efficiency grades it (int_result_eligibility) and int_pair_findings blames
--   it: a row rebuilt from a submission tree has no result_id. Internal: no mart shows them.
-- procurement_grade: both sides verified, neither with a finding of its own, and not superlinear; the
-- mart also requires both sides procurement grade by the one eligibility rule (int_result_eligibility).
-- Stored once per load for the marts scaling_efficiency and anomalies.
SELECT
    s.round, s.submitter, s.accelerator, s.hardware, s.benchmark, s.scenario, s.units,
    s.hardware_count AS accelerators_small, l.hardware_count AS accelerators_large,
    s.value AS value_small, l.value AS value_large,
    (l.value / s.value) / (l.hardware_count::DOUBLE / s.hardware_count) AS efficiency,
    efficiency > 1.05 AS superlinear,
    s.result_id AS result_id_small, l.result_id AS result_id_large,
    s.source_id AS source_id_small, s.record_no AS record_no_small,
    l.source_id AS source_id_large, l.record_no AS record_no_large,
    s.verification AS verification_small, l.verification AS verification_large,
    s.has_finding AS has_finding_small, l.has_finding AS has_finding_large,
    (s.verification = 'verified' AND l.verification = 'verified' AND NOT s.has_finding AND NOT l.has_finding
     AND NOT superlinear) AS procurement_grade
FROM int_best_results AS s
JOIN int_best_results AS l USING (round, submitter, accelerator, hardware, benchmark, scenario, units)
WHERE s.higher_is_better AND s.best_of_submitter AND l.best_of_submitter
  AND s.hardware_count < l.hardware_count
