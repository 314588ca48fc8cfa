"""What became of a leader that lost its place, read after the run: what the run's own loads did to
its row (re-published with another value, withdrawn, quarantined) and why it is out of the ranking
now (each finding with what it says, else the eligibility rule's reason). A leader simply beaten by
a higher figure has no fate. In words, for the run's message and `answer_changes.because`."""
from __future__ import annotations

from dataclasses import replace

import duckdb

from warehouse.ingest.changes import LATEST_LOAD_CHANGES
from warehouse.notify.answers import Move
from warehouse.notify.message import change_words

# The leaders that lost their place: `?` three lists, their result IDs, benchmarks and scenarios.
PREVIOUS = "SELECT unnest(?::VARCHAR[]) AS result_id, unnest(?::VARCHAR[]) AS benchmark, unnest(?::VARCHAR[]) AS scenario"
# What the run's loads did to each one's performance row: the published model read as the views read
# it (base_benchmark_names), a withdrawn one's name as published.
RUN_CHANGES = f"""
    SELECT k.result_id, k.benchmark, k.scenario, c.change, c.field, c.published_before, c.published_after, c.reason
    FROM ({LATEST_LOAD_CHANGES}) AS c
    LEFT JOIN base_benchmark_names AS b ON b.model = c.model AND b.used_model IS NOT DISTINCT FROM c.used_model
    JOIN ({PREVIOUS}) AS k
      ON k.result_id = c.result_id AND k.benchmark = coalesce(b.benchmark, c.model) AND k.scenario = c.scenario
    WHERE c.metric = 'performance'
    ORDER BY c.change, c.field"""
# Why each one is out of the ranking now: its findings and what they say, else the eligibility rule's reason.
OUT_OF_RANKING = f"""
    SELECT k.result_id, k.benchmark, k.scenario, e.excluded_because,
           list(a.rule || ': ' || a.detail ORDER BY a.rule) FILTER (WHERE a.rule IS NOT NULL)
    FROM ({PREVIOUS}) AS k
    JOIN result_eligibility AS e ON e.result_id = k.result_id AND e.benchmark = k.benchmark AND e.scenario = k.scenario
    LEFT JOIN anomalies AS a ON a.result_id = e.result_id AND a.benchmark = e.benchmark AND a.scenario = e.scenario
    WHERE NOT e.procurement_grade
    GROUP BY ALL ORDER BY ALL"""
CHANGE_FIELDS = ("change", "field", "before", "after", "reason")


def explained(con: duckdb.DuckDBPyConnection, moves: list[Move], source_ids: list[str]) -> list[Move]:
    """`moves` with `because` said for each leader that took another result's place for a reason:
    're-published: value 114,504 -> 124,504; out of the ranking: unit_suspect: published as ...'. A
    previous leader beaten by a higher figure, nothing else, has none."""
    previous = sorted({move.previous for move in moves if move.previous})
    if not previous:
        return moves
    keys = [list(column) for column in zip(*previous)]
    said: dict[tuple, list[str]] = {}
    try:
        changes = con.execute(RUN_CHANGES, [source_ids, *keys]).fetchall() if source_ids else []
        out = con.execute(OUT_OF_RANKING, keys).fetchall()
    except duckdb.CatalogException:  # the views were never built
        return moves
    for *key, change, field, before, after, reason in changes:
        words = "withdrawn from the re-published table" if change == "withdrawn" else \
            f"re-published: {change_words(dict(zip(CHANGE_FIELDS, (change, field, before, after, reason))))}"
        said.setdefault(tuple(key), []).append(words)
    for *key, excluded_because, findings in out:
        said.setdefault(tuple(key), []).extend(f"out of the ranking: {f}" for f in findings or [excluded_because])
    return [replace(move, because="; ".join(said[move.previous])) if move.previous in said else move
            for move in moves]
