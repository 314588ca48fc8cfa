"""Fault suite, issue 22: outputs lose nothing and leak nothing.

`export` and `report` replace only a directory they can prove they wrote (output_dirs: the marker
listing every file with its size and sha256), never one holding the warehouse or anyone's files, and
follow a symlinked directory; text other people wrote (claims, decisions, upstream rows) never
becomes a live formula, a raw control or bidi character, or a malformed workbook in any CSV or XLSX
(cells.py); list columns are JSON text in every CSV. Each refusal asserts the exit code, the one
`error:` line, and unchanged digests of the warehouse and of the user's files.

A small real warehouse (round v6.0 of the shared mirror, a hostile claim and decision, a quarantined
row) is built once per module; the CLI runs in this process.
"""
from __future__ import annotations

import csv
import io
import json
import os
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import duckdb
import polars as pl
import pytest

from tests.conftest import load_shared_rounds
from tests.faults import copy_of, digest, file_digest, one_error_line, run  # noqa: F401 - run: a fixture
from warehouse.export.cells import any_needs_care_sql, escaped_sql, needs_care_sql, quoted_sql, safe_sql, safe_text
from warehouse.export.frame_cells import safe_frame
from warehouse.export.output_dirs import MARKER, PARTIAL_MARKER, swap_in, write_listing

HYPERLINK = '=HYPERLINK("http://evil.example/","click")'
DDE = "=cmd|' /C calc'!A0"
# TOML escapes: a bell, a NUL, a right-to-left override and a first-strong isolate.
HOSTILE_STATEMENT = f"{DDE} \\u0007 bell \\u0000 nul \\u202e desrever \\u2068 isolated"
RAW_HOSTILE = re.compile("[\x00-\x08\x0b-\x1f\u202a-\u202e\u2066-\u2069]")

TOML_HYPERLINK = HYPERLINK.replace('"', '\\"')
CLAIM = f'''[[claim]]
id = "hostile-claim"
vendor = "{TOML_HYPERLINK}"
source = "https://example.com/"
published_on = 2026-04-01
statement = "{HOSTILE_STATEMENT}"
round = "v6.0"
model = "deepseek-r1"
scenario = "Offline"
kind = "generation_speedup"
accelerator = "GB300"
baseline_accelerator = "GB200"
total_accelerators = 72
multiplier = 1.5
stage = "preview"
cited_result_ids = ["6.0-0001", "6.0-0002"]
'''

DECISION = '''[[decision]]
id = "hostile-decision"
title = "+SUM(1,2) \\u0001 raise"
workload = "-2+3"
metric = "tokens per second"
measured_by = "@measured"
claims_used = ["hostile-claim"]
claims_excluded = []
decision = "=1+1"
decided_on = 2026-05-01
review_due = "v6.0"
'''


@pytest.fixture(scope="module")
def hostile_warehouse(tmp_path_factory) -> str:
    from warehouse.ledger.claims import load_claims, load_decisions
    from warehouse.store import db
    from warehouse.views import materialize
    folder = tmp_path_factory.mktemp("hostile")
    path = str(folder / "warehouse.duckdb")
    load_shared_rounds(path, ("v6.0",))
    (folder / "claims.toml").write_text(CLAIM, encoding="utf-8")
    (folder / "decisions.toml").write_text(DECISION, encoding="utf-8")
    with db.connect(path) as con:
        load_claims(con, folder / "claims.toml")
        load_decisions(con, folder / "decisions.toml")
        con.execute("INSERT INTO quarantine VALUES ('v6.0', 'official/v6.0', 9999, ?, ?)",
                    ['{"System": "=HYPERLINK(1)\x00"}', [HYPERLINK, "bad \u202e value"]])
        con.execute("UPDATE sources SET unknown_columns = ? WHERE round = 'v6.0'", [[DDE, "Extra Column"]])
        materialize(con, changed={"claims", "decisions"})
    return path


