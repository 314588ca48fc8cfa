"""The message a person gets when MLCommons re-publishes a table: its numbers written by the one
formatter (warehouse/figures.py), a run that leads a benchmark's two accuracy targets alike on one line,
the same counts as the command's own summary, and only commands that exist (a plain run, a real
webhook on 127.0.0.1, the shared v6.0 table re-published with two edits)."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import MIRROR
from tests.webhook_receiver import receiving

V60 = Path("inference_results_v6.0") / "main" / "summary_results.json"
# NVIDIA's GB300 NVL72, 6.0-0078: one run published for llama2-70b-99 and -99.9 Offline, 1,126,850 tokens/s each
TWINS = (418, 421)
NOTED = 0  # another entry, whose notes the re-publication changes (a field, not its value)


def republish(upstream: Path) -> list[dict]:
    records = json.loads((MIRROR / V60).read_bytes())
    assert [records[i]["Model"] for i in TWINS] == ["llama2-70b-99", "llama2-70b-99.9"]
    assert {records[i]["Performance_Result"] for i in TWINS} == {1126850.0}
    for i in TWINS:
        records[i]["Performance_Result"] = 1239535.0   # 1,126,850 x 1.1
    records[NOTED]["Notes"] = (records[NOTED].get("Notes") or "") + " (re-run)"
    target = upstream / V60
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(records))
    return records


def commands() -> set[str]:
    import typer

    from warehouse.cli.app import app
    return set(typer.main.get_command(app).commands)


def test_a_republished_tables_message_is_written_for_people(plain_cli, db_file, tmp_path, monkeypatch):
    monkeypatch.setenv("MLPERF_NOTIFY_BACKOFF", "0.05")
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        assert plain_cli("backfill", "--rounds", "v6.0", "--source", MIRROR, "--db", db_file)[0] == 0
        republish(tmp_path / "upstream")
        code, out, err = plain_cli("backfill", "--rounds", "v6.0", "--source", tmp_path / "upstream", "--db", db_file)
        assert code == 0, (out, err)
        message = receiver.messages[-1]["message"]
    # the command's summary and the message count alike: the twins' values and the noted entry's
    # notes changed, three result rows
    found = re.findall(r"reloaded: (\d+) new, (\d+) changed", out)
    assert found == [("0", "3")], out
    assert "Rows v6.0: 0 added, 3 changed, 0 withdrawn" in message
    # figures as people read them: 1,126,850 -> 1,239,535, never 1126850.0
    assert "llama2-70b-99 Offline performance: value 1,126,850 -> 1,239,535" in message
    assert not re.search(r"(?<![v\d.,])\d[\d,]*\.0(?![\d-])", message), message  # no raw float (v6.0, 6.0-0078 aside)
    # the run that leads both accuracy targets alike, on one line: per accelerator 1,239,535 / 72 = 17,216
    twins = [line for line in message.splitlines() if "llama2-70b-99" in line and line.startswith("- per accelerator")]
    assert twins == ["- per accelerator, llama2-70b-99 / -99.9 Offline Tokens/s: 6.0-0078 (v6.0, GB300, NVIDIA): "
                     f"{1239535 / 72:,.0f} per accelerator, was 6.0-0078 (v6.0, GB300, NVIDIA): "
                     f"{1126850 / 72:,.0f} per accelerator"]
    # every command it names exists: `mlperf-wh history` became `mlperf-wh loads`
    named = set(re.findall(r"mlperf-wh (\w+)", message))
    assert named and named <= commands() and "history" not in named
