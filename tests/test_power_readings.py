"""Measured power read from the trees as MLCommons' checker reads it (issue 62, items 1 and 2): one
figure per power run of v1.1 and v2.1, beside its performance row, equal to an independent reading of
the same files by the checker's formula (bench/power_floor.py, which imports nothing of the
warehouse); every hostile power file one quarantined figure with its reason, its performance row
kept; and a power file unchanged since the last pass is not opened again."""
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
from tests.trees_layout import TREES, _link_or_copy

V11 = "v1.1"
KRAI = "closed/Krai"
RESULTS = f"{KRAI}/results"
POWER_SOURCE = "rebuilt/v1.1/power"
SHARED_POWER_RUNS = {"v1.1": 194, "v2.1": 191}   # closed-division results measured with an analyzer


def _run(system: str, scenario: str = "offline") -> str:
    return f"{RESULTS}/xavier-power.{system}/resnet50/{scenario}/performance/run_1"


# ---------------------------------------------------------------------------------------------
# the shared rounds against an independent reading


@pytest.fixture(scope="module")
def independent() -> dict[tuple[str, str], dict]:
    """bench/power_floor.py's reading of every shared power run, in its own process."""
    roots = [str(TREES / f"inference_results_{name}") for name in SHARED_POWER_RUNS]
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "power_floor.py"), "--json", *roots],
                          capture_output=True, text=True, timeout=300, check=True)
    return {(f["round"], f["run_path"]): f for f in map(json.loads, done.stdout.splitlines())}


@pytest.mark.slow
def test_every_shared_power_run_has_its_figure_equal_to_the_checkers_formula(old_rounds_warehouse, independent):
    stored = {(r, p): (v, u) for r, p, v, u in query(
        old_rounds_warehouse, "SELECT round, run_path, value, unit FROM power_readings")}
    quarantined = {(r, json.loads(raw)["run_path"]): reasons for r, raw, reasons in query(
        old_rounds_warehouse, "SELECT round, raw_record, reasons FROM quarantine WHERE source_id LIKE 'rebuilt/%/power'")}
    for name, runs in SHARED_POWER_RUNS.items():
        assert sum(1 for r, _ in independent if r == name) == runs
        assert sum(1 for r, _ in stored if r == name) + sum(1 for r, _ in quarantined if r == name) == runs
    agree = [key for key, f in independent.items() if key in stored and "value" in f
             and stored[key][1] == f["unit"] and abs(stored[key][0] - f["value"]) <= 1e-5 * abs(f["value"])]
    assert len(agree) >= 0.99 * len(independent)
    # the rest, if any, are quarantined with their reasons: none is stored with another figure
    assert all(key in quarantined for key in set(independent) - set(agree)), set(independent) - set(agree)


def test_each_figure_sits_beside_its_performance_row(old_rounds_warehouse):
    beside = query(old_rounds_warehouse, """
        SELECT p.round, count(*), count(r.location), count(*) FILTER (WHERE p.system = r.system)
        FROM power_readings AS p
        LEFT JOIN results AS r ON r.round = p.round AND r.source_id = p.source_id AND r.location = p.run_path
                              AND r.metric = 'performance'
        GROUP BY p.round ORDER BY p.round""")
    assert beside == [("v1.1", 194, 194, 194), ("v2.1", 191, 191, 191)]
    units = dict(query(old_rounds_warehouse, "SELECT scenario, list(DISTINCT unit) FROM power_readings GROUP BY ALL"))
    assert units["Offline"] == units["Server"] == ["Watts"] and units["SingleStream"] == ["Joules"]


RUN_FOLDER = ("CASE WHEN {0} LIKE '%/performance/run_1' THEN regexp_replace({0}, '^\\./', '') "
              "ELSE regexp_replace({0}, '^\\./', '') || '/performance/run_1' END")


def test_a_published_power_row_lines_up_with_a_measured_figure(old_rounds_warehouse):
    """The tables' power rows (v4.1 on: Power_Result, Power_Units) and the figures read from the trees
    are one basis: the same columns (the run folder is the location's, as trees/parsing.py reads it),
    units in the same words, each beside a performance row of its own run folder and scenario."""
    from schemas.power import UNITS
    both = query(old_rounds_warehouse, f"""
        WITH power AS (
            SELECT round, source_id, run_path, system, model, scenario, value, unit FROM power_readings
            UNION ALL
            SELECT round, source_id, {RUN_FOLDER.format('location')}, system, model, scenario, value, units
            FROM results WHERE metric = 'power')
        SELECT p.round, p.unit, count(*), count(*) FILTER (WHERE EXISTS (
            SELECT 1 FROM results AS r WHERE r.metric = 'performance' AND r.round = p.round
              AND r.source_id = p.source_id AND r.scenario = p.scenario AND r.system = p.system
              AND {RUN_FOLDER.format('r.location')} = p.run_path))
        FROM power AS p GROUP BY ALL ORDER BY ALL""")
    assert {unit for _, unit, _, _ in both} <= set(UNITS)
    assert {round for round, *_ in both} >= {"v1.1", "v2.1", "v4.1", "v5.1"}
    assert all(beside == n for _, _, n, beside in both), both


