"""The endpoint harness's run files through the tree ingest into the warehouse (real DuckDB files, a
loopback HTTP server, the CLI): the real v6.1 files of tests/fixtures/trees_v6.1 laid out as published,
with the constructed v6.1 table of the same entries (its README says what is real and what is not)."""
from __future__ import annotations

import json
import shutil
import time

import pytest

from schemas.endpoints import HEAD_BYTES
from tests.conftest import serve
from tests.readers import connect_file
from tests.shared_rows import rows
from tests.trees_layout import TREES, V61_FIXTURES, v61_repository
from warehouse.identity.rounds import load_registry
from warehouse.ingest.fetch import FetchSettings, fetch
from warehouse.ingest.pipeline import ingest_location
from warehouse.trees.fetching import fetch_chunk
from warehouse.trees.loading import check, load
from warehouse.trees.fetching import chunks
from warehouse.trees.planning import plan
from warehouse.store import db
from warehouse.views import materialize

VR = "closed/NVIDIA/results/VR-NVL72_VR-288GB_aarch64x72_TRT"
LAMBDA = "closed/Lambda/results/B200-SXM-180GBx8_TRT/qwen3-vl-235b-a22b"


@pytest.fixture(scope="module")
def v61_built(tmp_path_factory) -> str:
    """The constructed v6.1 table loaded and the views built, once for the module (1.1 s a build)."""
    root = v61_repository(tmp_path_factory.mktemp("v61") / "source")
    path = str(root.parent / "v61.duckdb")
    with db.connect(path) as con:
        ingest_location(con, "v6.1", "official", "summary_results.json",
                        str(root / "inference_results_v6.1" / "main" / "summary_results.json"))
        materialize(con)
    return path


@pytest.fixture
def v61(v61_built, tmp_path):
    """(warehouse, source): a copy of that warehouse, and the fixtures laid out as published (a test's own)."""
    path = str(tmp_path / "v61.duckdb")
    shutil.copyfile(v61_built, path)
    return path, v61_repository(tmp_path / "source")


def ingest_trees(db_file: str, source: str):
    """What `mlperf-wh trees --rounds v6.1` runs, as plain functions."""
    with db.connect(db_file) as con:
        files, _ = plan(con, [load_registry()["v6.1"]], source)
        outcome = load(con, check([o for c in chunks(files, 3) for o in fetch_chunk(c, FetchSettings.from_env())]))
        materialize(con)
    return outcome


