"""Notifications, end to end: a real HTTP receiver on 127.0.0.1 as the MLPERF_NOTIFY target
(json://127.0.0.1:PORT/hook: Apprise's JSON webhook), real loads of the shared mirror, and the
messages as the receiver got them; a receiver that is down; decisions that fall due while nothing
loads; `notify --test` and `decisions due`."""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.conftest import MIRROR, ROOT
from tests.readers import connect_file
from tests.webhook_receiver import Receiver, receiving

PASSWORD = "hook-pw-s3cr3t-2718"
V51 = Path("inference_results_v5.1") / "main" / "summary_results.json"


def a_closed_port() -> int:
    server = Receiver()
    port = server.port
    server.server_close()
    return port


@pytest.fixture
def fast_retries(monkeypatch):
    monkeypatch.setenv("MLPERF_NOTIFY_BACKOFF", "0.05")


def everything_in(db_file: str) -> str:
    """Every value of every table of every schema, as text, plus the file's bytes as Latin-1 (a value
    DuckDB compressed in the file is still found in the first part)."""
    with connect_file(db_file, read_only=True) as con:
        tables = con.execute("SELECT schema_name, table_name FROM duckdb_tables()").fetchall()
        text = "\n".join(str(con.execute(f'SELECT * FROM "{s}"."{t}"').fetchall()) for s, t in tables)
    files = [Path(db_file), Path(db_file + ".wal")]
    return text + "".join(p.read_bytes().decode("latin-1") for p in files if p.exists())


def republish_v51(upstream: Path) -> dict:
    """v5.1 as MLCommons re-publishes it with one corrected value: record 0, 5.1-0001 llama2-70b-99
    Interactive, 8840.42 Tokens/s, becomes 8840.42 x 1.5 = 13260.63."""
    target = upstream / V51
    target.parent.mkdir(parents=True)
    records = json.loads((MIRROR / V51).read_bytes())
    records[0]["Performance_Result"] = 13260.63
    target.write_text(json.dumps(records))
    return records[0]


GAP = re.compile(r"- per (accelerator|rack), [^:]+: (?P<id>\d\.\d-\d{4}) \(v6\.0, [^)]*\): (?P<new>[\d,.]+) per \w+, "
                 r"(?P<gap>\d+\.\d\d)x the previous leader (?P<old_id>5\.1-\d{4}) \(v5\.1, [^)]*\): (?P<old>[\d,.]+) per")


