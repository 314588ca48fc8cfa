"""Read the published records themselves, so expected numbers in tests are checked against the files."""
from __future__ import annotations

import csv
import json
import shutil
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from tests.conftest import MIRROR, SHARED_ROUNDS
from warehouse.store.db import query_frame


@lru_cache(maxsize=None)
def records(round_name: str) -> list[dict]:
    path = MIRROR / f"inference_results_{round_name}" / "main" / "summary_results.json"
    return json.loads(path.read_bytes())


@lru_cache(maxsize=None)
def checker_rows(round_name: str) -> list[dict]:
    """The rows of a round's checker table (summary.csv) as published, under the checker's column names
    (Organization, Platform, MlperfModel, Model, Scenario, Result, Units...): v6.1's only table. It
    carries no result ID: a row is named by its submitter, platform (the system's folder: two systems
    may share a SystemName), benchmark and scenario."""
    path = MIRROR / f"inference_results_{round_name}" / "main" / "summary.csv"
    with path.open(newline="", encoding="utf-8-sig") as f:
        return list(csv.DictReader(f))


def checker_row(round_name: str, organization: str, platform: str, model: str, scenario: str) -> dict:
    """The one checker row of this submitter, platform, benchmark (MlperfModel) and scenario."""
    found = [r for r in checker_rows(round_name) if (r["Organization"], r["Platform"], r["MlperfModel"],
                                                     r["Scenario"]) == (organization, platform, model, scenario)]
    assert len(found) == 1, (round_name, organization, platform, model, scenario, len(found))
    return found[0]


def record(round_name: str, result_id: str, model: str, scenario: str) -> dict:
    """The one JSON record with this ID, Model and Scenario."""
    found = [r for r in records(round_name)
             if r["ID"] == result_id and r["Model"] == model and r["Scenario"] == scenario]
    assert len(found) == 1, (round_name, result_id, model, scenario, len(found))
    return found[0]


def published(round_name: str, result_id: str, model: str, scenario: str) -> float:
    """Performance_Result of the one JSON record with this ID, Model and Scenario."""
    return float(record(round_name, result_id, model, scenario)["Performance_Result"])


def published_in_summary(round_name: str, organization: str, accelerator_model_name: str, accelerators: int,
                         model: str, scenario: str) -> float:
    """Result of the one summary.csv row of this submitter, accelerator name, count, model and scenario
    (the checker's table gives no result ID: the loader numbers its entries)."""
    found = [r for r in checker_rows(round_name)
             if (r["Organization"], r["accelerator_model_name"], r["total_accelerators"], r["Model"], r["Scenario"])
             == (organization, accelerator_model_name, str(accelerators), model, scenario)]
    assert len(found) == 1, (round_name, organization, accelerator_model_name, accelerators, model, scenario, len(found))
    return float(found[0]["Result"])


def rows(con, sql: str, params=None) -> list[dict]:
    return query_frame(con, sql, params).to_dicts()


def one(con, sql: str, params=None) -> dict:
    found = rows(con, sql, params)
    assert len(found) == 1, found
    return found[0]


def as_round(round_name: str, published_in: str) -> list[dict]:
    """A real round's records as another round would publish them: its own round markers (result
    IDs' prefix, `version`), so the load guards take the file for that round."""
    old, new = published_in.lstrip("v"), round_name.lstrip("v")
    out = []
    for r in records(published_in):
        r = {**r, "ID": r["ID"].replace(f"{old}-", f"{new}-", 1)}
        if "version" in r:
            r["version"] = round_name
        out.append(r)
    return out


def load_excerpt(con, round_name: str, records: list[dict], directory) -> None:
    """Load a few real records (reshaped by a test) as the official table of a round: an excerpt,
    so the guard that refuses a round with fewer records than it was published with is allowed."""
    from warehouse.ingest.fetch import FetchSettings, fetch
    from warehouse.ingest.pipeline import load, prepare
    path = directory / f"{round_name}.summary_results.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    fetched = fetch(str(path), "summary_results.json", FetchSettings())
    load(con, fetched, prepare(fetched.content, "summary_results.json", round_name, "official", str(path)),
         round_name, "official", allow=frozenset({"short-of-round"}))


def first_backfill(con):
    """The run report of the first backfill of the shared rounds (nothing before it; every row added
    by its loads, as conftest.load_shared_rounds recorded them)."""
    import polars as pl

    from warehouse.export.run_report import Snapshot, build
    from warehouse.ingest.outcome import RoundOutcome
    loaded = [RoundOutcome(name, "loaded", source_id=f"official/{name}") for name in SHARED_ROUNDS]
    return build(con, "backfill", None, loaded, Snapshot({}, set(), pl.DataFrame(), pl.DataFrame()))


def audit(con, claim_id: str) -> dict:
    """The claim_audit row of one claim."""
    return one(con, "SELECT * FROM claim_audit WHERE id = ?", [claim_id])


@contextmanager
def ledger_warehouse(shared_warehouse: str, directory: Path, claims: list[Path], decisions: list[Path] = ()):
    """A writable copy of the session warehouse in `directory` with these claims and decisions files
    loaded, in order, and the views they feed materialized once -> its connection."""
    from warehouse.ledger.claims import load_claims, load_decisions
    from warehouse.store import db
    from warehouse.views import materialize
    path = directory / "warehouse.duckdb"
    shutil.copyfile(shared_warehouse, path)
    con = db.connect(str(path))
    try:
        for file in claims:
            load_claims(con, file)
        for file in decisions:
            load_decisions(con, file)
        materialize(con, changed={"claims", "decisions"} if decisions else {"claims"})
        yield con
    finally:
        con.close()
