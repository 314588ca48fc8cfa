-- Who leads each benchmark and scenario in each round and suite, on verified results only?
-- rank_system: 1 = best system result (highest throughput; for latency units, lowest latency).
-- rank_per_accelerator: 1 = highest throughput per accelerator (null for latency or CPU-only rows).
-- A partition of a device (partition: MIG '1g.10gb') is ranked only among the same partition, per
-- partition instance (result_per_partition), never beside whole devices.
-- A 'datacenter,edge' entry is ranked in both suites. Verified: audited, closed-division, available.
-- Units are the checked units (stg_results). Only a procurement-grade result is ranked
-- (int_result_eligibility): one with an anomaly finding (its own or a pair's that blames it: `findings`)
-- or that does not compare as its hardware is listed with both ranks null, and excluded_because says
-- why (reason_code: the same reason as a stable code, int_result_eligibility). The ranks are stored (int_leaderboard_ranks).
SELECT
    round, r.suite, benchmark, benchmark_family, accuracy_target, scenario, units AS result_unit,
    r.rank_system, r.rank_per_accelerator,
    submitter, system, result_id, accelerator, coalesce(accelerator LIKE '% + %', false) AS mixed_cluster,
    total_accelerators AS accelerator_count, value AS result,
    value_per_accelerator AS result_per_accelerator, partition, partition_fraction,
    value_per_partition AS result_per_partition, software, verification, repeats_lower_target,
    r.findings, r.reason_code, r.excluded_because
FROM int_leaderboard_ranks AS r
JOIN stg_results AS v USING (source_id, record_no)
WHERE v.metric = 'performance'  -- a record's power row shares its (source_id, record_no)