def published(db: str) -> str:
    """The warehouse with its published copy (what export and report read), as a load leaves it."""
    from warehouse.store.publish import publish
    publish(db)
    return db


@pytest.fixture
def warehouse(hostile_warehouse, tmp_path) -> str:
    return published(copy_of(hostile_warehouse, tmp_path))


def tree_digest(directory: Path) -> dict[str, str]:
    """Every file below `directory` (symlinks as their target's name) -> its sha256."""
    return {p.relative_to(directory).as_posix(): (f"-> {os.readlink(p)}" if p.is_symlink() else file_digest(p))
            for p in sorted(directory.rglob("*")) if p.is_symlink() or p.is_file()}


def user_files(directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "q3-notes.txt").write_text("mine, not the tool's")
    (directory / "drafts").mkdir()
    (directory / "drafts" / "plan.md").write_text("# plan")
    return directory


OUTPUTS = {
    "report": lambda out: ("report", "--out", out),
    "export": lambda out: ("export", out, "--views", "dim_rounds,claim_audit", "--format", "csv"),
}
# Rendering the report's charts (vl-convert) takes 5-20 s on a busy machine: cases that write one are slow.
WRITTEN_OUTPUTS = [pytest.param("report", marks=pytest.mark.slow), "export"]


# --- 1. an output directory is replaced only when that loses nothing ------------------------------

@pytest.mark.parametrize("command", OUTPUTS)
def test_a_directory_holding_the_warehouse_is_refused(run, hostile_warehouse, tmp_path, command):
    folder = tmp_path / "d"
    folder.mkdir()
    db = published(copy_of(hostile_warehouse, folder, "w.duckdb"))
    (folder / "index.html").write_text("<html>")
    (folder / "manifest.json").write_text("{}")
    before, files_before = digest(db), tree_digest(folder)
    code, _, err = run("--db", db, *OUTPUTS[command](folder))
    assert code == 1
    assert "holds the warehouse file" in one_error_line(err) and "nothing was written" in err
    assert digest(db) == before and tree_digest(folder) == files_before


@pytest.mark.parametrize("command", OUTPUTS)
@pytest.mark.parametrize("lookalike", ["index.html", "manifest.json", None])
def test_a_directory_of_someone_elses_files_is_refused(run, warehouse, tmp_path, command, lookalike):
    folder = user_files(tmp_path / "out")
    if lookalike:
        (folder / lookalike).write_text("{}")
    before, files_before = digest(warehouse), tree_digest(folder)
    code, _, err = run("--db", warehouse, *OUTPUTS[command](folder))
    assert code == 1
    assert f"holds no {command} written by mlperf-wh" in one_error_line(err)
    assert digest(warehouse) == before and tree_digest(folder) == files_before


@pytest.mark.parametrize("command", WRITTEN_OUTPUTS)
def test_a_previous_output_with_a_file_added_or_changed_is_refused(run, warehouse, tmp_path, command):
    folder = tmp_path / "out"
    assert run("--db", warehouse, *OUTPUTS[command](folder))[0] == 0
    (folder / "q3-notes.txt").write_text("added by hand")
    before, files_before = digest(warehouse), tree_digest(folder)
    code, _, err = run("--db", warehouse, *OUTPUTS[command](folder))
    assert code == 1
    assert "q3-notes.txt" in one_error_line(err) and "never deleted" in err
    assert digest(warehouse) == before and tree_digest(folder) == files_before
    (folder / "q3-notes.txt").unlink()
    edited = next(p for p in folder.iterdir() if p.is_file() and p.name != MARKER)
    edited.write_text("edited by hand")
    files_before = tree_digest(folder)
    code, _, err = run("--db", warehouse, *OUTPUTS[command](folder))
    assert code == 1 and edited.name in one_error_line(err)
    assert tree_digest(folder) == files_before


