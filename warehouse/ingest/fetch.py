"""Fetch one result file over HTTP (requests) or from a local directory with the same layout.

One call is one attempt: retries are declared on the Prefect task (flows/ingest.py), which retries
only the errors that `is_transient` accepts (connection errors, timeouts, 5xx), never a 4xx.
"""
from __future__ import annotations

import os
import socket
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from warehouse.errors import ExpectedFailure
from warehouse.ingest.source_urls import carries_secret, local_path, redact, redirect_allowed
from warehouse.resources import checksum
from warehouse.settings import current as current_settings
from warehouse.settings import default

if TYPE_CHECKING:
    import requests


@dataclass(frozen=True)
class FetchSettings:
    """How files are fetched; the defaults and meanings are warehouse.settings' MLPERF_FETCH_*."""
    connect_timeout: float = default("fetch_connect_timeout")
    read_timeout: float = default("fetch_read_timeout")
    max_bytes: int = default("fetch_max_bytes")
    retries: int = default("fetch_retries")
    backoff_seconds: float = default("fetch_backoff")
    deadline: float = default("fetch_deadline")
    redirect_hosts: tuple[str, ...] = default("redirect_hosts")

    @classmethod
    def from_env(cls) -> "FetchSettings":
        env = current_settings()
        return cls(connect_timeout=env.fetch_connect_timeout, read_timeout=env.fetch_read_timeout,
                   max_bytes=env.fetch_max_bytes, retries=env.fetch_retries, backoff_seconds=env.fetch_backoff,
                   deadline=env.fetch_deadline, redirect_hosts=env.redirect_hosts)

    def retry_delays(self) -> list[float]:
        """Exponential backoff: base, 2*base, 4*base, ..."""
        return [self.backoff_seconds * 2**i for i in range(self.retries)]


class FetchError(ExpectedFailure):
    """A file could not be fetched; the message names the location."""


class NotFound(FetchError):
    pass


class TransientFetchError(FetchError):
    """Worth another try: connection error, timeout, HTTP 5xx."""


class ConnectionFailed(TransientFetchError):
    """Nothing answered at the source's address (refused, reset): retried, then reported as such."""


class SourceUnreachable(FetchError):
    """The source host cannot be resolved: no point retrying."""


class SourceCannotBeReached(ExpectedFailure):
    """Before any round is fetched: the source's host does not resolve or nothing listens there."""


REACH_HINT = ("point MLPERF_SOURCE (or --source) at a mirror or a local directory laid out as "
              "inference_results_vX.Y/main/summary_results.json, e.g. MLPERF_SOURCE=../shared/mlcommons/mirror make run")


def check_reachable(source: str, settings: FetchSettings) -> None:
    """An http(s) source whose host does not resolve, or refuses the connection, fails now, in one
    line saying what to do, instead of after every round's retries. Behind a proxy (HTTP(S)_PROXY)
    the proxy reaches the host, so nothing is checked here."""
    parts = urlsplit(source)
    if parts.scheme not in ("http", "https") or not parts.hostname or _proxied(parts.scheme):
        return
    port = parts.port or (443 if parts.scheme == "https" else 80)
    shown = redact(source)
    try:
        socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise SourceCannotBeReached(f"the source {shown} cannot be reached from this machine (cannot resolve "
                                    f"the host {parts.hostname}: {exc}); {REACH_HINT}") from None
    try:  # every address the host resolves to, in turn, as requests does (IPv6 first, then IPv4...)
        socket.create_connection((parts.hostname, port), timeout=settings.connect_timeout).close()
    except OSError as exc:
        raise SourceCannotBeReached(f"the source {shown} cannot be reached from this machine (connecting to "
                                    f"{parts.hostname}:{port}: {exc.strerror or exc}); {REACH_HINT}") from None


def _proxied(scheme: str) -> bool:
    return any(os.environ.get(name) for name in (f"{scheme}_proxy", f"{scheme.upper()}_PROXY", "all_proxy", "ALL_PROXY"))


def cannot_connect(exc: BaseException) -> bool:
    """True when the source itself could not be reached (as opposed to a bad answer from it)."""
    return isinstance(exc, (SourceUnreachable, ConnectionFailed))


class TooLarge(FetchError):
    pass


class DeadlineExceeded(FetchError):
    """The whole fetch took longer than MLPERF_FETCH_DEADLINE (a slow-drip server): not retried."""


class RedirectRefused(FetchError):
    pass

MAX_REDIRECTS = 5


def is_transient(exc: BaseException) -> bool:
    return isinstance(exc, TransientFetchError)


@dataclass(frozen=True)
class Previous:
    """What the warehouse knows of the last load of this location, to skip unchanged files."""
    sha256: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    identity: str | None = None    # a tree file's size, mtime, inode and change time at the last load (reading.file_identity)


