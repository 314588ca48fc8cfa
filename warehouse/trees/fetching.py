"""Fetch + parse one chunk of a tree ingest's files: the part that runs wherever the chunks run (a
thread here, or a Dask worker), so it imports only what fetching and parsing need: a fresh Dask
worker imported loading's polars, Pandera and DuckDB in 2-3 s on its first chunk, these in
0.3-0.7 s. Pure apart from the fetch; nothing is written anywhere.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Callable, NamedTuple

import requests

from schemas.endpoints import HEAD_BYTES
from warehouse.errors import one_line
from warehouse.trees.parsing_endpoints import parse_client_results, parse_report, parse_result_summary
from warehouse.ingest.fetch import Fetched, FetchError, FetchSettings, NotFound, Previous, fetch, is_http, is_transient
from warehouse.ingest.source_urls import local_path
from warehouse.trees.listing import LINK_NOTE, WALKED_AT_MOST, walk_tree_folder
from warehouse.trees.reading import RefusedTreeFile, file_identity, read_tree_file, settled
from warehouse.trees.parsing import SUMMARY_FILE, UnparsableFile, parse_summary, parse_system
from warehouse.inputs import INT64


class Parser(NamedTuple):
    parse: Callable[[bytes, str], dict]
    key: str                       # the key column of the kind's table, besides round


PARSERS = {"summary": Parser(parse_summary, "run_path"), "system": Parser(parse_system, "system_path")}
# A run folder's files, by name: LoadGen's summary, or the endpoint harness's (schemas/endpoints.py).
SUMMARY_PARSERS: dict[str, Callable[[bytes, str], dict]] = {
    SUMMARY_FILE: parse_summary, "result_summary.json": parse_result_summary,
    "results.json": parse_client_results, "report.txt": parse_report,
}
LISTED_AT_MOST = 20  # names of an unrecognized folder's files kept


@dataclass(frozen=True)
class TreeFile:
    """One file to fetch: its round, path in the round repository, kind, where, and what the
    warehouse saw last time (for conditional requests). A run folder (kind summary) may hold its
    summary in one of several files: `path`/`location` is the first looked for (LoadGen's),
    `alternatives` the others in order; `folder` is its scenario folder, listed when none is found
    and the source is a directory."""
    round: str
    path: str
    kind: str                      # summary | system
    location: str
    previous: Previous | None = None
    previous_path: str | None = None   # the file `previous` is of (a run folder's may be any of its files)
    run_path: str | None = None        # summary: the run folder (the table's key)
    alternatives: tuple[tuple[str, str], ...] = ()   # summary: (path, location) looked for next
    folder: str | None = None          # summary: the scenario folder's location
    root: str | None = None            # the round's tree root, `path` is relative to (planning.tree_root)

    @property
    def key(self) -> str:
        """The run folder of a summary, the file path of a system: the table's key."""
        return self.run_path if self.kind == "summary" else self.path

    @property
    def source_id(self) -> str:
        """How a quarantined file is named in the quarantine table."""
        return f"tree/{self.round}/{self.path}"

    def candidates(self) -> list["TreeFile"]:
        """This file and each alternative, each with the validators of the last load when it was that file."""
        return [replace(self, path=path, location=location, alternatives=(),
                        previous=self.previous if path == self.previous_path else None)
                for path, location in ((self.path, self.location), *self.alternatives)]


@dataclass
class FileOutcome:
    file: TreeFile                 # the file read (for a run folder, the first of its files found)
    status: str                    # parsed (until validated) | loaded | unchanged | quarantined | missing | failed | unrecognized
    fetched: Fetched | None = None
    reasons: list[str] = field(default_factory=list)
    raw_text: str | None = None
    record: dict | None = None     # the parsed row, until it is validated
    files_held: list[str] | None = None   # unrecognized: what the run's folder holds


def fetch_with_retries(file: TreeFile, settings: FetchSettings, session: requests.Session,
                       force: bool = False) -> Fetched:
    """warehouse.ingest.fetch.fetch, retried on transient errors with the settings' backoff (a chunk's
    files are retried one by one, not the chunk). A loop, not tenacity or urllib3's Retry: the
    same delays and is_transient test as the round flow's Prefect task retries, so a 4xx or a
    size cap is never retried."""
    name = file.path.rsplit("/", 1)[-1]
    keep = HEAD_BYTES.get(name) if file.kind == "summary" else None
    if not is_http(file.location):  # a directory: read only through the one check of trees/reading.py
        if file.root is None:
            raise ValueError(f"{file.location}: a tree file on a directory needs its tree root")
        return _read_unless_unchanged(file, name, settings, keep, force)
    delays = settings.retry_delays()
    for attempt in range(len(delays) + 1):
        try:
            return fetch(file.location, name, settings, None if force else file.previous, session, keep=keep)
        except FetchError as exc:
            if not is_transient(exc) or attempt == len(delays):
                raise
            time.sleep(delays[attempt])
    raise AssertionError("unreachable")


def _read_unless_unchanged(file: TreeFile, name: str, settings: FetchSettings, keep: int | None,
                           force: bool) -> Fetched:
    """A directory's file: not opened when its size, mtime, inode and change time are those of the
    last load (not_modified, as an HTTP 304); else read through tree_files' one check, its identity
    kept."""
    root = local_path(file.root)
    identity = file_identity(root, file.path)
    if not force and (same := not_modified(file, identity)) is not None:
        return same
    fetched = Fetched.of(file.location, name, read_tree_file(root, file.path, settings.max_bytes, keep))
    fetched.identity = identity if settled(identity) else None
    return fetched


def not_modified(file: TreeFile, identity: str | None) -> Fetched | None:
    """The last load's file, not opened (as an HTTP 304), when its size, mtime, inode and change time
    are that load's; else None."""
    if identity is None or file.previous is None or file.previous.identity != identity:
        return None
    return Fetched(file.location, file.path.rsplit("/", 1)[-1], None, file.previous.sha256, 0, not_modified=True,
                   identity=identity)


def split_unchanged(files: list[TreeFile]) -> tuple[list[FileOutcome], list[TreeFile]]:
    """(the outcomes of the files of a directory whose identity is the last load's: unchanged,
    nothing opened; the files to fetch). A stat each, in this thread: a rerun over unchanged trees
    hands no chunk to a thread pool or a cluster."""
    unchanged, to_fetch, roots = [], [], {}
    for file in files:
        if file.root is None or file.previous is None or file.previous_path != file.path or is_http(file.root):
            to_fetch.append(file)
            continue
        root = roots.get(file.root) or roots.setdefault(file.root, local_path(file.root))
        same = not_modified(file, file_identity(root, file.path))
        if same is not None:
            unchanged.append(FileOutcome(file, "unchanged", same))
        else:
            to_fetch.append(file)
    return unchanged, to_fetch


def fetch_chunk(files: list[TreeFile], settings: FetchSettings, force: bool = False) -> list[FileOutcome]:
    """Fetch and parse every file of the chunk, one after another; nothing is written anywhere."""
    with _session_for(files) as session:
        return [_fetch_one(file, settings, session, force) for file in files]


def _session_for(files: list[TreeFile]) -> requests.Session:
    """One keep-alive session per chunk. Its files share one host, so the proxy and CA settings
    of the environment are resolved once for the chunk, not on every request (requests does that
    per request by default, reading the whole environment each time)."""
    session = requests.Session()
    if files and is_http(files[0].location):
        settings = session.merge_environment_settings(files[0].location, {}, None, None, None)
        session.trust_env = False
        session.proxies, session.verify = settings["proxies"], settings["verify"]
    return session


def _fetch_one(file: TreeFile, settings: FetchSettings, session, force: bool) -> FileOutcome:
    """The file, or for a run folder the first of its files found; when none is, what the folder
    holds (a directory source only: a URL cannot be listed)."""
    tried = []
    for candidate in file.candidates():
        try:
            fetched = fetch_with_retries(candidate, settings, session, force)
        except NotFound as exc:
            tried.append(str(exc))
            continue
        except RefusedTreeFile as exc:  # its content is never read: quarantined with no text
            return FileOutcome(candidate, "quarantined", reasons=[str(exc)])
        except FetchError as exc:
            return FileOutcome(candidate, "failed", reasons=[str(exc)])
        return _parsed(candidate, fetched, force)
    held = _files_held(file)
    if held:
        return FileOutcome(file, "unrecognized", files_held=held, reasons=[
            f"holds none of the files a run summary is read from ({', '.join(SUMMARY_PARSERS)}): "
            + ", ".join(held)])
    return FileOutcome(file, "missing", reasons=["; ".join(tried)])


def _parsed(file: TreeFile, fetched: Fetched, force: bool) -> FileOutcome:
    content, fetched.content = fetched.content, None  # the parsed row (or text) travels on, not bytes
    if not force and fetched.unchanged_since(file.previous):
        return FileOutcome(file, "unchanged", fetched)
    parse = SUMMARY_PARSERS[file.path.rsplit("/", 1)[-1]] if file.kind == "summary" else PARSERS[file.kind].parse
    try:
        record = parse(content, file.location)
    except UnparsableFile as exc:
        return FileOutcome(file, "quarantined", fetched, exc.reasons, _text_of(content))
    except UNREADABLE as exc:  # one file past a bound (nesting, a number's size) is quarantined, not the round
        return FileOutcome(file, "quarantined", fetched, [f"cannot be read: {one_line(exc)[:300]}"], _text_of(content))
    return parsed_outcome(file, fetched, record, content)


def parsed_outcome(file: TreeFile, fetched: Fetched, record: dict, content: bytes) -> FileOutcome:
    """The outcome of a file read and parsed (here, or by the rebuild's one pass over its tree): its
    row, until validated; quarantined when a number is past its column's bound."""
    if beyond := out_of_bounds(record):
        return FileOutcome(file, "quarantined", fetched, beyond, _text_of(content))
    if file.kind == "summary":
        record["summary_path"] = file.path
    return FileOutcome(file, "parsed", fetched, raw_text=_text_of(content),
                       record={"round": file.round, PARSERS[file.kind].key: file.key, "sha256": fetched.sha256,
                               **record})


def _files_held(file: TreeFile) -> list[str]:
    """What a run's scenario folder holds on a directory source, relative to it, sorted, at most
    LISTED_AT_MOST (then how many more); [] when it is a URL, absent or empty. Listed as the tree's
    files are read (reading.walk_tree_folder): a link is named as itself, never followed."""
    if file.folder is None or file.root is None or is_http(file.folder) or not file.folder.startswith(f"{file.root}/"):
        return []
    try:
        files, links, complete = walk_tree_folder(local_path(file.root), file.folder.removeprefix(f"{file.root}/"))
    except FetchError:
        return []
    names = sorted(files + [f"{link} ({LINK_NOTE})" for link in links])
    if len(names) > LISTED_AT_MOST:
        names = names[:LISTED_AT_MOST] + [f"... and {len(names) - LISTED_AT_MOST} more"]
    return names if complete else names + [f"... (listed no further than {WALKED_AT_MOST} entries)"]


# What a parser raises on a file past a bound: an integer too long for Python to read, nesting
# deeper than its recursion limit, a shape the parser never meets in real files.
UNREADABLE = (ValueError, RecursionError, TypeError, OverflowError)


UINT64 = range(0, 2**64)


def out_of_bounds(record: dict) -> list[str]:
    """Every integer of a parsed row must fit its 64-bit column (LoadGen's seeds are unsigned:
    warehouse/store/tree_tables.py) and every float be finite (the parsers refuse NaN, Infinity and
    1e999999 where they read them; this is the last word for every parser alike): one that does
    not is its file's reason to be quarantined (else the whole round's rows would fail to load)."""
    beyond, not_finite = [], []
    for name, value in record.items():  # type() is, not isinstance: a row has ~100 fields, a round 5,000 rows
        kind = type(value)
        if kind is int and value not in (UINT64 if name.endswith("_rng_seed") else INT64):
            beyond.append(f"{name}: {_digits(value)} is beyond the bound of 64-bit integers")
        elif kind is float and not math.isfinite(value):
            not_finite.append(f"{name}: {value} is not a finite number")
    return beyond + not_finite


def _digits(value: int) -> str:
    if value.bit_length() < 80:
        return str(value)
    return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"  # str() of a huge one is refused


def _text_of(content: bytes) -> str:
    return content.decode("utf-8", errors="replace")
DEFAULT_CHUNK = 64


def chunks(files: list[TreeFile], size: int = DEFAULT_CHUNK) -> list[list[TreeFile]]:
    return [files[i:i + size] for i in range(0, len(files), max(1, size))]


