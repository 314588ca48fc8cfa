"""The page a buyer forwards, read in headless Chromium at 1400 x 1000 on the shared rounds with every
shared tree (the old rounds rebuilt, the run summaries loaded) and the example prices: it fits its
window, every chart panel draws marks, each buyer reads an answer of its own (no consumer, laptop or
workstation card answers the datacenter buyer), cost names the leaders it could not price, and the
history chart puts every part on a time axis beside the field's record. Screenshots of the first screen
and the history chart are left in build/report-screenshots/ for review."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import ROOT, SHARED
from tests.readers import connect_file
from tests.report_screenshots import CHROMIUM, FLAGS, WINDOW, open_page, overflow, panels, write_screenshots
from tests.test_report import SCREENSHOTS
from warehouse.identity.rounds import load_registry
from warehouse.trees.run import rebuild_rounds
from warehouse.views import rebuild as rebuild_views

pytestmark = pytest.mark.slow

OLD_ROUNDS = ("v0.5", "v0.7", "v1.1", "v2.0", "v2.1")
PRICES = ROOT / "examples" / "prices.example.csv"
# Client and workstation parts (consumer cards, laptop GPUs, workstation cards), as accelerators.csv sells them
DESK_SEGMENTS = ("client", "workstation")


@pytest.fixture(scope="module")
def page_with_trees(trees_warehouse, tmp_path_factory):
    """The report of the shared rounds, their trees and the old rounds rebuilt, prices loaded, open in
    Chromium; and the warehouse it was drawn from."""
    from playwright.sync_api import sync_playwright

    from warehouse.export.report import render_report
    from warehouse.ledger.prices import load_prices
    from warehouse.store import db
    path = tmp_path_factory.mktemp("layout") / "w.duckdb"
    shutil.copyfile(trees_warehouse, path)
    registry = load_registry()
    assert all(r.missing is None for r in rebuild_rounds([registry[r] for r in OLD_ROUNDS], str(SHARED / "trees"),
                                                         str(path)))
    with db.connect(str(path)) as con:
        assert load_prices(con, PRICES) > 0
    rebuild_views(str(path), "test")
    with db.connect(str(path), read_only=True) as con:
        report = render_report(con, path.parent / "report")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = open_page(browser.new_context(viewport=WINDOW), report)
        yield page, str(path)
        browser.close()


def test_the_page_fits_its_window_and_every_chart_panel_draws_marks(page_with_trees):
    page, _ = page_with_trees
    width, window = overflow(page)
    assert width <= window == 1400
    drawn = panels(page)
    assert {"interactivity", "leaderboard", "token_economics", "accelerator_history", "scaling_efficiency"} <= set(drawn)
    empty = [(name, p["name"]) for name, found in drawn.items() for p in found if not p["marks"]]
    assert empty == []
    write_screenshots(page, SCREENSHOTS)


def test_no_consumer_laptop_or_workstation_part_answers_the_datacenter_buyer(page_with_trees):
    page, path = page_with_trees
    with connect_file(path, read_only=True) as con:
        desk = {a for (a,) in con.execute("SELECT accelerator FROM dim_accelerators WHERE segment IN ?",
                                          [list(DESK_SEGMENTS)]).fetchall()}
    assert {"GeForce RTX 4090", "GeForce GTX 1650 Ti", "RTX PRO 4500 Blackwell"} <= desk
    named = {table: set(page.locator(f"#{table} td.figure .value b").all_inner_texts())
             for table in ("answer-table", "answer-table-edge")}
    assert named["answer-table"] and not named["answer-table"] & desk
    assert named["answer-table-edge"] & desk  # v6.0 resnet Offline: HPE's RTX PRO 4500 6.0-0055 leads there
    badges = page.locator("#answer-table-edge td.figure .badge.segment").all_inner_texts()
    assert "workstation" in badges and set(badges) <= {"datacenter", "edge", *DESK_SEGMENTS}
    # each per-kW cell names its basis; the datacenter table mixes two, and says which rows use which
    kw_cells = page.locator("#answer-table tbody tr td.figure:nth-child(6)")
    assert all("power:" in text or text.startswith("none") for text in kw_cells.all_inner_texts())
    bases = page.locator("#answer-table-power-bases").inner_text()
    assert "system estimate in" in bases and "accelerators only in" in bases


def test_cheapest_is_among_priced_accelerators_and_names_the_unpriced_leaders(page_with_trees):
    page, _ = page_with_trees
    # examples/prices.example.csv prices B200, GB200 and H200 SXM...; GB300, B300 and MI355X lead other
    # columns of v6.0 and have none
    note = page.locator("#answer-table-unpriced").inner_text()
    assert "Per dollar ranks only the accelerators you priced; B300, GB300, MI355X" in note
    assert "mlperf-wh prices load FILE" in note
    header = page.locator("#answer-table thead th").last.inner_text()
    assert header == "per dollar, among priced accelerators: dollars per million tokens"


def test_the_history_chart_puts_each_part_on_a_time_axis_beside_the_fields_record(page_with_trees):
    page, _ = page_with_trees
    spec = page.evaluate("JSON.parse(document.getElementById('spec-accelerator_history').textContent)")
    rows = next(iter(spec["datasets"].values()))
    panels_drawn = {r["panel"] for r in rows}
    assert "resnet · Samples/s" in panels_drawn and len(panels_drawn) >= 4
    resnet = [r for r in rows if r["benchmark"] == "resnet"]
    parts = {r["accelerator"] for r in resnet if r["kind"] == "part"}
    assert "T4" in parts  # the longest-lived datacenter part, v0.5 on
    record = sorted((r["published_on"], r["per_accelerator"]) for r in resnet if r["kind"] == "frontier")
    assert record[0][0].startswith("2019") and all(a[1] <= b[1] for a, b in zip(record, record[1:]))
    # field_records' datacenter record, from what to what, drawn at the round that set it (not at the
    # newest round, beside an edge card, as the old "x5.8 since 2019" was: TITAN RTX v0.5 to H200 v4.1)
    (label,) = [r for r in resnet if r["kind"] == "label"]
    assert label["text"] == "v0.5 Goya HL-100 14,447 -> v4.1 H200 SXM 96,029, datacenter"  # 96,029.4 / 14,446.6 = 6.65x
    assert label["round"] == "v4.1" and round(label["per_accelerator"], 1) == 96029.4
    newest = [r["text"] for r in resnet if r["kind"] == "newest"]
    assert all(text.startswith("v6.") and " best: " in text for text in newest)
    # x is time (round dates), not rounds spaced evenly
    assert {e.get("type") for e in _encodings(spec) if e.get("field") == "published_on"} == {"temporal"}


def _encodings(node):
    """Every channel definition of a Vega-Lite spec, at any depth."""
    if isinstance(node, dict):
        if "field" in node:
            yield node
        for value in node.values():
            yield from _encodings(value)
    elif isinstance(node, list):
        for value in node:
            yield from _encodings(value)