def test_a_previous_output_is_replaced_and_the_files_beside_it_kept(run, warehouse, tmp_path):
    user_files(tmp_path)
    out = tmp_path / "bi"
    assert run("--db", warehouse, "export", out, "--views", "dim_rounds,claim_audit", "--format", "csv")[0] == 0
    beside = {k: v for k, v in tree_digest(tmp_path).items() if not k.startswith("bi/")}
    code, _, err = run("--db", warehouse, "export", out, "--views", "dim_rack_capacity")
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == [MARKER, "dim_rack_capacity.parquet", "manifest.json"]
    assert {k: v for k, v in tree_digest(tmp_path).items() if not k.startswith("bi/")} == beside
    listed = json.loads((out / MARKER).read_text())
    assert listed["kind"] == "export"
    assert {f["path"]: f["sha256"] for f in listed["files"]} == {
        k.removeprefix("bi/"): v for k, v in tree_digest(tmp_path).items() if k.startswith("bi/") and MARKER not in k}


def test_an_export_is_not_replaced_by_a_report(run, warehouse, tmp_path):
    out = tmp_path / "out"
    assert run("--db", warehouse, *OUTPUTS["export"](out))[0] == 0
    files_before = tree_digest(out)
    code, _, err = run("--db", warehouse, "report", "--out", out)
    assert code == 1 and "holds an mlperf-wh export, not a report" in one_error_line(err)
    assert tree_digest(out) == files_before


def test_a_manifest_listing_someone_elses_files_proves_nothing(run, warehouse, tmp_path):
    """Issue 31: a directory that was never an export, with a manifest.json listing its files with
    their true sizes and checksums (as an export's manifest does), is refused; nothing is deleted."""
    folder = user_files(tmp_path / "bi")
    listed = [{"path": p.relative_to(folder).as_posix(), "bytes": p.stat().st_size, "sha256": file_digest(p)}
              for p in folder.rglob("*") if p.is_file()]
    (folder / "manifest.json").write_text(json.dumps({"files": listed}))
    before, files_before = digest(warehouse), tree_digest(folder)
    code, _, err = run("--db", warehouse, "export", folder, "--views", "dim_rounds", "--format", "csv")
    assert code == 1 and "holds no export written by mlperf-wh" in one_error_line(err)
    assert digest(warehouse) == before and tree_digest(folder) == files_before


@pytest.mark.parametrize("claim", [None, "forged"], ids=["no-marker", "marker-of-another-directory"])
def test_a_partial_directory_is_removed_only_when_it_proves_itself_ours(run, warehouse, tmp_path, claim):
    """Issue 31: `.<target>.partial-<dead pid>-*` is removed only with the marker the tool wrote
    into it; a directory of that name holding anyone's files (or a marker copied from elsewhere) stays."""
    planted = user_files(tmp_path / ".bi.partial-999999999-planted")
    if claim:
        (planted / PARTIAL_MARKER).write_text(json.dumps({"written_by": "mlperf-wh", "directory": "other",
                                                         "inode": 1, "pid": 999999999}))
    files_before = tree_digest(planted)
    assert run("--db", warehouse, "export", tmp_path / "bi", "--views", "dim_rounds", "--format", "csv")[0] == 0
    assert tree_digest(planted) == files_before


def test_a_partial_directory_a_killed_export_left_is_removed(tmp_path):
    from warehouse.export.output_dirs import make_staging_dir, remove_abandoned_partials
    target = tmp_path / "bi"
    staging = make_staging_dir(target)
    (staging / "half.csv").write_text("a,b\n1,")
    abandoned = staging.rename(tmp_path / staging.name.replace(f"-{os.getpid()}-", "-999999999-"))
    (abandoned / PARTIAL_MARKER).write_text(json.dumps({**json.loads((abandoned / PARTIAL_MARKER).read_text()),
                                                        "directory": abandoned.name, "pid": 999999999}))
    remove_abandoned_partials(target, "export")
    assert not abandoned.exists()


