"""token_economics on the real rows of the shared mirror (v4.1, v5.1, v6.0).

Expected numbers were read by hand from ../shared/mlcommons/mirror/inference_results_vX.Y/main/
summary_results.json (comments name result IDs and raw values); TDPs come from
warehouse/identity/reference/accelerators.csv and rack sizes from warehouse/identity/reference/rack_capacity.csv.
`published()` re-reads the raw values so a typo in a literal fails loudly.
"""
from __future__ import annotations

import polars as pl
import pytest

from tests.shared_rows import one, record, records, rows
from warehouse.identity.rounds import REFERENCE_DIR
from warehouse.views import materialize


def tdp(accelerator: str) -> float:
    table = pl.read_csv(REFERENCE_DIR / "accelerators.csv")
    return table.filter(pl.col("accelerator") == accelerator)["tdp_watts"].unique().item()


def rack(accelerator: str) -> int:
    table = pl.read_csv(REFERENCE_DIR / "rack_capacity.csv")
    return table.filter(pl.col("accelerator") == accelerator)["accelerators_per_rack"].item()


TOKEN_ROW = ("SELECT * FROM token_economics WHERE result_id = ? AND benchmark = ? AND scenario = ?")


def system_power(accelerator: str) -> tuple[int, float]:
    table = pl.read_csv(REFERENCE_DIR / "system_power.csv")
    row = table.filter(pl.col("accelerator") == accelerator).row(0, named=True)
    return row["accelerators_per_system"], row["system_watts"]


def test_tokens_are_never_derived_from_a_number_that_already_counts_them(shared_con):
    # v4.1-0110 NeuralMagic "GATE Overflow Intel Sapphire Rapids RTX 4090 (2x RTX 4090, vLLM, FP8)",
    # open division, llama2-70b-99.9 Offline: 1871.84 "Samples/s", Accuracy "... TOKENS_PER_SAMPLE: 296.5",
    # a# 2.0. The v4.1 checker reads result_tokens_per_second (tests/test_units_checked.py): tokens/s =
    # 1871.84, not 1871.84 x 296.5 = 555000.56; per accelerator / 2. No measured power and no cited
    # system for a gaming card: only the accelerators-only basis, TDP(GeForce RTX 4090) 450 W x 2 = 900 W.
    raw = record("v4.1", "v4.1-0110", "llama2-70b-99.9", "Offline")
    assert (raw["Performance_Result"], raw["Performance_Units"]) == (1871.84, "Samples/s")
    assert raw["Accuracy"].endswith("TOKENS_PER_SAMPLE: 296.5")
    assert tdp("GeForce RTX 4090") == 450
    row = one(shared_con, TOKEN_ROW, ["v4.1-0110", "llama2-70b-99.9", "Offline"])
    assert row["tokens_derived"] is False
    assert (row["tokens_per_second"], row["throughput"], row["throughput_unit"]) == (1871.84, 1871.84, "Tokens/s")
    assert row["tokens_per_second_per_accelerator"] == pytest.approx(1871.84 / 2, rel=1e-12)
    assert (row["measured_watts"], row["system_estimate_watts"]) == (None, None)
    assert (row["accelerators_only_watts"], row["accelerator_power_basis"]) == (450 * 2, "TDP")
    assert row["tokens_per_joule_accelerators_only"] == pytest.approx(1871.84 / (450 * 2), rel=1e-12)
    assert row["verification"] == "open"
    # Once labels are checked, no row of the shared rounds needs tokens derived from samples: every
    # Samples/s or Queries/s row with a TOKENS_PER_SAMPLE is a relabelled tokens/s figure.
    assert rows(shared_con, "SELECT * FROM token_economics WHERE tokens_derived") == []
    # A Tokens/s result is taken as published, not derived.
    direct = one(shared_con, TOKEN_ROW, ["6.0-0040", "deepseek-r1", "Offline"])
    assert direct["tokens_derived"] is False and direct["tokens_per_second"] == 57116.9


