"""BI exports of the shared rounds: read back with DuckDB, polars, csv and openpyxl; checksums; atomic swap."""
from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandera.polars as pa
import polars as pl
import pytest

from tests.bi_warehouse import claims_warehouse  # noqa: F401 - a fixture
from tests.conftest import ROOT
from tests.faults import one_error_line
from tests.module_probe import packages_a_command_imports
from warehouse.export.bi_files import ExportError, default_views, export_views, sha256_of
from warehouse.export.output_dirs import MARKER, OutputDirRefused
from warehouse.store import db
from tests.readers import connect_file
from schemas.exports import ManifestFile


@pytest.fixture(scope="module")
def export_runs(claims_warehouse, tmp_path_factory) -> tuple[dict[str, Path], dict[str, list[str]]]:
    """Each format exported once; and the statements each export ran, from DuckDB's own query log."""
    out = tmp_path_factory.mktemp("exports")
    statements = {}
    with db.connect(claims_warehouse, read_only=True) as con:
        con.execute("CALL enable_logging('QueryLog')")
        for fmt in ("parquet", "csv", "xlsx"):
            con.execute("CALL truncate_duckdb_logs()")
            export_views(con, out / fmt, fmt, warehouse_file=claims_warehouse)
            statements[fmt] = [m for (m,) in con.execute(
                "SELECT message FROM duckdb_logs WHERE type = 'QueryLog' ORDER BY timestamp").fetchall()]
        con.execute("CALL disable_logging()")
    return {fmt: out / fmt for fmt in ("parquet", "csv", "xlsx")}, statements


@pytest.fixture(scope="module")
def exports(export_runs) -> dict[str, Path]:
    return export_runs[0]


def test_every_view_is_read_once_per_export(export_runs):
    """Reading a mart is most of an export's cost: the files and the manifest's figures come from one
    read (issue 43: a partitioned view was read two or three times, and once more per file)."""
    _, statements = export_runs
    for fmt, ran in statements.items():
        for view in default_views():
            reads = [s for s in ran if re.search(rf'\bFROM\s+(marts\.)?"?{view}"?(\s|\)|$)', s)]
            assert len(reads) == 1, (fmt, view, reads)


def test_an_export_loads_no_polars_or_pandera(claims_warehouse, tmp_path):
    """An export is DuckDB writing files: polars cost it 35 MiB of its peak memory and 0.12 s of
    its start (issue 43: memory within 1.5x of the plain COPY). The workbook is the widest path: the
    column documentation, the loads, the column sheet."""
    done, imported = packages_a_command_imports(
        ["--db", claims_warehouse, "export", tmp_path / "x", "--format", "xlsx", "--views", "dim_rounds,claim_audit"],
        {"polars", "pandera", "pandas"})
    assert done.returncode == 0, done.stderr
    assert imported == []
    assert (tmp_path / "x" / "mlperf.xlsx").is_file()


@pytest.mark.slow
def test_the_same_warehouse_exported_again_gives_the_same_files(claims_warehouse, tmp_path):
    """A BI refresh, a diff of two exports, the manifest's checksums: each says "changed" only when
    the data did. DuckDB writes rows in the order its threads finish (two exports of the shared
    rounds differed in 4-5 of 27 CSV files), so each view's rows are written sorted, and the
    workbook is dated by the last load. Four threads here, as a many-core machine runs it."""
    def checksums(fmt: str, attempt: int, views=None) -> dict[str, str]:
        with db.connect(claims_warehouse, read_only=True) as con:
            con.execute("SET threads = 4")
            export_views(con, tmp_path / f"{fmt}{attempt}", fmt, views, warehouse_file=claims_warehouse)
        return {f["path"]: f["sha256"] for f in manifest(tmp_path / f"{fmt}{attempt}")["files"]}
    for fmt in ("parquet", "csv"):
        assert checksums(fmt, 1) == checksums(fmt, 2), fmt
    few = ["dim_rounds", "claim_audit", "verified_results"]  # a sheet is written a cell at a time (slow)
    assert checksums("xlsx", 1, few) == checksums("xlsx", 2, few)
    import openpyxl
    with connect_file(claims_warehouse, read_only=True) as con:
        [(last_load,)] = con.execute("SELECT max(loaded_at) AT TIME ZONE 'UTC' FROM sources").fetchall()
    created = openpyxl.load_workbook(tmp_path / "xlsx1" / "mlperf.xlsx", read_only=True).properties.created
    assert created == last_load.replace(microsecond=0)


