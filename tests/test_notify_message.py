"""The run's message as composed (pure): what comes first, what is left out, when there is none; the
leader moves between two snapshots; a target's secrets kept out of what is stored and printed."""
from __future__ import annotations

import pytest

from warehouse.notify.answers import Answers, Move, grade_moves, leader_moves
from warehouse.notify.deliver import apprise_reason, scrub, url_secrets
from warehouse.notify.message import RoundRows, compose

pytestmark = pytest.mark.unit


def leader(result_id: str, round_name: str, figure: float) -> dict:
    return {"result_id": result_id, "round": round_name, "accelerator": "GB300", "submitter": "Nebius",
            "figure": figure, "per": "per accelerator", "benchmark": "deepseek-r1", "scenario": "Server"}


SUBJECT = "deepseek-r1 Server Tokens/s"


def test_a_new_best_is_a_move_with_its_gap_and_an_unchanged_one_is_not():
    before = Answers({"leader_per_accelerator": {SUBJECT: leader("5.1-0072", "v5.1", 2907.3),
                                                 "bert-99 Offline Samples/s": leader("5.1-0001", "v5.1", 10.0)}})
    after = Answers({"leader_per_accelerator": {SUBJECT: leader("6.0-0082", "v6.0", 8063.8),
                                                "bert-99 Offline Samples/s": leader("5.1-0001", "v5.1", 10.0),
                                                "whisper Offline Samples/s": leader("6.0-0001", "v6.0", 5.0)}})
    moves = leader_moves(before, after)
    assert [(m.subject, m.result_id) for m in moves] == [(SUBJECT, "6.0-0082"), ("whisper Offline Samples/s", "6.0-0001")]
    assert moves[0].gap == pytest.approx(8063.8 / 2907.3)  # 2.774x
    assert moves[1].gap is None and moves[1].before is None  # the first leader of its subject
    # the leader whose place was taken, for what became of it (notify/fates.py); none for a first leader
    assert (moves[0].previous, moves[1].previous) == (("5.1-0072", "deepseek-r1", "Server"), None)


def test_a_corrected_figure_of_the_same_leader_is_a_move():
    before = Answers({"leader_per_accelerator": {SUBJECT: leader("6.0-0082", "v6.0", 8063.8)}})
    after = Answers({"leader_per_accelerator": {SUBJECT: leader("6.0-0082", "v6.0", 8100.0)}})
    [move] = leader_moves(before, after)
    assert move.gap == pytest.approx(8100.0 / 8063.8) and move.previous is None


def test_grade_moves_name_new_and_changed_claims():
    moves = grade_moves(Answers(grades={"a": "holds", "b": "holds"}), Answers(grades={"a": "overstated", "b": "holds",
                                                                                      "c": "unsupported"}))
    assert [(m.subject, m.before, m.after) for m in moves] == [("a", "holds", "overstated"),
                                                              ("c", "(new claim)", "unsupported")]


def test_answers_come_first_then_claims_decisions_rows_and_the_report():
    moves = [Move("leader_per_accelerator", SUBJECT, "6.0-0082 (v6.0, GB300, Nebius): 8,063.8 per accelerator",
                  "5.1-0072 (v5.1, GB300, NVIDIA): 2,907.3 per accelerator", "6.0-0082", "v6.0", 8063.8 / 2907.3),
             Move("claim_grade", "nvidia-gb300-claim", "overstated", "holds")]
    due = [Move("decision_due", "gb300-racks", "round v6.0 has been published")]
    rows = [RoundRows("v6.0", True, 520, 0, 0, [])]
    message = compose("backfill", [], [], moves, due, rows, None)
    assert message.title == "MLPerf v6.0 loaded, 1 new leader" and not message.failure
    body = message.body
    assert ("- per accelerator, deepseek-r1 Server Tokens/s: 6.0-0082 (v6.0, GB300, Nebius): 8,063.8 per "
            "accelerator, 2.77x the previous leader 5.1-0072 (v5.1, GB300, NVIDIA): 2,907.3 per accelerator") in body
    order = [body.index(s) for s in ("New leaders", "Claims whose grade changed", "Decisions due for review",
                                     "Rows v6.0: 520 added, 0 changed, 0 withdrawn result rows (first load)", "Report: ")]
    assert order == sorted(order)


def test_a_leader_that_lost_its_place_for_a_reason_says_it():
    because = "withdrawn from the re-published table"
    move = Move("leader_per_accelerator", SUBJECT, "6.0-0024 (v6.0, B300, Dell): 13,549 per accelerator",
                "6.0-0010 (v6.0, B300, Cisco): 14,313 per accelerator", "6.0-0024", "v6.0", 13549 / 14313,
                ("6.0-0010", "deepseek-r1", "Server"), because)
    body = compose("backfill", [], [], [move], [], [RoundRows("v6.0", False, 0, 0, 1, [])], None).body
    assert ("- per accelerator, deepseek-r1 Server Tokens/s: 6.0-0024 (v6.0, B300, Dell): 13,549 per accelerator, "
            f"0.95x the previous leader 6.0-0010 (v6.0, B300, Cisco): 14,313 per accelerator ({because})") in body


def test_a_failed_run_says_its_error_line_first():
    message = compose("watch", ["v6.0 failed: http://mirror/inference_results_v6.0/main/summary_results.json: "
                                "HTTP 503 after 4 attempts"], ["v6.0"], [], [], [], "run-1")
    assert message.title == "MLPerf watch failed: v6.0" and message.failure
    assert message.body.startswith("error: v6.0 failed: http://mirror/")
    assert message.body.endswith("mlperf-wh loads (Prefect flow run run-1)")


def test_a_run_that_changed_nothing_has_no_message():
    assert compose("watch", [], [], [], [], [RoundRows("v6.0", False, 0, 0, 0, [])], None) is None


def test_long_sections_are_cut_and_counted():
    moves = [Move("leader_per_rack", f"b{i} Offline Tokens/s (measured rack)", "x", None, f"6.0-{i:04}", "v6.0")
             for i in range(12)]
    body = compose("watch", [], [], moves, [], [], None).body
    assert body.count("\n- per rack") == 8 and "- and 4 more" in body


def test_secrets_of_a_target_url():
    url = "json://analyst:pw-s3cr3t@127.0.0.1:8080/hook?token=t0k3n-value"
    secrets = url_secrets(url)
    assert "pw-s3cr3t" in secrets and "t0k3n-value" in secrets
    assert scrub("failed for analyst:pw-s3cr3t with t0k3n-value", secrets) == "failed for **** with ****"
    slack = url_secrets("slack://T1234ABCD/B5678EFGH/abcdefghijklmnopqrstuvwx")
    assert "abcdefghijklmnopqrstuvwx" in slack  # Slack's token is a path segment


def test_apprise_reason_keeps_its_warning_and_the_network_cause():
    log = ("DEBUG JSON POST URL: http://127.0.0.1:9/hook\n"
           "WARNING A Connection error occurred sending JSON notification to 127.0.0.1.\n"
           "DEBUG Socket Exception: HTTPConnectionPool(host='127.0.0.1', port=9): Max retries exceeded "
           "(Caused by NewConnectionError(\"...: Failed to establish a new connection: [Errno 111] Connection refused\"))\n")
    assert apprise_reason(log) == ("A Connection error occurred sending JSON notification to 127.0.0.1. "
                                   "([Errno 111] Connection refused)")
    assert apprise_reason("") == "the target did not accept the message"
