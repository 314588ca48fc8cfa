"""Issue 61 item 4: user files fail safe.

- A price file whose names match nothing (`B3OO,6.0`, `MI355,3.0`) replaced the whole price table
  with two warnings: every `dollars_per_million_tokens` gone. It is refused whole (exit 1, nothing
  replaced, a line per name with its nearest) unless `--allow-unknown`.
- A command that reads a warehouse made an empty one at a mistyped `--db` (`prices load --db
  typo.duckdb`), and the hint of a missing warehouse said to run `backfill` there. It makes none,
  and names the warehouses beside the path instead of suggesting to build one at a typo.
- A claim on `model = "llama2-70b"` loaded and audited as "unsupported: no rows reproduce it". An
  unknown benchmark, scenario or round of a claim or decision is refused with the nearest names.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.faults import DIGEST_TABLES, LEDGER_TABLES, copy_of, digest, one_error_line, query, run  # noqa: F401

EXAMPLES = ROOT / "examples"


@pytest.fixture
def priced(shared_warehouse, tmp_path, run) -> str:
    """A copy of the session's warehouse with the example prices loaded."""
    path = copy_of(shared_warehouse, tmp_path)
    assert run("--db", path, "prices", "load", EXAMPLES / "prices.example.csv")[0] == 0
    return path


def state(db: str) -> dict[str, str]:
    return digest(db, tables=DIGEST_TABLES + LEDGER_TABLES)


def typo_prices(tmp_path: Path) -> Path:
    prices = tmp_path / "prices.csv"
    prices.write_text("accelerator,dollars_per_accelerator_hour\nH100 SXM,2.00\nB3OO,6.0\nMI355,3.0\n")
    return prices


def test_a_price_file_of_typos_is_refused_whole(run, priced, tmp_path):
    before = state(priced)
    code, out, err = run("--db", priced, "prices", "load", typo_prices(tmp_path))
    assert code == 1
    line = one_error_line(err)
    assert "2 of its 3 prices name no accelerator the warehouse knows" in line and "--allow-unknown" in line
    named = [line for line in err.splitlines() if line.startswith("  ")]
    assert len(named) == 2
    assert "row 3: 'B3OO'" in named[0] and named[0].endswith("nearest: 'B300'")
    assert "row 4: 'MI355'" in named[1] and "nearest: 'MI355X'" in named[1]
    assert state(priced) == before
    assert query(priced, "SELECT count(*) FROM prices") == [(5,)]


def test_a_price_file_of_typos_loads_when_told_to(run, priced, tmp_path):
    code, _, err = run("--db", priced, "prices", "load", typo_prices(tmp_path), "--allow-unknown")
    assert code == 0, err
    assert [line.startswith("warning: ") for line in err.splitlines()] == [True, True]
    assert query(priced, "SELECT accelerator FROM prices ORDER BY accelerator") == [("B3OO",), ("H100 SXM",), ("MI355",)]


READERS = {
    "prices-load": ["prices", "load", EXAMPLES / "prices.example.csv"],
    "claims-load": ["claims", "load", EXAMPLES / "claims_v6.0_graded.example.toml"],
    "decisions-load": ["decisions", "load", EXAMPLES / "decisions.example.toml"],
    "measurements-load": ["measurements", "load", EXAMPLES / "own_measurements.example.csv"],
    "views-refresh": ["views", "refresh"],
    "sql": ["sql", "SELECT 1"],
    "status": ["status"],
}


@pytest.mark.parametrize("command", list(READERS))
def test_a_reading_command_makes_no_warehouse_at_a_mistyped_path(run, shared_warehouse, tmp_path, command):
    copy_of(shared_warehouse, tmp_path, "mlperf.duckdb")
    typo = tmp_path / "mlpref.duckdb"
    before = sorted(p.name for p in tmp_path.iterdir())
    code, _, err = run("--db", typo, *READERS[command])
    assert code == 1
    line = one_error_line(err)
    assert line == (f"error: no warehouse at {typo}; of a near name beside it: '{tmp_path / 'mlperf.duckdb'}' "
                    "(a typo in --db or MLPERF_WAREHOUSE_DB?)")
    assert "backfill" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no warehouse, no lock, no copy made


