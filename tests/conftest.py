"""Shared fixtures: the real shared data, a real HTTP server on 127.0.0.1, a real Prefect harness.

Tests by kind. A test is `unit` only when it says so (`pytestmark = pytest.mark.unit` in its module, or
`@pytest.mark.unit`): a pure function, no ../shared data, no Prefect, no server or subprocess; `make
test-unit` (`pytest -m unit`) runs those alone in seconds, even where ../shared does not exist. Every
other test is `integration` (marked here) and starts by checking the shared data is there, failing
with one line if not. A unit test that asks for an integration fixture is refused at collection.
MLPERF_SHARED_DIR (default: `shared` beside the checkout) says where the shared data lives."""
from __future__ import annotations

import http.server
import os
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from tests.loopback import serving
from tests.readers import connect_file

ROOT = Path(__file__).resolve().parents[1]
SHARED = (Path(os.environ.get("MLPERF_SHARED_DIR") or ROOT.parent / "shared") / "mlcommons").resolve()
MIRROR = SHARED / "mirror"
UNOFFICIAL = SHARED / "unofficial"
# every round the mirror holds, with its records: the session warehouse's rounds (v6.1 published only
# the checker's summary.csv, its third candidate file)
SHARED_ROUNDS = {"v4.1": 937, "v5.1": 1448, "v6.0": 520, "v6.1": 492}

# Fast retries and timeouts for fault tests; the production defaults live in FetchSettings.
os.environ.setdefault("MLPERF_FETCH_BACKOFF", "0.05")
os.environ.setdefault("MLPERF_FETCH_READ_TIMEOUT", "1.5")
os.environ.setdefault("MLPERF_FETCH_CONNECT_TIMEOUT", "2")
# Two workers on two cores: DuckDB's default of a thread per core in every connection of each makes
# them contend (and starts a thread pool at every connect); the suite took about a tenth longer. The
# slow suite sets it empty (Makefile), so DuckDB's default is tested there and by the README's blocks.
os.environ.setdefault("MLPERF_DUCKDB_THREADS", "1")
os.environ.pop("MLPERF_SOURCE", None)
os.environ.pop("MLPERF_WAREHOUSE_DB", None)


# What a unit test may not ask for: the shared data, Prefect, servers, the CLI (which runs flows).
INTEGRATION_FIXTURES = {"prefect_harness", "cli", "plain_cli", "mirror_server", "shared_warehouse", "shared_con",
                        "private_con", "trees_warehouse", "old_rounds_warehouse"}


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: `-m integration` must see the marks added here
def pytest_collection_modifyitems(config, items):
    refused = []
    for item in items:
        if item.get_closest_marker("unit") is None:
            item.add_marker(pytest.mark.integration)
        elif uses := INTEGRATION_FIXTURES & set(item.fixturenames):
            refused.append(f"{item.nodeid} is marked unit but uses {', '.join(sorted(uses))}")
    if refused:
        raise pytest.UsageError("unit tests use no shared data, Prefect or server:\n" + "\n".join(refused))


def pytest_runtest_setup(item):
    """Before any fixture (session-scoped ones build warehouses from the shared data)."""
    if item.get_closest_marker("unit") is None and not MIRROR.is_dir():
        pytest.fail(f"shared MLCommons data not found at {SHARED}: integration tests read "
                    "../shared/mlcommons beside the checkout (or MLPERF_SHARED_DIR/mlcommons)", pytrace=False)


_LAUNCHED: list = []  # the session's Prefect API server, launched before any test asks for it


def pytest_collection_finish(session):
    """Launch the Prefect API server now when a test of this session will need it: it starts (5-6 s)
    while the first tests run. Each xdist worker collects every test and launches its own."""
    if not session.config.option.collectonly and any("prefect_harness" in item.fixturenames for item in session.items):
        from tests.prefect_api import LaunchedServer
        _LAUNCHED.append(LaunchedServer())


def pytest_sessionfinish(session):
    """Stop a launched server no test of this worker asked for (prefect_harness stops its own)."""
    while _LAUNCHED:
        _LAUNCHED.pop().stop()


