"""The shared trees/ and mirror/ laid out as the round repositories are published
(`inference_results_vX.Y/main/{summary_results.json,closed/...,open/...}`), so a loopback HTTP server
or `trees --source DIR` can read them; and the v6.1 fixtures (tests/fixtures/trees_v6.1) laid out at
their published paths, and the made-up v1.0 power round (tests/fixtures/power_v1.0) at its paths.

The trees are hard links into ../shared/mlcommons (copies where a hard link cannot be made), not
symbolic links: the tree readers follow no symbolic link below a tree's root
(warehouse/trees/reading.py). A file a test changes is unlinked first and written anew
(`replace_file`), never written through its link."""
from __future__ import annotations

import json
import os
import shutil
import time
import tomllib
from pathlib import Path

from tests.conftest import MIRROR, ROOT, SHARED, SHARED_ROUNDS

TREES = SHARED / "trees"
V61_FIXTURES = ROOT / "tests" / "fixtures" / "trees_v6.1"
V10_FIXTURES = ROOT / "tests" / "fixtures" / "power_v1.0"
# the session warehouse's rounds whose tree the shared data holds (v6.1's table alone is shared)
TREE_ROUNDS = tuple(r for r in SHARED_ROUNDS if (TREES / f"inference_results_{r}").is_dir())


def round_repositories(root: Path, rounds=TREE_ROUNDS) -> Path:
    for name in rounds:
        branch = root / f"inference_results_{name}" / "main"
        branch.mkdir(parents=True)
        (branch / "summary_results.json").symlink_to(
            MIRROR / f"inference_results_{name}" / "main" / "summary_results.json")
        for division in (TREES / f"inference_results_{name}").iterdir():
            shutil.copytree(division, branch / division.name, copy_function=_link_or_copy)
    return root


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system, or hard links to others' files not allowed
        shutil.copyfile(source, target)


def without(root: Path, round_name: str, relative: str) -> None:
    """Take one folder or file out of a laid-out round (a folder linked whole, as summary_results.json
    is, becomes a real folder of links on the way down)."""
    branch = root / f"inference_results_{round_name}" / "main"
    parts = Path(relative).parts
    here = branch
    for part in parts[:-1]:
        here = here / part
        if here.is_symlink():
            target = here.resolve()
            here.unlink()
            here.mkdir()
            for child in target.iterdir():
                (here / child.name).symlink_to(child)
    target = here / parts[-1]
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    else:
        target.unlink()


def replace_file(root: Path, round_name: str, relative: str, content: bytes) -> None:
    """Serve `content` in place of one published file, as a newer file: its modification time is
    moved past the one served before, since HTTP's Last-Modified counts whole seconds and a
    conditional request within the same second would rightly be answered 304."""
    target = root / f"inference_results_{round_name}" / "main" / relative
    earlier = target.stat().st_mtime if target.exists() else 0.0
    without(root, round_name, relative)
    target.write_bytes(content)
    stamp = max(time.time(), earlier) + 2
    os.utime(target, (stamp, stamp))


def run_folder_of(record: dict) -> str:
    """The run folder a published record names, read independently of warehouse/trees.py."""
    location = record["Location"]
    location = location[2:] if location.startswith("./") else location
    return location if location.endswith("performance/run_1") else location + "/performance/run_1"


def published_records(round_name: str) -> list[dict]:
    return json.loads((MIRROR / f"inference_results_{round_name}" / "main" / "summary_results.json").read_bytes())


def v61_repository(root: Path) -> Path:
    """tests/fixtures/trees_v6.1 laid out as published (manifest.toml: each file's path), copied under
    root/inference_results_v6.1/: the trees at the repository's root, as ../shared/mlcommons/trees
    holds them, and the constructed final table at main/summary_results.json."""
    _laid_out(V61_FIXTURES, root / "inference_results_v6.1", shutil.copyfile)
    return root


def v10_repository(tree: Path) -> Path:
    """tests/fixtures/power_v1.0 laid out at its manifest's paths in `tree` (a round's tree root, named
    inference_results_<round> for a --source), its files' times kept."""
    _laid_out(V10_FIXTURES, tree, shutil.copy2)
    return tree


def v10_paths() -> dict[str, str]:
    """The power_v1.0 fixture's file names -> their paths in the round."""
    with (V10_FIXTURES / "manifest.toml").open("rb") as f:
        return {entry["name"]: entry["path"] for entry in tomllib.load(f)["file"]}


def _laid_out(fixtures: Path, tree: Path, copy) -> None:
    """A fixture folder's files copied (`copy`) to their manifest.toml paths under `tree`."""
    with (fixtures / "manifest.toml").open("rb") as f:
        manifest = tomllib.load(f)
    for entry in manifest["file"]:
        target = tree / entry["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        copy(fixtures / entry["name"], target)