@pytest.mark.slow  # four backfills in a row, each a Prefect flow run (~25 s)
def test_one_message_per_load_none_for_an_unchanged_round_and_a_correction_by_result_id(
        cli, db_file, tmp_path, monkeypatch, fast_retries):
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        for round_name in ("v5.1", "v6.0"):
            code, out, err = cli("backfill", "--rounds", round_name, "--source", MIRROR, "--db", db_file)
            assert code == 0, (out, err)
        assert len(receiver.messages) == 2, "exactly one message per load"
        first, second = receiver.messages
        # v5.1 into an empty warehouse: 1448 records, 24 with a power row too: 1448 + 24 = 1472 rows added
        assert first["title"].startswith("MLPerf v5.1 loaded, ") and first["type"] == "info"
        assert "Rows v5.1: 1,472 added, 0 changed, 0 withdrawn result rows (first load)" in first["message"]
        assert re.search(r"- per (accelerator|rack), .*: 5\.1-\d{4} \(v5\.1, .*\(first leader\)", first["message"])
        # v6.0: 520 records, no power row; a leader of v6.0 beats v5.1's by the gap it states
        assert second["title"].startswith("MLPerf v6.0 loaded, ")
        assert "Rows v6.0: 520 added, 0 changed, 0 withdrawn result rows (first load)" in second["message"]
        gaps = list(GAP.finditer(second["message"]))
        assert gaps, second["message"]
        for gap in gaps:  # the gap is the new figure over the old one, as printed (1 decimal or 3 digits)
            new, old = (float(gap[k].replace(",", "")) for k in ("new", "old"))
            assert float(gap["gap"]) == pytest.approx(new / old, rel=0.01)
        answers = second["message"].index("New leaders")
        assert answers < second["message"].index("Rows v6.0") < second["message"].index("Report: ")

        code, out, err = cli("backfill", "--rounds", "v6.0", "--source", MIRROR, "--db", db_file)
        assert code == 0 and "nothing new" in out, (out, err)
        assert len(receiver.messages) == 2, "a run that changed nothing sends nothing"

        upstream = tmp_path / "upstream"
        corrected = republish_v51(upstream)
        code, out, err = cli("backfill", "--rounds", "v5.1", "--source", upstream, "--db", db_file)
        assert code == 0, (out, err)
        assert len(receiver.messages) == 3
        third = receiver.messages[2]
    assert third["title"].startswith("MLPerf v5.1 re-published")
    assert "Rows v5.1: 0 added, 1 changed, 0 withdrawn result rows" in third["message"]
    assert "- 5.1-0001 llama2-70b-99 Interactive performance: value 8,840 -> 13,261" in third["message"]  # 8840.42 x 1.5
    with connect_file(db_file, read_only=True) as con:
        assert con.execute("SELECT result_id, model, scenario, field, published_before, published_after "
                           "FROM published_changes WHERE NOT first_load").fetchall() == [
            (corrected["ID"], "llama2-70b-99", "Interactive", "value", "8840.42", "13260.63")]
        assert con.execute("SELECT count(*), bool_and(delivered), max(attempts) FROM deliveries").fetchall() == [(3, True, 1)]


@pytest.mark.slow  # a Prefect flow run, its logs read back from Prefect's database (~12 s)
def test_a_receiver_that_is_down_leaves_the_load_as_it_was_and_its_password_nowhere(
        cli, db_file, tmp_path, monkeypatch, fast_retries):
    from tests.test_secrets import everything_in as prefect_dump, flush_prefect_logs, prefect_database
    monkeypatch.setenv("MLPERF_NOTIFY", f"json://analyst:{PASSWORD}@127.0.0.1:{a_closed_port()}/hook")
    code, out, err = cli("-v", "backfill", "--rounds", "v6.0", "--source", MIRROR, "--db", db_file)
    assert code == 0, (out, err)
    with connect_file(db_file, read_only=True) as con:
        assert con.execute("SELECT count(*) FROM results WHERE round = 'v6.0'").fetchall() == [(520,)]
        [(target, delivered, attempts, reason)] = con.execute(
            "SELECT target, delivered, attempts, reason FROM deliveries").fetchall()
    assert target.startswith("json://127.0.0.1:") and not delivered and attempts == 3  # 1 + 2 retries
    assert reason == "A Connection error occurred sending JSON notification to 127.0.0.1. ([Errno 111] Connection refused)"
    assert "not delivered after 3 attempts" in err  # said once on stderr, with -v in the run's lines too
    flush_prefect_logs()
    for where, text in (("the warehouse", everything_in(db_file)), ("the CLI's output and logs (-v)", out + err),
                        ("Prefect's database", prefect_dump(prefect_database()))):
        assert "127.0.0.1" in text  # the check reads what was written (the target, masked) ...
        assert PASSWORD not in text, f"the target's password is in {where}"  # ... and the password is not there


def test_a_target_that_fails_then_answers_is_retried_and_recorded(fast_retries, monkeypatch):
    from warehouse.notify.deliver import Message, configured_targets, deliver
    with receiving(statuses=[503]) as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://analyst:{PASSWORD}@127.0.0.1:{receiver.port}/hook")
        [delivery] = deliver(Message("MLPerf v6.0 loaded", "body"), configured_targets())
    assert (delivery.delivered, delivery.attempts, delivery.reason) == (True, 2, None)
    assert delivery.target == f"json://127.0.0.1:{receiver.port}/hook"
    assert [m["title"] for m in receiver.messages] == ["MLPerf v6.0 loaded"]
    assert receiver.authorizations[0].startswith("Basic ")  # the credentials go to the target, and only there