@pytest.fixture
def wcon(claims_warehouse):
    con = connect_file(claims_warehouse, read_only=True)
    yield con
    con.close()


def manifest(directory: Path) -> dict:
    return json.loads((directory / "manifest.json").read_text(encoding="utf-8"))


def files_of(directory: Path, view: str) -> list[str]:
    return [str(directory / f["path"]) for f in manifest(directory)["files"] if f["view"] == view]


def utc_named(schema: pl.Schema) -> dict:
    """DuckDB hands polars its session zone name (Etc/UTC), Parquet stores UTC: the same zone."""
    return {name: pl.Datetime(dtype.time_unit, "UTC")
            if isinstance(dtype, pl.Datetime) and dtype.time_zone in ("Etc/UTC", "UTC") else dtype
            for name, dtype in schema.items()}


def test_every_mart_and_dimension_is_exported(exports):
    views = set(manifest(exports["parquet"])["views"])
    assert views == set(default_views())
    assert {"dim_accelerators", "dim_benchmarks", "dim_rounds", "dim_rack_capacity",
            "software_gains", "claim_audit", "token_economics"} <= views


def dataset_of(directory: Path, view: str) -> str:
    """What a reader opens for a view: its file, or its folder of round partitions."""
    single = directory / f"{view}.parquet"
    return str(single) if single.exists() else str(directory / view)


def partition_of(directory: Path, view: str) -> set[str]:
    return {name for f in manifest(directory)["files"] if f["view"] == view for name in f.get("partition", {})}


@pytest.mark.slow
def test_parquet_reads_back_with_duckdb_and_polars_as_in_the_warehouse(exports, wcon):
    directory = exports["parquet"]
    for view in manifest(directory)["views"]:
        expected_rows = wcon.execute(f"SELECT count(*) FROM {view}").fetchall()[0][0]
        expected_types = {c[0]: c[1] for c in wcon.execute(f"DESCRIBE {view}").fetchall()}
        dataset = dataset_of(directory, view)
        pattern = dataset if dataset.endswith(".parquet") else f"{dataset}/**/*.parquet"
        relation = wcon.sql(f"SELECT * FROM read_parquet('{pattern}', hive_partitioning = true)")
        assert relation.aggregate("count(*)").fetchall()[0][0] == expected_rows, view
        assert {c[0]: c[1] for c in wcon.sql(f"DESCRIBE {relation.sql_query()}").fetchall()} == expected_types, view
        frame = pl.read_parquet(pattern, hive_partitioning=True)
        assert frame.height == expected_rows, view
        folder_columns = partition_of(directory, view)
        for entry in (f for f in manifest(directory)["files"] if f["view"] == view):
            one_file = str(directory / entry["path"])
            assert wcon.execute(f"SELECT count(*) FROM read_parquet('{one_file}', hive_partitioning = false)"
                                ).fetchall()[0][0] == entry["rows"], entry["path"]
            assert pl.read_parquet(one_file, hive_partitioning=False).height == entry["rows"], entry["path"]
            in_file = [c[0] for c in wcon.execute(
                f"DESCRIBE SELECT * FROM read_parquet('{one_file}', hive_partitioning = false)").fetchall()]
            assert in_file == [c for c in expected_types if c not in folder_columns], entry["path"]
        assert utc_named(frame.select(sorted(frame.columns)).schema) == utc_named(db.query_frame(
            wcon, f"SELECT * FROM {view} LIMIT 0").select(sorted(expected_types)).schema), view


