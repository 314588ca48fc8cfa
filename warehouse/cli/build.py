"""Commands that build the warehouse: `backfill`, `ingest`, `trees` (each fetches, so each takes
`--source`) and `views` (list them, or rebuild them from the loaded rows)."""
from __future__ import annotations

import sys
import textwrap
from contextlib import contextmanager
from dataclasses import replace
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from warehouse.cli.console import Format, error, note, print_json, print_rows, say, warn
from warehouse.cli.global_options import SOURCE_HELP, command, current
from warehouse.cli.progress import step
from warehouse.errors import EXIT_FAILED, EXIT_OK, ExpectedFailure, UsageError

if TYPE_CHECKING:
    from warehouse.store.checked import CheckedWarehouse

# warehouse.ingest.guards.GUARDS, named here without importing polars for --help (a test keeps them equal)
GUARD_NAMES = ("round-markers", "all-quarantined", "shrink", "incomplete-last-line", "short-of-round")
Source = Annotated[Optional[str], typer.Option("--source", metavar="URL_OR_DIR", help=SOURCE_HELP)]
Rounds = Annotated[str, typer.Option("--rounds", help="comma-separated, e.g. v5.1,v6.0 (default: all)")]
Force = Annotated[bool, typer.Option("--force", help="reload even unchanged files")]
Strict = Annotated[bool, typer.Option("--strict", help=(
    "exit 1 when a file loaded by this run brought drift (new words or unmatched names, see "
    "`mlperf-wh drift`); without it drift is reported and the run exits 0"))]
RunFormat = Annotated[Format, typer.Option("--format", help=(
    "the run report: table (with drift and what changed), csv (a row per round) or json (all of it)"))]
Allow = Annotated[Optional[list[str]], typer.Option("--allow", metavar="GUARD", help=(
    "load despite this guard, recorded in sources.overrides (repeatable): " + ", ".join(GUARD_NAMES)
    + "; see docs/operations-guide.md, 'Load guards'"))]


class Origin(str, Enum):
    official = "official"
    unofficial = "unofficial"


class ViewsAction(str, Enum):
    list = "list"
    refresh = "refresh"


def register(app: typer.Typer) -> None:
    command(app, "backfill", "mlperf-wh backfill",
            "mlperf-wh backfill --rounds v5.1,v6.0 --source ../shared/mlcommons/mirror --db /tmp/w.duckdb",
            "mlperf-wh backfill --rounds v6.0 --force --allow shrink")(backfill)
    command(app, "ingest", "mlperf-wh ingest v6.0",
            "mlperf-wh ingest v5.0 --file path/to/summary.csv --origin unofficial")(ingest)
    command(app, "trees", "mlperf-wh trees --rounds v6.0 --source repos",
            "mlperf-wh trees --concurrency 4 --dask tcp://10.0.0.5:8786")(trees)
    command(app, "views", "mlperf-wh views", "mlperf-wh views --format csv",
            "mlperf-wh views refresh   (after editing a reference CSV)")(views)


def backfill(rounds: Rounds = "", force: Force = False, strict: Strict = False, allow: Allow = None,
             source: Source = None, fmt: RunFormat = Format.table) -> int:
    """Fetch, validate and load every round (or those --rounds names), then rebuild the views."""
    from warehouse.identity.rounds import load_registry, parse_round_list, resolve_rounds, with_tables
    named = parse_round_list(rounds)
    chosen = with_tables(resolve_rounds(named, load_registry()), bool(named))
    return _run_backfill(chosen, source, force, strict, _guards(allow), "backfill", fmt)


def ingest(
    round: Annotated[str, typer.Argument(metavar="ROUND", help="the round, e.g. v6.0", show_default=False)],
    file: Annotated[Optional[Path], typer.Option("--file", help=(
        "a local summary_results.json, summary.json or summary.csv"))] = None,
    origin: Annotated[Optional[Origin], typer.Option("--origin", help=(
        "official MLCommons round repository, or anything else (default: official from the source, "
        "unofficial for --file)"))] = None,
    force: Force = False, strict: Strict = False, allow: Allow = None, source: Source = None,
    fmt: RunFormat = Format.table,
) -> int:
    """Ingest one round from the source, or one local file."""
    from warehouse.identity.rounds import load_registry, resolve_rounds, validate_round_name, with_tables
    round_name = validate_round_name(round)
    if file is None:
        if origin is Origin.unofficial:
            raise UsageError("--origin unofficial needs --file: the round repositories are official")
        return _run_backfill(with_tables(resolve_rounds([round_name], load_registry()), True), source, force, strict,
                             _guards(allow), "ingest", fmt)
    existing_file(file)
    from flows.ingest import ingest_file
    from flows.local_runs import run_here
    from warehouse.export.run_report import of_file_ingest
    db_file = _writable_warehouse(f"mlperf-wh ingest {round_name} --file {file}")
    with step(f"loading {file} as {round_name}"):
        outcome = run_here(ingest_file, round_name, str(file), (origin or Origin.unofficial).value, db_file,
                           force=force, allow=_guards(allow))
    return print_run(of_file_ingest(db_file, [outcome]), str(file), strict, fmt)


