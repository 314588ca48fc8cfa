"""Planning a tree ingest: where a round's tree is at the source (`tree_root`), which of its files the
loaded result rows name, with what the warehouse saw of each last time (`plan`), in chunks; and the
first checks of a run: the source holds a tree of a round asked for, or answers at all."""
from __future__ import annotations

from warehouse.errors import ExpectedFailure
from warehouse.identity.rounds import Round
from warehouse.ingest.fetch import FetchError, FetchSettings, Previous, cannot_connect, is_http
from warehouse.ingest.source_urls import local_path, redact
from warehouse.store import db
from warehouse.trees.fetching import TreeFile, fetch_with_retries
from warehouse.trees.loading import TreeOutcome
from warehouse.trees.parsing import run_folder




DIVISIONS = ("closed", "open", "network")  # the top folders of a round's submission tree


class NoTrees(ExpectedFailure):
    """No round asked for has any submission tree at the source."""


class TreeSourceUnreachable(ExpectedFailure):
    """The source of the trees cannot be reached at all (the host does not resolve or answer)."""


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
    roots = {r.name: tree_root(source, r) for r in rounds}
    locations = db.query_frame(
        con, "SELECT round, location, count(*) AS rows FROM results WHERE list_contains(?, round) "
             "AND metric = 'performance' GROUP BY ALL ORDER BY ALL", [list(roots)])
    return planned(roots, locations.iter_rows(), previous_loads(con, list(roots)))


def planned(roots: dict[str, str], locations, previous: dict[tuple[str, str], tuple]) -> tuple[list[TreeFile], int]:
    """The files of these (round, location, rows) at the rounds' tree roots: each run folder's summary
    (with the other files that can summarize it) and each system description, once; and how many rows
    name no usable run folder."""
    files: dict[tuple[str, str], TreeFile] = {}
    unnamed = 0
    for round_name, location, rows in locations:
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


def previous_loads(con, rounds: list[str]) -> dict[tuple[str, str], tuple]:
    """(round, run folder or system file) -> (path, sha256, etag, last_modified, url, file_identity) of its
    last load, for these rounds."""
    rows = con.execute("SELECT round, coalesce(run_path, path), path, sha256, etag, last_modified, url, file_identity "
                       "FROM tree_files WHERE status IN ('loaded', 'quarantined') AND list_contains(?, round)",
                       [rounds]).fetchall()
    return {(r, key): rest for r, key, *rest in rows}


def _previous_fetch(found: tuple | None, url: str) -> Previous | None:
    """What the last load saw; validators (ETag, Last-Modified) only count for the same URL."""
    if found is None:
        return None
    sha256, etag, last_modified, previous_url, identity = found
    same_place = previous_url == url
    return Previous(sha256, etag if same_place else None, last_modified if same_place else None,
                    identity if same_place else None)




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


