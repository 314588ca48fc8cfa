"""Tree ingest without Prefect: plan which files the loaded results name, fetch + parse chunks of them
(trees/fetching.py, pure apart from the fetch), validate every parsed row at once, and load the outcome
in one transaction.

The flow (flows/trees.py) runs `fetch_chunk` as Prefect tasks, many at once, or on a Dask cluster
(trees/distributing.py); everything here also runs on its own (bench, tests).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import NamedTuple

import polars as pl

from schemas.endpoints import LOADGEN
from schemas.failures import failures_of
from schemas.trees import SUMMARY_MODELS, SystemDescription
from warehouse.errors import ExpectedFailure
from warehouse.identity.rounds import Round, round_sort_key
from warehouse.ingest.fetch import FetchError, FetchSettings, Previous, cannot_connect, is_http
from warehouse.ingest.source_urls import local_path, redact
from warehouse.trees.fetching import PARSERS, FileOutcome, TreeFile, fetch_with_retries
from warehouse.trees.parsing import run_folder
from warehouse.store import db
from warehouse.store.tree_tables import SUMMARY_TYPES, SYSTEM_TYPES, polars_schema


class Kind(NamedTuple):
    models: dict[str | None, type]  # the Pandera model a parsed row must pass, by its harness (None: any)
    types: dict[str, str]          # column -> type (warehouse/store/tree_tables.py)
    table: str
    key: str                       # the table's key column, besides round


KINDS = {"summary": Kind(SUMMARY_MODELS, SUMMARY_TYPES, "run_summaries", PARSERS["summary"].key),
         "system": Kind({None: SystemDescription}, SYSTEM_TYPES, "systems", PARSERS["system"].key)}
DEFAULT_CHUNK = 64
DIVISIONS = ("closed", "open", "network")  # the top folders of a round's submission tree
FOUND = ("loaded", "unchanged", "quarantined", "unrecognized")  # statuses of a file that is there


class NoTrees(ExpectedFailure):
    """No round asked for has any submission tree at the source."""


class TreeSourceUnreachable(ExpectedFailure):
    """The source of the trees cannot be reached at all (the host does not resolve or answer)."""


@dataclass
class TreeOutcome:
    """What one tree ingest did, per status, and the one-line problems."""
    counts: dict[str, int]
    problems: list[str]
    seconds: float = 0.0
    rounds: list[str] = field(default_factory=list)   # the rounds whose files were asked for
    failures: list[str] = field(default_factory=list)  # the problems of files that failed (the run's exit 1)
    rebuilt: list = field(default_factory=list)       # rounds with no table, rebuilt from their tree (tree_rebuild_load)

    @property
    def files(self) -> int:
        return sum(self.counts.values())

    @property
    def failed(self) -> bool:
        return self.counts.get("failed", 0) > 0

    @property
    def found_nothing(self) -> bool:
        """Files were asked for and not one of them is at the source."""
        return self.files > 0 and not any(self.counts.get(status) for status in FOUND)

    def by_status(self) -> pl.DataFrame:
        return pl.DataFrame({"status": list(self.counts), "files": list(self.counts.values())},
                            schema={"status": pl.String, "files": pl.Int64})


# ---------------------------------------------------------------------------------------------
# plan


def tree_root(source: str, round: Round) -> str:
    """Where a round's submission tree is at the source: `<repository>/<branch>/` as the round
    repositories are published (a URL, or a directory laid out as they are), or `<repository>/`
    for a directory laid out as the trees alone are (../shared/mlcommons/trees)."""
    repository = f"{source.rstrip('/')}/{round.repository}"
    branch = f"{repository}/{round.branch}"
    if is_http(source) or holds_a_tree(branch) or not holds_a_tree(repository):
        return branch
    return repository


def holds_a_tree(directory: str) -> bool:
    """A local directory with a division folder (closed/, open/, network/) in it."""
    root = local_path(directory)
    return any((root / division).is_dir() for division in DIVISIONS)


def plan(con, rounds: list[Round], source: str) -> tuple[list[TreeFile], int]:
    """Every run folder and system file the loaded result rows of these rounds name, with what the
    warehouse saw of each last time; and how many result rows name no usable run folder."""
    by_name = {r.name: r for r in rounds}
    roots = {r.name: tree_root(source, r) for r in rounds}
    locations = db.query_frame(
        con, "SELECT round, location, count(*) AS rows FROM results WHERE list_contains(?, round) "
             "AND metric = 'performance' GROUP BY ALL ORDER BY ALL", [list(by_name)])
    previous = _previous(con)
    files: dict[tuple[str, str], TreeFile] = {}
    unnamed = 0
    for round_name, location, rows in locations.iter_rows():
        folder = run_folder(location)
        if folder is None:
            unnamed += rows
            continue
        root, run_key, system_key = roots[round_name], (round_name, folder.path), (round_name, folder.system_path)
        if run_key not in files:
            first, *others = folder.candidate_paths
            files[run_key] = _planned(
                round_name, first, "summary", root, previous.get(run_key), run_path=folder.path,
                alternatives=tuple((path, f"{root}/{path}") for path in others),
                folder=f"{root}/{folder.scenario_path}")
        if system_key not in files:  # a system's many rows: planned once
            files[system_key] = _planned(round_name, system_key[1], "system", root, previous.get(system_key))
    return list(files.values()), unnamed


def _planned(round_name: str, path: str, kind: str, root: str, found: tuple | None, **run) -> TreeFile:
    """A file to fetch, with the validators of the last load (of whichever file of the run folder it read)."""
    previous_path = found[0] if found else None
    url = f"{root}/{previous_path or path}"
    return TreeFile(round_name, path, kind, f"{root}/{path}", _previous_fetch(found and found[1:], url),
                    previous_path, root=root, **run)


def _previous(con) -> dict[tuple[str, str], tuple]:
    """(round, run folder or system file) -> (path, sha256, etag, last_modified, url, file_identity) of its
    last load."""
    rows = con.execute("SELECT round, coalesce(run_path, path), path, sha256, etag, last_modified, url, file_identity "
                       "FROM tree_files WHERE status IN ('loaded', 'quarantined')").fetchall()
    return {(r, key): rest for r, key, *rest in rows}


def _previous_fetch(found: tuple | None, url: str) -> Previous | None:
    """What the last load saw; validators (ETag, Last-Modified) only count for the same URL."""
    if found is None:
        return None
    sha256, etag, last_modified, previous_url, identity = found
    same_place = previous_url == url
    return Previous(sha256, etag if same_place else None, last_modified if same_place else None,
                    identity if same_place else None)


def chunks(files: list[TreeFile], size: int = DEFAULT_CHUNK) -> list[list[TreeFile]]:
    return [files[i:i + size] for i in range(0, len(files), max(1, size))]


def require_trees(files: list[TreeFile], rounds: list[Round], source: str, settings: FetchSettings) -> None:
    """Before fetching: a directory source must hold the tree of at least one round whose files are
    asked for, and a URL must answer (one try of the first file, with the usual retries); else one
    line, at once, not a file 'missing' or 'failed' for every result row."""
    asked = [r for r in rounds if any(f.round == r.name for f in files)]
    if not asked:
        return
    if not is_http(source):
        require_local_trees(asked, source)
        return
    import requests
    try:
        fetch_with_retries(files[0], settings, requests.Session())
    except FetchError as exc:
        if cannot_connect(exc):
            raise TreeSourceUnreachable(str(exc)) from exc


def require_local_trees(asked: list[Round], source: str) -> None:
    """A directory source holds the tree of at least one of the rounds asked for, or NoTrees."""
    if asked and not any(holds_a_tree(tree_root(source, r)) for r in asked):
        raise NoTrees(f"{source} holds no submission tree of {', '.join(r.name for r in asked)} (looked for "
                      f"inference_results_vX.Y/main/closed/ and inference_results_vX.Y/closed/, or open/): "
                      "point --source at a directory laid out as the trees are published, "
                      "e.g. ../shared/mlcommons/trees")


def check_source_has_trees(db_file: str, rounds: list[Round], source: str) -> None:
    """require_trees for the files the warehouse's loaded results name (a command's first step).
    A directory needs only the rounds whose rows name a run folder, not the whole plan (the run
    plans again: a rerun over unchanged trees paid for its plan twice)."""
    with db.connect(db_file, read_only=True) as con:
        if is_http(source):
            files, _ = plan(con, rounds, source)
            require_trees(files, rounds, source, FetchSettings.from_env())
            return
        named = {r for (r,) in con.execute(
            "SELECT DISTINCT round FROM results WHERE list_contains(?, round) AND metric = 'performance' "
            "AND location IS NOT NULL", [[r.name for r in rounds]]).fetchall()}
    require_local_trees([r for r in rounds if r.name in named], source)


def nothing_found(outcome: TreeOutcome, source: str) -> str:
    """The one line for a run in which no file asked for was at the source."""
    return (f"no submission tree file of {', '.join(outcome.rounds)} at {redact(source)}: "
            f"all {outcome.files} files asked for are missing")


# ---------------------------------------------------------------------------------------------
# validate (every chunk's rows at once)


@dataclass
class Checked:
    """Every outcome with its final status, and the rows that passed their Pandera model."""
    outcomes: list[FileOutcome]
    summaries: pl.DataFrame
    systems: pl.DataFrame


def check(outcomes: list[FileOutcome]) -> Checked:
    """Validate every parsed row at once (one Pandera pass per table and harness, not one per
    chunk): a row that fails any check quarantines its file."""
    frames = {kind: pl.concat([_validate(kind, model, [o for o in outcomes if o.status == "parsed"
                                                       and o.file.kind == kind and _harness(o) == harness])
                               for harness, model in KINDS[kind].models.items()])
              for kind in KINDS}
    return Checked(outcomes, frames["summary"], frames["system"])


def _harness(outcome: FileOutcome) -> str | None:
    return outcome.record.get("harness", LOADGEN) if outcome.file.kind == "summary" else None


def _validate(kind: str, model, candidates: list[FileOutcome]) -> pl.DataFrame:
    """The rows that pass every check of the model; the others' files become quarantined."""
    frame = pl.DataFrame([c.record for c in candidates], schema=polars_schema(KINDS[kind].types))
    reasons = row_failures(model, frame)
    for index, candidate in enumerate(candidates):
        if index in reasons:
            candidate.status, candidate.reasons = "quarantined", reasons[index]
        else:
            candidate.status, candidate.raw_text = "loaded", None
        candidate.record = None
    return frame.filter(~pl.int_range(pl.len()).is_in(list(reasons)))


