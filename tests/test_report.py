"""The report, rendered in headless Chromium (Debian's `chromium`; .ci/run installs it), as a buyer
reads it: the first screen (1400 x 900) holds the newest round's answer table, llama2-70b-99 Server
in it with its result IDs, links and a per-rack figure marked measured or estimated; a results table
sorts, filters and pages; two entries (or an entry and your replay) compare with their deltas; a
filter leaves fewer marks and a shorter chart; the page makes no network request. Then the charts:
every one drew, per rack says measured or estimated on every mark, the leaderboard ranks per
accelerator, gains diverge around 1.0, an accelerator keeps its colour, the claims are a table
graded by colour.

The screenshots are left in build/report-screenshots/ of the checkout for a reviewer (`make report`
prints the path)."""
from __future__ import annotations

import json
import re
import shutil

import polars as pl
import pytest
from PIL import Image

from tests.bi_warehouse import claims_warehouse  # noqa: F401 - a fixture
from tests.conftest import ROOT
from tests.shared_rows import checker_row, checker_rows, published
from warehouse.export.output_dirs import OutputDirRefused
from warehouse.export.outputs import publish_after_load
from warehouse.export.report import GRADE_COLOURS, render_report
from warehouse.export.report_interactive import GREY, OTHER_PARTS, SHADE
from warehouse.identity.rounds import load_registry
from warehouse.ingest.pipeline import RoundOutcome
from warehouse.store import db

# Every test here drives the written page in Chromium after the report is built (~50 s):
# `make test-slow` (CI runs it).
pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Without these Chromium reaches for the network (updates, sync, field trials) and gets refused.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SCREEN = {"width": 1400, "height": 900}
SCREENSHOTS = ROOT / "build" / "report-screenshots"
CHARTS = ["interactivity", "leaderboard", "token_economics", "software_gains", "accelerator_history",
          "efficiency_history", "generation_speedups", "scaling_efficiency"]
# The marks of a drawn chart from its Vega scenegraph: datum, position on the page's chart and fill.
MARKS_JS = """([name, type]) => {
  const found = [];
  const visit = (mark, dx, dy) => {
    for (const item of mark.items || []) {
      if (mark.marktype === type && mark.role === "mark" && item.datum)
        found.push({datum: item.datum, x: dx + (item.x || 0), y: dy + (item.y || 0), fill: item.fill || null,
                    opacity: item.opacity === undefined ? 1 : item.opacity});
      if (mark.marktype === "group")
        for (const child of item.items || []) visit(child, dx + (item.x || 0), dy + (item.y || 0));
    }
  };
  visit(window.reportViews[name].scenegraph().root, 0, 0);
  return found;
}"""
ROW_IDS_JS = "rows => rows.map(r => r.dataset.resultId)"


