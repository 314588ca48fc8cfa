"""mlperf-warehouse: MLPerf Inference results as a validated DuckDB warehouse."""
