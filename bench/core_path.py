"""The core path, whole process, no Prefect: one round's result table read, parsed, validated, loaded
into a new warehouse, and every model built (bench/core_path_bench.py starts it, once per run).

    python bench/core_path.py ROUND TABLE_FILE DB_FILE"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from warehouse.ingest.fetch import FetchSettings, fetch  # noqa: E402
from warehouse.ingest.pipeline import load, prepare  # noqa: E402
from warehouse.store import db  # noqa: E402
from warehouse.views import materialize  # noqa: E402

if __name__ == "__main__":
    round_name, table, db_file = sys.argv[1], sys.argv[2], sys.argv[3]
    fetched = fetch(table, Path(table).name, FetchSettings())
    prepared = prepare(fetched.content, fetched.file_name, round_name, "official", table)
    with db.connect(db_file) as con:
        load(con, fetched, prepared, round_name, "official")
        materialize(con)
