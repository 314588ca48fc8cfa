"""Units checked, not trusted (stg_results: published_units, units, unit_verdict, unit_note).

Every case is a real row of ../shared/mlcommons. The rule each case rests on is a row of
warehouse/identity/reference/result_fields.csv: the LoadGen field the round's submission checker reads
(RESULT_FIELD_BENCHMARK_OVERWRITE in mlcommons/inference tools/submission); the run summaries are the
real mlperf_log_summary.txt files of ../shared/mlcommons/trees, re-read here so a typo fails loudly.
"""
from __future__ import annotations

import duckdb
import polars as pl
import pytest

from tests.shared_rows import checker_rows, one, record, rows
from tests.trees_layout import TREES
from warehouse.identity.reference import REFERENCE_DIR, load_reference
from warehouse.views.identities import resolve_identities
from tests.readers import connect_file

ROW = "SELECT * FROM stg_results WHERE metric = 'performance' AND result_id = ? AND benchmark = ? AND scenario = ?"
TOKENS = "SELECT * FROM token_economics WHERE result_id = ? AND benchmark = ? AND scenario = ?"


def summary_line(round_name: str, run_path: str, key: str) -> float:
    text = (TREES / f"inference_results_{round_name}" / run_path / "mlperf_log_summary.txt").read_text()
    found = [line.split(":", 1)[1].strip() for line in text.splitlines() if line.split(":", 1)[0].strip() == key]
    assert len(found) == 1, (key, found)
    return float(found[0])


def rule(benchmark: str, scenario: str, round_from: str) -> dict:
    table = pl.read_csv(REFERENCE_DIR / "result_fields.csv")
    return table.filter((pl.col("benchmark") == benchmark) & (pl.col("scenario") == scenario)
                        & (pl.col("round_from") == round_from)).row(0, named=True)


@pytest.fixture
def trees_con(trees_warehouse):
    connection = connect_file(trees_warehouse, read_only=True)
    yield connection
    connection.close()


def test_neuralmagic_tokens_labelled_samples_are_not_multiplied_again(shared_con):
    # v4.1-0110 NeuralMagic (open; 2x RTX 4090, Llama-2-7b) llama2-70b-99.9 Offline: 1871.84 "Samples/s",
    # accuracy "... TOKENS_PER_SAMPLE: 296.5". The v4.1 checker reads result_tokens_per_second for
    # llama2-70b-99.9 Offline: 1871.84 is tokens/s. Trusting the label made it 1871.84 x 296.5 =
    # 555,000.56 tokens/s, the top row of token_economics, 296.5x too high.
    raw = record("v4.1", "v4.1-0110", "llama2-70b-99.9", "Offline")
    assert (raw["Performance_Result"], raw["Performance_Units"]) == (1871.84, "Samples/s")
    assert raw["Accuracy"].endswith("TOKENS_PER_SAMPLE: 296.5")
    assert rule("llama2-70b-99.9", "Offline", "v4.1")["loadgen_field"] == "result_tokens_per_second"
    row = one(shared_con, ROW, ["v4.1-0110", "llama2-70b-99.9", "Offline"])
    assert (row["published_units"], row["units"], row["unit_verdict"]) == ("Samples/s", "Tokens/s", "corrected")
    assert "result_tokens_per_second" in row["unit_note"] and "published as Samples/s" in row["unit_note"]
    tokens = one(shared_con, TOKENS, ["v4.1-0110", "llama2-70b-99.9", "Offline"])
    assert tokens["tokens_per_second"] == 1871.84 and tokens["tokens_derived"] is False
    assert tokens["tokens_per_second_per_accelerator"] == pytest.approx(1871.84 / 2, rel=1e-12)
    # Its Server row, 1954.36 "Queries/s", is the checker's result_completed_tokens_per_second.
    server = one(shared_con, ROW, ["v4.1-0110", "llama2-70b-99.9", "Server"])
    assert (server["published_units"], server["units"], server["tokens_per_second"]) == ("Queries/s", "Tokens/s", 1954.36)


def test_the_run_summary_shows_the_same_correction(trees_con):
    # open/NeuralMagic/.../offline/performance/run_1/mlperf_log_summary.txt: "Samples per second:
    # 6.31405", "Tokens per second: 1871.84"; 6.31405 x 296.5 tokens per sample = 1872.1, the table's
    # number: tokens/s. The summary, not only the rule, says so.
    row = one(trees_con, ROW, ["v4.1-0110", "llama2-70b-99.9", "Offline"])
    assert summary_line("v4.1", row["run_path"], "Samples per second") == 6.31405
    assert summary_line("v4.1", row["run_path"], "Tokens per second") == 1871.84
    assert 6.31405 * 296.5 == pytest.approx(1871.84, rel=2e-4)
    assert (row["summary_samples_per_second"], row["summary_tokens_per_second"]) == (6.31405, 1871.84)
    assert (row["units"], row["unit_verdict"]) == ("Tokens/s", "corrected")
    assert row["unit_note"] == "published as 1871.84 Samples/s; the run summary prints this number as tokens/s"
    assert one(trees_con, TOKENS, ["v4.1-0110", "llama2-70b-99.9", "Offline"])["tokens_per_second"] == 1871.84