def test_a_target_that_keeps_failing_says_why(fast_retries, monkeypatch):
    from warehouse.notify.deliver import Message, configured_targets, deliver
    with receiving(statuses=[500, 500, 500]) as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook bogus://x")
        failed, bogus = deliver(Message("t", "b"), configured_targets())
    assert (failed.delivered, failed.attempts) == (False, 3) and "error=500" in failed.reason
    assert (bogus.delivered, bogus.attempts, bogus.target) == (False, 1, "bogus://x")  # never retried
    assert receiver.messages == []


@pytest.mark.slow
def test_a_decision_whose_review_date_passes_is_announced_once(private_con, fast_retries, monkeypatch):
    """The watcher's tick with nothing to load: the fixture's decision (review_due 2026-06-01, past)
    is announced once, then never again while its reason stays the same."""
    from warehouse.export.run_report import build
    from warehouse.ingest.outcome import RoundOutcome
    from warehouse.ledger.claims import load_claims, load_decisions
    from warehouse.notify.run import after_run
    from warehouse.views import materialize
    load_claims(private_con, ROOT / "tests" / "fixtures" / "catalog" / "claims.toml")
    load_decisions(private_con, ROOT / "tests" / "fixtures" / "catalog" / "decisions.toml")
    materialize(private_con)
    quiet = [RoundOutcome("v6.0", "unchanged")]
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        first = after_run(private_con, build(private_con, "watch", None, quiet, None), None)
        again = after_run(private_con, build(private_con, "watch", None, quiet, None), None)
    assert [m["title"] for m in receiver.messages] == ["MLPerf: 1 decision due for review"]
    assert ("- catalog-review-by-date: review date 2026-06-01 has passed "
            "(mlperf-wh decisions show catalog-review-by-date)") in receiver.messages[0]["message"]
    assert first.message is not None and again.message is None
    assert private_con.execute("SELECT kind, subject, after FROM answer_changes").fetchall() == [
        ("decision_due", "catalog-review-by-date", "review date 2026-06-01 has passed")]


def test_notify_test_reports_each_target(fast_retries, monkeypatch, capsys):
    from warehouse.cli import main
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://analyst:{PASSWORD}@127.0.0.1:{receiver.port}/hook "
                                            f"json://127.0.0.1:{a_closed_port()}/hook")
        code = main(["notify", "--test", "--format", "csv"])
    out, err = capsys.readouterr()
    assert code == 1  # one target did not accept it
    assert [m["title"] for m in receiver.messages] == ["MLPerf warehouse: test message"]
    rows = out.strip().splitlines()
    assert rows[0] == "target,delivered,attempts,reason"
    assert rows[1] == f"json://127.0.0.1:{receiver.port}/hook,true,1,\"\""
    assert ",false,3,A Connection error occurred" in rows[2] and "Connection refused" in rows[2]
    assert "error: json://127.0.0.1:" in err and PASSWORD not in out + err


def test_notify_without_a_target_says_how_to_set_one(monkeypatch, capsys):
    from warehouse.cli import main
    monkeypatch.delenv("MLPERF_NOTIFY", raising=False)
    assert main(["notify", "--test"]) == 1
    assert capsys.readouterr().err.startswith("error: no notification target: set MLPERF_NOTIFY")


@pytest.mark.slow
def test_decisions_due_lists_them_with_when_they_were_announced(private_con, tmp_path, capsys):
    from warehouse.cli import main
    from warehouse.ledger.claims import load_claims, load_decisions
    from warehouse.notify.run import mark_announced
    from warehouse.views import materialize
    load_claims(private_con, ROOT / "tests" / "fixtures" / "catalog" / "claims.toml")
    load_decisions(private_con, ROOT / "tests" / "fixtures" / "catalog" / "decisions.toml")
    materialize(private_con)
    mark_announced(private_con, {"catalog-review-by-date": "review date 2026-06-01 has passed"})
    private_con.execute("CHECKPOINT")
    path = private_con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchone()[0]
    copy = tmp_path / "read.duckdb"
    shutil.copyfile(path, copy)
    assert main(["decisions", "due", "--db", str(copy), "--writer-file", "--format", "json"]) == 0
    [due] = json.loads(capsys.readouterr().out)
    assert (due["id"], due["due_because"]) == ("catalog-review-by-date", "review date 2026-06-01 has passed")
    assert due["announced_at"] is not None


