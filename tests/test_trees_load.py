"""What a tree re-load keeps and replaces (plain functions, no Prefect, except the one CLI run):
a changed file replaces its row, a file that no longer parses is quarantined and keeps the row loaded
from its earlier file (as a bad round table leaves its round), a file that fails to fetch keeps what
was loaded from it, and an unchanged one is not touched."""
from __future__ import annotations

import shutil

import duckdb
import pytest

from tests.conftest import serve
from tests.shared_rows import rows
from tests.trees_layout import TREES, replace_file, round_repositories
from warehouse.identity.rounds import load_registry
from warehouse.ingest.fetch import FetchSettings
from warehouse.trees.fetching import fetch_chunk
from warehouse.trees.loading import check, load
from warehouse.trees.fetching import chunks
from warehouse.trees.planning import plan
from warehouse.store import db
from tests.readers import connect_file

KRAI = "closed/Krai/results/h200_n1-kissv"   # v6.0 Krai: 2 result rows on one system
KRAI_SYSTEM = "closed/Krai/systems/h200_n1-kissv.json"


@pytest.fixture
def krai_warehouse(shared_warehouse, tmp_path) -> str:
    path = str(tmp_path / "krai.duckdb")
    shutil.copyfile(shared_warehouse, path)
    with connect_file(path) as con:
        con.execute("DELETE FROM results WHERE NOT (round = 'v6.0' AND submitter = 'Krai' AND division = 'closed')")
    return path


def ingest(db_file: str, url: str, force: bool = False):
    with db.connect(db_file) as con:
        files, unnamed = plan(con, [load_registry()["v6.0"]], url)
        outcomes = [o for chunk in chunks(files, 2) for o in fetch_chunk(chunk, FetchSettings.from_env(), force)]
        return load(con, check(outcomes)), unnamed


def summaries(db_file: str) -> list[dict]:
    with connect_file(db_file, read_only=True) as con:
        return rows(con, "SELECT run_path, samples_per_second, tokens_per_second, sha256 FROM run_summaries "
                         "ORDER BY run_path")


def test_reload_replaces_changed_keeps_failed_and_quarantines_unparsable(krai_warehouse, tmp_path):
    root = round_repositories(tmp_path / "repos", rounds=("v6.0",))
    folders = sorted(p.parent.parent.parent.relative_to(TREES / "inference_results_v6.0").as_posix()
                     for p in (TREES / "inference_results_v6.0" / KRAI).glob("*/*/performance/run_1/mlperf_log_summary.txt"))
    assert len(folders) == 2
    system_url = f"/inference_results_v6.0/main/{KRAI_SYSTEM}"
    with serve(root, {system_url: [500] * 4}) as server:
        outcome, unnamed = ingest(krai_warehouse, server.url)
        # 2 summaries load; the system answers 500 on every try (1 + MLPERF_FETCH_RETRIES 3).
        assert (outcome.counts, unnamed) == ({"loaded": 2, "failed": 1}, 0)
        assert server.handler.requests_seen.count(system_url) == 4
        assert outcome.failed and outcome.problems == [f"{server.url}{system_url}: failed: {server.url}{system_url}: HTTP 500"]
        first = summaries(krai_warehouse)
        assert [r["run_path"] for r in first] == [f"{f}/performance/run_1" for f in folders]

        # Second run: the system now answers; nothing else changed (304 / same sha256).
        outcome, _ = ingest(krai_warehouse, server.url)
        assert outcome.counts == {"unchanged": 2, "loaded": 1}
        assert summaries(krai_warehouse) == first

        # One summary changes, the other stops parsing; the system fails again under --force.
        changed, garbled = (f"{f}/performance/run_1/mlperf_log_summary.txt" for f in folders)
        text = (TREES / "inference_results_v6.0" / changed).read_text()
        old_rate = next(line for line in text.splitlines() if line.startswith("Samples per second"))  # Offline
        replace_file(root, "v6.0", changed, text.replace(old_rate, old_rate.split(":")[0] + ": 12.5").encode())
        replace_file(root, "v6.0", garbled, b"not a summary\n")
        server.handler.faults[system_url] = [500] * 4
        outcome, _ = ingest(krai_warehouse, server.url, force=True)
        assert outcome.counts == {"loaded": 1, "quarantined": 1, "failed": 1}
        assert outcome.failures == [f"{server.url}{system_url}: failed: {server.url}{system_url}: HTTP 500"]
        assert any(garbled in p and p.endswith("the row loaded from its earlier file is kept") for p in outcome.problems)
        after = {r["run_path"]: r for r in summaries(krai_warehouse)}
        assert after[changed.removesuffix("/mlperf_log_summary.txt")]["samples_per_second"] == 12.5
        kept_path = garbled.removesuffix("/mlperf_log_summary.txt")  # its last good row, as loaded first
        assert after[kept_path] == next(r for r in first if r["run_path"] == kept_path)
        with connect_file(krai_warehouse, read_only=True) as con:
            # The failed system keeps its last good row and its 'loaded' record.
            assert rows(con, "SELECT status FROM tree_files WHERE path = ?", [KRAI_SYSTEM]) == [{"status": "loaded"}]
            assert rows(con, "SELECT count(*) AS n FROM systems")[0]["n"] == 1
            assert rows(con, "SELECT source_id, reasons FROM quarantine WHERE source_id LIKE 'tree/%'") == [
                {"source_id": f"tree/v6.0/{garbled}",
                 "reasons": ["not a LoadGen summary: no loadgen_scenario, mode, result_valid line"]}]

        # The garbled file is fixed: loaded again, its quarantine record gone.
        replace_file(root, "v6.0", garbled, (TREES / "inference_results_v6.0" / garbled).read_bytes())
        outcome, _ = ingest(krai_warehouse, server.url)
        assert outcome.counts == {"unchanged": 2, "loaded": 1}
        assert len(summaries(krai_warehouse)) == 2
        with connect_file(krai_warehouse, read_only=True) as con:
            assert rows(con, "SELECT count(*) AS n FROM quarantine WHERE source_id LIKE 'tree/%'")[0]["n"] == 0


def test_cli_exits_1_and_names_the_file_when_a_fetch_fails(krai_warehouse, tmp_path, cli):
    root = round_repositories(tmp_path / "repos", rounds=("v6.0",))
    system_url = f"/inference_results_v6.0/main/{KRAI_SYSTEM}"
    with serve(root, {system_url: [403]}) as server:  # a 4xx is not retried
        code, out, err = cli("trees", "--source", server.url, "--db", krai_warehouse, "--rounds", "v6.0")
    assert code == 1
    assert "loaded" in out and "failed" in out
    assert f"{server.url}{system_url}: failed: {server.url}{system_url}: HTTP 403" in err
    assert "Traceback" not in err


def test_rows_without_a_location_are_counted_not_fetched(krai_warehouse, tmp_path):
    with connect_file(krai_warehouse) as con:
        con.execute("UPDATE results SET location = NULL")
    outcome, unnamed = ingest(krai_warehouse, str(tmp_path / "nowhere"))
    assert (outcome.counts, unnamed) == ({}, 2)
