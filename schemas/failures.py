"""Pandera's failure cases, read once: which row, which column, which check, what value. Every caller
(quarantine reasons, the claims ledger, prices, the submission trees) words its messages from these."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import polars as pl
from pandera.errors import SchemaErrors


@dataclass(frozen=True)
class Failure:
    index: int | None   # the row of the validated frame; None when the frame as a whole failed
    column: str | None  # None for a check over whole rows (a DataFrameModel's dataframe_check)
    check: str
    got: Any

    def message(self, *as_written: Any) -> str:
        """`column: failed check (got value)`; a value given replaces the one Pandera saw (e.g. the cell
        as the file has it, before a cast)."""
        where = f"{self.column}: " if self.column else ""
        got = as_written[0] if as_written else self.got
        return f"{where}failed {self.check} (got {got!r})"


def validated(model, frame: pl.DataFrame) -> tuple[pl.DataFrame | None, list[Failure]]:
    """(the validated frame, []) or (None, every failed check) under `model`, validating lazily."""
    try:
        return model.validate(frame, lazy=True), []
    except SchemaErrors as exc:
        return None, [_failure(case) for case in exc.failure_cases.iter_rows(named=True)]


def failures_of(model, frame: pl.DataFrame) -> list[Failure]:
    return validated(model, frame)[1]


def _failure(case: dict) -> Failure:
    column = case["column"] if case["schema_context"] == "Column" else None
    index = None if case["index"] is None else int(case["index"])
    return Failure(index, column, case["check"], case["failure_case"])
