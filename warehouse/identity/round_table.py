"""The warehouse's own round table: the registry's rounds, plus rounds the watcher found or a load brought.

The registry (warehouse/identity/reference/rounds.toml) is reference data: it is written into `rounds` with
the other reference tables (resolve.load_reference_tables). A round the watcher finds under a name the
registry does not list is recorded here, dated the day it was first seen, without editing code; one
loaded from a file under such a name, dated the day it was first loaded. Every loaded round has a
publication date, so a review due "at the next round" falls due on it too.
"""
from __future__ import annotations

import datetime as dt

import duckdb
import polars as pl

from warehouse.identity.rounds import Round, following_round_names, load_registry, round_named, round_sort_key
from warehouse.store import db

COLUMNS = ["round", "repository", "branch", "files", "published_on", "found_by"]


def _frame(rounds: list[Round], found_by: str, seen_on: dt.date | None = None) -> pl.DataFrame:
    rows = [{"round": r.name, "repository": r.repository, "branch": r.branch, "files": list(r.files),
             "published_on": r.published or seen_on, "found_by": found_by} for r in rounds]
    schema = {"round": pl.String, "repository": pl.String, "branch": pl.String,
              "files": pl.List(pl.String), "published_on": pl.Date, "found_by": pl.String}
    from schemas.rounds import RoundRow  # Pandera: only when a row is written
    return RoundRow.validate(pl.DataFrame(rows, schema=schema))


def sync_registry(con: duckdb.DuckDBPyConnection, registry: dict[str, Round] | None = None) -> None:
    """Registry rounds into `rounds`; the registry wins over what the watcher recorded."""
    registry = registry if registry is not None else load_registry()
    missing_dates = [r.name for r in registry.values() if r.published is None]
    if missing_dates:
        raise ValueError(f"warehouse/identity/reference/rounds.toml: round(s) {', '.join(missing_dates)} "
                         "have no `published` date")
    if _registry_rows(registry) <= _stored_rows(con):
        return  # already there: the watcher's no-change run writes nothing (nor validates again)
    with db.registered(con, _registry_rounds=_frame(list(registry.values()), "registry")):
        con.execute(f"INSERT OR REPLACE INTO rounds ({', '.join(COLUMNS)}) "
                    f"SELECT {', '.join(COLUMNS)} FROM _registry_rounds")


def _registry_rows(registry: dict[str, Round]) -> set[tuple]:
    return {(r.name, r.repository, r.branch, tuple(r.files), r.published, "registry") for r in registry.values()}


def _stored_rows(con: duckdb.DuckDBPyConnection) -> set[tuple]:
    found = con.execute(f"SELECT {', '.join(COLUMNS)} FROM rounds").fetchall()
    return {(name, repo, branch, tuple(files), published, found_by)
            for name, repo, branch, files, published, found_by in found}


def record_found(con: duckdb.DuckDBPyConnection, found: Round, seen_on: dt.date) -> None:
    """A round the watcher found; the first sighting's date stays its publication date."""
    with db.registered(con, _found_round=_frame([found], "watcher", seen_on)):
        con.execute(f"INSERT INTO rounds ({', '.join(COLUMNS)}) SELECT {', '.join(COLUMNS)} "
                    "FROM _found_round ON CONFLICT DO NOTHING")


def record_loaded(con: duckdb.DuckDBPyConnection, round_name: str, file_name: str, loaded_on: dt.date) -> None:
    """A round loaded (official) under a name the table does not know: dated the day of that first load."""
    found = round_named(round_name)
    found = Round(found.name, found.repository, found.branch, (file_name,))
    with db.registered(con, _loaded_round=_frame([found], "first load", loaded_on)):
        con.execute(f"INSERT INTO rounds ({', '.join(COLUMNS)}) SELECT {', '.join(COLUMNS)} "
                    "FROM _loaded_round ON CONFLICT DO NOTHING")


def known_rounds(con: duckdb.DuckDBPyConnection) -> dict[str, Round]:
    """Every round in the table, oldest first."""
    found = con.execute(f"SELECT {', '.join(COLUMNS)} FROM rounds").fetchall()
    rounds = [Round(name, repo, branch, tuple(files), published)
              for name, repo, branch, files, published, _ in found]
    return {r.name: r for r in sorted(rounds, key=lambda r: round_sort_key(r.name))}


def named_rounds(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Every round name the warehouse knows, oldest first: the registry's, those the watcher found
    (the round table) and those loaded (an unofficial file's round too)."""
    found = con.execute("SELECT round FROM rounds UNION SELECT DISTINCT round FROM results").fetchall()
    return sorted(set(load_registry()) | {name for (name,) in found}, key=round_sort_key)


def loaded_rounds(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {r for (r,) in con.execute(
        "SELECT DISTINCT round FROM sources WHERE origin = 'official' AND rows_loaded > 0").fetchall()}


def rounds_to_watch(con: duckdb.DuckDBPyConnection) -> tuple[list[Round], dict[str, Round]]:
    """What the watcher looks at: every known round with a published table (a round of v0.5 to v4.0
    has none: `mlperf-wh trees` rebuilds it), then the next names after the newest known one (those
    it finds, recorded when they load)."""
    sync_registry(con)
    known = known_rounds(con)
    newest = max(known, key=round_sort_key)
    found = {name: round_named(name) for name in following_round_names(newest) if name not in known}
    return [r for r in known.values() if r.has_table] + list(found.values()), found