@pytest.fixture(scope="module")
def report(claims_warehouse, tmp_path_factory):
    """Export and report as the scheduled flow regenerates them after a load that changed something."""
    out = tmp_path_factory.mktemp("published")
    loaded = [RoundOutcome("v6.0", "unchanged"), RoundOutcome("v6.1", "loaded")]
    with db.connect(claims_warehouse, read_only=True) as con:
        render_report(con, out / "report", images=True)  # asked for once: each regeneration keeps them
    assert publish_after_load([RoundOutcome("v6.0", "unchanged")], claims_warehouse, out / "bi", out / "report") is None
    published_outputs = publish_after_load(loaded, claims_warehouse, out / "bi", out / "report")
    assert (published_outputs.export_dir / "manifest.json").is_file()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return published_outputs.report_page


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium for the module; each test opens its own page of the report."""
    from playwright.sync_api import sync_playwright
    assert shutil.which(CHROMIUM), f"{CHROMIUM} not found: apt-get install -y chromium (.ci/run does)"
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
            viewport=SCREEN, device_scale_factor=1)
        yield context
        context.close()


def open_report(browser, report):
    """The page with every chart and table drawn, the requests it made (every one recorded, any but
    the page itself refused) and the script errors it raised."""
    page = browser.new_page()
    requests, blocked, errors = [], [], []
    page.on("request", lambda request: requests.append(request.url))
    page.on("pageerror", lambda error: errors.append(str(error)))

    def only_the_page(route):
        if route.request.url == report.as_uri():
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()
    page.route("**/*", only_the_page)
    page.goto(report.as_uri(), wait_until="networkidle")
    page.wait_for_function("document.body.dataset.charts && document.body.dataset.tables", timeout=60_000)
    assert page.evaluate("[document.body.dataset.charts, document.body.dataset.tables]") == ["ready", "ready"]
    return page, requests, blocked, errors


def marks(page, chart: str, marktype: str) -> list[dict]:
    return page.evaluate(MARKS_JS, [chart, marktype])


def spec_of(report, chart: str) -> dict:
    html = report.read_text(encoding="utf-8")
    found = re.search(f'<script type="application/json" id="spec-{chart}">(.*?)</script>', html, re.DOTALL)
    return json.loads(found.group(1))


def spec_rows(spec: dict) -> list[dict]:
    return next(iter(spec["datasets"].values()))


def ink(image: Image.Image, box: dict) -> float:
    """Share of the pixels in `box` that are not white."""
    region = image.crop((int(box["x"]), int(box["y"]), int(box["x"] + box["width"]),
                         int(box["y"] + box["height"]))).convert("L")
    histogram = region.histogram()
    return 1 - sum(histogram[250:]) / sum(histogram)


@pytest.fixture(scope="module")
def first_screen(browser, report):
    """The page as it opens at 1400 x 900: the screenshot of what is on screen, and the answer
    table's row for gpt-oss-120b Server (its box and each cell's text and links)."""
    page, requests, blocked, errors = open_report(browser, report)
    shot = SCREENSHOTS / "first-screen.png"
    page.screenshot(path=str(shot))  # the viewport only: what a buyer sees before scrolling
    row = page.locator("#answer-table tr[data-benchmark='gpt-oss-120b'][data-scenario='Server']")
    facts = {"table": page.locator("#answer-table").bounding_box(), "row": row.bounding_box(),
             "cells": row.locator("td.figure").all_inner_texts(),
             "links": row.locator("td.figure a").evaluate_all("links => links.map(a => [a.textContent, a.href])"),
             "first_rows": page.eval_on_selector_all("#answer-table tbody tr", "rows => rows.slice(0, 3).map("
                                                     "r => [r.dataset.benchmark, r.dataset.scenario])"),
             "heading": page.locator("#answer h2").inner_text()}
    page.close()
    return {"shot": shot, "requests": requests, "blocked": blocked, "errors": errors, **facts}


# v6.1 gpt-oss-120b Server as its checker table (summary.csv) publishes it (v6.1 has no other table):
# CoreWeave's GB300 NVL72 rack 6.1-0025, HPE's 8 B300 6.1-0052 and NVIDIA's 8 GB300 6.1-0075
GB300_RACK = ("v6.1", "CoreWeave", "GB300-NVL72_GB300-288GB_aarch64x72_TRT", "gpt-oss-120b", "Server")
B300_X8 = ("v6.1", "HPE", "HPE_XD690_B300_SXM_270GBx8_TRT", "gpt-oss-120b", "Server")
GB300_X8 = ("v6.1", "NVIDIA", "GB300-NVL72_GB300-288GB_aarch64x8_TRT", "gpt-oss-120b", "Server")


def checker_result(row: tuple) -> float:
    return float(checker_row(*row)["Result"])


def test_the_first_screen_is_the_newest_rounds_answer(first_screen):
    # gpt-oss-120b Server in v6.1, by hand from the published rows:
    #   per accelerator: CoreWeave GB300 NVL72 6.1-0025 1160490 / 72 = 16117.9; runner-up HPE B300
    #     6.1-0052 113685 / 8 = 14210.6 (16117.9 / 14210.6 - 1 = 13.4%);
    #   per rack, measured: the same GB300 NVL72 6.1-0025, 1160490 on 72 (a rack holds 72);
    #   per rack, estimated: the B300's 14210.625 x 32 a rack = 454740, extrapolated from 8.
    rack, b300 = checker_result(GB300_RACK), checker_result(B300_X8)
    assert (rack, b300) == (1160490, 113685)
    image = Image.open(first_screen["shot"])
    assert image.size == (1400, 900)
    assert first_screen["heading"].startswith("The answer for v6.1")
    assert first_screen["first_rows"][0] == ["gpt-oss-120b", "Offline"]  # LLMs first, the most compared first
    row = first_screen["row"]
    assert row["y"] >= 0 and row["y"] + row["height"] <= 900, "gpt-oss-120b Server is below the first screen"
    assert ink(image, row) > 0.05
    per_accelerator, measured, estimated, per_kw = first_screen["cells"]
    assert per_accelerator.startswith(f"GB300 {rack / 72:,.0f} tokens/s per accelerator") and "6.1-0025" in per_accelerator
    assert f"{(rack / 72) / (b300 / 8) - 1:.1%} more than B300, {b300 / 8:,.0f} (6.1-0052)" in per_accelerator
    assert measured.startswith(f"GB300 {rack:,.0f} tokens/s per rack") and "\nmeasured on 72 accelerators\n" in measured
    assert estimated.startswith(f"B300 {b300 / 8 * 32:,.0f} tokens/s per rack") and \
        "\nestimated extrapolated from 8 accelerators\n" in estimated
    assert "power: system estimate" in per_kw
    # v6.1 publishes no Details link: the entry's folder of the round's repository, from its Location
    repository = load_registry()["v6.1"]
    folder = "/".join(checker_row(*GB300_RACK)["Location"].removeprefix("./").split("/")[:4])
    assert dict(first_screen["links"])["6.1-0025"] == \
        f"https://github.com/mlcommons/{repository.repository}/tree/{repository.branch}/{folder}"


def test_the_page_made_no_network_request_and_raised_no_error(first_screen, report):
    assert first_screen["requests"] == [report.as_uri()]
    assert first_screen["blocked"] == [] and first_screen["errors"] == []


def test_every_answer_has_a_sentence_naming_its_figures(browser, report):
    page, *_ = open_report(browser, report)
    sentence = page.locator("#answer-sentences li[data-benchmark='gpt-oss-120b'][data-scenario='Server']").inner_text()
    page.close()
    rack = checker_result(GB300_RACK)  # 1160490 on 72: 16117.9 each
    assert sentence.startswith(f"gpt-oss-120b · Server: GB300 gives the most per accelerator, {rack / 72:,.0f} tokens/s (6.1-0025)")
    assert f"the best measured rack is GB300, {rack:,.0f} tokens/s (measured on 72 accelerators, 6.1-0025" in sentence


def test_sorting_a_table_changes_its_order(browser, report):
    page, *_ = open_report(browser, report)
    before = page.eval_on_selector_all("#results-table tbody tr", ROW_IDS_JS)
    page.click("#results-table th[data-key=per_rack]")
    after = page.eval_on_selector_all("#results-table tbody tr", ROW_IDS_JS)
    racks = column_texts(page, "per_rack")
    page.click("#results-table th[data-key=per_rack]")
    ascending = page.eval_on_selector_all("#results-table tbody tr", ROW_IDS_JS)
    sort = page.get_attribute("#results-table th[data-key=per_rack]", "aria-sort")
    page.close()
    # It opens on the newest round's first answer with a Server row, gpt-oss-120b Server, by result per
    # accelerator: GB300 6.1-0025 first (1160490 / 72 = 16117.9); by per rack, that measured NVL72 rack
    # (1160490), then the rack estimated from NVIDIA's 8 GB300 (128173 / 8 x 72 = 1153557)
    assert checker_result(GB300_RACK) > checker_result(GB300_X8) / 8 * 72 == 1153557
    assert before[0] == "6.1-0025" and after[:2] == ["6.1-0025", "6.1-0075"] and after != before
    values = [float(v.replace(",", "")) for v in racks if v]
    assert values == sorted(values, reverse=True)
    assert ascending != after and sort == "ascending"


def column_texts(page, key: str) -> list[str]:
    """The cells of the results table's column `key`, top to bottom."""
    return page.evaluate("""key => {
      const index = Array.from(document.querySelectorAll('#results-table th')).findIndex(th => th.dataset.key === key);
      return Array.from(document.querySelectorAll('#results-table tbody tr')).map(r => r.children[index].textContent);
    }""", key)


