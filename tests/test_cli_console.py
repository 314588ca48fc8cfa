"""The console as a user sees it: a closed pipe is not an error, no third party prints on it, and a
long step shows itself on a terminal."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_tables import table_rows
from tests.module_probe import packages_a_command_imports

COMMAND = Path(sys.executable).parent / "mlperf-wh"


def test_a_reader_that_closes_after_one_line_ends_the_command_quietly(shared_warehouse):
    process = subprocess.Popen([str(COMMAND), "sql", "SELECT * FROM results", "--db", shared_warehouse],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    first = process.stdout.readline()
    process.stdout.close()  # like `| head -1`
    _, err = process.communicate(timeout=120)
    assert first.strip()
    assert process.returncode == 0
    assert err == b""


def test_the_command_exits_with_its_code_and_all_its_output(shared_warehouse):
    # The console script ends without the interpreter's teardown (warehouse.interrupt.exit_without_teardown):
    # what it wrote, well past any buffer, and its exit code still reach the caller.
    rows = 200_000
    done = subprocess.run([str(COMMAND), "sql", f"SELECT range AS n FROM range({rows})", "--format", "csv",
                           "--db", shared_warehouse], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["n", *map(str, range(rows))]
    failed = subprocess.run([str(COMMAND), "sql", "SELECT nope", "--db", shared_warehouse],
                            capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1
    assert failed.stderr.startswith("error: ") and failed.stderr.endswith("\n")


def test_a_long_table_is_a_row_per_line_with_cut_cells_and_right_aligned_numbers():
    import polars as pl

    from warehouse.cli.console import long_table
    frame = pl.DataFrame({"name": ["a", "b" * 80, "c\nd"], "value": [1.5, 22.25, None], "n": [1, 2, 3]})
    assert long_table(frame, 28).splitlines() == [
        "┌──────────────┬───────┬───┐",
        "│ name         ┆ value ┆ n │",
        "╞══════════════╪═══════╪═══╡",
        "│ a            ┆   1.5 ┆ 1 │",
        "│ bbbbbbbbbbb… ┆  22.2 ┆ 2 │",
        "│ c d          ┆       ┆ 3 │",
        "└──────────────┴───────┴───┘"]
    # --wide: every cell whole, however wide
    assert "│ " + "b" * 80 + " ┆  22.2 ┆ 2 │" in long_table(frame, None).splitlines()


# The kinds of column a table is drawn from without polars (`mlperf-wh sql`: warehouse/store/rows.py),
# and those it leaves to polars; drawn either way, a table must read the same.
EVERY_PLAIN_KIND = """SELECT 1::TINYINT AS tiny, 2::INTEGER AS i, 3::BIGINT AS big, 4::UBIGINT AS ubig,
    5::HUGEINT AS huge, 1.5::FLOAT AS f, 2.25::DOUBLE AS d, 123.456::DECIMAL(9,3) AS dec, 1234567.5::DOUBLE AS large,
    true AS flag, NULL::INTEGER AS nothing, 'text' AS short_text, repeat('long words ', 12) AS long_text,
    DATE '2026-01-02' AS day, TIMESTAMP '2026-01-02 03:04:05' AS ts, TIME '03:04:05' AS t,
    INTERVAL 3 DAY AS span, [1, 2] AS list, ['a', NULL] AS texts, 'line\nbreak' AS control, 7 AS i
UNION ALL SELECT -1, -2, -3, 0, 0, NULL, -0.000001234, 0, NULL, false, 7, 'x', 'y', NULL, NULL, NULL, NULL, [], [], '', 8"""
LEFT_TO_POLARS = ["MAP {'a': 1}", "{'x': 1}", "uuid()", "'\\xAA'::BLOB"]
# Dates Python cannot hold: read as DuckDB's text by both, from the text read beside the column.
ODD_DATES = """SELECT 1 AS n, 'infinity'::DATE AS day, DATE '20000-01-01' AS far, '-infinity'::TIMESTAMP AS ts,
    'infinity'::TIMESTAMPTZ AS tz, DATE '2026-01-02' AS plain