def row_failures(model, frame: pl.DataFrame) -> dict[int, list[str]]:
    """{row index: every check it failed} under a Pandera model (lazy validation)."""
    failures: dict[int, list[str]] = {}
    for failure in failures_of(model, frame) if frame.height else []:
        if failure.index is None:  # a schema-level failure (a column of the wrong type): a bug
            raise RuntimeError(f"{model.__name__}: schema-level failure {failure}")
        failures.setdefault(failure.index, []).append(failure.message())
    return failures


# ---------------------------------------------------------------------------------------------
# load


def load(con, checked: Checked) -> TreeOutcome:
    """One transaction: a loaded file replaces its row; a quarantined one replaces its quarantine
    record and keeps the row loaded from the run folder's (or system's) earlier file, as a bad
    round table leaves its round as it was, the new file's fault in `quarantine` and in
    `tree_files.message`; a file that is now missing or failed keeps whatever was loaded from it
    before and is only recorded when nothing was."""
    outcomes = checked.outcomes
    if all(o.status == "unchanged" and o.fetched and o.fetched.not_modified for o in outcomes):
        return _outcome(outcomes)  # nothing to write: no transaction at all
    now = datetime.now(timezone.utc)
    kept = _rows_kept(con, [o for o in outcomes if o.status == "quarantined"])
    for o in outcomes:
        if (o.file.round, o.file.key) in kept:
            o.reasons = [*o.reasons, KEPT]
    frames = {
        "_tree_files": pl.DataFrame([_file_row(o, now) for o in outcomes if o.status != "unchanged"],
                                    schema=FILE_ROW_SCHEMA),
        "_tree_quarantine": pl.DataFrame([_quarantine_row(o) for o in outcomes
                                          if o.status == "quarantined"], schema=QUARANTINE_SCHEMA),
        "_run_summaries": checked.summaries,
        "_systems": checked.systems,
        "_tree_identities": pl.DataFrame(
            [{"round": o.file.round, "path": o.file.path, "file_identity": o.fetched.identity}
             for o in outcomes if o.status == "unchanged" and o.fetched and not o.fetched.not_modified
             and o.fetched.identity], schema={"round": pl.String, "path": pl.String, "file_identity": pl.String}),
    }
    slot = "coalesce({0}.run_path, {0}.path)"  # a run folder (whichever of its files), or a system file
    replaced = "f.status IN ('loaded', 'quarantined')"
    with db.registered(con, **frames), db.transaction(con):
        for name, kind in KINDS.items():
            con.execute(f"""DELETE FROM {kind.table} AS t USING _tree_files AS f
                            WHERE t.round = f.round AND f.kind = '{name}' AND f.status = 'loaded'
                              AND t.{kind.key} = {slot.format('f')}""")
            columns = ", ".join(frames[f"_{kind.table}"].columns)
            con.execute(f"INSERT INTO {kind.table} ({columns}) SELECT {columns} FROM _{kind.table}")
        con.execute(f"""DELETE FROM quarantine AS q USING _tree_files AS f, tree_files AS t
                        WHERE t.round = f.round AND {slot.format('t')} = {slot.format('f')} AND {replaced}
                          AND q.source_id = 'tree/' || t.round || '/' || t.path""")
        con.execute(f"""DELETE FROM quarantine AS q USING _tree_files AS f
                        WHERE q.source_id = 'tree/' || f.round || '/' || f.path AND {replaced}""")
        con.execute("INSERT INTO quarantine SELECT * FROM _tree_quarantine")
        con.execute(f"""DELETE FROM tree_files AS t USING _tree_files AS f
                        WHERE t.round = f.round AND {slot.format('t')} = {slot.format('f')}
                          AND ({replaced} OR t.status IN ('missing', 'failed', 'unrecognized'))""")
        # read again and found the same bytes (touched, copied, or first seen by this version): its
        # new identity is recorded, so the next run leaves it unopened
        con.execute("""UPDATE tree_files AS t SET file_identity = i.file_identity FROM _tree_identities AS i
                       WHERE t.round = i.round AND t.path = i.path""")
        columns = ", ".join(FILE_ROW_SCHEMA)
        con.execute(f"""INSERT INTO tree_files ({columns}) SELECT {columns} FROM _tree_files AS f
                        WHERE NOT EXISTS (SELECT 1 FROM tree_files AS t
                                          WHERE t.round = f.round AND {slot.format('t')} = {slot.format('f')})""")
    return _outcome(outcomes)