def test_whisper_offline_is_tokens_per_second(shared_con, trees_con):
    # 6.0-0040 Google DGX B200 whisper Offline: 49327.2 "Samples/s". The v5.1 and v6.0 checkers read
    # result_tokens_per_second for whisper Offline; its summary prints "Samples per second: 777.32" and
    # "Tokens per second: 49327.2" (63.46 tokens per transcribed sample).
    raw = record("v6.0", "6.0-0040", "whisper", "Offline")
    assert (raw["Performance_Result"], raw["Performance_Units"]) == (49327.2, "Samples/s")
    assert rule("whisper", "Offline", "v5.1")["counts"] == "tokens"
    row = one(shared_con, ROW, ["6.0-0040", "whisper", "Offline"])
    assert (row["units"], row["unit_verdict"], row["tokens_per_second"]) == ("Tokens/s", "corrected", 49327.2)
    assert row["unit_note"].startswith("published as Samples/s; the v6.0 submission checker reads LoadGen's "
                                       "result_tokens_per_second for whisper Offline")
    summarized = one(trees_con, ROW, ["6.0-0040", "whisper", "Offline"])
    assert summary_line("v6.0", summarized["run_path"], "Samples per second") == 777.32
    assert (summarized["summary_tokens_per_second"], summarized["unit_verdict"]) == (49327.2, "corrected")
    # Every whisper Offline row of v5.1, v6.0 and v6.1 is tokens/s: 37 + 37 + 25 rows (v6.1's summary.csv:
    # 25 whisper Offline rows, every one labelled Samples/s), none left as Samples/s.
    v61 = [r["Units"] for r in checker_rows("v6.1") if (r["MlperfModel"], r["Scenario"]) == ("whisper", "Offline")]
    assert v61 == ["Samples/s"] * 25
    counts = rows(shared_con, "SELECT round, published_units, units, count(*) AS n FROM stg_results "
                              "WHERE benchmark = 'whisper' AND scenario = 'Offline' AND metric = 'performance' "
                              "GROUP BY ALL ORDER BY round")
    assert counts == [{"round": "v5.1", "published_units": "Samples/s", "units": "Tokens/s", "n": 37},
                      {"round": "v6.0", "published_units": "Samples/s", "units": "Tokens/s", "n": 37},
                      {"round": "v6.1", "published_units": "Samples/s", "units": "Tokens/s", "n": 25}]


def test_interactive_tokens_labelled_queries(shared_con):
    # v5.1 5.1-0024 Dell (8x B200) llama3.1-8b Interactive: 102907 "Queries/s". An Interactive run is a
    # LoadGen Server run, for which the v5.1 checker reads result_completed_tokens_per_second; the 8
    # llama3.1-8b Interactive rows of v5.1 all carry the wrong label.
    assert record("v5.1", "5.1-0024", "llama3.1-8b", "Interactive")["Performance_Units"] == "Queries/s"
    assert rule("llama3.1-8b", "Server", "v5.1")["loadgen_field"] == "result_completed_tokens_per_second"
    row = one(shared_con, ROW, ["5.1-0024", "llama3.1-8b", "Interactive"])
    assert (row["units"], row["unit_verdict"], row["tokens_per_second"]) == ("Tokens/s", "corrected", 102907.0)
    labels = rows(shared_con, "SELECT published_units, units, count(*) AS n FROM stg_results WHERE round = 'v5.1' "
                              "AND benchmark = 'llama3.1-8b' AND scenario = 'Interactive' GROUP BY ALL")
    assert labels == [{"published_units": "Queries/s", "units": "Tokens/s", "n": 8}]


def test_a_value_its_summary_contradicts_is_suspect(trees_con):
    # 5.1-0228 GATEOverflow (open) pointpainting SingleStream: 564.018264 ms in the table; its summary's
    # early-stopping 90th percentile is 495947315 ns = 495.947315 ms: 13.7% apart, far past rounding,
    # and neither is a relabelling of the other. No safe correction: suspect, kept, no tokens.
    row = one(trees_con, ROW, ["5.1-0228", "pointpainting", "SingleStream"])
    assert row["value"] == 564.018264 and row["summary_latency_ms"] == pytest.approx(495.947315, rel=1e-12)
    assert (row["unit_verdict"], row["units"]) == ("suspect", "Latency (ms)")
    assert row["unit_note"] == "published as 564.018264 Latency (ms); the run summary prints 495.947315 ms"
    verdicts = rows(trees_con, "SELECT unit_verdict, count(*) AS n FROM stg_results WHERE metric = 'performance' "
                               "GROUP BY ALL ORDER BY 1")
    # v4.1 to v6.0 (2905 performance rows): 87 corrected (5 NeuralMagic, 8 llama3.1-8b Interactive, 74
    # whisper), 2 suspect, the rest (2816) confirmed. v6.1 (492 rows, no tree: the rule alone): its 25
    # whisper Offline rows corrected, the other 467 confirmed by the rule, Tasks/s included (a task is a
    # LoadGen sample; before, "of no known kind": unchecked). 87 + 25 = 112; 2816 + 467 = 3283.
    assert {r["unit_verdict"]: r["n"] for r in verdicts} == {"confirmed": 2816 + 467, "corrected": 87 + 25,
                                                             "suspect": 2}


