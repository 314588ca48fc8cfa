"""Views: (re)create the SQL models in sql/ (one model per file, named by the file) layer by layer, in
one transaction, with the reference tables they read (`materialize`), from the models as `catalog`
reads them. `drift` summarises what a load brought that the warehouse does not know yet;
`column_docs` documents every mart column (DuckDB comments; docs/views.md by `views_markdown`);
`identities` applies the models' identity rules to names outside `results`; `status` is what
`mlperf-wh status` answers.

sql/layers.toml declares the layers as dbt's models: block does: their build order, how each
folder's models are stored (view or table) and what each layer may read (the sources, or models of
named layers). Which relations a model reads comes from DuckDB's own parser, so a name in a
comment or a string, or a CTE, is not a dependency."""
from warehouse.views.catalog import (LAYERS, READS_FILE_NAME, SQL_DIR, Layer, Layering, ViewFile, definitions,
                                     layering_problems, list_views, parsed_reads, relations_read, view_files,
                                     write_recorded_reads)
from warehouse.views.materialize import BuildTime, create, drop_retired_models, in_dependency_order, materialize, rebuild

__all__ = ["LAYERS", "READS_FILE_NAME", "SQL_DIR", "Layer", "Layering", "ViewFile", "definitions", "layering_problems", "list_views",
           "parsed_reads", "relations_read", "view_files", "write_recorded_reads", "BuildTime", "create",
           "drop_retired_models", "in_dependency_order", "materialize", "rebuild"]
