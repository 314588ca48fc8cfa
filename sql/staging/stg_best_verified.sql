-- What is the best verified result of each hardware configuration in a round, whoever submitted it
-- (the best system of that hardware you could buy)?
-- One row per (round, accelerator, total accelerators, benchmark, scenario, units) among verified
-- (audited, closed-division, available) rows. "Best" follows the units: highest throughput, lowest
-- latency; ties go to the lowest result id so the choice is stable.
-- materialized: table
SELECT *
FROM stg_performance
WHERE verification = 'verified' AND accelerator IS NOT NULL AND total_accelerators IS NOT NULL
QUALIFY row_number() OVER (
    PARTITION BY round, accelerator, total_accelerators, benchmark, scenario, units
    ORDER BY CASE WHEN higher_is_better THEN -value ELSE value END, result_id, entry_id
) = 1
