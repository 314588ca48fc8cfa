"""The `mlperf-wh` application: the command groups assembled, and one invocation run with the exit
codes of warehouse/errors.py (Click's own usage errors included: one line, exit 2)."""
from __future__ import annotations

import sys

import typer

from warehouse import collector
from warehouse.cli import build, ledger, measurements, notify, outputs, query, runs
from warehouse.cli.console import error
from warehouse.cli.global_options import Group, examples, reset
from warehouse.cli.failures import run_reporting_failures
from warehouse.store.failures import expected_failure
from warehouse.errors import EXIT_OK, EXIT_USAGE, ExpectedFailure, UsageError
from warehouse.settings import SettingsError

# Click's exceptions as the Click that Typer uses raises them: Typer 0.29 vendors a copy of its own,
# earlier and later versions may use the installed click. Found through public Typer API (BadParameter
# is one of them), so any Typer version works.
click_errors = sys.modules[typer.BadParameter.__module__]

HELP = ("MLPerf Inference results as a validated, lineage-tracked DuckDB warehouse: build it "
        "(backfill, ingest, trees), ask it (sql, views, status, drift, loads), hand it on "
        "(export, report, docs), keep claims and decisions against it, and run it on a schedule.")

app = typer.Typer(name="mlperf-wh", help=HELP, cls=Group, no_args_is_help=True, add_completion=False,
                  context_settings={"help_option_names": ["-h", "--help"]},
                  epilog=examples("mlperf-wh backfill --source ../shared/mlcommons/mirror",
                                  "mlperf-wh sql \"SELECT * FROM software_gain_summary ORDER BY gain DESC\"",
                                  "mlperf-wh status --db /tmp/w.duckdb   (global options go before or after)"))


@app.callback()
def _top() -> None:
    """The global options are taken by Group; nothing else happens before a command."""


for module in (build, query, ledger, measurements, runs, outputs, notify):
    module.register(app)


def run(words: list[str], verbose: bool) -> int:
    """Parse and run one command line -> its exit code."""
    reset()
    return run_reporting_failures(lambda: _invoke(words), verbose=verbose)


# Commands that run a flow resume the collector when the run starts (flows.local_runs.run_here), once
# Prefect, polars and DuckDB are imported; every other command resumes it as it starts.
RUNS_A_FLOW = {"backfill", "ingest", "watch", "trees"}


def _invoke(words: list[str]) -> int:
    command = typer.main.get_command(app)
    if next((w for w in words if w in command.commands), None) not in RUNS_A_FLOW:
        collector.resume()
    try:
        with command.make_context("mlperf-wh", list(words)) as ctx:
            try:
                code = command.invoke(ctx)
            except Exception as exc:
                _raise_usage_with_hint(exc, ctx)
                raise
    except click_errors.NoArgsIsHelpError as exc:
        help_text = exc.ctx.get_help()  # Typer's Rich help prints itself and returns ""
        if help_text:
            print(help_text)
        error(f"missing command (see: {exc.ctx.command_path} --help)")
        return EXIT_USAGE
    except click_errors.UsageError as exc:
        error(usage_line(exc))  # Click's own parsing: no traceback to show, even with -v
        return EXIT_USAGE
    except click_errors.ClickException as exc:
        raise ExpectedFailure(exc.format_message()) from None
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        raise KeyboardInterrupt from None
    return EXIT_OK if code is None else code


def usage_line(exc) -> str:
    """"No such option: --frmat (Possible options: --format)" + where the help is."""
    where = exc.ctx.command_path if exc.ctx is not None else "mlperf-wh"
    return f"{exc.format_message().rstrip('.')} (see: {where} --help)"


def _raise_usage_with_hint(exc: Exception, ctx) -> None:
    """A usage error found by a command (a bad round name, guard, section) points at its help too."""
    if isinstance(exc, (typer.Exit, typer.Abort, click_errors.ClickException)):
        return  # Click's own: --help, --version, its usage errors (handled by _invoke)
    failure = expected_failure(exc)
    if isinstance(failure, SettingsError):  # an MLPERF_* variable: `config` lists them, not --help
        raise SettingsError(f"{str(failure).rstrip('.')} (see: mlperf-wh config --help)") from exc
    if isinstance(failure, UsageError):
        where = " ".join(["mlperf-wh", *([ctx.invoked_subcommand] if ctx.invoked_subcommand else [])])
        raise UsageError(f"{str(failure).rstrip('.')} (see: {where} --help)") from exc
