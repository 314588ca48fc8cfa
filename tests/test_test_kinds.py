"""`pytest -m unit` (make test-unit) runs on its own: no ../shared data, no Prefect."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.slow
def test_unit_tests_run_without_the_shared_data_or_a_prefect_server(tmp_path):
    """The unit tests in a fresh process with the shared data hidden (MLPERF_SHARED_DIR names a
    directory that does not exist) and Prefect pointed at a port nothing listens on: they must
    all pass, so none of them reads ../shared or runs a flow. Integration tests are deselected."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "MLPERF_", "PYTEST_", "PYTHON"))}
    env |= {"MLPERF_SHARED_DIR": str(tmp_path / "no-shared-here"), "PREFECT_HOME": str(tmp_path / "prefect"),
            "PREFECT_API_URL": "http://127.0.0.1:9/api"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-m", "unit", "-q", "-p", "no:cacheprovider"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=240)
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    passed = int(re.search(r"(\d+) passed", summary).group(1))
    deselected = int(re.search(r"(\d+) deselected", summary).group(1))
    assert passed >= 20 and deselected > passed, summary
    assert not re.search(r"failed|error|skipped", summary), summary