def test_a_lone_analyzer_marker_is_skipped_as_the_checker_skips_it(old_rounds_warehouse):
    # one v1.1 run logs a sample of -2 in every field inside its window (PTDaemon's missing reading)
    run = "closed/NVIDIA/results/Xavier_NX_TRT_MaxQ/rnnt/Offline/performance/run_1"
    assert query(old_rounds_warehouse, f"SELECT samples, samples_skipped FROM power_readings WHERE run_path = '{run}'") \
        == [(741, 1)]


# ---------------------------------------------------------------------------------------------
# hostile power files, in a copy of a small tree


def _tree(top: Path) -> Path:
    """v1.1's Krai folder (30 results, 20 of them measured with an analyzer) laid out as a round, in
    files of its own (hard links), its folders made a while ago (settled)."""
    shutil.copytree(TREES / f"inference_results_{V11}" / KRAI, top / f"inference_results_{V11}" / KRAI,
                    copy_function=_link_or_copy)
    _settle(top)
    return top


def _settle(top: Path, *written: str) -> None:
    """Its folders, and the files written here, modified a while ago (never a file linked to ../shared)."""
    earlier = time.time() - 10
    for path in [top, *(p for p in top.rglob("*") if p.is_dir()), *(top / f"inference_results_{V11}" / w for w in written)]:
        os.utime(path, (earlier, earlier), follow_symlinks=False)


def _replace(top: Path, relative: str, content: bytes | None) -> None:
    """A file of the copy written anew (never through its link into ../shared), or removed."""
    target = top / f"inference_results_{V11}" / relative
    target.unlink()
    if content is not None:
        target.write_bytes(content)


def _lines(top: Path, run: str, name: str = "spl.txt") -> list[bytes]:
    return (top / f"inference_results_{V11}" / run / name).read_bytes().splitlines(keepends=True)


def _a_year_early(top, run):
    return b"".join(line.replace(b"-2021 ", b"-2020 ", 1) for line in _lines(top, run))


def _swapped(top, run):
    lines = _lines(top, run)
    lines[100], lines[101] = lines[101], lines[100]
    return b"".join(lines)