def existing_file(path: Path) -> Path:
    """A file argument that does not exist is the same one-line failure (exit 1) for every command."""
    if not path.is_file():
        from warehouse.errors import ExpectedFailure
        what = "no such file" if not path.exists() else "is a directory, not a file" if path.is_dir() else \
            "not a regular file (a pipe or a device)"
        raise ExpectedFailure(f"{path}: {what}")
    return path


def _guards(allow: list[str] | None) -> list[str]:
    unknown = [name for name in allow or [] if name not in GUARD_NAMES]
    if unknown:
        raise UsageError(f"--allow {unknown[0]}: no such guard (one of {', '.join(GUARD_NAMES)})")
    return list(allow or [])


def _run_backfill(rounds, source: str | None, force: bool, strict: bool, allow: list[str], what: str,
                  fmt: Format) -> int:
    from flows.look_first import unless_changed
    from warehouse.ingest.look import these_rounds
    from warehouse.store import db
    from warehouse.store.checked import checked
    with run_failure_notified(what):
        source = chosen_source(source, probe=False)
        warehouse = checked(db.db_path(current().db))  # the run's one check: every step below opens it as it is
        unchanged = None if force else unless_changed(these_rounds(rounds), source, warehouse,
                                                      "backfill", views_must_be_current=True)
        if unchanged is not None:
            return print_run(replace(unchanged, kind=what), source, strict, fmt)
        probe_source(source)
        from flows.ingest import backfill as backfill_flow
        from flows.local_runs import run_here
        db_file = _writable_warehouse(f"mlperf-wh {what}", warehouse)
        from warehouse.ingest.source_urls import redact
        with step(f"loading {len(rounds)} round{'s' if len(rounds) != 1 else ''} from {redact(source)}"):
            report = run_here(backfill_flow, rounds, source, db_file, force=force, allow=allow)
    # the command's name heads its report ("ingest: ..."); load_events keep the flow's, backfill
    return print_run(replace(report, kind=what), source, strict, fmt)


@contextmanager
def run_failure_notified(kind: str):
    """A run the command line starts fails as its flow would (warehouse.notify.failure): a source
    missing or unreachable, the warehouse held or refused, anything before or in the flow, is
    told to every target once; the CLI then prints its one line (warehouse.cli.failures)."""
    from warehouse.notify.failure import failure_notified
    from warehouse.store import db
    with failure_notified(db.db_path(current().db), kind):
        yield


def chosen_source(explicit: str | None, probe: bool = True) -> str:
    """--source, MLPERF_SOURCE, where the warehouse's rounds came from, or the published repositories;
    checked (a mistyped directory is one line before anything starts; with `probe`, a host that does
    not resolve or answer too), and said when the warehouse chose it."""
    from warehouse.identity.rounds import choose_source
    from warehouse.ingest.source_urls import check_source
    from warehouse.store import db
    chosen = choose_source(explicit, db.db_path(current().db))
    if chosen.said():
        note(chosen.said())
    source = check_source(chosen.location)
    if probe:
        probe_source(source)
    return source


def probe_source(source: str) -> None:
    """A host that does not resolve or answer is one line, before a flow would retry every round
    against it. Run only when something will be fetched: a run that finds nothing new asked the
    source already (look first), and a probe then is a connection for nothing."""
    from warehouse.ingest.fetch import FetchSettings, check_reachable
    check_reachable(source, FetchSettings.from_env())


def _writable_warehouse(what: str, warehouse: CheckedWarehouse | None = None) -> CheckedWarehouse:
    """Open the warehouse once before any flow runs: a locked or corrupt file is one line, now
    (flows.local_runs.run_here then starts Prefect's temporary server, when a run needs it). A
    warehouse not created yet has nothing to find wrong (the run creates it) once the writer lock,
    a file beside it, could be created. -> the warehouse checked (warehouse.store.checked), for the
    run: `warehouse` when the command checked it already, else checked here."""
    from warehouse.store import db
    from warehouse.store.lock import writer
    # waits for another writer first (bounded), like the run itself will
    with writer(warehouse or db.db_path(current().db), what) as held:
        if Path(held.warehouse).exists():
            with db.connect(held.warehouse):
                pass
    start_temporary_server_if_needed()
    return held.warehouse


