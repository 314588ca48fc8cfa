-- How far does one part scale: the smallest and the largest system of it that ran a benchmark and
-- throughput scenario in a round, whoever submitted them?
-- Each size is the best verified result of the part at that size (int_best_eligible, best_of_hardware:
-- the row the leaderboard ranks first among them, by the one eligibility rule); a group needs two sizes.
-- span = accelerator_count_largest / accelerator_count_smallest;
-- speedup = throughput_largest / throughput_smallest; efficiency = speedup / span (1.0 is linear).
-- The two ends may be different submitters, systems and hosts (same_submitter says): a span shows the
-- range a part was sold and run at, not one vendor's scaling (scaling_efficiency pairs one submitter's).
-- A partition (A100 SXM 80GB (MIG 1g.10gb)) spans its own instances, never whole devices; a CPU-only
-- system is not here (its sizes are sockets of one host).
-- procurement_grade: both ends procurement grade by the one eligibility rule (int_result_eligibility).
WITH sizes AS (
    SELECT * FROM int_best_eligible
    WHERE best_of_hardware AND higher_is_better AND hardware_kind = 'accelerator'
),
ends AS (
    SELECT
        round, hardware, benchmark, scenario, units,
        list_sort(list(DISTINCT hardware_count)) AS sizes,
        arg_min(sizes, hardware_count) AS smallest,
        arg_max(sizes, hardware_count) AS largest
    FROM sizes
    GROUP BY round, hardware, benchmark, scenario, units
    HAVING count(DISTINCT hardware_count) >= 2
)
SELECT
    round, hardware AS accelerator, benchmark, scenario, units AS throughput_unit, sizes,
    smallest.hardware_count AS accelerator_count_smallest, largest.hardware_count AS accelerator_count_largest,
    smallest.value AS throughput_smallest, largest.value AS throughput_largest,
    smallest.value / smallest.hardware_count AS throughput_per_accelerator_smallest,
    largest.value / largest.hardware_count AS throughput_per_accelerator_largest,
    largest.hardware_count::DOUBLE / smallest.hardware_count AS span,
    largest.value / smallest.value AS speedup,
    speedup / span AS efficiency,
    smallest.submitter AS submitter_smallest, largest.submitter AS submitter_largest,
    smallest.submitter = largest.submitter AS same_submitter,
    smallest.result_id AS result_id_smallest, largest.result_id AS result_id_largest,
    smallest.run_path AS run_path_smallest, largest.run_path AS run_path_largest,
    smallest.procurement_grade AND largest.procurement_grade AS procurement_grade
FROM ends
