"""Ingest: a published result file, from its URL to rows in DuckDB. Fetch it (`fetch`, `source_urls`),
parse any of MLCommons' formats into one canonical long frame (`parse`), split the loadable rows from the
quarantined ones (`validate`), refuse a file that would lose or replace data (`guards`), and load it in
one transaction with its lineage (`pipeline`, `history`). The submission trees behind each row (LoadGen
summaries, system descriptions) are parsed by `trees`, fetched in chunks by `tree_fetch` (on threads, or
on a Dask cluster: `tree_cluster`) and validated and loaded by `tree_ingest` (their tables:
warehouse/store/tree_tables.py)."""