def _outcome(outcomes: list[FileOutcome]) -> TreeOutcome:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    said = {o.file.location: f"{o.file.location}: {o.status}: {'; '.join(o.reasons)}"
            for o in outcomes if o.status in ("quarantined", "failed")}
    failed = {o.file.location for o in outcomes if o.status == "failed"}
    return TreeOutcome(counts, list(said.values()), rounds=sorted({o.file.round for o in outcomes}, key=round_sort_key),
                       failures=[line for location, line in said.items() if location in failed])


KEPT = "the row loaded from its earlier file is kept"


def _rows_kept(con, quarantined: list[FileOutcome]) -> set[tuple[str, str]]:
    """(round, key) of the quarantined files whose run folder or system already has a row: it stays."""
    kept = set()
    for name, kind in KINDS.items():
        keys = [[o.file.round, o.file.key] for o in quarantined if o.file.kind == name]
        if keys:
            kept |= set(con.execute(f"SELECT round, {kind.key} FROM {kind.table} "
                                    f"WHERE list_contains(?, [round, {kind.key}])", [keys]).fetchall())
    return kept


FILE_ROW_SCHEMA = {
    "round": pl.String, "path": pl.String, "kind": pl.String, "url": pl.String, "status": pl.String,
    "sha256": pl.String, "bytes": pl.Int64, "etag": pl.String, "last_modified": pl.String,
    "fetched_at": pl.Datetime("us", "UTC"), "loaded_at": pl.Datetime("us", "UTC"), "message": pl.String,
    "run_path": pl.String, "files_held": pl.List(pl.String), "file_identity": pl.String,
}
QUARANTINE_SCHEMA = {"round": pl.String, "source_id": pl.String, "record_no": pl.Int64,
                     "raw_record": pl.String, "reasons": pl.List(pl.String)}