def test_the_results_table_filters_and_pages(browser, report):
    page, *_ = open_report(browser, report)
    first = page.eval_on_selector_all("#results-table tbody tr", ROW_IDS_JS)
    count = page.inner_text("#results-pager .count")
    page.click("#results-pager button[name=next]")
    second = page.eval_on_selector_all("#results-table tbody tr", ROW_IDS_JS)
    page.select_option("select[name=results_accelerator]", "GB300")
    accelerators = column_texts(page, "accelerator")
    header = page.eval_on_selector_all("#results-table th", "ths => ths.map(th => th.dataset.key)")
    page.close()
    # v6.1 publishes 53 gpt-oss-120b Server rows (all closed, available, Tokens/s): a page of 20, then
    # 20, then 13
    published_rows = [r for r in checker_rows("v6.1") if (r["MlperfModel"], r["Scenario"]) == ("gpt-oss-120b", "Server")]
    assert len(published_rows) == 53
    assert len(first) == 20 and count == "rows 1–20 of 53 · page 1 of 3" and set(first).isdisjoint(second)
    assert "benchmark" not in header and "scenario" not in header  # the filters above name them
    assert accelerators and all(a.startswith("GB300 ×") for a in accelerators) and len(accelerators) < 20


def choose(page, name: str, starting: str) -> None:
    label = page.eval_on_selector(f"select[name={name}]", "(s, start) => Array.from(s.options).find("
                                  "o => o.textContent.startsWith(start)).textContent", starting)
    page.select_option(f"select[name={name}]", label=label)