def test_every_partitioned_view_reads_as_one_dataset_with_pandas_and_pyarrow(exports, wcon):
    import pandas
    import pyarrow.dataset
    directory = exports["parquet"]
    partitioned = [v for v in manifest(directory)["views"] if partition_of(directory, v)]
    assert "verified_results" in partitioned and "token_economics" in partitioned
    for view in partitioned:
        rows = wcon.execute(f"SELECT count(*) FROM {view}").fetchall()[0][0]
        (column,) = partition_of(directory, view)
        frame = pandas.read_parquet(directory / view)
        assert len(frame) == rows and list(frame.columns).count(column) == 1, view
        table = pyarrow.dataset.dataset(directory / view, format="parquet", partitioning="hive").to_table()
        assert table.num_rows == rows and table.column_names.count(column) == 1, view
        expected = sorted(r for (r,) in wcon.execute(f"SELECT DISTINCT {column} FROM {view}").fetchall())
        assert sorted(set(frame[column].astype(str))) == expected, view


def test_dimensions_are_one_file_each(exports):
    directory = exports["parquet"]
    for view in (v for v in manifest(directory)["views"] if v.startswith("dim_")):
        assert (directory / f"{view}.parquet").is_file(), view


def test_parquet_is_partitioned_by_round_and_the_manifest_says_what_each_file_holds(exports, wcon):
    directory = exports["parquet"]
    by_path = {f["path"]: f for f in manifest(directory)["files"]}
    rounds = [r for (r,) in wcon.execute("SELECT DISTINCT round FROM verified_results ORDER BY 1").fetchall()]
    assert rounds == ["v4.1", "v5.1", "v6.0", "v6.1"]
    for round_name in rounds:
        entry = by_path[f"verified_results/round={round_name}/data_0.parquet"]
        rows = wcon.execute("SELECT count(*) FROM verified_results WHERE round = ?", [round_name]).fetchall()[0][0]
        assert (entry["rows"], entry["rounds"], entry["partition"]) == (rows, [round_name], {"round": round_name})
        assert entry["loads"] == [f"official/{round_name}"]
        assert pl.read_parquet(directory / "verified_results", hive_partitioning=True).filter(
            pl.col("round") == round_name).height == rows
    # software_gains has no `round`: it is partitioned by round_to and covers round_from too
    gains = [f for f in by_path.values() if f["view"] == "software_gains"]
    assert {f["partition"]["round_to"] for f in gains} == {"v5.1", "v6.0", "v6.1"}
    assert manifest(directory)["views"]["software_gains"]["rounds"] == ["v4.1", "v5.1", "v6.0", "v6.1"]
    # columns carry their type and description; the loads are the warehouse's sources
    columns = {c["name"]: c for c in by_path["verified_results/round=v6.0/data_0.parquet"]["columns"]}
    assert columns["result_per_accelerator"]["type"] == "DOUBLE"
    assert columns["result_per_accelerator"]["description"].startswith("result / accelerator_count")
    loads = manifest(directory)["loads"]
    assert [(l["source_id"], l["rows_loaded"]) for l in loads] == \
        wcon.execute("SELECT source_id, rows_loaded FROM sources ORDER BY round, source_id").fetchall()


def test_manifest_checksums_match_the_files(exports):
    for fmt, directory in exports.items():
        entries = manifest(directory)["files"]
        assert entries, fmt
        for entry in entries:
            path = directory / entry["path"]
            assert path.stat().st_size == entry["bytes"], entry["path"]
            assert sha256_of(path) == entry["sha256"], entry["path"]
        on_disk = {p.relative_to(directory).as_posix() for p in directory.rglob("*") if p.is_file()}
        assert on_disk == {e["path"] for e in entries} | {"manifest.json", MARKER}, fmt


MANIFEST_FILE_COLUMNS = {"path": pl.String, "view": pl.String, "sheet": pl.String, "format": pl.String,
                         "rows": pl.Int64, "bytes": pl.Int64, "sha256": pl.String}


def manifest_files(entries: list[dict]) -> pl.DataFrame:
    return pl.DataFrame([{k: e.get(k) for k in MANIFEST_FILE_COLUMNS} for e in entries], schema=MANIFEST_FILE_COLUMNS)


def test_every_manifest_agrees_with_its_schema(exports):
    for directory in exports.values():
        ManifestFile.validate(manifest_files(manifest(directory)["files"]))


def test_the_manifest_schema_refuses_a_file_listed_twice():
    entry = {"path": "a.csv", "view": "a", "format": "csv", "rows": 1, "bytes": 1, "sha256": "0" * 64}
    with pytest.raises(pa.errors.SchemaError, match="listed twice"):
        ManifestFile.validate(manifest_files([entry, entry]))


