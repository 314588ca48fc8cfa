"""mlperf-warehouse: MLPerf Inference results as a validated DuckDB warehouse. One subpackage per stage
of the pipeline, in the order the data flows: `ingest` (fetch, parse, validate, guard and load a
published file), `identity` (what the names mean: reference tables and rounds), `store` (the DuckDB
file, its lock and its published read-only copy), `views` (the SQL models in sql/, materialized),
`ledger` (claims, decisions and prices, audited by the views), `export` (BI files, the static report,
the run report) and `cli` (the `mlperf-wh` commands, which only call the others).

The layers, top to bottom (pyproject.toml [tool.importlinter], checked in `make test`): startup, cli,
flows, export, ledger, views, ingest, identity, store, interrupt, settings and `inputs` (the one
completeness rule and the bounds of every text input), then the ground: schemas, resources, sql,
collector, and `errors`, the one table of exit codes, from which every domain error derives where it
is raised."""
