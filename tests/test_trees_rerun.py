"""Unchanged means unread, and one pass per file (issue 56, items 1 and 2): a first run of `mlperf-wh
trees` opens each file of a round's tree once, for its result rows and its run summaries alike; a rerun
over a tree nothing changed in lists and compares (size, mtime, inode) and opens no tree file, leaving
the tables byte for byte as they were; a changed file is read again, alone, and its new value loaded."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.faults import digest, query
from tests.trees_layout import TREES

ROUND = "v0.5"
T4_SERVER = "closed/NVIDIA/results/T4x8/resnet/Server/performance/run_1"
TABLES = ("results", "run_summaries", "systems", "quarantine")


@pytest.fixture
def opened(monkeypatch) -> dict[str, list[str]]:
    """Every tree file opened: by the one pass (read in its folder as the listing finds it), or read
    again by its path, by the rebuild or by the tree ingest (both through reading.read_tree_file)."""
    from warehouse.trees import fetching, rebuilding
    paths: dict[str, list[str]] = {"rebuild": [], "ingest": []}

    def counting(read, step):
        def read_counted(root, relative, *args, **kwargs):
            paths[step].append(relative)
            return read(root, relative, *args, **kwargs)
        return read_counted

    def counting_in_folder(read):
        def read_counted(directory, name, label, *args, **kwargs):
            paths["rebuild"].append(label.split(f"inference_results_{ROUND}/", 1)[1])
            return read(directory, name, label, *args, **kwargs)
        return read_counted
    monkeypatch.setattr(fetching, "read_tree_file", counting(fetching.read_tree_file, "ingest"))
    monkeypatch.setattr(rebuilding, "read_inside_tree", counting(rebuilding.read_inside_tree, "rebuild"))
    monkeypatch.setattr(rebuilding, "read_in_folder", counting_in_folder(rebuilding.read_in_folder))
    return paths


NOTHING = {"rebuild": [], "ingest": []}


def _forget(opened: dict[str, list[str]]) -> None:
    for paths in opened.values():
        paths.clear()


@pytest.fixture
def source(tmp_path) -> Path:
    """v0.5's shared tree laid out as ../shared/mlcommons/trees is, in files of its own (copies, their
    mtimes kept: a hard link shares its inode's change time with every other link, which any test
    linking the shared files changes), its folders made a while ago (as a tree cloned before the
    run: settled, reading.settled)."""
    shutil.copytree(TREES / f"inference_results_{ROUND}", tmp_path / "trees" / f"inference_results_{ROUND}",
                    copy_function=shutil.copy2)
    _settle_folders(tmp_path / "trees")
    return tmp_path / "trees"


def _settle_folders(top: Path) -> None:
    """Every folder's mtime 10 s back: a folder changed before the run started."""
    import os
    for folder in [top, *(p for p in top.rglob("*") if p.is_dir() and not p.is_symlink())]:
        earlier = folder.stat().st_mtime - 10
        os.utime(folder, (earlier, earlier))


def _trees(plain_cli, source: Path, db_file: Path) -> str:
    code, out, err = plain_cli("trees", "--rounds", ROUND, "--source", source, "--db", db_file)
    assert code == 0, (out, err)
    return out


@pytest.mark.slow
def test_a_rerun_with_nothing_changed_opens_no_tree_file_and_leaves_every_row_as_it_was(
        plain_cli, source, opened, tmp_path):
    db_file = tmp_path / "w.duckdb"
    _trees(plain_cli, source, db_file)
    # each of the round's 647 files opened once: its rows and its 636 run summaries and system
    # descriptions come from the one read
    assert len(opened["rebuild"]) == len(set(opened["rebuild"])) == 647 and opened["ingest"] == []
    assert query(db_file, "SELECT count(*) FROM tree_files WHERE round = 'v0.5'") == [(636,)]
    before = digest(db_file, tables=TABLES)
    built = query(db_file, "SELECT built_at FROM _materialized")
    _forget(opened)
    out = _trees(plain_cli, source, db_file)
    assert opened == NOTHING
    assert digest(db_file, tables=TABLES) == before
    assert query(db_file, "SELECT built_at FROM _materialized") == built  # the views not rebuilt either
    # not even listed: a stat of each folder (its names unchanged) and each file (its bytes) finds them as they were
    assert "v0.5: unchanged since its last rebuild: 647 files" in out and "none listed again or read" in out


