"""Fault suite, issue 40: a submission tree is third-party content.

Krai's v6.0 entry (two run summaries and one system description) is laid out as a round repository
in a temp directory; each case makes one of its files hostile and runs the tree ingest, asserting
the exit code, what is said, and a digest of what must not change. Cases: links to a canary file
outside the tree, to /proc/self/environ and a FIFO or a device in place of a file (never read:
warehouse/trees/reading.py), odd JSON shapes and non-finite numbers (one file quarantined, the
others load), and a bad replacement of a loaded file (the last good row kept, the new file's fault
recorded).
"""
from __future__ import annotations

import json
import os
import shutil
import stat
import sys
import uuid
from pathlib import Path

import pytest

from tests.faults import digest, one_error_line, query
from tests.readers import connect_file
from tests.test_trees_load import krai_warehouse  # noqa: F401 - a fixture: v6.0 Krai's 2 results on 1 system
from tests.trees_layout import round_repositories, without

KRAI = "closed/Krai/results/h200_n1-kissv/wan-2.2-t2v-a14b"
KRAI_OFFLINE = f"{KRAI}/offline/performance/run_1/mlperf_log_summary.txt"
KRAI_SINGLE = f"{KRAI}/singlestream/performance/run_1/mlperf_log_summary.txt"
KRAI_SYSTEM = "closed/Krai/systems/h200_n1-kissv.json"
TREE_TABLES = ("run_summaries", "systems", "tree_files", "quarantine")


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


def ingest(db_file: str, source: str | Path, round_name: str = "v6.0"):
    """The plain functions `mlperf-wh trees` runs, without Prefect (and without rebuilding the views)."""
    from warehouse.identity.rounds import load_registry
    from warehouse.ingest.fetch import FetchSettings
    from warehouse.trees.fetching import fetch_chunk
    from warehouse.trees.loading import check, load
    from warehouse.trees.fetching import chunks
    from warehouse.trees.planning import plan
    from warehouse.store import db
    with db.connect(db_file) as con:
        files, _ = plan(con, [load_registry()[round_name]], str(source))
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
    from warehouse.trees.reading import RefusedTreeFile, read_tree_file
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


# --- one bad file costs one row, never the round, never an earlier row ----------------------------

VR = "closed/NVIDIA/results/VR-NVL72_VR-288GB_aarch64x72_TRT"
VR_OFFLINE = f"{VR}/qwen3-vl-235b-a22b/Offline/performance/result_summary.json"
VR_SERVER_REPORT = f"{VR}/qwen3-vl-235b-a22b/Server/report.txt"
VR_SYSTEM = "closed/NVIDIA/systems/VR-NVL72_VR-288GB_aarch64x72_TRT.json"
LAMBDA_OFFLINE = "closed/Lambda/results/B200-SXM-180GBx8_TRT/qwen3-vl-235b-a22b/Offline/performance/run_1/results.json"


def _set(*keys_and_value):
    *keys, last, value = keys_and_value

    def change(data):
        for key in keys:
            data = data[key]
        data[last] = value
    return change


def _text(old: str, new: str):
    return lambda content: content.replace(old.encode(), new.encode(), 1)


def _json(change):
    return lambda content: json.dumps(_changed(json.loads(content), change)).encode()


def _changed(data, change):
    change(data)
    return data


