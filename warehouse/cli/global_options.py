"""The options every command takes, before or after its name (`--db`, `-v`, `-q`, `--wide`, `--version`), and
the `command` decorator that gives a command them, its example and its help panel."""
from __future__ import annotations

from typing import Annotated, Optional

import typer
from typer.core import TyperCommand, TyperGroup

from warehouse import settings
from warehouse.cli.invocation import GlobalOptions, current, reading_file, reset  # noqa: F401 - where commands find them

DEFAULT_DB = settings.default("warehouse_db")  # as warehouse.store.db has it, without importing DuckDB
PANEL = "Global options (before or after the command)"
VERBOSE_WORDS = ("-v", "--verbose")
SOURCE_HELP = ("base URL or local directory of the round repositories "
               "(env MLPERF_SOURCE, default the MLCommons repositories)")


def verbose_requested(words: list[str]) -> bool:
    """-v anywhere before `--`: known before Click parses, for what must be set before Prefect loads."""
    words = words[:words.index("--")] if "--" in words else words
    return any(w in VERBOSE_WORDS for w in words)


def package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # only for --version: ~20 ms of every start
    try:
        return version("mlperf-warehouse")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "unknown (not installed)"


def _remember(ctx, param, value):
    """Store a global option where every context of this invocation sees it; an option given
    twice (before and after the command) keeps the later one, a flag stays on."""
    if value in (None, False):
        return value
    setattr(current(), param.name, value)
    if current().verbose and current().quiet:
        raise typer.BadParameter("-v/--verbose and -q/--quiet exclude each other", ctx=ctx, param=param)
    return value


def _print_version(ctx, param, value):
    if value and not ctx.resilient_parsing:
        print(f"mlperf-wh {package_version()}")
        ctx.exit(0)
    return value


def _probe(
    db: Annotated[Optional[str], typer.Option(
        "--db", metavar="FILE", rich_help_panel=PANEL,
        help=f"the warehouse file (env MLPERF_WAREHOUSE_DB, default {DEFAULT_DB})")] = None,
    verbose: Annotated[bool, typer.Option(
        "-v", "--verbose", rich_help_panel=PANEL,
        help="print Prefect's per-task lines, and the traceback of a failure (or MLPERF_DEBUG=1)")] = False,
    quiet: Annotated[bool, typer.Option(
        "-q", "--quiet", rich_help_panel=PANEL,
        help="print only the rows asked for, warnings and errors: no run report, notes or progress")] = False,
    writer_file: Annotated[bool, typer.Option(
        "--writer-file", rich_help_panel=PANEL,
        help="read the warehouse file itself, not its published copy (a load cannot start while you read)")] = False,
    wide: Annotated[bool, typer.Option(
        "--wide", rich_help_panel=PANEL,
        help="tables: every cell whole on one line, however wide (default: sized to the terminal, long text cut with …)")] = False,
    version: Annotated[bool, typer.Option(
        "--version", rich_help_panel=PANEL, help="print the version and exit")] = False,
) -> None:
    """Only its signature is used: Typer builds the global options' Click parameters from it."""


def _global_params() -> list:
    probe = typer.Typer(add_completion=False)
    probe.command()(_probe)
    params = typer.main.get_command(probe).params
    for param in params:
        param.expose_value = False
        param.callback = _remember
        if param.name == "version":
            param.is_eager = True
            param.callback = _print_version
    return [p for p in params if p.name in ("db", "verbose", "quiet", "writer_file", "wide", "version")]


GLOBAL_PARAMS = _global_params()


class Command(TyperCommand):
    """A Typer command that also takes the global options (after its name)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.params.extend(GLOBAL_PARAMS)


class Group(TyperGroup):
    """A group of commands (the top level, `claims`...) that takes the global options too."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.params.extend(GLOBAL_PARAMS)


def examples(*lines: str) -> str:
    """A help epilog: the examples, one per line (Rich markup escaped)."""
    body = "\n".join(f"  {line}" for line in lines).replace("[", "\\[")
    return f"[b]Example{'s' if len(lines) > 1 else ''}[/b]\n{body}"


def command(app: typer.Typer, name: str, *example_lines: str, **kwargs):
    """`@command(app, "sql", "mlperf-wh sql ...")`: a command with the global options and examples."""
    return app.command(name, cls=Command, epilog=examples(*example_lines), **kwargs)


def group(name: str, help: str, *example_lines: str, **options) -> typer.Typer:
    return typer.Typer(name=name, help=help, cls=Group, epilog=examples(*example_lines), add_completion=False,
                       **{"no_args_is_help": True, **options})