def _file_row(o: FileOutcome, now: datetime) -> dict:
    f = o.fetched
    return {"round": o.file.round, "path": o.file.path, "kind": o.file.kind, "url": o.file.location,
            "status": o.status, "sha256": f.sha256 if f else None, "bytes": f.size if f else None,
            "etag": f.etag if f else None, "last_modified": f.last_modified if f else None,
            "fetched_at": f.fetched_at if f else now, "loaded_at": now,
            "message": "; ".join(o.reasons) or None, "run_path": o.file.run_path, "files_held": o.files_held,
            "file_identity": f.identity if f else None}


def _quarantine_row(o: FileOutcome) -> dict:
    raw = json.dumps({"path": o.file.path, "url": o.file.location, "text": o.raw_text}, ensure_ascii=False)
    return {"round": o.file.round, "source_id": o.file.source_id, "record_no": 0, "raw_record": raw,
            "reasons": [reason for reason in o.reasons if reason != KEPT]}


# ---------------------------------------------------------------------------------------------
# a run that already holds the warehouse (the watch, after loading new rounds' tables)


def read_trees_here(con, rounds: list[Round], source: str, settings: FetchSettings, workers: int = 2) -> list[str]:
    """The tree ingest of these rounds (only theirs) on the run's own connection, its chunks on a
    thread pool: one line per round for the run report. A round whose tree the source does not hold
    (a directory laid out with its table alone; a URL that has none of a sample of its files, one
    chunk spread over the round) is said so and nothing of it is recorded, so a watch over a mirror
    of tables asks a server for one chunk, not every file; the table stays loaded either way, and a file that failed is
    its round's line, never the run's failure."""
    from concurrent.futures import ThreadPoolExecutor

    from warehouse.trees.fetching import fetch_chunk
    lines = []
    for round in rounds:
        no_tree = f"{round.name}: no submission tree at {redact(source)}; its run summaries are not read " \
                  "(mlperf-wh trees --source DIR_OR_URL reads them from elsewhere)"
        if not is_http(source) and not holds_a_tree(tree_root(source, round)):
            lines.append(no_tree)
            continue
        files, _ = plan(con, [round], source)
        sample = files[::max(1, -(-len(files) // DEFAULT_CHUNK))] if is_http(source) else []  # at most a chunk
        outcomes = fetch_chunk(sample, settings)
        if sample and all(o.status == "missing" for o in outcomes):
            lines.append(no_tree)
            continue
        sampled = {id(file) for file in sample}
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            outcomes += [o for chunk in pool.map(lambda c: fetch_chunk(c, settings),
                                                 chunks([f for f in files if id(f) not in sampled])) for o in chunk]
        lines.append(tree_line(round.name, load(con, check(outcomes))))
    return lines


def tree_line(round_name: str, outcome: TreeOutcome) -> str:
    counts = ", ".join(f"{n:,} {status}" for status, n in sorted(outcome.counts.items()))
    failed = f"; {len(outcome.failures)} failed: {outcome.failures[0]}" if outcome.failures else ""
    return f"{round_name}: {outcome.files:,} submission-tree files asked for: {counts or 'none'}{failed}"
