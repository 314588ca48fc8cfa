"""The watcher, end to end: `mlperf-wh watch` (the watch-rounds flow, real Prefect) against a real
HTTP server on 127.0.0.1 whose rounds appear and change as MLCommons' would."""
from __future__ import annotations

import datetime as dt
import json
import os

import duckdb
import polars as pl
import pytest

from schemas.rounds import LoadEvent
from tests.conftest import MIRROR, serve
from tests.shared_rows import as_round
from tests.test_backfill import query, statuses
from schemas import polars_types
from warehouse.ingest.history import EVENT_COLUMNS, events
from warehouse.store.publish import published_path
from tests.readers import connect_file

TABLES = ("results", "sources", "quarantine", "load_events", "rounds")


def file_of(round_name: str) -> str:
    return f"inference_results_{round_name}/main/summary_results.json"


def appear(upstream, round_name: str, as_published_in: str | None = None) -> None:
    """The round's table appears upstream (a link to the shared file, never a copy in the repo).
    as_published_in: a round the registry does not list, made of another round's records with its
    own round markers (result IDs and version), as MLCommons would publish it."""
    target = upstream / file_of(round_name)
    target.parent.mkdir(parents=True, exist_ok=True)
    if as_published_in is None:
        target.symlink_to(MIRROR / file_of(round_name))
        return
    target.write_text(json.dumps(as_round(round_name, as_published_in)))


def change_one_result(upstream, round_name: str) -> dict:
    """MLCommons corrects one published result: the file is rewritten (newer Last-Modified)."""
    target = upstream / file_of(round_name)
    records = json.loads(target.read_bytes())
    changed = records[0]
    changed["Performance_Result"] = float(changed["Performance_Result"]) * 2
    target.unlink()
    target.write_text(json.dumps(records))
    later = target.stat().st_mtime + 10  # Last-Modified has 1 s resolution
    os.utime(target, (later, later))
    return changed


def snapshot(db: str) -> dict[str, list]:
    with connect_file(db, read_only=True) as con:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in TABLES}


def watch(cli, server, db):
    return cli("watch", "--source", server.url, "--db", db)


def assert_events_follow_their_schema(db: str) -> None:
    """The load events runs store are what schemas/rounds.py LoadEvent says (loads, reloads, failures)."""
    assert EVENT_COLUMNS == list(polars_types(LoadEvent)), "warehouse/ingest/history.py names LoadEvent's columns"
    with connect_file(db, read_only=True) as con:
        stored = events(con).select(EVENT_COLUMNS)
    # DuckDB names the zone its TIMESTAMPTZ values come back in Etc/UTC; the same instants.
    LoadEvent.validate(stored.with_columns(pl.col("loaded_at").dt.convert_time_zone("UTC")), lazy=True)


@pytest.mark.slow  # five watcher runs in a row (~33 s)
def test_watcher_loads_new_rounds_reloads_changed_files_finds_unlisted_rounds_and_says_when_nothing_is_new(
        cli, db_file, tmp_path, monkeypatch):
    upstream = tmp_path / "upstream"
    appear(upstream, "v4.1")
    monkeypatch.setenv("MLPERF_EXPORT_DIR", str(tmp_path / "bi"))  # regenerated after runs that load
    with serve(upstream) as server:
        code, out, err = watch(cli, server, db_file)
        assert code == 0, (out, err)
        manifest = json.loads((tmp_path / "bi" / "manifest.json").read_text())
        assert "v4.1" in json.dumps(manifest) and "v5.1" not in json.dumps(manifest)
        assert statuses(out) == {"v4.1": "loaded", "v5.0": "not_published", "v5.1": "not_published",
                                 "v6.0": "not_published", "v6.1": "not_published",
                                 "v6.2": "not_published", "v7.0": "not_published"}
        assert query(db_file, "SELECT round, rows_read FROM sources") == [("v4.1", 937)]  # records

        appear(upstream, "v5.1")
        server.handler.requests_seen.clear()
        code, out, err = watch(cli, server, db_file)
        assert code == 0, (out, err)
        assert {r: s for r, s in statuses(out).items() if s != "not_published"} == {
            "v4.1": "unchanged", "v5.1": "loaded"}
        # v4.1 was not downloaded again: its conditional GET was answered 304.
        assert server.handler.requests_seen.count("/" + file_of("v4.1")) == 1
        assert query(db_file, "SELECT round, status, results_new, results_changed FROM load_events "
                              "ORDER BY loaded_at") == [("v4.1", "loaded", 937, 0), ("v5.1", "loaded", 1448, 0)]

        corrected = change_one_result(upstream, "v5.1")
        code, out, err = watch(cli, server, db_file)
        assert code == 0, (out, err)
        assert {r: s for r, s in statuses(out).items() if s != "not_published"} == {
            "v4.1": "unchanged", "v5.1": "loaded"}
        [event] = query(db_file, "SELECT status, results_new, results_changed, results_removed, change_summary, "
                                 "sha256 <> previous_sha256 FROM load_events WHERE round = 'v5.1' AND status = 'reloaded'")
        assert event == ("reloaded", 0, 1, 0, "reloaded: 0 new, 1 changed, 0 removed results", True)
        assert query(db_file, "SELECT value FROM results WHERE round = 'v5.1' AND result_id = ? AND model = ? "
                              "AND scenario = ? AND metric = 'performance'",
                     [corrected["ID"], corrected["Model"], corrected["Scenario"]]) == [
            (float(corrected["Performance_Result"]),)]
        code, out, _ = cli("loads", "--db", db_file, "--round", "v5.1", "--format", "json")
        assert code == 0 and json.loads(out)[-1]["change_summary"] == "reloaded: 0 new, 1 changed, 0 removed results"

        appear(upstream, "v6.2", as_published_in="v6.0")  # a round the registry does not list
        code, out, err = watch(cli, server, db_file)
        assert code == 0, (out, err)
        assert statuses(out)["v6.2"] == "loaded" and statuses(out)["v7.0"] == "not_published"
        assert query(db_file, "SELECT found_by, published_on FROM rounds WHERE round = 'v6.2'") == [
            ("watcher", dt.date.today())]
        assert query(db_file, "SELECT rows_read FROM sources WHERE round = 'v6.2'") == [(520,)]

        before = snapshot(db_file)
        published_before = published_path(db_file).stat().st_mtime_ns
        assert "v6.2" in (tmp_path / "bi" / "manifest.json").read_text()  # every loading run re-exports
        export_before = (tmp_path / "bi" / "manifest.json").stat().st_mtime_ns
        code, out, err = watch(cli, server, db_file)
        assert code == 0, (out, err)
        assert out.startswith("watch: nothing new; the warehouse is unchanged")
        assert statuses(out)["v6.3"] == "not_published"  # the next names now follow v6.2
        after = snapshot(db_file)
        events_before = before.pop("load_events")
        checked = [e for e in after.pop("load_events") if e not in events_before]
        assert after == before  # no Prefect run, nothing loaded: the history alone says it looked
        assert [(e[2], e[3], e[6], e[7] == e[8]) for e in checked] == [
            ("watch", r, "unchanged", True) for r in ("v4.1", "v5.1", "v6.2")]
        assert published_path(db_file).stat().st_mtime_ns == published_before
        assert (tmp_path / "bi" / "manifest.json").stat().st_mtime_ns == export_before  # not rewritten
    assert_events_follow_their_schema(db_file)
    with connect_file(str(published_path(db_file)), read_only=True) as con:  # what readers see
        assert con.execute("SELECT * FROM results ORDER BY ALL").fetchall() == after["results"]


