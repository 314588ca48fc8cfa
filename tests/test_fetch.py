"""warehouse.ingest.fetch.fetch against a real HTTP server on 127.0.0.1 (conftest.serve) and local files."""
from __future__ import annotations

import hashlib
import time

import pytest

from tests.conftest import MIRROR, serve
from warehouse.identity.rounds import load_registry
from warehouse.ingest.fetch import (
    ConnectionFailed,
    FetchError,
    FetchSettings,
    NotFound,
    Previous,
    SourceUnreachable,
    TooLarge,
    TransientFetchError,
    cannot_connect,
    fetch,
    is_transient,
    missing_locally,
)

PATH = "/inference_results_v6.0/main/summary_results.json"
FILE = MIRROR / PATH.lstrip("/")
FAST = FetchSettings(connect_timeout=2, read_timeout=2)


def fetch_path(server, path=PATH, settings=FAST, previous=None):
    return fetch(server.url + path, "summary_results.json", settings, previous)


def test_http_404_raises_not_found(mirror_server):
    with pytest.raises(NotFound, match="404"):
        fetch_path(mirror_server, "/inference_results_v5.0/main/summary_results.json")


def test_http_500_is_transient():
    with serve(MIRROR, {PATH: [500]}) as server:
        with pytest.raises(TransientFetchError, match="HTTP 500") as caught:
            fetch_path(server)
    assert is_transient(caught.value)


def test_http_403_is_a_fetch_error_but_not_transient():
    with serve(MIRROR, {PATH: [403]}) as server:
        with pytest.raises(FetchError, match="HTTP 403") as caught:
            fetch_path(server)
    assert not isinstance(caught.value, TransientFetchError)
    assert not is_transient(caught.value)


def test_declared_content_length_over_the_cap_raises_too_large(mirror_server):
    with pytest.raises(TooLarge, match="Content-Length") as caught:
        fetch_path(mirror_server, settings=FetchSettings(max_bytes=1000))
    assert not is_transient(caught.value)


def test_streamed_body_over_the_cap_raises_too_large():
    # No Content-Length: the cap can only be enforced while the body streams in.
    response = b"HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n" + b"[" + b" " * 50_000 + b"]"
    with serve(MIRROR, {PATH: [("raw", response)]}) as server:
        with pytest.raises(TooLarge, match="body is over the size cap of 1000 bytes"):
            fetch_path(server, settings=FetchSettings(max_bytes=1000))


def test_read_timeout_is_transient_and_fails_fast():
    with serve(MIRROR, {PATH: [("sleep", 3)]}) as server:
        started = time.monotonic()
        with pytest.raises(TransientFetchError, match="timed out") as caught:
            fetch_path(server, settings=FetchSettings(connect_timeout=2, read_timeout=0.5))
        elapsed = time.monotonic() - started
    assert is_transient(caught.value)
    assert elapsed < 2.5


def test_body_shorter_than_its_content_length_is_transient():
    # The connection drops after 10 of the 1000 announced bytes.
    response = b"HTTP/1.0 200 OK\r\nContent-Length: 1000\r\n\r\n" + b"[1,2,3,4,5"
    with serve(MIRROR, {PATH: [("raw", response)]}) as server:
        with pytest.raises(TransientFetchError, match=PATH) as caught:
            fetch_path(server)
    assert is_transient(caught.value)


def test_sha256_and_size_are_those_of_the_served_file(mirror_server):
    fetched = fetch_path(mirror_server)
    expected = FILE.read_bytes()
    assert fetched.content == expected
    assert fetched.sha256 == hashlib.sha256(expected).hexdigest()
    assert fetched.size == len(expected)
    assert fetched.location == mirror_server.url + PATH
    assert fetched.last_modified is not None


def test_refetch_with_validators_of_the_first_is_not_modified(mirror_server):
    first = fetch_path(mirror_server)
    previous = Previous(first.sha256, first.etag, first.last_modified)
    second = fetch_path(mirror_server, previous=previous)
    assert second.not_modified
    assert second.content is None
    assert second.sha256 == first.sha256
    assert second.unchanged_since(previous)
    assert mirror_server.handler.requests_seen == [PATH, PATH]


