"""Your own measurements in the warehouse: loaded with lineage, resolved as MLPerf rows are, set beside
the audited rows (own_vs_mlperf), cited by decisions, and never inside an MLPerf comparison.

Expected numbers are the shared rounds' own: `published()` re-reads each from the mirror. The verified
H200 SXM llama3.1-8b rows of the shared rounds are three v5.1 entries of 8 GPUs: 5.1-0079 (Quanta,
Interactive, Offline, Server), 5.1-0049 (HPE, the same three) and 5.1-0014 (Cisco C885A, Offline and
Server); the other "H200" llama3.1-8b entries are H200 NVL PCIe cards, another product line.
"""
from __future__ import annotations

import math
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import SHARED
from tests.shared_rows import one, published, rows
from tests.test_claims import claim
from tests.test_measurements_read import CSV, VLLM_C64, VLLM_C1024
from warehouse.ledger.claims import load_claims, load_decisions
from warehouse.ledger.measurements import MEASUREMENT_TABLES, MeasurementError, RunOptions, load_measurements
from warehouse.store import db
from warehouse.views import materialize

H200_X8 = RunOptions(accelerator="H200", accelerators=8)
SAME_ACCELERATOR = {("5.1-0079", "Interactive"), ("5.1-0079", "Offline"), ("5.1-0079", "Server"),
                    ("5.1-0049", "Interactive"), ("5.1-0049", "Offline"), ("5.1-0049", "Server"),
                    ("5.1-0014", "Offline"), ("5.1-0014", "Server")}
OWN_TABLES = ("measurement_files", "own_measurements", "own_measurement_requests", "own_measurement_quarantine")


def load(con, path: Path, options: RunOptions = H200_X8):
    outcome = load_measurements(con, path, None, options)
    materialize(con, changed=MEASUREMENT_TABLES)  # as `mlperf-wh measurements load` does
    return outcome


def counts(con) -> dict[str, int]:
    return {t: con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0] for t in OWN_TABLES}


def beside(con, label: str) -> list[dict]:
    return rows(con, "SELECT * FROM own_vs_mlperf WHERE label = ? ORDER BY result_id, benchmark, scenario", [label])


def test_a_vllm_run_on_8_h200_is_set_beside_the_verified_h200_rows(private_con):
    outcome = load(private_con, VLLM_C64)
    assert (outcome.status, outcome.runs_loaded, outcome.runs_quarantined) == ("loaded", 1, 0)
    pairs = beside(private_con, "h200-replay-c64")
    same = [p for p in pairs if p["match"] == "same accelerator"]
    assert {(p["result_id"], p["scenario"]) for p in same} == SAME_ACCELERATOR
    assert {p["benchmark"] for p in same} == {"llama3.1-8b"} and {p["verification"] for p in same} == {"verified"}
    hpe_server = next(p for p in same if (p["result_id"], p["scenario"]) == ("5.1-0049", "Server"))
    mlperf = published("v5.1", "5.1-0049", "llama3.1-8b", "Server")  # 64914.6 tokens/s on 8 GPUs
    assert hpe_server["own_tokens_per_second_per_accelerator"] == 19840.0 / 8  # 2480
    assert hpe_server["mlperf_tokens_per_second_per_accelerator"] == pytest.approx(mlperf / 8)  # 8114.3
    assert hpe_server["own_over_mlperf"] == pytest.approx((19840.0 / 8) / (mlperf / 8))  # 0.306
    # per rack: H200 SXM, 32 a rack (4 x 8-GPU HGX, rack_capacity.csv), on both sides
    assert hpe_server["own_tokens_per_second_per_rack"] == 19840.0 / 8 * 32  # 79360
    assert hpe_server["mlperf_tokens_per_second_per_rack"] == pytest.approx(mlperf / 8 * 32)
    assert hpe_server["own_rack_basis"] == "extrapolated from 8 accelerators"
    # the product line (NVIDIA HGX: H100 SXM, B200, B300...) comes second, labelled
    line = {p["mlperf_accelerator"] for p in pairs if p["match"] == "same product line"}
    assert "B200" in line and "H200 SXM" not in line and "H200 NVL" not in line


