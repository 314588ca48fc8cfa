"""Hints for a query that returned no rows: each comparison of a known dimension column (benchmark,
accelerator, scenario, round, submitter) with a literal the warehouse does not hold, with the nearest
values it does hold (`WHERE benchmark = 'llama2-70b'`: llama2-70b-99, llama2-70b-99.9).

Read from the query's text: `column = 'literal'` (a table alias before the column is fine) and
`column IN ('a', 'b')`. What the warehouse holds: the distinct values of the column in stg_results
(every loaded row, whatever the mart).

And for each mart the query names that has rows only once something beyond the rounds is loaded (its
`needs` in sql/marts/_catalog.toml) when nothing of it is: the command that loads it
(`latency_profile` before `mlperf-wh trees`)."""
from __future__ import annotations

import re

import duckdb

from warehouse.nearest import did_you_mean
from warehouse.store import db

FEW = 12  # a column holding no more values than this is listed whole when none is near
DIMENSIONS = ("benchmark", "accelerator", "scenario", "round", "submitter")
_COLUMN = r"(?<![\w.])(?:\w+\.)?(" + "|".join(DIMENSIONS) + r")"
_LITERAL = r"'((?:[^']|'')*)'"
EQUALS = re.compile(_COLUMN + r"\s*==?\s*" + _LITERAL, re.IGNORECASE)
IN_LIST = re.compile(_COLUMN + r"\s+IN\s*\(([^)]*)\)", re.IGNORECASE)


def compared_literals(query: str) -> list[tuple[str, str]]:
    """(column, literal) for every comparison of a dimension column with a literal, in order. Pure."""
    found = [(m.start(), m.group(1).lower(), m.group(2).replace("''", "'")) for m in EQUALS.finditer(query)]
    for match in IN_LIST.finditer(query):
        found += [(match.start(), match.group(1).lower(), literal.replace("''", "'"))
                  for literal in re.findall(_LITERAL, match.group(2))]
    return list(dict.fromkeys((column, literal) for _, column, literal in sorted(found)))


def empty_result_hints(con: duckdb.DuckDBPyConnection, query: str) -> list[str]:
    """One line per mart named whose needs are not loaded, then one per literal the warehouse does not
    hold in its column, naming the nearest values."""
    return needs_hints(con, query) + literal_hints(con, query)


def needs_hints(con: duckdb.DuckDBPyConnection, query: str) -> list[str]:
    """`latency_profile has rows once trees are loaded (mlperf-wh trees); none are yet`."""
    from warehouse.views.mart_catalog import NEEDED_TABLE, NEEDS, entries
    named = set(re.findall(r"\w+", query.lower()))
    loaded: dict[str, bool] = {}  # each table asked once, however many marts named need it
    hints = []
    for name, entry in entries().items():
        if name not in named:
            continue
        for need in entry.needs:
            table = NEEDED_TABLE[need]
            if not loaded.setdefault(table, _holds_rows(con, table)):
                hints.append(f"{name} has rows once {need} are loaded ({NEEDS[need]}); none are yet")
    return hints


def _holds_rows(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    try:
        return db.scalar(con, f"SELECT EXISTS (SELECT 1 FROM main.{table})")
    except duckdb.CatalogException:  # not created yet: nothing of it was ever loaded
        return False


def literal_hints(con: duckdb.DuckDBPyConnection, query: str) -> list[str]:
    """One line per literal the warehouse does not hold in its column, naming the nearest values."""
    hints, held = [], {}
    for column, literal in compared_literals(query):
        if column not in held:
            held[column] = [v for (v,) in con.execute(
                f"SELECT DISTINCT {column} FROM stg_results WHERE {column} IS NOT NULL").fetchall()]
        if literal not in held[column]:
            near = did_you_mean(literal, held[column])
            if not near and len(held[column]) <= FEW:
                near = f"; it holds {', '.join(repr(v) for v in sorted(held[column]))}"
            hints.append(f"no {column} is {literal!r} in the warehouse{near}")
    return hints
