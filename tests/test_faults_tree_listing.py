"""Fault suite, issue 54 item 6: a listing stays inside the tree.

A tree is listed only through folders inside it (warehouse/trees/reading.py, TreeFolder): a
symbolic link, to a folder or a file, out of the tree or in a loop, is one quarantine record naming
the link's own path in the tree, and nothing below it or where it leads is listed. Each case builds
a small tree in a temp directory (Hailo's v0.5 entry, copied from the shared trees) with links
planted in it, rebuilds and loads it as `trees` does (or runs the tree ingest), and checks the quarantine rows and that no name
from outside the tree reaches a table or an output.
"""
from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest

from tests.conftest import SHARED
from tests.readers import connect_file
from tests.test_faults_trees import KRAI, every_row_as_text, in_tree, ingest
from tests.test_trees_load import krai_warehouse  # noqa: F401 - a fixture: v6.0 Krai's 2 results on 1 system
from tests.trees_layout import round_repositories, without
from warehouse.trees.listing import LINK_NOTE
from warehouse.trees.rebuilding import rebuild_tree
from warehouse.trees.loading import load_rebuilt
from warehouse.store import db

HAILO = SHARED / "trees" / "inference_results_v0.5" / "closed" / "Hailo"
REFUSED = f"refused: {LINK_NOTE}"


def query(db_file: str, sql: str, parameters: list | None = None) -> list[tuple]:
    with connect_file(db_file, read_only=True) as con:
        return con.execute(sql, parameters or []).fetchall()


@pytest.fixture
def outside(tmp_path) -> tuple[Path, str]:
    """A folder outside every tree, holding a credentials file and a folder with a unique name."""
    marker = uuid.uuid4().hex[:12]
    folder = tmp_path / f"outside-{marker}"
    (folder / f"secrets-{marker}").mkdir(parents=True)
    (folder / f"creds-{marker}.json").write_text('{"token": "x"}')
    (folder / f"secrets-{marker}" / f"key-{marker}.pem").write_text("key")
    return folder, marker


@pytest.fixture
def hostile_v05(tmp_path, outside) -> Path:
    """A v0.5 source: Hailo's real entry, and links planted at each level a listing walks."""
    folder, _ = outside
    closed = tmp_path / "source" / "inference_results_v0.5" / "closed"
    shutil.copytree(HAILO, closed / "Hailo")
    (closed / "UsrLink" / "systems").mkdir(parents=True)
    (closed / "UsrLink" / "results").symlink_to("/usr")                      # a folder out of the tree
    scenario = closed / "Hailo" / "results" / "Hailo8" / "resnet" / "Server"
    scenario.symlink_to(folder)                                               # a scenario folder out of it
    (closed / "Hailo" / "results" / "Hailo8" / "loop").symlink_to(".")       # a loop
    stray = closed / "Hailo" / "results" / "Hailo8" / "mobilenet" / "Server"
    stray.mkdir()
    (stray / "notes.txt").write_text("a stray run folder")
    (stray / "creds.json").symlink_to(folder / f"creds-{outside[1]}.json")  # a file out of it
    (stray / "more").symlink_to(folder)
    (closed / "Elsewhere").symlink_to(folder)                                 # a submitter folder out of it
    return tmp_path / "source"


def test_a_rebuilt_tree_names_each_link_once_and_nothing_behind_it(hostile_v05, outside, tmp_path):
    """What `trees` does for a round without a table: rebuild its rows from the tree and load them."""
    folder, marker = outside
    db_file = str(tmp_path / "w.duckdb")
    rebuilt = rebuild_tree("v0.5", hostile_v05 / "inference_results_v0.5")
    with db.connect(db_file) as con:
        load_rebuilt(con, rebuilt)
    links = query(db_file, "SELECT json_extract_string(raw_record, '$.path'), reasons FROM quarantine "
                           "WHERE list_contains(reasons, ?) ORDER BY 1", [REFUSED])
    hailo = "closed/Hailo/results/Hailo8"
    assert [path for path, _ in links] == sorted([
        "closed/UsrLink/results", f"{hailo}/resnet/Server", f"{hailo}/loop", f"{hailo}/mobilenet/Server/creds.json",
        f"{hailo}/mobilenet/Server/more", "closed/Elsewhere"])
    assert all(reasons == [REFUSED] for _, reasons in links)
    stray = query(db_file, "SELECT reasons FROM quarantine WHERE json_extract_string(raw_record, '$.path') = ?",
                  [f"{hailo}/mobilenet/Server"])
    assert stray == [(["a run folder with no performance/run_1/mlperf_log_summary.txt; it holds: notes.txt"],)]
    # Hailo's six real runs still load; only the six links and the stray are quarantined
    assert query(db_file, "SELECT count(*) FROM results WHERE source_id = 'rebuilt/v0.5'") == [(6,)]
    assert query(db_file, "SELECT count(*) FROM quarantine WHERE source_id = 'rebuilt/v0.5'") == [(7,)]
    everything = every_row_as_text(db_file)
    assert marker not in everything and str(folder) not in everything and "/usr" not in everything


