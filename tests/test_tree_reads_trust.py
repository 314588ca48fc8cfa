"""Issue 61 item 6, the tree reads: "unchanged means unread" trusts what it compares and what it keeps.

- A summary written in place with its size and mtime put back kept its old figure until `--force`:
  the identity compared (size, mtime, inode) did not see it. The change time does (utime sets the
  mtime, never the ctime), so the next run reads it again and its new figure loads.
- What `tree_reads` keeps of a file (its `text`, shown in a quarantine record) is a table anyone
  with the warehouse file can edit: a text edited to 9 MB flowed into `quarantine.raw_record`. A row
  past its bounds, or whose text is not its file's, is not used: the file is read again.
"""
from __future__ import annotations

import json
import os

import pytest

from tests.faults import query
from tests.readers import connect_file
from tests.test_trees_rerun import (NOTHING, ROUND, T4_SERVER, _changed_a_while_ago, _forget, _trees,  # noqa: F401
                                    opened, source)


@pytest.mark.slow
def test_a_summary_written_in_place_with_its_size_and_mtime_put_back_is_read_again(
        plain_cli, source, opened, tmp_path):
    db_file = tmp_path / "w.duckdb"
    summary = source / f"inference_results_{ROUND}" / T4_SERVER / "mlperf_log_summary.txt"  # a copy: written in place
    _trees(plain_cli, source, db_file)
    before = summary.stat()
    with open(summary, "r+b") as f:  # the same size, the same inode
        content = f.read()
        f.seek(0)
        f.write(content.replace(b"Scheduled samples per second : 41546.64", b"Scheduled samples per second : 41546.99"))
    os.utime(summary, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = summary.stat()
    assert (after.st_size, after.st_mtime_ns, after.st_ino) == (before.st_size, before.st_mtime_ns, before.st_ino)
    _forget(opened)
    _trees(plain_cli, source, db_file)
    assert opened == {"rebuild": [f"{T4_SERVER}/mlperf_log_summary.txt"], "ingest": []}
    assert query(db_file, f"SELECT value FROM results WHERE location = '{T4_SERVER}'") == [(41546.99,)]


@pytest.mark.slow
def test_a_hand_edited_text_in_tree_reads_never_reaches_a_quarantine_record(plain_cli, source, opened, tmp_path):
    db_file = tmp_path / "w.duckdb"
    _trees(plain_cli, source, db_file)
    [(path, text)] = query(db_file, "SELECT path, text FROM tree_reads WHERE text IS NOT NULL ORDER BY path LIMIT 1")
    with connect_file(str(db_file)) as con:
        con.execute("UPDATE tree_reads SET text = repeat('x', 9 * 1024 * 1024) WHERE path = ?", [path])
    system = source / f"inference_results_{ROUND}" / "closed/NVIDIA/systems/T4x8.json"
    _changed_a_while_ago(system)  # another file of the round changed: rebuilt from what tree_reads holds
    _forget(opened)
    _trees(plain_cli, source, db_file)
    assert sorted(opened["rebuild"]) == sorted([path, "closed/NVIDIA/systems/T4x8.json"])  # read again, not trusted
    [(raw,)] = query(db_file, "SELECT raw_record FROM quarantine WHERE source_id = 'rebuilt/v0.5' "
                              f"AND raw_record LIKE '%{path}%'")
    assert json.loads(raw)["text"] == text
    assert query(db_file, "SELECT max(length(text)) FROM tree_reads")[0][0] < 64 * 1024


@pytest.mark.unit
def test_a_row_as_a_rebuild_writes_it_is_trusted_and_one_past_its_bounds_is_not():
    import hashlib

    from warehouse.trees.rebuilding import trusted
    text = "LoadGen summary\n"
    digest = hashlib.sha256(text.encode()).hexdigest()
    identity = f"{len(text)} 1 2 3"
    assert trusted(identity, digest, None, ["INVALID"], text) is not None
    assert trusted(identity, digest, None, [], text + "x") is None                # longer than its file
    assert trusted(identity, digest, None, [], text.upper()) is None              # not its file's text
    assert trusted(identity, digest, "{" + " " * 70_000 + "}", [], None) is None  # fields past their bound
    assert trusted(identity, digest, None, ["r"] * 100, None) is None             # reasons past theirs
    assert trusted(f"{len(text) + 1} 1 2 3", None, None, [], "\ufffd" + text) is not None  # a file not UTF-8