def test_vera_rubin_qwen3_vl_runs_of_the_endpoint_harness_fill_the_run_summary_and_latency_tables(v61):
    path, root = v61
    outcome = ingest_trees(path, str(root))
    # 5 run folders and 2 system files: everything loads but Lambda's system description (not in the fixtures).
    assert outcome.counts == {"loaded": 6, "missing": 1}
    con = connect_file(path, read_only=True)
    summaries = {(r["benchmark"], r["scenario"], r["submitter"]): r for r in rows(con, """
        SELECT r.benchmark, r.scenario, r.submitter, s.* FROM stg_results AS r JOIN run_summaries AS s USING (round, run_path)""")}
    offline = summaries[("qwen3-vl-235b-a22b", "Offline", "NVIDIA")]
    assert (offline["harness"], offline["harness_version"], offline["summary_path"]) == (
        "endpoint harness", "0.1.0", f"{VR}/qwen3-vl-235b-a22b/Offline/performance/result_summary.json")
    # 2,392.70 samples/s and 102,722 tokens/s; 102722.30022046335 / 72 GPUs = 1,426.7 per GPU.
    assert round(offline["samples_per_second"], 2) == 2392.70
    assert round(offline["tokens_per_second"]) == 102722
    assert round(offline["tokens_per_second"] / 72, 1) == 1426.7
    server = summaries[("qwen3-vl-235b-a22b", "Server", "NVIDIA")]
    assert round(server["completed_samples_per_second"], 2) == 2323.27
    assert round(server["completed_tokens_per_second"]) == 99742
    assert summaries[("qwen3-vl-235b-a22b", "Offline", "Lambda")]["harness"] == "endpoint client"

    profile = {(r["benchmark"], r["scenario"], r["submitter"]): r for r in rows(con, "SELECT * FROM latency_profile")}
    qwen = profile[("qwen3-vl-235b-a22b", "Server", "NVIDIA")]
    # TTFT p99 4413215109 ns = 4.41 s, TPOT p99 161422662 ns = 161 ms; 1e9 / mean TPOT 117710589 ns = 8.50 tokens/s a user.
    assert (qwen["ttft_p99_ms"], qwen["tpot_p99_ms"]) == (4413.215109, 161.422662)
    assert round(qwen["ttft_p99_ms"] / 1000, 2) == 4.41 and round(qwen["tpot_p99_ms"]) == 161
    assert qwen["tokens_per_second_per_user"] == pytest.approx(1e9 / 117710589, rel=1e-12)
    # No TTFT/TPOT limit is on record for Qwen3-VL (scenario_constraints.csv): none, and no verdict.
    assert (qwen["ttft_constraint_ms"], qwen["constraint_source"], qwen["met_constraints"]) == (None, None, None)
    # DeepSeek-R1 Server: TTFT p99 303.546985 ms <= 2000, TPOT p99 48.215361 ms <= 80 (scenario_constraints.csv).
    deepseek = profile[("deepseek-r1", "Server", "NVIDIA")]
    assert (deepseek["ttft_p99_ms"], deepseek["ttft_constraint_ms"], deepseek["tpot_p99_ms"], deepseek["tpot_constraint_ms"]) == (
        303.546985, 2000.0, 48.215361, 80.0)
    assert (deepseek["met_constraints"], deepseek["constraint_source"]) == (True, "scenario_constraints.csv")
    # The endpoint client prints no latencies: its runs have a row, without them.
    assert profile[("qwen3-vl-235b-a22b", "Server", "Lambda")]["ttft_p99_ms"] is None

    # The table against the tree: qps (or tps) against the published figure, as for LoadGen's summaries.
    fidelity = {(r["benchmark"], r["scenario"], r["submitter"]): r for r in rows(con, "SELECT * FROM summary_fidelity")}
    assert len(fidelity) == 5 and all(r["agrees"] for r in fidelity.values())
    # 2392.7 published, 2392.6979194587702 run: |2392.7 - 2392.69792| / 2392.69792 = 8.7e-7.
    vr = fidelity[("qwen3-vl-235b-a22b", "Offline", "NVIDIA")]
    assert vr["relative_difference"] == pytest.approx(abs(2392.7 - 2392.6979194587702) / 2392.6979194587702, rel=1e-9)
    assert (vr["harness"], fidelity[("qwen3-vl-235b-a22b", "Server", "Lambda")]["summary_result"]) == (
        "endpoint harness", 69.41536196217709)
    # The runs confirm the table's units (stg_results: the run's own summary is evidence).
    assert {r["unit_verdict"] for r in fidelity.values()} == {"confirmed"}
    con.close()


def test_report_txt_is_read_when_the_folder_has_no_result_summary(v61):
    path, root = v61
    (root / "inference_results_v6.1" / VR / "qwen3-vl-235b-a22b" / "Server" / "performance" / "result_summary.json").unlink()
    ingest_trees(path, str(root))
    with connect_file(path, read_only=True) as con:
        [row] = rows(con, """SELECT s.harness, s.summary_path, p.ttft_p99_ms, p.tpot_p99_ms, f.agrees
                             FROM run_summaries AS s JOIN latency_profile AS p USING (run_path)
                             JOIN summary_fidelity AS f USING (run_path)
                             WHERE run_path LIKE '%qwen3-vl-235b-a22b/Server/%' AND p.submitter = 'NVIDIA'""")
    # The report prints ms with two decimals: 4413.22 and 161.42 ms; QPS 2323.27 = the table's.
    assert row == {"harness": "endpoint harness", "summary_path": f"{VR}/qwen3-vl-235b-a22b/Server/report.txt",
                   "ttft_p99_ms": 4413.22, "tpot_p99_ms": 161.42, "agrees": True}