def test_measured_power_has_columns_of_its_own(shared_con):
    # v4.1-0049 NVIDIA "NVIDIA H200 (8x H200-SXM-141GB, MaxQ, TensorRT)", llama2-70b-99 Offline:
    # 25262.1 Tokens/s, Power_Result 6152.9844351733 Watts -> 25262.1 / 6152.9844351733 = 4.1057 tokens/J,
    # 4105.7 tokens/s per kW. The estimates stay beside it, never in its place.
    raw = record("v4.1", "v4.1-0049", "llama2-70b-99", "Offline")
    assert (raw["Performance_Result"], raw["Power_Result"], raw["Power_Units"]) == (25262.1, 6152.9844351733, "Watts")
    row = one(shared_con, TOKEN_ROW, ["v4.1-0049", "llama2-70b-99", "Offline"])
    assert row["measured_watts"] == pytest.approx(6152.9844351733, rel=1e-12)
    assert row["tokens_per_joule_measured"] == pytest.approx(25262.1 / 6152.9844351733, rel=1e-12)
    assert row["throughput_per_kw_measured"] == pytest.approx(25262.1 / 6.1529844351733, rel=1e-12)
    # The DGX H200 reference (10.2 kW for 8) with the entry's own TGP, 700 W = the TDP: 10200 W.
    assert system_power("H200 SXM") == (8, 10200)
    assert row["system_estimate_watts"] == pytest.approx(10200, rel=1e-12)
    assert row["tokens_per_joule_system_estimate"] == pytest.approx(25262.1 / 10200, rel=1e-12)
    # 5.1-0062 Lenovo "ThinkSystem SR780a V3 (8x B200-SXM-180GB, TensorRT)", llama3.1-8b Server:
    # 128689 Tokens/s at 9011.0666666667 W -> 14.281 tokens/J measured; the DGX B200 estimate
    # (14.3 kW for 8) gives 128689 / 14300 = 8.999; the GPUs alone (TGP 1000 W x 8) 16.086.
    raw = record("v5.1", "5.1-0062", "llama3.1-8b", "Server")
    assert (raw["Performance_Result"], raw["Power_Result"]) == (128689.0, 9011.0666666667)
    row = one(shared_con, TOKEN_ROW, ["5.1-0062", "llama3.1-8b", "Server"])
    assert row["tokens_per_joule_measured"] == pytest.approx(128689 / 9011.0666666667, rel=1e-12)
    assert row["tokens_per_joule_system_estimate"] == pytest.approx(128689 / 14300, rel=1e-12)
    assert row["tokens_per_joule_accelerators_only"] == pytest.approx(128689 / 8000, rel=1e-12)
    assert row["accelerator_power_basis"] == "TGP"  # its notes say "B200 TGP 1000W"


def test_a_system_estimate_scales_a_cited_system(shared_con):
    # 6.0-0040 Google DGX B200 (8x B200), deepseek-r1 Offline: 57116.9 Tokens/s, no Power_Result.
    # System estimate: DGX B200 14300 W for 8 -> 1787.5 W a GPU x 8 = 14300 W; tokens/J = 57116.9 / 14300
    # = 3.9942; per kW 3994.2. Accelerators only: TGP 1000 W x 8 = 8000 W -> 7.1396 tokens/J.
    assert record("v6.0", "6.0-0040", "deepseek-r1", "Offline").get("Power_Result") is None
    assert system_power("B200") == (8, 14300)
    row = one(shared_con, TOKEN_ROW, ["6.0-0040", "deepseek-r1", "Offline"])
    assert row["measured_watts"] is None
    assert (row["system_estimate_watts"], row["power_reference"]) == (14300, "NVIDIA DGX B200")
    assert row["tokens_per_joule_system_estimate"] == pytest.approx(57116.9 / 14300, rel=1e-12)
    assert row["throughput_per_kw_system_estimate"] == pytest.approx(57116.9 / 14.3, rel=1e-12)
    assert row["tokens_per_joule_accelerators_only"] == pytest.approx(57116.9 / 8000, rel=1e-12)
    # Per rack for B200: the reference assumes 32 per rack -> 57116.9 / 8 x 32, measured on 8 only;
    # the rack draws 14300 / 8 x 32 / 1000 = 57.2 kW.
    assert rack("B200") == 32
    assert row["tokens_per_second_per_rack"] == pytest.approx(57116.9 / 8 * 32, rel=1e-12)
    assert row["rack_basis"] == "extrapolated from 8 accelerators"
    assert row["rack_kw_system_estimate"] == pytest.approx(14300 / 8 * 32 / 1000, rel=1e-12)
    # A system of mixed accelerators has no TDP and no reference: v6.0 AMD "MI300X + MI325X" rows.
    mixed = rows(shared_con, "SELECT * FROM token_economics WHERE accelerator = 'MI300X + MI325X'")
    assert mixed and {(r["system_estimate_watts"], r["accelerators_only_watts"], r["tokens_per_second_per_rack"])
                      for r in mixed} == {(None, None, None)}


