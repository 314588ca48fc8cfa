"""What a CLI-started run does not pay: flow-run heartbeats (flows/local_runs.py) and the garbage
collector while the command's modules load (warehouse/startup.py, warehouse/collector.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from prefect.settings import get_current_settings

from flows.local_runs import local_settings, run_here


def test_runs_started_here_have_no_heartbeats_unless_the_environment_asks(prefect_harness, monkeypatch):
    default = get_current_settings().flows.heartbeat_frequency
    assert default is not None  # Prefect's default sends them
    assert run_here(lambda: get_current_settings().flows.heartbeat_frequency) is None
    assert get_current_settings().flows.heartbeat_frequency == default  # only for the run
    monkeypatch.setenv("PREFECT_FLOWS_HEARTBEAT_FREQUENCY", "60")
    with local_settings():
        assert get_current_settings().flows.heartbeat_frequency == default  # left to Prefect


def test_the_console_script_resumes_the_collector_as_a_command_starts():
    probe = ("import atexit, gc, sys; "
             "atexit.register(lambda: print('collector', gc.isenabled(), gc.get_freeze_count() > 0)); "
             "sys.argv = ['mlperf-wh', 'views']; from warehouse.startup import entry; entry()")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "collector True True"
    assert "software_gains" in done.stdout  # the command itself ran


def test_a_run_started_here_resumes_the_paused_collector_before_it_runs():
    probe = ("import gc; from warehouse import collector; collector.pause(); "
             "from flows.local_runs import run_here; print('during run', run_here(gc.isenabled))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "during run True"


@pytest.mark.slow
def test_the_console_script_validates_without_importing_hypothesis(tmp_path):
    from warehouse.store import db
    claims = Path(__file__).resolve().parents[1] / "examples" / "claims_v6.1_nvidia.example.toml"
    db.connect(str(tmp_path / "w.duckdb")).close()  # a ledger load reads a warehouse: it makes none
    probe = ("import atexit, sys; atexit.register(lambda: print('hypothesis', sys.modules.get('hypothesis'))); "
             f"sys.argv = ['mlperf-wh', 'claims', 'load', {str(claims)!r}, '--db', {str(tmp_path / 'w.duckdb')!r}]; "
             "from warehouse.startup import entry; entry()")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "hypothesis None"  # Pandera validated the claims without it


@pytest.mark.unit
def test_the_collector_is_held_off_for_a_tree_pass_and_left_as_it_was():
    import gc

    from warehouse import collector
    was = gc.isenabled()
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            with pytest.raises(RuntimeError):
                with collector.held_off():
                    assert not gc.isenabled()
                    raise RuntimeError("a pass that fails")
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()
