"""Cost on the page: after `mlperf-wh prices load`, the report's answer table and its comparison of
two systems show dollars per million tokens, each with its price (where the prices are from once,
under each), as a buyer reads them in headless Chromium; without prices, the page says how to add them."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import ROOT
from tests.shared_rows import checker_row
from tests.test_report import SCREENSHOTS, browser, choose, compare_rows, open_report  # noqa: F401 - browser: a fixture

# A warehouse, a prices load and a report through the CLI, then the page in Chromium: `make test-slow`.
pytestmark = pytest.mark.slow

PRICES = ROOT / "examples" / "prices.example.csv"
# examples/prices.example.csv: B200 $4.00, GB200 $5.00 per accelerator-hour, "made-up example, not a quote", 2026-11-01
PRICE_SOURCE = "made-up example, not a quote, 2026-11-01"


def million_tokens_cost(dollars_per_accelerator_hour: float, accelerators: int, tokens_per_second: float) -> float:
    return dollars_per_accelerator_hour * accelerators / (tokens_per_second * 3600) * 1e6


def test_the_answer_table_shows_dollars_per_million_tokens_after_prices_load(shared_warehouse, tmp_path, cli, browser):
    path = tmp_path / "warehouse.duckdb"
    shutil.copyfile(shared_warehouse, path)
    code, _, err = cli("--db", path, "report", "--out", tmp_path / "before")
    assert code == 0, err
    unpriced = (tmp_path / "before" / "index.html").read_text(encoding="utf-8")
    assert "no prices are loaded" in unpriced and "mlperf-wh prices load" in unpriced
    assert "dollars per million tokens</th>" not in unpriced

    code, _, err = cli("--db", path, "prices", "load", PRICES)
    assert code == 0, err
    code, _, err = cli("--db", path, "report", "--out", tmp_path / "report")
    assert code == 0, err
    page, _, blocked, errors = open_report(browser, tmp_path / "report" / "index.html")
    headers = page.locator("#answer-table thead th").all_inner_texts()
    row = page.locator("#answer-table tr[data-benchmark='gpt-oss-120b'][data-scenario='Server']")
    cost = row.locator("td.figure").nth(4).inner_text()
    page.locator("#answer").screenshot(path=str(SCREENSHOTS / "answer-with-cost.png"))
    # v6.1 gpt-oss-120b Server (its checker table), procurement grade, priced: CoreWeave B200 x8
    # 6.1-0021 90,204.7 tokens/s: $4.00 x 8 / (90204.7 x 3600) x 1e6 = $0.09854 per million tokens; the
    # next accelerator, RedHat_Supermicro GB200 x4 6.1-0094 51,095.2 tokens/s at $5.00: $5.00 x 4 /
    # (51095.2 x 3600) x 1e6 = $0.10873; B200's is 1 - 0.09854 / 0.10873 = 9.4% less.
    b200 = float(checker_row("v6.1", "CoreWeave", "B200-SXM-180GBx8_TRT", "gpt-oss-120b", "Server")["Result"])
    gb200 = float(checker_row("v6.1", "RedHat_Supermicro", "GB200-NVL4_186GB_Openshift_VLLM", "gpt-oss-120b", "Server")["Result"])
    assert (b200, gb200) == (90204.7, 51095.2)
    best, runner_up = million_tokens_cost(4.00, 8, b200), million_tokens_cost(5.00, 4, gb200)
    assert headers[-1] == "per dollar, among priced accelerators: dollars per million tokens"
    assert f"B200 ${best:.3g} per million tokens" in cost and "price: $4.00 per accelerator-hour*" in cost
    # where the prices are from: once, under the table (issue 63: every cell repeated it)
    assert "made-up example" not in cost
    footnote = page.locator("#answer-table-prices").inner_text()
    assert footnote.startswith("* Prices are yours") and f"{PRICE_SOURCE} (" in footnote
    # the leaders of the other columns with no price: GB300 (per accelerator, the measured rack, per kW,
    # 6.1-0025) and B300 (the estimated rack, 6.1-0052)
    assert "not priced: B300, GB300 (lead another column)" in cost
    assert f"{(1 - best / runner_up) * 100:.1f}% less than GB200, ${runner_up:.3g}" in cost
    assert "6.1-0021" in cost
    sentence = page.locator("#answer-sentences li[data-benchmark='gpt-oss-120b'][data-scenario='Server']").inner_text()
    assert (f"the cheapest tokens among priced accelerators, B200 at ${best:.3g} per million ($4.00 per accelerator-hour, "
            "6.1-0021) (B300, GB300, leading elsewhere, have no price)") in sentence
    assert page.locator("#no-prices").count() == 0

    choose(page, "compare_a", "6.1-0021")
    choose(page, "compare_b", "6.1-0094")
    found = compare_rows(page)
    compare_note = page.locator("#compare-prices").inner_text()
    page.locator("#compare").screenshot(path=str(SCREENSHOTS / "compare-with-cost.png"))
    page.close()
    # each cell its price; where the prices are from once, under the comparison (issue 63: as the tables)
    assert found[("gpt-oss-120b · Server", "dollars per million tokens (your prices)")] == [
        f"${best:.3g} ($4.00 per accelerator-hour)*", f"${runner_up:.3g} ($5.00 per accelerator-hour)*",
        f"+{(runner_up / best - 1) * 100:.1f}% (×{runner_up / best:.2f})"]
    assert not any(PRICE_SOURCE in cell for cells in found.values() for cell in cells)
    assert compare_note == f"* Prices are yours (mlperf-wh prices load), per accelerator-hour: {PRICE_SOURCE} (B200, GB200)."
    assert (blocked, errors) == ([], [])

