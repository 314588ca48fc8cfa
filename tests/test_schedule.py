"""The backfill as a scheduled Prefect deployment."""
import duckdb
import pytest

from flows.ingest import deployment, scheduled_backfill
from tests.conftest import MIRROR
from tests.readers import connect_file


def test_deployment_runs_the_backfill_on_the_given_cron():
    d = deployment("0 6 * * 1", source=str(MIRROR), db_file="/tmp/somewhere.duckdb")
    assert [s.schedule.cron for s in d.schedules] == ["0 6 * * 1"]
    assert d.parameters == {"source": str(MIRROR), "db_file": "/tmp/somewhere.duckdb"}


@pytest.mark.slow
def test_scheduled_flow_loads_rounds_and_fails_loudly_on_a_failed_round(prefect_harness, db_file):
    summary = scheduled_backfill(source=str(MIRROR), db_file=db_file, rounds="v6.0", trees=False)
    assert [(s["round"], s["status"], s["rows_read"]) for s in summary] == [("v6.0", "loaded", 520)]
    with connect_file(db_file, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM verified_results").fetchone()[0] == 495
    with pytest.raises(RuntimeError, match="rounds failed: v6.0"):
        scheduled_backfill(source="http://127.0.0.1:9/unreachable", db_file=db_file, rounds="v6.0")


@pytest.mark.slow  # a round and its result tree through the scheduled flow (~12 s)
def test_scheduled_flow_ingests_the_trees_of_a_round_it_loaded(prefect_harness, db_file, tmp_path):
    from tests.conftest import serve
    from tests.trees_layout import round_repositories
    root = round_repositories(tmp_path / "repos", rounds=("v6.0",))
    with serve(root) as server:
        summary = scheduled_backfill(source=server.url, db_file=db_file, rounds="v6.0")
        assert [(s["round"], s["status"]) for s in summary] == [("v6.0", "loaded")]
        with connect_file(db_file, read_only=True) as con:
            # v6.0: 520 result rows, each its run folder's summary.
            assert con.execute("SELECT count(*) FROM run_summaries").fetchone()[0] == 520
        server.handler.requests_seen.clear()
        # Nothing new in the round: no tree ingest at all.
        summary = scheduled_backfill(source=server.url, db_file=db_file, rounds="v6.0")
        assert [(s["round"], s["status"]) for s in summary] == [("v6.0", "unchanged")]
        assert not [p for p in server.handler.requests_seen if p.endswith("mlperf_log_summary.txt")]