def compare_rows(page) -> dict[tuple[str, str], list[str]]:
    rows = page.eval_on_selector_all("#compare-table tbody tr", "rows => rows.map(r => [r.dataset.key, "
                                     "...Array.from(r.querySelectorAll('td')).map(c => c.textContent)])")
    return {(key, measure): values for key, measure, *values in rows}


def test_comparing_two_entries_shows_their_deltas(browser, report):
    page, *_ = open_report(browser, report)
    choose(page, "compare_a", "6.0-0075")  # NVIDIA GB200 NVL72
    choose(page, "compare_b", "6.0-0078")  # NVIDIA GB300 NVL72
    found = compare_rows(page)
    page.locator("#compare").screenshot(path=str(SCREENSHOTS / "compare.png"))
    page.close()
    # llama2-70b-99 Server: 868278 / 810104 = 1.0718 (+7.2%); per kW on the system estimate:
    # GB200 NVL72 120 kW, GB300 NVL72 132 kW: (868278 / 132) / (810104 / 120) = 0.9743 (-2.6%)
    a = published("v6.0", "6.0-0075", "llama2-70b-99", "Server")
    b = published("v6.0", "6.0-0078", "llama2-70b-99", "Server")
    key = "llama2-70b-99 · Server"
    assert found[(key, "performance, whole system (tokens/s)")] == [
        f"{a:,.0f}", f"{b:,.0f}", f"+{(b / a - 1) * 100:.1f}% (×{b / a:.2f})"]
    assert found[(key, "per rack")][:2] == [f"{a:,.0f} (measured)", f"{b:,.0f} (measured)"]
    efficiency = (b / 132) / (a / 120)
    assert found[(key, "efficiency, tokens/s per kW (system estimate)")][2] == \
        f"−{(1 - efficiency) * 100:.1f}% (×{efficiency:.2f})"
    assert found[(key, "power, watts (system estimate)")][:2] == ["120,000", "132,000"]


def test_an_entry_compares_with_your_replay(browser, report, claims_warehouse):
    with db.connect(claims_warehouse, read_only=True) as con:
        run = con.execute("SELECT label, tokens_per_second_per_accelerator FROM own_runs").fetchall()[0]
    page, *_ = open_report(browser, report)
    choose(page, "compare_a", f"your run {run[0]}")
    choose(page, "compare_b", "6.0-0006")  # ASUSTeK B300 x8, which ran llama3.1-8b
    found = compare_rows(page)
    page.close()
    per_accelerator = {key: values for (key, measure), values in found.items() if measure == "performance per accelerator"}
    assert "llama3.1-8b · Server" in per_accelerator and "llama3.1-8b · Offline" in per_accelerator
    mlperf = published("v6.0", "6.0-0006", "llama3.1-8b", "Server") / 8
    assert per_accelerator["llama3.1-8b · Server"][:2] == [f"{run[1]:,.0f}", f"{mlperf:,.0f}"]


def test_a_filter_shows_fewer_marks_and_a_shorter_chart(browser, report):
    page, *_ = open_report(browser, report)
    before = marks(page, "leaderboard", "rect")
    height = page.locator("#chart-leaderboard svg").bounding_box()["height"]
    page.select_option("#chart-leaderboard select[name=filter_accelerator]", label="GB300")
    page.wait_for_function("n => document.querySelectorAll('#chart-leaderboard g.role-mark.mark-rect path').length < n",
                           arg=len(before), timeout=10_000)
    after = marks(page, "leaderboard", "rect")
    shorter = page.locator("#chart-leaderboard svg").bounding_box()["height"]
    page.locator("#section-leaderboard").screenshot(path=str(SCREENSHOTS / "filtered-leaderboard.png"))
    page.close()
    assert 0 < len(after) < len(before) and {m["datum"]["accelerator"] for m in after} == {"GB300"}
    assert shorter < 0.8 * height


