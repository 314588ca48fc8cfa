"""`mlperf-wh measurements [load FILE | list]`: your own serving measurements beside MLPerf's."""
from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated, Optional

import typer

from warehouse.cli.build import existing_file
from warehouse.cli.console import Format, print_rows, say, warn
from warehouse.cli.global_options import command, current, group, reading_file
from warehouse.errors import EXIT_OK, ExpectedFailure, escape_control

measurements = group(
    "measurements", "Your own serving measurements (vLLM, AIPerf, GenAI-Perf, CSV), set beside the audited "
    "MLPerf rows (own_vs_mlperf). Without a command: the runs loaded.",
    "mlperf-wh measurements load results.json --accelerator H200 --accelerator-count 8 --label h200-replay",
    "mlperf-wh measurements --format csv", invoke_without_command=True, no_args_is_help=False)
Fmt = Annotated[Format, typer.Option("--format", help="table, csv or json")]


class FileFormat(str, Enum):  # schemas.measurements.FORMATS
    vllm = "vllm"
    aiperf = "aiperf"
    csv = "csv"


# What the table shows of each run (csv and json: every column of own_runs).
LISTED = ["run_id", "label", "model_id", "family", "accelerator", "accelerator_count", "max_concurrency",
          "tokens_per_second_per_accelerator", "ttft_p99_ms", "tpot_p99_ms", "measured_at"]


def register(app: typer.Typer) -> None:
    app.add_typer(measurements)


@measurements.callback()
def _runs_unless_a_command(ctx: typer.Context, fmt: Fmt = Format.table) -> None:
    if ctx.invoked_subcommand is None:
        _print_runs(fmt)


@command(measurements, "list", "mlperf-wh measurements list", "mlperf-wh measurements list --format json")
def measurements_list(fmt: Fmt = Format.table) -> int:
    """The runs loaded, resolved to MLPerf's names (the mart own_runs)."""
    return _print_runs(fmt)


@command(measurements, "load",
         "mlperf-wh measurements load results.json --accelerator H200 --accelerator-count 8",
         "mlperf-wh measurements load profile_export_aiperf.json --accelerator B200 --accelerator-count 8 "
         "--label b200-replay",
         "mlperf-wh measurements load examples/own_measurements.example.csv")
def measurements_load(
        file: Annotated[Path, typer.Argument(metavar="FILE", show_default=False, help=(
            "vllm bench serve --save-result JSON, AIPerf/GenAI-Perf JSON export, or a CSV"))],
        file_format: Annotated[Optional[FileFormat], typer.Option(
            "--format", help="the file's format (default: told from its content; aiperf reads GenAI-Perf too)")] = None,
        accelerator: Annotated[Optional[str], typer.Option(
            "--accelerator", metavar="NAME", help="the accelerator every run used (as you name it: H200, B200...)")] = None,
        accelerators: Annotated[Optional[int], typer.Option(
            "--accelerator-count", "--accelerators", metavar="N", min=1, max=1_000_000, help="how many accelerators served every run (--accelerators: the old name)")] = None,
        system: Annotated[Optional[str], typer.Option("--system", metavar="TEXT", help="the system, in your words")] = None,
        label: Annotated[Optional[str], typer.Option(
            "--label", metavar="TEXT", help="your name for the runs (decisions cite it in measured_by)")] = None,
        allow_empty: Annotated[bool, typer.Option(
            "--allow-empty", help="load a file with no run (it removes the runs it loaded before)")] = False,
) -> int:
    """Load a file of your own benchmark runs: each run validated, a bad run quarantined with its
    reasons, the same file twice a no-op. The options fill what the file does not say; a file that
    says otherwise quarantines the run."""
    from warehouse.ledger.measurements import MEASUREMENT_TABLES, RunOptions, load_measurements
    from warehouse.views import rebuild
    existing_file(file)
    options = RunOptions(accelerator, accelerators, system, label)
    fmt = file_format.value if file_format else None
    outcome, _ = rebuild(current().db, "mlperf-wh measurements load",
                         lambda con: load_measurements(con, file, fmt, options, allow_empty), changed=MEASUREMENT_TABLES)
    _report(outcome)
    return EXIT_OK


def _report(outcome) -> None:
    runs = "run" if outcome.runs_loaded == 1 else "runs"
    if outcome.status == "emptied":
        say(f"{outcome.path}: no run; the runs loaded from this path before (if any) are removed")
        return
    if outcome.status == "unchanged":
        say(f"{outcome.path}: unchanged (loaded before, with the same options); nothing to do")
        return
    verb = "replaced the runs of" if outcome.status == "replaced" else "loaded"
    say(escape_control(f"{verb} {outcome.path} ({outcome.tool}): {outcome.runs_loaded} {runs}, "
                       + ", ".join(outcome.run_ids)))
    for line in outcome.notes:
        warn(line)
    for line in outcome.quarantined:
        warn(f"quarantined {line}")
    for line in _drift_lines(outcome.run_ids):
        warn(line)


def _drift_lines(run_ids: list[str]) -> list[str]:
    from warehouse.store import db
    prefixes = sorted({f"own/{run_id.rsplit('-', 1)[0]}" for run_id in run_ids})
    with db.connect(reading_file(), read_only=True) as con:
        rows = db.query_frame(con, "SELECT kind, term FROM drift WHERE list_contains(?, source_id) ORDER BY kind, term",
                              [prefixes])
    what = {"accelerator": "accelerators.csv", "model": "model_ids.csv"}
    return [f"{kind} {term!r} matches no pattern of warehouse/identity/reference/{what[kind]}: its runs are "
            "loaded and compared with nothing until one does (mlperf-wh drift)" for kind, term in rows.iter_rows()]


def _print_runs(fmt: Format) -> int:
    import duckdb

    from warehouse.store import db
    with db.connect(reading_file(), read_only=True) as con:
        try:
            frame = db.query_frame(con, "SELECT * FROM own_runs ORDER BY measured_at NULLS LAST, run_id")
        except duckdb.CatalogException:  # a warehouse whose views predate own measurements
            raise ExpectedFailure(f"{current().db} has no own_runs view yet: mlperf-wh views refresh") from None
    print_rows(frame.select(LISTED) if fmt is Format.table else frame, fmt)
    return EXIT_OK
