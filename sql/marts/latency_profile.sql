-- How fast does each result answer one user: time to first token and time per output token at p50
-- and p99 next to the constraints the run had to meet, and tokens per second per user?
-- One row per performance result with a LoadGen run summary (mlperf-wh trees). Times in
-- milliseconds = LoadGen's nanoseconds / 1e6. tokens_per_second_per_user = 1 / mean TPOT
-- = 1e9 / tpot_mean_ns (higher is better). Definition: int_latency_profile.
SELECT * EXCLUDE (record_no)
         RENAME (total_accelerators AS accelerator_count, value AS result, units AS result_unit)
FROM int_latency_profile