REPORT_WIDTH = 80  # the run report's lines, as a terminal of any width shows them


def start_temporary_server_if_needed() -> None:
    """Prefect's temporary server, started now (a spinner on a terminal) when the run will be a flow
    run on it (flows.local_runs: no Prefect API, MLPERF_PREFECT_TEMPORARY_SERVER); run_here would start
    it otherwise, unseen."""
    from flows.local_runs import temporary_server_needed
    if temporary_server_needed():
        from warehouse.interrupt import start_prefect_server_tied_to_this_process
        with step("starting Prefect's temporary API server"):
            start_prefect_server_tied_to_this_process()


def print_run(run, source: str, strict: bool = False, fmt: Format = Format.table) -> int:
    """A run report (warehouse.export.run_report.RunReport) on stdout, how it ended on stderr."""
    if fmt is Format.json:
        print_json(run.as_dict())
    elif fmt is Format.csv:
        print_rows(run.screen_table(), fmt)
    elif not current().quiet:
        say(run.headline())
        if run.waited:
            say(f"waited {run.waited}")
        if run.rounds:
            print_rows(run.terminal_table())
        for title, items in run.screen_sections():
            say(f"\n{title}:")
            say("\n".join(textwrap.fill(item, REPORT_WIDTH, initial_indent="  ", subsequent_indent="      ",
                                         break_on_hyphens=False) for item in items))
    closing = run.closing(source, strict)
    for line in run.warnings:
        warn(line)
    for line in closing.errors:
        error(line)
    if closing.hint:
        print(closing.hint, file=sys.stderr)
    return EXIT_FAILED if closing.failed else EXIT_OK


def trees(
    rounds: Rounds = "",
    force: Annotated[bool, typer.Option("--force", help="fetch and reload even unchanged files")] = False,
    concurrency: Annotated[Optional[int], typer.Option(
        "--concurrency", min=1, help="chunks of files fetched at once on the thread pool (default 8)")] = None,
    chunk_size: Annotated[Optional[int], typer.Option(
        "--chunk-size", min=1, help="files per Prefect task on the thread pool (default 64)")] = None,
    dask: Annotated[Optional[str], typer.Option("--dask", metavar="ADDRESS", help=(
        "fetch and parse on the workers of this Dask scheduler, e.g. tcp://10.0.0.5:8786, two chunks "
        "per worker thread (env MLPERF_DASK_ADDRESS; default: a thread pool here)"))] = None,
    source: Source = None,
    git: Annotated[Optional[str], typer.Option("--git", metavar="URL", help=(
        "for a round MLCommons published no table of, clone its tree from URL/inference_results_vX.Y: a "
        "partial, sparse clone of the system descriptions and run summaries alone, e.g. "
        "--git https://github.com/mlcommons (https://, http://, ssh://, user@host:path or file://; a "
        "token as user:token@ or in MLPERF_GIT_TOKEN reaches git through its environment, never stored)"))] = None,
    fmt: Annotated[Format, typer.Option("--format", help="how the files-by-status table is printed")] = Format.table,
) -> int:
    """Rebuild the rows of the rounds MLCommons published no table of from their submission trees;
    then fetch each loaded result's run summary (LoadGen's, or the endpoint harness's files) and its
    system description, and load them."""
    from flows.local_runs import run_here
    from flows.trees import TreeRun, dask_address, run_trees
    from warehouse.identity.rounds import load_registry, parse_round_list, resolve_rounds
    from warehouse.trees.planning import nothing_found
    from warehouse.store import db
    from warehouse.store.checked import checked
    chosen = resolve_rounds(parse_round_list(rounds), load_registry())
    remote = None
    if git is not None:
        from warehouse.trees.git_remote import parse_git_url
        remote = parse_git_url(git)  # before anything runs: a URL is never an option of git
        chosen, source = _cloned_rounds(chosen, bool(parse_round_list(rounds)))
    else:
        source = chosen_source(source)  # a mistyped directory: one line, not 3,238 files missing
    sizes = {k: v for k, v in (("concurrency", concurrency), ("chunk_size", chunk_size)) if v is not None}
    run = TreeRun(dask_address=dask_address(dask), force=force, git=remote.url if remote else None, **sizes)
    warehouse = checked(db.db_path(current().db))  # the run's one check: every step below opens it as it is
    if remote is None and not _trees_reachable(chosen, source, warehouse):  # a clone is its own check
        return EXIT_FAILED
    start_temporary_server_if_needed()
    if remote is not None and remote.token:
        _git_credentials_to_environment(remote)
    with step("fetching and loading the submission trees"):
        outcome = run_here(run_trees, chosen, source, warehouse, run)
    for rebuilt in outcome.rebuilt:
        say(rebuilt.line())
    print_rows(outcome.by_status(), fmt)
    say(f"{outcome.files} files in {outcome.seconds:.1f} s ({outcome.files / max(outcome.seconds, 1e-9):.0f} files/s)")
    for problem in outcome.problems:  # a failed fetch fails the run; a quarantined file does not
        (error if problem in outcome.failures else warn)(problem)
    if outcome.found_nothing:
        error(nothing_found(outcome, source))
        return EXIT_FAILED
    return EXIT_FAILED if outcome.failed else EXIT_OK