@pytest.mark.slow
def test_pattern_match_holds_a_run_to_the_scenario_constraints(private_con):
    load(private_con, VLLM_C64)  # p99 TTFT 350 ms, TPOT 28 ms
    load(private_con, VLLM_C1024)  # p99 TTFT 4200 ms, TPOT 120 ms
    inside = {p["scenario"]: p for p in beside(private_con, "h200-replay-c64") if p["result_id"] == "5.1-0049"}
    outside = {p["scenario"]: p for p in beside(private_con, "h200-replay-c1024") if p["result_id"] == "5.1-0049"}
    # llama3.1-8b Server: TTFT 2000 ms, TPOT 100 ms; Interactive: 500 ms, 30 ms (LoadGen's mlperf.conf)
    assert (inside["Server"]["constraint_ttft_p99_ms"], inside["Server"]["constraint_tpot_p99_ms"]) == (2000, 100)
    assert inside["Server"]["pattern_match"] is True and inside["Interactive"]["pattern_match"] is True
    assert outside["Server"]["pattern_match"] is False and outside["Interactive"]["pattern_match"] is False
    assert inside["Offline"]["pattern_match"] is None and inside["Offline"]["pattern_distance"] is None
    # no run summaries here: the reference pattern is the scenario's constraint
    assert inside["Interactive"]["pattern_distance"] == pytest.approx(math.hypot(math.log(350 / 500), math.log(28 / 30)))
    assert outside["Server"]["pattern_distance"] == pytest.approx(math.hypot(math.log(4200 / 2000), math.log(120 / 100)))


@pytest.mark.slow
def test_the_nearest_row_in_pattern_is_marked_once_per_run(private_con):
    load(private_con, VLLM_C64)
    load(private_con, VLLM_C1024)
    nearest = {r["label"]: r for r in rows(private_con, "SELECT * FROM own_vs_mlperf WHERE nearest_pattern")}
    # c64 is nearest Interactive (0.363 against Server's 2.158); of the two H200 SXM Interactive rows
    # the higher: Quanta 54117.6 over HPE 53475.2
    assert published("v5.1", "5.1-0079", "llama3.1-8b", "Interactive") > published(
        "v5.1", "5.1-0049", "llama3.1-8b", "Interactive")
    assert (nearest["h200-replay-c64"]["result_id"], nearest["h200-replay-c64"]["scenario"]) == ("5.1-0079", "Interactive")
    # c1024 is nearest Server (0.764 against 2.54); the highest H200 SXM Server row is HPE's 64914.6
    assert (nearest["h200-replay-c1024"]["result_id"], nearest["h200-replay-c1024"]["scenario"]) == ("5.1-0049", "Server")
    assert len(nearest) == 2 and all(n["match"] == "same accelerator" for n in nearest.values())


def test_the_mlperf_runs_own_latencies_are_used_once_trees_are_loaded(trees_warehouse, tmp_path):
    # HPE ProLiant XD685 B200 (v6.0) llama3.1-8b Server has its LoadGen summary in the shared trees:
    # its p99 TTFT and TPOT (ns / 1e6) stand beside the H200 run's, a product-line match (NVIDIA HGX).
    path = tmp_path / "trees.duckdb"
    shutil.copyfile(trees_warehouse, path)
    summary = (SHARED / "trees" / "inference_results_v6.0/closed/HPE/results/HPE_ProLiant_XD685_B200_SXM_192GBx8_TRT/"
               "llama3.1-8b/Server/performance/run_1/mlperf_log_summary.txt").read_text()
    ttft_ns = float(re.search(r"99\.00 percentile first token latency \(ns\)\s*:\s*(\d+)", summary).group(1))
    tpot_ns = float(re.search(r"99\.00 percentile time to output token \(ns\)\s*:\s*(\d+)", summary).group(1))
    with db.connect(str(path)) as con:
        load(con, VLLM_C64)
        row = one(con, "SELECT * FROM own_vs_mlperf WHERE label = 'h200-replay-c64' AND scenario = 'Server' "
                       "AND mlperf_accelerator = 'B200' AND submitter = 'HPE' AND round = 'v6.0'")
    assert row["match"] == "same product line"
    assert row["mlperf_ttft_p99_ms"] == pytest.approx(ttft_ns / 1e6)
    assert row["mlperf_tpot_p99_ms"] == pytest.approx(tpot_ns / 1e6)
    assert row["pattern_distance"] == pytest.approx(
        math.hypot(math.log(350 / (ttft_ns / 1e6)), math.log(28 / (tpot_ns / 1e6))))