@pytest.mark.slow
def test_a_run_folder_of_an_unknown_kind_is_drift_naming_its_files_until_it_is_readable(v61):
    path, root = v61
    folder = root / "inference_results_v6.1" / LAMBDA / "Offline"
    results = folder / "performance" / "run_1" / "results.json"
    kept = results.read_bytes()
    results.unlink()
    (folder / "README.md").write_text("Refer to the `closed/Lambda/src/` directory README.md files.\n")
    (folder / "performance" / "run_1" / "output.log").write_text("done\n")
    outcome = ingest_trees(path, str(root))
    assert outcome.counts == {"loaded": 5, "unrecognized": 1, "missing": 1}
    run_path = f"{LAMBDA}/Offline/performance/run_1"
    with connect_file(path, read_only=True) as con:
        assert rows(con, "SELECT round, source_id, kind, term, rows FROM drift") == [
            {"round": "v6.1", "source_id": f"tree/v6.1/{run_path}", "kind": "run folder",
             "term": f"{run_path}: README.md, performance/run_1/output.log", "rows": 1}]
        [file] = rows(con, "SELECT path, status, files_held, message FROM tree_files WHERE run_path = ?", [run_path])
        assert (file["path"], file["status"], file["files_held"]) == (
            f"{run_path}/mlperf_log_summary.txt", "unrecognized", ["README.md", "performance/run_1/output.log"])
        assert file["message"].startswith("holds none of the files a run summary is read from "
                                          "(mlperf_log_summary.txt, result_summary.json, results.json, report.txt)")
    # The client's file is back: the folder loads, its drift is gone, one record of it is left.
    results.write_bytes(kept)
    ingest_trees(path, str(root))
    with connect_file(path, read_only=True) as con:
        assert rows(con, "SELECT * FROM drift") == []
        assert rows(con, "SELECT path, status FROM tree_files WHERE run_path = ?", [run_path]) == [
            {"path": f"{run_path}/results.json", "status": "loaded"}]


def test_the_head_of_results_json_over_http(tmp_path):
    # A results.json as large as the published ones (~20 MB of responses), served: only its head is read.
    data = json.loads((V61_FIXTURES / "lambda_b200_qwen3vl_server.results.json").read_bytes())
    data["responses"] = {f"{i:032x}": "y" * 400 for i in range(48289)}
    (tmp_path / "results.json").write_text(json.dumps(data, indent=2))
    with serve(tmp_path) as server:
        fetched = fetch(f"{server.url}/results.json", "results.json", FetchSettings(), keep=HEAD_BYTES["results.json"])
    assert fetched.size == 256 * 1024 < (tmp_path / "results.json").stat().st_size


@pytest.mark.slow
def test_trees_cli_from_the_fixture_and_the_shared_trees_as_published(v61, shared_warehouse, tmp_path, cli):
    path, root = v61
    code, out, err = cli("trees", "--source", root, "--rounds", "v6.1", "--db", path)
    assert code == 0, err
    assert "loaded" in out and "missing" in out
    # The shared trees as they lie (inference_results_vX.Y/closed/...): no layout step first.
    krai = str(tmp_path / "krai.duckdb")
    shutil.copyfile(shared_warehouse, krai)
    with connect_file(krai) as con:  # two v6.0 results on one system: 3 files
        con.execute("DELETE FROM results WHERE NOT (round = 'v6.0' AND submitter = 'Krai' AND division = 'closed')")
    code, out, err = cli("trees", "--source", TREES, "--rounds", "v6.0", "--db", krai)
    assert code == 0, err
    with connect_file(krai, read_only=True) as con:
        assert rows(con, "SELECT status, count(*) AS n FROM tree_files GROUP BY ALL") == [{"status": "loaded", "n": 3}]
        assert rows(con, "SELECT DISTINCT harness FROM run_summaries") == [{"harness": "LoadGen"}]


def test_a_source_without_trees_fails_in_one_line(shared_warehouse, tmp_path, cli):
    from tests.conftest import MIRROR
    krai = str(tmp_path / "krai.duckdb")
    shutil.copyfile(shared_warehouse, krai)
    with connect_file(krai) as con:
        con.execute("DELETE FROM results WHERE NOT (round = 'v6.0' AND submitter = 'Krai' AND division = 'closed')")
    # A directory: the mirror holds the tables, no tree. Refused before anything is fetched.
    code, out, err = cli("trees", "--source", MIRROR, "--rounds", "v6.0", "--db", krai)
    assert (code, out) == (1, "")
    assert err.strip() == (f"error: {MIRROR} holds no submission tree of v6.0 (looked for "
                           "inference_results_vX.Y/main/closed/ and inference_results_vX.Y/closed/, or open/): "
                           "point --source at a directory laid out as the trees are published, e.g. "
                           "../shared/mlcommons/trees")
    # A URL: every file asked for answers 404; the run says so in one line and fails.
    with serve(MIRROR) as server:
        code, out, err = cli("trees", "--source", server.url, "--rounds", "v6.0", "--db", krai)
    assert code == 1 and "missing" in out
    assert err.strip().splitlines()[-1] == (f"error: no submission tree file of v6.0 at {server.url}: "
                                            "all 3 files asked for are missing")


