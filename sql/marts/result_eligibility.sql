-- May each result enter an answer a buyer ranks or reads as a figure, and if not, why not?
-- One row per performance result of every loaded table: the one eligibility rule that every ranked
-- answer reads (the leaderboard's ranks; the best per accelerator, per rack and per kW; procurement-grade
-- software gains, generation speedups and scaling pairs; the claim audit's figures; the run report and
-- the report page). procurement_grade: verified, comparable as its hardware, no anomaly finding of its
-- own or of a pair that blames it; excluded_because says why not, first reason that applies,
-- reason_code is that reason as a stable code (reason_codes: every one that applies), and
-- questioned_code(s) name the findings that question it (questioned_because) the same way.
-- inferred is MLCommons' flag as published; inferred_cause reads it as the checker sets it (a flag
-- from letter case alone marks a measured result, which takes part in every comparison).
-- Definition: the header of sql/intermediate/int_result_eligibility.sql.
SELECT * EXCLUDE (record_no, hardware) RENAME (units AS result_unit)
FROM int_result_eligibility
