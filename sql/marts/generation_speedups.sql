-- How much faster is a part than its predecessors of the same product line, segment and form factor,
-- on the same benchmark and scenario, in the same round, at the same scale?
-- Pairs along the predecessor chain (B300 -> B200 -> H200 SXM; GB300 -> GB200; MI355X -> MI325X ->
-- MI300X...), each side the best verified-or-preview result of its hardware at that scale, never a run
-- without its accelerator or an inferred result. speedup = value_new / value_base for throughput,
-- value_base / value_new for latency. Read a pair with its basis: same_stack (both sides ran one
-- serving stack family), baseline_lags (the baseline serves far below its own Offline rate),
-- like_for_like (both fine); implausible (above plausibility_ceilings.csv, not corroborated) is an
-- anomaly. procurement_grade: both sides procurement grade by the one eligibility rule
-- (int_result_eligibility, each side by its row, a row rebuilt from a submission tree as any other:
-- verified, comparable as their hardware, no finding their own evidence shows) and the pair not
-- implausible. run_path_new, run_path_base name each side's run folder (a tree row has no result ID).
-- The parts: accelerator_new over accelerator_base at accelerator_count, or for a CPU-only pair cpu_new
-- over cpu_base at cpu_count sockets (hardware_kind says which).
-- Every definition: the header of sql/intermediate/int_generation_speedups.sql.
WITH graded AS (
    SELECT s.* REPLACE (s.procurement_grade AND coalesce(n.procurement_grade AND b.procurement_grade, false)
                        AS procurement_grade)
    FROM int_generation_speedups AS s
    LEFT JOIN int_result_eligibility AS n ON n.source_id = s.source_id_new AND n.record_no = s.record_no_new
    LEFT JOIN int_result_eligibility AS b ON b.source_id = s.source_id_base AND b.record_no = s.record_no_base
)
SELECT * EXCLUDE (has_finding_new, has_finding_base, hardware_new, hardware_base, hardware_count,
                  source_id_new, record_no_new, source_id_base, record_no_base)
         RENAME (units AS result_unit, total_accelerators AS accelerator_count, value_new AS result_new,
                 value_base AS result_base),
       CASE WHEN hardware_kind = 'cpu' THEN hardware_new END AS cpu_new,
       CASE WHEN hardware_kind = 'cpu' THEN hardware_base END AS cpu_base,
       CASE WHEN hardware_kind = 'cpu' THEN hardware_count END AS cpu_count
FROM graded
