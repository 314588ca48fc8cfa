"""Export: what people outside SQL read. The BI files (`bi_files`: Parquet, CSV or one Excel workbook
with a manifest.json), written beside their target and swapped in whole (`output_dirs`); the static
HTML report with its charts (`report`, `templates/`); the report of what a run changed
(`run_report`); regenerating both after a load (`outputs`); and the read-only SQLAlchemy connection
BI tools use (`bi`). Each is imported where it is used: a run that finds nothing new imports the
run report alone, not the exports' Pandera models."""
