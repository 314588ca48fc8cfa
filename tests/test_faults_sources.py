"""Fault suite, issue 40 (sources): the source a user chose, or an error.

A warehouse remembers where its rounds came from (sources.url); without --source or MLPERF_SOURCE
a command fetches from there. A remembered directory deleted since, or replaced by a file, was
skipped in silence (watch fell back to an older source, exit 0): it is one `error:` line naming it
and the fix, exit 1, nothing changed. A source given as a file or a looping link says so, not "no
such directory". A URL the warehouse stored without its credentials says so when the host answers
401.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.conftest import MIRROR, serve
from tests.faults import (DIGEST_TABLES, copy_of, digest, files_in, one_error_line, point_sources_at,
                          run)  # noqa: F401 - run: a fixture


@pytest.fixture
def remembering(shared_warehouse, tmp_path, monkeypatch):
    """(warehouse, its source): a copy of the session's warehouse whose rounds came from a copy of
    the mirror in the test's directory (sources.url says so), with its published copy."""
    monkeypatch.delenv("MLPERF_SOURCE", raising=False)
    mirror = tmp_path / "mirror"
    shutil.copytree(MIRROR, mirror)
    (tmp_path / "w").mkdir()
    path = copy_of(shared_warehouse, tmp_path / "w")
    point_sources_at(path, str(MIRROR.resolve()), str(mirror))
    return path, mirror


def state(db: str) -> tuple:
    return digest(db, tables=DIGEST_TABLES), files_in(Path(db).parent)


@pytest.mark.parametrize("command", [["watch"], ["backfill", "--rounds", "v6.0"], ["trees", "--rounds", "v6.0"]])
@pytest.mark.parametrize("gone", ["deleted", "a file now"])
def test_a_remembered_source_that_is_gone_is_one_error_line(run, remembering, command, gone):
    path, mirror = remembering
    shutil.rmtree(mirror)
    if gone == "a file now":
        mirror.write_text("not a mirror\n")
    before = state(path)
    code, out, err = run("--db", path, *command)
    assert (code, out) == (1, ""), err
    line = one_error_line(err)
    said = "no longer exists" if gone == "deleted" else "is not a directory"
    assert line.startswith(f"error: {mirror}: the source this warehouse's rounds came from (its latest load) {said}")
    assert "--source DIR_OR_URL or MLPERF_SOURCE" in line
    assert state(path) == before


@pytest.mark.parametrize("kind", ["file", "loop", "dangling"])
def test_a_source_that_is_not_a_directory_says_what_it_is(run, remembering, tmp_path, kind):
    path, _ = remembering
    source = tmp_path / "source"
    said = {"file": "a file, not a directory", "loop": "a symbolic link that loops (it leads back to itself)",
            "dangling": f"a symbolic link to {tmp_path / 'nowhere'}, which does not exist"}[kind]
    if kind == "file":
        source.write_text("x\n")
    elif kind == "loop":
        source.symlink_to(source)
    else:
        source.symlink_to(tmp_path / "nowhere")
    before = state(path)
    code, _, err = run("--db", path, "backfill", "--rounds", "v6.0", "--source", source)
    assert code == 1
    assert one_error_line(err) == (f"error: {source}: {said} (the source must be a base URL or a directory laid "
                                   "out as inference_results_vX.Y/<branch>/<file>)")
    assert state(path) == before


@pytest.mark.slow
def test_a_remembered_url_stored_without_its_credentials_says_so_on_401(cli, remembering):
    """The warehouse stores https://user:password@host/... as https://host/...: the next run without
    --source was refused by the host (401) with no word why."""
    path, mirror = remembering
    with serve(mirror, {"/inference_results_v6.0/main/summary_results.json": [401] * 8}) as server:
        point_sources_at(path, str(mirror), server.url)
        before = state(path)
        code, _, err = cli("--db", path, "backfill", "--rounds", "v6.0")
    assert code == 1
    assert f"source: {server.url} (where this warehouse's rounds came from" in err
    [line] = [line for line in err.splitlines() if "HTTP 401" in line]
    assert line.startswith("error: ") and "the host asks for credentials and the URL carries none" in line
    assert "give the source with them again, --source URL or MLPERF_SOURCE" in line
    assert digest(path, tables=DIGEST_TABLES)["results"] == before[0]["results"]


def test_credentials_the_host_refuses_are_said_as_such(tmp_path):
    from warehouse.ingest.fetch import FetchError, FetchSettings, fetch
    (tmp_path / "f.json").write_text("{}\n")
    with serve(tmp_path, {"/f.json": [401, 401]}) as server:
        with pytest.raises(FetchError, match="HTTP 401: the host asks for credentials and the URL carries none"):
            fetch(f"{server.url}/f.json", "f.json", FetchSettings())
        with pytest.raises(FetchError, match="HTTP 401: the host refused the credentials the URL carries$") as caught:
            fetch(server.url.replace("://", "://analyst:s3cret@") + "/f.json", "f.json", FetchSettings())
    assert "s3cret" not in str(caught.value)


@pytest.fixture
def cli(plain_cli):
    """Runs without a Prefect API: what a run refuses and says is the same code under a flow run."""
    return plain_cli