def test_every_chart_drew_once_titled(browser, report):
    page, *_ = open_report(browser, report)
    shot = SCREENSHOTS / "full-page.png"
    page.screenshot(path=str(shot), full_page=True)
    boxes = {e.get_attribute("data-chart"): e.query_selector("svg").bounding_box()
             for e in page.query_selector_all("figure.chart")}
    titles = page.eval_on_selector_all("h2", "hs => hs.map(h => h.textContent)")
    page.close()
    assert list(boxes) == CHARTS
    image = Image.open(shot)
    for name, box in boxes.items():
        assert box["width"] > 200 and box["height"] > 100, name
        assert box["x"] + box["width"] <= 1400, f"{name} is wider than the page: it would be drawn scaled down"
        assert ink(image, box) > 0.02, f"{name} is blank in the screenshot"
        assert "title" not in spec_of(report, name), f"{name} repeats its title inside the chart"
    assert len(titles) == len(set(titles))
    assert ink(image, {"x": 2, "y": 200, "width": 8, "height": 600}) == 0  # the margin is blank: the measure can tell


def test_every_chart_says_which_rows_and_rounds(browser, report):
    page, *_ = open_report(browser, report)
    shows = dict(page.eval_on_selector_all(
        "section.chart-section", "ss => ss.map(s => [s.id.replace('section-', ''), s.querySelector('p.shows').textContent])"))
    page.close()
    assert list(shows) == CHARTS
    for text in shows.values():
        assert "rounds:" in text and "verified" in text, text
    assert "v4.1, v5.1, v6.0" in shows["software_gains"]
    assert "preview" in shows["generation_speedups"]
    assert "opens on round v6.1, Server" in shows["leaderboard"]
    # the shared warehouse has no run summaries: every MLPerf point stands at its scenario's limit
    assert "no run summary is loaded" in shows["interactivity"] and " 0 of " not in shows["interactivity"]
    assert "crosses: your 1 replay(s)" in shows["interactivity"]


def test_every_per_rack_mark_says_measured_or_estimated(browser, report):
    page, *_ = open_report(browser, report)
    bars = [m for m in marks(page, "token_economics", "rect") if m["datum"]["panel"] == "per_rack"]
    page.close()
    assert bars
    for bar in bars:
        basis = bar["datum"]["rack"]
        assert bar["datum"]["bar"].endswith(" · measured") if basis == "measured" else \
            re.search(r" · estimated from \d+$", bar["datum"]["bar"]), bar["datum"]
        assert bar["opacity"] == (1 if basis == "measured" else 0.4)
    assert {b["datum"]["rack"] for b in bars} == {"measured", "estimated"}


def test_the_leaderboard_ranks_entries_per_accelerator(browser, report):
    spec = spec_of(report, "leaderboard")
    assert spec["encoding"]["x"]["field"] == "per_accelerator" and spec["encoding"]["y"]["sort"] == "-x"
    page, *_ = open_report(browser, report)
    bars = marks(page, "leaderboard", "rect")
    page.close()
    assert {(b["datum"]["round"], b["datum"]["scenario"]) for b in bars} == {("v6.1", "Server")}
    gpt = sorted((b for b in bars if b["datum"]["benchmark"] == "gpt-oss-120b"), key=lambda b: b["y"])
    values = [b["datum"]["per_accelerator"] for b in gpt]
    assert values == sorted(values, reverse=True) and len(values) == 8
    # first: CoreWeave's GB300 NVL72 (1160490 / 72 = 16117.9 a GPU); then NVIDIA's 8 GB300 (128173 / 8 =
    # 16021.6) above Nebius' 72-GPU rack (1122490 / 72 = 15590.1), whose throughput is 8.8 times theirs
    nebius_rack = ("v6.1", "Nebius", "GB300-NVL72_GB300-288GB_aarch64x72_TRT", "gpt-oss-120b", "Server")
    assert checker_result(GB300_X8) / 8 > checker_result(nebius_rack) / 72
    data = [b["datum"] for b in gpt]
    assert [(d["result_id"], d["accelerator_count"]) for d in data[:2]] == [("6.1-0025", 72), ("6.1-0075", 8)]
    nebius = next(d for d in data if d["result_id"] == "6.1-0080")
    assert nebius["accelerator_count"] == 72 and data[1]["system_result"] < nebius["system_result"] / 5