@pytest.mark.slow
def test_a_failed_round_is_a_failed_task_run_and_the_cli_exits_nonzero(cli, db_file, tmp_path):
    from prefect import get_client
    from prefect.client.schemas.filters import FlowRunFilter, FlowRunFilterId

    upstream = tmp_path / "upstream"
    appear(upstream, "v4.1")
    appear(upstream, "v6.0")
    with serve(upstream, {"/" + file_of("v6.0"): [("body", b"[{\"ID\": ")]}) as server:
        code, out, err = watch(cli, server, db_file)
    assert code == 1
    assert statuses(out)["v4.1"] == "loaded" and statuses(out)["v6.0"] == "failed"
    [(flow_run_id, message)] = query(db_file, "SELECT flow_run_id, change_summary FROM load_events "
                                              "WHERE status = 'failed'")
    assert message.startswith("failed: ") and "v6.0" in message
    assert_events_follow_their_schema(db_file)

    with get_client(sync_client=True) as client:
        flow_run = client.read_flow_run(flow_run_id)
        tasks = client.read_task_runs(flow_run_filter=FlowRunFilter(id=FlowRunFilterId(any_=[flow_run.id])))
        artifacts = client.read_artifacts()
    assert flow_run.name.startswith("watch-rounds") and flow_run.state.is_failed()
    states = {t.name: t.state.type.value for t in tasks}
    assert states["ingest-v6.0"] == "FAILED" and states["ingest-v4.1"] == "COMPLETED"
    report = [a for a in artifacts if a.flow_run_id == flow_run.id and a.type == "markdown"]
    assert len(report) == 1 and "v6.0" in report[0].data and "failed" in report[0].data


@pytest.mark.slow
def test_every_writing_command_records_its_load_and_publishes_the_copy(cli, db_file):
    from tests.conftest import UNOFFICIAL
    csv = UNOFFICIAL / "gateoverflow_submissions_v5.0.summary.csv"
    code, out, err = cli("ingest", "v5.0", "--file", csv, "--db", db_file)
    assert code == 0, (out, err)
    [(kind, status, source_id, rows_loaded, summary)] = query(
        db_file, "SELECT run_kind, status, source_id, rows_loaded, change_summary FROM load_events")
    assert (kind, status, source_id) == ("ingest", "loaded", f"unofficial/v5.0/{csv.name}")
    assert rows_loaded == query(db_file, "SELECT rows_loaded FROM sources")[0][0] > 0
    assert summary == f"first load: {rows_loaded} results"
    with connect_file(str(published_path(db_file)), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM sources").fetchone()[0] == 1
    published = published_path(db_file).stat().st_mtime_ns
    assert cli("views", "refresh", "--db", db_file)[0] == 0
    assert published_path(db_file).stat().st_mtime_ns > published