def test_claim_audit_csv_parses_and_its_nested_columns_are_json(exports, wcon):
    with (exports["csv"] / "claim_audit.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    expected = db.query_frame(wcon, "SELECT id, statement, rows_used, rows_as_cited, rows_best, "
                                    "rows_equal_scale, cited_result_ids FROM claim_audit")
    assert len(rows) == expected.height == 16  # 15 example claims + 1 on the shared rows
    by_id = {r["id"]: r for r in rows}
    for claim in expected.to_dicts():
        row = by_id[claim["id"]]
        assert row["statement"] == claim["statement"]
        assert json.loads(row["cited_result_ids"]) == claim["cited_result_ids"]
        for nested in ("rows_used", "rows_as_cited", "rows_best", "rows_equal_scale"):
            assert json.loads(row[nested]) == claim[nested]
    reproduced = json.loads(by_id["gb300-vs-gb200-dsr1-server"]["rows_used"])
    assert [r["role"] for r in reproduced] == ["new", "base"]
    assert by_id["gb300-vs-gb200-dsr1-server"]["statement"] == 'GB300 vs GB200, "DeepSeek-R1" server, 72 GPUs'
    columns = {c["name"]: c for c in manifest(exports["csv"])["views"]["claim_audit"]["columns"]}
    nested = [f for f in manifest(exports["csv"])["files"] if f["view"] == "claim_audit"][0]["columns"]
    assert {c["name"] for c in nested if c.get("encoding") == "json"} == {
        "rows_used", "rows_as_cited", "rows_best", "rows_cross_scale", "rows_equal_scale", "rows_same_submitter", "findings_used",
        "cited_result_ids"}
    assert columns["verdict"]["description"]


@pytest.mark.slow
def test_workbook_opens_with_openpyxl_with_a_sheet_per_view(exports, wcon):
    from openpyxl import load_workbook
    workbook = load_workbook(exports["xlsx"] / "mlperf.xlsx", read_only=True)
    views = list(manifest(exports["xlsx"])["views"])
    assert set(views) <= set(workbook.sheetnames) and "columns" in workbook.sheetnames
    for view in views:
        sheet_rows = list(workbook[view].iter_rows(values_only=True))
        header = [c[0] for c in wcon.execute(f"DESCRIBE {view}").fetchall()]
        assert list(sheet_rows[0]) == header, view
        assert len(sheet_rows) - 1 == wcon.execute(f"SELECT count(*) FROM {view}").fetchall()[0][0], view
    audit = list(workbook["claim_audit"].iter_rows(values_only=True))
    used, cited = audit[0].index("rows_used"), audit[0].index("cited_result_ids")
    assert all(isinstance(json.loads(row[used]), list) for row in audit[1:])
    assert {type(json.loads(row[cited])) for row in audit[1:]} == {list, type(None)}
    workbook.close()
    # each sheet's rows are an Excel table named after its view (openpyxl reads tables in full mode)
    tables = {name for sheet in load_workbook(exports["xlsx"] / "mlperf.xlsx").worksheets for name in sheet.tables}
    assert set(views) <= tables


def test_a_directory_that_is_not_an_export_is_refused_and_left_alone(wcon, tmp_path):
    precious = tmp_path / "reports"
    precious.mkdir()
    (precious / "q3.txt").write_text("mine")
    with pytest.raises(OutputDirRefused, match="holds no export written by mlperf-wh"):
        export_views(wcon, precious, "csv", ["dim_rounds"])
    assert [p.name for p in precious.iterdir()] == ["q3.txt"]
    with pytest.raises(ExportError, match="unknown view"):
        export_views(wcon, tmp_path / "new", "csv", ["dim_rounds", "no_such_view"])
    assert not (tmp_path / "new").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["reports"]


def test_a_new_export_replaces_the_previous_one_whole(wcon, tmp_path):
    target = tmp_path / "bi"
    export_views(wcon, target, "csv", ["dim_rounds", "claim_audit"])
    export_views(wcon, target, "parquet", ["dim_rack_capacity"])
    assert sorted(p.name for p in target.iterdir()) == [MARKER, "dim_rack_capacity.parquet", "manifest.json"]
    assert [p.name for p in tmp_path.iterdir()] == ["bi"]