UNION ALL SELECT 2, DATE '2026-01-02', NULL, TIMESTAMP '2026-01-02 03:04:05', NULL, NULL"""


def test_a_table_reads_the_same_from_duckdbs_rows_as_from_a_polars_frame():
    import duckdb
    from rich.console import Console

    from warehouse.cli.console import rich_table
    from warehouse.store.db import relation_frame
    from warehouse.store.rows import relation_rows
    con = duckdb.connect()

    def drawn(frame, width: int, raw: bool) -> str:
        console = Console(width=width, record=True, file=open("/dev/null", "w"), highlight=False, emoji=False,
                          markup=False)
        console.print(rich_table(frame, console.width, raw))
        return console.export_text()
    rows, frame = relation_rows(con.sql(EVERY_PLAIN_KIND)), relation_frame(con.sql(EVERY_PLAIN_KIND))
    assert rows is not None
    assert rows.columns == frame.columns and rows.height == frame.height == 2  # `i` twice: i, i_2
    assert rows.numeric() == [dtype.is_numeric() for dtype in frame.dtypes]
    for width in (400, 120):  # one table; records one by one
        for raw in (False, True):
            assert drawn(rows, width, raw) == drawn(frame, width, raw)
    for kind in LEFT_TO_POLARS:
        assert relation_rows(con.sql(f"SELECT 1 AS n, {kind} AS x")) is None, kind
    rows, frame = relation_rows(con.sql(ODD_DATES)), relation_frame(con.sql(ODD_DATES))
    assert rows.types[1:5] == ["VARCHAR"] * 4 and rows.types[5] == "DATE"
    assert rows.rows[0][1:5] == ("infinity", "20000-01-01", "-infinity", "infinity")
    assert frame.row(0)[1:5] == rows.rows[0][1:5] and frame.row(1)[1:4] == ("2026-01-02", None, "2026-01-02 03:04:05")
    for raw in (False, True):
        assert drawn(rows, 120, raw) == drawn(frame, 120, raw)


def test_a_query_with_odd_dates_is_run_once():
    """A date Python cannot hold is read as text from the same run of the query (issue 43: it was run
    again, and again, to read it): DuckDB's own query log counts the runs."""
    import duckdb
    from warehouse.store.db import relation_frame
    from warehouse.store.rows import relation_rows
    con = duckdb.connect()
    con.execute("CALL enable_logging('QueryLog')")
    for read in (relation_rows, relation_frame):
        con.execute("CALL truncate_duckdb_logs()")
        read(con.sql(ODD_DATES))
        runs = [m for (m,) in con.execute("SELECT message FROM duckdb_logs WHERE type = 'QueryLog'").fetchall()
                if "'infinity'::DATE" in m]
        assert len(runs) == 1, (read.__name__, runs)


def test_a_query_printed_as_a_table_loads_no_polars_typer_or_pydantic(shared_warehouse):
    done, imported = packages_a_command_imports(
        ["--db", shared_warehouse, "sql", "SELECT count(*) AS n FROM results"],
        {"polars", "pydantic", "pydantic_settings", "typer", "prefect", "pandera"})
    assert done.returncode == 0, done.stderr
    assert imported == []
    # the table itself, a number for people: 937 + 1448 + 520 + 492 records, one performance row each, and
    # the power rows of v4.1 (31) and v5.1 (24): 3397 + 55 = 3452
    assert "│ 3,452 │" in done.stdout


def test_no_third_party_notice_or_telemetry_from_a_command():
    # Prefect's client printed "Prefect collects anonymous usage data..." on a terminal in the middle
    # of `mlperf-wh trees`, and both its client and server try the network to report usage.
    from tests.conftest import ROOT
    script = ("import os; os.environ.pop('DO_NOT_TRACK', None); os.environ.pop('PREFECT_SERVER_ANALYTICS_ENABLED', None)\n"
              "import warehouse.cli\n"
              "from prefect._internal.analytics.enabled import is_telemetry_enabled\n"
              "print(is_telemetry_enabled(), os.environ['PREFECT_SERVER_ANALYTICS_ENABLED'])")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.stdout.split() == ["False", "false"], done.stderr


def test_a_long_step_shows_what_it_does_on_a_terminal_only(tmp_path):
    # A cold backfill showed a blank screen for ~13 s. On a terminal (a pseudo-terminal here, from
    # util-linux `script`) the step is drawn on stderr while it lasts; through a pipe nothing is.
    import shutil

    from tests.conftest import ROOT
    if shutil.which("script") is None:
        pytest.skip("util-linux script is not installed")
    code = ("import time; from warehouse.cli.progress import step\n"
            "with step('starting the slow part'): time.sleep(0.6)\n"
            "print('done')")
    typescript = tmp_path / "tty.txt"
    subprocess.run(["script", "-qec", f"{sys.executable} -c \"{code}\"", str(typescript)], cwd=ROOT,
                   capture_output=True, timeout=120, check=True)
    assert "starting the slow part" in typescript.read_text(errors="replace")
    piped = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (piped.stdout, piped.stderr) == ("done\n", "")