def test_a_published_power_cap_wins_over_the_tdp(shared_con):
    # 6.0-0033 Dell_MangoBoost "PowerEdge XE9785 (MI355X Power Cap 1000W)", accelerator "AMD Instinct
    # MI355X 288GB HBM3e (Power Cap 1000 W)" x8, llama2-70b-99 Offline 81870.5 Tokens/s: the GPUs are
    # charged 1000 W each (8000 W), not the 1400 W TDP (11200 W). 81870.5 / 8000 = 10.234 tokens/J.
    raw = record("v6.0", "6.0-0033", "llama2-70b-99", "Offline")
    assert raw["Accelerator"] == "AMD Instinct MI355X 288GB HBM3e (Power Cap 1000 W)"
    assert raw["Performance_Result"] == 81870.5
    assert tdp("MI355X") == 1400
    row = one(shared_con, TOKEN_ROW, ["6.0-0033", "llama2-70b-99", "Offline"])
    assert (row["accelerators_only_watts"], row["accelerator_power_basis"]) == (1000 * 8, "power cap")
    assert row["tokens_per_joule_accelerators_only"] == pytest.approx(81870.5 / 8000, rel=1e-12)
    # Its uncapped neighbour 6.0-0032 (same submitter, TDP): 1400 W x 8.
    assert one(shared_con, TOKEN_ROW, ["6.0-0032", "llama2-70b-99", "Offline"])["accelerators_only_watts"] == 11200
    # v4.1-0045 NVIDIA H200-SXM-141GB-CTS x1, notes "H200 TGP 1000W": the CTS is its own part, an H200 SXM at
    # 1000 W (TDP 1000), and no published system figure is for it (the DGX H200's 10,200 W is for 700 W
    # GPUs): no system estimate, 1000 W for the GPU on the accelerators-only basis. (Read as the 700 W part,
    # its estimate was 10200 / 8 + (1000 - 700) = 1575 W.)
    assert "TGP 1000W" in record("v4.1", "v4.1-0045", "llama2-70b-99", "Offline")["Notes"]
    assert tdp("H200 SXM CTS") == 1000
    cts = one(shared_con, TOKEN_ROW, ["v4.1-0045", "llama2-70b-99", "Offline"])
    assert cts["system_estimate_watts"] is None
    assert cts["accelerators_only_watts"] == 1000


def test_nvl72_rack_is_per_accelerator_times_72(shared_con):
    # 6.0-0078 NVIDIA GB300 NVL72 (72 GB300) deepseek-r1 Offline 647076 Tokens/s:
    # per accelerator 647076 / 72 = 8987.17; per rack x 72 = 647076 (the whole NVL72), measured on 72;
    # system estimate: the cited GB300 NVL72 rack, 132 kW -> 647076 / 132000 = 4.9021 tokens/J; the
    # GPUs alone (TGP 1400 W x 72 = 100.8 kW) would make it 6.4194: the GPU-only figure is no rack's draw.
    # 6.0-0076 (288 GB300 = 4 racks) Offline 2494310 -> per rack 2494310 / 288 x 72 = 623577.5.
    assert (rack("GB300"), tdp("GB300"), system_power("GB300")) == (72, 1400, (72, 132000))
    row = one(shared_con, TOKEN_ROW, ["6.0-0078", "deepseek-r1", "Offline"])
    assert row["tokens_per_second_per_accelerator"] == pytest.approx(647076 / 72, rel=1e-12)
    assert row["accelerators_per_rack"] == 72
    assert row["tokens_per_second_per_rack"] == pytest.approx(647076 / 72 * 72, rel=1e-12)
    assert row["rack_assumption"].startswith("NVL72") and row["rack_basis"] == "measured on 72 accelerators"
    assert row["system_estimate_watts"] == pytest.approx(132000, rel=1e-12)
    assert row["tokens_per_joule_system_estimate"] == pytest.approx(647076 / 132000, rel=1e-12)
    assert row["tokens_per_joule_accelerators_only"] == pytest.approx(647076 / (1400 * 72), rel=1e-12)
    assert row["rack_kw_system_estimate"] == pytest.approx(132, rel=1e-12)
    big = one(shared_con, TOKEN_ROW, ["6.0-0076", "deepseek-r1", "Offline"])
    assert big["tokens_per_second_per_rack"] == pytest.approx(2494310 / 288 * 72, rel=1e-12)
    # four racks' worth: the per-rack figure is scaled down from them, an estimate, never "measured"
    assert big["rack_basis"] == "scaled down from 288 accelerators, more than one rack (72)"
    assert (big["measured_rack"], big["rack_from_servers"]) == (False, True)


