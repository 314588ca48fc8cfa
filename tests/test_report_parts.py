"""The report's pure parts, without a warehouse or a browser: how an answer is ordered, worded and
linked, where an entry's published page is, and what the interactivity chart says about its x axis."""
from __future__ import annotations

import polars as pl
import pytest

from warehouse.export.report_answer import Answer, Figure, Ranked, assemble, number, order_answers, percent
from warehouse.export.report_charts import _wrapped, fitted_log_scale, interactivity_shows
from warehouse.export.report_data import entry_url, own_replays

pytestmark = pytest.mark.unit

REPOSITORIES = {"v6.0": ("inference_results_v6.0", "main")}


def test_figures_are_written_for_people():
    assert [number(v) for v in (868278.0, 14313.0, 276.565, 15.3, 1.09, 0.0092)] == [
        "868,278", "14,313", "276.6", "15.3", "1.09", "0.0092"]
    assert percent(14313 / 12954.375 - 1) == "10.5%" and percent(None) == ""


def test_the_gap_is_how_much_more_the_best_gives():
    best, second = (Figure("B300", 14313.0, "6.0-0010", "Cisco", 8, ""), Figure("B200", 12954.375, "6.0-0048", "HPE", 8, ""))
    assert Ranked(best, second).gap == pytest.approx(14313 / 12954.375 - 1, rel=1e-12)
    assert Ranked(best).gap is None and Ranked().gap is None


def figures(*rows) -> pl.DataFrame:
    """Long-form figures as answer_frame returns them."""
    columns = ["benchmark", "scenario", "throughput_unit", "measure", "place", "accelerator", "value", "result_id",
               "submitter", "accelerator_count", "basis", "llm"]
    return pl.DataFrame([{**dict(zip(columns, row)), "unpriced_leaders": []} for row in rows],
                        schema_overrides={"unpriced_leaders": pl.List(pl.String)})


def test_answers_are_assembled_and_ordered_llms_first_most_compared_first():
    frame = figures(
        ("whisper", "Offline", "Samples/s", "per_accelerator", 1, "B300", 790.0, "6.0-0098", "X", 8, None, False),
        ("llama3.1-405b", "Server", "Tokens/s", "per_accelerator", 1, "GB300", 259.0, "6.0-0078", "NVIDIA", 72, None, True),
        ("llama2-70b-99", "Server", "Tokens/s", "per_accelerator", 1, "B300", 14313.0, "6.0-0010", "Cisco", 8, None, True),
        ("llama2-70b-99", "Server", "Tokens/s", "per_accelerator", 2, "B200", 12954.375, "6.0-0048", "HPE", 8, None, True),
        ("llama2-70b-99", "Offline", "Tokens/s", "rack_measured", 1, "GB300", 1126850.0, "6.0-0078", "NVIDIA", 72,
         "measured on 72 accelerators", True))
    competitors = pl.DataFrame({"benchmark": ["whisper", "llama3.1-405b", "llama2-70b-99"], "family": [
        "whisper", "llama3.1-405b", "llama2-70b"], "accelerators": [10, 4, 13]})
    built = order_answers(assemble(frame, "v6.0", {"6.0-0010": "https://example.org/cisco"}), competitors)
    assert [(a.benchmark, a.scenario) for a in built] == [
        ("llama2-70b-99", "Offline"), ("llama2-70b-99", "Server"), ("llama3.1-405b", "Server"), ("whisper", "Offline")]
    server = built[1]
    assert server.per_accelerator.best.url == "https://example.org/cisco" and server.per_accelerator.runner_up.url == ""
    assert server.rack_measured == Ranked() and server.rate == "tokens/s"
    offline = built[0]
    assert offline.per_accelerator.best is None and offline.rack_measured.best.basis == "measured on 72 accelerators"
    assert offline.sentence() == ["llama2-70b-99 · Offline: no procurement-grade result this round."]


def test_a_sentence_names_each_figure_by_its_result():
    best = Figure("L4", 1.09, "6.0-0068", "Lenovo", 2, "", None)
    kw = Figure("L4", 15.2, "6.0-0068", "Lenovo", 2, "", "accelerators only")
    answer = Answer("v6.0", "3d-unet-99", "Offline", "Samples/s", False, Ranked(best), Ranked(), Ranked(), Ranked(kw))
    parts = answer.sentence()
    assert "".join(p if isinstance(p, str) else f"[{p.result_id}]" for p in parts) == (
        "3d-unet-99 · Offline: L4 gives the most per accelerator, 1.09 samples/s ([6.0-0068]), the only "
        "accelerator with one; per kW, L4 with 15.2 samples/s (accelerators only, [6.0-0068]).")
    assert [p for p in parts if not isinstance(p, str)] == [best, kw]


def test_an_entry_links_to_its_published_page():
    details = "https://github.com/mlcommons/submissions_inference_v6.0/tree/main/closed/AMD/results/87xMI355X_22xEPYC_9575F"
    assert entry_url(details, "v6.0", "./closed/AMD/results/x/llama2-70b-99/Server", REPOSITORIES) == details
    # no Details: the round repository's folder of the entry, from the published Location
    assert entry_url(None, "v6.0", "./closed/AMD/results/87xMI355X_22xEPYC_9575F/llama2-70b-99/Interactive/"
                     "performance/run_1", REPOSITORIES) == (
        "https://github.com/mlcommons/inference_results_v6.0/tree/main/closed/AMD/results/87xMI355X_22xEPYC_9575F")
    # a round the registry does not list is laid out as every published round is; no folder: the repository
    assert entry_url("", "v7.0", None, REPOSITORIES) == "https://github.com/mlcommons/inference_results_v7.0/tree/main"
    # only a web link is a link
    assert entry_url("javascript:alert(1)", "v6.0", None, REPOSITORIES).startswith("https://github.com/mlcommons/")


