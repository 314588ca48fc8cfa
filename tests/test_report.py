"""The report, rendered in headless Chromium (Debian's `chromium`; .ci/run installs it): every chart
drew, the page made no network request, tooltips and filters work, the leaderboard draws one bar per
entry in order, gains diverge around 1.0, an accelerator keeps its colour across charts, and the
tables are coloured by verdict."""
from __future__ import annotations

import json
import re
import shutil

import pytest
from PIL import Image

from tests.bi_warehouse import claims_warehouse  # noqa: F401 - a fixture
from warehouse.export.output_dirs import OutputDirRefused
from warehouse.export.outputs import publish_after_load
from warehouse.export.report import VERDICT_COLOURS, render_report
from warehouse.ingest.pipeline import RoundOutcome
from warehouse.store import db

# Every test here drives the written page in Chromium after the runtime bundle is built (~50 s):
# `make test-slow` (CI runs it).
pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Without these Chromium reaches for the network (updates, sync, field trials) and gets refused.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CHARTS = ["software_gains", "generation_speedups", "scaling_efficiency", "token_economics", "leaderboard",
          "interactivity", "claim_audit", "own_vs_mlperf"]
# The marks of a drawn chart from its Vega scenegraph: datum, position on the page's chart and fill.
MARKS_JS = """([name, type]) => {
  const found = [];
  const visit = (mark, dx, dy) => {
    for (const item of mark.items || []) {
      if (mark.marktype === type && mark.role === "mark" && item.datum)
        found.push({datum: item.datum, x: dx + (item.x || 0), y: dy + (item.y || 0), fill: item.fill || null});
      if (mark.marktype === "group")
        for (const child of item.items || []) visit(child, dx + (item.x || 0), dy + (item.y || 0));
    }
  };
  visit(window.reportViews[name].scenegraph().root, 0, 0);
  return found;
}"""