@pytest.mark.slow
def test_killed_export_leaves_the_previous_export_intact(claims_warehouse, tmp_path):
    target = tmp_path / "bi"
    with db.connect(claims_warehouse, read_only=True) as con:
        export_views(con, target, "parquet", warehouse_file=claims_warehouse)
    before = manifest(target)
    process = subprocess.Popen([sys.executable, "-m", "warehouse.cli", "export", str(target),
                                "--format", "parquet", "--db", claims_warehouse], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    partial = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        partial = next((p for p in tmp_path.glob(".bi.partial-*") if any(p.iterdir())), None)
        if partial:
            os.kill(process.pid, signal.SIGKILL)
            break
        time.sleep(0.002)
    assert process.wait(timeout=30) == -signal.SIGKILL, "the export finished before it could be killed"
    assert partial.exists() and not (partial / "manifest.json").exists()  # it was killed midway
    assert manifest(target) == before
    for entry in before["files"]:
        assert sha256_of(target / entry["path"]) == entry["sha256"]
    # The next export clears what the killed one left and swaps in whole.
    with db.connect(claims_warehouse, read_only=True) as con:
        export_views(con, target, "csv", ["dim_rounds"])
    assert [p.name for p in tmp_path.iterdir()] == ["bi"]
    assert manifest(target)["format"] == "csv"


@pytest.mark.slow
def test_cli_export_and_docs(cli, claims_warehouse, tmp_path):
    code, out, err = cli("export", tmp_path / "bi", "--format", "csv", "--views", "dim_rounds,claim_audit",
                         "--db", claims_warehouse)
    assert code == 0, err
    assert out.startswith("exported 2 views") and "manifest.json" in out
    assert sorted(p.name for p in (tmp_path / "bi").iterdir()) == [MARKER, "claim_audit.csv", "dim_rounds.csv",
                                                                   "manifest.json"]
    assert "no longer in" not in out  # a new directory: nothing replaced
    # a narrower export over a wider one says what it takes away (issue 55: it did so without a word)
    code, out, err = cli("export", tmp_path / "bi", "--views", "dim_rounds", "--db", claims_warehouse)
    assert code == 0, err
    assert out.splitlines()[1] == (f"it replaced the export of 2 views there: claim_audit is no longer in {tmp_path / 'bi'} "
                                   "(export without --views for every mart, or to another directory to keep both)")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    code, out, err = cli("export", tmp_path / "mine", "--db", claims_warehouse)
    assert code == 1 and "holds no export written by mlperf-wh" in err and "Traceback" not in err
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]
    code, _, err = cli("export", tmp_path / "bi", "--views", "nope", "--db", claims_warehouse)
    assert code == 1 and "unknown view 'nope'; the marts: accelerator_comparison, " in err
    # a misspelt mart: the one it is near, not the 80-odd internal models (issue 63)
    code, _, err = cli("export", tmp_path / "bi", "--views", "leaderbord", "--db", claims_warehouse)
    assert code == 1 and one_error_line(err) == (f"error: unknown view 'leaderbord' (did you mean 'leaderboard'?); "
                                                 f"nothing was written, {tmp_path / 'bi'} is as it was")
    code, out, _ = cli("docs", "--out", tmp_path / "docs")
    assert code == 0
    for name in ("views.md", "reference.md"):
        assert (tmp_path / "docs" / name).read_text(encoding="utf-8") == (ROOT / "docs" / name).read_text(encoding="utf-8")


def test_a_fact_view_is_a_folder_whatever_its_rows(exports, wcon):
    # latency_profile has no row without the submission trees: it is still a folder (its schema in a
    # partition no row reads back from), as after `mlperf-wh trees`, so a saved BI connection to
    # latency_profile/ keeps working when rows come.
    directory = exports["parquet"]
    assert wcon.execute("SELECT count(*) FROM latency_profile").fetchall()[0][0] == 0
    empty = directory / "latency_profile" / "round=no_rows" / "data_0.parquet"
    assert empty.is_file() and not (directory / "latency_profile.parquet").exists()
    read = wcon.sql(f"SELECT * FROM read_parquet('{directory}/latency_profile/**/*.parquet', hive_partitioning = true)")
    assert read.aggregate("count(*)").fetchall()[0][0] == 0
    assert set(read.columns) == {c[0] for c in wcon.execute("DESCRIBE latency_profile").fetchall()}
    facts = [v for v in manifest(directory)["views"] if not v.startswith("dim_")
             and {"round", "round_to", "round_from"} & {c[0] for c in wcon.execute(f"DESCRIBE {v}").fetchall()}]
    assert facts and all((directory / v).is_dir() for v in facts)


