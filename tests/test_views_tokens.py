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


def tdp(accelerator: str) -> float:
    table = pl.read_csv(REFERENCE_DIR / "accelerators.csv")
    return table.filter(pl.col("accelerator") == accelerator)["tdp_watts"].unique().item()


def rack(accelerator: str) -> int:
    table = pl.read_csv(REFERENCE_DIR / "rack_capacity.csv")
    return table.filter(pl.col("accelerator") == accelerator)["accelerators_per_rack"].item()


TOKEN_ROW = ("SELECT * FROM token_economics WHERE result_id = ? AND benchmark = ? AND scenario = ?")


def test_tokens_are_never_derived_from_a_number_that_already_counts_them(shared_con):
    # v4.1-0110 NeuralMagic "GATE Overflow Intel Sapphire Rapids RTX 4090 (2x RTX 4090, vLLM, FP8)",
    # open division, llama2-70b-99.9 Offline: 1871.84 "Samples/s", Accuracy "... TOKENS_PER_SAMPLE: 296.5",
    # a# 2.0. The v4.1 checker reads result_tokens_per_second (tests/test_units_checked.py): tokens/s =
    # 1871.84, not 1871.84 x 296.5 = 555000.56; per accelerator / 2; no measured power, so
    # watts = TDP(GeForce RTX 4090) 450 W x 2 = 900 W (estimated); tokens/J = 1871.84 / 900.
    raw = record("v4.1", "v4.1-0110", "llama2-70b-99.9", "Offline")
    assert (raw["Performance_Result"], raw["Performance_Units"]) == (1871.84, "Samples/s")
    assert raw["Accuracy"].endswith("TOKENS_PER_SAMPLE: 296.5")
    assert tdp("GeForce RTX 4090") == 450
    row = one(shared_con, TOKEN_ROW, ["v4.1-0110", "llama2-70b-99.9", "Offline"])
    assert row["tokens_derived"] is False
    assert row["tokens_per_second"] == 1871.84
    assert row["tokens_per_second_per_accelerator"] == pytest.approx(1871.84 / 2, rel=1e-12)
    assert (row["watts"], row["watts_basis"]) == (450 * 2, "estimated")
    assert row["tokens_per_joule"] == pytest.approx(1871.84 / (450 * 2), rel=1e-12)
    assert row["verification"] == "open"
    # Once labels are checked, no row of the shared rounds needs tokens derived from samples: every
    # Samples/s or Queries/s row with a TOKENS_PER_SAMPLE is a relabelled tokens/s figure.
    assert rows(shared_con, "SELECT * FROM token_economics WHERE tokens_derived") == []
    # A Tokens/s result is taken as published, not derived.
    direct = one(shared_con, TOKEN_ROW, ["6.0-0040", "deepseek-r1", "Offline"])
    assert direct["tokens_derived"] is False and direct["tokens_per_second"] == 57116.9


def test_measured_power_gives_tokens_per_joule(shared_con):
    # v4.1-0049 NVIDIA "NVIDIA H200 (8x H200-SXM-141GB, MaxQ, TensorRT)", llama2-70b-99 Offline:
    # 25262.1 Tokens/s, Power_Result 6152.9844351733 Watts -> 25262.1 / 6152.9844351733 = 4.1057 tokens/J.
    raw = record("v4.1", "v4.1-0049", "llama2-70b-99", "Offline")
    assert (raw["Performance_Result"], raw["Power_Result"], raw["Power_Units"]) == (25262.1, 6152.9844351733, "Watts")
    row = one(shared_con, TOKEN_ROW, ["v4.1-0049", "llama2-70b-99", "Offline"])
    assert row["watts_basis"] == "measured"
    assert row["watts"] == pytest.approx(6152.9844351733, rel=1e-12)
    assert row["tokens_per_joule"] == pytest.approx(25262.1 / 6152.9844351733, rel=1e-9)
    # 5.1-0062 Lenovo "ThinkSystem SR780a V3 (8x B200-SXM-180GB, TensorRT)", llama3.1-8b Server:
    # 128689 Tokens/s at 9011.0666666667 W -> 14.281 tokens/J (not 128689 / (1000 x 8) = 16.09 estimated).
    raw = record("v5.1", "5.1-0062", "llama3.1-8b", "Server")
    assert (raw["Performance_Result"], raw["Power_Result"]) == (128689.0, 9011.0666666667)
    row = one(shared_con, TOKEN_ROW, ["5.1-0062", "llama3.1-8b", "Server"])
    assert (row["watts"], row["watts_basis"]) == (pytest.approx(9011.0666666667, rel=1e-12), "measured")
    assert row["tokens_per_joule"] == pytest.approx(128689 / 9011.0666666667, rel=1e-9)


def test_estimated_power_is_tdp_times_accelerators(shared_con):
    # 6.0-0040 Google DGX B200 (8x B200), deepseek-r1 Offline: 57116.9 Tokens/s, no Power_Result.
    # watts = TDP(B200) 1000 W x 8 = 8000 W; tokens/J = 57116.9 / 8000 = 7.1396.
    assert record("v6.0", "6.0-0040", "deepseek-r1", "Offline").get("Power_Result") is None
    assert tdp("B200") == 1000
    row = one(shared_con, TOKEN_ROW, ["6.0-0040", "deepseek-r1", "Offline"])
    assert (row["watts"], row["watts_basis"]) == (1000 * 8, "estimated")
    assert row["tokens_per_joule"] == pytest.approx(57116.9 / (1000 * 8), rel=1e-12)
    # Per rack for B200: the reference assumes 32 per rack -> 57116.9 / 8 x 32.
    assert rack("B200") == 32
    assert row["tokens_per_second_per_rack"] == pytest.approx(57116.9 / 8 * 32, rel=1e-12)
    # A system of mixed accelerators has no TDP: v6.0 AMD "MI300X + MI325X" rows: no watts, no basis,
    # no tokens/J and no rack capacity.
    mixed = rows(shared_con, "SELECT * FROM token_economics WHERE accelerator = 'MI300X + MI325X'")
    assert mixed and {(r["watts"], r["watts_basis"], r["tokens_per_joule"], r["tokens_per_second_per_rack"])
                      for r in mixed} == {(None, None, None, None)}