@pytest.mark.parametrize("command", WRITTEN_OUTPUTS)
def test_a_symlinked_output_directory_is_followed_never_replaced(run, warehouse, tmp_path, command):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    for _ in range(2):  # the first writes into the empty directory, the second replaces its own output
        code, _, err = run("--db", warehouse, *OUTPUTS[command](link))
        assert code == 0, err
        assert link.is_symlink() and os.readlink(link) == str(real)
        assert (real / MARKER).is_file()
    assert {p.name for p in tmp_path.iterdir()} - {"warehouse.duckdb.lock"} == {
        "link", "real", "warehouse.duckdb", "warehouse.read.duckdb"}
    user_files(real)
    before, files_before = digest(warehouse), tree_digest(real)
    code, _, err = run("--db", warehouse, *OUTPUTS[command](link))
    assert code == 1 and "never deleted" in one_error_line(err)
    assert digest(warehouse) == before and tree_digest(real) == files_before and link.is_symlink()


def test_a_symlink_to_a_file_is_one_line(run, warehouse, tmp_path):
    (tmp_path / "a-file").write_text("not a directory")
    (tmp_path / "link").symlink_to(tmp_path / "a-file")
    code, _, err = run("--db", warehouse, "export", tmp_path / "link")
    assert code == 1 and "is not a directory" in one_error_line(err)
    assert (tmp_path / "a-file").read_text() == "not a directory" and (tmp_path / "link").is_symlink()


def test_the_warehouse_file_as_the_directory_is_one_line(run, warehouse):
    before = digest(warehouse)
    code, _, err = run("--db", warehouse, "report", "--out", warehouse)
    assert code == 1 and "not a directory" in one_error_line(err)
    assert digest(warehouse) == before


def test_a_file_that_arrives_during_the_swap_is_kept(tmp_path):
    """The previous output is removed file by file as listed: what appeared after the check stays."""
    target, staging = tmp_path / "out", tmp_path / "staging"
    for folder, text in ((target, "old"), (staging, "new")):
        folder.mkdir()
        (folder / "view.csv").write_text(text)
        write_listing(folder, "export")
    (target / "arrived.txt").write_text("mine")
    swap_in(staging, target, "export")
    assert (target / "view.csv").read_text() == "new"
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("out.kept-")]
    assert len(kept) == 1 and [p.name for p in kept[0].iterdir()] == ["arrived.txt"]


# --- 2. text cells never become formulas, control or bidi characters ------------------------------

SAFE_TEXT = [
    (HYPERLINK, "'" + HYPERLINK), (DDE, "'" + DDE), ("+SUM(1,2)", "'+SUM(1,2)"), ("@GB300", "'@GB300"),
    ("-2+3", "'-2+3"), ("\tx", "'\tx"), ("-", "'-"),
    ("-1.5", "-1.5"), ("+2e3", "+2e3"), (".5", ".5"), ("12", "12"),      # plain numbers stay
    ("\rx", "\\u000dx"), ("a\x00b", "a\\u0000b"), ("\x07=x", "\\u0007=x"), ("line\nnext\tcol", "line\nnext\tcol"),
    ("ok \u202e rev", "ok \\u202e rev"), ("\u2066iso\u2069", "\\u2066iso\\u2069"), ("\ufffe", "\\ufffe"),
    (" =x", " =x"), ("GB300", "GB300"), ("日本", "日本"), ("", ""),
]


@pytest.mark.unit
@pytest.mark.parametrize(("text", "safe"), SAFE_TEXT)
def test_one_rule_for_text_cells(text, safe):
    assert safe_text(text) == safe