def test_parquet_files_carry_their_column_descriptions(exports, wcon):
    directory = exports["parquet"]
    described = dict(wcon.execute(
        "SELECT column_name, comment FROM duckdb_columns() WHERE schema_name = 'marts' "
        "AND table_name = 'token_economics'").fetchall())
    for entry in (f for f in manifest(directory)["files"] if f["view"] == "token_economics"):
        metadata = dict(wcon.execute("SELECT decode(key), decode(value) FROM parquet_kv_metadata(?)",
                                     [str(directory / entry["path"])]).fetchall())
        assert metadata["view"] == "token_economics"
        columns = json.loads(metadata["column_descriptions"])
        assert columns["dollars_per_million_tokens"] == described["dollars_per_million_tokens"]
        assert columns["measured_rack"].startswith("true when the entry ran a whole rack")


def test_an_export_on_a_terminal_counts_the_views_written(claims_warehouse, tmp_path):
    # Issue 55: a 15-s workbook showed nothing while it was written. On a terminal (a pseudo-terminal
    # from util-linux `script`) the count is drawn on stderr; through a pipe nothing is.
    import shutil
    if shutil.which("script") is None:
        pytest.skip("util-linux script is not installed")
    command = (f"{Path(sys.executable).parent / 'mlperf-wh'} --db {claims_warehouse} export {tmp_path / 'bi'} "
               "--format xlsx --views dim_rounds,dim_benchmarks,claim_audit")
    typescript = tmp_path / "tty.txt"
    subprocess.run(["script", "-qec", command, str(typescript)], cwd=ROOT, capture_output=True, timeout=120,
                   check=True)
    drawn = typescript.read_text(errors="replace")
    assert "exporting as xlsx: 3 of 3 views written" in drawn, drawn
    piped = subprocess.run(command.split(), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and piped.stderr == "" and piped.stdout.startswith("exported 3 views")


@pytest.mark.unit
def test_two_marts_are_written_at_once_and_a_failure_stops_the_other():
    """Marts are written two at a time on cursors of their own; when one fails, the query still running
    on the other is interrupted, and the failure is what the export raises."""
    from warehouse.counts import Tally
    from warehouse.export.bi_files import Relation, _two_at_a_time
    con = duckdb.connect()
    started = time.monotonic()

    def write(cursor, rel):
        if rel.name == "endless":
            return cursor.execute("SELECT count(*) FROM range(1000000000000) AS a(x) WHERE x % 7 = 3").fetchall()
        time.sleep(0.3)
        raise ValueError("the other mart failed")

    with pytest.raises(ValueError, match="the other mart failed"):
        _two_at_a_time(con, [Relation("endless", []), Relation("failing", [])], write, Tally(2, "views written"))
    assert time.monotonic() - started < 30
    from warehouse import counts
    heard = []
    with counts.listening(lambda done, total, what: heard.append((done, total, what))):
        assert _two_at_a_time(con, [Relation(n, []) for n in "abc"], lambda cursor, rel: rel.name,
                              Tally(3, "views written")) == ["a", "b", "c"]
    assert heard == [(n, 3, "views written") for n in (1, 2, 3)]  # what `export` shows on a terminal


@pytest.mark.unit
def test_the_views_of_a_previous_export_are_read_from_its_manifest_and_any_other_file_holds_none(tmp_path):
    from warehouse.export.bi_files import exported_views
    manifest = tmp_path / "manifest.json"
    for text, views in (('{"views": {"dim_rounds": {}, "claim_audit": {}}}', ["dim_rounds", "claim_audit"]),
                        ("[" * 100_000, []), ("null", []), ('{"views": [1]}', []), ("not json", [])):
        manifest.write_text(text)
        assert exported_views(tmp_path) == views, text[:40]
    assert exported_views(tmp_path / "none") == []
