"""Issue 54, the notifier's doors to the outside: a token in a target's URL is never stored or printed
(nor a bare token given as MLPERF_NOTIFY), a receiver that accepts and then drips its answer holds
neither `notify --test` nor a run past its budget, a message is bounded and parses as XML whatever a
name holds, and a decision is announced only when a target received it. A real webhook on 127.0.0.1
(tests/webhook_receiver.py) and real runs; small budgets set through the settings' variables."""
from __future__ import annotations

import logging
import time
import xml.etree.ElementTree as ET

import pytest

from tests.conftest import MIRROR, ROOT
from tests.faults import one_error_line
from tests.readers import connect_file
from tests.test_notify import a_closed_port, everything_in
from tests.webhook_receiver import receiving

TOKEN = "hk7f3Q9zXw2Lr8Vt5Bn1"  # a webhook's secret, as a path segment
SLACK = "slack://T1JJ3T3L2/A1BRTD4JD/TIiajkdnlazkcOXrIdevi7FQ"
BARE = "xoxb-2718281828-3141592653-Zq8RkT1mWv4Lp0Xs"


@pytest.fixture
def small_budgets(monkeypatch):
    monkeypatch.setenv("MLPERF_NOTIFY_BACKOFF", "0.05")
    monkeypatch.setenv("MLPERF_NOTIFY_RETRIES", "0")
    monkeypatch.setenv("MLPERF_NOTIFY_TARGET_BUDGET", "1")
    monkeypatch.setenv("MLPERF_NOTIFY_RUN_BUDGET", "1.5")


@pytest.mark.unit
@pytest.mark.parametrize("url, shown", [
    (f"json://analyst:pw@127.0.0.1:8080/hooks/{TOKEN}", "json://127.0.0.1:8080/hooks/REDACTED"),
    (f"json://127.0.0.1/hooks/{TOKEN}?:Authorization=Bearer%20{TOKEN}#x", "json://127.0.0.1/hooks/REDACTED"),
    (SLACK, "slack://REDACTED/REDACTED/REDACTED"),
    ("slack://T...2/A...D/T...Q/%23general/", "slack://REDACTED/REDACTED/REDACTED/%23general/"),  # Apprise's privacy form
    (f"slack://{BARE}/#general", "slack://REDACTED"),
    ("tgram://123456789:AAHk3Zq8RkT1mWv4Lp0/12345", "tgram://REDACTED/12345"),
    ("mailtos://analyst:app-password@gmail.com/?to=oncall@example.com", "mailtos://gmail.com"),
    ("json://[::1]:9/hook", "json://[::1]:9/hook"),
    (f"{BARE}://x", "REDACTED://"),
])
def test_a_targets_url_is_redacted_to_its_scheme_host_and_plain_path(url, shown):
    from warehouse.ingest.source_urls import redact
    assert redact(url) == shown


@pytest.mark.unit
def test_a_source_url_keeps_its_path():
    """The source reader's URLs are remembered and fetched again: only credentials leave them."""
    from warehouse.ingest.source_urls import redact
    url = "https://host/mlcommons/inference_results_v5.1/3f2a9c0d1e/summary_results.json"
    assert redact(url) == url


def test_a_token_in_a_webhooks_path_is_never_stored_or_printed(monkeypatch, small_budgets, tmp_path, capsys,
                                                                caplog):
    """A watch whose source is down notifies a webhook that refuses it (500, its reason recorded);
    then `notify` lists it beside a Slack target and `notify --test` tries it: the tokens are nowhere,
    nor in any log line at DEBUG (Apprise logs each URL it reads, whole)."""
    from warehouse.cli import main
    from warehouse.store import db
    caplog.set_level(logging.DEBUG)
    db_file = str(tmp_path / "w.duckdb")
    db.connect(db_file).close()
    with receiving(statuses=[500, 500]) as receiver:
        webhook = f"json://127.0.0.1:{receiver.port}/hooks/{TOKEN}"
        monkeypatch.setenv("MLPERF_NOTIFY", webhook)
        assert main(["watch", "--source", f"http://127.0.0.1:{a_closed_port()}", "--db", db_file]) == 1
        monkeypatch.setenv("MLPERF_NOTIFY", f"{webhook} {SLACK}")
        assert main(["notify", "--db", db_file, "--writer-file"]) == 0
        monkeypatch.setenv("MLPERF_NOTIFY", webhook)
        assert main(["notify", "--test"]) == 1
    out, err = capsys.readouterr()
    assert len(receiver.bodies) == 2  # the watch's failure, the test message
    with connect_file(db_file, read_only=True) as con:
        [(target, delivered, reason)] = con.execute("SELECT target, delivered, reason FROM deliveries").fetchall()
    assert (target, delivered) == (f"json://127.0.0.1:{receiver.port}/hooks/REDACTED", False) and "500" in reason
    assert "slack://REDACTED/REDACTED/REDACTED" in out and "/hooks/REDACTED: not delivered" in err
    # Apprise's own lines reach no handler but the reason's (pytest's capture adds itself to every
    # logger that does not propagate, so they are left out here); every other logger's are read.
    assert not logging.getLogger("apprise").propagate
    logged = "\n".join(r.getMessage() for r in caplog.records if r.name != "apprise")
    for where, text in (("the warehouse", everything_in(db_file)), ("the output", out + err), ("the log", logged)):
        for secret in (TOKEN, "T1JJ3T3L2", "A1BRTD4JD", "TIiajkdnlazkcOXrIdevi7FQ"):
            assert secret not in text, f"{secret} is in {where}"


