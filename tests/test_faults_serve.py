"""serve and schedule refuse what would only fail once serving: a bad cron (usage, exit 2) and a
Prefect API that does not answer (exit 1), each one line, before anything is registered."""
from __future__ import annotations

import socket

import pytest

from tests.faults import one_error_line
from warehouse.cli import main


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def unreachable_api(monkeypatch) -> str:
    url = f"http://127.0.0.1:{closed_port()}/api"
    monkeypatch.setenv("PREFECT_API_URL", url)
    return url


def run(capsys, *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, one_error_line(capsys.readouterr().err)


def test_serve_against_an_api_that_does_not_answer_is_one_line(capsys, unreachable_api, db_file):
    code, line = run(capsys, "serve", "--db", db_file)
    assert code == 1
    assert f"the Prefect API at {unreachable_api} (PREFECT_API_URL) does not answer" in line


@pytest.mark.parametrize("command", ["serve", "schedule"])
def test_a_bad_cron_is_a_usage_error(capsys, unreachable_api, db_file, command):
    code, line = run(capsys, command, "--cron", "61 * * *", "--db", db_file)
    assert code == 2
    assert "--cron '61 * * *': not a cron expression" in line
