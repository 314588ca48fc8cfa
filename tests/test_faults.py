"""Fault suite, cases 2 and 4-6: guards, one-line failures, false successes, source hygiene.

Every case starts from a copy of the known-good warehouse (the session's three shared rounds) and
asserts the exit code, the one `error:` line, and an unchanged digest of results, quarantine and
sources. The CLI runs in this process (warehouse.cli.main) without a Prefect API, as most users
run it (`cli` below: a flow run refuses and says the same, test_plain_runs.py), unless the case is
about processes. Sandbox cases: test_faults_sql.py; signals and the
fetch deadline: test_faults_signals.py.
"""
from __future__ import annotations

import json
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from tests.cli_tables import table_rows
from tests.conftest import MIRROR, ROOT, UNOFFICIAL, serve
from tests.faults import copy_of, digest, file_digest, one_error_line, query

V51_PATH = "/inference_results_v5.1/main/summary_results.json"
V60_PATH = "/inference_results_v6.0/main/summary_results.json"


@lru_cache(maxsize=1)
def v60_bytes() -> bytes:
    return (MIRROR / V60_PATH.lstrip("/")).read_bytes()


def v60_records() -> list[dict]:
    return json.loads(v60_bytes())


CSV = UNOFFICIAL / "gateoverflow_submissions_v5.0.summary.csv"
V50_CSV_PATH = "/inference_results_v5.0/main/summary.csv"


@pytest.fixture
def warehouse(shared_warehouse, tmp_path):
    return copy_of(shared_warehouse, tmp_path)


@pytest.fixture
def cli(plain_cli):
    """Runs without a Prefect API: what a run refuses and says is the same code under a flow run."""
    return plain_cli


def backfill(cli, source, db, *rounds, extra=()):
    return cli("backfill", "--source", source, "--db", db, "--rounds", ",".join(rounds), *extra)


def csv_mirror(tmp_path: Path) -> Path:
    """A source directory whose v5.0 is published only as the checker's summary.csv."""
    target = tmp_path / "mirror" / V50_CSV_PATH.lstrip("/")
    target.parent.mkdir(parents=True)
    target.write_bytes(CSV.read_bytes())
    return tmp_path / "mirror"


def with_csv_round(warehouse: str, mirror: Path) -> None:
    from warehouse.ingest.pipeline import ingest_location
    from warehouse.store import db
    with db.connect(warehouse) as con:
        ingest_location(con, "v5.0", "official", "summary.csv", str(mirror / V50_CSV_PATH.lstrip("/")))


def no_length(body: bytes) -> tuple:
    """A 200 with no Content-Length: the body ends where the connection closes."""
    return ("raw", b"HTTP/1.0 200 OK\r\nContent-Type: text/csv\r\n\r\n" + body)


# --- 2. load guards -------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_file_whose_every_row_fails_validation_is_refused(cli, warehouse):
    bad = json.dumps([{**r, "Performance_Result": "n/a"} for r in v60_records()]).encode()
    before = digest(warehouse)
    with serve(MIRROR, {V60_PATH: [("body", bad)]}) as server:
        code, out, err = backfill(cli, server.url, warehouse, "v6.0")
    assert code == 1
    line = one_error_line(err)
    assert line.startswith("error: v6.0 refused: ") and "every one of its 520 rows failed validation" in line
    assert "--allow all-quarantined" in line
    assert digest(warehouse) == before


@pytest.mark.slow
def test_an_override_loads_and_is_recorded_in_lineage(cli, warehouse):
    bad = json.dumps([{**r, "Performance_Result": "n/a"} for r in v60_records()]).encode()
    with serve(MIRROR, {V60_PATH: [("body", bad)]}) as server:
        code, out, err = backfill(cli, server.url, warehouse, "v6.0",
                                  extra=("--allow", "all-quarantined", "--allow", "shrink"))
    assert code == 0, err
    assert query(warehouse, "SELECT rows_read, rows_loaded, rows_quarantined, overrides FROM sources "
                            "WHERE round = 'v6.0'") == [(520, 0, 520, ["all-quarantined", "shrink"])]
    assert query(warehouse, "SELECT overrides FROM sources WHERE round = 'v5.1'") == [([],)]