def test_nvl72_rack_is_per_accelerator_times_72(shared_con):
    # 6.0-0078 NVIDIA GB300 NVL72 (72 GB300) deepseek-r1 Offline 647076 Tokens/s:
    # per accelerator 647076 / 72 = 8987.17; per rack x 72 = 647076 (the whole NVL72);
    # estimated watts = TDP(GB300) 1400 W x 72 = 100800 W.
    # 6.0-0076 (288 GB300 = 4 racks) Offline 2494310 -> per rack 2494310 / 288 x 72 = 623577.5.
    assert (rack("GB300"), tdp("GB300")) == (72, 1400)
    row = one(shared_con, TOKEN_ROW, ["6.0-0078", "deepseek-r1", "Offline"])
    assert row["tokens_per_second_per_accelerator"] == pytest.approx(647076 / 72, rel=1e-12)
    assert row["accelerators_per_rack"] == 72
    assert row["tokens_per_second_per_rack"] == pytest.approx(647076 / 72 * 72, rel=1e-12)
    assert row["rack_assumption"].startswith("NVL72")
    assert (row["watts"], row["watts_basis"]) == (1400 * 72, "estimated")
    assert row["tokens_per_joule"] == pytest.approx(647076 / (1400 * 72), rel=1e-12)
    big = one(shared_con, TOKEN_ROW, ["6.0-0076", "deepseek-r1", "Offline"])
    assert big["tokens_per_second_per_rack"] == pytest.approx(2494310 / 288 * 72, rel=1e-12)


def test_tokens_per_dollar_hour_needs_a_loaded_price(shared_con, private_con):
    # Without prices every tokens_per_dollar_hour is null.
    assert shared_con.execute("SELECT count(*) FROM token_economics "
                              "WHERE tokens_per_dollar_hour IS NOT NULL").fetchone()[0] == 0
    # In a private copy: B200 at $5.00 per accelerator-hour. 6.0-0040 (8x B200) deepseek-r1 Offline
    # 57116.9 Tokens/s -> 57116.9 / (5.00 x 8) = 1427.92 tokens/s per $/h (x 3600 = tokens per dollar).
    private_con.execute("INSERT INTO prices VALUES ('B200', 5.0, 'test price')")
    row = one(private_con, TOKEN_ROW, ["6.0-0040", "deepseek-r1", "Offline"])
    assert row["dollars_per_accelerator_hour"] == 5.0
    assert row["tokens_per_dollar_hour"] == pytest.approx(57116.9 / (5.0 * 8), rel=1e-12)
    # GB300 has no price: still null.
    assert one(private_con, TOKEN_ROW, ["6.0-0078", "deepseek-r1", "Offline"])["tokens_per_dollar_hour"] is None


def test_preview_rows_are_kept_and_labelled(shared_con):
    # 6.0-0101 Intel "1-node-4x-BMG-B70", Availability preview, gpt-oss-120b Offline 1536.9 Tokens/s.
    assert record("v6.0", "6.0-0101", "gpt-oss-120b", "Offline")["Performance_Result"] == 1536.9
    row = one(shared_con, TOKEN_ROW, ["6.0-0101", "gpt-oss-120b", "Offline"])
    assert row["verification"] == "preview"
    assert row["tokens_per_second_per_accelerator"] == pytest.approx(1536.9 / 4, rel=1e-12)


def test_no_token_rows_for_non_llm_benchmarks_or_latency(shared_con):
    # resnet (Samples/s, Accuracy "acc: 76.x", no TOKENS_PER_SAMPLE) and the other vision / recommender
    # benchmarks never become tokens, nor do latency results (gptj-99 SingleStream in v4.1 edge).
    assert any(r["Model"] == "resnet" for r in records("v6.0"))
    assert not any("TOKENS_PER_SAMPLE" in (r.get("Accuracy") or "") for name in ("v4.1", "v5.1", "v6.0")
                   for r in records(name) if r["Model"] in ("resnet", "retinanet", "bert-99", "dlrm-v2-99"))
    found = rows(shared_con, "SELECT DISTINCT benchmark FROM token_economics WHERE benchmark IN "
                             "('resnet', 'retinanet', 'bert-99', 'bert-99.9', 'dlrm-v2-99', 'dlrm-v3', "
                             "'3d-unet-99', 'rgat', 'stable-diffusion-xl', 'yolo-95', 'wan-2.2-t2v-a14b')")
    assert found == []
    # whisper Offline is there: its table value is LoadGen's tokens per second (the checker's field),
    # published as "Samples/s"; 6.0-0040 49327.2 tokens/s on 8 B200.
    whisper = one(shared_con, TOKEN_ROW, ["6.0-0040", "whisper", "Offline"])
    assert (whisper["tokens_per_second"], whisper["tokens_derived"]) == (49327.2, False)
    assert rows(shared_con, "SELECT * FROM token_economics WHERE scenario IN ('SingleStream', 'MultiStream')") == []
