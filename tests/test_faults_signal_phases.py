"""Fault suite, issue 54 item 7: a signal in any phase of a run says one true line, and leaves the
warehouse as it was or whole (a rerun finishes it).

A real SIGTERM to this process, sent from inside a phase (the phase's function, wrapped), while the
command runs as the CLI runs it (its signal handlers; a plain run, no Prefect API). Cases: a round's
load in its task thread (it used to commit after the line said it was rolled back), its parsing
(the thread then loaded the round after the line), its load event
(written after the load's transaction: the load was kept without it), the views' rebuild (the rerun found nothing new and left the views behind the data), the report and the
published copy after the load (the line said the load was rolled back: it was kept), and `trees`
while it lists a tree and reads its files (it held no writer lock and said nothing was written,
after it had loaded the rebuilt round); and one whole `mlperf-wh trees` process stopped while a
file it reads is held by a loopback server.
"""
from __future__ import annotations

import importlib
import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest

from tests.conftest import MIRROR, SHARED
from tests.faults import digest, one_error_line, run  # noqa: F401 - run: a fixture
from tests.readers import connect_file
from tests.test_trees_load import krai_warehouse  # noqa: F401 - a fixture: v6.0 Krai's 2 results on 1 system

V60 = "inference_results_v6.0/main/summary_results.json"
KEPT = "error: interrupted by SIGTERM: no load was in flight (what was loaded is kept); rerun to finish"


@pytest.fixture
def republished(tmp_path) -> Path:
    """The shared rounds as a source, v6.0 republished with one figure changed: a backfill loads it."""
    source = tmp_path / "source"
    for name in ("v4.1", "v5.1", "v6.0"):
        relative = f"inference_results_{name}/main/summary_results.json"
        (source / relative).parent.mkdir(parents=True)
        shutil.copyfile(MIRROR / relative, source / relative)
    records = json.loads((source / V60).read_bytes())
    records[0]["Performance_Result"] *= 1.01
    (source / V60).write_text(json.dumps(records))
    return source


@pytest.fixture
def warehouse(shared_warehouse, tmp_path) -> str:
    path = str(tmp_path / "w.duckdb")
    shutil.copyfile(shared_warehouse, path)
    return path


def signal_on_call(monkeypatch, module: str, name: str, nth: int = 1, then=None) -> None:
    """SIGTERM to this process when `module.name` is called the nth time; `then(*args)` after it."""
    target = importlib.import_module(module)
    original, calls = getattr(target, name), []

    def wrapped(*args, **kwargs):
        calls.append(1)
        if len(calls) == nth:
            os.kill(os.getpid(), signal.SIGTERM)
            if then is not None:
                then(*args, **kwargs)
        return original(*args, **kwargs)
    monkeypatch.setattr(target, name, wrapped)


def until_the_main_thread_is_stopped(timeout: float = 60) -> None:
    """In a task thread, after the signal: wait until the main thread has taken it (our handler, or
    Prefect's TerminationSignal noted as the writer lock unwinds). A fixed sleep lost that race on a
    loaded machine: the handler ran after the load had committed."""
    from warehouse import interrupt
    give_up = time.monotonic() + timeout
    while interrupt.signalled() is None:
        assert time.monotonic() < give_up, "the main thread never took the signal"
        time.sleep(0.01)


def task_threads_ended(flow: str, timeout: float = 60) -> None:
    """Wait for the flow's task threads (a plain run's pool, named after the flow) to end: an
    interrupted command does not wait for them, a process that exits does not either."""
    import threading
    give_up = time.monotonic() + timeout
    while any(t.name.startswith(flow) for t in threading.enumerate()):
        assert time.monotonic() < give_up, "a task thread still runs"
        time.sleep(0.05)


def plain_run(run, monkeypatch, *args):
    """As a user without a Prefect server runs it (whatever an earlier test of the process set)."""
    from tests.conftest import no_prefect_api
    with no_prefect_api(monkeypatch):
        return run(*args)


def views_behind(db: str) -> bool:
    """A round or a tree file loaded after the last full build (the rule every run reads)."""
    from warehouse.views.materialize import views_behind_data
    with connect_file(db, read_only=True) as con:
        return views_behind_data(con)


