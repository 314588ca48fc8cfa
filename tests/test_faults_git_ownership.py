"""Fault suite, the clone's folder (`trees --git`, issue 61): a clone owns only what it made. The
warehouse marks the folder it clones into; a folder at that path it did not make (a user's notes, a
user's own checkout with local commits, a link) is never removed or written into: the clone goes
beside it. `--git` loads whether the round was loaded from a folder before, or its clone was removed
or replaced. Real git over file:// (tests/git_server.py), the CLI run plainly in this process."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.faults import files_in, one_error_line
from tests.git_server import run_git
from tests.readers import connect_file
from tests.test_faults_git import REPOSITORY, SUMMARY, SYSTEM, checked_out, home, round_files, served  # noqa: F401
from warehouse.identity.rounds import load_registry
from warehouse.trees.clone_folders import BESIDE, MARKER
from warehouse.trees.cloning import CloneFailed, clone_round

LOADED = "v0.5: 1 result rows rebuilt from 2 files"


def tree_of(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` (its .git too) -> its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def users_checkout(served: Path, where: Path) -> str:
    """A whole (not sparse) checkout of the round at `where` with a commit of the user's own on top;
    that commit's id."""
    run_git("clone", "-q", "--", f"file://{served}/{REPOSITORY}", str(where))
    (where / "analysis.md").write_text("my findings\n")
    run_git("add", "analysis.md", cwd=where)
    run_git("-c", "user.name=u", "-c", "user.email=u@u", "commit", "-q", "-m", "mine", cwd=where)
    return run_git("rev-parse", "HEAD", cwd=where).strip()


@pytest.mark.slow
@pytest.mark.parametrize("theirs", ["notes", "checkout"])
def test_a_folder_the_warehouse_did_not_make_survives_and_the_clone_goes_beside_it(theirs, served, tmp_path,
                                                                                    home, plain_cli):
    folder = tmp_path / "trees" / REPOSITORY
    folder.mkdir(parents=True)
    if theirs == "notes":
        (folder / "notes.txt").write_text("do not lose me\n")
    else:
        shutil.rmtree(folder)
        commit = users_checkout(served, folder)
    before = tree_of(folder)
    code, out, err = plain_cli("trees", "--rounds", "v0.5", "--git", f"file://{served}", "--db", tmp_path / "w.duckdb")
    assert code == 0, (out, err)
    assert tree_of(folder) == before
    if theirs == "checkout":
        assert run_git("rev-parse", "HEAD", cwd=folder).strip() == commit
    beside = tmp_path / "trees" / f"{REPOSITORY}{BESIDE}"
    assert LOADED in out and str(beside) in out
    assert checked_out(beside) == {SYSTEM, SUMMARY} and (beside / MARKER).is_file()
    assert f"{folder} is not a clone this warehouse made" in err and "left as it is" in err


def test_the_marker_records_the_url_without_its_token_the_round_and_when(served, tmp_path, home):
    tree = clone_round(f"file://{served}", load_registry()["v0.5"], tmp_path / "trees").root
    marker = json.loads((tree / MARKER).read_text())
    assert marker["url"] == f"file://{served}/{REPOSITORY}" and marker["round"] == "v0.5"
    assert marker["created"].endswith("+00:00") and marker["made_by"] == "mlperf-warehouse"


def test_both_places_taken_by_the_users_folders_is_one_line_and_nothing_touched(served, tmp_path, home, plain_cli):
    trees = tmp_path / "trees"
    for name in (REPOSITORY, f"{REPOSITORY}{BESIDE}"):
        (trees / name).mkdir(parents=True)
        (trees / name / "notes.txt").write_text(name)
    before = files_in(trees)
    code, out, err = plain_cli("trees", "--rounds", "v0.5", "--git", f"file://{served}", "--db", tmp_path / "w.duckdb")
    line = one_error_line(err)
    assert code == 1 and str(trees / REPOSITORY) in line and "move one of them away" in line, err
    assert {k: v for k, v in files_in(trees).items() if not k.endswith(".lock")} == before


