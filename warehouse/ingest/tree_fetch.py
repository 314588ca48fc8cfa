"""Fetch + parse one chunk of a tree ingest's files: the part that runs wherever the chunks run (a
thread here, or a Dask worker), so it imports only what fetching and parsing need: a fresh Dask
worker imported tree_ingest's polars, Pandera and DuckDB in 2-3 s on its first chunk, these in
0.3-0.7 s. Pure apart from the fetch; nothing is written anywhere.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

import requests

from warehouse.ingest.fetch import Fetched, FetchError, FetchSettings, NotFound, Previous, fetch, is_http, is_transient
from warehouse.errors import one_line
from warehouse.ingest.trees import SUMMARY_FILE, UnparsableFile, parse_summary, parse_system
from warehouse.inputs import INT64


class Parser(NamedTuple):
    parse: Callable[[bytes, str], dict]
    key: str                       # the key column of the kind's table, besides round


PARSERS = {"summary": Parser(parse_summary, "run_path"), "system": Parser(parse_system, "system_path")}


@dataclass(frozen=True)
class TreeFile:
    """One file to fetch: its round, path in the round repository, kind, where, and what the
    warehouse saw last time (for conditional requests)."""
    round: str
    path: str
    kind: str                      # summary | system
    location: str
    previous: Previous | None = None

    @property
    def key(self) -> str:
        """The run folder of a summary, the file path of a system: the table's key."""
        return self.path.removesuffix(f"/{SUMMARY_FILE}") if self.kind == "summary" else self.path

    @property
    def source_id(self) -> str:
        """How a quarantined file is named in the quarantine table."""
        return f"tree/{self.round}/{self.path}"


@dataclass
class FileOutcome:
    file: TreeFile
    status: str                    # parsed (until validated) | loaded | unchanged | quarantined | missing | failed
    fetched: Fetched | None = None
    reasons: list[str] = field(default_factory=list)
    raw_text: str | None = None
    record: dict | None = None     # the parsed row, until it is validated


def fetch_with_retries(file: TreeFile, settings: FetchSettings, session: requests.Session,
                       force: bool = False) -> Fetched:
    """warehouse.ingest.fetch.fetch, retried on transient errors with the settings' backoff (a chunk's
    files are retried one by one, not the chunk). A loop, not tenacity or urllib3's Retry: the
    same delays and is_transient test as the round flow's Prefect task retries, so a 4xx or a
    size cap is never retried."""
    delays = settings.retry_delays()
    for attempt in range(len(delays) + 1):
        try:
            return fetch(file.location, file.path.rsplit("/", 1)[-1], settings,
                         None if force else file.previous, session)
        except FetchError as exc:
            if not is_transient(exc) or attempt == len(delays):
                raise
            time.sleep(delays[attempt])
    raise AssertionError("unreachable")


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
    try:
        fetched = fetch_with_retries(file, settings, session, force)
    except NotFound as exc:
        return FileOutcome(file, "missing", reasons=[str(exc)])
    except FetchError as exc:
        return FileOutcome(file, "failed", reasons=[str(exc)])
    content, fetched.content = fetched.content, None  # the parsed row (or text) travels on, not bytes
    if not force and fetched.unchanged_since(file.previous):
        return FileOutcome(file, "unchanged", fetched)
    parser = PARSERS[file.kind]
    try:
        record = parser.parse(content, file.location)
    except UnparsableFile as exc:
        return FileOutcome(file, "quarantined", fetched, exc.reasons, _text_of(content))
    except UNREADABLE as exc:  # one file past a bound (nesting, a number's size) is quarantined, not the round
        return FileOutcome(file, "quarantined", fetched, [f"cannot be read: {one_line(exc)[:300]}"], _text_of(content))
    if beyond := out_of_bounds(record):
        return FileOutcome(file, "quarantined", fetched, beyond, _text_of(content))
    return FileOutcome(file, "parsed", fetched, raw_text=_text_of(content),
                       record={"round": file.round, parser.key: file.key, "sha256": fetched.sha256, **record})


# What a parser raises on a file past a bound: an integer too long for Python to read, nesting
# deeper than its recursion limit, a shape the parser never meets in real files.
UNREADABLE = (ValueError, RecursionError, TypeError, OverflowError)


UINT64 = range(0, 2**64)


def out_of_bounds(record: dict) -> list[str]:
    """Every integer of a parsed row must fit its 64-bit column (LoadGen's seeds are unsigned:
    warehouse/store/tree_tables.py): one that does not is its file's reason to be quarantined (else
    the whole round's rows would fail to load)."""
    return [f"{name}: {_digits(value)} is beyond the bound of 64-bit integers" for name, value in record.items()
            if isinstance(value, int) and not isinstance(value, bool)
            and value not in (UINT64 if name.endswith("_rng_seed") else INT64)]


def _digits(value: int) -> str:
    if value.bit_length() < 80:
        return str(value)
    return f"an integer of about {int(value.bit_length() * 0.30103) + 1} digits"  # str() of a huge one is refused


def _text_of(content: bytes) -> str:
    return content.decode("utf-8", errors="replace")
