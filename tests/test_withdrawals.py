"""Issue 61 item 5: withdrawals land, truncations do not (docs/definitions.md, "A withdrawal").

MLCommons withdraws a result by publishing the round's table again without it. A whole table one
record short of the round's recorded count (rounds.toml `records`) was refused by `short-of-round`
unless `--allow short-of-round`, so the schedule could never load it. Now a reload whose only
difference is a few rows gone loads under `watch`, the rows recorded `withdrawn` in the ledger
(result_changes, load_events) and in the run's message; a table with half its rows is refused."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MIRROR
from tests.faults import DIGEST_TABLES, digest, one_error_line, query
from tests.faults import remembered  # noqa: F401 - a fixture
from tests.webhook_receiver import receiving

V60_JSON = Path("inference_results_v6.0") / "main" / "summary_results.json"
WITHDRAWN = 100   # the record MLCommons withdraws: one of the middle of the table


def records() -> list[dict]:
    return json.loads((MIRROR / V60_JSON).read_bytes())


@pytest.mark.slow
def test_a_table_with_one_row_withdrawn_loads_under_watch_and_the_ledger_says_withdrawn(
        plain_cli, remembered, monkeypatch):
    path, mirror = remembered
    published = records()
    gone = published.pop(WITHDRAWN)
    (mirror / V60_JSON).write_text(json.dumps(published))
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        code, out, err = plain_cli("--db", path, "watch", "--format", "json")
    assert code == 0, err
    [v60] = [r for r in json.loads(out)["rounds"] if r["round"] == "v6.0"]
    assert v60["status"] == "loaded" and v60["rows_read"] == 519
    assert "1 withdrawn results (withdrawn by MLCommons" in v60["note"]
    [(summary, overrides)] = query(path, "SELECT e.change_summary, s.overrides FROM load_events e JOIN sources s "
                                         "USING (source_id) WHERE e.round = 'v6.0' AND e.status = 'reloaded'")
    assert "withdrawn by MLCommons" in summary and "519 of the 520 records" in summary
    assert overrides == []  # not an override: the file's evidence answers the guard
    withdrawn = query(path, "SELECT DISTINCT result_id, model, scenario FROM result_changes WHERE change = 'withdrawn'")
    assert withdrawn == [(gone["ID"], gone["Model"], gone["Scenario"])]
    assert query(path, "SELECT count(*) FROM results WHERE round = 'v6.0' AND entry_id IN "
                       f"(SELECT entry_id FROM result_changes WHERE change = 'withdrawn')"
                       f" AND model = '{gone['Model']}' AND scenario = '{gone['Scenario']}'") == [(0,)]
    [message] = receiver.messages
    assert "0 added, 0 changed, 1 withdrawn result rows" in message["message"]
    assert f"{gone['ID']} {gone['Model']} {gone['Scenario']} performance: withdrawn" in message["message"]


def test_a_table_cut_at_half_is_refused(plain_cli, remembered):
    path, mirror = remembered
    (mirror / V60_JSON).write_text(json.dumps(records()[:260]))
    before = digest(path, tables=DIGEST_TABLES)
    code, _, err = plain_cli("--db", path, "watch")
    assert code == 1
    line = one_error_line(err)
    assert "260 records, but v6.0 was published with 520" in line and "--allow short-of-round" in line
    assert digest(path, tables=DIGEST_TABLES) == before


def test_a_table_a_row_short_that_adds_a_row_is_no_withdrawal(plain_cli, remembered):
    """The rows left must be the loaded ones: a table that lost a row and gained another is not
    MLCommons withdrawing one."""
    path, mirror = remembered
    published = records()
    published[WITHDRAWN] = {**published[WITHDRAWN], "Unique ID (e.g. for Audit)": "datacenter/closed/Nobody/never-loaded"}
    published.pop(WITHDRAWN + 1)
    (mirror / V60_JSON).write_text(json.dumps(published))
    before = digest(path, tables=DIGEST_TABLES)
    code, _, err = plain_cli("--db", path, "watch")
    assert code == 1 and "short-of-round" in one_error_line(err)
    assert digest(path, tables=DIGEST_TABLES) == before


@pytest.mark.unit
@pytest.mark.parametrize("rows_read, fmt, added, last_kept, loads", [
    (519, "final", 0, True, True),             # one record withdrawn
    (519, "final", 0, False, True),            # the last record withdrawn: a JSON file cannot be cut and parse
    (510, "final", 0, True, True),             # 2% of 520 = 10 records, the bound
    (509, "final", 0, True, False),            # past the bound: most likely not a withdrawal
    (260, "final", 0, True, False),            # half of it
    (519, "final", 1, True, False),            # a row the loaded table lacks: not only rows gone
    (519, "checker_csv", 0, True, True),       # a CSV that still ends as the loaded one did
    (519, "checker_csv", 0, False, False),     # a CSV whose last record is gone: cut at a line break?
])
def test_the_withdrawal_rule_and_its_bounds(rows_read, fmt, added, last_kept, loads):
    from warehouse.ingest.guards import Reload, withdrawal
    assert withdrawal(rows_read, 520, fmt, Reload(added, last_kept), limit=0.02) is loads


@pytest.mark.unit
def test_no_withdrawal_without_a_loaded_table_or_a_count():
    from warehouse.ingest.guards import Reload, withdrawal
    assert withdrawal(519, 520, "final", None, limit=0.02) is False          # a first load: nothing to compare
    assert withdrawal(519, None, "final", Reload(0, True), limit=0.02) is False
    assert withdrawal(3, 4, "final", Reload(0, True), limit=0.02) is True     # at least one record