@pytest.mark.slow
def test_another_rounds_file_at_a_rounds_path_is_refused(cli, warehouse):
    before = digest(warehouse)
    with serve(MIRROR, {V51_PATH: [("body", v60_bytes())]}) as server:
        code, out, err = backfill(cli, server.url, warehouse, "v5.1")
    assert code == 1
    line = one_error_line(err)
    assert "belongs to another round than v5.1" in line
    assert "the version column says 6.0 (520 rows)" in line and "the result IDs say 6.0 (520 rows)" in line
    assert digest(warehouse) == before
    assert query(warehouse, "SELECT count(*) FROM results WHERE round = 'v5.1' AND result_id LIKE '6.0-%'") \
        == [(0,)]


@pytest.mark.slow
def test_a_csv_cut_at_a_line_break_without_length_is_refused_as_a_shrink(cli, warehouse, tmp_path):
    mirror = csv_mirror(tmp_path)
    with_csv_round(warehouse, mirror)
    before = digest(warehouse)
    lines = CSV.read_bytes().splitlines(keepends=True)
    cut = b"".join(lines[:651])  # the header and 650 records, ending at a line break
    with serve(mirror, {V50_CSV_PATH: [no_length(cut)]}) as server:
        code, out, err = backfill(cli, server.url, warehouse, "v5.0")
    assert code == 1
    line = one_error_line(err)
    # 1 - 650/1285 = 49% fewer rows, over the 10% limit
    assert "would replace 1285 loaded rows with 650 (49% fewer; the limit is 10%" in line
    assert "--allow shrink" in line
    assert digest(warehouse) == before


@pytest.mark.slow
def test_a_csv_cut_mid_line_is_refused(cli, warehouse, tmp_path):
    mirror = csv_mirror(tmp_path)
    with_csv_round(warehouse, mirror)
    before = digest(warehouse)
    whole = CSV.read_bytes()
    cut = whole[: whole.index(b"\n", len(whole) - 2000) + 40]  # 40 bytes into the last lines
    with serve(mirror, {V50_CSV_PATH: [no_length(cut)]}) as server:
        code, out, err = backfill(cli, server.url, warehouse, "v5.0")
    assert code == 1
    line = one_error_line(err)
    assert "the file was cut short" in line and "--allow incomplete-last-line" in line
    assert digest(warehouse) == before


@pytest.mark.slow
def test_a_body_shorter_than_its_declared_length_fails_and_changes_nothing(cli, warehouse, monkeypatch):
    monkeypatch.setenv("MLPERF_FETCH_RETRIES", "1")
    short = f"HTTP/1.0 200 OK\r\nContent-Length: {len(v60_bytes())}\r\n\r\n".encode() + v60_bytes()[:5000]
    before = digest(warehouse)
    with serve(MIRROR, {V60_PATH: [("raw", short), ("raw", short)]}) as server:
        code, out, err = backfill(cli, server.url, warehouse, "v6.0")
        seen = server.handler.requests_seen.count(V60_PATH)
    assert code == 1
    assert "connection broken while reading the body" in one_error_line(err) \
        or "connection closed after 5000" in one_error_line(err)
    assert seen == 2
    assert digest(warehouse) == before


# --- 4. expected failures are one line ------------------------------------------------------------

@pytest.fixture
def lock_holder(warehouse):
    """Another process holding the warehouse open for writing (as a second backfill would)."""
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys; c = duckdb.connect(sys.argv[1]); "
                               "print('ready', flush=True); sys.stdin.read()", warehouse],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "ready"
    yield holder
    holder.stdin.close()
    holder.wait(timeout=30)


def test_a_warehouse_locked_by_another_process_is_one_line(cli, warehouse, lock_holder):
    before = file_digest(warehouse)
    for args in (["backfill", "--source", str(MIRROR), "--rounds", "v6.0"], ["sql", "SELECT 1"],
                 ["claims", "load", str(ROOT / "examples" / "claims_v6.1_nvidia.example.toml")]):
        code, out, err = cli(*args, "--db", warehouse)
        assert code == 1, (args, err)
        assert f"in use by process {lock_holder.pid}" in one_error_line(err)
    lock_holder.stdin.close()
    lock_holder.wait(timeout=30)
    assert file_digest(warehouse) == before


def _truncated(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[:100_000])


def _not_duckdb(path: Path) -> None:
    path.write_text("round,result\nv6.0,1\n")


