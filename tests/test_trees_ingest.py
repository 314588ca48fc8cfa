"""mlperf-wh trees over a loopback HTTP server laid out like the round repositories (shared trees/
plus mirror/): every file loads, missing and unparsable files are recorded, re-runs fetch only what
changed, and a Dask cluster of 2 workers writes exactly what the thread pool writes."""
from __future__ import annotations

import json
import shutil

import pytest

from tests.cli_tables import table_rows
from tests.conftest import serve
from tests.shared_rows import rows
from warehouse import counts as progress_counts
from tests.trees_layout import TREE_ROUNDS, TREES, published_records, replace_file, round_repositories, run_folder_of, without
from tests.readers import connect_file

STATUS_TITLE = "## result rows with a run summary (mlperf-wh trees)"


def expected_files(round_name: str) -> tuple[set[str], set[str]]:
    """Run folders and system files the published table of a round names (read here from the
    records, independently of the ingest)."""
    folders = {run_folder_of(r) for r in published_records(round_name)}
    systems = set()
    for folder in folders:
        division, submitter, _results, platform = folder.split("/")[:4]
        systems.add(f"{division}/{submitter}/systems/{platform}.json")
    return folders, systems


def test_every_summary_and_system_of_the_shared_trees_loads(trees_warehouse, cli):
    con = connect_file(trees_warehouse, read_only=True)
    for round_name in TREE_ROUNDS:
        folders, systems = expected_files(round_name)
        # Every file the table names is in the tree excerpt...
        assert all((TREES / f"inference_results_{round_name}" / f / "mlperf_log_summary.txt").is_file()
                   for f in folders)
        assert all((TREES / f"inference_results_{round_name}" / s).is_file() for s in systems)
        # ...and loaded, one row each, with lineage.
        loaded = {r["run_path"] for r in rows(con, "SELECT run_path FROM run_summaries WHERE round = ?", [round_name])}
        assert loaded == folders
        assert {r["system_path"] for r in rows(con, "SELECT system_path FROM systems WHERE round = ?",
                                               [round_name])} == systems
        files = rows(con, "SELECT kind, status, count(*) AS n, count(sha256) AS hashed FROM tree_files "
                          "WHERE round = ? GROUP BY ALL ORDER BY ALL", [round_name])
        assert files == [{"kind": "summary", "status": "loaded", "n": len(folders), "hashed": len(folders)},
                         {"kind": "system", "status": "loaded", "n": len(systems), "hashed": len(systems)}]
    # v4.1 937 records, v5.1 1448, v6.0 520: each its own run folder.
    assert TREE_ROUNDS == ("v4.1", "v5.1", "v6.0")
    assert [len(expected_files(r)[0]) for r in TREE_ROUNDS] == [937, 1448, 520]
    con.close()
    code, out, _ = cli("status", "--section", "run-summaries", "--format", "json", "--db", trees_warehouse)
    assert code == 0
    section = {r["round"]: r for r in json.loads(out)["run-summaries"]}
    for round_name, count in (("v4.1", 937), ("v5.1", 1448), ("v6.0", 520)):
        assert (section[round_name]["result_rows"], section[round_name]["with_run_summary"],
                section[round_name]["without"]) == (count, count, 0)


def test_status_sums_up_each_section_in_a_line_and_lists_the_rows_on_asking(trees_warehouse, cli, monkeypatch):
    # Issue 55: with the trees loaded, `status` printed 1,683 lines at 80 columns. Now a line per
    # section (its totals, from the same rows --format json gives), the rows with --list or --section.
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = cli("status", "--db", trees_warehouse)
    sections = json.loads(cli("status", "--format", "json", "--db", trees_warehouse)[1])
    summary = {row["section"]: row["summary"] for row in table_rows(out)}
    assert code == 0 and list(summary) == list(sections) and len(out.splitlines()) < 45
    assert out.splitlines()[-1] == "every row: mlperf-wh status --list; one section: mlperf-wh status --section NAME"
    runs = sections["run-summaries"]
    with_summary, performance_rows = (sum(r[c] for r in runs) for c in ("with_run_summary", "result_rows"))
    assert summary["run-summaries"].startswith(
        f"{with_summary:,} of {performance_rows:,} performance rows have a run summary")
    loaded = sum(r["files"] for r in sections["tree-files"] if r["status"] == "loaded")
    assert f"loaded ({loaded:,})" in summary["tree-files"]
    assert summary["decisions-due"] == "none"
    code, listed, _ = cli("status", "--list", "--db", trees_warehouse)
    assert code == 0 and STATUS_TITLE in listed and len(listed.splitlines()) > 2 * len(out.splitlines())
    code, one, _ = cli("status", "--section", "tree-files", "--db", trees_warehouse)
    assert one.splitlines()[1] == "## tree files by status" and "loaded" in one


