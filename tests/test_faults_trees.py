"""Fault suite, issue 40: a submission tree is third-party content.

Krai's v6.0 entry (two run summaries and one system description) is laid out as a round repository
in a temp directory; each case makes one of its files hostile and runs the tree ingest, asserting
the exit code, what is said, and a digest of what must not change. Cases: links to a canary file
outside the tree, to /proc/self/environ and a FIFO or a device in place of a file (never read:
warehouse/ingest/tree_files.py), odd JSON shapes and non-finite numbers (one file quarantined, the
others load), and a bad replacement of a loaded file (the last good row kept, the new file's fault
recorded).
"""
from __future__ import annotations

import os
import shutil
import stat
import sys
import uuid
from pathlib import Path

import pytest

from tests.faults import digest, query
from tests.readers import connect_file
from tests.trees_layout import TREES, replace_file, round_repositories, without

KRAI = "closed/Krai/results/h200_n1-kissv/wan-2.2-t2v-a14b"
KRAI_OFFLINE = f"{KRAI}/offline/performance/run_1/mlperf_log_summary.txt"
KRAI_SINGLE = f"{KRAI}/singlestream/performance/run_1/mlperf_log_summary.txt"
KRAI_SYSTEM = "closed/Krai/systems/h200_n1-kissv.json"
TREE_TABLES = ("run_summaries", "systems", "tree_files", "quarantine")


@pytest.fixture
def krai_warehouse(shared_warehouse, tmp_path) -> str:
    path = str(tmp_path / "krai.duckdb")
    shutil.copyfile(shared_warehouse, path)
    with connect_file(path) as con:
        con.execute("DELETE FROM results WHERE NOT (round = 'v6.0' AND submitter = 'Krai' AND division = 'closed')")
    return path


@pytest.fixture
def krai_tree(tmp_path) -> Path:
    return round_repositories(tmp_path / "repos", rounds=("v6.0",))


def in_tree(root: Path, relative: str) -> Path:
    return root / "inference_results_v6.0" / "main" / relative