def _corrupt(path: Path) -> None:
    with open(path, "r+b") as f:
        f.seek(3 * 4096)
        f.write(b"\xde\xad" * 5000)


@pytest.mark.parametrize("damage", [_truncated, _not_duckdb, _corrupt], ids=["truncated", "not-duckdb", "corrupt"])
def test_a_damaged_warehouse_file_is_one_line_and_left_alone(cli, warehouse, damage):
    damage(Path(warehouse))
    before = file_digest(warehouse)
    for args in (["backfill", "--source", str(MIRROR), "--rounds", "v6.0"], ["sql", "SELECT 1"],
                 ["status"], ["export", str(Path(warehouse).parent / "bi")]):
        code, out, err = cli(*args, "--db", warehouse)
        assert code == 1, (args, err)
        assert "not a DuckDB warehouse file, or a corrupt or truncated one" in one_error_line(err)
    assert file_digest(warehouse) == before


@pytest.fixture
def read_only_warehouse(warehouse):
    """The file made immutable (chattr +i): not even root can open it for writing."""
    if subprocess.run(["chattr", "+i", warehouse], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here (needs e2fsprogs and CAP_LINUX_IMMUTABLE)")
    yield warehouse
    subprocess.run(["chattr", "-i", warehouse], check=True)


def test_a_read_only_warehouse_file_is_one_line_and_still_readable(cli, read_only_warehouse):
    before = file_digest(read_only_warehouse)
    for args in (["backfill", "--source", str(MIRROR), "--rounds", "v6.0"],
                 ["claims", "load", str(ROOT / "examples" / "claims_v6.1_nvidia.example.toml")]):
        code, out, err = cli(*args, "--db", read_only_warehouse)
        assert code == 1, (args, err)
        assert "the warehouse file is read-only here" in one_error_line(err)
    code, out, err = cli("sql", "SELECT count(*) AS n FROM results", "--format", "csv", "--db", read_only_warehouse)
    assert code == 0 and out == f"n\n{query(read_only_warehouse, 'SELECT count(*) FROM results')[0][0]}\n"
    assert file_digest(read_only_warehouse) == before


@pytest.mark.slow
def test_a_full_disk_is_one_line_and_loses_nothing(warehouse, tmp_path):
    """A process whose files may not grow (RLIMIT_FSIZE): every write fails as on a full disk."""
    before = digest(warehouse)
    script = ("import resource, signal, sys\n"
              "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))\n"
              "from warehouse.cli import main\n"
              "sys.exit(main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", script, "claims", "load",
                           str(ROOT / "examples" / "claims_v6.1_nvidia.example.toml"), "--db", warehouse],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 1, done.stderr
    assert "disk full" in one_error_line(done.stderr)
    assert digest(warehouse) == before


@pytest.mark.parametrize("target", ["a-file", "a-file/below-it"])
def test_an_export_target_that_is_a_file_is_one_line(cli, shared_warehouse, tmp_path, target):
    (tmp_path / "a-file").write_text("not a directory")
    code, out, err = cli("export", str(tmp_path / target), "--db", shared_warehouse)
    assert code == 1
    assert str(tmp_path / "a-file") in one_error_line(err)
    assert (tmp_path / "a-file").read_text() == "not a directory"


@pytest.mark.parametrize(("redirects", "said"), [
    ([("redirect", "file:///etc/passwd")], "refused: not an HTTP URL (file://)"),
    ([("redirect", V60_PATH)] * 3, "redirect loop"),
], ids=["to-a-file-url", "loop"])
@pytest.mark.slow
def test_bad_redirects_are_one_line(cli, warehouse, redirects, said):
    before = digest(warehouse)
    with serve(MIRROR, {V60_PATH: list(redirects)}) as server:
        code, out, err = backfill(cli, server.url, warehouse, "v6.0")
    assert code == 1
    assert said in one_error_line(err)
    assert digest(warehouse) == before


@pytest.mark.slow
def test_deeply_nested_json_is_one_line(cli, warehouse):
    before = digest(warehouse)
    with serve(MIRROR, {V60_PATH: [("body", b"[" * 200_000 + b"]" * 200_000)]}) as server:
        code, out, err = backfill(cli, server.url, warehouse, "v6.0")
    assert code == 1
    assert "nested too deeply" in one_error_line(err)
    assert digest(warehouse) == before


def test_deeply_nested_toml_is_one_line(cli, warehouse, tmp_path):
    claims = tmp_path / "claims.toml"
    claims.write_text("x = " + "[" * 100_000 + "]" * 100_000 + "\n")
    code, out, err = cli("claims", "load", claims, "--db", warehouse)
    assert code == 1
    assert "nested too deeply" in one_error_line(err)


NOT_MODIFIED = ("raw", b"HTTP/1.0 304 Not Modified\r\n\r\n")


@pytest.mark.slow
def test_a_304_answer_to_force_is_one_line(cli, warehouse):
    before = digest(warehouse)
    with serve(MIRROR, {V60_PATH: [NOT_MODIFIED]}) as server:
        code, out, err = backfill(cli, server.url, warehouse, "v6.0", extra=("--force",))
    assert code == 1
    assert "answered 304 Not Modified to a request that was not conditional" in one_error_line(err)
    assert digest(warehouse) == before


# --- 5. no false success --------------------------------------------------------------------------

@pytest.mark.parametrize("source", ["mirorr", "file:///no/such/mirror"])
def test_a_source_that_does_not_exist_is_an_error(cli, warehouse, tmp_path, source):
    source = str(tmp_path / source) if "://" not in source else source
    before = digest(warehouse)
    code, out, err = backfill(cli, source, warehouse, "v6.0")
    assert code == 1
    assert "no such directory" in one_error_line(err)
    assert "not_published" not in out
    assert digest(warehouse) == before


@pytest.mark.slow
def test_a_file_url_source_that_exists_loads(cli, db_file, shared_warehouse):
    code, out, err = backfill(cli, MIRROR.as_uri(), db_file, "v6.0")
    assert code == 0, err
    rows = "SELECT * EXCLUDE (source_id) FROM results WHERE round = 'v6.0' ORDER BY ALL"
    assert query(db_file, rows) == query(shared_warehouse, rows)


@pytest.mark.slow
def test_a_304_to_an_empty_warehouse_is_not_unchanged(cli, db_file):
    with serve(MIRROR, {V60_PATH: [NOT_MODIFIED]}) as server:
        code, out, err = backfill(cli, server.url, db_file, "v6.0")
    assert code == 1
    assert "unchanged" not in out
    assert "304 Not Modified" in one_error_line(err)
    assert query(db_file, "SELECT count(*) FROM sources") == [(0,)]


# --- 6. source hygiene ----------------------------------------------------------------------------

@pytest.mark.slow
def test_a_redirect_to_another_host_is_refused(cli, warehouse):
    before = digest(warehouse)
    with serve(MIRROR) as elsewhere, serve(MIRROR) as server:
        server.handler.faults[V60_PATH] = [("redirect", elsewhere.url.replace("127.0.0.1", "localhost")
                                            + V60_PATH)]
        code, out, err = backfill(cli, server.url, warehouse, "v6.0", extra=("--force",))
        assert elsewhere.handler.requests_seen == []
    assert code == 1
    assert "refused: another host (localhost); allow it with MLPERF_REDIRECT_HOSTS=localhost" \
        in one_error_line(err)
    assert digest(warehouse) == before


@pytest.mark.slow
def test_redirects_within_the_host_or_the_allow_list_record_the_final_url(cli, db_file, monkeypatch):
    monkeypatch.setenv("MLPERF_REDIRECT_HOSTS", "localhost")
    with serve(MIRROR) as elsewhere, serve(MIRROR) as server:
        final = elsewhere.url.replace("127.0.0.1", "localhost") + "/inference_results_v6.0/main/./summary_results.json"
        server.handler.faults[V60_PATH] = [("redirect", "/moved" + V60_PATH)]
        server.handler.faults["/moved" + V60_PATH] = [("redirect", final)]
        code, out, err = backfill(cli, server.url, db_file, "v6.0")
    assert code == 0, err
    assert query(db_file, "SELECT url FROM sources") == [(final,)]


@pytest.mark.slow
def test_credentials_in_a_source_url_are_not_stored(cli, db_file):
    with serve(MIRROR) as server:
        secret_url = server.url.replace("http://", "http://analyst:hunter2@")
        code, out, err = backfill(cli, secret_url, db_file, "v5.0", "v6.0")  # v5.0: not published there
    assert code == 0, err
    [(url,)] = query(db_file, "SELECT url FROM sources")
    assert url == server.url + V60_PATH
    assert "not published at this source" in {r["round"]: r for r in table_rows(out)}["v5.0"]["note"]
    assert "hunter2" not in out + err


@pytest.mark.unit
def test_secret_query_parameters_are_redacted():
    from warehouse.ingest.source_urls import redact
    assert redact("https://u:p@host:8443/a/b.json?token=t0k&page=2&X-Amz-Signature=s1g") == \
        "https://host:8443/a/b.json?token=REDACTED&page=2&X-Amz-Signature=REDACTED"
    assert redact("/local/dir/summary.csv") == "/local/dir/summary.csv"


@pytest.mark.parametrize("name", ["v6.0\n", "v6.0 ", "v\u0666.\u0660", "v\uff16.0"])
def test_round_names_are_ascii_only(cli, db_file, name):
    code, out, err = cli("ingest", name, "--file", str(CSV), "--db", db_file)
    assert code == 2, err
    assert "invalid round name" in one_error_line(err)
    if not name[-1].isspace():  # a --rounds list is comma-separated; spaces around names are layout
        code, out, err = cli("backfill", "--rounds", name, "--db", db_file, "--source", str(MIRROR))
        assert code == 2, err
        assert "invalid round name" in one_error_line(err)
    assert not Path(db_file).exists()


CLAIM = """
[[claim]]
id = "{id}"
vendor = "NVIDIA"
source = "https://example.invalid/blog"
published_on = 2026-01-01
statement = "{statement}"
round = "v6.0"
model = "llama2-70b-99"
scenario = "Offline"
kind = "absolute"
multiplier = {multiplier}
stage = "vendor_self_test"
"""


def claims_file(tmp_path: Path, name: str, id="c-1", statement="fast", multiplier="2.0") -> Path:
    path = tmp_path / name
    path.write_text(CLAIM.format(id=id, statement=statement, multiplier=multiplier))
    return path


@pytest.mark.slow
def test_a_claim_id_owned_by_another_file_needs_replace(cli, warehouse, tmp_path):
    assert cli("claims", "load", claims_file(tmp_path, "a.toml"), "--db", warehouse)[0] == 0
    before = query(warehouse, "SELECT * FROM claims ORDER BY ALL")
    code, out, err = cli("claims", "load", claims_file(tmp_path, "b.toml", multiplier="9.0"), "--db", warehouse)
    assert code == 1
    assert f"claim 'c-1' is owned by {tmp_path / 'a.toml'}" in one_error_line(err)
    assert query(warehouse, "SELECT * FROM claims ORDER BY ALL") == before
    code, out, err = cli("claims", "load", claims_file(tmp_path, "b.toml", multiplier="9.0"), "--db", warehouse,
                         "--replace")
    assert code == 0, err
    assert query(warehouse, "SELECT claim_file, multiplier FROM claims") == [(str(tmp_path / "b.toml"), 9.0)]


@pytest.mark.parametrize("multiplier", ["inf", "nan", "-inf"])
def test_non_finite_multipliers_are_errors(cli, warehouse, tmp_path, multiplier):
    code, out, err = cli("claims", "load", claims_file(tmp_path, "c.toml", multiplier=multiplier),
                         "--db", warehouse)
    assert code == 1
    assert f"field 'multiplier': expected a finite number, got {multiplier}" in one_error_line(err)
    assert query(warehouse, "SELECT count(*) FROM claims") == [(0,)]


def test_non_numbers_in_decisions_are_errors(cli, warehouse, tmp_path):
    decisions = tmp_path / "d.toml"
    decisions.write_text((ROOT / "examples" / "decisions.example.toml").read_text()
                         .replace('title = "', 'title = nan\nold_title = "', 1))
    code, out, err = cli("decisions", "load", decisions, "--db", warehouse)
    assert code == 1
    assert "field 'title': expected text, got float nan" in one_error_line(err)


@pytest.mark.parametrize(("price", "shown"), [("inf", "'inf'"), ("nan", "'nan'"), ("12,5", "'12,5'"),
                                              ("cheap", "'cheap'")])
def test_bad_prices_are_errors_showing_the_value(cli, warehouse, tmp_path, price, shown):
    prices = tmp_path / "prices.csv"
    prices.write_text(f'accelerator,dollars_per_accelerator_hour\nH100 SXM,"{price}"\n')
    code, out, err = cli("prices", "load", prices, "--db", warehouse)
    assert code == 1
    line = one_error_line(err)
    assert "row 2: dollars_per_accelerator_hour: failed" in line and f"(got {shown})" in line


def test_unknown_accelerators_in_prices_loaded_anyway_are_named_in_a_warning(cli, warehouse, tmp_path):
    prices = tmp_path / "prices.csv"
    prices.write_text("accelerator,dollars_per_accelerator_hour\nH100 SXM,2.5\nH1OO typo,3\n")
    code, out, err = cli("prices", "load", prices, "--db", warehouse, "--allow-unknown")
    assert code == 0, err
    assert "warning: " in err and "'H1OO typo'" in err and "'H100 SXM'" not in err


def test_stored_text_is_printed_with_control_characters_escaped(cli, warehouse, tmp_path):
    path = claims_file(tmp_path, "e.toml", statement="\\u001b[2J\\u001b[31mwiped")
    assert cli("claims", "load", path, "--db", warehouse)[0] == 0
    for args in (["sql", "SELECT statement FROM claims"], ["sql", "SELECT statement FROM claims", "--format", "csv"],
                 ["claims", "audit"]):
        code, out, err = cli(*args, "--db", warehouse)
        assert code == 0, err
        assert "\x1b" not in out
    assert "\\x1b[2J\\x1b[31mwiped" in cli("sql", "SELECT statement FROM claims", "--db", warehouse)[1]


# --- 3. an overall deadline per file fetch (signals and processes: test_faults_signals.py) ---------

@pytest.mark.slow
def test_a_slow_drip_server_cannot_hold_a_fetch_past_its_deadline(cli, warehouse, monkeypatch):
    import time
    monkeypatch.setenv("MLPERF_FETCH_DEADLINE", "2")
    before = digest(warehouse)
    with serve(MIRROR, {V60_PATH: [("drip", 0.01)]}) as server:
        started = time.monotonic()
        code, out, err = backfill(cli, server.url, warehouse, "v6.0")
        took = time.monotonic() - started
        seen = server.handler.requests_seen.count(V60_PATH)
    assert code == 1
    assert "not fetched within the deadline (MLPERF_FETCH_DEADLINE)" in one_error_line(err)
    assert seen == 1  # a deadline is not retried
    # 2 s of deadline + at most one read timeout (1.5 s in tests) + a run's own work
    assert took < 30, took  # a drip of the whole file would take 100 minutes
    assert digest(warehouse) == before


# --- the exit-code table itself ------------------------------------------------------------------

@pytest.mark.unit
def test_a_bug_is_one_line_with_exit_70_and_the_traceback_behind_v(capsys, monkeypatch):
    from warehouse.cli.failures import run_reporting_failures
    from warehouse.errors import EXIT_BUG
    monkeypatch.delenv("MLPERF_DEBUG", raising=False)

    def broken() -> int:
        return {}["no such key"]
    assert run_reporting_failures(broken) == EXIT_BUG == 70
    err = capsys.readouterr().err
    assert one_error_line(err) == "error: unexpected KeyError: 'no such key' (a bug: run with -v for the traceback)"
    assert err.count("\n") == 1
    assert run_reporting_failures(broken, verbose=True) == 70
    assert "Traceback" in capsys.readouterr().err
    monkeypatch.setenv("MLPERF_DEBUG", "1")
    assert run_reporting_failures(broken) == 70
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize("args", [["status"], ["sql", "SELECT 1"], ["export", "bi"], ["claims", "audit"]])
def test_a_missing_warehouse_is_one_line(cli, tmp_path, args):
    missing = tmp_path / "nowhere.duckdb"
    code, out, err = cli(*args, "--db", missing)
    assert code == 1
    assert one_error_line(err) == (f"error: no warehouse at {missing}: this command reads a warehouse and makes "
                                   f"none; build one with `mlperf-wh backfill --db {missing}` first")
    assert not missing.exists()


@pytest.mark.parametrize("where", ["before", "after"])
def test_v_shows_the_traceback_of_an_expected_failure_too(cli, shared_warehouse, where):
    args = ["sql", "COPY results TO 'x.csv'", "--db", shared_warehouse]
    code, out, err = cli(*(["-v", *args] if where == "before" else [*args, "-v"]))
    assert code == 1
    assert "Traceback" in err and "error: `sql` is read-only" in err