def test_an_unreachable_source_fails_fast_with_the_backfill_hint(shared_warehouse, tmp_path, cli):
    krai = str(tmp_path / "krai.duckdb")
    shutil.copyfile(shared_warehouse, krai)
    started = time.perf_counter()
    nobody = "http://127.0.0.1:1"  # nothing listens on port 1
    code, out, err = cli("trees", "--source", nobody, "--rounds", "v6.0", "--db", krai)
    assert code == 1 and out == ""
    # One line, before any file is tried: nothing listens there.
    assert err.strip().splitlines() == [
        f"error: the source {nobody} cannot be reached from this machine (connecting to 127.0.0.1:1: Connection "
        "refused); point MLPERF_SOURCE (or --source) at a mirror or a local directory laid out as "
        "inference_results_vX.Y/main/summary_results.json, e.g. MLPERF_SOURCE=../shared/mlcommons/mirror make run"]
    # Not 630 run folders, nor one file's retries: well under the fetch's own timeouts.
    assert time.perf_counter() - started < 30
    with connect_file(krai, read_only=True) as con:
        assert rows(con, "SELECT count(*) AS n FROM tree_files") == [{"n": 0}]


def test_a_warehouse_of_the_earlier_tree_tables_gains_the_new_columns(tmp_path):
    # run_summaries and tree_files as an earlier version wrote them: no harness, no run_path.
    path = str(tmp_path / "old.duckdb")
    with connect_file(path) as con:
        con.execute("CREATE TABLE run_summaries (round VARCHAR, run_path VARCHAR, sha256 VARCHAR, "
                    "loadgen_scenario VARCHAR, PRIMARY KEY (round, run_path))")
        con.execute("INSERT INTO run_summaries VALUES ('v6.0', 'closed/A/results/p/m/Offline/performance/run_1', "
                    "'x', 'Offline')")
        con.execute("CREATE TABLE tree_files (round VARCHAR NOT NULL, path VARCHAR NOT NULL, kind VARCHAR NOT NULL, "
                    "url VARCHAR NOT NULL, status VARCHAR NOT NULL, sha256 VARCHAR, bytes BIGINT, etag VARCHAR, "
                    "last_modified VARCHAR, fetched_at TIMESTAMPTZ NOT NULL, loaded_at TIMESTAMPTZ NOT NULL, "
                    "message VARCHAR, PRIMARY KEY (round, path))")
        con.execute("INSERT INTO tree_files VALUES ('v6.0', 'closed/A/results/p/m/Offline/performance/run_1/"
                    "mlperf_log_summary.txt', 'summary', 'u', 'loaded', NULL, NULL, NULL, NULL, now(), now(), NULL)")
    with db.connect(path) as con:
        assert rows(con, "SELECT harness, summary_path, samples_issued FROM run_summaries") == [
            {"harness": "LoadGen", "summary_path": "closed/A/results/p/m/Offline/performance/run_1/mlperf_log_summary.txt",
             "samples_issued": None}]
        assert rows(con, "SELECT run_path, files_held FROM tree_files") == [
            {"run_path": "closed/A/results/p/m/Offline/performance/run_1", "files_held": None}]


