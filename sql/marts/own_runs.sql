-- Which replays of your own traffic are loaded, and what do they give per accelerator and per rack?
-- One row per run you loaded (`mlperf-wh measurements load`), verification 'own measurement': never
-- in an MLPerf comparison, leaderboard or claim verdict. Names resolved as MLPerf's are (accelerator,
-- family; null ones are listed in `drift`); throughput in generated tokens per second; latencies in ms
-- as the tool measured them; per rack with the rack_capacity.csv assumption. Definition:
-- stg_own_measurements. own_vs_mlperf sets each run beside the audited rows of the same model.
SELECT
    run_id, label, measured_at, model_id, family, benchmarks, accelerator_raw, accelerator, accelerators AS accelerator_count,
    system, tool, tool_version, backend, max_concurrency, request_rate, completed, failed, duration_s,
    mean_input_tokens, mean_output_tokens, output_tokens_per_second AS tokens_per_second, tokens_per_second_per_accelerator,
    accelerators_per_rack, rack_assumption, rack_basis, tokens_per_second_per_rack,
    request_throughput, total_tokens_per_second, tokens_per_second_per_user,
    ttft_mean_ms, ttft_median_ms, ttft_p99_ms, tpot_mean_ms, tpot_median_ms, tpot_p99_ms,
    itl_mean_ms, itl_median_ms, itl_p99_ms, e2el_mean_ms, e2el_median_ms, e2el_p99_ms,
    verification, file_path, file_format, loaded_at, extra
FROM stg_own_measurements
