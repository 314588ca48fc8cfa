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
from tests.trees_layout import v10_paths, v10_repository
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


def served(tmp_path: Path, tree: Path, kept: set[str], left_out: set[str], refused: str | None = None) -> Path:
    """A bare copy of `tree`'s round under tmp_path/served, filtering allowed: the `kept` files copied
    from it, beside the `left_out` ones (2 MB of x for a .json, 100 bytes else); with `refused`, a
    folder of that name holding a .git folder too, a path git refuses to check out."""
    work = tmp_path / "work"
    for path in kept:
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(tree / path, work / path)
    for path in left_out:
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_bytes(b"x" * (2 * 1024 * 1024 if path.endswith(".json") else 100))
    git("init", "-q", "-b", "main", cwd=work)
    git("add", "-A", cwd=work)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "round", cwd=work)
    if refused:
        _with_a_git_folder(work, refused)
    bare = tmp_path / "served" / tree.name
    git("clone", "-q", "--bare", str(work), str(bare))
    git("config", "uploadpack.allowFilter", "true", cwd=bare)
    return bare


def _with_a_git_folder(work: Path, folder: str) -> None:
    """A commit whose `folder` (a folder of the root) also holds .git/systems/x.json, a file the sparse
    checkout asks for (*/*/systems/*.json) at a path git refuses; built from trees (git adds no such
    path itself)."""
    def made(command: list[str], given: str) -> str:
        return subprocess.run(["git", *command], input=given, text=True, cwd=work, capture_output=True,
                              check=True).stdout.strip()
    inner = made(["mktree"], f"100644 blob {made(['hash-object', '-w', '--stdin'], '{}')}\tx.json\n")
    systems = made(["mktree"], f"040000 tree {inner}\tsystems\n")
    odd = made(["mktree"], git("ls-tree", f"HEAD:{folder}", cwd=work) + f"040000 tree {systems}\t.git\n")
    root = made(["mktree"], git("ls-tree", "HEAD", cwd=work).replace(
        git("rev-parse", f"HEAD:{folder}", cwd=work).strip(), odd))
    commit = git("-c", "user.name=t", "-c", "user.email=t@t", "commit-tree", root, "-p", "HEAD", "-m", "odd", cwd=work)
    git("update-ref", "refs/heads/main", commit.strip(), cwd=work)


def checked_out(tree: Path) -> set[str]:
    return {p.relative_to(tree).as_posix() for p in tree.rglob("*") if p.is_file() and ".git" not in p.parts}


def never_fetched(tree: Path, served_at: Path, paths: set[str]) -> bool:
    """The blobs of `paths` were never fetched into the clone: git lists them as missing objects ('?')."""
    missing = {line[1:] for line in git("rev-list", "--objects", "--missing=print", "HEAD", cwd=tree).splitlines()
               if line.startswith("?")}
    return {git("rev-parse", f"HEAD:{path}", cwd=served_at).strip() for path in paths} <= missing


@pytest.fixture
def served_repository(tmp_path) -> Path:
    """A bare inference_results_v0.5 under tmp_path/served: the T4x8 system and Server summary copied
    from the shared tree, beside a detail log, an accuracy log of 2 MB and a README."""
    return served(tmp_path, V05, KEPT, LEFT_OUT)


def test_a_sparse_partial_clone_holds_only_the_files_the_rebuild_reads(served_repository, tmp_path):
    base = f"file://{served_repository.parent}"
    tree = clone_round(base, load_registry()["v0.5"], tmp_path / "cache").root
    assert checked_out(tree) == KEPT | {MARKER}  # and the warehouse's marker: the folder is its own
    assert never_fetched(tree, served_repository, LEFT_OUT)
    rows = rebuild_tree("v0.5", tree).rows
    assert [(r["location"], r["value"]) for r in rows] == [(f"{SERVER}/performance/run_1", 41546.64)]
    # a second run brings the clone up to date in place
    assert clone_round(base, load_registry()["v0.5"], tmp_path / "cache").root == tree


def test_a_server_without_filtering_is_refused(served_repository, tmp_path):
    git("config", "uploadpack.allowFilter", "false", cwd=served_repository)
    with pytest.raises(CloneFailed, match="does not allow partial clones"):
        clone_round(f"file://{served_repository.parent}", load_registry()["v0.5"], tmp_path / "cache")
    assert not (tmp_path / "cache" / "inference_results_v0.5").exists()


@pytest.mark.slow
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


