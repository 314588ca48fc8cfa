"""The tree of a round the user does not have: a partial, sparse clone of a local bare repository served
over file:// with filtering allowed, holding only the files the rebuild reads; `trees --git` loads its
rows into the same marts; a server that does not allow filtering is refused, not cloned whole."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SHARED
from tests.readers import connect_file
from warehouse.identity.rounds import load_registry
from warehouse.trees.clone_folders import MARKER
from warehouse.trees.cloning import CloneFailed, clone_round
from warehouse.trees.rebuilding import rebuild_tree

V05 = SHARED / "trees" / "inference_results_v0.5"
SYSTEM = "closed/NVIDIA/systems/T4x8.json"
SERVER = "closed/NVIDIA/results/T4x8/resnet/Server"
KEPT = {SYSTEM, f"{SERVER}/performance/run_1/mlperf_log_summary.txt"}
LEFT_OUT = {f"{SERVER}/performance/run_1/mlperf_log_detail.txt", f"{SERVER}/accuracy/mlperf_log_accuracy.json",
            "closed/NVIDIA/code/README.md"}


def git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def served_repository(tmp_path) -> Path:
    """A bare inference_results_v0.5 under tmp_path/served: the T4x8 system and Server summary copied
    from the shared tree, beside a detail log, an accuracy log of 2 MB and a README."""
    work = tmp_path / "work"
    for path in KEPT:
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(V05 / path, work / path)
    for path in LEFT_OUT:
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_bytes(b"x" * (2 * 1024 * 1024 if path.endswith(".json") else 100))
    git("init", "-q", "-b", "main", cwd=work)
    git("add", "-A", cwd=work)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "round", cwd=work)
    bare = tmp_path / "served" / "inference_results_v0.5"
    git("clone", "-q", "--bare", str(work), str(bare))
    git("config", "uploadpack.allowFilter", "true", cwd=bare)
    return bare


def test_a_sparse_partial_clone_holds_only_the_files_the_rebuild_reads(served_repository, tmp_path):
    base = f"file://{served_repository.parent}"
    tree = clone_round(base, load_registry()["v0.5"], tmp_path / "cache").root
    checked_out = {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file() and ".git" not in p.parts}
    assert checked_out == KEPT | {MARKER}  # and the warehouse's marker: the folder is its own
    # The left-out files' blobs were never fetched: git lists them as missing objects ('?').
    missing = {line[1:] for line in git("rev-list", "--objects", "--missing=print", "HEAD", cwd=tree).splitlines()
               if line.startswith("?")}
    left_out_blobs = {git("rev-parse", f"HEAD:{path}", cwd=served_repository).strip() for path in LEFT_OUT}
    assert left_out_blobs <= missing
    rows = rebuild_tree("v0.5", tree).rows
    assert [(r["location"], r["value"]) for r in rows] == [(f"{SERVER}/performance/run_1", 41546.64)]
    # a second run brings the clone up to date in place
    assert clone_round(base, load_registry()["v0.5"], tmp_path / "cache").root == tree


def test_a_server_without_filtering_is_refused(served_repository, tmp_path):
    git("config", "uploadpack.allowFilter", "false", cwd=served_repository)
    with pytest.raises(CloneFailed, match="does not allow partial clones"):
        clone_round(f"file://{served_repository.parent}", load_registry()["v0.5"], tmp_path / "cache")
    assert not (tmp_path / "cache" / "inference_results_v0.5").exists()


def test_trees_with_git_loads_a_round_without_a_table_into_the_marts(served_repository, tmp_path, cli):
    db_file = tmp_path / "w.duckdb"
    code, out, err = cli("trees", "--rounds", "v0.5", "--git", f"file://{served_repository.parent}",
                         "--db", db_file)
    assert code == 0, (out, err)
    assert "v0.5: 1 result rows rebuilt from 2 files" in out
    with connect_file(str(db_file), read_only=True) as con:
        found = con.execute("SELECT accelerator, accelerator_count, round, result, source_kind FROM accelerator_history"
                            ).fetchall()
    assert found == [("T4", 8, "v0.5", 41546.64, "submission tree")]
