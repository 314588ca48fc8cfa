"""A query's result as DuckDB hands it over: column names, DuckDB types, rows of Python values.

For a command that only prints its rows as a table (`mlperf-wh sql`): polars costs 0.12 s to
import, more than most queries take, and a table needs nothing of it. What the table is drawn from
(warehouse/cli/console.py) is the same either way: the text of each cell, and which columns are
numbers, or dates, times and booleans (never wrapped). Columns polars cannot read are text here
too (db.readable), so a table looks the same whichever way its rows came.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import duckdb

from warehouse.store.db import readable

_NUMERIC = re.compile(r"^(U?(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT)|FLOAT|DOUBLE|DECIMAL(\(\d+, ?\d+\))?)$")
_TEMPORAL = re.compile(r"^(DATE|TIME|TIMESTAMP)(_S|_MS|_NS)?( WITH TIME ZONE)?$")


@dataclass(frozen=True)
class Rows:
    columns: list[str]
    types: list[str]  # DuckDB's type names, as `DESCRIBE` shows them
    rows: list[tuple]

    @property
    def height(self) -> int:
        return len(self.rows)

    def head(self, n: int) -> "Rows":
        return Rows(self.columns, self.types, self.rows[:n])

    def column_values(self) -> list[list]:
        return [list(values) for values in zip(*self.rows)] if self.rows else [[] for _ in self.columns]

    def numeric(self) -> list[bool]:
        return [bool(_NUMERIC.match(kind)) for kind in self.types]

    def unbroken(self) -> list[bool]:
        """Numbers, dates and times, booleans: a table never wraps them."""
        return [bool(_NUMERIC.match(kind) or _TEMPORAL.match(kind)) or kind == "BOOLEAN" for kind in self.types]


def query_rows(con: duckdb.DuckDBPyConnection, sql: str) -> Rows:
    """Run one statement -> its whole result as Rows (none for a statement that returns no rows)."""
    relation = readable(con.sql(sql))
    if relation is None:
        return Rows([], [], [])
    return Rows(list(relation.columns), [str(kind) for kind in relation.types], relation.fetchall())