@pytest.mark.parametrize("as_flow_run", [False, True], ids=["plain", "flow-run"])
def test_a_signal_during_a_rounds_load_in_its_task_thread_rolls_it_back(run, warehouse, republished, monkeypatch,
                                                                         request, as_flow_run):
    """The load runs in a task thread; the signal stops the main thread. The load must not commit
    after the line said it was rolled back (it did: v6.0 changed). In a flow run (a Prefect API
    configured) Prefect's own handler takes the signal first, as TerminationSignal."""
    before = digest(warehouse, times=False)
    from warehouse.ingest import changes
    original = changes.writer

    def writer(*args, **kwargs):  # what the load writes inside its transaction: the signal lands there
        write = original(*args, **kwargs)

        def signalled_write(con):
            os.kill(os.getpid(), signal.SIGTERM)
            until_the_main_thread_is_stopped()  # this transaction is still open meanwhile
            return write(con)
        return signalled_write
    with monkeypatch.context() as m:
        m.setattr(changes, "writer", writer)
        if as_flow_run:
            code, _, err = request.getfixturevalue("cli")("backfill", "--source", republished, "--db", warehouse)
        else:
            code, _, err = plain_run(run, m, "backfill", "--source", republished, "--db", warehouse)
    assert code == 128 + signal.SIGTERM and "Traceback" not in err
    assert one_error_line(err) == ("error: interrupted by SIGTERM: the load in flight was rolled back "
                                   "(what was loaded before it is kept); rerun to finish")
    task_threads_ended("backfill")  # a task thread that went on would have committed by now
    assert digest(warehouse, times=False) == before


def test_a_signal_while_a_round_is_parsed_loads_nothing_after_the_line(run, warehouse, republished, monkeypatch):
    """Parse and validate run in the round's task thread: the thread went on to load the round after
    the line (the load committed in this process, or not, as the exit raced it)."""
    before = digest(warehouse, times=False, tables=("results", "sources", "load_events"))
    with monkeypatch.context() as m:
        signal_on_call(m, "flows.run_rounds", "prepare", then=lambda *_: until_the_main_thread_is_stopped())
        code, _, err = plain_run(run, m, "backfill", "--source", republished, "--db", warehouse)
    assert (code, one_error_line(err)) == (128 + signal.SIGTERM, KEPT)
    task_threads_ended("backfill")  # the task thread has parsed and tried to load by now
    assert digest(warehouse, times=False, tables=("results", "sources", "load_events")) == before


def test_a_load_and_its_load_event_are_kept_together_or_not_at_all(run, warehouse, republished, monkeypatch):
    """The signal as the load event is written: it was written after the load's transaction, so the
    reload was kept without its event (out of `mlperf-wh loads`) while the line said it was rolled back."""
    before = digest(warehouse, times=False, tables=("results", "sources", "load_events"))
    from warehouse.ingest import history
    original = history.record

    def record(con, event):
        if event["status"] in ("loaded", "reloaded"):  # not an unchanged round's event
            os.kill(os.getpid(), signal.SIGTERM)
            until_the_main_thread_is_stopped()
        return original(con, event)
    with monkeypatch.context() as m:
        m.setattr(history, "record", record)
        code, _, err = plain_run(run, m, "backfill", "--source", republished, "--db", warehouse)
    assert code == 128 + signal.SIGTERM and "the load in flight was rolled back" in one_error_line(err)
    task_threads_ended("backfill")
    assert digest(warehouse, times=False, tables=("results", "sources", "load_events")) == before


@pytest.mark.slow
def test_a_signal_during_the_views_rebuild_is_said_and_the_rerun_rebuilds_them(run, warehouse, republished, monkeypatch):
    before = digest(warehouse, times=False)
    with monkeypatch.context() as m:
        signal_on_call(m, "warehouse.views.materialize", "refill", nth=3)
        code, _, err = plain_run(run, m, "backfill", "--source", republished, "--db", warehouse)
    assert code == 128 + signal.SIGTERM
    assert one_error_line(err) == ("error: interrupted by SIGTERM: the views' rebuild in flight was rolled back "
                                   "(what was loaded before it is kept); rerun to finish")
    assert digest(warehouse, times=False) != before and views_behind(warehouse)  # v6.0 kept, its views not built
    code, out, err = plain_run(run, monkeypatch, "backfill", "--source", republished, "--db", warehouse)
    assert code == 0, err
    assert not views_behind(warehouse)  # the rerun loaded nothing and built the views (it found nothing to do)


@pytest.mark.parametrize("phase", ["build", "publish"])
@pytest.mark.slow
def test_a_signal_after_the_load_says_the_load_was_kept(run, warehouse, republished, monkeypatch, phase):
    """While the run report is built, or the published copy written: the load had committed."""
    before = digest(warehouse, times=False)
    with monkeypatch.context() as m:
        signal_on_call(m, "flows.run_rounds", phase)
        code, _, err = plain_run(run, m, "backfill", "--source", republished, "--db", warehouse)
    assert (code, one_error_line(err)) == (128 + signal.SIGTERM, KEPT)
    assert digest(warehouse, times=False) != before and not views_behind(warehouse)