@pytest.mark.unit
def test_the_rule_is_the_same_in_polars_and_in_duckdb():
    texts = [text for text, _ in SAFE_TEXT]
    frame = safe_frame(pl.DataFrame({"text": texts + [None], "number": [-1.5] * (len(texts) + 1),
                                     "listed": [[t] for t in texts] + [None]}))
    assert frame["text"].to_list() == [safe for _, safe in SAFE_TEXT] + [None]
    assert frame["number"].to_list() == [-1.5] * (len(texts) + 1)  # numbers are never touched
    assert [json.loads(v) for v in frame["listed"].to_list()[:-1]] == [[t] for t in texts]  # JSON still parses
    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INTEGER, s VARCHAR)")
    con.executemany("INSERT INTO t VALUES (?, ?)", list(enumerate(texts)))
    got = con.execute(f"SELECT {quoted_sql('e')} FROM (SELECT i, {escaped_sql('s')} AS e FROM t) ORDER BY i").fetchall()
    assert [g for (g,) in got] == [safe for _, safe in SAFE_TEXT]
    got = con.execute(f"SELECT {safe_sql('s')} FROM t ORDER BY i").fetchall()  # the two halves in one CASE
    assert [g for (g,) in got] == [safe for _, safe in SAFE_TEXT]


@pytest.mark.unit
def test_a_cell_the_rule_changes_is_always_found_by_the_checks_the_export_runs_first():
    """The export applies the rule only to the columns whose cells it may change (needs_care_sql), and
    asks that only of rows where any column may need it (any_needs_care_sql): neither may miss one."""
    con = duckdb.connect()
    con.execute("CREATE TABLE t (i INTEGER, s VARCHAR, clean VARCHAR)")
    texts = [text for text, _ in SAFE_TEXT] + ["a\n=b"]  # a formula's character after a newline: found too
    con.executemany("INSERT INTO t VALUES (?, ?, 'GB300')", list(enumerate(texts)))
    got = con.execute(f"SELECT s, {needs_care_sql('s')}, {any_needs_care_sql(['clean', 's'])}, "
                      f"{any_needs_care_sql(['clean'])} FROM t ORDER BY i").fetchall()
    for text, one_column, any_column, clean_only in got:
        if safe_text(text) != text:
            assert one_column and any_column, repr(text)
        assert any_column >= one_column and not clean_only, repr(text)
    assert con.execute(f"SELECT {any_needs_care_sql([])}").fetchone() == (False,)


@pytest.mark.unit
def test_a_sheet_row_keeps_empty_text_as_text_and_dates_as_dates(tmp_path):
    import datetime as dt
    import xlsxwriter
    from openpyxl import load_workbook
    from warehouse.export.bi_files import WORKBOOK_OPTIONS, _write_values
    with xlsxwriter.Workbook(str(tmp_path / "t.xlsx"), WORKBOOK_OPTIONS) as workbook:
        day = workbook.add_format({"num_format": "yyyy-mm-dd"})
        sheet = workbook.add_worksheet("t")
        _write_values(sheet, 0, ("", 1.5, None, dt.date(2026, 12, 2), True, "=x"), [(3, day)])
        _write_values(sheet, 1, ("a", 2, None, None, False, "b"), [(3, day)])
    cells = list(load_workbook(tmp_path / "t.xlsx")["t"].iter_rows())
    assert [c.value for c in cells[0]] == ["", 1.5, None, dt.datetime(2026, 12, 2), True, "=x"]
    assert cells[0][0].data_type == "s" and cells[0][5].data_type == "s"  # text, never a formula
    assert cells[0][3].number_format == "yyyy-mm-dd"
    assert [c.value for c in cells[1]] == ["a", 2, None, None, False, "b"]


# The views the hostile text reaches (a whole export takes 10 s here).
HOSTILE_VIEWS = "claim_audit,decisions_due,decision_records,quarantine,sources,dim_rounds"


