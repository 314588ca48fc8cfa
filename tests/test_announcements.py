"""Issue 61 item 6: a decision due counts as announced per target. It counted as announced once any
one target got it, so a target that was down when it fell due never got it. Two real webhooks on
127.0.0.1, one answering 500 the first time: the next run tells that one alone, and the run after
tells neither."""
from __future__ import annotations

import pytest

from tests.conftest import ROOT
from tests.webhook_receiver import receiving

CATALOG = ROOT / "tests" / "fixtures" / "catalog"


@pytest.fixture
def due(private_con, monkeypatch):
    """A warehouse connection holding a decision due for review (its review date passed)."""
    from warehouse.ledger.claims import load_claims, load_decisions
    from warehouse.views import materialize
    monkeypatch.setenv("MLPERF_NOTIFY_RETRIES", "0")
    load_claims(private_con, CATALOG / "claims.toml")
    load_decisions(private_con, CATALOG / "decisions.toml")
    materialize(private_con)
    return private_con


def quiet_watch(con):
    """A watch's notification that loaded nothing: only the decisions due have news."""
    from warehouse.export.run_report import build
    from warehouse.ingest.outcome import RoundOutcome
    from warehouse.notify.run import after_run
    return after_run(con, build(con, "watch", None, [RoundOutcome("v6.0", "unchanged")], None), None)


def test_a_target_that_was_down_is_told_the_decision_by_the_next_run(due, monkeypatch):
    with receiving() as up, receiving(statuses=[500]) as down:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{up.port}/a json://127.0.0.1:{down.port}/b")
        first = quiet_watch(due)
        assert [d.delivered for d in first.deliveries] == [True, False]
        second = quiet_watch(due)
        assert [d.target for d in second.deliveries] == [f"json://127.0.0.1:{down.port}/b"]
        third = quiet_watch(due)
        assert third.deliveries == []
    assert [m["title"] for m in up.messages] == ["MLPerf: 1 decision due for review"]
    assert [m["title"] for m in down.messages] == ["MLPerf: 1 decision due for review"]  # the 500 kept nothing
    announced = due.execute("SELECT decision_id, target FROM decision_announcements ORDER BY announced_at").fetchall()
    assert announced == [("catalog-review-by-date", f"json://127.0.0.1:{up.port}/a"),
                         ("catalog-review-by-date", f"json://127.0.0.1:{down.port}/b")]
    assert due.execute("SELECT count(*) FROM answer_changes WHERE kind = 'decision_due'").fetchall() == [(1,)]


def test_two_targets_that_read_alike_redacted_are_told_apart(due, monkeypatch):
    """Two webhooks whose paths are their tokens redact alike (json://host/hooks/REDACTED): the one
    added after the decision was announced to the other is told it. What tells them apart is a digest
    of the whole URL, which gives no token back."""
    from warehouse.notify.deliver import configured_targets
    with receiving() as receiver:
        a = f"json://127.0.0.1:{receiver.port}/hooks/hk7f3Q9zXw2Lr8Vt5Bn1"
        b = f"json://127.0.0.1:{receiver.port}/hooks/hk7f3Q9zXw2Lr8Vt5Bn2"
        monkeypatch.setenv("MLPERF_NOTIFY", a)
        quiet_watch(due)
        monkeypatch.setenv("MLPERF_NOTIFY", f"{a} {b}")
        second = quiet_watch(due)
        keys = [t.key for t in configured_targets()]
    assert [(d.target, d.delivered) for d in second.deliveries] == [
        (f"json://127.0.0.1:{receiver.port}/hooks/REDACTED", True)]
    assert len(receiver.messages) == 2
    assert len(set(keys)) == 2 and all("hk7f3Q9z" not in key for key in keys)
    stored = due.execute("SELECT string_agg(target || target_key, ' ') FROM decision_announcements").fetchall()[0][0]
    assert "hk7f3Q9zXw2Lr8Vt5Bn" not in stored