def test_the_interactivity_chart_shapes_stacks_and_shows_your_replay(browser, report):
    spec = spec_of(report, "interactivity")
    page, *_ = open_report(browser, report)
    points = marks(page, "interactivity", "symbol")
    page.close()
    stacks = {p["datum"]["stack"] for p in points}
    assert {"TensorRT", "your replay"} <= stacks
    replay = [p for p in points if p["datum"]["source"] == "your replay"]
    assert replay and {p["datum"]["benchmark"] for p in replay} == {"llama3.1-8b"}
    assert {p["datum"]["round"] for p in points if p["datum"]["source"] == "MLPerf"} == {"v6.1"}
    panels = [panel for row in spec["vconcat"] for panel in row["hconcat"]]
    shape = panels[0]["layer"][-1]["encoding"]["shape"]
    assert shape["field"] == "stack" and "your replay" in shape["scale"]["domain"]
    # a panel per benchmark of the round it opens on, each with axes of its own whose ends are ticks
    for panel in panels:
        y = panel["layer"][-1]["encoding"]["y"]
        assert y["scale"]["domain"] == [y["axis"]["values"][0], y["axis"]["values"][-1]]


def test_axes_fit_the_data(report):
    # scaling efficiency: the bulk of the procurement-grade ratios (2nd to 98th percentile, never less than
    # 0.5-1.25, out to the next 1-2-5 tick), the few beyond it drawn at the edge and labelled with their
    # value; a preview never sets the scale (issue 63: v2.1's preview 351.48x owned the top edge)
    spec = spec_of(report, "scaling_efficiency")
    points = next(layer for layer in spec["layer"] if layer["mark"]["type"] == "point")
    rows = spec_rows(spec)
    low, high = points["encoding"]["y"]["scale"]["domain"]
    assert low <= 0.5 and high >= 1.25 and points["encoding"]["y"]["field"] == "shown"
    for row in rows:
        assert row["shown"] == min(max(row["efficiency"], low), high)
        assert row["clipped"] == (not low <= row["efficiency"] <= high)
    verified = pl.Series([r["efficiency"] for r in rows if r["verification"] == "verified"])
    ticks = [m * 10 ** e for e in (-1, 0, 1) for m in (1, 2, 5)]
    assert high == min(t for t in ticks if t >= max(1.25, verified.quantile(0.98)))
    assert low == max(t for t in ticks if t <= min(0.5, verified.quantile(0.02)))


def test_tick_labels_are_figures_by_the_fields_range(browser, report):
    # Issue 63: tokens per joule read "500m" (.2~s) and "1e+1"; compact units only from 1,000 on
    from warehouse.export.report_charts import COMPACT, PLAIN, tick_format
    assert tick_format([0.05, 0.17]) == tick_format(pl.Series([2.5, 8.0])) == PLAIN
    assert tick_format([200, 1_200_000]) == COMPACT
    page, *_ = open_report(browser, report)
    labels = page.locator("#chart-token_economics g.role-axis-label text").all_text_contents()
    page.close()
    assert labels and not [t for t in labels if re.search(r"\d(m|µ|e[+-]\d)", t)]
    assert {"0.05", "10"} <= set(labels)  # v5.1 B200 llama3.1-405b, 0.17 tokens/J; llama3.1-8b's 15


def test_hovering_a_mark_shows_the_rows_identity(browser, report):
    page, *_ = open_report(browser, report)
    page.locator("#chart-leaderboard g.role-mark.mark-rect path").first.hover()
    tooltip = page.locator("#vg-tooltip-element")
    tooltip.wait_for(state="visible", timeout=5_000)
    text = tooltip.inner_text()
    page.close()
    for label in ("submitter", "system", "result id", "round", "benchmark", "scenario", "per accelerator",
                  "whole system"):
        assert label in text, (label, text)
    assert re.search(r"6\.1-\d{4}", text)  # an entry of the round the chart opens on