def test_a_prefect_notification_block_gets_the_message(prefect_harness, fast_retries, monkeypatch):
    """MLPERF_NOTIFY_BLOCK names a block of the configured Prefect API (here a custom webhook block
    posting to the receiver); a block that answers 500 is a failed delivery with its reason, the
    block's URL in it reduced to its host."""
    from prefect.blocks.notifications import CustomWebhookNotificationBlock
    from warehouse.notify.deliver import Message, configured_targets, deliver
    monkeypatch.delenv("MLPERF_NOTIFY", raising=False)
    with receiving(statuses=[200, 500, 500, 500]) as receiver:
        CustomWebhookNotificationBlock(
            name="mlperf on call", url=f"http://127.0.0.1:{receiver.port}/hook/tok3n-in-path",
            json_data={"title": "{{subject}}", "message": "{{body}}"}).save("mlperf-oncall", overwrite=True)
        monkeypatch.setenv("MLPERF_NOTIFY_BLOCK", "custom-webhook/mlperf-oncall")
        [delivered] = deliver(Message("MLPerf v6.0 loaded", "Rows v6.0: 520 added"), configured_targets())
        [failed] = deliver(Message("MLPerf v6.1 loaded", "Rows v6.1"), configured_targets())
    assert (delivered.target, delivered.delivered, delivered.attempts) == ("block:custom-webhook/mlperf-oncall", True, 1)
    assert receiver.messages == [{"title": "MLPerf v6.0 loaded", "message": "Rows v6.0: 520 added"}]
    assert (failed.delivered, failed.attempts) == (False, 3)
    assert failed.reason.startswith("HTTPStatusError: Server error '500") and "tok3n" not in failed.reason
    assert "http://127.0.0.1/..." in failed.reason


def test_a_run_whose_source_cannot_be_reached_sends_its_error_line(fast_retries, monkeypatch, tmp_path, capsys):
    """A watch that fails before any round runs (its mirror down, day after day) still tells the
    on-call analyst, with the line the command prints."""
    from warehouse.cli import main
    source = f"http://127.0.0.1:{a_closed_port()}"
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        code = main(["watch", "--source", source, "--db", str(tmp_path / "w.duckdb")])
    err = capsys.readouterr().err
    assert code == 1
    [message] = receiver.messages
    error_line = next(line for line in err.splitlines() if line.startswith("error: "))
    assert (message["title"], message["type"]) == ("MLPerf watch failed", "failure")
    assert message["message"].splitlines()[0] == error_line and source in error_line


@pytest.mark.slow
def test_a_failed_round_sends_the_line_the_command_prints(fast_retries, monkeypatch, tmp_path, capsys):
    """v6.0's table published cut short: the round fails (exit 1) and the message is its error line."""
    from warehouse.cli import main
    upstream = tmp_path / "upstream"
    cut = upstream / "inference_results_v6.0" / "main" / "summary_results.json"
    cut.parent.mkdir(parents=True)
    cut.write_bytes((MIRROR / "inference_results_v6.0" / "main" / "summary_results.json").read_bytes()[:5000])
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        code = main(["backfill", "--rounds", "v6.0", "--source", str(upstream), "--db", str(tmp_path / "w.duckdb")])
    err = capsys.readouterr().err
    assert code == 1
    [message] = receiver.messages
    error_line = next(line for line in err.splitlines() if line.startswith("error: v6.0 failed: "))
    assert (message["title"], message["type"]) == ("MLPerf backfill failed: v6.0", "failure")
    assert message["message"].splitlines()[0] == error_line


