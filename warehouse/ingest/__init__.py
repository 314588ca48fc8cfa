"""Ingest: a published result file, from its URL to rows in DuckDB. Fetch it (`fetch`, `source_urls`),
parse any of MLCommons' formats into one canonical long frame (`parse`), split the loadable rows from the
quarantined ones (`validate`), refuse a file that would lose or replace data (`guards`), and load it in
one transaction with its lineage (`pipeline`, `history`). The submission trees behind each row are
warehouse/trees' (their tables: warehouse/store/tree_tables.py)."""
