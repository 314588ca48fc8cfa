"""The plain reader of the power files: for every run folder of a tree holding spl.txt, its detail log
and its sample log opened, parsed and averaged as MLCommons' submission checker does
(checks/power_check.py get_power_metric_check; get_power_metric of the v2.x-era submission_checker.py),
written out plainly with the standard library alone: no module of the warehouse is imported, so it is
both the bench's floor (bench/power_bench.py) and an independent reading the stored figures are checked
against (tests/test_power_readings.py).

    .venv/bin/python bench/power_floor.py TREE_ROOT [TREE_ROOT ...]          read every figure, print the count
    .venv/bin/python bench/power_floor.py --json TREE_ROOT [TREE_ROOT ...]   one JSON line per power run

A tree root is named as the shared trees are (inference_results_vX.Y): the version picks the era rules
(v1.0 logged local times: the window + performance/power/client.json's "timezone" seconds and each sample
+ server.json's, as check_power_dir of the v2.1-era checker adds them; before v2.0 LoadGen logged no
query count; energy in Joules until v2.1, millijoules from v3.0).
"""
from __future__ import annotations

import datetime
import glob
import json
import os
import re
import sys

FORMAT = "%m-%d-%Y %H:%M:%S.%f"
SCENARIOS = {"offline": "Offline", "server": "Server", "interactive": "Interactive", "singlestream": "SingleStream",
             "multistream": "MultiStream"}


def detail_log(path: str) -> dict:
    """Every :::MLLOG record's value by key, the first one of a key kept (MLPerfLog)."""
    values = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip()
            if line.startswith(":::MLLOG"):
                record = json.loads(line[len(":::MLLOG"):])
                values.setdefault(record["key"], record["value"])
    return values


def timezone(run: str, side: str) -> datetime.timedelta:
    """The power-dev session file's offset (v1.0): zero for a round that logged UTC."""
    with open(os.path.join(os.path.dirname(run), "power", f"{side}.json")) as f:
        seconds = json.load(f)["timezone"]
    if type(seconds) is not int or abs(seconds) > 14 * 3600:
        raise ValueError(f"{side}.json: timezone {seconds!r} is no offset")
    return datetime.timedelta(seconds=seconds)


def power_figure(run: str, version: tuple[int, int]) -> tuple[float, str]:
    log = detail_log(os.path.join(run, "mlperf_log_detail.txt"))
    local = version < (1, 1)
    client = timezone(run, "client") if local else datetime.timedelta(0)
    server = timezone(run, "server") if local else datetime.timedelta(0)
    begin = datetime.datetime.strptime(log["power_begin"], FORMAT) + client
    end = datetime.datetime.strptime(log["power_end"], FORMAT) + client
    power = []
    with open(os.path.join(run, "spl.txt")) as f:
        for line in f:
            if not line.startswith("Time"):
                continue
            timestamp = datetime.datetime.strptime(line.split(",")[1], FORMAT) + server
            if begin < timestamp < end:
                watts = float(line.split(",")[3])
                if watts > 0:
                    power.append(watts)
    if not power:
        raise ValueError("no power samples in the window")
    average = sum(power) / len(power)
    folder = os.path.normpath(run).split(os.sep)[-3]
    scenario = SCENARIOS.get(folder.replace(" ", "").replace("_", "").lower(), folder)
    if scenario in ("Offline", "Server", "Interactive"):
        return average, "Watts"
    duration = (end - begin).total_seconds()
    if version < (2, 0):
        if scenario == "MultiStream":
            queries = log["generated_query_count"] * log["generated_samples_per_query"]
        else:
            queries = log["result_qps_with_loadgen_overhead"] * duration
    else:
        queries = int(log["result_query_count"])
    scale, unit = (1000, "millijoules") if version >= (3, 0) else (1, "Joules")
    samples_per_query = 8 if scenario == "MultiStream" and version >= (2, 0) and log["effective_scenario"] == "SingleStream" else 1
    return average * duration * samples_per_query * scale / queries, unit


def figures(root: str):
    """(round, run folder relative to the root, value, unit, or the error) of every power run."""
    found = re.search(r"v(\d+)\.(\d+)$", os.path.basename(os.path.normpath(root)))
    version = (int(found.group(1)), int(found.group(2)))
    for spl in sorted(glob.glob(os.path.join(root, "*", "*", "results", "*", "*", "*", "performance", "run_1", "spl.txt"))):
        run = os.path.dirname(spl)
        relative = os.path.relpath(run, root)
        try:
            value, unit = power_figure(run, version)
            yield {"round": f"v{version[0]}.{version[1]}", "run_path": relative, "value": value, "unit": unit}
        except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError) as exc:
            yield {"round": f"v{version[0]}.{version[1]}", "run_path": relative, "error": f"{type(exc).__name__}: {exc}"}


def main(argv: list[str]) -> int:
    as_json = argv[:1] == ["--json"]
    read = [figure for root in argv[as_json:] for figure in figures(root)]
    if as_json:
        for figure in read:
            print(json.dumps(figure))
    else:
        print(f"{len(read)} power figures read")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