def test_same_bytes_without_validators_count_as_unchanged(mirror_server):
    first = fetch_path(mirror_server)
    second = fetch_path(mirror_server, previous=Previous(sha256=first.sha256))
    assert not second.not_modified
    assert second.unchanged_since(Previous(sha256=first.sha256))
    assert not second.unchanged_since(Previous(sha256="0" * 64))
    assert not second.unchanged_since(None)


def test_local_directory_source_reads_the_same_layout():
    file_name, location = load_registry()["v6.0"].locations(str(MIRROR))[0]
    fetched = fetch(location, file_name, FAST)
    assert file_name == "summary_results.json"
    assert fetched.content == FILE.read_bytes()
    assert fetched.sha256 == hashlib.sha256(FILE.read_bytes()).hexdigest()


def test_missing_local_file_raises_not_found():
    file_name, location = load_registry()["v5.0"].locations(str(MIRROR))[0]
    with pytest.raises(NotFound, match="inference_results_v5.0"):
        fetch(location, file_name, FAST)


def test_local_file_over_the_cap_raises_too_large():
    with pytest.raises(TooLarge, match="size cap"):
        fetch(str(FILE), "summary_results.json", FetchSettings(max_bytes=1000))


def test_unresolvable_host_raises_source_unreachable():
    with pytest.raises(SourceUnreachable, match="no-such-host.invalid") as caught:
        fetch("http://no-such-host.invalid/x", "summary_results.json", FAST)
    assert not is_transient(caught.value)
    assert cannot_connect(caught.value)


def test_refused_connection_is_retried_and_counts_as_cannot_connect():
    with serve(MIRROR) as server:
        port = server.server_address[1]
    # The server is closed now: nothing listens on that loopback port.
    with pytest.raises(ConnectionFailed, match="connection failed") as caught:
        fetch(f"http://127.0.0.1:{port}/x", "summary_results.json", FAST)
    assert is_transient(caught.value) and cannot_connect(caught.value)


def test_a_5xx_answer_is_transient_but_not_a_connection_failure():
    with serve(MIRROR, {"/x": [503]}) as server:
        with pytest.raises(TransientFetchError) as caught:
            fetch(f"{server.url}/x", "summary_results.json", FAST)
    assert not cannot_connect(caught.value)


def test_a_local_location_without_a_file_is_missing_before_any_fetch(tmp_path):
    # The plan of a run reports such a round as not published without a task run; the fetch agrees.
    present, folder = tmp_path / "summary_results.json", tmp_path / "a-folder"
    present.write_text("[]", encoding="utf-8")
    folder.mkdir()
    assert not missing_locally(str(present)) and not missing_locally(f"file://{present}")
    assert missing_locally(str(tmp_path / "nothing.json")) and missing_locally(str(folder))
    assert not missing_locally("http://127.0.0.1:9/summary_results.json")  # only a request can tell
    with pytest.raises(NotFound):
        fetch(str(folder), "summary_results.json", FetchSettings())


def test_a_source_is_reachable_when_any_address_of_its_host_answers(monkeypatch):
    # The review found it: only the first address was tried, so a mirror listening on IPv4 alone,
    # whose name resolves to IPv6 first, was refused although requests would have reached it.
    import socket

    from tests.conftest import MIRROR, serve
    from warehouse.ingest.fetch import FetchSettings, SourceCannotBeReached, check_reachable
    resolve = socket.getaddrinfo

    def ipv6_first(host, port, *args, **kwargs):
        if host != "mirror.invalid":
            return resolve(host, port, *args, **kwargs)
        return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("::1", port, 0, 0)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", port))]
    monkeypatch.setattr(socket, "getaddrinfo", ipv6_first)
    with serve(MIRROR) as server:  # listens on 127.0.0.1 only
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        check_reachable(f"http://mirror.invalid:{port}/", FetchSettings())
    with pytest.raises(SourceCannotBeReached, match="cannot be reached"):  # nothing listens there now
        check_reachable(f"http://mirror.invalid:{port}/", FetchSettings())
