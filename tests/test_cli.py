"""The CLI as a user meets it: global options anywhere, --version, --format on every command that
prints rows, the sql row limit, usage errors in one line (exit 2), output within the terminal's
width, an example in every --help, and a start-up that imports no heavy module."""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import duckdb
import pytest

from tests.cli_tables import table_rows
from tests.conftest import ROOT, SHARED_ROUNDS, UNOFFICIAL
from tests.faults import one_error_line
from tests.readers import connect_file

COMMAND = Path(sys.executable).parent / "mlperf-wh"
CLAIMS = ROOT / "examples" / "claims_v6.1_nvidia.example.toml"
DECISIONS = ROOT / "examples" / "decisions.example.toml"
DECISION = "agent-inference-capacity-2026h2"


@pytest.fixture
def run(capsys):
    """`mlperf-wh ARGS...` in this process, for commands that never start Prefect."""
    from warehouse.cli import main

    def run(*args):
        code = main([str(a) for a in args])
        captured = capsys.readouterr()
        return code, captured.out, captured.err
    return run


@pytest.fixture(scope="module")
def ledger_warehouse(shared_warehouse, tmp_path_factory) -> str:
    """The shared warehouse plus the example claims and decisions (loaded with the CLI)."""
    from warehouse.cli import main
    path = tmp_path_factory.mktemp("cli") / "warehouse.duckdb"
    shutil.copyfile(shared_warehouse, path)
    assert main(["claims", "load", str(CLAIMS), "--db", str(path), "-q"]) == 0
    assert main(["decisions", "load", str(DECISIONS), "--db", str(path), "-q"]) == 0
    return str(path)


def count(db: str, sql: str) -> int:
    with connect_file(db, read_only=True) as con:
        return con.execute(sql).fetchone()[0]


# --- global options -------------------------------------------------------------------------------

QUERY = "SELECT round, count(*) AS n FROM results GROUP BY round ORDER BY round"


@pytest.mark.parametrize("where", ["before", "after", "between"])
def test_global_options_go_before_or_after_the_command(run, shared_warehouse, where):
    args = {"before": ["--db", shared_warehouse, "-q", "sql", QUERY, "--format", "csv"],
            "after": ["sql", QUERY, "--format", "csv", "--db", shared_warehouse, "-q"],
            "between": ["-q", "sql", "--db", shared_warehouse, QUERY, "--format", "csv"]}[where]
    code, out, err = run(*args)
    assert (code, err) == (0, "")
    assert list(csv.DictReader(io.StringIO(out))) == [{"round": r, "n": str(n)} for r, n in (
        (r, count(shared_warehouse, f"SELECT count(*) FROM results WHERE round = '{r}'")) for r in SHARED_ROUNDS)]


def test_a_subcommand_of_a_group_takes_the_global_options_at_either_level(run, ledger_warehouse):
    expected = count(ledger_warehouse, "SELECT count(*) FROM claim_audit")
    for args in (["claims", "--db", ledger_warehouse, "audit", "--format", "json"],
                 ["claims", "audit", "--format", "json", "--db", ledger_warehouse],
                 ["--db", ledger_warehouse, "claims", "audit", "--format", "json"]):
        code, out, _ = run(*args)
        assert code == 0 and len(json.loads(out)) == expected == 15


@pytest.mark.parametrize("args", [["--version"], ["sql", "--version"], ["claims", "audit", "--version"]])
def test_version_prints_the_installed_packages_version(run, args):
    code, out, err = run(*args)
    assert (code, out, err) == (0, f"mlperf-wh {version('mlperf-warehouse')}\n", "")


def test_verbose_and_quiet_exclude_each_other(run, shared_warehouse):
    code, out, err = run("-v", "sql", "SELECT 1", "-q", "--db", shared_warehouse)
    assert code == 2 and "-v/--verbose and -q/--quiet exclude each other" in one_error_line(err)