V60_GONE_RESULTS = "closed/Dell/results/XE7745_L4x16"
V60_GONE_SYSTEM = "closed/Lenovo/systems/SE100.json"
V60_GARBLED = "closed/AMD/results/8xMI355X_2xEPYC_9575F/llama2-70b-99/Offline/performance/run_1/mlperf_log_summary.txt"
V60_FLAKY = ("closed/NVIDIA/results/GB200-NVL72_GB200-186GB_aarch64x72_TRT/deepseek-r1/Offline/performance/"
             "run_1/mlperf_log_summary.txt")


@pytest.fixture
def private_warehouse(shared_warehouse, tmp_path) -> str:
    path = tmp_path / "private.duckdb"
    shutil.copyfile(shared_warehouse, path)
    return str(path)


@pytest.mark.slow  # three tree ingests of a round (~14 s)
def test_missing_and_unparsable_files_are_recorded_and_reruns_fetch_only_changes(
        private_warehouse, tmp_path, cli):
    root = round_repositories(tmp_path / "repos", rounds=("v6.0",))
    without(root, "v6.0", V60_GONE_RESULTS)
    without(root, "v6.0", V60_GONE_SYSTEM)
    replace_file(root, "v6.0", V60_GARBLED, b"MLPerf Results Summary\nScenario : Offline\nResult is : maybe\n")
    faults = {f"/inference_results_v6.0/main/{V60_FLAKY}": [503]}  # once: retried, then served
    heard = []
    with serve(root, faults) as server, progress_counts.listening(
            lambda done, total, what: heard.append((done, total)) if what == "files fetched" else None):
        code, out, err = cli("trees", "--source", server.url, "--db", private_warehouse, "--rounds", "v6.0",
                             "--concurrency", "4", "--chunk-size", "32")
        assert code == 0, err
        # the files fetched, counted as each chunk of 32 ends (what a terminal shows: "608 of 630 files fetched")
        total = heard[-1][1]
        assert heard[-1] == (total, total) and [done for done, _ in heard] == sorted({done for done, _ in heard})
        assert len(heard) == -(-total // 32) and total > 500
        assert server.handler.requests_seen.count(f"/inference_results_v6.0/main/{V60_FLAKY}") == 2
        # The garbled file is reported in one line naming it and every reason.
        assert f"{V60_GARBLED}: quarantined: line 3 (Result is): 'maybe' is not Yes/No/VALID/INVALID; " \
               "not a LoadGen summary: no mode, result_valid line" in err

        records = published_records("v6.0")
        gone = [r for r in records if run_folder_of(r).startswith(V60_GONE_RESULTS + "/")]
        garbled = [r for r in records if run_folder_of(r) + "/mlperf_log_summary.txt" == V60_GARBLED]
        without_system = [r for r in records if run_folder_of(r).startswith("closed/Lenovo/results/SE100/")]
        assert (len(records), len(gone), len(garbled), len(without_system)) == (520, 6, 1, 3)
        con = connect_file(private_warehouse, read_only=True)
        counts = rows(con, "SELECT status, kind, count(*) AS n FROM tree_files WHERE round = 'v6.0' "
                           "AND status <> 'loaded' GROUP BY ALL ORDER BY ALL")
        assert counts == [{"status": "missing", "kind": "summary", "n": 6},
                          {"status": "missing", "kind": "system", "n": 1},   # SE100.json
                          {"status": "quarantined", "kind": "summary", "n": 1}]
        # The rows without a run summary are exactly those whose files are absent or unparsable.
        lacking = rows(con, """SELECT r.result_id, r.run_path FROM stg_results AS r
                               LEFT JOIN run_summaries AS s USING (round, run_path)
                               WHERE r.metric = 'performance' AND r.round = 'v6.0' AND s.run_path IS NULL ORDER BY ALL""")
        assert sorted((r["result_id"], r["run_path"]) for r in lacking) == \
            sorted((r["ID"], run_folder_of(r)) for r in gone + garbled)
        quarantined = rows(con, "SELECT source_id, reasons FROM quarantine WHERE source_id LIKE 'tree/%'")
        assert quarantined == [{"source_id": f"tree/v6.0/{V60_GARBLED}",
                                "reasons": ["line 3 (Result is): 'maybe' is not Yes/No/VALID/INVALID",
                                            "not a LoadGen summary: no mode, result_valid line"]}]
        loaded_before = rows(con, "SELECT path, sha256, loaded_at FROM tree_files WHERE status = 'loaded' ORDER BY path")
        con.close()
        code, out, _ = cli("status", "--list", "--db", private_warehouse)
        assert STATUS_TITLE in out
        code, out, _ = cli("status", "--section", "run-summaries", "--format", "json", "--db", private_warehouse)
        [v60] = [r for r in json.loads(out)["run-summaries"] if r["round"] == "v6.0"]
        # v6.0: 520 rows, 513 with a summary, 7 without: 6 missing files, 1 quarantined.
        assert {k: v60[k] for k in ("round", "result_rows", "with_run_summary", "without", "file_missing",
                                    "file_quarantined")} == {"round": "v6.0", "result_rows": 520, "with_run_summary": 513,
                                                             "without": 7, "file_missing": 6, "file_quarantined": 1}

        # Re-run: conditional requests; nothing changed, so nothing is parsed or rewritten.
        server.handler.requests_seen.clear()
        code, out, err = cli("trees", "--source", server.url, "--db", private_warehouse, "--rounds", "v6.0")
        assert code == 0
        assert "unchanged" in out and "loaded" not in out
        con = connect_file(private_warehouse, read_only=True)
        assert rows(con, "SELECT path, sha256, loaded_at FROM tree_files WHERE status = 'loaded' "
                         "ORDER BY path") == loaded_before
        con.close()


NVIDIA_RESULTS = "closed/NVIDIA/results"
NVIDIA_NEGATIVE_RATE = f"{NVIDIA_RESULTS}/B200-SXM-180GBx8_TRT/whisper/Offline/performance/run_1/mlperf_log_summary.txt"
NVIDIA_GARBLED = f"{NVIDIA_RESULTS}/B300-SXM-270GBx8_TRT/deepseek-r1/Offline/performance/run_1/mlperf_log_summary.txt"
NVIDIA_GONE_SYSTEM = "closed/NVIDIA/systems/B300-SXM-270GBx8_TRT.json"


def written_by_the_tree_ingest(path: str) -> dict[str, list[tuple]]:
    """Every row the tree ingest writes, all columns but the two clock readings of tree_files."""
    with connect_file(path, read_only=True) as con:
        return {
            "run_summaries": con.execute("SELECT * FROM run_summaries ORDER BY round, run_path").fetchall(),
            "systems": con.execute("SELECT * FROM systems ORDER BY round, system_path").fetchall(),
            "tree_files": con.execute("SELECT * EXCLUDE (fetched_at, loaded_at) FROM tree_files "
                                      "ORDER BY round, path").fetchall(),
            "quarantine": con.execute("SELECT * FROM quarantine WHERE source_id LIKE 'tree/%' "
                                      "ORDER BY source_id").fetchall(),
        }


@pytest.mark.slow  # two tree ingests and a 2-worker LocalCluster (~20 s)
def test_dask_cluster_of_two_workers_writes_what_the_thread_pool_writes(shared_warehouse, prefect_harness, tmp_path):
    from distributed import LocalCluster

    from flows.trees import TreeRun, run_trees
    from warehouse.identity.rounds import load_registry
    root = round_repositories(tmp_path / "repos", rounds=("v6.0",))
    # Every outcome a file can have, each decided on a worker or after: loaded, missing, unparsable
    # (quarantined on the worker) and parsed but failing its Pandera model (quarantined here).
    rate = (TREES / "inference_results_v6.0" / NVIDIA_NEGATIVE_RATE).read_text()
    replace_file(root, "v6.0", NVIDIA_NEGATIVE_RATE, rate.replace("Samples per second: ", "Samples per second: -").encode())
    replace_file(root, "v6.0", NVIDIA_GARBLED, b"MLPerf Results Summary\nScenario : Offline\n")
    without(root, "v6.0", NVIDIA_GONE_SYSTEM)
    paths = {}
    for runner in ("threads", "dask"):
        paths[runner] = str(tmp_path / f"{runner}.duckdb")
        shutil.copyfile(shared_warehouse, paths[runner])
        with connect_file(paths[runner]) as con:  # one submitter of one round: a subset of the tree
            con.execute("DELETE FROM results WHERE NOT (round = 'v6.0' AND submitter = 'NVIDIA')")
    v60 = [load_registry()["v6.0"]]
    with serve(root) as server:
        threads = run_trees(v60, server.url, paths["threads"], TreeRun(concurrency=4, chunk_size=8))
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cluster:
            assert len(cluster.workers) == 2
            dask = run_trees(v60, server.url, paths["dask"], TreeRun(dask_address=cluster.scheduler_address))
    # NVIDIA v6.0: 63 result rows (61 closed, 2 open) on 8 platforms -> 63 summaries + 8 system files.
    nvidia = [r for r in published_records("v6.0") if r["Submitter"] == "NVIDIA"]
    platforms = {run_folder_of(r).split("/results/")[0] + "/" + run_folder_of(r).split("/")[3] for r in nvidia}
    assert (len(nvidia), len(platforms)) == (63, 8)
    assert threads.counts == dask.counts == {"loaded": 63 + 8 - 3, "quarantined": 2, "missing": 1}
    assert sorted(threads.problems) == sorted(dask.problems)
    written = {runner: written_by_the_tree_ingest(path) for runner, path in paths.items()}
    assert [len(written["threads"][table]) for table in written["threads"]] == [61, 7, 71, 2]
    assert written["dask"] == written["threads"]


@pytest.mark.slow  # a scheduler (a LocalCluster without workers) and two Prefect flow runs
def test_a_dask_run_without_a_scheduler_workers_or_an_absolute_source_is_one_line(
        private_warehouse, cli, monkeypatch, tmp_path):
    from distributed import LocalCluster

    from warehouse.trees import distributing
    monkeypatch.setattr(distributing, "CONNECT_SECONDS", 1)
    monkeypatch.setattr(distributing, "WORKER_SECONDS", 1)
    root = round_repositories(tmp_path / "repos", rounds=("v6.0",))
    trees = ("trees", "--source", str(root), "--db", private_warehouse, "--rounds", "v6.0", "--dask")
    nobody = "tcp://127.0.0.1:1"  # nothing listens on port 1
    code, _, err = cli(*trees, nobody)
    assert (code, err.strip().splitlines()[-1]) == (
        1, f"error: the Dask scheduler {nobody} did not answer: Timed out trying to connect to {nobody} after 1 s")
    with LocalCluster(n_workers=0, processes=False, dashboard_address=None) as cluster:
        code, _, err = cli(*trees, cluster.scheduler_address)
    assert (code, err.strip().splitlines()[-1]) == (
        1, f"error: no Dask worker joined the scheduler {cluster.scheduler_address} within 1 s")
    assert "Traceback" not in err
    # Each worker reads the source from its own working directory: a relative directory is made
    # absolute before anything starts (the CLI checks every source so), so it never reaches them.
    monkeypatch.chdir(tmp_path)
    code, _, err = cli("trees", "--source", "repos", "--db", private_warehouse, "--dask", nobody)
    assert (code, err.strip().splitlines()[-1]) == (
        1, f"error: the Dask scheduler {nobody} did not answer: Timed out trying to connect to {nobody} after 1 s")
