"""One rule for numbers for people (warehouse/figures.py), in the terminal, the report and the
decision records: 276.565 is 276.6 in all three, never 277 in one of them."""
from __future__ import annotations

import pytest

from warehouse.figures import dollars, human_number

pytestmark = pytest.mark.unit


def test_a_figure_is_written_by_its_size():
    assert [human_number(v) for v in (868278.0, 1019.4, 846.0, 276.565, 45.23, 2.934, 0.01812, 0.0, 0.00012345)] == [
        "868,278", "1,019", "846.0", "276.6", "45.2", "2.93", "0.0181", "0", "1.234e-04"]
    assert (human_number(1234567), human_number(None)) == ("1,234,567", "")


def test_a_cost_is_written_in_cents_from_a_dollar_and_three_figures_below():
    # $4.00 x 8 / (103635 tokens/s x 3600) x 1e6 = $0.085771 per million tokens
    assert [dollars(v) for v in (12.4, 1.25, 4 * 8 / (103635 * 3600) * 1e6, None)] == ["$12.40", "$1.25", "$0.0858", ""]


def test_the_terminal_the_report_and_the_decision_records_write_one_figure_alike():
    from warehouse.cli.console import cell_text
    from warehouse.export.report_answer import number
    from warehouse.ledger.decisions import _figure
    for value in (868278.0, 846.0, 276.565, 2.934, 0.0092):
        assert cell_text(value) == number(value) == _figure(value) == human_number(value)


def test_a_decision_record_prints_no_value_as_none_never_as_python_does():
    from warehouse.ledger.decisions import record_lines
    record = {"capacity_decision_record": {"id": "d1", "review_round": None, "is_due": False, "weak_baseline_claims": [],
                                           "figure": 276.565}}
    assert record_lines(record) == ["id: d1", "review_round: (none)", "is_due: false", "weak_baseline_claims: (none)",
                                    "figure: 276.6"]
