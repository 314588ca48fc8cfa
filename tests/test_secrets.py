"""A source URL's credentials never reach Prefect: not in a flow run's parameters, its name, its
logs or its artifacts (read back from Prefect's own database after real flow runs)."""
from __future__ import annotations

import pytest

import sqlite3
import time
from pathlib import Path

from tests.conftest import MIRROR, serve

PASSWORD, TOKEN = "pw-s3cr3t-4711", "t0k-s3cr3t-0815"


def prefect_database() -> Path:
    import prefect.settings as ps
    return Path(ps.PREFECT_SERVER_DATABASE_CONNECTION_URL.value().split("///", 1)[1])


def everything_in(database: Path) -> str:
    """Every value of every table, as text (a WAL still being written is read through sqlite)."""
    con = sqlite3.connect(database)
    try:
        return "\n".join(con.iterdump())
    finally:
        con.close()


def flush_prefect_logs() -> None:
    from tests.prefect_api import _drain_workers
    _drain_workers()


@pytest.mark.slow
def test_credentials_in_a_source_never_reach_prefect(cli, db_file, tmp_path):
    with serve(MIRROR) as server:
        secret_source = server.url.replace("http://", f"http://analyst:{PASSWORD}@")
        code, out, err = cli("backfill", "--rounds", "v6.0,v5.0", "--source", secret_source, "--db", db_file)
        assert code == 0, (out, err)
        code, out, err = cli("ingest", "v6.0", "--source", f"{secret_source}?token={TOKEN}", "--db", db_file,
                             "--force")
        assert code == 0, (out, err)
        assert PASSWORD not in out + err and TOKEN not in out + err
    flush_prefect_logs()
    time.sleep(0.5)
    stored = everything_in(prefect_database())
    assert "backfill-v6.0-v5.0" in stored and "127.0.0.1" in stored  # the runs and their redacted source are there ...
    assert PASSWORD not in stored and TOKEN not in stored  # ... their secrets are not


def test_a_deployment_keeps_a_secret_source_out_of_prefect(monkeypatch, db_file):
    from flows.watch import deployments
    monkeypatch.delenv("MLPERF_SOURCE", raising=False)
    secret = f"https://analyst:{PASSWORD}@mirror.example/mlperf?token={TOKEN}"
    watcher, backfill = deployments("0 6 * * *", secret, db_file)
    for deployment in (watcher, backfill):
        assert deployment.parameters == {"source": None, "db_file": db_file}
    # the runs this process serves resolve the source from its environment
    from warehouse.identity.rounds import resolve_source
    assert resolve_source(None) == secret


def test_a_plain_source_is_a_deployment_parameter(monkeypatch, db_file):
    from flows.watch import deployments
    monkeypatch.delenv("MLPERF_SOURCE", raising=False)
    watcher, _ = deployments("0 6 * * *", "https://mirror.example/mlperf", db_file)
    assert watcher.parameters["source"] == "https://mirror.example/mlperf"


def test_a_private_mirrors_token_stays_at_the_end_of_every_files_url():
    from warehouse.identity.rounds import load_registry
    (name, url), *_ = load_registry()["v6.0"].locations("https://mirror.example/mlperf/?token=abc")
    assert url == f"https://mirror.example/mlperf/inference_results_v6.0/main/{name}?token=abc"
    (_, path), *_ = load_registry()["v6.0"].locations("/data/mirror?odd")
    assert path == f"/data/mirror?odd/inference_results_v6.0/main/{name}"