@pytest.fixture
def krai_tree(tmp_path) -> Path:
    return round_repositories(tmp_path / "repos", rounds=("v6.0",))


def test_an_unrecognized_run_folder_names_its_links_not_what_they_hold(krai_warehouse, krai_tree, outside):
    """The tree ingest lists a run folder that holds no summary file: a link in it is named as itself."""
    folder, marker = outside
    offline = in_tree(krai_tree, f"{KRAI}/offline")
    without(krai_tree, "v6.0", f"{KRAI}/offline/performance")
    (offline / "creds.json").symlink_to(folder / f"creds-{marker}.json")
    (offline / "secrets").symlink_to(folder)
    (offline / "loop").symlink_to(".")
    ingest(krai_warehouse, krai_tree)
    held = query(krai_warehouse, "SELECT status, files_held FROM tree_files WHERE run_path = ?",
                 [f"{KRAI}/offline/performance/run_1"])
    assert held == [("unrecognized", ["TEST04/performance/run_1/mlperf_log_summary.txt", *(
        f"{name} ({LINK_NOTE})" for name in ("creds.json", "loop", "secrets"))])]
    assert marker not in every_row_as_text(krai_warehouse)


def test_a_listing_never_enters_a_link_nor_loops(tmp_path, outside):
    from warehouse.trees.listing import WALKED_DEPTH, TreeFolder, walk_tree_folder
    from warehouse.trees.reading import RefusedTreeFile
    folder, marker = outside
    tree = tmp_path / "tree"
    (tree / "a" / "b").mkdir(parents=True)
    (tree / "a" / "b" / "f.txt").write_text("x")
    (tree / "a" / "out").symlink_to(folder)
    (tree / "a" / "b" / "up").symlink_to("..")
    (tree / "a" / "dangling").symlink_to(tmp_path / "nothing")
    with TreeFolder.open(tree, "a") as folder:
        entries = folder.entries()
    assert (entries.folders, entries.files, entries.links) == (["b"], [], ["dangling", "out"])
    assert walk_tree_folder(tree, "a") == (["b/f.txt"], ["b/up", "dangling", "out"], True)
    assert walk_tree_folder(tree, "a", at_most=1)[2] is False
    with pytest.raises(RefusedTreeFile, match="a/out is a symbolic link"):
        TreeFolder.open(tree, "a/out")
    deep = tree / "d" / "/".join(["x"] * (WALKED_DEPTH + 4))
    deep.mkdir(parents=True)
    (deep / "f.txt").write_text("x")
    assert walk_tree_folder(tree, "d") == ([], [], False)  # a folder too deep is not entered, and said


def test_below_a_scenario_folder_only_the_way_to_its_summary_is_looked_at(tmp_path, outside):
    """performance/ and run_1/ are not listed: a link beside the way (LoadGen's detail log pointing out
    of the tree) is neither followed nor read nor reported; a link on the way is, as one record."""
    from warehouse.trees.listing import list_folder
    folder, _ = outside
    run = tmp_path / "closed" / "Sub" / "results" / "P" / "resnet"
    (run / "Offline" / "performance" / "run_1").mkdir(parents=True)
    (run / "Offline" / "performance" / "run_1" / "mlperf_log_summary.txt").write_text("Scenario : Offline\n")
    (run / "Offline" / "performance" / "run_1" / "mlperf_log_detail.txt").symlink_to(folder)
    (run / "Offline" / "performance" / "secrets").symlink_to(folder)
    (run / "Server" / "performance").mkdir(parents=True)
    (run / "Server" / "performance" / "run_1").symlink_to(folder)
    listing = list_folder(tmp_path, "closed/Sub")
    assert listing.summaries == ["closed/Sub/results/P/resnet/Offline/performance/run_1/mlperf_log_summary.txt"]
    assert listing.links == ["closed/Sub/results/P/resnet/Server/performance/run_1"] and listing.strays == []
