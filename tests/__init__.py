"""The test suite: real DuckDB files in temporary folders, a real HTTP server on 127.0.0.1, real Prefect
flow runs, and expected numbers computed by hand from the real rows in ../shared/mlcommons."""
