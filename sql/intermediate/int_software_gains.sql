-- How much faster did the same hardware get on the same benchmark and scenario from one round to the
-- previous round in which it submitted that benchmark? (verified rows on both sides)
-- basis 'same_scale': same submitter, canonical accelerator and total accelerators; values are the
--   system results. gain = value_to / value_from for throughput, value_from / value_to for latency.
-- basis 'per_accelerator': same submitter and accelerator at any scale, throughput only; values are
--   throughput / total accelerators (a 4-GPU slice one round, the full rack the next).
--   gain = value_to / value_from. total_accelerators is null; the scales are in
--   total_accelerators_from / total_accelerators_to.
-- Each side is the best verified result of its key in its round (int_best_results).
-- Stored once per load for the marts software_gains and software_gain_summary.
WITH same_scale AS (
    SELECT 'same_scale' AS basis, submitter, accelerator, total_accelerators, benchmark, scenario, units,
           higher_is_better, round, round_order, value AS basis_value, total_accelerators AS scale,
           software, result_id, verification
    FROM int_best_results
    WHERE verification = 'verified'
),
per_accelerator AS (
    SELECT 'per_accelerator' AS basis, submitter, accelerator, NULL::BIGINT AS total_accelerators,
           benchmark, scenario, units, higher_is_better, round, round_order,
           value_per_accelerator AS basis_value, total_accelerators AS scale,
           software, result_id, verification
    FROM int_best_results
    WHERE best_per_accelerator_of_submitter
),
sides AS (
    SELECT * FROM same_scale UNION ALL BY NAME SELECT * FROM per_accelerator
),
paired AS (
    SELECT
        s.*,
        lag(round) OVER w AS round_from,
        lag(basis_value) OVER w AS value_from,
        lag(scale) OVER w AS scale_from,
        lag(software) OVER w AS software_from,
        lag(result_id) OVER w AS result_id_from,
        lag(verification) OVER w AS verification_from
    FROM sides AS s
    WINDOW w AS (PARTITION BY basis, submitter, accelerator, total_accelerators, benchmark, scenario, units
                 ORDER BY round_order)
)
SELECT
    basis, submitter, accelerator, total_accelerators, benchmark, scenario, units,
    round_from, round AS round_to,
    value_from, basis_value AS value_to,
    CASE WHEN higher_is_better THEN basis_value / value_from ELSE value_from / basis_value END AS gain,
    scale_from AS total_accelerators_from, scale AS total_accelerators_to,
    software_from, software AS software_to,
    result_id_from, result_id AS result_id_to,
    verification_from, verification AS verification_to
FROM paired
WHERE round_from IS NOT NULL
