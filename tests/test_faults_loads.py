"""Fault suite, issue 22: partial or wrong loads that used to exit 0.

Each case asserts the exit code, the one `error:` line, and that the warehouse is unchanged (the
digest of results, quarantine and sources; the ledger table it is about). The rule for telling a
whole file from a cut one, and the real files behind it, is in warehouse/ingest/guards.py.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import MIRROR, ROOT, UNOFFICIAL, serve
from tests.faults import copy_of, digest, one_error_line, query

CSV = UNOFFICIAL / "gateoverflow_submissions_v5.0.summary.csv"
V60_PATH = "/inference_results_v6.0/main/summary_results.json"
V60_CSV_PATH = "/inference_results_v6.0/main/summary.csv"


@pytest.fixture
def warehouse(shared_warehouse, tmp_path):
    return copy_of(shared_warehouse, tmp_path)


def records(round_name: str) -> list[dict]:
    return json.loads((MIRROR / f"inference_results_{round_name}" / "main" / "summary_results.json").read_bytes())


def csv_lines(count: int) -> bytes:
    """The header and the first `count` records of the real checker CSV, ending at a line break."""
    return b"".join(CSV.read_bytes().splitlines(keepends=True)[: count + 1])


def as_v60_csv(body: bytes) -> bytes:
    return body.replace(b",v5.0,", b",v6.0,")


def v60_csv_source(tmp_path: Path, body: bytes) -> Path:
    """A source directory whose v6.0 is published only as a checker summary.csv."""
    target = tmp_path / "mirror" / V60_CSV_PATH.lstrip("/")
    target.parent.mkdir(parents=True)
    target.write_bytes(body)
    return tmp_path / "mirror"


def events(db: str) -> list[tuple]:
    return query(db, "SELECT round, run_kind, status, change_summary FROM load_events ORDER BY loaded_at")


# --- a file cut at a line break, loaded first -------------------------------------------------------

@pytest.mark.slow
def test_a_first_load_of_a_csv_cut_at_a_line_break_is_refused(cli, db_file, tmp_path):
    # v6.0 was published with 520 records; 299 of the CSV's, cut at a line break, look whole.
    source = v60_csv_source(tmp_path, as_v60_csv(csv_lines(299)))
    code, out, err = cli("backfill", "--source", source, "--db", db_file, "--rounds", "v6.0")
    assert code == 1
    line = one_error_line(err)
    assert "299 records, but v6.0 was published with 520" in line and "--allow short-of-round" in line
    assert query(db_file, "SELECT count(*) FROM sources") == [(0,)]


def test_a_csv_cut_inside_its_last_field_is_refused(cli, warehouse, tmp_path):
    # every field is there ("fp1" of "fp16"): only the missing line break tells
    cut = csv_lines(1285).rstrip(b"\n")[:-3]
    path = tmp_path / "summary.csv"
    path.write_bytes(cut)
    before = digest(warehouse)
    code, out, err = cli("ingest", "v5.0", "--file", path, "--db", warehouse)
    assert code == 1
    assert "the last line has no line break: the file was cut short" in one_error_line(err)
    assert digest(warehouse) == before


def test_a_body_shorter_than_its_content_length_cut_at_a_line_break_is_refused(cli, db_file, tmp_path,
                                                                               monkeypatch):
    monkeypatch.setenv("MLPERF_FETCH_RETRIES", "0")
    whole = as_v60_csv(CSV.read_bytes())
    short = f"HTTP/1.0 200 OK\r\nContent-Length: {len(whole)}\r\n\r\n".encode() + as_v60_csv(csv_lines(299))
    source = v60_csv_source(tmp_path, whole)
    with serve(source, {V60_CSV_PATH: [("raw", short)]}) as server:
        code, out, err = cli("backfill", "--source", server.url, "--db", db_file, "--rounds", "v6.0")
    assert code == 1
    line = one_error_line(err)
    assert "connection broken while reading the body" in line or "connection closed after" in line
    assert query(db_file, "SELECT count(*) FROM sources") == [(0,)]


def test_a_whole_round_under_its_published_count_loads_with_the_override(cli, db_file, tmp_path):
    source = v60_csv_source(tmp_path, as_v60_csv(csv_lines(299)))
    code, out, err = cli("backfill", "--source", source, "--db", db_file, "--rounds", "v6.0",
                         "--allow", "short-of-round")
    assert code == 0, err
    assert query(db_file, "SELECT rows_read, overrides FROM sources") == [(299, ["short-of-round"])]


# --- another round's file without its round markers -------------------------------------------------

@pytest.mark.slow
def test_another_rounds_file_without_a_version_column_is_refused_by_its_result_ids(cli, warehouse):
    # v5.1's records with no `version`, 494 of them: 5% fewer rows than v6.0's 520, under the shrink limit
    other = [{k: v for k, v in r.items() if k != "version"} for r in records("v5.1")[:494]]
    before = digest(warehouse)
    with serve(MIRROR, {V60_PATH: [("body", json.dumps(other).encode())]}) as server:
        code, out, err = cli("backfill", "--source", server.url, "--db", warehouse, "--rounds", "v6.0")
    assert code == 1
    line = one_error_line(err)
    assert "belongs to another round than v6.0: the result IDs say 5.1 (494 rows)" in line
    assert "version column" not in line
    assert digest(warehouse) == before


@pytest.mark.unit
def test_result_ids_are_round_markers_in_a_checker_file_that_carries_them():
    import polars as pl

    from warehouse.ingest.guards import round_markers
    raw = pl.DataFrame({"ID": ["4.1-0110", "4.1-0111"], "Result": ["1", "2"]})
    finding = round_markers(raw, "checker_json", "v5.1", "summary.json")
    assert finding is not None and "the result IDs say 4.1 (2 rows)" in finding.message
    assert round_markers(raw, "checker_json", "v4.1", "summary.json") is None


# --- refused --file ingests are recorded -----------------------------------------------------------

def test_a_refused_file_ingest_is_recorded_in_load_events(cli, warehouse, tmp_path):
    path = tmp_path / "summary_results.json"
    path.write_bytes(json.dumps(records("v6.0")).encode())
    before = digest(warehouse)
    code, out, err = cli("ingest", "v5.1", "--file", path, "--db", warehouse)
    assert code == 1
    assert "belongs to another round than v5.1" in one_error_line(err)
    assert digest(warehouse) == before
    [(round_name, kind, status, summary)] = [e for e in events(warehouse) if e[2] == "failed"]
    assert (round_name, kind, status) == ("v5.1", "ingest", "failed")
    assert summary.startswith("failed: ") and "belongs to another round than v5.1" in summary


# --- trees on a missing source ---------------------------------------------------------------------

def test_trees_on_a_missing_source_is_one_line(cli, warehouse, tmp_path):
    before = digest(warehouse)
    code, out, err = cli("trees", "--source", tmp_path / "nonexistent", "--db", warehouse, "--rounds", "v6.0")
    assert code == 1
    assert "no such directory" in one_error_line(err)
    assert digest(warehouse) == before


# --- ledger files ----------------------------------------------------------------------------------

CLAIM = """[[claim]]
id = "c-1"
vendor = "NVIDIA"
source = "https://example.invalid/blog"
published_on = 2026-01-01
statement = "fast"
round = "v6.0"
model = "llama2-70b-99"
kind = "absolute"
multiplier = 2.0
stage = "vendor_self_test"
"""


def ledger_rows(db: str, table: str) -> list[tuple]:
    return query(db, f"SELECT * FROM {table} ORDER BY ALL")


def load_claims(cli, warehouse: str, path: Path, text: str, *extra: str):
    path.write_text(text)
    return cli("claims", "load", path, "--db", warehouse, *extra)


def decision(decision_id: str = "d-1") -> str:
    text = (ROOT / "examples" / "decisions.example.toml").read_text()
    original = text.split('id = "', 1)[1].split('"', 1)[0]
    return text.replace(f'id = "{original}"', f'id = "{decision_id}"', 1)


def claims_for_decision() -> Path:
    return ROOT / "examples" / "claims_v6.1_nvidia.example.toml"


@pytest.mark.parametrize("empty", ["", "# nothing yet\n", "claim = []\n"], ids=["blank", "comment", "empty-array"])
@pytest.mark.slow
def test_an_empty_claims_file_is_refused_unless_allowed(cli, warehouse, tmp_path, empty):
    path = tmp_path / "claims.toml"
    assert load_claims(cli, warehouse, path, CLAIM)[0] == 0
    before = ledger_rows(warehouse, "claims")
    code, out, err = load_claims(cli, warehouse, path, empty)
    assert code == 1
    assert "no [[claim]] tables found" in one_error_line(err) and "--allow-empty" in one_error_line(err)
    assert ledger_rows(warehouse, "claims") == before
    code, out, err = cli("claims", "load", path, "--db", warehouse, "--allow-empty")
    assert code == 0, err
    assert ledger_rows(warehouse, "claims") == []


@pytest.mark.slow
def test_an_empty_decisions_file_is_refused_unless_allowed(cli, warehouse, tmp_path):
    assert cli("claims", "load", claims_for_decision(), "--db", warehouse)[0] == 0
    path = tmp_path / "decisions.toml"
    path.write_text(decision())
    assert cli("decisions", "load", path, "--db", warehouse)[0] == 0
    before = ledger_rows(warehouse, "decisions")
    path.write_text("")
    code, out, err = cli("decisions", "load", path, "--db", warehouse)
    assert code == 1
    assert "no [[decision]] tables found" in one_error_line(err) and "--allow-empty" in one_error_line(err)
    assert ledger_rows(warehouse, "decisions") == before
    assert cli("decisions", "load", path, "--db", warehouse, "--allow-empty")[0] == 0
    assert ledger_rows(warehouse, "decisions") == []


@pytest.mark.slow
def test_a_decision_id_owned_by_another_file_needs_replace(cli, warehouse, tmp_path):
    assert cli("claims", "load", claims_for_decision(), "--db", warehouse)[0] == 0
    first, second = tmp_path / "a.toml", tmp_path / "b.toml"
    first.write_text(decision())
    second.write_text(decision().replace('title = "', 'title = "taken over: ', 1))
    assert cli("decisions", "load", first, "--db", warehouse)[0] == 0
    before = ledger_rows(warehouse, "decisions")
    code, out, err = cli("decisions", "load", second, "--db", warehouse)
    assert code == 1
    assert f"decision 'd-1' is owned by {first}" in one_error_line(err) and "--replace" in one_error_line(err)
    assert ledger_rows(warehouse, "decisions") == before
    assert cli("decisions", "load", second, "--db", warehouse, "--replace")[0] == 0
    assert query(warehouse, "SELECT id, decision_file FROM decisions") == [("d-1", str(second))]


def test_a_header_only_prices_file_is_refused_unless_allowed(cli, warehouse, tmp_path):
    prices = tmp_path / "prices.csv"
    prices.write_text("accelerator,dollars_per_accelerator_hour\nH100 SXM,2.5\n")
    assert cli("prices", "load", prices, "--db", warehouse)[0] == 0
    before = ledger_rows(warehouse, "prices")
    prices.write_text("accelerator,dollars_per_accelerator_hour\n")
    code, out, err = cli("prices", "load", prices, "--db", warehouse)
    assert code == 1
    assert "a header and no price" in one_error_line(err) and "--allow-empty" in one_error_line(err)
    assert ledger_rows(warehouse, "prices") == before
    assert cli("prices", "load", prices, "--db", warehouse, "--allow-empty")[0] == 0
    assert ledger_rows(warehouse, "prices") == []


def test_an_empty_measurements_file_is_refused_unless_allowed(cli, warehouse, tmp_path):
    from warehouse.ledger.measurements import load_measurements
    from warehouse.store import db
    example = ROOT / "examples" / "own_measurements.example.csv"
    path = tmp_path / "runs.csv"
    path.write_bytes(example.read_bytes())
    with db.connect(warehouse) as con:  # the loads around the refusal as plain functions: no view rebuilds
        load_measurements(con, path)
    before = ledger_rows(warehouse, "own_measurements")
    path.write_bytes(example.read_bytes().splitlines(keepends=True)[0])
    code, out, err = cli("measurements", "load", path, "--db", warehouse)
    assert code == 1
    assert "a header and no run" in one_error_line(err) and "--allow-empty" in one_error_line(err)
    assert ledger_rows(warehouse, "own_measurements") == before
    with db.connect(warehouse) as con:
        assert load_measurements(con, path, allow_empty=True).status == "emptied"
    assert ledger_rows(warehouse, "own_measurements") == []


@pytest.mark.parametrize(("field", "value"), [("total_accelerators", "99999999999999999999"),
                                              ("multiplier", "9" * 400), ("multiplier", "9" * 5000)],
                         ids=["int-over-64-bits", "number-over-a-float", "over-python-digits"])
def test_an_oversized_integer_in_a_claims_file_is_one_line(cli, warehouse, tmp_path, field, value):
    text = CLAIM.replace("multiplier = 2.0\n", "") + f"{field} = {value}\n"
    code, out, err = load_claims(cli, warehouse, tmp_path / "big.toml", text)
    assert code == 1
    line = one_error_line(err)
    assert "out of range" in line or "not valid TOML" in line
    assert len(line) < 400
    assert ledger_rows(warehouse, "claims") == []


@pytest.fixture
def cli(plain_cli):
    """Runs without a Prefect API: what a run refuses and says is the same code under a flow run."""
    return plain_cli
