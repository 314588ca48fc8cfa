"""Fetch one result file over HTTP (requests) or from a local directory with the same layout.

One call is one attempt: retries are declared on the Prefect task (flows/ingest.py), which retries
only the errors that `is_transient` accepts (connection errors, timeouts, 5xx), never a 4xx.
"""
from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import requests

MIB = 1024 * 1024


@dataclass(frozen=True)
class FetchSettings:
    connect_timeout: float = 10.0
    read_timeout: float = 60.0
    max_bytes: int = 64 * MIB
    retries: int = 3
    backoff_seconds: float = 1.0

    @classmethod
    def from_env(cls) -> "FetchSettings":
        env = os.environ.get
        return cls(
            connect_timeout=float(env("MLPERF_FETCH_CONNECT_TIMEOUT", cls.connect_timeout)),
            read_timeout=float(env("MLPERF_FETCH_READ_TIMEOUT", cls.read_timeout)),
            max_bytes=int(env("MLPERF_FETCH_MAX_BYTES", cls.max_bytes)),
            retries=int(env("MLPERF_FETCH_RETRIES", cls.retries)),
            backoff_seconds=float(env("MLPERF_FETCH_BACKOFF", cls.backoff_seconds)),
        )

    def retry_delays(self) -> list[float]:
        """Exponential backoff: base, 2*base, 4*base, ..."""
        return [self.backoff_seconds * 2**i for i in range(self.retries)]


class FetchError(Exception):
    """A file could not be fetched; the message names the location."""


class NotFound(FetchError):
    pass


class TransientFetchError(FetchError):
    """Worth another try: connection error, timeout, HTTP 5xx."""


class ConnectionFailed(TransientFetchError):
    """Nothing answered at the source's address (refused, reset): retried, then reported as such."""


class SourceUnreachable(FetchError):
    """The source host cannot be resolved: no point retrying."""


def cannot_connect(exc: BaseException) -> bool:
    """True when the source itself could not be reached (as opposed to a bad answer from it)."""
    return isinstance(exc, (SourceUnreachable, ConnectionFailed))


class TooLarge(FetchError):
    pass


def is_transient(exc: BaseException) -> bool:
    return isinstance(exc, TransientFetchError)


@dataclass(frozen=True)
class Previous:
    """What the warehouse knows of the last load of this location, to skip unchanged files."""
    sha256: str | None = None
    etag: str | None = None
    last_modified: str | None = None


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
    fetched_at: datetime = field(default_factory=lambda: datetime.now(timezone.utc))

    def unchanged_since(self, previous: Previous | None) -> bool:
        if self.not_modified:
            return True
        return previous is not None and previous.sha256 is not None and previous.sha256 == self.sha256


def is_http(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def fetch(location: str, file_name: str, settings: FetchSettings,
          previous: Previous | None = None, session: requests.Session | None = None) -> Fetched:
    if is_http(location):
        return _fetch_http(location, file_name, settings, previous, session or requests.Session())
    return _read_local(Path(location), file_name, settings)


def _read_local(path: Path, file_name: str, settings: FetchSettings) -> Fetched:
    if not path.is_file():
        raise NotFound(f"{path}: no such file")
    size = path.stat().st_size
    if size > settings.max_bytes:
        raise TooLarge(f"{path}: {size} bytes is over the size cap of {settings.max_bytes} bytes")
    content = path.read_bytes()
    return Fetched(str(path), file_name, content, hashlib.sha256(content).hexdigest(), len(content))


def _conditional_headers(previous: Previous | None) -> dict[str, str]:
    headers = {}
    if previous and previous.etag:
        headers["If-None-Match"] = previous.etag
    if previous and previous.last_modified:
        headers["If-Modified-Since"] = previous.last_modified
    return headers


def _fetch_http(url: str, file_name: str, settings: FetchSettings, previous: Previous | None,
                session: requests.Session) -> Fetched:
    timeout = (settings.connect_timeout, settings.read_timeout)
    try:
        with session.get(url, headers=_conditional_headers(previous), timeout=timeout, stream=True) as response:
            _raise_for_status(url, response)
            if response.status_code == 304:
                return Fetched(url, file_name, None, previous.sha256 if previous else None, 0,
                               previous.etag if previous else None,
                               previous.last_modified if previous else None, not_modified=True)
            content = _read_capped(url, response, settings.max_bytes)
            return Fetched(url, file_name, content, hashlib.sha256(content).hexdigest(), len(content),
                           response.headers.get("ETag"), response.headers.get("Last-Modified"))
    except requests.ConnectionError as exc:
        if _is_name_resolution_failure(exc):
            raise SourceUnreachable(f"{url}: cannot resolve the host ({_root_cause(exc)})") from exc
        raise ConnectionFailed(f"{url}: connection failed ({_root_cause(exc)})") from exc
    except requests.Timeout as exc:
        raise TransientFetchError(f"{url}: timed out ({_root_cause(exc)})") from exc
    except requests.exceptions.ChunkedEncodingError as exc:  # closed before Content-Length bytes
        raise TransientFetchError(f"{url}: connection broken while reading the body "
                                  f"({_root_cause(exc)})") from exc


def _raise_for_status(url: str, response: requests.Response) -> None:
    code = response.status_code
    if code == 404:
        raise NotFound(f"{url}: HTTP 404")
    if code >= 500:
        raise TransientFetchError(f"{url}: HTTP {code}")
    if code >= 400:
        raise FetchError(f"{url}: HTTP {code}")


def _read_capped(url: str, response: requests.Response, max_bytes: int) -> bytes:
    declared = response.headers.get("Content-Length")
    if declared and declared.isdigit() and int(declared) > max_bytes:
        raise TooLarge(f"{url}: Content-Length {declared} is over the size cap of {max_bytes} bytes")
    total = int(declared) if declared and declared.isdigit() else None
    chunks, received = [], 0
    with _progress(url, total) as advance:
        for chunk in response.iter_content(chunk_size=256 * 1024):
            received += len(chunk)
            if received > max_bytes:
                raise TooLarge(f"{url}: body is over the size cap of {max_bytes} bytes")
            chunks.append(chunk)
            advance(len(chunk))
    if total is not None and received < total:
        raise TransientFetchError(f"{url}: connection closed after {received} of {total} bytes")
    return b"".join(chunks)


class _progress:
    """A progress bar on a terminal; nothing at all otherwise (CI logs, tests, pipes)."""

    def __init__(self, url: str, total: int | None):
        self.url, self.total, self.bar = url, total, None

    def __enter__(self):
        if sys.stderr.isatty():
            from rich.progress import Progress, DownloadColumn, BarColumn, TextColumn
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