@pytest.fixture
def v05_source(tmp_path) -> Path:
    """Two submitters of the v0.5 tree (a round without a table: `trees` rebuilds its rows first)."""
    tree = tmp_path / "trees" / "inference_results_v0.5" / "closed"
    for submitter in ("Hailo", "Alibaba"):
        shutil.copytree(SHARED / "trees" / "inference_results_v0.5" / "closed" / submitter, tree / submitter)
    return tmp_path / "trees"


@pytest.mark.slow
def test_a_signal_while_trees_loads_a_round_rolls_back_its_rows_and_run_summaries_together(
        run, v05_source, tmp_path, monkeypatch):
    """A round read in one pass is loaded in one transaction: a signal while it is written (its result
    rows replaced, its run summaries on the way) leaves neither, nor what the pass read (tree_reads)."""
    db = str(tmp_path / "w.duckdb")
    with monkeypatch.context() as m:
        signal_on_call(m, "warehouse.trees.loading", "load")
        code, _, err = plain_run(run, m, "trees", "--rounds", "v0.5", "--source", v05_source, "--db", db)
    assert (code, one_error_line(err)) == (128 + signal.SIGTERM, ROLLED_BACK)
    with connect_file(db, read_only=True) as con:
        for table in ("results", "run_summaries", "systems", "tree_files", "tree_reads"):
            assert con.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
    assert plain_run(run, monkeypatch, "trees", "--rounds", "v0.5", "--source", v05_source, "--db", db)[0] == 0
    with connect_file(db, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM run_summaries").fetchone()[0] > 0
    assert not views_behind(db)


ROLLED_BACK = ("error: interrupted by SIGTERM: the rebuild of v0.5 in flight was rolled back (what was loaded "
               "before it is kept); rerun to finish")


def test_a_signal_while_trees_lists_a_tree_writes_nothing(run, v05_source, tmp_path, monkeypatch):
    db = str(tmp_path / "w.duckdb")
    with monkeypatch.context() as m:
        signal_on_call(m, "warehouse.trees.rebuilding", "list_folder", nth=2)
        code, _, err = plain_run(run, m, "trees", "--rounds", "v0.5", "--source", v05_source, "--db", db)
    assert (code, one_error_line(err)) == (128 + signal.SIGTERM, KEPT)
    assert not Path(db).exists() or digest(db)["results"] == "0:0"


def test_sigterm_to_a_trees_process_reading_a_file_is_one_line_within_seconds(krai_warehouse, tmp_path):
    """The whole `mlperf-wh trees` process, under the writer lock, its fetch of a run summary held
    by a loopback server that does not answer (not the first file: `trees` tries that one before
    the run, and a signal there rightly says the warehouse was not written): SIGTERM ends it within
    5 s with the one line, and no tree table changed."""
    import subprocess
    import sys
    from tests.conftest import serve
    from tests.trees_layout import round_repositories
    repos = round_repositories(tmp_path / "repos", rounds=("v6.0",))
    held = "/inference_results_v6.0/main/closed/Krai/results/h200_n1-kissv/wan-2.2-t2v-a14b/singlestream/performance/run_1/mlperf_log_summary.txt"
    before = digest(krai_warehouse, times=False, tables=("run_summaries", "systems", "tree_files", "quarantine"))
    env = {**os.environ, "MLPERF_PREFECT_TEMPORARY_SERVER": "0", "MLPERF_FETCH_READ_TIMEOUT": "120"}
    env.pop("PREFECT_API_URL", None)
    with serve(repos, {held: [("sleep", 60)]}) as server:
        process = subprocess.Popen([str(Path(sys.executable).parent / "mlperf-wh"), "trees", "--rounds", "v6.0",
                                    "--source", server.url, "--db", krai_warehouse],
                                   env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        give_up = time.monotonic() + 60
        while held not in server.handler.requests_seen:
            assert process.poll() is None and time.monotonic() < give_up, process.communicate()
            time.sleep(0.05)
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
        stopped = time.monotonic() - signalled
    assert process.returncode == 128 + signal.SIGTERM and stopped < 5, (stopped, err)
    assert [line for line in err.splitlines() if line.startswith("error:")] == [KEPT] and "Traceback" not in err
    assert digest(krai_warehouse, times=False, tables=("run_summaries", "systems", "tree_files", "quarantine")) == before