def drawn_at(frame, width: int) -> list[str]:
    from rich.console import Console

    from warehouse.cli.console import rich_table
    console = Console(width=width, record=True, file=open("/dev/null", "w"), highlight=False, emoji=False,
                      markup=False)
    console.print(rich_table(frame, console.width))
    return console.export_text().splitlines()


def test_an_id_column_stays_whole_while_the_prose_beside_it_wraps():
    # `claims audit` at 120 columns cut "nv-v6.1-gb300-wan22-latency-vs-single-node" after 33
    # characters while the verdict beside it had room to wrap.
    import polars as pl
    ids = ["nv-v6.1-gb300-wan22-latency-vs-single-node", "nv-v6.1-rubin-agentx-30x"]
    frame = pl.DataFrame({"id": ids, "verdict": ["directional only - do not put it in a procurement decision"] * 2})
    lines = drawn_at(frame, 80)
    assert any(ids[0] in line for line in lines) and any(ids[1] in line for line in lines)
    assert any("procurement decision" in line for line in lines) and max(map(len, lines)) <= 80
    # no room for the id whole: it wraps as before, rather than the table turning into records
    narrow = drawn_at(frame, 50)
    assert not any(ids[0] in line for line in narrow) and "┆" in narrow[1] and max(map(len, narrow)) <= 50


def test_a_header_takes_two_lines_before_more_and_an_id_breaks_only_after_a_dash():
    # Issue 55 at 80 columns: tokens_per_second_per_rack took 5 header lines, own_over_mlperf's 67-wide
    # table a 3-line header, and "b300-b200-llama405b-server" broke as "b300-b200-llama405" / "b-server".
    import polars as pl
    rack = pl.DataFrame({"round": ["v4.1"], "accelerator": ["H100 SXM"], "measured_rack": [True],
                         "tokens_per_second_per_rack": [82273.2], "rack_basis": ["measured on 32 accelerators"]})
    lines = drawn_at(rack, 70)
    header = lines[1:lines.index(next(line for line in lines if line.startswith("╞")))]
    assert len(header) == 2 and "tokens_per_" in header[0] and "second_per_rack" in header[1]
    ids = ["b200-software-dsr1-server", "b300-b200-llama405b-server"]
    audit = pl.DataFrame({"id": ids, "claimed": [2.2, 1.2], "grade": ["holds", "understated"],
                          "supported": [2.2, 1.51], "verdict": ["comparable across submitters", "directional only"]})
    lines = drawn_at(audit, 80)
    id_cells = [line.split("┆")[0].strip("│ ") for line in lines if "┆" in line]
    assert id_cells[1:] == ["b200-software-", "dsr1-server", "b300-b200-", "llama405b-server"]
    assert max(map(len, lines)) <= 80
    # room for the ids whole: they stay whole
    assert [cell for cell in (line.split("┆")[0].strip("│ ") for line in drawn_at(audit, 100)[3:-1]) if cell] == ids


def test_the_layout_of_200_rows_of_long_text_takes_a_fraction_of_a_second():
    # Each column's narrowest width for two lines is found by halving, once per layout step: trying
    # every width in turn took 5 s for these rows (Rich then draws them in about 0.5 s).
    import time

    import polars as pl

    from warehouse.cli.console import _columns, _layout
    words = "alpha beta-gamma delta epsilon zeta-eta theta iota kappa lambda mu " * 20
    frame = pl.DataFrame({"id": [f"claim-{i}-some-long-identifier" for i in range(200)], "n": list(range(200)),
                          "text": [words[:900 + i] for i in range(200)], "more": [words[:300]] * 200})
    started = time.process_time()
    columns = _layout(frame.columns, *_columns(frame, False), 80)
    assert time.process_time() - started < 1.0
    assert [c.kind for c in columns] == ["word", "fixed", "prose", "prose"]