def test_a_bare_token_as_mlperf_notify_is_not_echoed(monkeypatch, capsys):
    from warehouse.cli import main
    monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:9/hook {BARE}")
    assert main(["notify", "--test"]) == 2
    err = capsys.readouterr().err
    line = one_error_line(err)
    assert "MLPERF_NOTIFY" in line and "value 2 of 2 is not a notification URL" in line, line
    assert BARE not in err and "2718281828" not in err


@pytest.mark.timeout(60)  # on the code before the budgets, a dripping receiver held it 150 s and more
def test_notify_test_reports_a_dripping_target_as_timed_out_within_its_budget(monkeypatch, small_budgets, capsys):
    from warehouse.cli import main
    with receiving(statuses=[("drip", 0.2)]) as slow, receiving() as fast:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{slow.port}/hook json://127.0.0.1:{fast.port}/hook")
        started = time.monotonic()
        code = main(["notify", "--test", "--format", "csv"])
        took = time.monotonic() - started
        while not slow.dropped and time.monotonic() < started + 5:
            time.sleep(0.05)
    out, err = capsys.readouterr()
    # the connection is closed at the budget: the receiver cannot keep the sending thread reading
    assert slow.dropped and slow.dropped[0] - started < 3, "the dripping answer was still being read"
    assert code == 1 and took < 5, (took, out, err)  # its 1-s budget, and the command around it
    rows = out.strip().splitlines()
    assert rows[1] == (f"json://127.0.0.1:{slow.port}/hook,false,1,timed out: no answer within 1 s "
                       "(MLPERF_NOTIFY_TARGET_BUDGET; the connection was closed)"), rows
    assert rows[2] == f"json://127.0.0.1:{fast.port}/hook,true,1,\"\""
    assert len(slow.bodies) == 1 and [m["title"] for m in fast.messages] == ["MLPerf warehouse: test message"]
    assert f"error: json://127.0.0.1:{slow.port}/hook: not delivered: timed out" in err


@pytest.mark.timeout(60)
@pytest.mark.slow
def test_the_runs_budget_bounds_all_its_targets_together(monkeypatch, small_budgets):
    """Three dripping targets, each allowed 10 s: sent side by side, all given up at the run's 1.5 s."""
    from warehouse.notify.deliver import Message, configured_targets, deliver
    monkeypatch.setenv("MLPERF_NOTIFY_TARGET_BUDGET", "10")
    with receiving(statuses=[("drip", 0.2)] * 3) as slow:
        monkeypatch.setenv("MLPERF_NOTIFY", " ".join(f"json://127.0.0.1:{slow.port}/hook{i}" for i in range(3)))
        started = time.monotonic()
        deliveries = deliver(Message("t", "b"), configured_targets())
        took = time.monotonic() - started
    assert 1.4 < took < 4, took
    assert [(d.delivered, d.reason.split(" (")[0]) for d in deliveries] == [
        (False, "timed out: no answer within 1.5 s")] * 3
    assert all("MLPERF_NOTIFY_RUN_BUDGET" in d.reason for d in deliveries)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_run_whose_webhook_drips_ends_within_the_budget_and_keeps_its_load(monkeypatch, small_budgets, tmp_path):
    from warehouse.cli import main
    db_file = str(tmp_path / "w.duckdb")
    with receiving(statuses=[("drip", 0.2)]) as slow:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{slow.port}/hook")
        started = time.monotonic()
        assert main(["backfill", "--rounds", "v6.0", "--source", str(MIRROR), "--db", db_file, "-q"]) == 0
        took = time.monotonic() - started
    # the load's own seconds (2-3 on a quiet machine) and the notification's 1.5; unbounded, the
    # receiver's answer takes 10,000 x 0.2 s
    assert took < 60, took
    with connect_file(db_file, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM results").fetchone() == (520,)
        [(delivered, reason)] = con.execute("SELECT delivered, reason FROM deliveries").fetchall()
    assert not delivered and reason.startswith("timed out: no answer within 1 s")


NAME = "Acme <b>& \x1b[31mred\x1b[0m \x00"


def test_an_xml_target_gets_a_body_that_parses_whatever_a_name_holds(monkeypatch, small_budgets):
    """A published name holding markup and a terminal's escape codes, in a correction line, sent to
    Apprise's xml:// target: the receiver parses the body and reads the name's markup as text."""
    from warehouse.notify.deliver import Message, configured_targets, deliver
    from warehouse.notify.message import RoundRows, compose
    rows = [RoundRows("v6.0", False, 0, 1, 0, [f"6.0-0001 llama2-70b-99 Offline performance: submitter "
                                                f"Acme -> {NAME}"])]
    message = compose("backfill", [], [], [], [], rows, None)
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"xml://127.0.0.1:{receiver.port}/hook")
        [delivery] = deliver(Message(f"MLPerf {NAME}", message.body), configured_targets())
    assert delivery.delivered, delivery
    [body] = receiver.bodies
    root = ET.fromstring(body)  # raises on a body that does not parse
    text = "".join(root.itertext())
    assert "Acme <b>& \\x1b[31mred\\x1b[0m \\x00" in text and "MLPerf Acme <b>&" in text