def test_a_file_where_the_clones_folder_goes_is_one_line(served, tmp_path, home, plain_cli):
    (tmp_path / "trees").write_text("mine")
    code, out, err = plain_cli("trees", "--rounds", "v0.5", "--git", f"file://{served}", "--db", tmp_path / "w.duckdb")
    assert code == 1 and "cannot hold the clones" in one_error_line(err), err
    assert (tmp_path / "trees").read_text() == "mine"


def test_a_temporary_folder_of_the_users_beside_the_clone_is_not_taken_for_a_leftover(served, tmp_path, home):
    """A killed run's temporary clone is removed by the next; a folder of that shape the warehouse
    did not make (no marker in it) is not."""
    trees = tmp_path / "trees"
    mine = trees / f".{REPOSITORY}.clone-mine"
    mine.mkdir(parents=True)
    (mine / "keep.txt").write_text("mine")
    clone_round(f"file://{served}", load_registry()["v0.5"], trees)
    assert (mine / "keep.txt").read_text() == "mine"


def test_a_marked_clone_that_is_not_whole_is_the_warehouses_to_replace(served, tmp_path, home):
    cache = tmp_path / "trees"
    tree = clone_round(f"file://{served}", load_registry()["v0.5"], cache).root
    (tree / ".git" / "index.lock").write_text("")
    again = clone_round(f"file://{served}", load_registry()["v0.5"], cache).root
    assert again == tree and checked_out(again) == {SYSTEM, SUMMARY} and (again / MARKER).is_file()


def folder_load(tmp_path: Path, plain_cli) -> None:
    """v0.5 loaded from a folder of the user's (trees --source DIR), as before any clone."""
    source = tmp_path / "mine" / REPOSITORY
    for path, data in round_files().items():
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        (source / path).write_bytes(data)
    code, out, err = plain_cli("trees", "--rounds", "v0.5", "--source", tmp_path / "mine", "--db", tmp_path / "w.duckdb")
    assert code == 0 and LOADED in out, (out, err)


@pytest.mark.slow
@pytest.mark.parametrize("before", ["loaded from a folder", "clone removed", "clone replaced by a link"])
def test_git_loads_whatever_was_loaded_or_cloned_before(before, served, tmp_path, home, plain_cli):
    db_file, clone = tmp_path / "w.duckdb", tmp_path / "trees" / REPOSITORY
    git = ("trees", "--rounds", "v0.5", "--git", f"file://{served}", "--db", db_file)
    if before == "loaded from a folder":
        folder_load(tmp_path, plain_cli)
    else:
        assert plain_cli(*git)[0] == 0
        shutil.rmtree(clone)
        if before == "clone replaced by a link":
            folder_load(tmp_path, plain_cli)
            clone.symlink_to(tmp_path / "mine" / REPOSITORY)
    for force in ((), ("--force",)):
        code, out, err = plain_cli(*git, *force)
        assert code == 0, (out, err)
        assert "holds no submission tree" not in err
    with connect_file(str(db_file), read_only=True) as con:
        rows = con.execute("SELECT round, value FROM results WHERE round = 'v0.5'").fetchall()
    assert rows == [("v0.5", 41546.64)]
    if before == "clone replaced by a link":
        assert clone.is_symlink() and checked_out(tmp_path / "mine" / REPOSITORY) == set(round_files())


def test_a_clone_failure_leaves_a_users_folder_as_it_is(tmp_path, home):
    cache = tmp_path / "trees"
    (cache / REPOSITORY).mkdir(parents=True)
    (cache / REPOSITORY / "notes.txt").write_text("mine")
    with pytest.raises(CloneFailed):
        clone_round(f"file://{tmp_path}/nowhere", load_registry()["v0.5"], cache)
    assert (cache / REPOSITORY / "notes.txt").read_text() == "mine"
    assert not (cache / f"{REPOSITORY}{BESIDE}").exists()


def test_a_folder_marked_for_another_round_is_not_this_rounds_clone(served, tmp_path, home):
    cache = tmp_path / "trees"
    tree = clone_round(f"file://{served}", load_registry()["v0.5"], cache).root
    marker = json.loads((tree / MARKER).read_text())
    (tree / MARKER).write_text(json.dumps({**marker, "round": "v0.7"}))
    again = clone_round(f"file://{served}", load_registry()["v0.5"], cache).root
    assert again == cache / f"{REPOSITORY}{BESIDE}" and (tree / MARKER).is_file()