def every_row_as_text(db: str) -> str:
    """Every row of every table of the warehouse, as text: where a secret must not be."""
    with connect_file(db, read_only=True) as con:
        tables = [name for (name,) in con.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()").fetchall()]
        return "\n".join(str(con.execute(f'SELECT * FROM "{name}"').fetchall()) for name in tables)


def ingest(db_file: str, source: str | Path):
    """The plain functions `mlperf-wh trees` runs, without Prefect."""
    from warehouse.identity.rounds import load_registry
    from warehouse.ingest.fetch import FetchSettings
    from warehouse.ingest.tree_fetch import fetch_chunk
    from warehouse.ingest.tree_ingest import check, chunks, load, plan
    from warehouse.store import db
    with db.connect(db_file) as con:
        files, _ = plan(con, [load_registry()["v6.0"]], str(source))
        outcomes = [o for chunk in chunks(files, 2) for o in fetch_chunk(chunk, FetchSettings.from_env())]
        return load(con, check(outcomes))


class Opened:
    """Every path opened in this process while `recording` (an audit hook: it cannot be removed,
    so one is added per process and switched on and off)."""
    paths: list[str] = []
    recording = False
    added = False

    @classmethod
    def hook(cls, event, args):
        if cls.recording and event == "open" and args and isinstance(args[0], (str, bytes, os.PathLike)):
            cls.paths.append(os.fsdecode(args[0]))

    def __enter__(self):
        if not Opened.added:
            sys.addaudithook(Opened.hook)
            Opened.added = True
        Opened.paths, Opened.recording = [], True
        return Opened.paths

    def __exit__(self, *exc):
        Opened.recording = False


# --- nothing outside a tree's root is read --------------------------------------------------------

def test_trees_reads_no_file_outside_the_tree(cli, krai_warehouse, krai_tree, tmp_path, monkeypatch):
    """A summary linked to a canary file outside the tree, another to /proc/self/environ (holding a
    token), the system description a FIFO: `trees` quarantines the three, reads none of them, and
    nothing of theirs reaches a table or an output."""
    token = f"tok-{uuid.uuid4().hex}"
    monkeypatch.setenv("MLPERF_TEST_SECRET_TOKEN", token)
    canary = tmp_path / "outside" / "credentials"
    canary.parent.mkdir()
    canary.write_text(f"aws_secret_access_key = CANARY-{token}\n")
    fifo = in_tree(krai_tree, KRAI_SYSTEM)
    for relative, make in ((KRAI_OFFLINE, lambda p: p.symlink_to(canary)),
                           (KRAI_SINGLE, lambda p: p.symlink_to("/proc/self/environ")),
                           (KRAI_SYSTEM, os.mkfifo)):
        without(krai_tree, "v6.0", relative)
        make(in_tree(krai_tree, relative))
    before = digest(krai_warehouse)
    with Opened() as opened:
        code, out, err = cli("--db", krai_warehouse, "trees", "--rounds", "v6.0", "--source", krai_tree)
    assert code == 0, err
    assert "Traceback" not in err and "error:" not in err, err
    refusals = sorted(line for line in err.splitlines() if ": quarantined: " in line)
    assert len(refusals) == 3, err
    assert f"{KRAI_OFFLINE}: refused: it is a symbolic link" in err
    assert f"{KRAI_SINGLE}: refused: it is a symbolic link" in err
    assert f"{KRAI_SYSTEM}: refused: it is a FIFO (named pipe)" in err
    assert os.path.realpath(in_tree(krai_tree, "")) in opened  # the hook saw the tree's root opened
    forbidden = {str(canary), "/proc/self/environ", str(fifo), os.path.realpath(fifo)}
    assert not forbidden.intersection(opened), sorted(forbidden.intersection(opened))
    assert not [p for p in opened if p.startswith("/proc/") and p.endswith("/environ")]
    everything = every_row_as_text(krai_warehouse)
    assert token not in everything and "CANARY" not in everything
    assert token not in out + err
    assert query(krai_warehouse, "SELECT f.path, f.status, json_extract_string(q.raw_record, '$.text') "
                                 "FROM tree_files AS f JOIN quarantine AS q ON q.source_id = 'tree/' || f.round || "
                                 "'/' || f.path ORDER BY f.path") == [
        (KRAI_OFFLINE, "quarantined", None), (KRAI_SINGLE, "quarantined", None), (KRAI_SYSTEM, "quarantined", None)]
    assert query(krai_warehouse, "SELECT count(*) FROM run_summaries") == [(0,)]
    assert digest(krai_warehouse)["results"] == before["results"]


def _link_out(root: Path, canary: Path) -> str:
    target = in_tree(root, KRAI_OFFLINE)
    target.unlink()
    target.symlink_to(canary)
    return KRAI_OFFLINE


def _link_inside(root: Path, canary: Path) -> str:
    target = in_tree(root, KRAI_OFFLINE)
    target.unlink()
    target.symlink_to(in_tree(root, KRAI_SINGLE))  # inside the tree today, anywhere after the next commit
    return KRAI_OFFLINE


def _folder_link(root: Path, canary: Path) -> str:
    folder = in_tree(root, f"{KRAI}/offline/performance/run_1")
    shutil.rmtree(folder)
    fake = canary.parent / "run_1"
    fake.mkdir()
    (fake / "mlperf_log_summary.txt").symlink_to(canary)
    shutil.copyfile(in_tree(root, KRAI_SINGLE), fake / "copy.txt")
    folder.symlink_to(fake)
    return KRAI_OFFLINE


def _device(root: Path, canary: Path) -> str:
    target = in_tree(root, KRAI_OFFLINE)
    target.unlink()
    try:
        os.mknod(target, stat.S_IFCHR | 0o600, os.makedev(1, 5))  # /dev/zero's numbers
    except PermissionError:
        pytest.skip("cannot make a device file here (not root, or no CAP_MKNOD)")
    return KRAI_OFFLINE


REFUSALS = {"link out of the tree": (_link_out, "refused: it is a symbolic link"),
            "link inside the tree": (_link_inside, "refused: it is a symbolic link"),
            "folder link on the way": (_folder_link, "refused: closed/Krai/results/h200_n1-kissv/wan-2.2-t2v-a14b/"
                                                     "offline/performance/run_1 is a symbolic link"),
            "device file": (_device, "refused: it is a device file")}


@pytest.mark.parametrize("case", REFUSALS)
def test_a_file_that_is_not_a_regular_file_in_the_tree_is_never_read(krai_warehouse, krai_tree, tmp_path, case):
    make, said = REFUSALS[case]
    canary = tmp_path / "outside" / "secret.txt"
    canary.parent.mkdir()
    canary.write_text("CANARY\n")
    relative = make(krai_tree, canary)
    outcome = ingest(krai_warehouse, krai_tree)
    assert outcome.counts == {"loaded": 2, "quarantined": 1}, outcome.problems
    [problem] = outcome.problems
    assert relative in problem and said in problem, problem
    assert "CANARY" not in every_row_as_text(krai_warehouse)


@pytest.mark.unit
def test_read_tree_file_reads_regular_files_and_refuses_the_rest(tmp_path):
    from warehouse.ingest.fetch import NotFound, TooLarge
    from warehouse.ingest.tree_files import RefusedTreeFile, read_tree_file
    root = tmp_path / "tree"
    (root / "closed" / "a").mkdir(parents=True)
    (root / "closed" / "a" / "f.txt").write_bytes(b"0123456789")
    assert read_tree_file(root, "closed/a/f.txt", 10) == b"0123456789"
    assert read_tree_file(root, "closed/a/f.txt", 1, keep=4) == b"0123"
    with pytest.raises(TooLarge, match="10 bytes is over the size cap of 9 bytes"):
        read_tree_file(root, "closed/a/f.txt", 9)
    with pytest.raises(NotFound):
        read_tree_file(root, "closed/a/missing.txt", 10)
    with pytest.raises(NotFound, match="f.txt is a regular file, not a folder"):
        read_tree_file(root, "closed/a/f.txt/g.txt", 10)
    for bad in ("closed/../closed/a/f.txt", "/etc/passwd", "closed//a/f.txt"):
        with pytest.raises(RefusedTreeFile, match="not a plain path inside the tree"):
            read_tree_file(root, bad, 10)
    linked = tmp_path / "linked-root"
    linked.symlink_to(root)  # the operator's layout up to the root may be links
    assert read_tree_file(linked, "closed/a/f.txt", 10) == b"0123456789"
    with pytest.raises(RefusedTreeFile, match="is in /proc"):
        read_tree_file("/proc/self", "environ", 10**6)