def test_a_megabyte_note_is_cut_with_a_count_and_the_message_bounded(monkeypatch, small_budgets):
    from warehouse.notify.deliver import BODY_MAX, Message, configured_targets, deliver
    from warehouse.notify.message import LINE_MAX, RoundRows, compose
    note = "n" * 2_000_000
    corrections = [f"6.0-{i:04d} llama2-70b-99 Offline performance: notes (none) -> {note}" for i in range(10)]
    message = compose("backfill", [], [], [], [], [RoundRows("v6.0", False, 0, 10, 0, corrections)], None)
    line = next(line for line in message.body.splitlines() if line.startswith("- 6.0-0000 "))
    assert len(line) < LINE_MAX + 50 and line.endswith(f"... ({len(corrections[0]) - LINE_MAX:,} characters cut)")
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        [delivery] = deliver(Message("t", message.body + "\n" + "x" * 50_000), configured_targets())
    assert delivery.delivered
    [sent] = receiver.messages
    assert len(sent["message"]) <= BODY_MAX + 40 and sent["message"].endswith(" characters cut)")


@pytest.mark.slow
def test_a_decision_is_announced_only_when_a_target_received_it(private_con, small_budgets, monkeypatch):
    from warehouse.export.run_report import build
    from warehouse.ingest.outcome import RoundOutcome
    from warehouse.ledger.claims import load_claims, load_decisions
    from warehouse.notify.run import after_run
    from warehouse.views import materialize
    load_claims(private_con, ROOT / "tests" / "fixtures" / "catalog" / "claims.toml")
    load_decisions(private_con, ROOT / "tests" / "fixtures" / "catalog" / "decisions.toml")
    materialize(private_con)
    quiet = [RoundOutcome("v6.0", "unchanged")]
    notices = "SELECT decision_id FROM decision_notices"
    monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{a_closed_port()}/hook")
    unheard = after_run(private_con, build(private_con, "watch", None, quiet, None), None)
    assert unheard.message is not None and not unheard.deliveries[0].delivered
    assert private_con.execute(notices).fetchall() == []
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        heard = after_run(private_con, build(private_con, "watch", None, quiet, None), None)
    assert heard.deliveries[0].delivered and [m["title"] for m in receiver.messages] == [
        "MLPerf: 1 decision due for review"]
    assert private_con.execute(notices).fetchall() == [("catalog-review-by-date",)]
    assert private_con.execute("SELECT subject FROM answer_changes WHERE kind = 'decision_due'").fetchall() == [
        ("catalog-review-by-date",)]  # told twice, recorded once


def test_a_token_an_earlier_version_stored_is_redacted_by_the_next_record(tmp_path):
    from datetime import datetime, timezone

    from warehouse.notify.deliver import Delivery, Message, record
    from warehouse.store import db
    with db.connect(str(tmp_path / "w.duckdb")) as con:
        con.execute("INSERT INTO deliveries VALUES (?, NULL, 'watch', ?, 't', true, 1, NULL)",
                    [datetime(2026, 12, 1, tzinfo=timezone.utc), f"json://127.0.0.1:9/hooks/{TOKEN}"])
        record(con, Message("t", "b"), [Delivery("block:custom-webhook/ops", True, 1, None)], "watch", None)
        assert con.execute("SELECT target FROM deliveries ORDER BY attempted_at").fetchall() == [
            ("json://127.0.0.1:9/hooks/REDACTED",), ("block:custom-webhook/ops",)]


@pytest.mark.unit
def test_a_reason_loses_every_part_of_the_address_that_may_be_a_token():
    from warehouse.notify.deliver import scrub, url_secrets
    reason = "Failed to reach T1JJ3T3L2 with TIiajkdnlazkcOXrIdevi7FQ; bot 123456789:AAHk3Zq8RkT1mWv4Lp0 at 127.0.0.1:8080"
    assert scrub(reason, url_secrets(SLACK) + url_secrets("tgram://123456789:AAHk3Zq8RkT1mWv4Lp0/")
                 + url_secrets("json://127.0.0.1:8080/hook")) == (
        "Failed to reach **** with ****; bot 123456789:**** at 127.0.0.1:8080")


@pytest.mark.unit
def test_config_shows_a_targets_scheme_but_never_a_token_written_as_one():
    from warehouse.settings import hidden
    assert hidden(f"json://127.0.0.1/hooks/{TOKEN} {BARE}://x mailtos://a:b@gmail.com") == (
        "json://(hidden) (hidden)://(hidden) mailtos://(hidden)")