def assert_safe_csv(text: str) -> list[dict]:
    """No raw control or bidi character anywhere; no cell begins a formula; returns the rows."""
    assert not RAW_HOSTILE.search(text.replace("\r\n", "\n").replace("\n", "").replace("\t", ""))
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        for value in row.values():
            assert not value or value[0] not in "=+-@\t\r" or re.fullmatch(r"[+-]?[\d.eE+-]+", value), value
    return rows


def test_the_csv_export_neutralises_every_text_cell(run, warehouse, tmp_path):
    code, _, err = run("--db", warehouse, "export", tmp_path / "bi", "--format", "csv", "--views", HOSTILE_VIEWS)
    assert code == 0, err
    for path in (tmp_path / "bi").glob("*.csv"):
        assert_safe_csv(path.read_text(encoding="utf-8"))
    claim = next(r for r in assert_safe_csv((tmp_path / "bi" / "claim_audit.csv").read_text(encoding="utf-8"))
                 if r["id"] == "hostile-claim")
    assert claim["vendor"] == "'" + HYPERLINK
    assert claim["statement"] == "'" + DDE + " \\u0007 bell \\u0000 nul \\u202e desrever \\u2068 isolated"
    assert claim["multiplier"] == "1.5"


def test_the_workbook_holds_no_formula_and_every_sheet_is_well_formed(run, warehouse, tmp_path):
    code, _, err = run("--db", warehouse, "export", tmp_path / "bi", "--format", "xlsx", "--views", HOSTILE_VIEWS)
    assert code == 0, err
    with zipfile.ZipFile(tmp_path / "bi" / "mlperf.xlsx") as workbook:
        parts = [n for n in workbook.namelist() if n.endswith(".xml")]
        assert any(n.startswith("xl/worksheets/") for n in parts)
        for name in parts:
            root = ET.fromstring(workbook.read(name))  # raises on XML that is not well-formed
            assert not [e for e in root.iter() if e.tag.endswith("}f")], f"a formula in {name}"
        # text is stored in the shared table or, written in constant-memory mode, in the sheet's row
        strings = "".join(workbook.read(name).decode("utf-8") for name in parts
                          if name == "xl/sharedStrings.xml" or name.startswith("xl/worksheets/"))
    assert "'" + HYPERLINK.replace('"', "&quot;") in strings or "'" + HYPERLINK in strings
    from openpyxl import load_workbook
    sheet = load_workbook(tmp_path / "bi" / "mlperf.xlsx", read_only=True)["claim_audit"]
    rows = list(sheet.iter_rows(values_only=True))
    claim = dict(zip(rows[0], next(r for r in rows if r[0] == "hostile-claim")))
    assert claim["vendor"] == "'" + HYPERLINK and claim["multiplier"] == 1.5
    assert not RAW_HOSTILE.search(claim["statement"])


@pytest.mark.parametrize("args", [
    ("sql", "SELECT vendor, statement, accelerator, multiplier FROM claims"),
    ("sql", "SELECT * FROM decisions_due"),
    ("claims", "audit"),
], ids=["sql-claims", "sql-decisions-due", "claims-audit"])
def test_cli_csv_neutralises_every_text_cell(run, warehouse, args):
    code, out, err = run("--db", warehouse, *args, "--format", "csv")
    assert code == 0, err
    rows = assert_safe_csv(out)
    assert rows and "\x00" not in out


def test_tables_on_screen_escape_bidi_overrides(run, warehouse):
    code, out, err = run("--db", warehouse, "sql", "SELECT statement FROM claims WHERE id = 'hostile-claim'")
    assert code == 0, err
    assert "\u202e" not in out and "\u2068" not in out and "\\u202e" in out


# --- 3. list columns (and bytes) in CSV are JSON text, not a bug ----------------------------------