# The seven columns an analyst reads every day, as verified_results holds them for v6.0
# llama2-70b-99 (issue 63: at 80 columns they were one block per row, 20 rows in about 160 lines, and
# one mixed-cluster accelerator sent the whole table into blocks).
EVERYDAY = [
    ("v6.0", "6.0-0078", "NVIDIA", "GB300", "llama2-70b-99", "Offline", 1126850.0),
    ("v6.0", "6.0-0001", "AMD", "MI355X", "llama2-70b-99", "Server", 1016380.0),
    ("v6.0", "6.0-0078", "NVIDIA", "GB300", "llama2-70b-99.9", "Interactive", 814128.0),
    ("v6.0", "6.0-0011", "Cisco", "MI350X", "llama2-70b-99", "Offline", 159932.0),
    ("v6.0", "6.0-0039", "GigaComputing", "B300", "llama2-70b-99", "Server", 104623.0),
] * 4 + [("v6.0", "6.0-0031", "Dell_MangoBoost", "MI300X + MI325X + MI355X", "llama2-70b-99", "Offline", 151843.0)] * 4
EVERYDAY_COLUMNS = ["round", "result_id", "submitter", "accelerator", "benchmark", "scenario", "result"]


@pytest.mark.unit
def test_the_seven_everyday_columns_are_a_table_within_80_columns():
    import polars as pl
    frame = pl.DataFrame(EVERYDAY, schema=EVERYDAY_COLUMNS, orient="row")
    for rows in (20, 24):  # without the mixed cluster, and with it
        lines = drawn_at(frame.head(rows), 80)
        assert max(map(len, lines)) <= 80
        drawn = table_rows("\n".join(lines))
        assert [row["result_id"] for row in drawn] == frame.head(rows)["result_id"].to_list()  # an id is never cut
        assert {row["result"] for row in drawn} >= {"1,126,850", "104,623"}  # nor a number
        assert len(lines) <= 2 * rows + 6, "\n".join(lines)  # a row on one or two lines, not a block per row


@pytest.mark.unit
def test_text_is_cut_with_an_ellipsis_free_text_first_never_a_number_or_an_id():
    import polars as pl
    note = "published as 124504.0 Tokens/s; the run summary prints 114503.71 tokens/s, so the unit is suspect"
    frame = pl.DataFrame({"result_id": [f"6.0-00{n:02}" for n in range(12)],
                          "system": ["ThinkSystem SR780a V3 (8x B300)"] * 12,
                          "tokens_per_second": [114503.71 + n for n in range(12)], "detail": [note] * 12})
    lines = drawn_at(frame, 48)  # too narrow for the note wrapped 12 wide beside the rest
    assert max(map(len, lines)) <= 48
    drawn = table_rows("\n".join(lines))  # a table, not blocks
    assert [row["result_id"] for row in drawn] == frame["result_id"].to_list()
    assert [row["tokens_per_second"] for row in drawn] == [f"{114503.71 + n:,.0f}" for n in range(12)]
    assert {row["system"] for row in drawn} == {frame["system"][0]}  # the name wraps whole
    assert all(row["detail"].endswith("…") and note.startswith(row["detail"][:-1]) for row in drawn)


@pytest.mark.unit
def test_a_long_table_fits_the_terminal_and_wide_keeps_every_cell():
    import polars as pl

    from warehouse.cli.console import long_table
    terms = [f"mobilenet-v1-0.{n}-224-quantized-edge-tflite-{n}" for n in range(250)]
    frame = pl.DataFrame({"round": ["v0.5"] * 250, "source_id": ["rebuilt/v0.5"] * 250, "kind": ["benchmark"] * 250,
                          "term": terms, "rows": list(range(250))})
    lines = long_table(frame, 80).splitlines()
    assert max(map(len, lines)) <= 80 and len(lines) == 250 + 4
    assert all("rebuilt/v0.5" in line for line in lines[3:-1])  # an id whole
    assert lines[-2].rstrip(" │").endswith("249") and "…" in lines[-2]
    wide = long_table(frame, None).splitlines()
    assert all(term in line for term, line in zip(terms, wide[3:-1]))


@pytest.mark.unit
def test_no_rows_names_the_columns_within_the_terminal(capsys, monkeypatch):
    import polars as pl

    from warehouse.cli.console import print_table
    monkeypatch.setenv("COLUMNS", "80")
    names = ["loaded_at", "round", "result_id", "change", "published_before", "published_after", "reason"]
    print_table(pl.DataFrame(schema=names))
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= 80 and " ".join(out.split()) == f"(no rows; columns: {', '.join(names)})"