@pytest.mark.slow
def test_quiet_keeps_the_rows_and_drops_the_rest(run, ledger_warehouse, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copyfile(ledger_warehouse, db)
    assert run("views", "refresh", "--db", db)[1].startswith("rebuilt ")
    assert run("views", "refresh", "--db", db, "-q") == (0, "", "")
    code, out, err = run("-q", "sql", "SELECT * FROM results", "--db", db)
    assert code == 0 and err == "" and "showing" not in out and len(table_rows(out)) == 100


def test_source_is_offered_only_by_commands_that_fetch(run, shared_warehouse):
    code, out, err = run("sql", "SELECT 1", "--source", "elsewhere", "--db", shared_warehouse)
    assert code == 2 and one_error_line(err).startswith("error: No such option: --source")
    for command in (["backfill"], ["ingest"], ["trees"], ["watch"], ["serve"], ["schedule"]):
        assert "--source" in run(*command, "--help")[1]
    for command in (["sql"], ["status"], ["views"], ["drift"], ["loads"], ["history"], ["export"], ["claims", "audit"]):
        assert "--source" not in run(*command, "--help")[1]


# --- --format on every command that prints rows ---------------------------------------------------

def parsed(out: str, fmt: str):
    return list(csv.DictReader(io.StringIO(out))) if fmt == "csv" else json.loads(out)


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_every_row_command_prints_csv_and_json(run, ledger_warehouse, fmt):
    db = ledger_warehouse
    from warehouse.views import definitions
    views = parsed(run("views", "--format", fmt, "--db", db)[1], fmt)
    assert [v["view"] for v in views] == [v.name for v in definitions() if v.layer == "marts"]
    every = parsed(run("views", "--all", "--format", fmt, "--db", db)[1], fmt)
    tables = [v for v in every if v["layer"] == "sources"]
    assert [v["view"] for v in every] == [v["view"] for v in tables] + [v.name for v in definitions()]
    # the loaded tables too, each with what one row is (answer_changes was missing: issue 55)
    assert {"results", "load_events", "result_changes", "answer_changes"} <= {v["view"] for v in tables}
    assert all(v["answers"] and v["stored_as"] == "table" for v in tables)
    assert {"claim_audit", "software_gains"} <= {v["view"] for v in views}

    drift = parsed(run("drift", "--format", fmt, "--db", db)[1], fmt)
    assert len(drift) == count(db, "SELECT count(*) FROM drift")

    loads = parsed(run("loads", "--format", fmt, "--db", db)[1], fmt)
    assert len(loads) == count(db, "SELECT count(*) FROM load_events")
    # `history`, the old name of `loads`, prints the same rows for one more release, and says so on stderr
    code, out, err = run("history", "--format", fmt, "--db", db)
    assert code == 0 and parsed(out, fmt) == loads and "`mlperf-wh history` is now `mlperf-wh loads`" in err

    audit = parsed(run("claims", "audit", "--format", fmt, "--db", db)[1], fmt)
    assert sorted(a["id"] for a in audit) == sorted(
        r for (r,) in connect_file(db, read_only=True).execute("SELECT id FROM claims").fetchall())

    record = parsed(run("decisions", "show", DECISION, "--format", fmt, "--db", db)[1], fmt)
    fields = {r["field"]: r["value"] for r in record} if fmt == "csv" else record["capacity_decision_record"]
    assert fields["id"] == DECISION
    used = json.loads(fields["vendor_claims_used"]) if fmt == "csv" else fields["vendor_claims_used"]
    assert [c["id"] for c in used] and all("verdict" in c for c in used)


def test_status_prints_each_section_as_json_and_one_as_csv(run, ledger_warehouse):
    code, out, _ = run("status", "--format", "json", "--db", ledger_warehouse)
    sections = json.loads(out)
    assert code == 0 and {"sources", "results", "claims", "decisions-due"} <= set(sections)
    assert [(s["round"], s["rows_read"]) for s in sections["sources"]] == list(SHARED_ROUNDS.items())
    verified_v60 = count(ledger_warehouse, "SELECT count(*) FROM results WHERE round = 'v6.0' AND verification = 'verified'")
    (v60,) = [s for s in sections["results"] if (s["round"], s["verification"]) == ("v6.0", "verified")]
    assert v60["rows"] == verified_v60
    # one count of verified results everywhere: status's performance rows are dim_rounds' (the report's)
    for section in (s for s in sections["results"] if s["verification"] == "verified"):
        assert section["performance_rows"] == count(
            ledger_warehouse, f"SELECT verified_rows FROM dim_rounds WHERE round = '{section['round']}'")
    assert sum(s["claims"] for s in sections["claims"]) == 15

    code, out, _ = run("status", "--section", "results", "--format", "csv", "--db", ledger_warehouse)
    assert sum(int(r["rows"]) for r in csv.DictReader(io.StringIO(out))) == count(
        ledger_warehouse, "SELECT count(*) FROM results")

    code, _, err = run("status", "--format", "csv", "--db", ledger_warehouse)
    assert code == 2 and "--format csv prints one section" in one_error_line(err)


# --- the sql row limit -----------------------------------------------------------------------------

def test_sql_cuts_a_table_at_100_rows_and_says_so(run, shared_warehouse):
    total = count(shared_warehouse, "SELECT count(*) FROM results")
    code, out, err = run("sql", "SELECT result_id FROM results ORDER BY ALL", "--db", shared_warehouse)
    assert code == 0 and err == ""
    assert len(table_rows(out)) == 100
    # read by a program, the note stays with the table (on a terminal it goes to stderr, below)
    assert out.splitlines()[-1] == f"showing 100 of {total:,} rows; --limit 0 for all"


def test_on_a_terminal_the_note_goes_to_stderr(run, shared_warehouse, monkeypatch):
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, err = run("sql", "SELECT result_id FROM results", "--limit", "3", "--db", shared_warehouse)
    total = count(shared_warehouse, "SELECT count(*) FROM results")
    assert err == f"showing 3 of {total:,} rows; --limit 0 for all\n" and len(table_rows(out)) == 3


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_machine_formats_print_every_row_unless_limited_and_keep_the_note_off_stdout(run, shared_warehouse, fmt):
    total = count(shared_warehouse, "SELECT count(*) FROM results")
    code, out, err = run("sql", "SELECT result_id FROM results", "--format", fmt, "--db", shared_warehouse)
    assert (code, err, len(parsed(out, fmt))) == (0, "", total)
    code, out, err = run("sql", "SELECT result_id FROM results", "--format", fmt, "--limit", "7",
                         "--db", shared_warehouse)
    assert len(parsed(out, fmt)) == 7 and err == f"showing 7 of {total:,} rows; --limit 0 for all\n"
    code, out, err = run("sql", "SELECT result_id FROM results", "--limit", "0", "--db", shared_warehouse)
    assert len(table_rows(out)) == total and "showing" not in out + err


# --- usage errors and missing files ----------------------------------------------------------------

@pytest.mark.parametrize("args, said", [
    (["sql", "SELECT 1", "--frmat", "csv"], "No such option: --frmat"),
    (["sql"], "Missing argument 'QUERY'"),
    (["sql", "SELECT 1", "--format", "xml"], "Invalid value for '--format'"),
    (["sql", "SELECT 1", "--limit", "-1"], "Invalid value for '--limit'"),
    (["nope"], "No such command 'nope'"),
    (["claims", "show"], "No such command 'show'"),
    (["backfill", "--allow", "everything"], "--allow everything: no such guard"),
    (["backfill", "--rounds", "v6"], "invalid round name 'v6'"),
    (["export", "bi", "--format", "pdf"], "Invalid value for '--format'"),
    (["views", "drop"], "Invalid value for 'ACTION'"),
    ([], "issing command"),
])
def test_a_usage_error_is_one_line_and_exit_2(run, tmp_path, args, said):
    code, out, err = run(*args, "--db", tmp_path / "w.duckdb")
    assert code == 2
    line = one_error_line(err)
    assert said in line and "--help" in line and "Traceback" not in out + err
    assert not (tmp_path / "w.duckdb").exists()


def test_the_installed_command_exits_2_on_a_usage_error(tmp_path):
    done = subprocess.run([str(COMMAND), "status", "--section", "everything", "--db", str(tmp_path / "w.duckdb")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert one_error_line(done.stderr).startswith("error: --section everything: no such section")


@pytest.mark.parametrize("args", [["ingest", "v5.0", "--file"], ["claims", "load"], ["decisions", "load"],
                                  ["prices", "load"]])
def test_a_missing_file_is_the_same_one_line_and_exit_1_from_every_command(run, tmp_path, args):
    missing = tmp_path / "missing.toml"
    code, out, err = run(*args, missing, "--db", tmp_path / "w.duckdb")
    assert code == 1 and one_error_line(err) == f"error: {missing}: no such file"
    assert not (tmp_path / "w.duckdb").exists()


# --- output sized to the terminal ------------------------------------------------------------------

@pytest.mark.parametrize("columns", [80, 120])
def test_tables_fit_the_terminal(run, ledger_warehouse, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", str(columns))
    for args in (["views"], ["status"], ["claims", "audit"], ["sql", "SELECT * FROM results"]):
        code, out, _ = run(*args, "--db", ledger_warehouse)
        assert code == 0
        too_wide = [line for line in out.splitlines() if len(line) > columns]
        assert not too_wide, (args, too_wide[:3])
    # headers are never wrapped: each table's header line holds every column name whole
    code, out, _ = run("views", "--db", ledger_warehouse)
    assert [r["view"] for r in table_rows(out)][:2] == ["accelerator_comparison", "accelerator_history"]
    assert out.splitlines()[1].split("┆")[0].strip("│ ") == "view"


def test_wide_prints_every_cell_whole_at_any_row_count(run, shared_warehouse, monkeypatch):
    # Issue 63: more than 200 rows printed 113 columns wide whatever the terminal; --wide is the one way
    # to the whole cells, a table as wide as they make it (for `less -S`).
    monkeypatch.setenv("COLUMNS", "80")
    text = "extrapolated from 8 accelerators of one server " * 3
    for rows in (3, 250):
        query = f"SELECT range AS n, 'v6.0-' || range AS result_id, '{text}' AS note FROM range({rows})"
        sized = run("sql", query, "--limit", "0", "--db", shared_warehouse)[1].splitlines()
        assert max(map(len, sized)) <= 80 and text.strip() not in "".join(sized), rows
        wide = run("--wide", "sql", query, "--limit", "0", "--db", shared_warehouse)[1].splitlines()
        assert sum(text.strip() in line for line in wide) == rows and max(map(len, wide)) > 80, rows


def test_a_wide_terminal_gets_one_line_per_row(run, shared_warehouse, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run("sql", "SELECT round, count(*) AS n FROM results GROUP BY ALL ORDER BY ALL",
                       "--db", shared_warehouse)
    assert [line.split("┆")[0].strip("│ ") for line in out.splitlines()[3:-1]] == list(SHARED_ROUNDS)


# --- help -------------------------------------------------------------------------------------------

def every_command() -> list[list[str]]:
    import typer

    from warehouse.cli.app import app
    found = []

    def walk(command, path):
        subcommands = getattr(command, "commands", None)
        if subcommands:
            for name, sub in subcommands.items():
                walk(sub, [*path, name])
        found.append(path)
    walk(typer.main.get_command(app), [])
    return found


def test_every_help_shows_an_example(run):
    commands = every_command()
    assert len(commands) == 30  # 25 commands (history: loads' old name; notify), the claims/decisions/prices/measurements groups, the top level
    for path in commands:
        code, out, err = run(*path, "--help")
        assert code == 0 and err == "", path
        assert "Example" in out and "mlperf-wh " in out.split("Example", 1)[1], path
        assert "--db" in out and "--version" in out, path


def test_help_names_what_the_package_defines(run, prefect_harness, monkeypatch):
    from flows.trees import DEFAULT_CONCURRENCY
    from warehouse.cli import build, global_options, outputs
    from warehouse.export.bi_files import EXPORT_FORMATS
    from warehouse.ingest.guards import GUARDS
    from warehouse.trees.fetching import DEFAULT_CHUNK
    from warehouse.store.db import DEFAULT_DB
    assert build.GUARD_NAMES == tuple(GUARDS)
    assert tuple(f.value for f in outputs.ExportFormat) == EXPORT_FORMATS
    assert global_options.DEFAULT_DB == DEFAULT_DB
    monkeypatch.setenv("COLUMNS", "300")
    trees_help = run("trees", "--help")[1]
    assert f"(default {DEFAULT_CONCURRENCY})" in trees_help and f"(default {DEFAULT_CHUNK})" in trees_help


def test_the_raw_options_help_shows_what_sql_prints(run, shared_warehouse, monkeypatch):
    # Issue 55: the help said 35420.7999 prints as "535,421".
    monkeypatch.setenv("COLUMNS", "300")
    shown = re.search(r"every digit \(([\d.]+)\), not figures for people \(([\d,]+);", run("sql", "--help")[1])
    assert shown is not None
    digits, figure = shown.groups()

    def cell(*raw: str) -> str:
        out = run("sql", f"SELECT {digits}::DOUBLE AS x", *raw, "--db", shared_warehouse)[1]
        return out.splitlines()[3].strip("│ ")
    assert (cell("--raw"), cell()) == (digits, figure) == ("35420.7999999999", "35,421")


def test_help_and_usage_errors_import_no_heavy_module():
    script = ("import sys\nfrom warehouse.cli import main\n"
              "codes = [main(['--help']), main(['sql', '--help']), main(['sql', 'SELECT 1', '--frmat', 'x']),"
              " main(['--version'])]\n"
              "heavy = [m for m in ('polars', 'duckdb', 'pandera', 'prefect') if m in sys.modules]\n"
              "print(codes, heavy, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.stderr.splitlines()[-1] == "[0, 0, 2, 0] []", done.stderr


@pytest.mark.slow
def test_ingest_of_a_file_prints_its_report_as_a_table_or_json(cli, tmp_path):
    csv_file = UNOFFICIAL / "gateoverflow_submissions_v5.0.summary.csv"
    code, out, err = cli("ingest", "v5.0", "--file", csv_file, "--db", tmp_path / "w.duckdb")
    assert code == 0, err
    assert out.splitlines()[0] == "ingest: 1 loaded"
    [row] = table_rows(out)
    assert (row["round"], row["status"], row["loaded"]) == ("v5.0", "loaded", "1,285")
    # a second ingest of the same file changes nothing, and says so
    code, out, err = cli("ingest", "v5.0", "--file", csv_file, "--db", tmp_path / "w.duckdb", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["headline"].startswith("ingest: nothing new")
    assert [(r["round"], r["status"]) for r in report["rounds"]] == [("v5.0", "unchanged")]
