"""Drift end to end: a drifted round leaves the views' figures where they were, reference edits reach
every view with no refetch, the CLI names what is new, and checker input keeps parity with MLCommons'
final-report tool."""
from __future__ import annotations

import csv
import io
import json
import shutil

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.conftest import MIRROR, UNOFFICIAL, serve
from tests.test_drift_fuzz import Drifted, fetched, real
from warehouse.identity.reference import REFERENCE_DIR
from warehouse.ingest.pipeline import load, prepare
from warehouse.store import db
from warehouse.views import materialize
from tests.readers import connect_file

NEW_BENCHMARK, NEW_SCENARIO, NEW_UNIT = "frobnet-99", "Burst", "Frobs/s"
MARTS = ["verified_results", "leaderboard", "software_gains", "software_gain_summary",
         "generation_speedups", "scaling_efficiency", "token_economics"]


def drifted_v60() -> Drifted:
    """v6.0 as a later round might publish it: every record respelled (scenario case, trademark
    marks and doubled spaces in accelerator names, an unknown column, reordered fields, CRLF, a BOM,
    no Details field), plus new records: one entry's results under a new benchmark, and under a
    new scenario with a new unit. Nothing here is broken."""
    records = real("final")
    extra = []
    for r in records:
        r["Scenario"] = r["Scenario"].lower()
        if r.get("Accelerator"):
            r["Accelerator"] = r["Accelerator"].replace("NVIDIA ", "NVIDIA®  ").replace("AMD ", "AMD™ ")
        r["Frobnication"] = "x"
        r.pop("Details", None)
    offline_tokens = {r["ID"]: r for r in reversed(records)
                      if r["Performance_Units"] == "Tokens/s" and r["Scenario"] == "offline"
                      and r["Category"] == "closed"}  # an open-division row may run a model of its own: no drift
    for r in list(offline_tokens.values())[:3]:  # three entries' results, each once under a new benchmark and scenario
        extra.append({**r, "Model": NEW_BENCHMARK, "UsedModel": NEW_BENCHMARK})
        extra.append({**r, "Scenario": NEW_SCENARIO, "Performance_Units": NEW_UNIT})
    records = [dict(reversed(list(r.items()))) for r in records + extra]
    return Drifted(records, "final", crlf=True, bom=True)


def mart(con, name: str) -> pl.DataFrame:
    frame = db.query_frame(con, f"SELECT * FROM {name}")
    frame = frame.drop("accelerator_raw", strict=False)  # kept as published: the one column that moves
    if "benchmark" in frame.columns:
        frame = frame.filter(pl.col("benchmark") != NEW_BENCHMARK)
    if "scenario" in frame.columns:
        frame = frame.filter(pl.col("scenario") != NEW_SCENARIO)
    return frame.sort(frame.columns, nulls_last=True)


@pytest.mark.slow
def test_a_drifted_round_moves_no_figure_of_any_view(private_con, shared_con):
    d = drifted_v60()
    prepared = prepare(d.content(), d.file_name, "v6.0", "official", "drifted")
    assert prepared.validated.rows_quarantined == 0
    load(private_con, fetched(d.file_name, d.content()), prepared, "v6.0", "official")
    materialize(private_con)

    for name in MARTS:
        assert_frame_equal(mart(private_con, name), mart(shared_con, name))
    drift = set(private_con.execute("SELECT kind, term FROM drift").fetchall())
    assert drift == {("column", "Frobnication"), ("benchmark", NEW_BENCHMARK),
                     ("scenario", NEW_SCENARIO), ("unit", NEW_UNIT)}
    # The new benchmark's rows are results like any other (named as published); the new unit is a rate.
    assert private_con.execute("SELECT count(*), bool_and(NOT benchmark_matched) FROM stg_results "
                               "WHERE metric = 'performance' AND benchmark = ?", [NEW_BENCHMARK]).fetchone() == (3, True)
    assert private_con.execute("SELECT DISTINCT higher_is_better FROM results WHERE units = ?",
                               [NEW_UNIT]).fetchall() == [(True,)]


def test_editing_the_accelerator_reference_reaches_every_view_without_a_refetch(
        private_con, tmp_path, monkeypatch, capsys):
    from warehouse.cli import main

    reference = tmp_path / "reference"
    shutil.copytree(REFERENCE_DIR, reference)
    for name in ("accelerators.csv", "rack_capacity.csv", "system_power.csv"):  # every table naming it
        text = (reference / name).read_text()
        (reference / name).write_text(text.replace(",GB200,", ",GB200 NVL72,").replace("\nGB200,", "\nGB200 NVL72,"))
    path = private_con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
                               ).fetchone()[0]
    sources_before = private_con.execute("SELECT source_id, sha256, loaded_at FROM sources ORDER BY ALL").fetchall()
    private_con.close()

    monkeypatch.setenv("MLPERF_REFERENCE_DIR", str(reference))
    assert main(["views", "refresh", "--db", path]) == 0
    assert "rebuilt" in capsys.readouterr().out

    with connect_file(path, read_only=True) as con:
        for view, column in [("verified_results", "accelerator"), ("software_gains", "accelerator"),
                             ("generation_speedups", "accelerator_base")]:
            names = {a for (a,) in con.execute(f"SELECT DISTINCT {column} FROM {view}").fetchall()}
            assert "GB200 NVL72" in names and "GB200" not in names, (view, names)
        # nothing was refetched or reloaded
        assert con.execute("SELECT source_id, sha256, loaded_at FROM sources ORDER BY ALL").fetchall() \
            == sources_before


