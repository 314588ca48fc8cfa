"""The tree pipeline's one entry point: every round asked for, read from its tree at the source.
A round MLCommons published no table of is rebuilt (its result rows) from its tree; the run summaries
and system descriptions behind every loaded row are loaded; the flow (flows/trees.py) and the watch
(flows/run_rounds.py) call this, and schedule only the fetch of a table round's files."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping

from warehouse import collector, counts
from warehouse.identity.rounds import Round
from warehouse.ingest.fetch import Fetched, FetchSettings, is_http
from warehouse.ingest.source_urls import local_path, redact
from warehouse.store import db
from warehouse.trees.fetching import (DEFAULT_CHUNK, FileOutcome, TreeFile, chunks, fetch_chunk, not_modified,
                                       parsed_outcome, split_unchanged)
from warehouse.trees.loading import (TreeOutcome, check, frames_together, load, load_round, power_frames_together,
                                     power_source_id, source_id, tree_line)
from warehouse.trees.planning import holds_a_tree, plan, planned, previous_loads, tree_root
from warehouse.trees.reading import identities_now, settled
from warehouse.trees.rebuilding import Known, Rebuilt, known_rows, tree_digest, trusted

if TYPE_CHECKING:
    from warehouse.trees.cloning import ClonedTree


def read_trees(rounds: list[Round], source: str, db_file: str, *, workers: int = 2, dask_address: str | None = None,
               clones: Mapping[str, ClonedTree] | None = None, force: bool = False,
               fetch: Callable[[list[TreeFile]], list[FileOutcome]] | None = None) -> TreeOutcome:
    """The tree pipeline for these rounds, under the caller's writer lock: each round MLCommons
    published no table of rebuilt from its tree in one pass (rebuild_rounds; from its clone when
    `clones` holds one, cloned before the lock was taken: trees/cloning.py); then, for the rounds
    with a table, the run summaries and system descriptions their loaded rows name, fetched (`fetch`:
    the flow's tasks, or a thread pool here) unless unchanged, validated together and loaded in one
    transaction."""
    with collector.held_off():
        rebuilt = rebuild_rounds(rounds, source, db_file, workers, dask_address, clones, force)
    outcome, unnamed = TreeOutcome({}, [c.note for c in (clones or {}).values() if c.note]), 0
    if with_table := [r for r in rounds if r.has_table]:  # a run of old rounds alone opens nothing more
        with db.connect(db_file) as con:
            files, unnamed = plan(con, with_table, source)
        unchanged, to_fetch = ([], files) if force else split_unchanged(files)
        fetched = (fetch or (lambda f: fetch_here(f, workers, force)))(to_fetch) if to_fetch else []
        if files:
            with db.connect(db_file) as con:
                outcome = load(con, check(unchanged + fetched))
    for round in rebuilt:
        if round.outcome is not None:
            outcome.add(round.outcome)
    outcome.rebuilt, outcome.unnamed = rebuilt, unnamed
    return outcome


def fetch_here(files: list[TreeFile], workers: int = 2, force: bool = False,
               settings: FetchSettings | None = None) -> list[FileOutcome]:
    """Fetch and parse the files in chunks on a thread pool of `workers`."""
    from concurrent.futures import ThreadPoolExecutor
    settings = settings or FetchSettings.from_env()
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return [o for chunk in pool.map(lambda c: fetch_chunk(c, settings, force), chunks(files)) for o in chunk]


def read_trees_here(con, rounds: list[Round], source: str, settings: FetchSettings, workers: int = 2) -> list[str]:
    """The tree ingest of these rounds (only theirs) on the run's own connection, its chunks on a
    thread pool: one line per round for the run report. A round whose tree the source does not hold
    (a directory laid out with its table alone; a URL that has none of a sample of its files, one
    chunk spread over the round) is said so and nothing of it is recorded, so a watch over a mirror
    of tables asks a server for one chunk, not every file; the table stays loaded either way, and a file that failed is
    its round's line, never the run's failure."""
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
        outcomes += fetch_here([f for f in files if id(f) not in sampled], workers, settings=settings)
        lines.append(tree_line(round.name, load(con, check(outcomes))))
    return lines


@dataclass
class RoundRebuilt:
    """One round rebuilt from its tree and loaded, or why not (`missing`: no tree of it at the source)."""
    round: str
    root: str
    rows: int = 0
    quarantined: int = 0
    files: int = 0
    missing: str | None = None
    unchanged: bool = False    # every file as at the last rebuild: nothing written
    walked: bool = True        # listed again (not when a stat of every folder and file found them as they were)
    opened: int = 0            # files opened and read (a file the last rebuild read as it is now is not)
    outcome: TreeOutcome | None = None   # its run summaries and system descriptions loaded
    read: "RoundRead | None" = None      # read and not loaded yet (load_rounds)
    power: int = 0                       # measured power figures loaded (power_readings)
    power_quarantined: int = 0           # power runs whose figure is quarantined

    def line(self) -> str:
        if self.missing:
            return f"{self.round}: {self.missing}"
        if self.unchanged and not self.walked:
            return (f"{self.round}: unchanged since its last rebuild: {self.files} files of its submission tree "
                    f"({self.root}) and its folders stat'ed as they were, none listed again or read; its {self.rows} "
                    f"result rows and {self.quarantined} quarantined kept")
        if self.unchanged:
            return (f"{self.round}: unchanged since its last rebuild: {self.files} files of its submission tree "
                    f"({self.root}) listed, {self.opened or 'none'} read; its {self.rows} result rows and "
                    f"{self.quarantined} quarantined kept")
        known = self.files - self.opened
        read = f"{self.opened} read" + (f", {known} as the last rebuild read them" if known else "")
        power = (f"; {self.power} measured power figures, {self.power_quarantined} quarantined (source_id "
                 f"{power_source_id(self.round)})") if self.power or self.power_quarantined else ""
        return (f"{self.round}: {self.rows} result rows rebuilt from {self.files} files of its submission tree "
                f"({self.root}; {read}); {self.quarantined} quarantined (source_id {source_id(self.round)}){power}")


def rebuild_rounds(rounds, source: str, db_file: str, workers: int = 2, dask_address: str | None = None,
                   clones: Mapping[str, ClonedTree] | None = None, force: bool = False) -> list[RoundRebuilt]:
    """Every round asked for that MLCommons published no table of: its tree, its clone in `clones`
    (trees/cloning.py: made before this, outside the writer lock) or else found at the source (a
    directory laid out as the trees are), read in one pass (read_round); the rounds whose tree
    changed validated together and each loaded in place of its earlier rebuild in one transaction
    (load_rounds)."""
    from warehouse.identity.reference import load_reference
    done, to_rebuild = [], [r for r in rounds if not r.has_table]
    reference = load_reference() if to_rebuild else None
    with db.connect(db_file) as con:  # one connection reads what every round's last rebuild left
        for round in to_rebuild:
            counts.counted(len(done), len(to_rebuild), "rounds rebuilt")
            left_out: tuple[tuple[str, str], ...] = ()
            files_root = tree_root(source, round)
            if clones and round.name in clones:
                root, left_out = clones[round.name].root, clones[round.name].left_out
                files_root = str(root)
            else:
                root = local_path(files_root) if not is_http(source) else None
            if root is None or not holds_a_tree(str(root)):
                done.append(RoundRebuilt(round.name, str(root or source), missing=(
                    f"no submission tree at {root or source} (MLCommons published no table of this round: its rows "
                    "come from its tree; --git URL clones only the files needed, e.g. --git https://github.com/mlcommons)")))
                continue
            done.append(read_round(con, round.name, Path(root), files_root, left_out,
                                   reference=reference, workers=workers, dask_address=dask_address, force=force))
    load_rounds(db_file, [r for r in done if r.read is not None], force)
    return done


def read_round(con, round_name: str, root: Path, files_root: str, left_out=(), *, reference=None,
               workers: int = 2, dask_address: str | None = None, force: bool = False) -> RoundRebuilt:
    """One pass over a round's tree: each file listed and, unless the last rebuild read it as it is
    now (tree_reads: same size, mtime, inode and change time), read and parsed once; its result rows built. When
    every file, the rules and the version are as at the last rebuild (sources.tree_identity), the
    round is unchanged and nothing of it will be written. `files_root` names the tree in
    tree_files' URLs (as the source gave it)."""
    from warehouse.trees.rebuilding import built_rows, rebuild_tree, rules_for
    rules = rules_for(round_name, reference)
    last = _last_rebuild(con, round_name)
    if not force and last is not None and last[0] is not None and \
            (files := _unchanged_by_stat(con, round_name, root, rules, left_out, last[0])) is not None:
        return RoundRebuilt(round_name, str(root), last[1], last[2], files, unchanged=True, walked=False,
                            outcome=_unchanged_run_files(con, round_name))
    known = {} if force else known_reads(con, round_name)
    rebuilt = rebuild_tree(round_name, root, workers=workers, dask_address=dask_address, reference=reference,
                           known=known, build=False)
    identity = tree_digest(rules, rebuilt.strays, rebuilt.links, left_out, [(p.path, p.identity) for p in rebuilt.parsed])
    if last is not None and last[0] == identity and not force:
        return RoundRebuilt(round_name, str(root), last[1], last[2], rebuilt.files, unchanged=True, opened=rebuilt.opened,
                            outcome=_unchanged_run_files(con, round_name))
    rebuilt = built_rows(rebuilt, rules)
    rebuilt.quarantined.extend({"path": path, "text": "", "reasons": [why]} for path, why in left_out)
    settled_files = all(settled(p.identity) for p in rebuilt.parsed) and all(settled(i) for _, i in rebuilt.folders)
    return RoundRebuilt(round_name, str(root), files=rebuilt.files, opened=rebuilt.opened,
                        read=RoundRead(rebuilt, files_root, identity if settled_files else None))


@dataclass
class RoundRead:
    """A round read from its tree, to load: its rows and files, where its tree is named from, and the
    identity to record (None when a file changed within the last 2 s: the next run reads it again)."""
    rebuilt: Rebuilt
    files_root: str
    identity: str | None


def load_rounds(db_file: str, rounds: list[RoundRebuilt], force: bool = False) -> None:
    """The rounds read: every result row validated together, every run summary and system description
    behind a loaded row validated together; then each round in one transaction of its own."""
    if not rounds:
        return
    validated = frames_together([r.read.rebuilt for r in rounds])
    power = power_frames_together([r.read.rebuilt for r in rounds])
    with db.connect(db_file) as con:
        checked = check([o for r, (good, _) in zip(rounds, validated)
                         for o in _run_files(con, r.round, r.read.files_root, good, r.read.rebuilt, force)])
        for r, frames_of_round, power_of_round in zip(rounds, validated, power):
            loaded, r.outcome = load_round(con, r.read.rebuilt, frames_of_round, checked.of_round(r.round),
                                           known_rows(r.read.rebuilt), r.read.identity, power_of_round)
            r.rows, r.quarantined, r.read = loaded.rows_loaded, loaded.rows_quarantined, None
            r.power, r.power_quarantined = power_of_round[0].height, power_of_round[1].height


def _run_files(con, round_name: str, files_root: str, good, rebuilt, force: bool) -> list[FileOutcome]:
    """The run summaries and system descriptions of the round's loaded rows, as the tree ingest plans
    them (planning.planned), their outcomes from the rebuild's own reads: a file read now is parsed
    already; a file not opened is unchanged when the last load saw the same identity; else (a file
    the rebuild knew but the load never had) it is read the usual way."""
    locations = good.group_by("location").len().sort("location").iter_rows()
    files, _ = planned({round_name: files_root}, ((round_name, location, n) for location, n in locations),
                       previous_loads(con, [round_name]))
    by_path = {p.path: p for p in rebuilt.parsed}
    outcomes, settings, now = [], None, datetime.now(timezone.utc)
    for file in files:
        parsed = by_path.get(file.path)
        if parsed is not None and parsed.read and parsed.record is not None:
            outcomes.append(_outcome_of_read(file, parsed, force, now))
        elif parsed is not None and not parsed.read and not force and (same := not_modified(file, parsed.identity)):
            outcomes.append(FileOutcome(file, "unchanged", same))
        else:
            settings = settings or FetchSettings.from_env()
            outcomes += fetch_chunk([file], settings, force)
    return outcomes


def _outcome_of_read(file, parsed, force: bool, read_at: datetime) -> FileOutcome:
    fetched = Fetched(file.location, file.path.rsplit("/", 1)[-1], None, parsed.sha256, parsed.size,
                      identity=parsed.identity if settled(parsed.identity) else None, fetched_at=read_at)
    if not force and fetched.unchanged_since(file.previous):
        return FileOutcome(file, "unchanged", fetched)
    return parsed_outcome(file, fetched, dict(parsed.record), parsed.content)


def _unchanged_by_stat(con, round_name: str, root: Path, rules, left_out, last_identity: str) -> int | None:
    """The files of a round whose every folder and file the last pass recorded (tree_reads) is as it
    was, by a stat of each (a folder's mtime changes when a name in it is added, removed or renamed),
    and whose digest with today's rules and version is the last one: the walk would list the same
    tree, so it is not walked. None when anything differs, or the last pass left no folder recorded
    (a link, a stray folder or a file changed within 2 s keeps its round walked every run)."""
    recorded = con.execute("SELECT path, kind, file_identity FROM tree_reads WHERE round = ?", [round_name]).fetchall()
    if not any(kind == "folder" for _, kind, _ in recorded):
        return None
    now = identities_now(root, [(path, kind) for path, kind, _ in recorded])
    if any(found != identity for found, (_, _, identity) in zip(now, recorded)):
        return None
    files = [(path, identity) for path, kind, identity in recorded if kind == "file"]
    return len(files) if tree_digest(rules, [], [], left_out, files) == last_identity else None


def _unchanged_run_files(con, round_name: str) -> TreeOutcome:
    """A round whose tree is as at its last rebuild: its run files as that load left them, unchanged."""
    n = db.scalar(con, "SELECT count(*) FROM tree_files WHERE round = ? AND status IN ('loaded', 'quarantined')",
                  [round_name])
    return TreeOutcome({"unchanged": n} if n else {}, [], rounds=[round_name])


def known_reads(con, round_name: str) -> dict[str, Known]:
    """What the last rebuild of the round read of each file (tree_reads), each row as it was written
    (rebuilding.trusted: a row edited past its bounds is not used, its file is read again)."""
    rows = con.execute("SELECT path, file_identity, sha256, fields, reasons, text FROM tree_reads "
                       "WHERE round = ? AND kind = 'file'", [round_name]).fetchall()
    known = {path: trusted(*row) for path, *row in rows}
    return {path: k for path, k in known.items() if k is not None}


def _last_rebuild(con, round_name: str) -> tuple | None:
    """(tree_identity, rows loaded, rows quarantined) of the round's last rebuild."""
    return db.first_row(con, "SELECT tree_identity, rows_loaded, rows_quarantined FROM sources WHERE source_id = ?",
                        [source_id(round_name)])