# (file, how its content changes, what the reason says). Each once crashed the round (exit 70) or loaded
# a rate that is not a number.
HOSTILE = {
    "histogram null": (VR_OFFLINE, _json(_set("ttft", "histogram", None)), "'ttft.histogram': expected an object with a list of 'counts', found null"),
    "histogram list": (VR_OFFLINE, _json(_set("latency", "histogram", [1, 2])), "'latency.histogram': expected an object with a list of 'counts', found a list"),
    "histogram string": (VR_OFFLINE, _json(_set("histogram", "x")), "'histogram': expected an object with a list of 'counts', found a string"),
    "histogram counts a number": (VR_OFFLINE, _json(_set("tpot", "histogram", {"counts": 3})), "found 'counts' a number"),
    "histogram without counts": (VR_OFFLINE, _json(_set("tpot", "histogram", {"bins": []})), "found an object without 'counts'"),
    "client histogram null": (LAMBDA_OFFLINE, _text('"results": {', '"results": {"histogram": null, '), "'results.histogram': expected an object"),
    "qps NaN": (VR_OFFLINE, _text('"qps": ', '"qps": NaN, "x": '), "JSON holding the non-finite number NaN"),
    "qps Infinity": (VR_OFFLINE, _text('"qps": ', '"qps": Infinity, "x": '), "JSON holding the non-finite number Infinity"),
    "qps 1e999999": (VR_OFFLINE, _text('"qps": ', '"qps": 1e999999, "x": '), "JSON holding the number 1e999999, beyond the range of a 64-bit float"),
    "client qps NaN": (LAMBDA_OFFLINE, _text('"qps": ', '"qps": NaN, "x": '), "member 'results': JSON holding the non-finite number NaN"),
    "qps twice": (VR_OFFLINE, _text('"qps": ', '"qps": 1.0, "qps": '), "JSON holding the key 'qps' twice in one object, with two values"),
    "client member twice": (LAMBDA_OFFLINE, _text('"results": {', '"results": {}, "results": {'), "the member 'results' twice, with two values"),
    "report 400-digit QPS": (VR_SERVER_REPORT, _text("QPS: ", "QPS: " + "9" * 400 + "0"), "(QPS): '99999999999999999999'... (408 characters) is beyond the range of a 64-bit float"),
    "report QPS twice": (VR_SERVER_REPORT, _text("QPS: ", "QPS: 1.00\nQPS: "), "(QPS): given twice, with two values"),
    "system NaN": (VR_SYSTEM, _text('"number_of_nodes": ', '"number_of_nodes": NaN, "x": '), "JSON holding the non-finite number NaN"),
}


@pytest.fixture(scope="module")
def v61_loaded(tmp_path_factory) -> str:
    """The constructed v6.1 table loaded (tests/fixtures/trees_v6.1), once per module."""
    from tests.trees_layout import v61_repository
    from warehouse.ingest.pipeline import ingest_location
    from warehouse.store import db
    here = tmp_path_factory.mktemp("v61")
    root = v61_repository(here / "source")
    path = str(here / "v61.duckdb")
    with db.connect(path) as con:
        ingest_location(con, "v6.1", "official", "summary_results.json",
                        str(root / "inference_results_v6.1" / "main" / "summary_results.json"))
    return path


@pytest.fixture
def v61_tree(v61_loaded, tmp_path):
    """(warehouse, source): a copy of the v6.1 warehouse, and the real v6.1 fixture files laid out as
    published (5 run folders, 2 systems of which Lambda's is not in the fixtures)."""
    from tests.faults import copy_of
    from tests.trees_layout import v61_repository
    return copy_of(v61_loaded, tmp_path), v61_repository(tmp_path / "source")


def v61_ingest(db_file: str, root: Path):
    return ingest(db_file, root, "v6.1")


def tree_digest(db_file: str) -> dict[str, str]:
    return digest(db_file, tables=("results", "run_summaries", "systems"))


@pytest.mark.parametrize("case", HOSTILE)
def test_one_hostile_file_costs_its_row_on_a_first_load(v61_tree, case):
    path, root = v61_tree
    relative, change, said = HOSTILE[case]
    if relative == VR_SERVER_REPORT:  # the report is read when the folder has no result_summary.json
        (root / "inference_results_v6.1" / relative).parent.joinpath("performance", "result_summary.json").unlink()
    target = root / "inference_results_v6.1" / relative
    target.write_bytes(change(target.read_bytes()))
    before = digest(path, tables=("results",))
    outcome = v61_ingest(path, root)
    assert outcome.counts == {"loaded": 5, "quarantined": 1, "missing": 1}, outcome.problems
    [problem] = outcome.problems
    assert relative in problem and said in problem, problem
    assert digest(path, tables=("results",)) == before
    assert query(path, "SELECT count(*) FROM run_summaries") == [(4 if relative != VR_SYSTEM else 5,)]
    assert query(path, "SELECT count(*) FROM run_summaries WHERE NOT isfinite(coalesce(samples_per_second, "
                       "completed_samples_per_second))") == [(0,)]


