"""Fault suite, issue 54 item 7: a signal while a run notifies. The installed `mlperf-wh` in a process
of its own, its webhook on 127.0.0.1 accepting the message and then dripping its answer: SIGTERM ends
the run within seconds with one `error:` line that says what happened (the load kept, the message not
delivered), never that a load was rolled back."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import MIRROR
from tests.faults import one_error_line, query
from tests.webhook_receiver import receiving

COMMAND = Path(sys.executable).parent / "mlperf-wh"
V60 = MIRROR / "inference_results_v6.0" / "main" / "summary_results.json"


def start(*args: str, notify: str) -> subprocess.Popen:
    """A plain run (no Prefect API) whose one target may hold it a minute."""
    env = {**os.environ, "MLPERF_NOTIFY": notify, "MLPERF_NOTIFY_TARGET_BUDGET": "60",
           "MLPERF_NOTIFY_RUN_BUDGET": "60", "MLPERF_NOTIFY_RETRIES": "0", "MLPERF_PREFECT_TEMPORARY_SERVER": "0"}
    env.pop("PREFECT_API_URL", None)
    return subprocess.Popen([str(COMMAND), *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def terminate_once_sent(process: subprocess.Popen, receiver, timeout: float = 120) -> tuple[float, str]:
    """SIGTERM as soon as the receiver has the message (and drips its answer) -> (seconds to stop, stderr)."""
    give_up = time.monotonic() + timeout
    while not receiver.bodies:
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < give_up, "the run never notified"
        time.sleep(0.05)
    signalled = time.monotonic()
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    return time.monotonic() - signalled, err


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals as Linux sends them")
@pytest.mark.timeout(180)
def test_sigterm_while_a_notification_drips_says_the_load_was_kept(tmp_path):
    """It printed "the load in flight was rolled back" although the load was committed (or no line
    at all, the run held by the dripping answer)."""
    db_file = str(tmp_path / "w.duckdb")
    with receiving(statuses=[("drip", 0.5)]) as receiver:
        process = start("ingest", "v6.0", "--file", str(V60), "--db", db_file,
                        notify=f"json://127.0.0.1:{receiver.port}/hook")
        stopped, err = terminate_once_sent(process, receiver)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert stopped < 5, f"took {stopped:.1f} s to stop"
    assert one_error_line(err) == (
        "error: interrupted by SIGTERM while notifying: what the run loaded is kept, not yet in the published "
        "copy readers open (the next backfill refreshes it); the message reached 0 of 1 target (not recorded "
        "in deliveries)")
    assert query(db_file, "SELECT count(*) FROM results WHERE round = 'v6.0'") == [(520,)]
    assert query(db_file, "SELECT count(*) FROM deliveries") == [(0,)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals as Linux sends them")
@pytest.mark.timeout(120)
def test_sigterm_during_notify_test_says_the_message_was_not_delivered(tmp_path):
    with receiving(statuses=[("drip", 0.5)]) as receiver:
        process = start("notify", "--test", notify=f"json://127.0.0.1:{receiver.port}/hook")
        stopped, err = terminate_once_sent(process, receiver)
    assert process.returncode == 128 + signal.SIGTERM, err
    assert stopped < 5, f"took {stopped:.1f} s to stop"
    assert one_error_line(err) == ("error: interrupted by SIGTERM while notifying: the warehouse was not written; "
                                   "the message reached 0 of 1 target (not recorded in deliveries)")