@pytest.fixture
def targets_made(monkeypatch) -> list[tuple[str, str]]:
    """(URL, the thread that made its target) of each Apprise target made from now on."""
    import threading

    from warehouse.notify import deliver
    made, make = [], deliver.apprise_target

    def recording(url: str):
        made.append((url, threading.current_thread().name))
        return make(url)
    monkeypatch.setattr(deliver, "apprise_target", recording)
    return made


@pytest.mark.slow
def test_a_file_ingest_is_notified_as_a_run(fast_retries, monkeypatch, tmp_path, targets_made):
    """`ingest --file`: an unofficial copy of v6.0's table, loaded once (one message), then again
    unchanged (none). Its target is made while the file loads (importing Apprise and its plugins
    took a tenth of a run: issue 42), once for both runs."""
    from warehouse.cli import main
    table = tmp_path / "summary_results.json"
    shutil.copyfile(MIRROR / "inference_results_v6.0" / "main" / "summary_results.json", table)
    with receiving() as receiver:
        url = f"json://127.0.0.1:{receiver.port}/hook"
        monkeypatch.setenv("MLPERF_NOTIFY", url)
        for _ in range(2):
            assert main(["ingest", "v6.0", "--file", str(table), "--db", str(tmp_path / "w.duckdb"), "-q"]) == 0
    [message] = receiver.messages
    assert message["title"].startswith("MLPerf v6.0 loaded")
    assert "Rows v6.0: 520 added, 0 changed, 0 withdrawn result rows (first load)" in message["message"]
    assert targets_made == [(url, "notify-warm-up")]


def test_targets_are_warmed_up_only_when_there_are_some(monkeypatch, targets_made):
    import threading

    from warehouse.notify.deliver import configured_targets, warm_up
    monkeypatch.delenv("MLPERF_NOTIFY", raising=False)
    warm_up()
    assert "notify-warm-up" not in [t.name for t in threading.enumerate()] and targets_made == []
    monkeypatch.setenv("MLPERF_NOTIFY", "json://127.0.0.1:9/warm bogus://warm-up")
    warm_up()
    for thread in [t for t in threading.enumerate() if t.name == "notify-warm-up"]:
        thread.join(timeout=60)
    assert targets_made == [("json://127.0.0.1:9/warm", "notify-warm-up"), ("bogus://warm-up", "notify-warm-up")]
    first = configured_targets()
    assert [t.label for t in first] == ["json://127.0.0.1:9/warm", "bogus://warm-up"]
    assert configured_targets() == first and len(targets_made) == 2  # made once per process


@pytest.mark.slow
def test_a_watch_that_loads_nothing_announces_a_decision_due_once(shared_warehouse, fast_retries, monkeypatch,
                                                                   tmp_path, capsys):
    """`mlperf-wh watch` on a tick with nothing new (no flow runs: flows/look_first.py) still tells
    of a decision whose review date (2026-06-01) has passed, and only on its first tick."""
    from warehouse.cli import main
    from warehouse.ledger.claims import load_claims, load_decisions
    from warehouse.store import db
    from warehouse.views import materialize
    copy = tmp_path / "w.duckdb"
    shutil.copyfile(shared_warehouse, copy)
    with db.connect(str(copy)) as con:
        load_claims(con, ROOT / "tests" / "fixtures" / "catalog" / "claims.toml")
        load_decisions(con, ROOT / "tests" / "fixtures" / "catalog" / "decisions.toml")
        materialize(con)
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        for _ in range(2):
            assert main(["watch", "--source", str(MIRROR), "--db", str(copy), "-q"]) == 0
    assert [m["title"] for m in receiver.messages] == ["MLPerf: 1 decision due for review"]
    assert main(["decisions", "due", "--db", str(copy), "--format", "csv"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "id,title,review_due,due_because,announced_at"
    assert out[1].startswith("catalog-review-by-date,GB300 racks for DeepSeek-R1 serving,2026-06-01,"
                             "review date 2026-06-01 has passed,2026-")
