"""A v1.0 power run, whose LoadGen and analyzer logged local times (issue 62): its figure read as the
checker reads it, the window shifted by performance/power/client.json's timezone and each sample by
server.json's (tests/fixtures/power_v1.0), equal to the independent reading of bench/power_floor.py;
a timezone file missing, unreadable, not a whole number of seconds or beyond any zone is one
quarantined figure naming the file, its performance row kept; an unchanged timezone file is not
opened again, a changed one reopens its sample log; a round that logged UTC never looks at them."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.faults import query
from tests.trees_layout import v10_repository

ACME = "closed/AcmeAI"
PLATFORM = "edgebox_MaxQ"
POWER_SOURCE = "rebuilt/v1.0/power"


def _run(platform: str = PLATFORM) -> str:
    return f"{ACME}/results/{platform}/resnet50/Offline/performance/run_1"


def _power_folder(platform: str = PLATFORM) -> str:
    return f"{ACME}/results/{platform}/resnet50/Offline/performance/power"


def _tree(top: Path, round_name: str = "v1.0") -> Path:
    """The fixture round copied to top/inference_results_<round> (its files' times kept), its folders
    made a while ago (settled)."""
    tree = v10_repository(top / f"inference_results_{round_name}")
    _settle(tree)
    return tree


def _settle(tree: Path, *written: str) -> None:
    """Its folders, and the files written here, modified a while ago (a file touched again changes its
    identity: it would be read again)."""
    earlier = time.time() - 10
    for path in [tree, *(p for p in tree.rglob("*") if p.is_dir()), *(tree / w for w in written)]:
        os.utime(path, (earlier, earlier), follow_symlinks=False)


def _rebuild(tree: Path, db_file: str, round_name: str = "v1.0"):
    from warehouse.identity.rounds import load_registry
    from warehouse.trees.run import rebuild_rounds
    return rebuild_rounds([load_registry()[round_name]], str(tree.parent), db_file)[0]


def _floor(tree: Path) -> list[dict]:
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "power_floor.py"), "--json", str(tree)],
                          capture_output=True, text=True, timeout=60, check=True)
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_a_v1_0_figure_is_read_on_the_shifted_clocks_and_equals_the_independent_reading(tmp_path):
    tree, db_file = _tree(tmp_path / "trees"), str(tmp_path / "w.duckdb")
    (tree / _power_folder() / "server.json").write_text('{"timezone": 28798}')   # the analyzer's clock 2 s ahead
    _settle(tree, f"{_power_folder()}/server.json")
    done = _rebuild(tree, db_file)
    assert done.line().endswith(f"; 1 measured power figures, 0 quarantined (source_id {POWER_SOURCE})")
    [(value, unit, rule, checker, system)] = query(db_file, "SELECT value, unit, rule, checker, system FROM power_readings")
    # t + 28798 > power_begin + 28800: 20:00:03.500 to 20:00:07.500 of the analyzer, 230, 240, 250 and 900 W
    assert (value, unit) == ((230 + 240 + 250 + 900) / 4, "Watts")
    assert "client.json's timezone (28800 s), each sample's time + server.json's (28798 s)" in rule
    assert "check_power_dir (v2.1 era)" in checker and system == "AcmeAI EdgeBox (MaxQ)"
    [floor] = _floor(tree)
    assert (floor["run_path"], floor["unit"]) == (_run(), "Watts") and abs(floor["value"] - value) <= 1e-5 * value
    assert query(db_file, f"SELECT count(*) FROM results WHERE location = '{_run()}' AND metric = 'performance'") \
        == [(1,)]


# ---------------------------------------------------------------------------------------------
# hostile timezone files: one quarantined figure each, naming the file


def _write(tree: Path, platform: str, name: str, content: bytes | None) -> None:
    path = tree / _power_folder(platform) / name
    path.unlink()
    if content is not None:
        path.write_bytes(content)


def _fifo(tree: Path, platform: str, name: str) -> None:
    path = tree / _power_folder(platform) / name
    path.unlink()
    os.mkfifo(path)


# case -> (what is done to the run's power folder, the reason said)
HOSTILE = {
    "client.json missing": (lambda tree, p: _write(tree, p, "client.json", None),
                            "performance/power/client.json: not in the tree; rounds before v1.1 logged local times "
                            "and the checker shifts power_begin and power_end by its timezone: not computed"),
    "no power folder": (lambda tree, p: shutil.rmtree(tree / _power_folder(p)),
                        "performance/power/client.json: not in the tree"),
    "server.json unreadable (a FIFO)": (lambda tree, p: _fifo(tree, p, "server.json"),
                                        "performance/power/server.json: cannot be read: "),
    "server.json not JSON": (lambda tree, p: _write(tree, p, "server.json", b'{"timezone": 288'),
                             "performance/power/server.json: not JSON"),
    "client.json not an integer": (lambda tree, p: _write(tree, p, "client.json", b'{"timezone": "28800"}'),
                                   'performance/power/client.json: "timezone" is "28800", not a whole number of '
                                   "seconds"),
    "server.json beyond any zone": (lambda tree, p: _write(tree, p, "server.json", b'{"timezone": 288000}'),
                                    'performance/power/server.json: "timezone" is 288000 s, beyond any zone on Earth'),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> str:
    """The fixture round with the power run copied once per hostile case (a platform each), each copy's
    power folder made hostile, rebuilt: the warehouse."""
    tree = _tree(tmp_path_factory.mktemp("hostile") / "trees")
    for n, (change, _) in enumerate(HOSTILE.values()):
        platform = f"{PLATFORM}_{n}"
        shutil.copytree(tree / ACME / "results" / PLATFORM, tree / ACME / "results" / platform)
        shutil.copyfile(tree / ACME / "systems" / f"{PLATFORM}.json", tree / ACME / "systems" / f"{platform}.json")
        change(tree, platform)
    _settle(tree)
    db_file = str(tmp_path_factory.mktemp("hostile_db") / "w.duckdb")
    _rebuild(tree, db_file)
    return db_file


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_timezone_file_is_one_quarantined_figure_and_its_performance_row_stays(hostile, case):
    run = _run(f"{PLATFORM}_{list(HOSTILE).index(case)}")
    mine = [(json.loads(raw), reasons) for raw, reasons in query(
        hostile, f"SELECT raw_record, reasons FROM quarantine WHERE source_id = '{POWER_SOURCE}'")
        if json.loads(raw)["run_path"] == run]
    assert len(mine) == 1 and len(mine[0][1]) == 1, mine
    assert mine[0][1][0].startswith(HOSTILE[case][1]), mine[0][1][0]
    assert mine[0][0]["client_path"] == f"{run.removesuffix('run_1')}power/client.json"
    assert query(hostile, f"SELECT count(*) FROM power_readings WHERE run_path = '{run}'") == [(0,)]
    assert query(hostile, f"SELECT count(*) FROM results WHERE location = '{run}' AND metric = 'performance'") == [(1,)]


def test_the_untouched_power_run_is_read_and_no_result_row_is_lost(hostile):
    assert query(hostile, "SELECT run_path, value FROM power_readings") == [(_run(), 225.0)]
    assert query(hostile, "SELECT count(*) FROM results WHERE round = 'v1.0'") == [(2 * (1 + len(HOSTILE)),)]
    assert query(hostile, "SELECT count(*) FROM quarantine WHERE source_id = 'rebuilt/v1.0'") == [(0,)]


# ---------------------------------------------------------------------------------------------
# unchanged means unread; a round of UTC times never reads them


@pytest.fixture
def opened(monkeypatch) -> list[str]:
    """Every tree file the one pass opens, relative to its round's tree."""
    from warehouse.trees import rebuilding
    paths: list[str] = []
    read = rebuilding.read_in_folder

    def counted(directory, name, label, *args, **kwargs):
        paths.append(label.split("/inference_results_", 1)[1].split("/", 1)[1])
        return read(directory, name, label, *args, **kwargs)
    monkeypatch.setattr(rebuilding, "read_in_folder", counted)
    return paths


def test_a_changed_timezone_file_reopens_it_and_its_sample_log_only(tmp_path, opened):
    tree, db_file = _tree(tmp_path / "trees"), str(tmp_path / "w.duckdb")
    _rebuild(tree, db_file)
    power = [f"{_run()}/mlperf_log_detail.txt", f"{_power_folder()}/client.json", f"{_power_folder()}/server.json",
             f"{_run()}/spl.txt"]
    assert [p for p in opened if p in power] == power      # read in this order: the window's files first
    opened.clear()
    assert _rebuild(tree, db_file).unchanged and opened == []
    (tree / _power_folder() / "server.json").write_text('{"timezone": 28798}')
    _settle(tree, f"{_power_folder()}/server.json")
    _rebuild(tree, db_file)
    assert sorted(opened) == sorted([f"{_power_folder()}/server.json", f"{_run()}/spl.txt"])
    assert query(db_file, "SELECT value FROM power_readings") == [((230 + 240 + 250 + 900) / 4,)]


def test_a_round_that_logged_utc_never_opens_the_timezone_files(tmp_path, opened):
    tree = _tree(tmp_path / "trees", "v1.1")
    (tree / _power_folder() / "server.json").write_text('{"timezone": 28798}')   # would shift a v1.0 reading
    _settle(tree, f"{_power_folder()}/server.json")
    _rebuild(tree, str(tmp_path / "w.duckdb"), "v1.1")
    assert not any(p.startswith(_power_folder()) for p in opened) and len(opened) == 5
    assert query(str(tmp_path / "w.duckdb"), "SELECT value, rule FROM power_readings") == [
        (225.0, "mean W of the samples inside the window")]