@pytest.mark.slow
def test_the_same_file_twice_changes_nothing_and_new_options_replace_its_runs(private_con):
    load(private_con, VLLM_C64)
    before = counts(private_con)
    again = load(private_con, VLLM_C64)
    assert again.status == "unchanged" and counts(private_con) == before
    relabelled = load(private_con, VLLM_C64, RunOptions("H200", 8, system="borrowed HGX H200"))
    assert relabelled.status == "replaced" and counts(private_con) == before
    assert one(private_con, "SELECT system FROM own_runs")["system"] == "borrowed HGX H200"
    lineage = one(private_con, "SELECT * FROM measurement_files")
    assert lineage["path"] == str(VLLM_C64.absolute()) and lineage["runs_loaded"] == 1
    assert lineage["sha256"] == __import__("hashlib").sha256(VLLM_C64.read_bytes()).hexdigest()


def test_a_truncated_file_is_refused_and_loads_nothing(private_con, tmp_path):
    load(private_con, VLLM_C64)
    before = counts(private_con)
    cut = tmp_path / "cut.json"
    cut.write_bytes(VLLM_C1024.read_bytes()[:300])
    with pytest.raises(Exception, match="cut short") as refused:
        load(private_con, cut)
    assert "\n" not in str(refused.value)
    assert counts(private_con) == before


def test_a_negative_throughput_is_quarantined_and_an_unknown_accelerator_is_drift(private_con):
    outcome = load(private_con, CSV, RunOptions())
    assert (outcome.runs_read, outcome.runs_loaded, outcome.runs_quarantined) == (3, 2, 1)
    bad = one(private_con, "SELECT * FROM own_measurement_quarantine")
    assert bad["run_no"] == 2 and bad["reasons"] == ["output_tokens_per_second: failed greater_than(0) (got -5200.0)"]
    acme = one(private_con, "SELECT * FROM own_runs WHERE label = 'acme-replay'")
    assert acme["accelerator"] is None and acme["family"] == "llama3.1-8b"  # loaded, never dropped
    drift = one(private_con, "SELECT * FROM drift WHERE round IS NULL")
    assert (drift["kind"], drift["term"], drift["rows"]) == ("accelerator", "Acme X1", 1)
    assert drift["source_id"] == "own/" + acme["run_id"].split("-")[0]
    assert rows(private_con, "SELECT * FROM own_vs_mlperf WHERE label = 'acme-replay'") == []


def test_a_file_no_run_of_which_loads_is_refused(private_con):
    with pytest.raises(MeasurementError, match="no run can be loaded.*give --accelerator.*nothing was loaded"):
        load(private_con, VLLM_C64, RunOptions())
    assert set(counts(private_con).values()) == {0}


@pytest.mark.slow
def test_own_runs_never_enter_an_mlperf_comparison(private_con):
    marts = ("verified_results", "leaderboard", "generation_speedups", "software_gains", "scaling_efficiency",
             "token_economics", "rack_throughput", "claim_audit", "anomalies")
    before = {m: private_con.execute(f"SELECT count(*) FROM {m}").fetchall()[0][0] for m in marts}
    load(private_con, VLLM_C64)
    load(private_con, CSV, RunOptions())
    assert {m: private_con.execute(f"SELECT count(*) FROM {m}").fetchall()[0][0] for m in marts} == before
    assert set(rows(private_con, "SELECT DISTINCT verification FROM own_runs")[0].values()) == {"own measurement"}


