"""review_due = "next": the first official round published after the decision, whatever its name."""
import datetime as dt
import json
import textwrap

import pytest

from tests.conftest import MIRROR
from tests.shared_rows import as_round
from warehouse.identity.round_table import record_found
from warehouse.identity.rounds import load_registry, round_named
from warehouse.ingest.pipeline import ingest_location
from warehouse.ledger.claims import load_decisions
from warehouse.store import db
from warehouse.views import materialize

V60_FILE = MIRROR / "inference_results_v6.0" / "main" / "summary_results.json"
DECIDED_AFTER_V61 = dt.date(2026, 9, 30)  # v6.1 was published 2026-09-16 (rounds.toml)


def v60_as(round_name: str, directory) -> str:
    """v6.0's table with another round's markers (result IDs, version), as that round would carry."""
    records = as_round(round_name, "v6.0")
    path = directory / round_name / V60_FILE.name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records))
    return str(path)


def decision_toml(decided_on: dt.date) -> str:
    return textwrap.dedent(f"""\
        [[decision]]
        id = "after-v6.1"
        title = "decided after v6.1"
        workload = "inference"
        metric = "tokens per second per rack"
        measured_by = "replay"
        claims_used = []
        claims_excluded = []
        decision = "keep the fleet"
        decided_on = {decided_on.isoformat()}
        review_due = "next"
        """)


def due(con) -> dict[str, tuple]:
    return {i: (r, why) for i, r, why in con.execute(
        "SELECT id, review_round, due_because FROM decisions_due").fetchall()}


@pytest.mark.slow
def test_next_falls_due_with_the_first_round_published_after_the_decision(tmp_path):
    assert load_registry()["v6.1"].published == dt.date(2026, 9, 16)
    with db.connect(str(tmp_path / "w.duckdb")) as con:
        # v6.1 is not in the shared data: its registry entry, fed v6.0's table, stands in for it.
        ingest_location(con, "v6.1", "official", V60_FILE.name, v60_as("v6.1", tmp_path))
        (tmp_path / "d.toml").write_text(decision_toml(DECIDED_AFTER_V61))
        load_decisions(con, tmp_path / "d.toml")
        materialize(con)
        assert due(con) == {}  # v6.1 was published before the decision

        seen_on = max(dt.date.today(), DECIDED_AFTER_V61 + dt.timedelta(days=1))
        record_found(con, round_named("v7.0"), seen_on)  # after v6.1 comes v7.0, not v6.2
        ingest_location(con, "v7.0", "official", V60_FILE.name, v60_as("v7.0", tmp_path))
        materialize(con)
        assert due(con) == {"after-v6.1": (
            "v7.0", f"round v7.0 (published {seen_on.isoformat()}) is the first published after the decision")}


@pytest.mark.slow
def test_a_round_found_again_keeps_the_day_it_was_first_seen(tmp_path):
    with db.connect(str(tmp_path / "w.duckdb")) as con:
        materialize(con)
        record_found(con, round_named("v6.2"), dt.date(2026, 11, 1))
        record_found(con, round_named("v6.2"), dt.date(2026, 11, 2))
        materialize(con)  # re-syncing the registry leaves found rounds alone
        assert con.execute("SELECT published_on, found_by FROM rounds WHERE round = 'v6.2'").fetchall() == [
            (dt.date(2026, 11, 1), "watcher")]
        assert con.execute("SELECT published_on FROM rounds WHERE round = 'v6.1'").fetchall() == [
            (dt.date(2026, 9, 16),)]


@pytest.mark.slow
def test_a_round_loaded_from_a_file_is_dated_by_its_first_load(cli, tmp_path):
    # `ingest v7.3 --file --origin official` under a name neither the registry nor the watcher knows:
    # the round table dates it the day it was first loaded, and a review due "at the next round" falls
    # due on it (decided yesterday, so today's load is after the decision).
    db_file = tmp_path / "w.duckdb"
    yesterday = dt.date.today() - dt.timedelta(days=1)
    with db.connect(str(db_file)) as con:
        (tmp_path / "d.toml").write_text(decision_toml(yesterday))
        load_decisions(con, tmp_path / "d.toml")
        materialize(con)
    code, _, err = cli("ingest", "v7.3", "--file", v60_as("v7.3", tmp_path), "--origin", "official", "--db", db_file)
    assert code == 0, err
    today = dt.date.today()
    with db.connect(str(db_file), read_only=True) as con:
        assert con.execute("SELECT published_on, found_by, files FROM rounds WHERE round = 'v7.3'").fetchall() == [
            (today, "first load", ["summary_results.json"])]
        assert due(con) == {"after-v6.1": (
            "v7.3", f"round v7.3 (published {today.isoformat()}) is the first published after the decision")}
