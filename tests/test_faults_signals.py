"""Fault suite, case 3: interruption. The installed `mlperf-wh` in a process of its own, as a user
runs it: SIGTERM stops a backfill within seconds with the in-flight load rolled back (a plain run,
and a flow run on Prefect's temporary server), kill -9 leaves no Prefect server behind, and a
slow-drip server cannot hold a fetch past its deadline."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import MIRROR, serve
from tests.faults import digest, one_error_line
from tests.readers import connect_file

V60_PATH = "/inference_results_v6.0/main/summary_results.json"
COMMAND = Path(sys.executable).parent / "mlperf-wh"


@pytest.fixture(scope="module")
def prefect_home(tmp_path_factory) -> Path:
    """One Prefect home for the module's processes: its database is migrated once."""
    return tmp_path_factory.mktemp("prefect-home")


def start_backfill(server_url: str, db: str, prefect_home: Path, *rounds: str,
                   temporary_server: bool = True, verbose: bool = False) -> subprocess.Popen:
    """No Prefect API configured: a flow run on Prefect's temporary server (MLPERF_PREFECT_TEMPORARY_SERVER),
    or, without `temporary_server`, a plain run."""
    env = {**os.environ, "PREFECT_HOME": str(prefect_home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "MLPERF_PREFECT_TEMPORARY_SERVER": "1" if temporary_server else "0"}
    env.pop("PREFECT_API_URL", None)
    return subprocess.Popen([str(COMMAND), *(["-v"] if verbose else []), "backfill", "--source", server_url,
                             "--db", db, "--rounds", ",".join(rounds)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def wait_for_request(server, path: str, process: subprocess.Popen, timeout: float = 150) -> None:
    give_up = time.monotonic() + timeout
    while path not in server.handler.requests_seen:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < give_up, "the backfill never asked for " + path
        time.sleep(0.1)


def descendants(pid: int) -> set[int]:
    """Every process below `pid`, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_gone(pids: set[int], timeout: float) -> set[int]:
    give_up = time.monotonic() + timeout
    while any(alive(p) for p in pids) and time.monotonic() < give_up:
        time.sleep(0.1)
    return {p for p in pids if alive(p)}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.slow
def test_sigterm_mid_backfill_stops_within_5s_and_a_rerun_matches_a_clean_run(cli, tmp_path, prefect_home):
    interrupted, clean = str(tmp_path / "interrupted.duckdb"), str(tmp_path / "clean.duckdb")
    with serve(MIRROR, {V60_PATH: [("sleep", 60)]}) as server:
        process = start_backfill(server.url, interrupted, prefect_home, "v4.1", "v6.0", verbose=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(process.stderr), daemon=True)
        reader.start()
        wait_for_request(server, V60_PATH, process)  # v6.0 is in flight
        give_up = time.monotonic() + 60
        # v4.1 committed (a load still in flight at the signal is rolled back: never kept after the line)
        while not any("ingest-v4.1" in line and "Completed" in line for line in lines):
            assert process.poll() is None and time.monotonic() < give_up, "".join(lines)
            time.sleep(0.05)
        below = descendants(process.pid)
        assert below, "Prefect's temporary server should be running below the CLI"
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        stopped = time.monotonic() - signalled
        reader.join(timeout=5)
        err = "".join(lines)
        left = wait_gone(below, timeout=5)
        assert process.returncode == 128 + signal.SIGTERM, err
        assert stopped < 5, f"took {stopped:.1f} s to stop"
        assert left == set(), f"processes left behind: {left}"
        assert "interrupted by SIGTERM" in one_error_line(_error_lines(err))
        assert "Traceback" not in err
        # Nothing of v6.0 and no view rebuilt after the signal: only v4.1, committed before it.
        import duckdb
        con = connect_file(interrupted, read_only=True)
        assert con.execute("SELECT DISTINCT round FROM sources").fetchall() == [("v4.1",)]
        con.close()
        # A rerun completes the warehouse exactly as a clean run builds it.
        assert cli("backfill", "--source", server.url, "--db", interrupted, "--rounds", "v4.1,v6.0")[0] == 0
        assert cli("backfill", "--source", server.url, "--db", clean, "--rounds", "v4.1,v6.0")[0] == 0
    assert digest(interrupted, times=False) == digest(clean, times=False)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.slow
def test_sigterm_mid_plain_backfill_stops_within_5s_keeping_what_was_committed(tmp_path, prefect_home, monkeypatch):
    """A plain run (no Prefect API): v6.0's fetch sleeps in a task thread, which the exit must not wait for."""
    monkeypatch.setenv("MLPERF_FETCH_READ_TIMEOUT", "120")  # the fetch in flight stays in flight until the signal
    db = str(tmp_path / "interrupted.duckdb")
    with serve(MIRROR, {V60_PATH: [("sleep", 60)]}) as server:
        process = start_backfill(server.url, db, prefect_home, "v4.1", "v6.0", temporary_server=False, verbose=True)
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.extend(process.stderr), daemon=True)
        reader.start()
        wait_for_request(server, V60_PATH, process)
        give_up = time.monotonic() + 60
        while not any("ingest-v4.1 finished" in line for line in lines):  # -v: the task's own line
            assert process.poll() is None and time.monotonic() < give_up, "".join(lines)
            time.sleep(0.05)
        assert descendants(process.pid) == set(), "a plain run starts no Prefect server"
        signalled = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        stopped = time.monotonic() - signalled
        reader.join(timeout=5)
    err = "".join(lines)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert stopped < 5, f"took {stopped:.1f} s to stop"
    assert "interrupted by SIGTERM" in one_error_line(_error_lines(err))
    assert "Traceback" not in err
    con = connect_file(db, read_only=True)
    assert con.execute("SELECT DISTINCT round FROM sources").fetchall() == [("v4.1",)]
    con.close()


def _error_lines(err: str) -> str:
    """Only our own lines: Prefect's log lines (timestamps, levels) are left out."""
    return "\n".join(line for line in err.splitlines() if line.startswith("error: "))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl and /proc")
@pytest.mark.slow
def test_kill_9_leaves_no_prefect_server_behind(tmp_path, prefect_home):
    with serve(MIRROR, {V60_PATH: [("sleep", 60)]}) as server:
        process = start_backfill(server.url, str(tmp_path / "w.duckdb"), prefect_home, "v6.0")
        wait_for_request(server, V60_PATH, process)
        below = descendants(process.pid)
        assert below, "Prefect's temporary server should be running below the CLI"
        process.kill()
        process.communicate(timeout=30)
        assert wait_gone(below, timeout=5) == set()


def republished_v60(directory: Path) -> Path:
    """v6.0's table with its first figure 1 % higher: a different, valid, complete state to load."""
    import json
    records = json.loads((MIRROR / V60_PATH.lstrip("/")).read_bytes())
    records[0]["Performance_Result"] *= 1.01
    changed = directory / "summary_results.json"
    changed.write_text(json.dumps(records))
    return changed


def two_states(before_db: str, after_db: str) -> tuple[dict, dict]:
    """The digests of a warehouse before a load and after it, which must differ."""
    before, after = digest(before_db, times=False), digest(after_db, times=False)
    assert before != after
    return before, after


@pytest.mark.slow
def test_a_signal_anywhere_in_a_load_leaves_the_old_state_or_the_new_never_a_mix(shared_warehouse, tmp_path):
    """A real SIGTERM to this process at spread-out moments of a real load (fetch, parse, validate,
    the DuckDB transaction): the warehouse afterwards is exactly the state before or after."""
    import random
    import shutil
    import threading

    from warehouse.cli.failures import run_reporting_failures
    from warehouse.ingest.pipeline import ingest_location
    from warehouse.store import db

    changed = republished_v60(tmp_path)

    def load(target: str) -> None:
        with db.connect(target) as con:
            ingest_location(con, "v6.0", "official", "summary_results.json", str(changed))

    after_db = str(tmp_path / "after.duckdb")
    shutil.copyfile(shared_warehouse, after_db)
    started = time.monotonic()
    load(after_db)
    load_seconds = time.monotonic() - started
    before, after = two_states(shared_warehouse, after_db)

    rng = random.Random(8)
    outcomes = []
    for attempt in range(8):
        target = str(tmp_path / f"w{attempt}.duckdb")
        shutil.copyfile(shared_warehouse, target)
        timer = threading.Timer(rng.uniform(0, load_seconds), os.kill, (os.getpid(), signal.SIGTERM))

        def signalled_load() -> int:
            timer.start()
            load(target)
            timer.join()  # a signal after the load still arrives inside the run
            time.sleep(0.05)
            return 0
        try:
            # as the CLI runs a command: the signal handlers, and whatever DuckDB or Arrow raise
            # when a signal stops them taken for the interrupt it is
            assert run_reporting_failures(signalled_load) == 128 + signal.SIGTERM
        finally:
            timer.cancel()
        state = digest(target, times=False)
        assert state in (before, after), f"attempt {attempt}: a state that is neither before nor after"
        outcomes.append("after" if state == after else "before")
    assert "before" in outcomes  # at least one signal landed before the commit


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGKILL")
@pytest.mark.slow
def test_kill_9_anywhere_in_a_run_leaves_the_old_state_or_the_new_and_the_next_run_completes(shared_warehouse,
                                                                                              tmp_path):
    """SIGKILL, which no handler sees, to a whole `mlperf-wh ingest` at spread-out moments of its run
    (start-up, read, validate, the DuckDB transaction, the views, the published copy): the warehouse
    opens afterwards as exactly the state before or after (DuckDB's write-ahead log), no lock or
    half-written copy the dead process left stops the next run, and that run ends in the new state."""
    import random
    import shutil

    changed = republished_v60(tmp_path)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLPERF_PREFECT"))}
    env |= {"PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}

    def ingest(target: str) -> subprocess.Popen:  # a plain run, as most users run it
        return subprocess.Popen([str(COMMAND), "ingest", "v6.0", "--file", str(changed), "--origin", "official",
                                 "--db", target], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def copy(name: str) -> str:
        target = str(tmp_path / name)
        shutil.copyfile(shared_warehouse, target)
        return target

    clean = copy("clean.duckdb")
    started = time.monotonic()
    first = ingest(clean)
    out = first.communicate(timeout=120)
    assert first.returncode == 0, out
    run_seconds = time.monotonic() - started
    before, after = two_states(shared_warehouse, clean)

    rng = random.Random(9)
    outcomes = []
    for attempt in range(6):
        target = copy(f"w{attempt}.duckdb")
        process = ingest(target)
        time.sleep(rng.uniform(0.2, 1.0) * run_seconds)
        process.kill()
        process.communicate(timeout=30)
        state = digest(target, times=False)
        assert state in (before, after), f"attempt {attempt}: a state that is neither before nor after"
        outcomes.append("after" if state == after else "before")
        again = ingest(target)
        out = again.communicate(timeout=120)
        assert again.returncode == 0, (attempt, out)
        assert digest(target, times=False) == after, attempt
    assert "before" in outcomes, outcomes  # at least one kill landed before the commit


def processes_below(pid: int, name: bytes) -> set[int]:
    """The processes below `pid` whose command line names `name` (b"uvicorn", b"git")."""
    found = set()
    for child in descendants(pid):
        try:
            if name in Path(f"/proc/{child}/cmdline").read_bytes():
                found.add(child)
        except OSError:
            pass
    return found


def uvicorn_below(pid: int) -> set[int]:
    return processes_below(pid, b"uvicorn")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl and /proc")
@pytest.mark.slow
@pytest.mark.parametrize("command", [["trees"], ["watch"], ["ingest", "v6.0"]])
def test_kill_9_of_any_flow_command_leaves_no_prefect_server_behind(tmp_path, prefect_home, command):
    env = {**os.environ, "PREFECT_HOME": str(prefect_home), "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
           "MLPERF_PREFECT_TEMPORARY_SERVER": "1"}
    env.pop("PREFECT_API_URL", None)
    with serve(MIRROR, {V60_PATH: [("sleep", 60)]}) as server:
        process = subprocess.Popen([str(COMMAND), *command, "--source", server.url, "--db", str(tmp_path / "w.duckdb")],
                                   env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        give_up = time.monotonic() + 120
        while not uvicorn_below(process.pid):
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < give_up, "no Prefect server started below " + " ".join(command)
            time.sleep(0.05)
        below = descendants(process.pid)
        process.kill()
        process.communicate(timeout=30)
        assert wait_gone(below, timeout=5) == set()
