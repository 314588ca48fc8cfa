"""One writer, any number of readers: whole `mlperf-wh` processes against one warehouse."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from tests.conftest import MIRROR, load_shared_rounds
from tests.test_backfill import snapshot, summary
from warehouse.store.lock import writer
from warehouse.store.publish import publish
from tests.readers import connect_file

pytestmark = pytest.mark.slow  # whole processes, each starting Prefect (~10 s a test)
COMMAND = Path(sys.executable).with_name("mlperf-wh")


@pytest.fixture(scope="module")
def api_env(prefect_harness):
    """Child processes use the session's Prefect API (no temporary server of their own)."""
    import os

    from prefect.settings import PREFECT_API_URL
    return {**os.environ, "PREFECT_API_URL": PREFECT_API_URL.value()}


def backfill(db: str, env: dict, rounds: str = "v6.0", **extra_env) -> subprocess.Popen:
    return subprocess.Popen([str(COMMAND), "backfill", "--rounds", rounds, "--source", str(MIRROR), "--db", db],
                            env={**env, **extra_env}, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(process: subprocess.Popen) -> tuple[int, str, str]:
    out, err = process.communicate(timeout=180)
    return process.returncode, out, err


def test_two_concurrent_backfills_both_end_with_one_runs_data(api_env, tmp_path):
    db = str(tmp_path / "w.duckdb")
    first, second = backfill(db, api_env), backfill(db, api_env)
    results = [finish(first), finish(second)]
    assert [code for code, _, _ in results] == [0, 0], results
    statuses = sorted(summary(out)["v6.0"]["status"] for _, out, _ in results)
    assert statuses == ["loaded", "unchanged"]  # one run loaded, the other found nothing new
    for _, out, err in results:
        if summary(out)["v6.0"]["status"] == "unchanged" and "waiting" in err:  # it waited: it says for whom
            assert "it is being written by pid" in err and "mlperf-wh backfill" in err
    with connect_file(db, read_only=True) as con:
        assert con.execute("SELECT rows_read, rows_loaded FROM sources").fetchall() == [(520, 520)]
        assert con.execute("SELECT count(*) FROM load_events").fetchone()[0] == 1


def test_a_writer_waits_for_the_holder_then_fails_naming_it_and_changes_nothing(api_env, tmp_path):
    db = str(tmp_path / "w.duckdb")
    load_shared_rounds(db, ("v6.0",))
    before = snapshot(db)
    with writer(db, "a test holding the warehouse"):
        started = time.monotonic()
        code, out, err = finish(backfill(db, api_env, MLPERF_WRITER_WAIT="2"))
        waited = time.monotonic() - started
    assert code == 1 and waited >= 2
    assert "waiting up to 2 s for the warehouse" in err
    assert "is being written by pid" in err and "(a test holding the warehouse, since" in err
    assert "gave up after waiting 2 s (MLPERF_WRITER_WAIT sets the wait)" in err
    assert "Traceback" not in err
    assert snapshot(db) == before

    with writer(db, "a short holder") as _:
        waiting = backfill(db, api_env)
        time.sleep(1.0)
    code, out, err = finish(waiting)  # released within the default wait: it goes on
    assert code == 0 and "unchanged" in out


def test_a_backfill_succeeds_while_a_reader_holds_the_published_copy_open(api_env, tmp_path):
    db = str(tmp_path / "w.duckdb")
    load_shared_rounds(db, ("v6.0",))
    copy = publish(db)
    assert copy == tmp_path / "w.read.duckdb"
    reader = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time\n"
         f"con = duckdb.connect({str(copy)!r}, read_only=True)\n"
         "print(con.execute('SELECT count(*) FROM sources').fetchone()[0], flush=True)\n"
         "sys.stdin.read()\n"
         "print(con.execute('SELECT count(*) FROM sources').fetchone()[0], flush=True)\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert reader.stdout.readline().strip() == "1"
        # The reader holds the copy open; the warehouse's own file is free: v4.1 loads.
        code, out, err = finish(backfill(db, api_env, rounds="v4.1,v6.0"))
        assert code == 0, err
        out, _ = reader.communicate("", timeout=30)
        assert out.strip() == "1"  # the open reader kept its consistent (older) copy
    finally:
        reader.kill()
    with connect_file(str(copy), read_only=True) as con:  # a reader that reconnects sees the load
        assert con.execute("SELECT count(*) FROM sources").fetchone()[0] == 2
