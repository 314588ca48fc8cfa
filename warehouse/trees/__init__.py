"""Submission trees: the rounds' published folders of LoadGen summaries and system descriptions, read as
one pipeline (run.py is its entry point): listing, reading, parsing, rebuilding the result rows of a
round MLCommons published no table of, loading, cloning a round repository, distributing the work on
a Dask cluster. warehouse/ingest keeps the published tables."""