def test_every_throughput_benchmark_has_a_rack_row_in_its_own_unit(shared_con):
    # Qwen3-VL publishes samples/s and no TOKENS_PER_SAMPLE: no tokens, but a rack row all the same.
    # 6.0-0077 NVIDIA GB300 (4 of an NVL72) Offline 61.2443 Samples/s -> per rack 61.2443 / 4 x 72 =
    # 1102.3974 samples/s, extrapolated from 4 GPUs.
    assert record("v6.0", "6.0-0077", "qwen3-vl-235b-a22b", "Offline")["Performance_Result"] == 61.2443
    row = one(shared_con, TOKEN_ROW, ["6.0-0077", "qwen3-vl-235b-a22b", "Offline"])
    assert (row["throughput_unit"], row["tokens_per_second"]) == ("Samples/s", None)
    assert row["throughput_per_rack"] == pytest.approx(61.2443 / 4 * 72, rel=1e-12)
    assert row["rack_basis"] == "extrapolated from 4 accelerators"
    throughput_benchmarks = {r["benchmark"] for r in rows(
        shared_con, "SELECT DISTINCT benchmark FROM stg_results WHERE metric = 'performance' AND higher_is_better "
                    "AND accelerator IN (SELECT accelerator FROM stg_rack_capacity)")}
    racked = {r["benchmark"] for r in rows(
        shared_con, "SELECT DISTINCT benchmark FROM token_economics WHERE throughput_per_rack IS NOT NULL")}
    assert throughput_benchmarks == racked


def test_what_a_dollar_buys_needs_a_loaded_price(shared_con, private_con):
    # Without prices every tokens_per_dollar and dollars_per_million_tokens is null.
    assert shared_con.execute("SELECT count(*) FROM token_economics WHERE tokens_per_dollar IS NOT NULL "
                              "OR dollars_per_million_tokens IS NOT NULL").fetchone()[0] == 0
    # In a private copy: B200 at $5.00 per accelerator-hour. 6.0-0040 (8x B200) deepseek-r1 Offline
    # 57116.9 Tokens/s. The system costs 5.00 x 8 = $40 an hour and makes 57116.9 x 3600 = 205,620,840
    # tokens in it: 205,620,840 / 40 = 5,140,521 tokens per dollar; 40 / 205.62084 = $0.1945 per
    # million tokens.
    private_con.execute("INSERT INTO prices (accelerator, dollars_per_accelerator_hour, note) VALUES ('B200', 5.0, 'test price')")
    materialize(private_con, changed={"prices"})  # as `mlperf-wh prices load` does
    row = one(private_con, TOKEN_ROW, ["6.0-0040", "deepseek-r1", "Offline"])
    assert row["dollars_per_accelerator_hour"] == 5.0
    assert row["tokens_per_dollar"] == pytest.approx(57116.9 * 3600 / (5.0 * 8), rel=1e-12)
    assert row["dollars_per_million_tokens"] == pytest.approx(5.0 * 8 / (57116.9 * 3600) * 1e6, rel=1e-12)
    assert row["dollars_per_million_tokens"] == pytest.approx(0.19453, abs=5e-6)
    assert row["throughput_per_dollar"] == pytest.approx(57116.9 * 3600 / (5.0 * 8), rel=1e-12)
    # GB300 has no price: still null.
    assert one(private_con, TOKEN_ROW, ["6.0-0078", "deepseek-r1", "Offline"])["tokens_per_dollar"] is None


