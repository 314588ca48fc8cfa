"""Numbers for people, by one rule wherever they are printed: the terminal's tables (warehouse.cli),
the report's answer and sentences (warehouse.export), the decision records (warehouse.ledger). The
report page's own script (templates/report.js, fmt) writes the same rule in JavaScript.

A figure: thousands separated; whole from 1,000 (1,019); a tenth from 100 (462.9); three significant
digits below (2.93, 45.2, 0.0181); a very small one in scientific notation. A cost
in dollars: cents from a dollar up ($1.25), three significant digits below ($0.0858)."""
from __future__ import annotations

import math


def human_number(value: float | int | None) -> str:
    """A figure as people read it (empty for no value): 868,278; 462.9; 2.93; 0.0181."""
    if value is None:
        return ""
    if isinstance(value, int):
        return f"{value:,}"
    if math.isnan(value) or math.isinf(value):
        return str(value)
    size = abs(value)
    if size >= 1000:
        return f"{value:,.0f}"
    if size >= 100:
        return f"{value:,.1f}"
    if size == 0:
        return "0"
    return f"{value:.3g}" if size >= 0.001 else f"{value:.3e}"


def truth(value: bool) -> str:
    """A yes or no as every output writes it, the warehouse's own spelling: true, false (never True)."""
    return "true" if value else "false"


def dollars(value: float | None) -> str:
    """Dollars for people (empty for no value): $12.40, $1.25, $0.0858."""
    if value is None:
        return ""
    return f"${value:,.2f}" if abs(value) >= 1 else f"${value:.3g}"


def plural(count: int, noun: str) -> str:
    """'1 claim', '15 claims'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def few(names: list[str], shown: int = 3) -> str:
    """'a, b, c and 27 more'."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")