def _git_credentials_to_environment(remote) -> None:
    """The credentials of a --git URL go to the run out of band: the flow's parameter is the URL
    without them, and the clone reads them from this process's environment (as a deployment's runs
    read MLPERF_GIT_TOKEN from theirs). Set after Prefect's temporary server started: it never sees them."""
    import os

    from warehouse.trees.git_remote import TOKEN_ENV, USERNAME_ENV
    os.environ[USERNAME_ENV] = remote.username or "git"
    os.environ[TOKEN_ENV] = remote.token


def _cloned_rounds(chosen, named: bool):
    """--git: the rounds with no published table (every one of them when none is named; a named round
    with a table is refused: its table is read from --source), and the directory their clones are
    kept in, beside the warehouse, as the source of their run summaries."""
    from warehouse.store import db
    from warehouse.trees.clone_folders import clones_folder
    with_table = [r.name for r in chosen if r.has_table]
    if named and with_table:
        raise UsageError(f"--git clones the trees of rounds MLCommons published no table of; "
                         f"{', '.join(with_table)} has one: run `mlperf-wh trees` without --git for it")
    return [r for r in chosen if not r.has_table], str(clones_folder(db.db_path(current().db)))


def _trees_reachable(rounds, source: str, warehouse: CheckedWarehouse) -> bool:
    """The source holds a tree and answers (warehouse.trees.planning.require_trees), before
    Prefect starts; an unreachable source is one line and the hint `backfill` gives."""
    from pathlib import Path

    from warehouse.errors import WarehouseUnavailable
    from warehouse.export.run_report import UNREACHABLE_HINT
    from warehouse.ingest.source_urls import redact
    from warehouse.trees.planning import TreeSourceUnreachable, check_source_has_trees
    if not Path(warehouse).exists():
        return True  # nothing loaded yet: nothing to fetch
    try:
        check_source_has_trees(warehouse, rounds, source)
    except WarehouseUnavailable:
        return True  # a writer holds it: the run waits for it (the writer lock) and checks nothing first
    except TreeSourceUnreachable as exc:
        error(str(exc))
        print(UNREACHABLE_HINT.format(source=redact(source)), file=sys.stderr)
        return False
    return True


def views(
    action: Annotated[ViewsAction, typer.Argument(metavar="ACTION", help=(
        "list: every view and the question it answers; refresh: rebuild them from the loaded rows and "
        "today's reference tables (MLPERF_REFERENCE_DIR or warehouse/identity/reference), no refetch"))
    ] = ViewsAction.list,
    fmt: Annotated[Format, typer.Option("--format", help="how the list is printed")] = Format.table,
    every: Annotated[bool, typer.Option("--all", help=(
        "list the loaded tables and the internal models too (base_, stg_, int_: what the marts are built "
        "from)"))] = False,
) -> int:
    """List the marts, the views analysts query (or rebuild every model: `views refresh`)."""
    if action is ViewsAction.refresh:
        from warehouse.views import rebuild
        with step("building the views"):
            _, created = rebuild(current().db, "mlperf-wh views refresh")
        say(f"rebuilt {len(created)} views from the loaded rows and today's reference tables")
        return EXIT_OK
    from warehouse.views import list_views
    from warehouse.views.source_docs import every_relation
    print_rows(every_relation() if every else list_views(marts_only=True), fmt)
    return EXIT_OK
