"""The warehouse's SQL models: one view per file, named by the file, in dbt's layers (`staging/` reads
the loaded tables, `intermediate/` and `marts/` read staging), each file opening with the question it
answers, its definition and the direction of every ratio; `marts/_columns.toml` describes every mart
column. This directory is a package only so that the wheel carries it: `warehouse.views` reads the
files through `importlib.resources` (`sql_root()`), never from the checkout."""
