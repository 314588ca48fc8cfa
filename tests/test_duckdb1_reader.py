"""A DuckDB 1.x reader opens the published copy written with MLPERF_PUBLISHED_STORAGE=v1.0.0 while the
load's own connection is open (the flow's), and lists and reads every mart.

The reader is DuckDB 1.5.6 (the Python package and the `duckdb` CLI of the duckdb-cli package) in a
virtual environment of its own (.venv-duckdb1, made once, like `make test-superset`'s), never the
project's, which has DuckDB 2."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import MIRROR, ROOT

pytestmark = pytest.mark.slow

READER_VENV = ROOT / ".venv-duckdb1"
READER_PACKAGES = ["duckdb==1.5.6", "duckdb-cli==1.5.6"]


def reader_venv() -> tuple[str, str]:
    """(python, duckdb CLI) of the DuckDB 1.x reader's venv, installed the first time."""
    stamp = READER_VENV / ".installed"
    if not stamp.exists():
        subprocess.run([sys.executable, "-m", "venv", str(READER_VENV)], check=True)
        subprocess.run([str(READER_VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", *READER_PACKAGES],
                       check=True)
        stamp.touch()
    return str(READER_VENV / "bin" / "python"), str(READER_VENV / "bin" / "duckdb")


def test_a_duckdb_1x_reader_lists_and_reads_every_mart(tmp_path):
    python, cli = reader_venv()
    db_file = tmp_path / "w.duckdb"
    loaded = subprocess.run(
        [str(Path(sys.executable).parent / "mlperf-wh"), "--quiet", "--db", str(db_file), "ingest", "v6.0",
         "--source", str(MIRROR)],
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "MLPERF_PUBLISHED_STORAGE": "v1.0.0",
             "PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"},
        capture_output=True, text=True, timeout=600)
    assert loaded.returncode == 0, loaded.stderr
    copy = tmp_path / "w.read.duckdb"
    marts = sorted(p.stem for p in (ROOT / "sql" / "marts").glob("*.sql"))
    script = (
        "import duckdb, json, sys\n"
        "con = duckdb.connect(sys.argv[1], read_only=True)\n"
        "names = [r[0] for r in con.execute(\"SELECT table_name FROM information_schema.tables "
        "WHERE table_schema = 'marts' ORDER BY 1\").fetchall()]\n"
        "counts = {n: con.execute(f'SELECT count(*) FROM marts.{n}').fetchone()[0] for n in names}\n"
        "print(json.dumps({'version': duckdb.__version__, 'counts': counts}))\n")
    read = subprocess.run([python, "-c", script, str(copy)], capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr
    found = json.loads(read.stdout)
    assert found["version"] == "1.5.6"
    assert sorted(found["counts"]) == marts
    assert found["counts"]["verified_results"] > 400 and found["counts"]["accelerator_comparison"] > 0
    shown = subprocess.run([cli, "-readonly", "-csv", str(copy), "-c",
                            "SELECT count(*) AS marts FROM information_schema.tables WHERE table_schema = 'marts'"],
                           capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split() == ["marts", str(len(marts))]