def test_a_missing_folder_is_named_and_never_suggested_for_a_build(run, tmp_path):
    typo = tmp_path / "warehuose" / "mlperf.duckdb"
    code, _, err = run("--db", typo, "prices", "load", EXAMPLES / "prices.example.csv")
    assert code == 1 and "backfill" not in err
    assert one_error_line(err) == (f"error: no warehouse at {typo}: no folder {typo.parent} either (a typo in "
                                   "--db or MLPERF_WAREHOUSE_DB?)")
    assert not typo.parent.exists()


def claim(tmp_path: Path, **fields) -> Path:
    written = {"id": "c", "vendor": "V", "source": "https://example.com/post", "statement": "s", "round": "v6.0",
               "model": "llama2-70b-99", "kind": "absolute", "multiplier": 2.0, "stage": "mlcommons_verified", **fields}
    path = tmp_path / "claims.toml"
    path.write_text("[[claim]]\npublished_on = 2026-04-01\n" + "".join(
        f"{key} = {json.dumps(value)}\n" for key, value in written.items()))  # JSON's text, bool and float are TOML's
    return path


@pytest.mark.parametrize("field, value, said", [
    ("model", "llama2-70b", "field 'model': 'llama2-70b' is no MLPerf benchmark of warehouse/identity/reference/"
                            "benchmarks.csv; nearest: 'llama2-70b-99', 'llama2-70b-99.9'"),
    ("scenario", "server", "field 'scenario': 'server' is no MLPerf scenario; nearest: 'Server'"),
    ("round", "v5.2", "field 'round': 'v5.2' is no round the warehouse knows"),
    ("round_from", "v4.2", "field 'round_from': 'v4.2' is no round the warehouse knows"),
])
def test_a_claim_naming_an_unknown_benchmark_scenario_or_round_is_refused_with_the_nearest(
        run, shared_warehouse, tmp_path, field, value, said):
    path = copy_of(shared_warehouse, tmp_path)
    before = state(path)
    code, _, err = run("--db", path, "claims", "load", claim(tmp_path, **{field: value}))
    assert code == 1
    assert said in one_error_line(err)
    assert state(path) == before


def test_a_model_outside_mlperf_loads_when_the_claim_says_so(run, shared_warehouse, tmp_path):
    path = copy_of(shared_warehouse, tmp_path)
    code, _, err = run("--db", path, "claims", "load", claim(tmp_path, model="SemiAnalysis AgentX", outside_mlperf=True))
    assert code == 0, err
    assert query(path, "SELECT model, benchmark FROM claims") == [("SemiAnalysis AgentX", "SemiAnalysis AgentX")]


def decision(tmp_path: Path, review_due: str) -> Path:
    path = tmp_path / "decisions.toml"
    path.write_text(f'[[decision]]\nid = "d"\ntitle = "t"\nworkload = "w"\nmetric = "m"\nmeasured_by = "b"\n'
                    f'claims_used = ["c"]\ndecision = "x"\ndecided_on = 2026-05-01\nreview_due = "{review_due}"\n')
    return path


def test_a_decision_reviewed_at_an_unknown_past_round_is_refused_a_later_one_loads(run, shared_warehouse, tmp_path):
    path = copy_of(shared_warehouse, tmp_path)
    assert run("--db", path, "claims", "load", claim(tmp_path))[0] == 0
    code, _, err = run("--db", path, "decisions", "load", decision(tmp_path, "v5.2"))
    assert code == 1
    assert "field 'review_due': 'v5.2' is no round the warehouse knows" in one_error_line(err)
    code, _, err = run("--db", path, "decisions", "load", decision(tmp_path, "v7.3"))  # not published yet
    assert code == 0, err