@pytest.mark.parametrize("case", ["histogram list", "qps NaN", "qps twice", "system NaN"])
def test_a_bad_replacement_keeps_the_last_good_row_and_names_the_new_files_fault(v61_tree, case):
    """It deleted the row already loaded (run_summaries 5 -> 4, exit 0); a bad round table leaves its
    round as it was, and so does a bad tree file now: the row stays, the new file is quarantined."""
    path, root = v61_tree
    relative, change, said = HOSTILE[case]
    assert v61_ingest(path, root).counts == {"loaded": 6, "missing": 1}
    before = tree_digest(path)
    target = root / "inference_results_v6.1" / relative
    target.write_bytes(change(target.read_bytes()))
    outcome = v61_ingest(path, root)
    assert outcome.counts == {"unchanged": 5, "quarantined": 1, "missing": 1}, outcome.problems
    [problem] = outcome.problems
    assert said in problem and problem.endswith("the row loaded from its earlier file is kept"), problem
    assert tree_digest(path) == before
    [(status, message)] = query(path, f"SELECT status, message FROM tree_files WHERE path = '{relative}'")
    assert status == "quarantined" and said in message
    [(reasons,)] = query(path, f"SELECT reasons FROM quarantine WHERE source_id = 'tree/v6.1/{relative}'")
    assert len(reasons) == 1 and said in reasons[0]
    # Fixed again: loads, its quarantine record gone, the row as it was.
    shutil.copyfile(_fixture_of(relative), target)
    assert v61_ingest(path, root).counts == {"unchanged": 5, "loaded": 1, "missing": 1}
    assert tree_digest(path) == {k: v for k, v in before.items()}
    assert query(path, "SELECT count(*) FROM quarantine WHERE source_id LIKE 'tree/%'") == [(0,)]


def _fixture_of(relative: str) -> Path:
    import tomllib

    from tests.trees_layout import V61_FIXTURES
    with (V61_FIXTURES / "manifest.toml").open("rb") as f:
        return V61_FIXTURES / next(e["name"] for e in tomllib.load(f)["file"] if e["path"] == relative)


@pytest.mark.slow
def test_trees_keeps_a_loaded_run_when_its_file_is_replaced_by_a_broken_one(cli, v61_tree):
    """The CLI's answer: exit 0, one `warning:` line naming the file and its fault, no `error:`;
    every row of run_summaries and systems as before."""
    path, root = v61_tree
    code, _, err = cli("--db", path, "trees", "--rounds", "v6.1", "--source", root)
    assert code == 0, err
    before = tree_digest(path)
    target = root / "inference_results_v6.1" / VR_OFFLINE
    target.write_bytes(_json(_set("ttft", "histogram", []))(target.read_bytes()))
    code, _, err = cli("--db", path, "trees", "--rounds", "v6.1", "--source", root)
    assert code == 0, err
    assert "Traceback" not in err and "error:" not in err, err
    [line] = [line for line in err.splitlines() if line.startswith("warning: ")]
    assert VR_OFFLINE in line and "'ttft.histogram': expected an object with a list of 'counts', found a list" in line
    assert tree_digest(path) == before
    assert query(path, "SELECT count(*) FROM run_summaries") == [(5,)]


@pytest.mark.slow
def test_a_tree_file_over_the_size_cap_is_one_error_line(cli, v61_tree):
    """A 70 MB result_summary.json (a sparse file: its size is refused before a byte is read)."""
    path, root = v61_tree
    assert v61_ingest(path, root).counts == {"loaded": 6, "missing": 1}
    before = tree_digest(path)
    target = root / "inference_results_v6.1" / VR_OFFLINE
    target.unlink()
    with target.open("wb") as f:
        f.truncate(70 * 1024 * 1024)
    code, _, err = cli("--db", path, "trees", "--rounds", "v6.1", "--source", root)
    assert code == 1
    line = one_error_line(err)
    assert VR_OFFLINE in line and "73400320 bytes is over the size cap of 67108864 bytes (MLPERF_FETCH_MAX_BYTES)" in line
    assert tree_digest(path) == before


@pytest.fixture
def cli(plain_cli):
    """Runs without a Prefect API: what a run refuses and says is the same code under a flow run."""
    return plain_cli