@pytest.fixture(scope="module")
def report(claims_warehouse, tmp_path_factory):
    """Export and report as the scheduled flow regenerates them after a load that changed something."""
    out = tmp_path_factory.mktemp("published")
    loaded = [RoundOutcome("v6.0", "unchanged"), RoundOutcome("v6.1", "loaded")]
    assert publish_after_load([RoundOutcome("v6.0", "unchanged")], claims_warehouse, out / "bi", out / "report") is None
    published = publish_after_load(loaded, claims_warehouse, out / "bi", out / "report")
    assert (published.export_dir / "manifest.json").is_file()
    return published.report_page


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One headless Chromium for the module; each test opens its own page of the report."""
    from playwright.sync_api import sync_playwright
    assert shutil.which(CHROMIUM), f"{CHROMIUM} not found: apt-get install -y chromium (.ci/run does)"
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": 1400, "height": 900}, device_scale_factor=1)
        yield context
        context.close()


def open_report(browser, report):
    """The page with every chart drawn, and the requests it made: every one is recorded and any
    but the page itself refused."""
    page = browser.new_page()
    requests, blocked = [], []
    page.on("request", lambda request: requests.append(request.url))

    def only_the_page(route):
        if route.request.url == report.as_uri():
            route.continue_()
        else:
            blocked.append(route.request.url)
            route.abort()
    page.route("**/*", only_the_page)
    page.goto(report.as_uri(), wait_until="networkidle")
    page.wait_for_function("document.body.dataset.charts", timeout=60_000)
    assert page.evaluate("document.body.dataset.charts") == "ready"
    return page, requests, blocked


def marks(page, chart: str, marktype: str) -> list[dict]:
    return page.evaluate(MARKS_JS, [chart, marktype])


def spec_of(report, chart: str) -> dict:
    html = report.read_text(encoding="utf-8")
    found = re.search(f'<script type="application/json" id="spec-{chart}">(.*?)</script>', html, re.DOTALL)
    return json.loads(found.group(1))


def spec_rows(spec: dict) -> list[dict]:
    return next(iter(spec["datasets"].values()))


@pytest.fixture(scope="module")
def browser_view(browser, report, tmp_path_factory):
    """Load the page once: (screenshot path, chart boxes, requests, page facts)."""
    shot = tmp_path_factory.mktemp("screenshot") / "report.png"
    page, requests, blocked = open_report(browser, report)
    page.screenshot(path=str(shot), full_page=True)
    boxes = {e.get_attribute("data-chart"): e.query_selector("svg").bounding_box()
             for e in page.query_selector_all("figure.chart")}
    verdict_cells = page.eval_on_selector_all(
        "#table-claim_audit_table td.verdict",
        "cells => cells.map(c => [c.textContent, getComputedStyle(c).backgroundColor])")
    due_rows = page.eval_on_selector_all("#table-decisions_due tr", "rows => rows.length")
    shows = page.eval_on_selector_all("section p.shows", "ps => ps.map(p => p.textContent)")
    page.close()
    return {"shot": shot, "boxes": boxes, "requests": requests, "blocked": blocked,
            "verdict_cells": verdict_cells, "due_rows": due_rows, "shows": shows}


def ink(image: Image.Image, box: dict) -> float:
    """Share of the pixels in `box` that are not white."""
    region = image.crop((int(box["x"]), int(box["y"]), int(box["x"] + box["width"]),
                         int(box["y"] + box["height"]))).convert("L")
    histogram = region.histogram()
    return 1 - sum(histogram[250:]) / sum(histogram)


def test_every_chart_drew(browser_view):
    assert list(browser_view["boxes"]) == CHARTS
    image = Image.open(browser_view["shot"])
    for name, box in browser_view["boxes"].items():
        assert box["width"] > 200 and box["height"] > 100, name
        assert ink(image, box) > 0.02, f"{name} is blank in the screenshot"
    # and a strip of page margin beside the charts is blank, so the measure can tell
    assert ink(image, {"x": 2, "y": 200, "width": 10, "height": 600}) == 0


def test_the_page_made_no_network_request(browser_view, report):
    assert browser_view["requests"] == [report.as_uri()]
    assert browser_view["blocked"] == []


def test_every_chart_says_which_rows_and_rounds(browser_view):
    shows = browser_view["shows"]
    assert len(shows) == len(CHARTS) + 2
    for text in shows[:len(CHARTS)]:
        assert "rounds:" in text and ("verified" in text or "claim" in text), text
    assert "v4.1, v5.1, v6.0" in shows[CHARTS.index("software_gains")]
    assert "preview" in shows[CHARTS.index("generation_speedups")]
    # the leaderboard spans every round now (the round is a filter); it opens on the newest
    assert "opens on round v6.0" in shows[CHARTS.index("leaderboard")]


def test_claim_audit_is_coloured_by_verdict_and_decisions_due_are_listed(browser_view, claims_warehouse):
    with db.connect(claims_warehouse, read_only=True) as con:
        verdicts = sorted(v for (v,) in con.execute("SELECT verdict FROM claim_audit").fetchall())
        due = con.execute("SELECT count(*) FROM decisions_due").fetchall()[0][0]
    cells = browser_view["verdict_cells"]
    assert sorted(text for text, _ in cells) == verdicts
    for text, colour in cells:
        r, g, b = (int(VERDICT_COLOURS[text][i:i + 2], 16) for i in (1, 3, 5))
        assert colour == f"rgb({r}, {g}, {b})", text
    assert due == 1 and browser_view["due_rows"] == due + 1  # a header row and the due decision


def test_charts_are_written_as_png_and_svg(report):
    charts = report.parent / "charts"
    for name in CHARTS:
        png = Image.open(charts / f"{name}.png")
        assert png.width > 300 and png.height > 150, name
        assert (charts / f"{name}.svg").read_text(encoding="utf-8").startswith("<svg"), name



def test_the_runtime_is_inlined_once_and_nothing_is_fetched(report):
    html = report.read_text(encoding="utf-8")
    assert html.count("window.vegaEmbed=") == 1  # one runtime for every chart
    assert not re.search(r"<script[^>]*\bsrc=|<link\b|@import|<iframe", html)
    assert re.search(r"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline';", html)
    assert html.count('<script type="application/json"') == len(CHARTS)  # one spec per chart


def test_a_warehouse_with_no_rows_reports_that_it_has_none(tmp_path):
    from warehouse.views import materialize
    with db.connect(str(tmp_path / "empty.duckdb")) as con:
        materialize(con)
        page = render_report(con, tmp_path / "report")
    html = page.read_text(encoding="utf-8")
    assert html.count('class="empty"') == len(CHARTS) + 2
    assert "<script" not in html  # no chart, no runtime
    assert "no claims loaded: mlperf-wh claims load FILE" in html
    assert list((tmp_path / "report" / "charts").iterdir()) == []
    # a directory that is not a report is never replaced
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with db.connect(str(tmp_path / "empty.duckdb"), read_only=True) as con, pytest.raises(OutputDirRefused):
        render_report(con, tmp_path / "mine")
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_a_rounds_note_joins_what_changed_and_its_unknown_columns():
    from warehouse.export.run_report import _note
    loaded = RoundOutcome("v6.0", "loaded", 3, 3, 0, unknown_columns=["Brand New Column"])
    assert _note(loaded, {}) == "unknown columns: Brand New Column"  # `ingest --file`: no run event
    assert _note(loaded, {"change_summary": "first load: 3 results"}) == \
        "first load: 3 results; unknown columns: Brand New Column"
    assert _note(RoundOutcome("v6.0", "loaded", 3, 3, 0), {"change_summary": "first load: 3 results"}) == \
        "first load: 3 results"


def test_hovering_a_mark_shows_the_rows_identity(browser, report):
    page, _, _ = open_report(browser, report)
    page.locator("#chart-leaderboard g.role-mark.mark-rect path").first.hover()
    tooltip = page.locator("#vg-tooltip-element")
    tooltip.wait_for(state="visible", timeout=5_000)
    text = tooltip.inner_text()
    for label in ("submitter", "system", "result id", "round", "benchmark", "scenario", "verification", "tokens/s"):
        assert label in text, (label, text)
    assert re.search(r"6\.0-\d{4}", text)
    page.close()


def test_a_filter_changes_the_marks_shown(browser, report):
    page, _, _ = open_report(browser, report)
    before = marks(page, "leaderboard", "rect")
    page.select_option("#chart-leaderboard select[name=filter_accelerator]", label="GB300")
    page.wait_for_function("n => document.querySelectorAll('#chart-leaderboard g.role-mark.mark-rect path').length < n",
                           arg=len(before), timeout=10_000)
    after = marks(page, "leaderboard", "rect")
    assert 0 < len(after) < len(before)
    assert {m["datum"]["accelerator"] for m in after} == {"GB300"}
    page.select_option("#chart-leaderboard select[name=filter_accelerator]", label="all")
    page.select_option("#chart-leaderboard select[name=filter_round]", label="v5.1")
    page.wait_for_function("() => window.reportViews.leaderboard.signal('filter_round') === 'v5.1'")
    page.evaluate("window.reportViews.leaderboard.runAsync().then(() => true)")
    assert {m["datum"]["round"] for m in marks(page, "leaderboard", "rect")} == {"v5.1"}
    page.close()


def test_the_leaderboard_draws_one_bar_per_entry_sorted_by_value(browser, report):
    spec = spec_of(report, "leaderboard")
    assert spec["mark"]["type"] == "bar"
    assert spec["encoding"]["y"]["field"] == "entry" and spec["encoding"]["y"]["sort"] == "-x"
    rows = spec_rows(spec)
    keys = [(r["round"], r["scenario"], r["benchmark"], r["entry"]) for r in rows]
    assert len(keys) == len(set(keys))  # no two rows share a bar
    page, _, _ = open_report(browser, report)
    bars = marks(page, "leaderboard", "rect")
    page.close()
    shown = [r for r in rows if r["round"] == "v6.0" and r["scenario"] == "Offline"]
    assert len(bars) == len(shown)
    deepseek = sorted((b for b in bars if b["datum"]["benchmark"] == "deepseek-r1"), key=lambda b: b["y"])
    values = [b["datum"]["value"] for b in deepseek]
    assert values == sorted(values, reverse=True)
    # the 288-GPU entry and the 72-GPU entry of the same system name are two bars, not one stacked
    gb300 = {b["datum"]["result_id"]: b["datum"]["value"] for b in deepseek
             if b["datum"]["system"].startswith("NVIDIA GB300 NVL72")}
    assert len(gb300) == 2 and max(gb300.values()) < 2_600_000


def test_gains_diverge_around_one_with_readable_labels(browser, report):
    gains = spec_of(report, "software_gains")["spec"]["layer"][0]["encoding"]["color"]["scale"]
    speedups = spec_of(report, "generation_speedups")["spec"]["layer"][1]["encoding"]["fill"]["condition"]["scale"]
    for scale in (gains, speedups):
        assert scale["domainMid"] == 1 and scale["scheme"] == "redblue" and scale["type"] == "log"
    page, _, _ = open_report(browser, report)
    cells = marks(page, "software_gains", "rect")
    labels = marks(page, "software_gains", "text")
    page.close()
    fill_of = {cell_key(c["datum"]): rgb(c["fill"]) for c in cells}
    slower = [rgb(c["fill"]) for c in cells if c["datum"]["gain"] < 0.9]
    faster = [rgb(c["fill"]) for c in cells if c["datum"]["gain"] > 1.3]
    assert slower and all(r > b for r, _, b in slower)  # a regression is red, never "no change"
    assert faster and all(b > r for r, _, b in faster)
    for label in labels:
        assert contrast(rgb(label["fill"]), fill_of[cell_key(label["datum"])]) >= 3, label["datum"]


def test_an_accelerator_has_one_colour_on_every_chart(browser, report):
    scales = [spec_of(report, name) for name in ("leaderboard", "scaling_efficiency", "interactivity")]
    colour_scales = {json.dumps(find_accelerator_scale(spec), sort_keys=True) for spec in scales}
    assert len(colour_scales) == 1
    page, _, _ = open_report(browser, report)
    drawn = {"leaderboard": marks(page, "leaderboard", "rect"), "token_economics": marks(page, "token_economics", "rect"),
             "scaling_efficiency": marks(page, "scaling_efficiency", "symbol")}
    page.close()
    colours = {}
    for found in drawn.values():
        for mark in found:
            colours.setdefault(mark["datum"]["accelerator"], set()).add(mark["fill"])
    assert all(len(fills) == 1 for fills in colours.values()), colours
    assert len({next(iter(f)) for f in colours.values()}) == len(colours)  # and two accelerators never share one
    assert {"GB300", "B200"} <= set(colours)


def find_accelerator_scale(spec):
    """The scale of the first colour channel over the accelerator field, anywhere in the spec."""
    if isinstance(spec, dict):
        colour = spec.get("color")
        if isinstance(colour, dict) and colour.get("field") == "accelerator":
            return colour["scale"]
        children = spec.values()
    elif isinstance(spec, list):
        children = spec
    else:
        return None
    return next((found for child in children if (found := find_accelerator_scale(child))), None)


def cell_key(datum):
    return datum["accelerator"], datum["benchmark"], datum["rounds"]


def rgb(colour: str) -> tuple[int, int, int]:
    if colour.startswith("#"):
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    if colour == "white":
        return 255, 255, 255
    return tuple(int(v) for v in re.findall(r"\d+", colour)[:3])


def contrast(a, b) -> float:
    """WCAG contrast ratio of two sRGB colours."""
    def luminance(colour):
        linear = [(c / 255) / 12.92 if c <= 10 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in colour]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)