def _cut_short(top, run):
    lines = _lines(top, run)
    return b"".join(lines[:len(lines) * 6 // 10])


def _watts_written(top, run, lines, written) -> bytes:
    """The sample log with the Watts of the given lines (0-based) written as `written(watts)` says."""
    content = _lines(top, run)
    for n in lines:
        fields = content[n].split(b",")
        fields[3] = written(fields[3])
        content[n] = b",".join(fields)
    return b"".join(content)


def _not_a_number(top, run):
    return _watts_written(top, run, [200], lambda watts: b"n/a")


def _negative(top, run):
    return _watts_written(top, run, range(0, len(_lines(top, run)), 2), lambda watts: b"-" + watts)


def _detail_cut_mid_line(top, run):
    content = b"".join(_lines(top, run, "mlperf_log_detail.txt"))
    return content[:len(content) // 2 + 7]


# case -> (run folder, file, its new content (None: removed; "sparse": a 3 GiB file of no blocks), said)
HOSTILE = {
    "no samples in the window": ("0-fan.cool-armnn-v21.05-neon", "spl.txt", _a_year_early,
                                 "spl.txt has no positive Watts sample strictly inside the window"),
    "samples out of order": ("2-fan.cool-armnn-v21.05-neon", "spl.txt", _swapped,
                             "spl.txt: line 102: time"),
    "a window longer than the log": ("3-fan.cool-armnn-v21.05-neon", "spl.txt", _cut_short,
                                     "is longer than the analyzer's log"),
    "non-numeric Watts": ("4-fan.cool-armnn-v21.05-neon", "spl.txt", _not_a_number,
                          "spl.txt: line 201: Watts 'n/a' is not a number"),
    "negative Watts": ("5-fan.cool-armnn-v21.05-neon", "spl.txt", _negative,
                       "samples inside the window are not positive Watts"),
    "a truncated detail log": ("0-fan.cool-tflite-v2.5.0-ruy", "mlperf_log_detail.txt", _detail_cut_mid_line,
                               "mlperf_log_detail.txt: line "),
    "a multi-gigabyte spl.txt": ("2-fan.cool-tflite-v2.5.0-ruy", "spl.txt", "sparse",
                                 "spl.txt: 3221225472 bytes, over MLPERF_POWER_FILE_MAX_BYTES (33554432): not read"),
    "no detail log beside spl.txt": ("3-fan.cool-tflite-v2.5.0-ruy", "mlperf_log_detail.txt", None,
                                     "spl.txt: no mlperf_log_detail.txt beside it"),
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> tuple[str, list[str]]:
    """The small tree with one hostile power file in each of eight power runs, rebuilt: (warehouse, the
    round's line)."""
    from warehouse.identity.rounds import load_registry
    from warehouse.trees.run import rebuild_rounds
    top = _tree(tmp_path_factory.mktemp("hostile") / "trees")
    for system, name, change, _ in HOSTILE.values():
        run = _run(system)
        if change == "sparse":
            _replace(top, f"{run}/{name}", b"")
            os.truncate(top / f"inference_results_{V11}" / run / name, 3 * 1024 ** 3)
        else:
            _replace(top, f"{run}/{name}", change(top, run) if change else None)
    db_file = str(tmp_path_factory.mktemp("hostile_db") / "w.duckdb")
    done = rebuild_rounds([load_registry()[V11]], str(top), db_file)
    return db_file, [r.line() for r in done]


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_power_file_is_one_quarantined_figure_and_its_performance_row_stays(hostile, case):
    db_file, _ = hostile
    run = _run(HOSTILE[case][0])
    records = [(json.loads(raw), reasons) for raw, reasons in query(
        db_file, f"SELECT raw_record, reasons FROM quarantine WHERE source_id = '{POWER_SOURCE}'")]
    mine = [(raw, reasons) for raw, reasons in records if raw["run_path"] == run]
    assert len(mine) == 1 and len(mine[0][1]) == 1, mine
    assert HOSTILE[case][3] in mine[0][1][0]
    assert mine[0][0]["spl_path"] == f"{run}/spl.txt"
    assert query(db_file, f"SELECT count(*) FROM power_readings WHERE run_path = '{run}'") == [(0,)]
    assert query(db_file, f"SELECT count(*) FROM results WHERE location = '{run}' AND metric = 'performance'") == [(1,)]


def test_the_other_power_runs_are_read_and_every_result_row_kept(hostile):
    db_file, lines = hostile
    assert query(db_file, "SELECT count(*) FROM power_readings") == [(20 - len(HOSTILE),)]
    assert query(db_file, "SELECT count(*) FROM results WHERE round = 'v1.1'") == [(30,)]
    assert query(db_file, "SELECT count(*) FROM quarantine WHERE source_id = 'rebuilt/v1.1'") == [(0,)]
    assert lines[0].endswith(f"; {20 - len(HOSTILE)} measured power figures, {len(HOSTILE)} quarantined "
                             f"(source_id {POWER_SOURCE})")


# ---------------------------------------------------------------------------------------------
# unchanged means unread


@pytest.fixture
def opened(monkeypatch) -> list[str]:
    """Every tree file the one pass opens (it reads each in the folder the listing has open)."""
    from warehouse.trees import rebuilding
    paths: list[str] = []
    read = rebuilding.read_in_folder

    def counted(directory, name, label, *args, **kwargs):
        paths.append(label.split(f"inference_results_{V11}/", 1)[1])
        return read(directory, name, label, *args, **kwargs)
    monkeypatch.setattr(rebuilding, "read_in_folder", counted)
    return paths


def _rebuild(top: Path, db_file: str):
    from warehouse.identity.rounds import load_registry
    from warehouse.trees.run import rebuild_rounds
    return rebuild_rounds([load_registry()[V11]], str(top), db_file)[0]


def test_a_power_file_is_opened_again_only_when_it_or_its_detail_log_changed(tmp_path, opened):
    top, db_file = _tree(tmp_path / "trees"), str(tmp_path / "w.duckdb")
    _rebuild(top, db_file)
    # its 15 system descriptions, 30 run summaries, and the two power files of each of its 20 power runs
    assert len(opened) == len(set(opened)) == 85 and sum(p.endswith(("spl.txt", "log_detail.txt")) for p in opened) == 40
    figures = dict(query(db_file, "SELECT run_path, value FROM power_readings"))
    opened.clear()
    assert _rebuild(top, db_file).unchanged and opened == []

    run, other = _run("0-fan.cool-armnn-v21.05-neon"), _run("2-fan.cool-armnn-v21.05-neon", "singlestream")
    more = _watts_written(top, run, [300], lambda watts: f"{float(watts) + 1000:.6f}".encode())  # inside the window
    _replace(top, f"{run}/spl.txt", more)
    _replace(top, f"{other}/mlperf_log_detail.txt", b"".join(_lines(top, other, "mlperf_log_detail.txt")))
    _settle(top, f"{run}/spl.txt", f"{other}/mlperf_log_detail.txt")
    opened.clear()
    _rebuild(top, db_file)
    # the changed sample log alone; a changed detail log and the sample log read against its window
    assert sorted(opened) == sorted([f"{run}/spl.txt", f"{other}/mlperf_log_detail.txt", f"{other}/spl.txt"])
    after = dict(query(db_file, "SELECT run_path, value FROM power_readings"))
    assert after[run] > figures[run] and after[other] == figures[other]
    assert {k: v for k, v in after.items() if k != run} == {k: v for k, v in figures.items() if k != run}