@dataclass
class Fetched:
    location: str
    file_name: str
    content: bytes | None
    sha256: str | None
    size: int
    etag: str | None = None
    last_modified: str | None = None
    not_modified: bool = False
    identity: str | None = None    # a tree file read from a directory: reading.file_identity
    fetched_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    @classmethod
    def of(cls, location: str, file_name: str, content: bytes, etag: str | None = None,
           last_modified: str | None = None) -> "Fetched":
        """The bytes of a file, with their checksum and size."""
        return cls(location, file_name, content, checksum(content), len(content),
                   etag, last_modified)

    def unchanged_since(self, previous: Previous | None) -> bool:
        if self.not_modified:
            return True
        return previous is not None and previous.sha256 is not None and previous.sha256 == self.sha256


def is_http(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def fetch(location: str, file_name: str, settings: FetchSettings,
          previous: Previous | None = None, session: requests.Session | None = None,
          keep: int | None = None) -> Fetched:
    """The file's bytes; with `keep`, only its first `keep` bytes are read (the connection is closed
    there): `content`, `sha256` and `size` are then of that head, for a file whose head is all
    that is read (the endpoint client's results.json: its totals, then every response)."""
    if is_http(location):
        import requests  # only here: a local source needs no HTTP client (0.04 s of every run's start)
        return _fetch_http(location, file_name, settings, previous, session or requests.Session(), keep)
    return _read_local(local_path(location), file_name, settings, keep)


def missing_locally(location: str) -> bool:
    """True for a local location with no file there: the fetch would raise NotFound."""
    return not is_http(location) and not local_path(location).is_file()


def _read_local(path: Path, file_name: str, settings: FetchSettings, keep: int | None = None) -> Fetched:
    if missing_locally(str(path)):
        raise NotFound(f"{path}: no such file")
    if keep is not None:
        with path.open("rb") as f:
            return Fetched.of(str(path), file_name, f.read(keep))
    size = path.stat().st_size
    if size > settings.max_bytes:
        raise TooLarge(f"{path}: {size} bytes is over the size cap of {settings.max_bytes} bytes")
    content = path.read_bytes()
    return Fetched.of(str(path), file_name, content)


def _conditional_headers(previous: Previous | None) -> dict[str, str]:
    # Not requests-cache or CacheControl: the validators belong to the warehouse's recorded loads
    # (a file counts as unchanged only against what was loaded), not to an HTTP cache on disk.
    headers = {}
    if previous and previous.etag:
        headers["If-None-Match"] = previous.etag
    if previous and previous.last_modified:
        headers["If-Modified-Since"] = previous.last_modified
    return headers


def _fetch_http(url: str, file_name: str, settings: FetchSettings, previous: Previous | None,
                session: requests.Session, keep: int | None = None) -> Fetched:
    import requests
    import urllib3
    deadline = time.monotonic() + settings.deadline
    shown = redact(url)
    try:
        response, final_url = _get_following_redirects(url, settings, previous, session, deadline)
        with response:
            shown = redact(final_url)
            _raise_for_status(shown, response, with_credentials=carries_secret(final_url))
            if response.status_code == 304:
                return _not_modified(shown, file_name, previous)
            content = _read_capped(shown, response, settings.max_bytes, deadline, keep)
            return Fetched.of(shown, file_name, content, response.headers.get("ETag"),
                              response.headers.get("Last-Modified"))
    except requests.ConnectionError as exc:
        if _is_name_resolution_failure(exc):
            raise SourceUnreachable(f"{shown}: cannot resolve the host ({_root_cause(exc)})") from exc
        raise ConnectionFailed(f"{shown}: connection failed ({_root_cause(exc)})") from exc
    except (requests.Timeout, urllib3.exceptions.TimeoutError) as exc:
        raise TransientFetchError(f"{shown}: timed out ({_root_cause(exc)})") from exc
    except (requests.exceptions.ChunkedEncodingError, urllib3.exceptions.ProtocolError) as exc:
        # closed before Content-Length bytes, or mid-chunk
        raise TransientFetchError(f"{shown}: connection broken while reading the body "
                                  f"({_root_cause(exc)})") from exc
    except requests.RequestException as exc:  # an invalid URL or scheme, and the like
        raise FetchError(f"{shown}: {type(exc).__name__}: {_root_cause(exc)}") from exc


def _get_following_redirects(url: str, settings: FetchSettings, previous: Previous | None,
                             session: requests.Session, deadline: float):
    """GET, following redirects ourselves: only to http(s), only within the source's host (or
    MLPERF_REDIRECT_HOSTS), at most MAX_REDIRECTS, all within the deadline."""
    seen = [url]
    while True:
        remaining = _remaining(redact(url), deadline)
        timeout = (min(settings.connect_timeout, remaining), min(settings.read_timeout, remaining))
        response = session.get(url, headers=_conditional_headers(previous), timeout=timeout,
                               stream=True, allow_redirects=False)
        if not response.is_redirect:
            return response, url
        target = urljoin(url, response.headers["Location"])
        response.close()
        why = redirect_allowed(seen[0], target, settings.redirect_hosts)
        if why:
            raise RedirectRefused(f"{redact(url)}: redirect to {redact(target)} refused: {why}")
        if target in seen or len(seen) > MAX_REDIRECTS:
            raise RedirectRefused(f"{redact(seen[0])}: redirect loop or more than {MAX_REDIRECTS} "
                                  f"redirects ({' -> '.join(redact(u) for u in seen + [target])})")
        seen.append(target)
        url = target


def _remaining(url: str, deadline: float) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise DeadlineExceeded(f"{url}: not fetched within the deadline (MLPERF_FETCH_DEADLINE)")
    return remaining


def _not_modified(url: str, file_name: str, previous: Previous | None) -> Fetched:
    """A 304 is only an answer to a conditional request; to any other it is a broken server."""
    if previous is None or not (previous.etag or previous.last_modified):
        raise FetchError(f"{url}: answered 304 Not Modified to a request that was not conditional "
                         "(nothing to compare with: the server or a proxy is misbehaving)")
    return Fetched(url, file_name, None, previous.sha256, 0, previous.etag, previous.last_modified,
                   not_modified=True)


def _raise_for_status(url: str, response: requests.Response, with_credentials: bool = True) -> None:
    code = response.status_code
    if code == 404:
        raise NotFound(f"{url}: HTTP 404")
    if code in (401, 403):
        raise FetchError(f"{url}: HTTP {code}: " + (
            "the host refused the credentials the URL carries" if with_credentials else
            "the host asks for credentials and the URL carries none; the warehouse never stores a URL's "
            "user:password@ or secret parameters, so a source it remembered has lost them: give the source "
            "with them again, --source URL or MLPERF_SOURCE"))
    if code >= 500:
        raise TransientFetchError(f"{url}: HTTP {code}")
    if code >= 400:
        raise FetchError(f"{url}: HTTP {code}")
    if 300 <= code < 400 and code != 304:
        raise FetchError(f"{url}: HTTP {code} without a usable Location")


READ_SIZE = 256 * 1024


def _read_capped(url: str, response: requests.Response, max_bytes: int, deadline: float,
                 keep: int | None = None) -> bytes:
    """The body, at most max_bytes; with `keep`, its first `keep` bytes (the rest is never read)."""
    declared = response.headers.get("Content-Length")
    if keep is not None:
        return _read_head(url, response, keep, deadline)
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise TooLarge(f"{url}: Content-Length {declared} is over the size cap of {max_bytes} bytes")
    encoded = response.headers.get("Content-Encoding", "identity").lower() not in ("", "identity")
    total = int(declared) if declared and declared.isdigit() and not encoded else None
    chunks, received = [], 0
    with _progress(url, total) as advance:
        # read1 returns what one read of the socket gives: a slow drip cannot hold a read past
        # the deadline by more than the read timeout.
        while chunk := response.raw.read1(READ_SIZE, decode_content=True):
            _remaining(url, deadline)
            received += len(chunk)
            if received > max_bytes:
                raise TooLarge(f"{url}: body is over the size cap of {max_bytes} bytes")
            chunks.append(chunk)
            advance(len(chunk))
    if total is not None and received < total:
        raise TransientFetchError(f"{url}: connection closed after {received} of {total} bytes")
    return b"".join(chunks)


def _read_head(url: str, response: requests.Response, keep: int, deadline: float) -> bytes:
    chunks, received = [], 0
    while received < keep and (chunk := response.raw.read1(min(READ_SIZE, keep - received), decode_content=True)):
        _remaining(url, deadline)
        received += len(chunk)
        chunks.append(chunk)
    return b"".join(chunks)[:keep]


class _progress:
    """A progress bar on a terminal; nothing at all otherwise (CI logs, tests, pipes)."""

    def __init__(self, url: str, total: int | None):
        self.url, self.total, self.bar = url, total, None

    def __enter__(self):
        if sys.stderr.isatty():
            from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
            self.bar = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                                transient=True)
            self.bar.start()
            task = self.bar.add_task(self.url.rsplit("/", 3)[-3], total=self.total)
            return lambda n: self.bar.advance(task, n)
        return lambda n: None

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False


def _is_name_resolution_failure(exc: BaseException) -> bool:
    text = repr(exc)
    return "NameResolutionError" in text or "Name or service not known" in text \
        or "Temporary failure in name resolution" in text or "nodename nor servname" in text


def _root_cause(exc: BaseException) -> str:
    while exc.__cause__ is not None or exc.__context__ is not None:
        exc = exc.__cause__ or exc.__context__
    return f"{type(exc).__name__}: {exc}"[:200]