def test_preview_rows_are_kept_and_labelled(shared_con):
    # 6.0-0101 Intel "1-node-4x-BMG-B70", Availability preview, gpt-oss-120b Offline 1536.9 Tokens/s.
    assert record("v6.0", "6.0-0101", "gpt-oss-120b", "Offline")["Performance_Result"] == 1536.9
    row = one(shared_con, TOKEN_ROW, ["6.0-0101", "gpt-oss-120b", "Offline"])
    assert row["verification"] == "preview"
    assert row["tokens_per_second_per_accelerator"] == pytest.approx(1536.9 / 4, rel=1e-12)


def test_no_tokens_for_non_llm_benchmarks_and_no_latency_rows(shared_con):
    # resnet (Samples/s, Accuracy "acc: 76.x", no TOKENS_PER_SAMPLE) and the other vision / recommender
    # benchmarks never become tokens: they stay in their own unit. Latency results (gptj-99
    # SingleStream in v4.1 edge) are no throughput at all.
    assert any(r["Model"] == "resnet" for r in records("v6.0"))
    assert not any("TOKENS_PER_SAMPLE" in (r.get("Accuracy") or "") for name in ("v4.1", "v5.1", "v6.0")
                   for r in records(name) if r["Model"] in ("resnet", "retinanet", "bert-99", "dlrm-v2-99"))
    found = rows(shared_con, "SELECT DISTINCT benchmark FROM token_economics WHERE tokens_per_second IS NOT NULL "
                             "AND benchmark IN ('resnet', 'retinanet', 'bert-99', 'bert-99.9', 'dlrm-v2-99', "
                             "'dlrm-v3', '3d-unet-99', 'rgat', 'stable-diffusion-xl', 'yolo-95', 'wan-2.2-t2v-a14b')")
    assert found == []
    resnet = rows(shared_con, "SELECT DISTINCT throughput_unit FROM token_economics WHERE benchmark = 'resnet' "
                              "ORDER BY 1")
    assert resnet == [{"throughput_unit": "Queries/s"}, {"throughput_unit": "Samples/s"}]
    assert rows(shared_con, "SELECT * FROM token_economics WHERE scenario IN ('SingleStream', 'MultiStream')") == []
    # whisper Offline is there in tokens: its table value is LoadGen's tokens per second (the
    # checker's field), published as "Samples/s"; 6.0-0040 49327.2 tokens/s on 8 B200.
    whisper = one(shared_con, TOKEN_ROW, ["6.0-0040", "whisper", "Offline"])
    assert (whisper["tokens_per_second"], whisper["tokens_derived"]) == (49327.2, False)


def test_energy_per_query_from_millijoules(shared_con):
    # v4.1-0068 UntetherAI speedAI240 Slim x3, resnet: SingleStream 0.120438 ms at 29.2389869184 mJ a
    # query -> 0.0292389869 J a query, 1 / 0.0292389869 = 34.2010 queries per joule (one sample each);
    # MultiStream 61.3166966727 mJ a query of 8 samples -> 8000 / 61.3166966727 = 130.4703 samples per joule.
    single = record("v4.1", "v4.1-0068", "resnet", "SingleStream")
    multi = record("v4.1", "v4.1-0068", "resnet", "MultiStream")
    assert (single["Power_Result"], single["Power_Units"]) == (29.2389869184, "millijoules")
    assert multi["Power_Result"] == 61.3166966727
    found = {r["scenario"]: r for r in rows(shared_con, "SELECT * FROM power_efficiency WHERE result_id = 'v4.1-0068'")}
    assert found["SingleStream"]["joules_per_query"] == pytest.approx(29.2389869184 / 1000, rel=1e-12)
    assert found["SingleStream"]["queries_per_joule"] == pytest.approx(1000 / 29.2389869184, rel=1e-12)
    assert found["SingleStream"]["samples_per_joule"] == pytest.approx(1000 / 29.2389869184, rel=1e-12)
    assert found["MultiStream"]["samples_per_joule"] == pytest.approx(8 * 1000 / 61.3166966727, rel=1e-12)
    # Its Offline row: 168720 Samples/s at 398.3299847793 W -> 423.57 samples per joule.
    assert found["Offline"]["throughput_per_joule"] == pytest.approx(168720 / 398.3299847793, rel=1e-12)
    assert found["Offline"]["joules_per_query"] is None
    # Only measured power: every row carries a published power result.
    assert rows(shared_con, "SELECT * FROM power_efficiency WHERE power_result IS NULL") == []


