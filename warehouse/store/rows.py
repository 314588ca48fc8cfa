"""A query's result as DuckDB hands it over: column names, DuckDB types, rows of Python values.

For a command that only prints its rows as a table (`mlperf-wh sql`): polars costs 0.12 s to
import, more than most queries take, and a table needs nothing of it. What a table is drawn from
(warehouse/cli/console.py) is the same either way: the text of each cell, and which columns are
numbers, or dates, times and booleans (never wrapped). The rows are read by db.relation_frame's rule
(the same names, the same columns as text) and only when every column is of a kind whose Python
value polars would hand over unchanged; otherwise (maps, structs, bytes, UUIDs...) `relation_rows`
says None and the caller reads a polars frame. A date Python cannot hold is printed as DuckDB's text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime

import duckdb

from warehouse.store.db import dated_texts, needs_text, projected, unique_names

_NUMBERS = r"U?(TINYINT|SMALLINT|INTEGER|BIGINT)|HUGEINT|FLOAT|DOUBLE|DECIMAL(\(\d+, ?\d+\))?"
_NUMERIC = re.compile(rf"^({_NUMBERS})$")
_TEMPORAL = re.compile(r"^(DATE|TIME|TIMESTAMP|TIMESTAMP WITH TIME ZONE)$")
# What polars hands over as DuckDB's Python client does: numbers, text, booleans, dates and times,
# and lists of numbers, text or booleans.
_PLAIN = re.compile(rf"^({_NUMBERS}|VARCHAR|BOOLEAN|DATE|TIME|TIMESTAMP|TIMESTAMP WITH TIME ZONE)$"
                    rf"|^({_NUMBERS}|VARCHAR|BOOLEAN)(\[\])+$")
# DuckDB's client hands infinity over as Python's first or last date, and a year past 9999 as text;
# db.relation_frame prints either as DuckDB's text, and so does relation_rows.
_EDGES = {date.min, date.max, datetime.min, datetime.max}


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


def relation_rows(relation: duckdb.DuckDBPyRelation, limit: int | None = None) -> Rows | None:
    """The relation's rows (at most `limit`) as Rows, or None when a column needs polars' reading."""
    names = unique_names(relation.columns)
    as_text = {name for name, kind in zip(names, relation.types) if needs_text(str(kind))}
    texts = dated_texts(relation, names, as_text)
    read = projected(relation, names, as_text, limit, texts)
    types = [str(kind) for kind in read.types][:len(names)]
    if not all(_PLAIN.match(kind) for kind in types):
        return None
    fetched = read.fetchall()
    # A date Python cannot hold is read as its text, as db.relation_frame reads it: from the text
    # read beside the column in the same run of the query.
    as_read = {names.index(name): len(names) + n for n, name in enumerate(texts)
               if any(_undrawable(row[names.index(name)]) for row in fetched)}
    for i in as_read:
        types[i] = "VARCHAR"
    width = len(names)
    if as_read:
        rows = [tuple(row[as_read.get(i, i)] for i in range(width)) for row in fetched]
    else:
        rows = [row[:width] for row in fetched] if texts else fetched
    return Rows(names, types, rows)


def _undrawable(value) -> bool:
    if value is None:
        return False
    if not isinstance(value, (date, datetime)):
        return True
    return (value.replace(tzinfo=None) if isinstance(value, datetime) else value) in _EDGES