@pytest.mark.slow
def test_a_file_added_to_a_loaded_tree_is_found_and_read_alone(plain_cli, source, opened, tmp_path):
    """A new platform (its run summary and its system description): the folders that hold them changed
    (their mtime), so the tree is listed again, and the two new files alone are read."""
    import os
    db_file = tmp_path / "w.duckdb"
    _trees(plain_cli, source, db_file)
    tree = source / f"inference_results_{ROUND}" / "closed/NVIDIA"
    shutil.copytree(tree / "results/T4x8/resnet/Server", tree / "results/T4x8b/resnet/Server")
    shutil.copyfile(tree / "systems/T4x8.json", tree / "systems/T4x8b.json")
    _changed_a_while_ago(tree / "results/T4x8b/resnet/Server/performance/run_1/mlperf_log_summary.txt")
    _changed_a_while_ago(tree / "systems/T4x8b.json")
    _settle_folders(source)
    _forget(opened)
    out = _trees(plain_cli, source, db_file)
    assert sorted(opened["rebuild"]) == ["closed/NVIDIA/results/T4x8b/resnet/Server/performance/run_1/"
                                         "mlperf_log_summary.txt", "closed/NVIDIA/systems/T4x8b.json"]
    assert opened["ingest"] == [] and "649 files" in out and "2 read, 647 as the last rebuild read them" in out
    # 41546.64 scheduled samples per second, as T4x8's: the new platform's row, beside T4x8's
    assert query(db_file, "SELECT platform, value FROM results WHERE round = 'v0.5' AND model = 'resnet' "
                          "AND scenario = 'Server' AND platform LIKE 'T4x8%' ORDER BY platform") == [
        ("T4x8", 41546.64), ("T4x8b", 41546.64)]
    _forget(opened)
    out = _trees(plain_cli, source, db_file)
    assert opened == NOTHING and "none listed again or read" in out
    os.remove(tree / "systems/T4x8b.json")   # a file removed: its folder changed, its row goes
    _settle_folders(source)
    _trees(plain_cli, source, db_file)
    # the summary's row is quarantined now (no system description), its record showing the summary's
    # text: read for it, the one file opened
    assert opened == {"rebuild": ["closed/NVIDIA/results/T4x8b/resnet/Server/performance/run_1/"
                                  "mlperf_log_summary.txt"], "ingest": []}
    assert query(db_file, "SELECT count(*) FROM results WHERE round = 'v0.5' AND platform = 'T4x8b'") == [(0,)]
    assert query(db_file, "SELECT reasons FROM quarantine WHERE source_id = 'rebuilt/v0.5' AND raw_record LIKE "
                          "'%T4x8b/resnet/Server%'") == [(["no system description closed/NVIDIA/systems/T4x8b.json"],)]


@pytest.mark.slow
def test_a_changed_summary_is_read_again_alone_by_the_tree_ingest_and_its_new_figure_loads(
        plain_cli, source, opened, tmp_path):
    db_file = tmp_path / "w.duckdb"
    _trees(plain_cli, source, db_file)
    summary = source / f"inference_results_{ROUND}" / T4_SERVER / "mlperf_log_summary.txt"
    text = summary.read_text()
    assert "Scheduled samples per second : 41546.64" in text
    summary.unlink()   # written anew: a new inode
    summary.write_text(text.replace("Scheduled samples per second : 41546.64", "Scheduled samples per second : 41000.5"))
    _changed_a_while_ago(summary)
    _forget(opened)
    _trees(plain_cli, source, db_file)
    # the changed summary alone is opened: every other file's rows are built from what the last run read
    assert opened == {"rebuild": [f"{T4_SERVER}/mlperf_log_summary.txt"], "ingest": []}
    assert query(db_file, f"SELECT value FROM results WHERE location = '{T4_SERVER}'") == [(41000.5,)]
    assert query(db_file, "SELECT scheduled_samples_per_second FROM run_summaries "
                          f"WHERE run_path = '{T4_SERVER}'") == [(41000.5,)]
    _forget(opened)
    _trees(plain_cli, source, db_file)
    assert opened == NOTHING


@pytest.mark.slow
def test_a_file_read_as_it_is_written_is_read_again_at_the_next_run(plain_cli, source, opened, tmp_path):
    """A file modified within the last 2 s may change again, same size, within its mtime's tick: its
    identity is not recorded (nor its round's), so the next run reads it, and records it once settled."""
    db_file = tmp_path / "w.duckdb"
    _trees(plain_cli, source, db_file)
    summary = source / f"inference_results_{ROUND}" / T4_SERVER / "mlperf_log_summary.txt"
    content = summary.read_bytes()
    summary.unlink()
    summary.write_bytes(content)   # just now
    _forget(opened)
    _trees(plain_cli, source, db_file)
    assert opened == {"rebuild": [f"{T4_SERVER}/mlperf_log_summary.txt"], "ingest": []}
    _forget(opened)
    _trees(plain_cli, source, db_file)
    assert opened == {"rebuild": [f"{T4_SERVER}/mlperf_log_summary.txt"], "ingest": []}
    _changed_a_while_ago(summary)
    _trees(plain_cli, source, db_file)
    _forget(opened)
    _trees(plain_cli, source, db_file)
    assert opened == NOTHING


def _changed_a_while_ago(path: Path) -> None:
    """Its mtime 10 s back: settled (reading.settled), as a file changed before the run started."""
    import os
    earlier = path.stat().st_mtime - 10
    os.utime(path, (earlier, earlier))


@pytest.mark.slow
def test_a_touched_file_is_read_once_more_then_left_unopened(plain_cli, source, opened, tmp_path):
    """The same bytes under a new mtime: read again (its sha256 the same: nothing loaded), its new
    identity recorded, and not opened at the next run."""
    import os
    db_file = tmp_path / "w.duckdb"
    _trees(plain_cli, source, db_file)
    before = digest(db_file, tables=TABLES)
    system = source / f"inference_results_{ROUND}" / "closed/NVIDIA/systems/T4x8.json"
    content = system.read_bytes()
    mtime = system.stat().st_mtime
    system.unlink()
    system.write_bytes(content)
    os.utime(system, (mtime + 5, mtime + 5))
    _forget(opened)
    _trees(plain_cli, source, db_file)
    assert opened == {"rebuild": ["closed/NVIDIA/systems/T4x8.json"], "ingest": []}
    assert digest(db_file, tables=TABLES) == before
    _forget(opened)
    _trees(plain_cli, source, db_file)
    assert opened == NOTHING