def test_rack_throughput_answers_which_rack_gives_most(shared_con):
    # The seeds' decision: Qwen3-VL throughput per rack. v6.0 Offline, verified, best per accelerator:
    # GB300 6.0-0077 61.2443 / 4 x 72 = 1102.3974 samples/s a rack (NVL72); GB200 6.0-0074
    # 43.7662 / 4 x 72 = 787.7916; B200 6.0-0094 79.0373 / 8 x 32 = 316.1492 (4 HGX servers a rack).
    found = {r["accelerator"]: r for r in rows(
        shared_con, "SELECT * FROM rack_throughput WHERE round = 'v6.0' AND benchmark = 'qwen3-vl-235b-a22b' "
                    "AND scenario = 'Offline' AND verification = 'verified'")}
    assert found["GB300"]["throughput_per_rack"] == pytest.approx(61.2443 / 4 * 72, rel=1e-12)
    assert (found["GB300"]["result_id"], found["GB300"]["rank_per_rack"]) == ("6.0-0077", 1)
    assert found["GB200"]["throughput_per_rack"] == pytest.approx(43.7662 / 4 * 72, rel=1e-12)
    assert found["B200"]["throughput_per_rack"] == pytest.approx(79.0373 / 8 * 32, rel=1e-12)
    assert found["GB300"]["rack_kw_system_estimate"] == pytest.approx(132, rel=1e-12)
    assert found["GB300"]["throughput_per_kw_system_estimate"] == pytest.approx(61.2443 / (132000 / 72 * 4 / 1000),
                                                                                rel=1e-12)
    assert found["GB300"]["rack_basis"] == "extrapolated from 4 accelerators"


def test_the_seeds_rack_decision_gets_a_row_per_rack(tmp_path):
    # tests/fixtures/qwen3vl_racks_v6.1.summary.csv: made-up AcmeAI rows shaped as the seeds' decision
    # (v6.1 is not in the shared data). Qwen3-VL Offline on whole racks: Vera Rubin NVL72 (preview,
    # 18 nodes x 4 = 72) 3600 samples/s, GB300 NVL72 (available) 1200. Per rack: 3600 / 72 x 72 =
    # 3600 and 1200, both measured on a whole rack; the preview rack is unranked, the GB300 rank 1;
    # the Vera Rubin rack has no cited power figure, the GB300 rack 132 kW: 1200 / 132 = 9.09 per kW.
    from tests.conftest import ROOT
    from warehouse.ingest.pipeline import ingest_location
    from warehouse.store import db
    fixture = ROOT / "tests" / "fixtures" / "qwen3vl_racks_v6.1.summary.csv"
    with db.connect(str(tmp_path / "w.duckdb")) as con:
        ingest_location(con, "v6.1", "official", "summary.csv", str(fixture))
        materialize(con)
        found = {r["accelerator"]: r for r in rows(con, "SELECT * FROM rack_throughput WHERE round = 'v6.1'")}
    assert set(found) == {"Vera Rubin", "GB300"}
    assert (found["Vera Rubin"]["throughput_per_rack"], found["Vera Rubin"]["verification"]) == (3600.0, "preview")
    assert (found["Vera Rubin"]["rack_basis"], found["Vera Rubin"]["rank_per_rack"]) == ("measured on 72 accelerators", None)
    assert (found["GB300"]["throughput_per_rack"], found["GB300"]["rank_per_rack"]) == (1200.0, 1)
    assert found["Vera Rubin"]["rack_kw_system_estimate"] is None
    assert found["GB300"]["throughput_per_kw_system_estimate"] == pytest.approx(1200 / 132, rel=1e-12)
    assert found["GB300"]["throughput_unit"] == "Samples/s"