@pytest.mark.slow
def test_a_decision_shows_the_own_runs_it_names_and_flags_a_claim_they_contradict(private_con, tmp_path):
    load(private_con, VLLM_C64)  # H200 SXM: 2480 tokens/s per GPU at concurrency 64
    h100 = tmp_path / "h100.csv"
    h100.write_text("label,model_id,accelerator,accelerators,max_concurrency,output_tokens_per_second\n"
                    "h100-replay-c64,meta-llama/Llama-3.1-8B-Instruct,H100,8,64,9920\n", encoding="utf-8")
    load(private_con, h100, RunOptions())  # H100 SXM: 9920 / 8 = 1240 per GPU
    mlperf = published("v5.1", "5.1-0049", "llama3.1-8b", "Server")
    claims = tmp_path / "claims.toml"
    claims.write_text(
        claim("h200-absolute", round="v5.1", model="llama3.1-8b", scenario="Server", kind="absolute",
              vendor="HPE", submitter="HPE", accelerator="H200 SXM", total_accelerators=8, multiplier=mlperf)
        + claim("h200-over-h100", round="v5.1", model="llama3.1-8b", scenario="Server",
                accelerator="H200 SXM", baseline_accelerator="H100 SXM", total_accelerators=8, multiplier=1.9),
        encoding="utf-8")
    load_claims(private_con, claims)
    decisions = tmp_path / "decisions.toml"
    decisions.write_text("""[[decision]]
id = "llama-8b-fleet"
title = "H200 for the 8B assistant"
workload = "llama 3.1 8B chat"
metric = "tokens per second per rack"
measured_by = ["h200-replay-c64", "h100-replay-c64", "our own replay of production traffic"]
claims_used = ["h200-absolute", "h200-over-h100"]
claims_excluded = []
decision = "buy H200"
decided_on = 2026-11-20
review_due = "next"
""", encoding="utf-8")
    load_decisions(private_con, decisions)
    materialize(private_con, changed={"claims", "decisions"})
    record = one(private_con, "SELECT * FROM decision_records WHERE id = 'llama-8b-fleet'")
    assert [m["label"] for m in record["own_measurements"]] == sorted(["h200-replay-c64", "h100-replay-c64"],
                                                                      key=lambda label: _run_id(private_con, label))
    assert record["measured_by_not_loaded"] == ["our own replay of production traffic"]
    checks = {c["claim_id"]: c for c in record["measurement_checks"]}
    # absolute: 2480 per GPU measured against the claimed 64914.6 / 8 = 8114.3 per GPU
    assert checks["h200-absolute"]["own_figure"] == 2480.0
    assert checks["h200-absolute"]["claimed_figure"] == pytest.approx(mlperf / 8)
    assert checks["h200-absolute"]["own_over_claimed"] == pytest.approx(2480 / (mlperf / 8))
    assert checks["h200-absolute"]["disagrees"] is True
    # speedup: 2480 / 1240 = 2.0 measured at one concurrency, claimed 1.9: 5% apart, agrees
    assert checks["h200-over-h100"]["own_figure"] == pytest.approx(2.0)
    assert checks["h200-over-h100"]["own_over_claimed"] == pytest.approx(2.0 / 1.9)
    assert checks["h200-over-h100"]["disagrees"] is False
    assert record["own_measurement_disagrees"] is True


def _run_id(con, label: str) -> str:
    return one(con, "SELECT run_id FROM own_runs WHERE label = ?", [label])["run_id"]


@pytest.mark.slow
def test_the_cli_loads_lists_and_refuses_in_one_line(cli, shared_warehouse, tmp_path):
    path = tmp_path / "w.duckdb"
    shutil.copyfile(shared_warehouse, path)
    code, out, err = cli("measurements", "load", VLLM_C64, "--accelerator", "H200", "--accelerators", "8",
                         "--db", path)
    assert code == 0 and "loaded" in out and "(vllm): 1 run" in out and err == ""
    code, out, _ = cli("measurements", "load", VLLM_C64, "--accelerator", "H200", "--accelerators", "8",
                       "--db", path)
    assert code == 0 and "unchanged" in out
    code, out, err = cli("measurements", "load", CSV, "--db", path)
    assert code == 0 and "quarantined run 2: output_tokens_per_second" in err
    assert "accelerator 'Acme X1' matches no pattern" in err
    cut = tmp_path / "cut.json"
    cut.write_bytes(VLLM_C64.read_bytes()[:200])
    code, out, err = cli("measurements", "load", cut, "--format", "vllm", "--accelerator", "H200",
                         "--accelerators", "8", "--db", path)
    assert code == 1 and err.count("\n") == 1 and "cut short" in err
    code, out, _ = cli("measurements", "--format", "json", "--db", path)
    assert code == 0 and sorted(r["label"] for r in __import__("json").loads(out)) == [
        "acme-replay", "b200-replay-c32", "h200-replay-c64"]
    code, out, _ = cli("measurements", "list", "--format", "csv", "--db", path)
    assert code == 0 and out.splitlines()[0].startswith("run_id,label,measured_at,model_id,family")