def test_the_seeds_decision_gets_tokens_per_rack_from_the_runs_own_output_tokens(v61):
    # MLPerf's table publishes Qwen3-VL in samples/s only; the Vera Rubin NVL72 runs print their tokens.
    path, root = v61
    query = ("SELECT scenario, accelerator, verification, throughput_per_rack, throughput_unit, "
             "tokens_per_second_per_rack, tokens_basis FROM rack_throughput "
             "WHERE round = 'v6.1' AND benchmark = 'qwen3-vl-235b-a22b' ORDER BY scenario, accelerator")
    with connect_file(path, read_only=True) as con:
        before = rows(con, query)
    assert {(r["tokens_per_second_per_rack"], r["tokens_basis"]) for r in before} == {(None, None)}
    ingest_trees(path, str(root))
    with connect_file(path, read_only=True) as con:
        racks = {(r["scenario"], r["accelerator"]): r for r in rows(con, query)}
        economics = {r["scenario"]: r for r in rows(con, "SELECT * FROM token_economics WHERE result_id = '6.1-F001' "
                                                          "AND benchmark = 'qwen3-vl-235b-a22b'")}
    # Vera Rubin NVL72 (72 GPUs, 72 a rack): per rack = per GPU x 72 = the run's own figure.
    # Offline: 2392.7 samples/s published; tps 102722.30022046335 -> 102722.30022046335 / 72 x 72 tokens/s a rack.
    vr = racks[("Offline", "Vera Rubin")]
    assert (vr["throughput_per_rack"], vr["throughput_unit"], vr["verification"]) == (
        pytest.approx(2392.7 / 72 * 72, rel=1e-12), "Samples/s", "preview")
    assert vr["tokens_per_second_per_rack"] == pytest.approx(102722.30022046335 / 72 * 72, rel=1e-12)
    assert vr["tokens_basis"] == "run output tokens"
    # Server: 2323.27 queries/s published; tps 99742.4611703127.
    assert racks[("Server", "Vera Rubin")]["tokens_per_second_per_rack"] == pytest.approx(99742.4611703127, rel=1e-12)
    # Lambda B200 x8 (32 a rack): 101.561 / 8 x 32 = 406.244 samples/s; the endpoint client prints no tokens.
    b200 = racks[("Offline", "B200")]
    assert b200["throughput_per_rack"] == pytest.approx(101.561 / 8 * 32, rel=1e-12)
    assert (b200["tokens_per_second_per_rack"], b200["tokens_basis"]) == (None, None)
    # token_economics: the run's tokens beside the table's samples; per GPU 102722.30 / 72 = 1426.7.
    offline = economics["Offline"]
    assert (offline["throughput"], offline["run_tokens_per_second"], offline["tokens_derived"]) == (
        2392.7, 102722.30022046335, False)
    assert round(offline["tokens_per_second_per_accelerator"], 1) == 1426.7
    # DeepSeek-R1 publishes tokens: the table's figure stays, the run's beside it (1175890.22 vs 1175890.2208).
    with connect_file(path, read_only=True) as con:
        [deepseek] = rows(con, "SELECT tokens_per_second, tokens_basis, run_tokens_per_second FROM token_economics "
                               "WHERE result_id = '6.1-F001' AND benchmark = 'deepseek-r1'")
    assert deepseek == {"tokens_per_second": 1175890.22, "tokens_basis": "published tokens",
                        "run_tokens_per_second": 1175890.2208168241}


@pytest.mark.slow
def test_own_runs_are_matched_to_the_endpoint_harness_runs_pattern(v61, tmp_path):
    # A made-up own run of Qwen3-VL on a Vera Rubin rack (own_measurements' CSV format): TTFT p99 2000 ms,
    # TPOT p99 100 ms, 100000 output tokens/s on 72 accelerators.
    from warehouse.ledger.measurements import MEASUREMENT_TABLES, RunOptions, load_measurements
    path, root = v61
    ingest_trees(path, str(root))
    own = tmp_path / "own.csv"
    own.write_text("label,model_id,accelerator,accelerators,system,measured_at,completed,duration_s,"
                   "output_tokens_per_second,ttft_p99_ms,tpot_mean_ms,tpot_p99_ms,note\n"
                   "vr-q3vl,Qwen/Qwen3-VL-235B-A22B-Instruct,Vera Rubin,72,a rack,2026-11-10T10:00:00,"
                   "1000,100,100000,2000,90,100,MADE-UP NUMBERS for a test\n")
    with db.connect(path) as con:
        load_measurements(con, own, None, RunOptions())
        materialize(con, changed=MEASUREMENT_TABLES)
        found = {r["scenario"]: r for r in rows(con, "SELECT * FROM own_vs_mlperf WHERE label = 'vr-q3vl' "
                                                     "AND result_id = '6.1-F001'")}
    server = found["Server"]
    # The MLPerf side: the endpoint harness's p99s (4413.215109 ms, 161.422662 ms) and the run's tokens.
    assert (server["mlperf_ttft_p99_ms"], server["mlperf_tpot_p99_ms"]) == (4413.215109, 161.422662)
    assert server["mlperf_tokens_per_second_per_accelerator"] == pytest.approx(99742.4611703127 / 72, rel=1e-12)
    # 100000 / 72 over 99742.46 / 72 = 1.00258.
    assert server["own_over_mlperf"] == pytest.approx(100000 / 99742.4611703127, rel=1e-12)
    # Distance from the MLPerf run's measured pattern: sqrt(ln(2000/4413.215109)^2 + ln(100/161.422662)^2).
    import math
    assert server["pattern_distance"] == pytest.approx(
        math.sqrt(math.log(2000 / 4413.215109) ** 2 + math.log(100 / 161.422662) ** 2), rel=1e-12)
    # No TTFT/TPOT limit is on record for Qwen3-VL: no verdict on the pattern, only its distance.
    assert server["pattern_match"] is None and server["nearest_pattern"] is True
    assert found["Offline"]["pattern_distance"] is None
