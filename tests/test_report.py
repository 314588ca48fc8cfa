"""The static report, rendered in headless Chromium (Debian's `chromium`; .ci/run installs it):
every chart drew, the tables are coloured by verdict, and the page made no network request."""
from __future__ import annotations

import shutil

import pytest
from PIL import Image

from tests.bi_warehouse import claims_warehouse  # noqa: F401 - a fixture
from warehouse.export.output_dirs import OutputDirRefused
from warehouse.export.outputs import publish_after_load
from warehouse.export.report import VERDICT_COLOURS, render_report
from warehouse.ingest.pipeline import RoundOutcome
from warehouse.store import db

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Without these Chromium reaches for the network (updates, sync, field trials) and gets refused.
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CHARTS = ["software_gains", "generation_speedups", "scaling_efficiency", "token_economics", "leaderboard",
          "claim_audit", "own_vs_mlperf"]


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
def browser_view(report, tmp_path_factory):
    """Load the page in headless Chromium once: (screenshot path, chart boxes, requests, page facts)."""
    from playwright.sync_api import sync_playwright
    assert shutil.which(CHROMIUM), f"{CHROMIUM} not found: apt-get install -y chromium (.ci/run does)"
    profile = tmp_path_factory.mktemp("chromium-profile")
    shot = tmp_path_factory.mktemp("screenshot") / "report.png"
    requests, blocked = [], []
    with sync_playwright() as p:
        context = p.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": 1400, "height": 900}, device_scale_factor=1)
        context.on("request", lambda request: requests.append(request.url))

        def only_the_page(route):
            if route.request.url == report.as_uri():
                route.continue_()
            else:
                blocked.append(route.request.url)
                route.abort()
        context.route("**/*", only_the_page)
        page = context.new_page()
        page.goto(report.as_uri(), wait_until="networkidle")
        page.screenshot(path=str(shot), full_page=True)
        boxes = {e.get_attribute("data-chart"): e.query_selector("svg").bounding_box()
                 for e in page.query_selector_all("figure.chart")}
        verdict_cells = page.eval_on_selector_all(
            "#table-claim_audit_table td.verdict",
            "cells => cells.map(c => [c.textContent, getComputedStyle(c).backgroundColor])")
        due_rows = page.eval_on_selector_all("#table-decisions_due tr", "rows => rows.length")
        shows = page.eval_on_selector_all("section p.shows", "ps => ps.map(p => p.textContent)")
        context.close()
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
    assert "rounds: v6.0" in shows[CHARTS.index("leaderboard")]


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
    html = report.read_text(encoding="utf-8")
    assert "<script" not in html and "http://" not in html.split("<body>")[1].split("<svg")[0]


def test_a_warehouse_with_no_rows_reports_that_it_has_none(tmp_path):
    from warehouse.views import materialize
    with db.connect(str(tmp_path / "empty.duckdb")) as con:
        materialize(con)
        page = render_report(con, tmp_path / "report")
    html = page.read_text(encoding="utf-8")
    assert html.count('class="empty"') == len(CHARTS) + 2
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
