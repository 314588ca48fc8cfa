"""The store: the DuckDB file itself. Connection, tables and the one-transaction replace of a source
(`db`), opening the file with every failure said in one line (`warehouse_file`), every path beside
it checked before it is opened (`paths`: a DuckDB file by content, no symlinked lock or WAL, a
published copy the warehouse wrote), once per run (`checked`: the handle a run passes on), one
writer at a time (`lock`), the published read-only copy analysts and BI tools open (`publish`),
the analyst's SQL sandbox that can read the warehouse and nothing else (`sandbox`), and how any
failure is said, one line and its exit code (`failures`)."""
