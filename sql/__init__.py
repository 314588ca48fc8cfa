"""The warehouse's SQL models, one view per file named by the file, in dbt's layers: `staging/` reads
the loaded tables, `marts/` read staging (and `intermediate/`, where there is one). Each file opens
with the question it answers, its definition and the direction of every ratio; `marts/_columns.toml`
describes every mart column. This directory is a package only so that the wheel carries it (every
`*.sql` and `*.toml` below it is package data): `warehouse.views` finds it through
`importlib.resources`, never through the checkout."""