@pytest.fixture(scope="session")
def prefect_harness():
    """One Prefect API for the whole session (tests/prefect_api.py: starting one costs 5-18 s)."""
    # `import prefect.main` configures Prefect's logging, binding its console handler to the
    # sys.stderr of that moment. Left to the first flow import inside a test, that is the test's
    # capsys stream, closed when the test ends: every later Prefect log line then fails, and with
    # log_prints=True the failure report recurses (RecursionError). Configure it now instead.
    import prefect.main  # noqa: F401

    from tests.prefect_api import prefect_api
    with prefect_api(_LAUNCHED.pop() if _LAUNCHED else None):
        yield


class FaultyHandler(http.server.SimpleHTTPRequestHandler):
    """Serves a directory; `faults[path]` is a list of actions consumed one request at a time:
    an int status code, ("sleep", seconds), ("truncate", n_bytes), ("body", bytes), or
    ("raw", bytes): the whole response as written on the wire (status line, headers, body), after
    which the connection closes; for responses the other actions cannot make (a Content-Length
    larger than the body, a body with no Content-Length); ("redirect", location): a 302;
    ("drip", seconds): the file one byte every `seconds` (a slow-drip server)."""

    faults: dict[str, list] = {}
    requests_seen: list[str] = []

    def log_message(self, *args):
        pass

    def do_GET(self):
        type(self).requests_seen.append(self.path)
        actions = type(self).faults.get(self.path)
        action = actions.pop(0) if actions else None
        if isinstance(action, int):
            self.send_error(action)
            return
        if isinstance(action, tuple) and action[0] == "raw":
            self.close_connection = True
            self.wfile.write(action[1])
            return
        if isinstance(action, tuple) and action[0] == "redirect":
            self.send_response(302)
            self.send_header("Location", action[1])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if isinstance(action, tuple) and action[0] == "drip":
            self._drip(action[1])
            return
        if isinstance(action, tuple) and action[0] == "sleep":
            time.sleep(action[1])
        if isinstance(action, tuple) and action[0] in ("truncate", "body"):
            body = action[1] if action[0] == "body" else self._file_bytes()[: action[1]]
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def _drip(self, seconds: float) -> None:
        body = self._file_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        for byte in body:
            self.wfile.write(bytes([byte]))
            self.wfile.flush()
            time.sleep(seconds)

    def _file_bytes(self) -> bytes:
        return Path(self.translate_path(self.path)).read_bytes()


@contextmanager
def serve(directory: Path, faults: dict | None = None):
    handler = type("Handler", (FaultyHandler,), {"faults": dict(faults or {}), "requests_seen": []})

    def factory(*args, **kwargs):
        return handler(*args, directory=str(directory), **kwargs)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), factory)

    def handle_error(request, client_address):
        # A client that gave up (read timeout) makes a sleeping handler's late write fail; that
        # traceback would land in whichever test is running then. Other errors are still printed.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            http.server.ThreadingHTTPServer.handle_error(server, request, client_address)
    server.handle_error = handle_error
    with serving(server, handler):
        yield server


@pytest.fixture
def mirror_server():
    with serve(MIRROR) as server:
        yield server


@pytest.fixture
def db_file(tmp_path) -> str:
    return str(tmp_path / "warehouse.duckdb")


@pytest.fixture
def cli(prefect_harness, capsys):
    """Run `mlperf-wh ARGS...` in this process (the session's Prefect API); returns (code, out, err)."""
    from warehouse.cli import main

    def run(*args: str):
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run


@pytest.fixture(autouse=True)
def no_signal_outlives_its_test():
    """A test that stops an in-process command with a signal leaves it recorded, as a process that
    is about to exit does (db.transaction then writes nothing more); the next test starts clean."""
    yield
    interrupt = sys.modules.get("warehouse.interrupt")
    if interrupt is not None:
        interrupt.forget_signals()


@contextmanager
def no_prefect_api(monkeypatch):
    """This process as a user's without a Prefect server: no API URL, no temporary server asked for."""
    from prefect.settings import PREFECT_API_URL, temporary_settings
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    monkeypatch.delenv("MLPERF_PREFECT_TEMPORARY_SERVER", raising=False)
    with temporary_settings(restore_defaults={PREFECT_API_URL}):
        yield


@pytest.fixture
def plain_cli(monkeypatch, capsys):
    """Run `mlperf-wh ARGS...` in this process with no Prefect API, as most users run it: a run is
    the flow's functions called plainly (flows/local_runs.py) -> (code, out, err). A case about
    what a run checks or says, not about Prefect, uses it: a flow run costs a second more, and
    test_plain_runs.py holds a plain run to a flow run."""
    from warehouse.cli import main

    def run(*args: str):
        with no_prefect_api(monkeypatch):
            code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run