def test_claims_are_a_table_graded_by_colour(browser, report, claims_warehouse):
    with db.connect(claims_warehouse, read_only=True) as con:
        grades = sorted(g for (g,) in con.execute("SELECT grade FROM claim_audit WHERE grade IS NOT NULL").fetchall())
        due = con.execute("SELECT count(*) FROM decisions_due").fetchall()[0][0]
    page, *_ = open_report(browser, report)
    cells = page.eval_on_selector_all("#table-claim_audit td.coloured",
                                      "cells => cells.map(c => [c.textContent, getComputedStyle(c).backgroundColor])")
    due_rows = page.eval_on_selector_all("#table-decisions_due tbody tr", "rows => rows.length")
    page.close()
    assert sorted(text for text, _ in cells) == grades and {"understated", "unsupported"} <= set(grades)
    for text, colour in cells:
        r, g, b = (int(GRADE_COLOURS[text][i:i + 2], 16) for i in (1, 3, 5))
        assert colour == f"rgb({r}, {g}, {b})", text
    assert due == 1 and due_rows == due
    assert 'id="spec-claim_audit"' not in report.read_text(encoding="utf-8")  # a table, not a stacked bar


def test_the_decisions_table_writes_a_yes_or_no_as_every_output_does(report):
    # Issue 63: its `flagged` column said "False" where the terminal, the exports and the decision
    # records say false.
    table = report.read_text(encoding="utf-8").split('id="table-decisions_due"', 1)[1].split("</table>", 1)[0]
    said = re.findall(r"<td>(?:<span class=\"w\">)?(true|false|True|False)(?:</span>)?</td>", table)
    assert said and set(said) <= {"true", "false"}


@pytest.mark.parametrize("width", [1400, 1000])
def test_the_claims_table_breaks_at_spaces_only(browser, report, width):
    """Issue 63: 'gener ation_ speed up', 'unsup ported' and claim IDs over six lines; now a word (a
    claim ID, a kind, a grade) stays on one line at 1400 and 1000 px, the table scrolling in its section."""
    from tests.report_screenshots import broken_words
    page, *_ = open_report(browser, report)
    page.set_viewport_size({"width": width, "height": 900})
    ids = page.locator("#table-claim_audit tbody td:first-child").all_inner_texts()
    kinds = set(page.locator("#table-claim_audit tbody td:nth-child(3)").all_inner_texts())
    broken = broken_words(page)
    page.close()
    assert ids and all(len(i.split()) == 1 for i in ids)  # an ID is one word: on one line when no word breaks
    assert kinds & {"generation_speedup", "software_gain"}, kinds  # the words issue 63 saw cut
    assert broken == []


def test_charts_are_written_as_png_and_svg_with_their_titles(report):
    charts = report.parent / "charts"
    for name in CHARTS:
        png = Image.open(charts / f"{name}.png")
        assert png.width > 300 and png.height > 150, name
        svg = (charts / f"{name}.svg").read_text(encoding="utf-8")
        assert svg.startswith("<svg") and "rounds:" in svg, name  # the caption, for slides read alone


def test_the_runtime_is_inlined_once_and_nothing_is_fetched(report):
    html = report.read_text(encoding="utf-8")
    assert html.count("window.vegaEmbed=") == 1  # one runtime for every chart
    assert not re.search(r"<script[^>]*\bsrc=|<link\b|@import|<iframe", html)
    assert re.search(r"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline';", html)
    assert html.count('<script type="application/json"') == len(CHARTS) + 1  # a spec per chart and the rows


def test_a_report_drawn_again_reuses_its_images(claims_warehouse, tmp_path, monkeypatch):
    import vl_convert
    drawn = []
    draw = vl_convert.vegalite_to_svg
    monkeypatch.setattr(vl_convert, "vegalite_to_svg", lambda spec: drawn.append(spec) or draw(spec))
    out = tmp_path / "again"
    with db.connect(claims_warehouse, read_only=True) as con:
        render_report(con, tmp_path / "page-only")
        assert drawn == [] and not (tmp_path / "page-only" / "charts").exists()  # not asked for
        render_report(con, out, images=True)
        first = {p.name: p.read_bytes() for p in (out / "charts").iterdir()}
        assert len(drawn) == len(CHARTS)
        render_report(con, out)  # the same rows: every image kept, copied from the previous report
        assert len(drawn) == len(CHARTS)
    assert {p.name: p.read_bytes() for p in (out / "charts").iterdir()} == first


