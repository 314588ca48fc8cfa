"""The watch reads a new round's tree (issue 56, item 6): the tick that loads a round's table reads
that round's run summaries and system descriptions too, in the same run report and notification;
the next tick, with nothing new, opens no tree file."""
from __future__ import annotations

import pytest

from tests.faults import query
from tests.trees_layout import round_repositories
from tests.webhook_receiver import receiving


@pytest.fixture
def tree_reads(monkeypatch) -> list[str]:
    from warehouse.trees import fetching
    paths: list[str] = []
    read = fetching.read_tree_file

    def read_counted(root, relative, *args, **kwargs):
        paths.append(relative)
        return read(root, relative, *args, **kwargs)
    monkeypatch.setattr(fetching, "read_tree_file", read_counted)
    return paths


@pytest.mark.slow
def test_the_tick_that_loads_a_new_round_reads_its_tree_and_the_next_tick_reads_none(
        cli, tmp_path, tree_reads, monkeypatch):
    source = round_repositories(tmp_path / "upstream", rounds=("v6.0",))  # its table and its tree, as published
    db_file = tmp_path / "w.duckdb"
    monkeypatch.setenv("MLPERF_NOTIFY_BACKOFF", "0.05")
    with receiving() as receiver:
        monkeypatch.setenv("MLPERF_NOTIFY", f"json://127.0.0.1:{receiver.port}/hook")
        code, out, err = cli("watch", "--source", source, "--db", db_file)
        assert code == 0, (out, err)
        [message] = receiver.messages
    assert "Submission trees read" in out and "v6.0: " in out
    [(files, loaded)] = query(db_file, "SELECT count(*), count(*) FILTER (status = 'loaded') FROM tree_files "
                                       "WHERE round = 'v6.0'")
    assert loaded > 0 and len(tree_reads) >= files
    [(summaries,)] = query(db_file, "SELECT count(*) FROM run_summaries WHERE round = 'v6.0'")
    assert summaries > 0 and f"v6.0: {files:,} submission-tree files asked for: " in message["message"]
    assert query(db_file, "SELECT DISTINCT round FROM tree_files") == [("v6.0",)]  # no other round's

    tree_reads.clear()
    code, out, err = cli("watch", "--source", source, "--db", db_file)
    assert code == 0, (out, err)
    assert out.startswith("watch: nothing new") and tree_reads == []


@pytest.mark.slow
def test_a_new_round_whose_tree_the_source_lacks_is_loaded_and_said_so(cli, tmp_path, tree_reads):
    from tests.conftest import MIRROR
    source = tmp_path / "upstream"
    table = source / "inference_results_v6.0" / "main" / "summary_results.json"
    table.parent.mkdir(parents=True)
    table.symlink_to(MIRROR / "inference_results_v6.0" / "main" / "summary_results.json")
    code, out, err = cli("watch", "--source", source, "--db", tmp_path / "w.duckdb")
    assert code == 0, (out, err)
    assert "v6.0: no submission tree at" in out and tree_reads == []


@pytest.mark.slow
def test_a_url_with_the_table_and_no_tree_is_asked_for_one_chunk_of_files_not_every_one(cli, tmp_path, tree_reads):
    """A mirror of tables alone, over HTTP: the first chunk of tree files all 404, the round's line
    says there is no tree, and nothing of it is recorded in tree_files."""
    from tests.conftest import MIRROR, serve
    from warehouse.trees.fetching import DEFAULT_CHUNK
    upstream = tmp_path / "upstream"
    table = upstream / "inference_results_v6.0" / "main" / "summary_results.json"
    table.parent.mkdir(parents=True)
    table.symlink_to(MIRROR / "inference_results_v6.0" / "main" / "summary_results.json")
    with serve(upstream) as server:
        code, out, err = cli("watch", "--source", server.url, "--db", tmp_path / "w.duckdb")
        asked = [path for path in server.handler.requests_seen if "/closed/" in path or "/open/" in path]
    assert code == 0, (out, err)
    assert "v6.0: no submission tree at" in out
    # one chunk: a run folder's four candidate files (fetching.SUMMARY_PARSERS) or a system file each
    assert 0 < len(asked) <= 4 * DEFAULT_CHUNK
    assert query(tmp_path / "w.duckdb", "SELECT count(*) FROM tree_files") == [(0,)]


@pytest.mark.slow
def test_over_http_the_tick_that_loads_a_new_round_reads_its_tree_and_the_next_asks_for_no_tree_file(
        cli, tmp_path):
    from tests.conftest import serve
    source = round_repositories(tmp_path / "upstream", rounds=("v6.0",))
    db_file = tmp_path / "w.duckdb"
    with serve(source) as server:
        code, out, err = cli("watch", "--source", server.url, "--db", db_file)
        assert code == 0, (out, err)
        [(loaded,)] = query(db_file, "SELECT count(*) FROM tree_files WHERE round = 'v6.0' AND status = 'loaded'")
        assert loaded > 0 and "v6.0: no submission tree" not in out
        server.handler.requests_seen.clear()
        code, out, err = cli("watch", "--source", server.url, "--db", db_file)
        assert code == 0, (out, err)
        assert out.startswith("watch: nothing new")
        assert [path for path in server.handler.requests_seen if "/closed/" in path or "/open/" in path] == []
