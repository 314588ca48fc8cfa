"""Look before orchestrating (issue 24): a backfill or a watch that finds every round as its last load
left it ends without Prefect (no server, no flow run), records that in the history and prints the
usual report; anything new, changed or a views definition changed, and the flow runs."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MIRROR, SHARED_ROUNDS, mirror_location
from tests.readers import connect_file
from warehouse.identity.rounds import load_registry, parse_round_list, resolve_rounds
from warehouse.ingest.fetch import FetchSettings
from warehouse.ingest.look import Unchanged, look_at_rounds, these_rounds
from warehouse.store import db
from warehouse.views.materialize import views_current

ROOT = Path(__file__).resolve().parents[1]
# Runs the CLI in a fresh interpreter and says which heavy packages the command imported.
CLI_IN_A_FRESH_PROCESS = """
import json, sys
from warehouse.cli import main
code = main(sys.argv[1:])
heavy = sorted(({m.split('.')[0] for m in sys.modules} & {'prefect', 'pandera', 'pandas'})
               | ({'flows.ingest', 'flows.run_rounds', 'flows.watch'} & set(sys.modules)))
print(json.dumps({"code": code, "imported": heavy}), file=sys.stderr)
"""


@pytest.fixture
def loaded_copy(shared_warehouse, tmp_path) -> str:
    path = tmp_path / "w.duckdb"
    shutil.copyfile(shared_warehouse, path)
    return str(path)


def run_cli(*args: str) -> tuple[dict, str]:
    done = subprocess.run([sys.executable, "-c", CLI_IN_A_FRESH_PROCESS, *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    verdict = json.loads(done.stderr.strip().splitlines()[-1])
    return verdict, done.stdout


def unchanged_events(path: str) -> list[tuple]:
    with connect_file(path, read_only=True) as con:
        return con.execute("SELECT run_kind, round, status, sha256 = previous_sha256, flow_run_id FROM load_events "
                           "WHERE status = 'unchanged' ORDER BY round").fetchall()


def test_a_backfill_that_finds_nothing_new_starts_no_flow_and_says_so_in_the_history(loaded_copy):
    verdict, out = run_cli("--db", loaded_copy, "backfill", "--source", str(MIRROR))
    assert verdict == {"code": 0, "imported": []}, "no Prefect, no Pandera: looking costs what looking costs"
    assert out.startswith("backfill: nothing new; the warehouse is unchanged (4 unchanged, 1 not published)")
    assert unchanged_events(loaded_copy) == [("backfill", r, "unchanged", True, None) for r in SHARED_ROUNDS]
    # `history` reads the published copy, refreshed first as the warehouse changed since it was made
    verdict, out = run_cli("--db", loaded_copy, "loads", "--format", "json")
    assert verdict["code"] == 0
    assert [(e["round"], e["status"]) for e in json.loads(out)] == [  # the session warehouse's loads, then this run
        (r, status) for status in ("loaded", "unchanged") for r in SHARED_ROUNDS]


def test_a_watch_that_finds_nothing_new_starts_no_flow(loaded_copy):
    verdict, out = run_cli("--db", loaded_copy, "watch", "--source", str(MIRROR))
    assert verdict == {"code": 0, "imported": []}
    assert out.startswith("watch: nothing new; the warehouse is unchanged (4 unchanged")
    assert [r for _, r, *_ in unchanged_events(loaded_copy)] == list(SHARED_ROUNDS)


def test_a_changed_file_needs_the_flow(loaded_copy, tmp_path):
    mirror = tmp_path / "mirror"
    shutil.copytree(MIRROR, mirror, ignore=shutil.ignore_patterns("*.csv"))
    table = next(mirror.glob("inference_results_v5.1/*/summary_results.json"))
    table.write_bytes(table.read_bytes() + b"\n")  # the same rows, other bytes: the flow must look inside
    rounds = resolve_rounds(parse_round_list("v4.1,v5.1"), load_registry())
    with db.connect(loaded_copy) as con:
        assert look_at_rounds(con, rounds, str(mirror), FetchSettings()) is None
        looked = look_at_rounds(con, rounds[:1], str(mirror), FetchSettings())
    assert [type(f) for f in looked] == [Unchanged] and looked[0].outcome.status == "unchanged"


def test_a_round_never_loaded_needs_the_flow(tmp_path):
    rounds = resolve_rounds(parse_round_list("v6.0"), load_registry())
    with db.connect(str(tmp_path / "empty.duckdb")) as con:
        assert look_at_rounds(con, rounds, str(MIRROR), FetchSettings()) is None


def test_the_views_are_current_until_a_model_or_a_reference_table_changes(private_con, tmp_path, monkeypatch):
    assert views_current(private_con)
    reference = tmp_path / "reference"
    shutil.copytree(ROOT / "warehouse" / "identity" / "reference", reference)
    monkeypatch.setenv("MLPERF_REFERENCE_DIR", str(reference))
    assert views_current(private_con), "a copy with the same bytes builds the same views"
    accelerators = reference / "accelerators.csv"
    accelerators.write_text(accelerators.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert not views_current(private_con)
    private_con.execute("DROP VIEW marts.leaderboard")
    monkeypatch.delenv("MLPERF_REFERENCE_DIR")
    assert not views_current(private_con), "a model the build made is gone"


def test_these_rounds_plans_exactly_them():
    rounds = resolve_rounds(parse_round_list("v4.1"), load_registry())
    assert these_rounds(rounds)(None) == (rounds, {})


def _loaded_from(url: str, db_path: Path, rounds=("v6.0",)) -> None:
    """Rounds loaded from `url` with the plain pipeline (what the look compares against: their Last-Modified)."""
    from warehouse.ingest.pipeline import ingest_location
    from warehouse.views import materialize
    with db.connect(str(db_path)) as con:
        for name in rounds:
            file_name, location = mirror_location(name, url)
            ingest_location(con, name, "official", file_name, location)
        materialize(con)


@pytest.mark.slow
def test_a_run_that_finds_nothing_new_makes_no_reachability_probe(tmp_path):
    """The probe (a TCP connection and nothing sent) runs only when something will be fetched: a
    no-change run asked the source already. Every connection the source sees carries a request."""
    from tests.conftest import serve
    db_path = tmp_path / "w.duckdb"
    with serve(MIRROR) as server:
        _loaded_from(server.url, db_path, tuple(SHARED_ROUNDS))  # every round the watcher would find
        connections = []
        handle = server.process_request
        server.process_request = lambda request, address: (connections.append(address), handle(request, address))
        for kind in ("backfill", "watch"):
            connections.clear()
            server.handler.requests_seen.clear()
            extra = ["--rounds", "v6.0"] if kind == "backfill" else []
            verdict, out = run_cli("--db", str(db_path), kind, "--source", server.url, *extra)
            assert verdict == {"code": 0, "imported": []}, out
            assert "nothing new" in out
            assert len(connections) == len(server.handler.requests_seen), (kind, connections, server.handler.requests_seen)


@pytest.mark.slow
def test_an_unreachable_source_is_still_one_line_once_the_look_fails(tmp_path):
    with serve_and_stop() as url:
        db_path = tmp_path / "w.duckdb"
        _loaded_from(url, db_path)
    done = subprocess.run([sys.executable, "-m", "warehouse.cli", "--db", str(db_path), "backfill", "--rounds", "v6.0",
                           "--source", url], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "cannot be reached from this machine" in done.stderr and "Traceback" not in done.stderr


def serve_and_stop():
    from contextlib import contextmanager

    from tests.conftest import serve

    @contextmanager
    def served():
        with serve(MIRROR) as server:
            yield server.url
    return served()