def test_a_confirmed_row_says_by_what(shared_con, trees_con):
    # 6.0-0078 NVIDIA GB300 NVL72 deepseek-r1 Offline 647076 Tokens/s: the v5.1+ rule reads
    # result_tokens_per_second; the summary prints "Tokens per second: 647076".
    row = one(shared_con, ROW, ["6.0-0078", "deepseek-r1", "Offline"])
    assert (row["unit_verdict"], row["units"], row["tokens_per_second"]) == ("confirmed", "Tokens/s", 647076.0)
    assert row["unit_note"].endswith(", as labelled")
    summarized = one(trees_con, ROW, ["6.0-0078", "deepseek-r1", "Offline"])
    assert summarized["unit_note"] == "the run summary prints 647076.0 tokens/s, as labelled"


@pytest.mark.unit
def test_a_round_no_rule_reaches_is_unchecked_and_keeps_its_label():
    # A v0.4 row (before the first rule, v0.5) with no run summary: unchecked, its label kept, and
    # tokens derived from samples as the label says (nothing says otherwise).
    frame = pl.DataFrame({"round": ["v0.4", "v4.1"], "accelerator_raw": ["NVIDIA H100-SXM-80GB"] * 2,
                          "model": ["llama2-70b-99"] * 2, "used_model": ["llama2-70b-99"] * 2,
                          "scenario": ["Offline"] * 2, "metric": ["performance"] * 2,
                          "value": [10.0, 10.0], "units": ["Samples/s"] * 2, "tokens_per_sample": [300.0] * 2})
    out = resolve_identities(frame, load_reference()).sort("round")
    old, new = out.row(0, named=True), out.row(1, named=True)
    assert (old["unit_verdict"], old["units"], old["tokens_per_second"]) == ("unchecked", "Samples/s", 3000.0)
    assert old["unit_note"] == "no submission-checker rule reaches v0.4 llama2-70b-99 Offline and no run summary is loaded"
    assert (new["unit_verdict"], new["units"], new["tokens_per_second"]) == ("corrected", "Tokens/s", 10.0)


@pytest.mark.unit
def test_a_rule_for_an_unknown_benchmark_is_refused(tmp_path):
    import shutil
    shutil.copytree(REFERENCE_DIR, tmp_path, dirs_exist_ok=True)
    fields = tmp_path / "result_fields.csv"
    fields.write_text(fields.read_text(encoding="utf-8")
                      + "llama9-1t,Offline,v6.1,result_tokens_per_second,tokens,https://example.org/x\n",
                      encoding="utf-8")
    with pytest.raises(ValueError, match="benchmark llama9-1t is not a benchmark of benchmarks.csv"):
        load_reference(tmp_path)


@pytest.mark.unit
def test_an_edited_copy_without_the_rule_table_uses_the_shipped_one(tmp_path):
    # A copy of the reference directory made before result_fields.csv existed still loads.
    import shutil
    shutil.copytree(REFERENCE_DIR, tmp_path, dirs_exist_ok=True)
    (tmp_path / "result_fields.csv").unlink()
    assert load_reference(tmp_path).result_fields.height == load_reference().result_fields.height


def test_a_model_no_benchmark_matches_is_unchecked_and_named_never_corrected(private_con, tmp_path):
    # A round never seen: v6.0's B200 gpt-oss-120b Offline rows of 6.0-0091 (RedHat, vLLM, Tokens/s) as
    # v6.2 would publish a new model, "llama5-900b". The round's default rule (result_fields.csv,
    # benchmark '*': samples per second) is for the benchmarks its checker knows; an unknown model may
    # count tokens, so its Tokens/s stands unchecked, and drift names the model. Before, the default
    # "corrected" it to Samples/s.
    from tests.shared_rows import as_round, load_excerpt
    from warehouse.views import materialize
    source = [r for r in as_round("v6.2", "v6.0") if r["ID"] == "6.2-0091" and r["Model"] == "gpt-oss-120b"]
    assert source and {r["Performance_Units"] for r in source} == {"Tokens/s"}
    renamed = [{**r, "Model": "llama5-900b", "UsedModel": "llama5-900b"} for r in source]
    load_excerpt(private_con, "v6.2", renamed, tmp_path)
    materialize(private_con)
    found = rows(private_con, "SELECT DISTINCT benchmark, published_units, units, unit_verdict FROM stg_results "
                              "WHERE round = 'v6.2' AND metric = 'performance'")
    assert found == [{"benchmark": "llama5-900b", "published_units": "Tokens/s", "units": "Tokens/s",
                      "unit_verdict": "unchecked"}]
    assert rows(private_con, "SELECT kind, term FROM drift WHERE round = 'v6.2' AND kind = 'benchmark'") == [
        {"kind": "benchmark", "term": "llama5-900b"}]