@pytest.mark.parametrize("args", [
    ("status", "--section", "sources"),
    ("sql", "SELECT * FROM quarantine"),
    ("sql", "SELECT * FROM claim_audit"),
    ("sql", "SELECT * FROM decisions_due"),
    ("sql", "SELECT * FROM dim_rounds"),
    ("sql", "SELECT * FROM run_summaries"),
    ("claims", "audit"),
], ids=lambda a: "-".join(a[-1].split()[-1:]))
def test_list_columns_in_csv_are_json_text(run, warehouse, args):
    before = digest(warehouse)
    code, out, err = run("--db", warehouse, *args, "--format", "csv")
    assert code == 0, err
    assert "Traceback" not in err and "error" not in err
    assert_safe_csv(out)
    assert digest(warehouse) == before


def test_the_lists_of_sources_and_quarantine_read_back_as_json(run, warehouse):
    out = run("--db", warehouse, "status", "--section", "sources", "--format", "csv")[1]
    assert json.loads(next(csv.DictReader(io.StringIO(out)))["unknown_columns"]) == [DDE, "Extra Column"]
    out = run("--db", warehouse, "sql", "SELECT reasons FROM quarantine", "--format", "csv")[1]
    reasons = json.loads(next(csv.DictReader(io.StringIO(out)))["reasons"])
    assert reasons == [HYPERLINK, "bad \u202e value"]  # JSON's own \u escape: the same value


def test_bytes_in_csv_are_hex(run, warehouse):
    code, out, err = run("--db", warehouse, "sql", "SELECT 'x'::BLOB AS b, [1, 2] AS l", "--format", "csv")
    assert code == 0, err
    assert out.splitlines() == ["b,l", '78,"[1, 2]"']



# --- issue 31: text is inert in JSON output, chart specs and the page's inline JSON -----------------

HOSTILE_LABELS = ["esc\x1b[31mred", "<!--<script>", "bidi\u202eevil", "</script><b>"]


@pytest.mark.unit
def test_a_spec_is_inline_json_without_a_raw_angle_bracket():
    from warehouse.export.report_interactive import spec_json
    spec = {"data": {"values": [{"label": label} for label in HOSTILE_LABELS]}}
    text = spec_json(spec)
    assert not re.search(r"[<>&]", text) and text.isascii()
    assert json.loads(text) == spec


@pytest.mark.unit
def test_a_label_that_cannot_be_drawn_is_drawn_escaped():
    """A raw ESC in a label made vl-convert panic (exit 70 for every report, a Rust backtrace in
    the line): the spec's strings are made inert first, and drawn as `\\u001b`."""
    import altair as alt
    import vl_convert as vlc

    from warehouse.export.report_interactive import inert_spec
    chart = alt.Chart(pl.DataFrame({"label": HOSTILE_LABELS, "v": [1, 2, 3, 4]})).mark_point().encode(
        x="v:Q", y="label:N")
    svg = vlc.vegalite_to_svg(inert_spec(chart.to_dict()))
    ET.fromstring(svg)  # well-formed XML
    assert "esc\\u001b[31mred" in svg and "bidi\\u202eevil" in svg and "\x1b" not in svg


def test_json_output_writes_control_and_bidi_characters_as_escapes(run, warehouse):
    code, out, err = run("--db", warehouse, "sql", "SELECT statement FROM claims", "--format", "json")
    assert (code, err) == (0, "")
    assert not RAW_HOSTILE.search(out) and "\\u202e" in out
    assert json.loads(out)[0]["statement"] == HOSTILE_STATEMENT.encode().decode("unicode_escape")  # as stored


