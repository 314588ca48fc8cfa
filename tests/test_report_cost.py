"""Cost on the page: after `mlperf-wh prices load`, the report's answer table and its comparison of
two systems show dollars per million tokens, each with its price, source and date, as a buyer reads
them in headless Chromium; without prices, the page says how to add them."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import ROOT
from tests.shared_rows import published
from tests.test_report import SCREENSHOTS, browser, choose, compare_rows, open_report  # noqa: F401 - browser: a fixture

# A warehouse, a prices load and a report through the CLI, then the page in Chromium: `make test-slow`.
pytestmark = pytest.mark.slow

PRICES = ROOT / "examples" / "prices.example.csv"
# examples/prices.example.csv: B200 $4.00, GB200 $5.00 per accelerator-hour, "made-up example, not a quote", 2026-11-01
B200_PRICE = "$4.00 per accelerator-hour, made-up example, not a quote, 2026-11-01"


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
    row = page.locator("#answer-table tr[data-benchmark='llama2-70b-99'][data-scenario='Server']")
    cost = row.locator("td.figure").nth(4).inner_text()
    page.locator("#answer").screenshot(path=str(SCREENSHOTS / "answer-with-cost.png"))
    # v6.0 llama2-70b-99 Server, procurement grade, priced: HPE B200 x8 6.0-0048 103,635 tokens/s:
    # $4.00 x 8 / (103635 x 3600) x 1e6 = $0.08577 per million tokens; the next accelerator, NVIDIA
    # GB200 x72 6.0-0075 810,104 tokens/s at $5.00: $5.00 x 72 / (810104 x 3600) x 1e6 = $0.12344;
    # B200's is 1 - 0.08577 / 0.12344 = 30.5% less.
    b200, gb200 = published("v6.0", "6.0-0048", "llama2-70b-99", "Server"), published("v6.0", "6.0-0075", "llama2-70b-99", "Server")
    assert (b200, gb200) == (103635.0, 810104.0)
    best, runner_up = million_tokens_cost(4.00, 8, b200), million_tokens_cost(5.00, 72, gb200)
    assert headers[-1] == "per dollar, among priced accelerators: dollars per million tokens"
    assert f"B200 ${best:.3g} per million tokens" in cost and "price: $4.00 per accelerator-hour*" in cost
    # where the prices are from: once, under the table (issue 63: every cell repeated it)
    assert "made-up example" not in cost
    footnote = page.locator("#answer-table-prices").inner_text()
    assert footnote.startswith("* Prices are yours") and "made-up example, not a quote, 2026-11-01 (" in footnote
    # the leaders of the other columns with no price: B300 (per accelerator, the estimated rack, per kW)
    # and GB300 (the measured rack, 6.0-0078)
    assert "not priced: B300, GB300 (lead another column)" in cost
    assert f"{(1 - best / runner_up) * 100:.1f}% less than GB200, ${runner_up:.3g}" in cost
    assert "6.0-0048" in cost
    sentence = page.locator("#answer-sentences li[data-benchmark='llama2-70b-99'][data-scenario='Server']").inner_text()
    assert (f"the cheapest tokens among priced accelerators, B200 at ${best:.3g} per million ($4.00 per accelerator-hour, "
            "6.0-0048) (B300, GB300, leading elsewhere, have no price)") in sentence
    assert page.locator("#no-prices").count() == 0

    choose(page, "compare_a", "6.0-0048")
    choose(page, "compare_b", "6.0-0075")
    found = compare_rows(page)
    page.close()
    assert found[("llama2-70b-99 · Server", "dollars per million tokens (your prices)")] == [
        f"${best:.3g} ({B200_PRICE})",
        f"${runner_up:.3g} ($5.00 per accelerator-hour, made-up example, not a quote, 2026-11-01)",
        f"+{(runner_up / best - 1) * 100:.1f}% (×{runner_up / best:.2f})"]
    assert (blocked, errors) == ([], [])

