"""Result rows rebuilt from the submission trees, as MLCommons' checker builds them: read by hand from
the shared summaries, proven against the published tables of v4.1, v5.1 and v6.0, and a tree in a
layout never seen loading with quarantine and drift rows, not a crash."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MIRROR, SHARED
from tests.readers import connect_file
from warehouse.trees.rebuilding import rebuild_tree
from warehouse.trees.loading import load_rebuilt
from warehouse.trees.reconstruction import compare
from warehouse.store import db
from warehouse.views import rebuild as rebuild_views

TREES = SHARED / "trees"


def _row(rebuilt, location: str) -> dict:
    found = [r for r in rebuilt.rows if r["location"] == location]
    assert len(found) == 1, (location, len(found))
    return found[0]


def test_v05_t4_server_is_the_scheduled_rate_of_its_summary():
    rebuilt = rebuild_tree("v0.5", TREES / "inference_results_v0.5")
    row = _row(rebuilt, "closed/NVIDIA/results/T4x8/resnet/Server/performance/run_1")
    # mlperf_log_summary.txt: "Scheduled samples per second : 41546.64" (the v0.5 checker's
    # RESULT_FIELD for Server); systems/T4x8.json: accelerators_per_node "8" x number_of_nodes "1" = 8;
    # status "available", division from the folder: closed.
    assert row["value"] == 41546.64
    assert (row["units"], row["total_accelerators"], row["availability"], row["division"]) == \
        ("Queries/s", 8, "available", "closed")
    assert row["accelerator_raw"] == "NVIDIA Tesla T4" and row["result_id"] is None
    assert row["entry_id"] == "/closed/NVIDIA/T4x8"   # v0.5 descriptions carry no system_type: no suite
    extra = json.loads(row["extra"])
    assert extra["checker_field"] == "result_scheduled_samples_per_sec"
    assert extra["system_path"] == "closed/NVIDIA/systems/T4x8.json"


def test_v07_legacy_multistream_is_samples_per_query_and_survives_per_sample_block():
    rebuilt = rebuild_tree("v0.7", TREES / "inference_results_v0.7")
    # The summary prints "Samples per query : 272", then a per-query and a per-sample block of
    # percentiles (the later wins, as in the checker's dictionary of lines).
    row = _row(rebuilt, "closed/Lenovo/results/T4x1_TRT/resnet50/MultiStream/performance/run_1")
    assert (row["value"], row["units"], row["higher_is_better"]) == (272, "Samples/query", True)


@pytest.mark.slow
def test_v21_multistream_inferred_from_singlestream_as_the_checker_does():
    rebuilt = rebuild_tree("v2.1", TREES / "inference_results_v2.1")
    row = _row(rebuilt, "closed/Fujitsu/results/RX2540M6_A30x1_TRT/retinanet/MultiStream/performance/run_1")
    # The folder says MultiStream, LoadGen ran SingleStream: "Early stopping 99th percentile estimate:
    # 7880378" ns x 8 samples per query / 1e6 = 63.043024 ms, inferred.
    assert row["value"] == pytest.approx(7880378 * 8 / 1e6) and row["inferred"]


@pytest.mark.parametrize("round_name", ["v4.1", "v5.1", "v6.0"])
def test_rebuild_matches_the_published_table(round_name):
    rebuilt = rebuild_tree(round_name, TREES / f"inference_results_{round_name}")
    result = compare(rebuilt, MIRROR / f"inference_results_{round_name}" / "main" / "summary_results.json")
    counts = result.counts()
    print(f"{round_name}: {counts}; {result.share:.2%} of {result.comparable} closed table rows within 0.01 %; "
          f"{result.share_of_printed_precision:.2%} of those the summary prints to 0.01 %")
    # Every table row whose run summary the excerpt holds is rebuilt; none differs beyond the
    # summary's printed precision (docs/ingest-reference.md, "Rebuilt from the tree").
    assert counts.get("value_differs", 0) == 0 and counts.get("quarantined", 0) == 0
    assert result.share_of_printed_precision >= 0.99
    assert result.share >= 0.96


def _write(root: Path, path: str, text: str) -> None:
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(text)


SUMMARY = """================================================
MLPerf Results Summary
================================================
SUT name : X
Scenario : {scenario}
Mode     : PerformanceOnly
Samples per second : 1234.5
Tokens per minute : 99
Result is : {valid}
"""


@pytest.mark.slow
def test_a_layout_never_seen_loads_with_quarantine_and_drift_rows(tmp_path):
    tree = tmp_path / "inference_results_v9.9"
    system = {"system_name": "Box", "submitter": "Acme", "division": "experimental", "status": "Coming Soon",
              "system_type": "orbit", "host_processor_model_name": "CPU", "accelerator_model_name": "Acme QPU",
              "accelerators_per_node": "4", "number_of_nodes": "2"}
    _write(tree, "experimental/Acme/systems/box.json", json.dumps(system))
    _write(tree, "experimental/Acme/results/box/resnet50/Offline/performance/run_1/mlperf_log_summary.txt",
           SUMMARY.format(scenario="Offline", valid="VALID"))
    _write(tree, "experimental/Acme/results/box/resnet50/Burst/performance/run_1/mlperf_log_summary.txt",
           SUMMARY.format(scenario="Burst", valid="VALID"))
    _write(tree, "experimental/Acme/results/box/resnet50/Server/performance/run_1/mlperf_log_summary.txt",
           SUMMARY.format(scenario="Server", valid="INVALID"))
    _write(tree, "experimental/Acme/results/box/resnet50/Offline2/measurements.csv", "a,b\n")
    rebuilt = rebuild_tree("v9.9", tree)
    assert [r["value"] for r in rebuilt.rows] == [1234.5]        # the Offline run: 4 x 2 = 8 accelerators
    assert rebuilt.rows[0]["total_accelerators"] == 8
    reasons = {q["path"].split("/")[5]: q["reasons"][0] for q in rebuilt.quarantined}
    assert reasons["Server"].startswith("LoadGen: Result is INVALID")
    assert "no submission-checker rule reaches resnet Burst" in reasons["Burst"]
    assert "holds: measurements.csv" in reasons["Offline2"]
    db_file = str(tmp_path / "w.duckdb")
    with db.connect(db_file) as con:
        load_rebuilt(con, rebuilt)
    rebuild_views(db_file, "test")
    with connect_file(db_file, read_only=True) as con:
        drift = {(k, t) for k, t in con.execute("SELECT kind, term FROM drift").fetchall()}
        quarantined = con.execute("SELECT count(*) FROM quarantine WHERE source_id = 'rebuilt/v9.9'").fetchone()[0]
    assert {("division", "experimental"), ("availability", "coming soon"), ("suite", "orbit")} <= drift
    assert quarantined == 3


@pytest.mark.slow
def test_trees_on_the_shared_trees_loads_a_round_without_a_table_and_its_summaries(tmp_path, cli):
    db_file = tmp_path / "w.duckdb"
    code, out, err = cli("trees", "--rounds", "v0.5", "--source", SHARED / "trees", "--db", db_file)
    assert code == 0, (out, err)
    # 647 files: 581 rows; 9 quarantined (6 runs of a system with no description, 2 of a quarantined
    # one, and that description itself: it spells 'submitter' 'sumitter' and names no accelerator)
    assert "v0.5: 581 result rows rebuilt from 647 files" in out and "9 quarantined" in out
    with connect_file(str(db_file), read_only=True) as con:
        t4 = con.execute("SELECT value, unit_verdict, summary_samples_per_second, verification FROM stg_results "
                         "WHERE run_path = 'closed/NVIDIA/results/T4x8/resnet/Server/performance/run_1'").fetchall()
        quarantined = con.execute("SELECT count(*) FROM quarantine WHERE source_id = 'rebuilt/v0.5'").fetchone()[0]
    # the tree ingest then loaded the same run's summary: "Completed samples per second : 41542.28"
    # (Server's summary figure the unit check reads) is within 0.5 % of the scheduled 41546.64: confirmed
    assert t4 == [(41546.64, "confirmed", 41542.28, "verified")] and quarantined == 9


def test_dells_v11_runs_load_and_the_key_its_description_repeats_is_a_finding_on_the_system(tmp_path):
    from warehouse.identity.rounds import load_registry
    from warehouse.ingest.fetch import FetchSettings
    from warehouse.trees.fetching import fetch_chunk
    from warehouse.trees.loading import check, load
    from warehouse.trees.fetching import chunks
    from warehouse.trees.planning import plan
    from warehouse.trees.rebuilding import _assembled, rebuild_part, rules_for
    root, platform = TREES / "inference_results_v1.1", "XE8545_A100-SXM-80GBx4_TRT"
    part = rebuild_part(str(root), "v1.1", ["closed/Dell"], rules_for("v1.1"))
    # its description repeats accelerator_cooling_type ("passive", then ""), a field no row uses: the
    # system's 14 VALID runs load (they were quarantined with it) and nothing of Dell's is quarantined
    assert len([r for r in part.rows if r["platform"] == platform]) == 14
    assert [q["path"] for q in part.quarantined] == []
    system_path = f"closed/Dell/systems/{platform}.json"
    db_file = str(tmp_path / "w.duckdb")
    with db.connect(db_file) as con:
        load_rebuilt(con, _assembled("v1.1", root, [part]))
        files, _ = plan(con, [load_registry()["v1.1"]], str(TREES))
        settings = FetchSettings.from_env()
        assert not load(con, check([o for chunk in chunks(files) for o in fetch_chunk(chunk, settings)])).failed
        found = con.execute("SELECT repeated_keys, json_extract_string(raw_json, '$.accelerator_cooling_type') "
                            "FROM systems WHERE system_path = ?", [system_path]).fetchall()
    assert found == [(['accelerator_cooling_type: "passive", then "" (the last is read)',
                       'host_cooling_type: "air", then "" (the last is read)'], "")]