@pytest.mark.slow
def test_a_report_over_hostile_labels_is_written_inert(run, warehouse, tmp_path):
    runs = tmp_path / "runs.csv"
    runs.write_text("label,model_id,output_tokens_per_second,accelerator,accelerators,tpot_mean_ms\n" + "".join(
        f'"{label}",meta-llama/Llama-3.1-8B-Instruct,{5000 + i},H200,8,{20 + i}\n' for i, label in enumerate(HOSTILE_LABELS)))
    assert run("--db", warehouse, "measurements", "load", runs)[0] == 0
    code, _, err = run("--db", warehouse, "report", "--out", tmp_path / "report", "--images")  # drawn by vl-convert too
    assert (code, err) == (0, ""), err
    page = (tmp_path / "report" / "index.html").read_text()
    assert "<!--<script" not in page and "\x1b" not in page and "\u202e" not in page
    scripts = re.findall(r'<script type="application/json" id="spec-interactivity">(.*?)</script>', page, re.S)
    rows = [v for data in json.loads(scripts[0])["datasets"].values() for v in data]
    labels = {v["run"] for v in rows if v["source"] == "your replay"}
    assert labels == {"esc\\u001b[31mred", "<!--<script>", "bidi\\u202eevil", "</script><b>"}
    # and the rows the page's own script reads (the results table, the comparison)
    data = json.loads(re.findall(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)[0])
    assert {e[0] for e in data["entries"] if e[0].startswith("your run ")} == {f"your run {label}" for label in labels}


@pytest.mark.parametrize("marker", ["", '{"written_by": "mlp'], ids=["empty", "cut-short"])
def test_a_writer_killed_while_writing_its_claim_leaves_nothing_behind(tmp_path, marker):
    # CI caught it: the kill came after PARTIAL_MARKER was created and before it was written whole,
    # and the directory, holding nothing else, stayed beside the export for good.
    from warehouse.export.output_dirs import remove_abandoned_partials
    abandoned = tmp_path / ".bi.partial-999999999-cut"
    abandoned.mkdir()
    (abandoned / PARTIAL_MARKER).write_text(marker)
    with_a_file = tmp_path / ".bi.partial-999999999-more"
    with_a_file.mkdir()
    (with_a_file / PARTIAL_MARKER).write_text(marker)
    (with_a_file / "notes.txt").write_text("someone's")
    empty = tmp_path / ".bi.partial-999999999-empty"  # killed before the claim was created
    empty.mkdir()
    remove_abandoned_partials(tmp_path / "bi", "export")
    assert not abandoned.exists() and not empty.exists()
    assert (with_a_file / "notes.txt").read_text() == "someone's"  # anything else in it: left alone


def test_an_interrupt_while_the_previous_export_is_taken_apart_loses_nothing(run, warehouse, tmp_path, monkeypatch):
    # The review found it: the clean-up of a failed write also ran after the swap, when the staging
    # directory holds the previous output, and removed it whole with a file added to it since.
    from warehouse.export import output_dirs
    target = tmp_path / "bi"
    assert run("--db", warehouse, "export", target, "--views", "dim_rounds", "--format", "csv")[0] == 0

    def interrupted(previous, target, kind):
        (previous / "notes-added-later.txt").write_text("mine")  # arrived after the check
        raise KeyboardInterrupt
    monkeypatch.setattr(output_dirs, "remove_previous", interrupted)
    code, _, err = run("--db", warehouse, "export", target, "--views", "dim_rounds", "--format", "parquet")
    assert code == 130, err  # interrupted, as Ctrl-C
    monkeypatch.undo()
    [left] = [p for p in tmp_path.iterdir() if p.name.startswith(".bi.partial-")]
    assert (left / "notes-added-later.txt").read_text() == "mine" and (left / "dim_rounds.csv").exists()
    assert (target / "dim_rounds.parquet").exists()  # the new export is in place
    # As if that process were gone: the next export takes the old output apart, keeping the added file.
    abandoned = left.rename(tmp_path / re.sub(r"-\d+-", "-999999999-", left.name, count=1))
    assert run("--db", warehouse, "export", target, "--views", "dim_rounds", "--format", "csv")[0] == 0
    assert not abandoned.exists()
    [kept] = [p for p in tmp_path.iterdir() if p.name.startswith("bi.kept-")]
    assert [p.name for p in kept.iterdir()] == ["notes-added-later.txt"]