def test_a_warehouse_with_no_rows_reports_that_it_has_none(tmp_path):
    from warehouse.views import materialize
    with db.connect(str(tmp_path / "empty.duckdb")) as con:
        materialize(con)
        page = render_report(con, tmp_path / "report", images=True)
    html = page.read_text(encoding="utf-8")
    assert html.count('class="empty"') == len(CHARTS) + 2 + 2  # the charts, the two tables, the verdict, the answer
    verdict = html.split('id="verdict"', 1)[1].split("</section>", 1)[0]
    assert '<p class="empty">no procurement-grade result in the newest round</p>' in verdict
    assert "window.vegaEmbed=" not in html  # no chart, no runtime
    assert "no claims loaded: mlperf-wh claims load FILE" in html
    assert [p.name for p in (tmp_path / "report" / "charts").iterdir()] == ["drawn-from.json"]
    # a directory that is not a report is never replaced
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with db.connect(str(tmp_path / "empty.duckdb"), read_only=True) as con, pytest.raises(OutputDirRefused):
        render_report(con, tmp_path / "mine")
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_a_rounds_note_joins_what_changed_and_its_unknown_columns():
    from warehouse.export.run_report import _note
    loaded = RoundOutcome("v6.0", "loaded", 3, 3, 0, unknown_columns=["Brand New Column"])
    assert _note(loaded) == "unknown columns: Brand New Column"  # no change recorded
    loaded.change_summary = "first load: 3 results"
    assert _note(loaded) == "first load: 3 results; unknown columns: Brand New Column"
    assert _note(RoundOutcome("v6.0", "loaded", 3, 3, 0, change_summary="first load: 3 results")) == \
        "first load: 3 results"


def test_gains_are_small_multiples_coloured_by_direction(browser, report):
    # Issue 63: the heatmap's numbers were a few pixels high; now a panel per benchmark, a dot per part
    # and pair of rounds on a log axis of the gain, blue faster, red slower (never "no change")
    from warehouse.export.report_charts import DIRECTION_COLOURS
    spec = spec_of(report, "software_gains")
    assert spec["facet"]["field"] == "benchmark" and spec["spec"]["layer"][1]["encoding"]["x"]["scale"]["type"] == "log"
    page, *_ = open_report(browser, report)
    dots = marks(page, "software_gains", "symbol")
    page.close()
    slower = {d["fill"] for d in dots if d["datum"]["gain"] < 0.9}
    faster = {d["fill"] for d in dots if d["datum"]["gain"] > 1.3}
    assert slower == {DIRECTION_COLOURS["slower"]} and faster == {DIRECTION_COLOURS["faster"]}


def test_an_accelerator_has_one_colour_on_every_chart(browser, report):
    # the leaderboard colours every part; a chart that colours only the parts it leads with maps each
    # of them as the leaderboard does, and every other part grey
    full = find_accelerator_scale(spec_of(report, "leaderboard"))
    colour_of = dict(zip(full["domain"], full["range"]))
    for name in ("scaling_efficiency", "interactivity"):
        scale = find_accelerator_scale(spec_of(report, name))
        assert scale is not None and scale["domain"][-1] == OTHER_PARTS, name
        assert [colour_of.get(d, GREY) for d in scale["domain"][:-1]] + [GREY] == scale["range"], name
    page, *_ = open_report(browser, report)
    drawn = {"leaderboard": marks(page, "leaderboard", "rect"), "token_economics": marks(page, "token_economics", "rect"),
             "scaling_efficiency": marks(page, "scaling_efficiency", "symbol")}
    page.close()
    colours = {}
    for found in drawn.values():
        for mark in found:  # a part a chart does not lead with is grey there (at most 8 coloured a chart)
            if mark["fill"] != GREY:
                colours.setdefault(mark["datum"]["accelerator"], set()).add(mark["fill"])
    assert all(len(fills) == 1 for fills in colours.values()), colours
    assert len({next(iter(f)) for f in colours.values()}) == len(colours)  # and two accelerators never share one
    assert {"GB300", "B200"} <= set(colours)


def find_accelerator_scale(spec):
    """The scale of the first colour channel over the accelerator field, anywhere in the spec."""
    if isinstance(spec, dict):
        colour = spec.get("color")
        if isinstance(colour, dict) and colour.get("field") in ("accelerator", SHADE):
            return colour["scale"]
        children = spec.values()
    elif isinstance(spec, list):
        children = spec
    else:
        return None
    return next((found for child in children if (found := find_accelerator_scale(child))), None)
