-- What did LoadGen report for each run folder of the submission trees (`mlperf-wh trees`)?
-- One row per (round, run_path): the parsed mlperf_log_summary.txt (scenario, validity, throughput,
-- latency percentiles in nanoseconds, TTFT/TPOT statistics and constraints).
SELECT * FROM run_summaries
