"""A warehouse for the BI tests: the shared rounds, the example claims and decision, one claim the
shared rows reproduce, one decision due for review (round v6.0 is loaded) and one own measurement. Import the fixture
into a test module to use it."""
from __future__ import annotations

import shutil

import pytest

from tests.conftest import ROOT
from tests.test_measurements_read import VLLM_C64
from warehouse.ledger.claims import load_claims, load_decisions
from warehouse.ledger.measurements import MEASUREMENT_TABLES, RunOptions, load_measurements
from warehouse.store import db
from warehouse.views import materialize


@pytest.fixture(scope="module")
def claims_warehouse(shared_warehouse, tmp_path_factory) -> str:
    """The shared rounds plus the example claims and decision, and one claim the shared rows
    reproduce (so claim_audit.rows_used and cited_result_ids are non-empty lists)."""
    path = tmp_path_factory.mktemp("export") / "warehouse.duckdb"
    shutil.copyfile(shared_warehouse, path)
    with db.connect(str(path)) as con:
        load_claims(con, ROOT / "examples" / "claims_v6.1_nvidia.example.toml")
        new, base = con.execute(
            "SELECT result_id_new, result_id_base FROM generation_speedups WHERE round = 'v6.0' "
            "AND benchmark = 'deepseek-r1' AND scenario = 'Server' AND accelerator_new = 'GB300' "
            "AND accelerator_base = 'GB200' AND accelerator_count = 72").fetchall()[0]
        claims = path.parent / "shared_claim.toml"
        claims.write_text(f'''[[claim]]
id = "gb300-vs-gb200-dsr1-server"
vendor = "NVIDIA"
source = "https://example.com/post"
published_on = 2026-04-01
statement = "GB300 vs GB200, \\"DeepSeek-R1\\" server, 72 GPUs"
round = "v6.0"
model = "deepseek-r1"
scenario = "Server"
kind = "generation_speedup"
accelerator = "GB300"
baseline_accelerator = "GB200"
total_accelerators = 72
multiplier = 1.5
stage = "mlcommons_verified"
cited_result_ids = ["{new}", "{base}"]
''', encoding="utf-8")
        load_claims(con, claims)
        load_decisions(con, ROOT / "examples" / "decisions.example.toml")
        due = path.parent / "due_decision.toml"
        due.write_text("""[[decision]]
id = "gb300-fleet-review"
title = "GB300 fleet for DeepSeek-R1 serving"
workload = "DeepSeek-R1 serving"
metric = "tokens per second per rack"
measured_by = "our own load test"
claims_used = ["gb300-vs-gb200-dsr1-server", "nv-v6.1-post-submission-gpt-oss-120b"]
claims_excluded = []
decision = "buy GB300 racks"
decided_on = 2026-05-01
review_due = "v6.0"
""", encoding="utf-8")
        load_decisions(con, due)
        # and a replay of one's own, for own_runs, own_vs_mlperf and the report's chart of them
        load_measurements(con, VLLM_C64, None, RunOptions(accelerator="H200", accelerators=8))
        materialize(con, changed={"claims", "decisions", *MEASUREMENT_TABLES})
    return str(path)