V11 = SHARED / "trees" / "inference_results_v1.1"
KRAI = "closed/Krai"
POWERED = f"{KRAI}/results/xavier-power.0-fan.cool-armnn-v21.05-neon/resnet50/offline/performance/run_1"
UNPOWERED = f"{KRAI}/results/firefly-tflite-v2.5.0-ruy/resnet50/offline/performance/run_1"
POWER_KEPT = {f"{KRAI}/systems/xavier-power.0-fan.cool-armnn-v21.05-neon.json",
              f"{KRAI}/systems/firefly-tflite-v2.5.0-ruy.json", f"{POWERED}/mlperf_log_summary.txt",
              f"{POWERED}/spl.txt", f"{POWERED}/mlperf_log_detail.txt", f"{UNPOWERED}/mlperf_log_summary.txt"}


def test_a_clone_holds_the_power_files_of_power_runs_only(tmp_path):
    """A round with a power run (spl.txt beside its detail log) and a run without one: the clone checks
    out spl.txt and the power run's detail log, never the other run's (every run has one), nor the
    power/ folder; the rebuild reads the power figure from it."""
    left_out = {f"{UNPOWERED}/mlperf_log_detail.txt", f"{POWERED.removesuffix('run_1')}power/server.json"}
    bare = served(tmp_path, V11, POWER_KEPT, left_out)
    base = f"file://{bare.parent}"
    tree = clone_round(base, load_registry()["v1.1"], tmp_path / "cache").root
    assert checked_out(tree) == POWER_KEPT | {MARKER}
    assert never_fetched(tree, bare, left_out)
    rebuilt = rebuild_tree("v1.1", tree)
    assert [(r["run_path"], r["unit"]) for r in rebuilt.power_rows] == [(POWERED, "Watts")]
    # a second run finds the clone whole (its sparse checkout is ours) and brings it up to date in place
    made = (tree / ".git").stat().st_ino   # a clone made again is a new folder renamed into place
    assert clone_round(base, load_registry()["v1.1"], tmp_path / "cache").root == tree
    assert (tree / ".git").stat().st_ino == made and (tree / POWERED / "mlperf_log_detail.txt").is_file()


def test_a_tree_git_refuses_a_path_of_still_gives_its_power_files(tmp_path):
    """The checkout by pathspec (a .git folder in the tree fails the sparse checkout) checks out the
    power run's spl.txt and detail log by their paths, and the refused path is quarantined."""
    left_out = {f"{UNPOWERED}/mlperf_log_detail.txt"}
    bare = served(tmp_path, V11, POWER_KEPT, left_out, refused="closed")
    cloned = clone_round(f"file://{bare.parent}", load_registry()["v1.1"], tmp_path / "cache")
    assert checked_out(cloned.root) == POWER_KEPT | {MARKER} and never_fetched(cloned.root, bare, left_out)
    assert [path for path, _ in cloned.left_out] == ["closed/.git/systems/x.json"]
    assert [r["run_path"] for r in rebuild_tree("v1.1", cloned.root).power_rows] == [POWERED]


V10_SCENARIO = "closed/AcmeAI/results/edgebox_MaxQ/resnet50"
# a run without spl.txt: neither its detail log nor its power folder is fetched
V10_LEFT_OUT = {f"{V10_SCENARIO}/SingleStream/performance/run_1/mlperf_log_detail.txt",
                f"{V10_SCENARIO}/SingleStream/performance/power/client.json"}


@pytest.mark.parametrize("refused", [None, "closed"])
def test_a_v1_0_clone_holds_the_timezone_files_of_power_runs_only(tmp_path, refused):
    """A round of local times (v1.0): the clone checks out a power run's performance/power/client.json
    and server.json beside its spl.txt and detail log, by sparse checkout or (a tree git refuses a
    path of) by their paths, and the rebuild reads the figure on the checker's shifted clocks."""
    kept = set(v10_paths().values())
    bare = served(tmp_path, v10_repository(tmp_path / "fixture" / "inference_results_v1.0"), kept, V10_LEFT_OUT,
                  refused=refused)
    base = f"file://{bare.parent}"
    tree = clone_round(base, load_registry()["v1.0"], tmp_path / "cache").root
    assert checked_out(tree) == kept | {MARKER} and never_fetched(tree, bare, V10_LEFT_OUT)
    assert [(r["value"], r["unit"]) for r in rebuild_tree("v1.0", tree).power_rows] == [(225.0, "Watts")]
    if refused is None:  # a second run finds the sparse checkout its own and brings the clone up to date in place
        made = (tree / ".git").stat().st_ino
        assert clone_round(base, load_registry()["v1.0"], tmp_path / "cache").root == tree
        assert (tree / ".git").stat().st_ino == made