def test_checker_csv_keeps_parity_with_the_final_report_tool_output():
    """GATEOverflow published its v5.0 checker CSV and the final table MLCommons' final-report tool
    made of it. With every scenario respelled in lower case (the checker's own spelling of
    scenario folders), each row of the tool's table is a row of ours: same ID, spelling, units and
    value. (The CSV prints one value with more digits than the JSON: 1e-9 relative.)"""
    rows = list(csv.DictReader(io.StringIO((UNOFFICIAL / "gateoverflow_submissions_v5.0.summary.csv")
                                           .read_text(encoding="utf-8-sig"), newline="")))
    for r in rows:
        r["Scenario"] = r["Scenario"].lower()
    content = Drifted(rows, "checker_csv").content()
    ours = prepare(content, "summary.csv", "v5.0", "unofficial", "parity").validated
    assert ours.rows_quarantined == 0
    tool = json.loads((UNOFFICIAL / "gateoverflow_submissions_v5.0.summary_results.json").read_text())
    assert len(tool) == len(rows) == 1285

    mine = {(r["result_id"], r["used_model"], r["scenario"], r["units"]): r["value"]
            for r in ours.good.filter(pl.col("metric") == "performance").iter_rows(named=True)}
    for t in tool:
        key = (t["ID"], t["UsedModel"], t["Scenario"], t["Performance_Units"])
        assert key in mine, key
        assert mine[key] == pytest.approx(float(t["Performance_Result"]), rel=1e-9)
    assert len(mine) == len(tool)


@pytest.fixture
def drifted_server():
    d = drifted_v60()
    path = "/inference_results_v6.0/main/summary_results.json"
    with serve(MIRROR, {path: [("body", d.content())] * 2}) as server:
        yield server


@pytest.mark.slow
def test_backfill_names_the_drift_in_one_line_and_strict_fails_on_it(cli, drifted_server, db_file):
    code, out, err = cli("backfill", "--rounds", "v6.0", "--source", drifted_server.url, "--db", db_file)
    assert code == 0, err
    assert ("v6.0: 1 new column, 1 new unit, 1 new scenario, 1 unmatched benchmark; "
            "see `mlperf-wh drift`") in " ".join(out.split())  # wrapped at 80 columns

    code, out, err = cli("drift", "--format", "json", "--db", db_file)
    assert code == 0
    assert {(r["kind"], r["term"]) for r in json.loads(out)} == {
        ("column", "Frobnication"), ("unit", NEW_UNIT), ("scenario", NEW_SCENARIO),
        ("benchmark", NEW_BENCHMARK)}

    code, out, err = cli("backfill", "--rounds", "v6.0", "--source", drifted_server.url, "--db", db_file,
                         "--force", "--strict")
    assert code == 1
    assert "--strict: drift in v6.0" in err
    code, out, _ = cli("status", "--db", db_file, "--section", "drift", "--format", "json")
    assert NEW_UNIT in {term for r in json.loads(out)["drift"] for term in r["examples"].split(", ")}


def test_a_warehouse_written_by_the_previous_version_is_migrated_in_place(tmp_path):
    """The previous version stored canonical accelerator and benchmark in `results` (NOT NULL)."""
    path = str(tmp_path / "old.duckdb")
    with connect_file(path) as con:
        con.execute("""CREATE TABLE results (
            round VARCHAR NOT NULL, division VARCHAR NOT NULL, availability VARCHAR NOT NULL,
            suite VARCHAR NOT NULL, submitter VARCHAR NOT NULL, system VARCHAR, platform VARCHAR NOT NULL,
            result_id VARCHAR, entry_id VARCHAR NOT NULL, model VARCHAR NOT NULL, used_model VARCHAR,
            benchmark VARCHAR NOT NULL, scenario VARCHAR NOT NULL, metric VARCHAR NOT NULL,
            value DOUBLE NOT NULL, units VARCHAR NOT NULL, higher_is_better BOOLEAN,
            accelerator_raw VARCHAR, accelerator VARCHAR, accelerators_per_node BIGINT, nodes BIGINT,
            total_accelerators BIGINT, processor VARCHAR, software VARCHAR, weight_data_types VARCHAR,
            accuracy VARCHAR, tokens_per_sample DOUBLE, inferred BOOLEAN NOT NULL,
            verification VARCHAR NOT NULL, source_id VARCHAR NOT NULL, record_no BIGINT NOT NULL)""")
        con.execute("INSERT INTO results VALUES ('v6.0', 'closed', 'available', 'datacenter', 'X', 'S', 'P', "
                    "'6.0-0001', 'e', 'resnet', 'resnet', 'resnet', 'Offline', 'performance', 1.5, "
                    "'Samples/s', true, 'NVIDIA B200', 'B200', 8, 1, 8, NULL, NULL, NULL, NULL, NULL, "
                    "false, 'verified', 'official/v6.0', 0)")
    with db.connect(path) as con:
        columns = [c for (c,) in con.execute("SELECT column_name FROM information_schema.columns "
                                             "WHERE table_name = 'results' ORDER BY ordinal_position").fetchall()]
        assert sorted(columns) == sorted(db.RESULT_COLUMNS + db.STALE_COLUMNS)
        materialize(con)
        assert con.execute("SELECT accelerator, benchmark, result FROM verified_results").fetchall() == [
            ("B200", "resnet", 1.5)]
