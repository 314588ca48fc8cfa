"""The plain-function floor: fetch + parse + validate + load + views of the shared rounds, no Prefect,
whole-process (bench/orchestration_bench.py). Usage: plain_floor.py SOURCE_DIR DB_FILE"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from warehouse.identity.rounds import load_registry  # noqa: E402
from warehouse.ingest.pipeline import ingest_location  # noqa: E402
from warehouse.store import db  # noqa: E402
from warehouse.views import materialize  # noqa: E402

SHARED_ROUNDS = ("v4.1", "v5.1", "v6.0", "v6.1")

if __name__ == "__main__":
    source, db_file = sys.argv[1], sys.argv[2]
    registry = load_registry()
    with db.connect(db_file) as con:
        for name in SHARED_ROUNDS:
            # the first candidate file the source holds (v6.1 published only summary.csv)
            file_name, location = next((f, loc) for f, loc in registry[name].locations(source) if Path(loc).is_file())
            ingest_location(con, name, "official", file_name, location)
        materialize(con)
