-- The best result of each (round, submitter, accelerator, total accelerators, benchmark, scenario, units)
-- among verified and preview closed-division rows. "Best" follows the units: highest throughput,
-- lowest latency; ties go to the lowest result id so the choice is stable.
-- materialized: table
SELECT *
FROM stg_performance
WHERE verification IN ('verified', 'preview') AND accelerator IS NOT NULL AND total_accelerators IS NOT NULL
QUALIFY row_number() OVER (
    PARTITION BY round, submitter, accelerator, total_accelerators, benchmark, scenario, units
    ORDER BY CASE WHEN higher_is_better THEN -value ELSE value END, result_id, entry_id
) = 1
