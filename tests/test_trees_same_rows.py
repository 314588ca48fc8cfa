"""The same rows as before, byte for byte (issue 56): the five shared rounds MLCommons published no
table of, read in one pass (each file listed, read and parsed once, loaded in one transaction per
round), leave `results`, `run_summaries`, `systems` and `quarantine` exactly as the two passes did
(the rebuild, then the tree ingest reading every file again) before the change.

The digests below were taken on main at aa50f7b (two passes) from a warehouse `mlperf-wh trees
--rounds v0.5,v0.7,v1.1,v2.0,v2.1 --source ../shared/mlcommons/trees` wrote: an md5 of every row of
those rounds as DuckDB prints it, sorted, with the trees' directory written as <trees> (the one part
of a row that depends on where ../shared is)."""
from __future__ import annotations

import pytest

from tests.conftest import OLD_ROUNDS, connect_file
from tests.trees_layout import TREES

pytestmark = pytest.mark.integration

BEFORE = {
    "results": (12913, "41d7db0b07d5be0b383a3587b33c54b6"),
    "run_summaries": (12912, "69887c5af4c23d3533cc0745bf3a696c"),
    "systems": (654, "d59683da2c053c5263b78303e048455a"),
    "quarantine": (10, "52b331a616b3b5fdb17208af6590bf6b"),
}


# The one change since, on purpose: Alibaba's v2.1 network clusters (SINIAN_VODLA_EFLO_A100x8_A30x8 and
# A100x16_A30x16, 4 rows) count their accelerators as "(8,4)"; their rows were rebuilt as CPU-only (no
# accelerator) and now name the accelerators their descriptions name (REBUILD_VERSION 2).
CLUSTERS = "platform LIKE 'SINIAN_VODLA_EFLO_A100x%_A30x%'"
RESULTS_NOW = (12913, "49e8958414f2de55712e9b3c9a9070db")


def rows_digest(con, table: str) -> tuple[int, str]:
    """(rows, md5 of every row's text, sorted) of the old rounds in `table` (a table or a query), the
    trees' directory as <trees>."""
    return con.execute(
        f"""SELECT count(*), md5(string_agg(shown, chr(10) ORDER BY shown))
            FROM (SELECT replace(CAST(t AS VARCHAR), ?, '<trees>') AS shown FROM {table} AS t
                  WHERE list_contains(?, round))""", [str(TREES), list(OLD_ROUNDS)]).fetchone()


def test_one_pass_loads_the_rows_two_passes_loaded_byte_for_byte(old_rounds_warehouse):
    con = connect_file(old_rounds_warehouse, read_only=True)
    try:
        assert {table: rows_digest(con, table) for table in BEFORE if table != "results"} == \
            {table: digest for table, digest in BEFORE.items() if table != "results"}
        assert rows_digest(con, "results") == RESULTS_NOW
        # ...and with those 4 rows' accelerator name taken away again, every row is as before
        as_before = f"(SELECT * REPLACE (CASE WHEN {CLUSTERS} THEN NULL ELSE accelerator_raw END AS accelerator_raw) " \
                    "FROM results)"
        assert rows_digest(con, as_before) == BEFORE["results"]
        assert con.execute(f"SELECT count(*) FROM results WHERE {CLUSTERS} AND accelerator_raw IS NOT NULL"
                           ).fetchone() == (4,)
    finally:
        con.close()