def test_a_replay_is_an_entry_set_beside_every_scenario_of_its_model():
    runs = pl.DataFrame([{"run_id": "r1", "label": "h200-c64", "accelerator": "H200 SXM", "accelerator_count": 8,
                          "system": None, "tool": "vllm", "backend": "openai-chat",
                          "benchmarks": ["llama3.1-8b", "llama3.1-8b-edge"], "tokens_per_second": 19840.0,
                          "tokens_per_second_per_accelerator": 2480.0, "tokens_per_second_per_rack": 79360.0,
                          "rack_basis": "extrapolated from 8 accelerators", "tokens_per_second_per_user": 44.4}])
    entries, results = own_replays(runs, 10)
    assert entries[0]["id"] == "your run h200-c64" and entries[0]["system"] == "vllm openai-chat"
    assert [(r[0], r[1], r[2], r[5]) for r in results] == [(10, "llama3.1-8b", "*", 2480.0),
                                                            (10, "llama3.1-8b-edge", "*", 2480.0)]


def test_the_interactivity_caption_says_where_the_pace_comes_from():
    def frame(*sources):
        return pl.DataFrame({"per_user_from": list(sources)}, schema={"per_user_from": pl.String})
    no_replay = pl.DataFrame({"run": []}, schema={"run": pl.String})
    measured = interactivity_shows(frame("run summary", "run summary"), no_replay)
    at_limit = interactivity_shows(frame("the scenario's p99 TPOT limit", "the scenario's p99 TPOT limit"), no_replay)
    mixed = interactivity_shows(frame("run summary", "the scenario's p99 TPOT limit"), pl.DataFrame({"run": ["a", "a"]}))
    assert "each run's measured pace" in measured and "limit" not in measured  # the old "0 of 512 (hollow...)"
    assert "no run summary is loaded" in at_limit and "of 2" not in at_limit
    assert "measured pace for 1 of 2 results; the other 1" in mixed and "your 1 replay(s)" in mixed


def test_a_log_axis_spans_the_data_not_decades():
    # a tenth of the data's log range either side: (11.55 / 0.39) ** 0.1 = 1.403
    scale = fitted_log_scale(pl.Series([0.39, 1.0, 11.55])).to_dict()
    low, high = scale["domain"]
    margin = (11.55 / 0.39) ** 0.1
    assert (low, high) == (pytest.approx(0.39 / margin), pytest.approx(11.55 * margin)) and scale["nice"] is False
    assert 0.1 < low and high < 100  # not the decades 0.1 to 100 the scaling chart spent before


def test_a_long_caption_is_wrapped_not_cut():
    lines = _wrapped("word " * 100, width=50)
    assert all(len(line) <= 50 for line in lines) and " ".join(lines) == ("word " * 100).strip()


def test_log_ticks_put_a_tick_at_or_beyond_each_end():
    from warehouse.export.report_charts import log_ticks
    # 4,000 / 1.15 = 3,478 and 14,000 x 1.15 = 16,100: the 1-2-5 steps around them, 2k to 20k
    assert log_ticks([4000, 14000]) == [2000, 5000, 10000, 20000]
    assert log_ticks([0.5, 2], margin=1) == [0.5, 1, 2]


def test_a_history_line_breaks_where_a_round_skipped_the_part_and_at_an_era_change():
    from warehouse.export.report_charts import _line_ids
    ran = {"resnet": [1, 2, 3, 4, 5]}

    def point(kind, accelerator, era, round_order):
        return {"kind": kind, "benchmark": "resnet", "accelerator": accelerator, "era": era, "round_order": round_order}
    points = [point("part", "T4", "", 1), point("part", "T4", "", 2), point("part", "T4", "", 4),  # round 3 skipped
              point("part", "A100", "", 2), point("part", "A100", "v2", 3),                       # a new era
              point("frontier", "T4", "", 1), point("frontier", "A100", "", 3)]                  # one record line
    assert _line_ids(points, ran) == ["part|resnet|T4|0", "part|resnet|T4|0", "part|resnet|T4|1",
                                      "part|resnet|A100|0", "part|resnet|A100|1",
                                      "frontier|resnet|False|0", "frontier|resnet|False|0"]


def test_a_light_shade_is_darkened_in_its_hue_until_it_reads_as_text():
    from warehouse.export.report_interactive import ACCELERATOR_COLOURS, contrast_on_white, readable_on_white
    # WCAG 2: white 1, black 21; Vega's tableau blue #4c78a8 already reads (4.61), its light #9ecae9 does not (1.74)
    assert contrast_on_white("#ffffff") == pytest.approx(1) and contrast_on_white("#000000") == pytest.approx(21)
    assert round(contrast_on_white("#4c78a8"), 2) == 4.61 and readable_on_white("#4c78a8") == "#4c78a8"
    assert round(contrast_on_white("#9ecae9"), 2) == 1.74
    # mixed toward black 5 % a step: 0x9e x 0.6 = 94.8 -> 0x5f; 0xca x 0.6 = 121.2 -> 0x79; 0xe9 x 0.6 = 139.8 -> 0x8c
    assert readable_on_white("#9ecae9") == "#5f798c"
    assert all(contrast_on_white(readable_on_white(c)) >= 4.5 for c in ACCELERATOR_COLOURS)