def mirror_location(round_name: str, source: str = str(MIRROR)) -> tuple[str, str]:
    """(file name, location at `source`) of the round's first candidate file the mirror holds."""
    from warehouse.identity.rounds import load_registry
    here = load_registry()[round_name]
    held = next(f for f, location in here.locations(str(MIRROR)) if Path(location).is_file())
    return next((f, location) for f, location in here.locations(source) if f == held)


def load_shared_rounds(db_path: str, rounds=tuple(SHARED_ROUNDS)) -> None:
    """Build a warehouse from the shared mirror with the plain pipeline functions (no Prefect), each
    load recorded as a run records it (load_events, result_changes)."""
    from warehouse.ingest.history import Run, ingest_location_with_history
    from warehouse.store import db
    from warehouse.views import materialize

    with db.connect(db_path) as con:
        for name in rounds:
            file_name, location = mirror_location(name)
            ingest_location_with_history(con, name, "official", file_name, location, Run("backfill"))
        materialize(con)


@pytest.fixture(scope="session")
def shared_warehouse(tmp_path_factory) -> str:
    """A warehouse holding every round the mirror holds, loaded as a backfill loads them (what a run
    over the whole mirror finds nothing new in), built once per session; open it read-only or copy it."""
    path = str(tmp_path_factory.mktemp("shared") / "warehouse.duckdb")
    load_shared_rounds(path)
    return path


@pytest.fixture
def shared_con(shared_warehouse):
    import duckdb
    con = connect_file(shared_warehouse, read_only=True)
    yield con
    con.close()


@pytest.fixture
def private_con(shared_warehouse, tmp_path):
    """A writable copy of the session warehouse; the shared file is never written."""
    import shutil

    from warehouse.store import db
    path = tmp_path / "private.duckdb"
    shutil.copyfile(shared_warehouse, path)
    con = db.connect(str(path))
    yield con
    con.close()


@pytest.fixture(scope="session")
def trees_warehouse(shared_warehouse, tmp_path_factory) -> str:
    """The shared warehouse plus the tree ingest over the shared tree of each of its rounds (v6.1 has
    none: its table alone is shared), read from ../shared/mlcommons/trees as it is laid out (the trees
    alone, no round repository around them), with the plain functions `mlperf-wh trees` runs (no
    Prefect; the flow and the HTTP fetch are tested on their own in test_trees_ingest.py); built once
    per session, open it read-only."""
    import shutil

    from tests.trees_layout import TREE_ROUNDS, TREES
    from warehouse.identity.rounds import load_registry
    from warehouse.store import db
    from warehouse.trees.run import read_trees
    from warehouse.views import materialize
    path = tmp_path_factory.mktemp("trees") / "warehouse.duckdb"
    shutil.copyfile(shared_warehouse, path)
    registry = load_registry()
    result = read_trees([registry[name] for name in TREE_ROUNDS], str(TREES), str(path), workers=4)
    assert not result.failed, result.problems
    with db.connect(str(path)) as con:
        materialize(con)
    return str(path)


OLD_ROUNDS = ("v0.5", "v0.7", "v1.1", "v2.0", "v2.1")  # the shared trees of rounds MLCommons published no table of


@pytest.fixture(scope="session")
def old_rounds_warehouse(shared_warehouse, tmp_path_factory) -> str:
    """The shared warehouse plus every shared round MLCommons published no table of, rebuilt from its tree
    as `mlperf-wh trees --rounds v0.5,v0.7,v1.1,v2.0,v2.1 --source ../shared/mlcommons/trees` does;
    built once per session, open it read-only."""
    import shutil

    from tests.trees_layout import TREES
    from warehouse.identity.rounds import load_registry
    from warehouse.trees.run import rebuild_rounds
    from warehouse.views import rebuild as rebuild_views
    path = str(tmp_path_factory.mktemp("old_rounds") / "warehouse.duckdb")
    shutil.copyfile(shared_warehouse, path)
    registry = load_registry()
    done = rebuild_rounds([registry[name] for name in OLD_ROUNDS], str(TREES), path)
    assert [r.missing for r in done] == [None] * len(OLD_ROUNDS)
    rebuild_views(path, "test")
    return path
