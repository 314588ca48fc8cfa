"""An independent reading of the old rounds' submission trees, the yardstick of `accelerator_history`
(issue 60): for every part, count, benchmark, scenario and round, the best closed, VALID, available run.

It imports nothing from `warehouse/`: its own walk, its own LoadGen summary parse, its own system
description parse, following MLCommons' submission checker of the v2.x era (mlcommons/inference
`tools/submission/submission_checker.py`; `submission_checker/constants.py` keeps the same tables
for later rounds):
- the result field per version and scenario (`RESULT_FIELD` for v0.5-v0.7's summaries,
  `RESULT_FIELD_NEW` for v1.0 on, read there from the detail log, here from the summary line that
  prints the same figure): Offline samples per second; Server *scheduled* samples per second (until
  v4.1 made it the completed rate); SingleStream the 90th percentile latency, from v2.0 its early
  stopping estimate; MultiStream samples per query (`uses_legacy_multistream`: v0.5-v1.1), from v2.0
  the early-stopping 99th percentile latency; latencies in ms (`res /= MS_TO_NS`);
- a result inferred from another scenario's run as `check_performance_dir` infers it (an Offline
  folder holding a SingleStream run: its QPS without LoadGen overhead; from v2.0, an Offline folder
  holding a MultiStream run and a MultiStream folder holding a SingleStream run);
- validity: the summary's `Result is : VALID` (`^Result\\s+is\\s*\\:\\s+VALID`); division: the
  folder (`closed`); availability: the system description's `status`, lower-cased (`.lower()`),
  exactly `available` (the checker knows only available, preview and rdi: `VALID_AVAILABILITIES`);
- the benchmark: the folder name through the version's `model_mapping` and `get_mlperf_model`'s
  guesses, then named as the warehouse's reference names the checker's classes (ssd-large is
  ssd-resnet34, ssd-small ssd-mobilenet); scenario folders through `SCENARIO_MAPPING`.
Not followed (the trees hold no such files, or nothing in them is refused by it): accuracy,
compliance, detail-log errors, seeds and minimum counts (these only log in that checker), the
required and optional scenarios per system type (every closed folder of these trees is one of them).

Only the raw accelerator name's meaning is the warehouse's own (tested elsewhere): a run's part is
the `hardware` the warehouse resolved for the same system description (`stg_results`; a MIG slice
names its shape, "A100 SXM (MIG 1g.10gb)"), else for the same raw name.

A cell is (part, count, benchmark, scenario, round); the count is accelerators_per_node x
number_of_nodes, except for a partitioned part (MIG), which is counted in the instances that ran
(issue 60 item 3): as the system folder names them ("MIG_56x1g.10gb": 56; HPE's "MIG_1x1g.10gb" on
an 8-GPU chassis: 1), else the raw name's per-device instances ("(7x1g.10gb MIG)") x the devices.
A result the checker infers from another scenario's run stands in a cell only where no run of the
cell's own scenario does; a cell held only by inferred results is listed apart and not counted (it
measures another scenario: whether history shows it is a policy, not a best picked wrongly).

    .venv-test/bin/python tests/independent_reading.py --db WAREHOUSE.duckdb [--trees DIR] [--csv PATH]
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

OLD_ROUNDS = ("v0.5", "v0.7", "v1.1", "v2.0", "v2.1")
DEFAULT_TREES = Path(__file__).resolve().parents[2] / "shared" / "mlcommons" / "trees"
RELATIVE_TOLERANCE = 1e-6

# The summary line of each scenario's result, per version (the checker's RESULT_FIELD / RESULT_FIELD_NEW).
_LEGACY = {"Offline": "Samples per second", "Server": "Scheduled samples per second",
           "SingleStream": "90th percentile latency (ns)", "MultiStream": "Samples per query"}
_EARLY_STOPPING = {**_LEGACY, "SingleStream": "Early stopping 90th percentile estimate",
                   "MultiStream": "Early stopping 99th percentile estimate"}
# Rounds kept back from development (their public trees, read the same way: acceptance runs on them too).
KEPT_BACK_ROUNDS = ("v1.0", "v3.0", "v3.1")
RESULT_LINE = {"v0.5": _LEGACY, "v0.7": _LEGACY, "v1.0": _LEGACY, "v1.1": _LEGACY, "v2.0": _EARLY_STOPPING,
               "v2.1": _EARLY_STOPPING, "v3.0": _EARLY_STOPPING, "v3.1": _EARLY_STOPPING}
LEGACY_MULTISTREAM = {"v0.5", "v0.7", "v1.0", "v1.1"}
NS_PER_MS = 1e6

SCENARIOS = {"singlestream": "SingleStream", "multistream": "MultiStream", "server": "Server", "offline": "Offline"}

# The checker's model classes per version ("models") and its model_mapping, then the warehouse's names of them.
_MODELS_V05 = {"ssd-small", "ssd-large", "mobilenet", "resnet", "gnmt"}
_MODELS_V07 = {"ssd-small", "ssd-large", "resnet", "rnnt", "bert-99", "bert-99.9", "dlrm-99", "dlrm-99.9",
               "3d-unet-99", "3d-unet-99.9"}
_MAPPING_V05 = {"ssd-mobilenet": "ssd-small", "ssd-resnet34": "ssd-large", "resnet50": "resnet"}
_MAPPING_V07 = {**_MAPPING_V05, "mobilenet": "resnet"}
_MODELS_V21 = (_MODELS_V07 - {"ssd-small", "ssd-large"}) | {"retinanet"}
# v3.1: DLRM v2 replaced DLRM, GPT-J joined (its result still samples per second: tokens came with v4.0)
_MODELS_V31 = (_MODELS_V21 - {"dlrm-99", "dlrm-99.9"}) | {"dlrm-v2-99", "dlrm-v2-99.9", "gptj-99", "gptj-99.9"}
_MAPPING_V21 = {**_MAPPING_V07, "ssd-resnet34": "retinanet"}
MODELS = {"v0.5": _MODELS_V05, "v0.7": _MODELS_V07, "v1.0": _MODELS_V07, "v1.1": _MODELS_V07, "v2.0": _MODELS_V07,
          "v2.1": _MODELS_V21, "v3.0": _MODELS_V21, "v3.1": _MODELS_V31}
MODEL_MAPPING = {"v0.5": _MAPPING_V05, "v0.7": _MAPPING_V07, "v1.0": _MAPPING_V07, "v1.1": _MAPPING_V07,
                 "v2.0": _MAPPING_V07, "v2.1": _MAPPING_V21, "v3.0": _MAPPING_V21, "v3.1": _MAPPING_V21}
WAREHOUSE_NAME = {"ssd-large": "ssd-resnet34", "ssd-small": "ssd-mobilenet"}

_VALID = re.compile(r"^Result\s+is\s*:\s+VALID", re.M)
_FOLDER_PARTITIONS = re.compile(r"MIG_(\d+)x\d+g\.\d+gb", re.I)
_RAW_PARTITIONS = re.compile(r"\((\d+)x\d+g\.\d+gb MIG\)", re.I)
_KEY_VALUE = re.compile(r"^\s*\*?\s*([\w\s.()/]+?)\s*:\s*([\w+.][\w+.\s]*)")  # the checker's, and a bullet


@dataclass(frozen=True)
class Run:
    round: str
    submitter: str
    system: str
    accelerator_raw: str | None
    accelerator_count: int | None
    accelerator_memory: str | None
    benchmark: str
    scenario: str
    result: float
    unit: str
    higher_is_better: bool
    run_path: str
    inferred: bool = False
    partitions: int | None = None  # MIG instances that ran; None for whole devices

    @property
    def cell_count(self) -> int | None:
        return self.partitions or self.accelerator_count


@dataclass
class Reading:
    """A round's closed runs: the eligible ones, and why each other run was left out."""
    runs: list[Run] = field(default_factory=list)
    left_out: dict[str, list[str]] = field(default_factory=dict)

    def leave_out(self, run_path: str, why: str) -> None:
        self.left_out.setdefault(why, []).append(run_path)


def parse_summary(text: str) -> dict[str, str]:
    """LoadGen's `key : value` lines (the checker's pattern, which also takes the early-stopping
    bullets' `* Early stopping 90th percentile estimate: N`), and `valid`."""
    fields = {m.group(1).strip(): m.group(2).strip() for m in map(_KEY_VALUE.match, text.splitlines()) if m}
    fields["valid"] = "yes" if _VALID.search(text) else "no"
    return fields


def benchmark_name(round_name: str, folder: str) -> str | None:
    """The checker's get_mlperf_model, named as the warehouse names it; None: not a closed model."""
    mapping, models = MODEL_MAPPING[round_name], MODELS[round_name]
    model = folder if folder in models else mapping.get(folder)
    if model is None:
        model = _guess_model(folder)
        model = mapping.get(model, model)
    return WAREHOUSE_NAME.get(model, model) if model in models else None


def _guess_model(folder: str) -> str:
    if any(s in folder for s in ("ssdlite", "ssd-inception", "yolo", "ssd-mobilenet", "ssd-resnet50", "rcnn")):
        return "ssd-small"
    if "mobilenet" in folder:
        return "mobilenet"
    if "efficientnet" in folder or "resnet50" in folder:
        return "resnet"
    for bert in ("bert-99.9", "bert-99"):
        if bert in folder:
            return bert
    return folder


def scenario_result(round_name: str, folder_scenario: str, summary: dict[str, str]) -> tuple[float, str, bool, bool]:
    """(result, unit, higher_is_better, inferred) of a run filed under folder_scenario, as
    check_performance_dir reads it; KeyError or ValueError when the summary lacks the figure."""
    ran = summary["Scenario"].replace(" ", "")
    legacy = round_name in LEGACY_MULTISTREAM
    if folder_scenario == "Offline" and ran == "SingleStream":
        return float(summary["QPS w/o loadgen overhead"]), "Samples/s", True, True
    if folder_scenario == "Offline" and ran == "MultiStream" and not legacy:
        per_second = int(summary["samples_per_query"]) * 1000 / (float(summary["Mean latency (ns)"]) / NS_PER_MS)
        return per_second, "Samples/s", True, True
    if folder_scenario == "MultiStream" and ran == "SingleStream" and not legacy:
        return float(summary["Early stopping 99th percentile estimate"]) * 8 / NS_PER_MS, "Latency (ms)", False, True
    value = float(summary[RESULT_LINE[round_name][ran]])
    if ran == "SingleStream" or (ran == "MultiStream" and not legacy):
        return value / NS_PER_MS, "Latency (ms)", False, False
    if ran == "MultiStream":
        return value, "Samples/query", True, False
    return value, ("Samples/s" if ran == "Offline" else "Queries/s"), True, False


def accelerator_count(system: dict) -> int | None:
    try:
        return int(system["accelerators_per_node"]) * int(system["number_of_nodes"])
    except (KeyError, TypeError, ValueError):
        return None


def partitions(system_name: str, raw_name: str | None, devices: int | None) -> int | None:
    """The MIG instances a run used: as its system folder names them, else per device x devices."""
    if found := _FOLDER_PARTITIONS.search(system_name):
        return int(found.group(1))
    if devices and (found := _RAW_PARTITIONS.search(raw_name or "")):
        return int(found.group(1)) * devices
    return None


def read_round(trees: Path, round_name: str) -> Reading:
    """Every closed run_1 of the round, kept when VALID and its system available."""
    root, reading = trees / f"inference_results_{round_name}", Reading()
    for summary_path in sorted((root / "closed").glob("*/results/*/*/*/performance/run_1/mlperf_log_summary.txt")):
        run_path = summary_path.parent.relative_to(root).as_posix()
        run = run_of(root, round_name, run_path)
        if isinstance(run, Run):
            reading.runs.append(run)
        else:
            reading.leave_out(run_path, run)
    return reading


def run_of(root: Path, round_name: str, run_path: str) -> Run | str:
    """The run at run_path (closed/<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_1)
    as the checker reads it, or why it is left out."""
    _, submitter, _, system_name, bench_folder, scenario_folder = run_path.split("/")[:6]
    benchmark = benchmark_name(round_name, bench_folder)
    scenario = SCENARIOS.get(scenario_folder.lower())
    if benchmark is None or scenario is None:
        return "not a closed benchmark or scenario of the round"
    try:
        system_path = root / "closed" / submitter / "systems" / f"{system_name}.json"
        system = json.loads(system_path.read_text(encoding="utf-8"))
        status = str(system.get("status", "")).strip()
    except (OSError, ValueError, AttributeError):
        return "no readable system description"
    if status.lower() != "available":
        return f"status {status!r}"
    summary = parse_summary((root / run_path / "mlperf_log_summary.txt").read_text(encoding="utf-8", errors="replace"))
    if summary["valid"] != "yes":
        return "not VALID"
    try:
        result, unit, higher, inferred = scenario_result(round_name, scenario, summary)
    except (KeyError, ValueError, ZeroDivisionError) as e:
        return f"no result line ({e})"
    raw, devices = system.get("accelerator_model_name"), accelerator_count(system)
    return Run(round_name, submitter, system_name, raw, devices, system.get("accelerator_memory_capacity"), benchmark,
               scenario, result, unit, higher, run_path, inferred, partitions(system_name, raw, devices))


# --- the comparison with a warehouse ------------------------------------------------------------

Key = tuple  # (accelerator, accelerator_count, benchmark, scenario, round)


@dataclass
class Comparison:
    equal: list[tuple[Key, dict, Run]] = field(default_factory=list)
    differing: list[tuple[Key, dict, Run]] = field(default_factory=list)
    history_only: list[tuple[Key, dict]] = field(default_factory=list)
    independent_only: list[tuple[Key, Run]] = field(default_factory=list)
    inferred_only: list[tuple[Key, Run]] = field(default_factory=list)  # not counted: see the module's docstring
    relabelled: list[tuple[Key, dict]] = field(default_factory=list)  # partitioned: history shows another count
    unnamed: list[Run] = field(default_factory=list)  # runs whose raw name the warehouse gives no part

    def count(self, kind: str, round_name: str | None = None) -> int:
        return sum(1 for cell in getattr(self, kind) if round_name is None or cell[0][4] == round_name)

    def agreement(self, round_name: str | None = None) -> tuple[int, int]:
        """(cells equal, cells compared) of one round or all: a cell on one side only counts against."""
        kinds = ("equal", "differing", "history_only", "independent_only")
        return self.count("equal", round_name), sum(self.count(kind, round_name) for kind in kinds)


def part_names(con) -> tuple[dict, dict]:
    """The warehouse's part of each (round, system description) and of each raw name that has one."""
    rows = con.execute("""
        SELECT DISTINCT round, system_path, accelerator_raw, hardware FROM stg_results
        WHERE hardware_kind = 'accelerator' AND accelerator_raw IS NOT NULL""").fetchall()
    by_system = {(r, p): h for r, p, _, h in rows}
    by_raw: dict[str, set] = {}
    for _, _, raw, hardware in rows:
        by_raw.setdefault(raw, set()).add(hardware)
    return by_system, {raw: parts.pop() for raw, parts in by_raw.items() if len(parts) == 1}


def history_cells(con, runs: dict[tuple[str, str], Run], rounds=OLD_ROUNDS) -> tuple[dict[Key, dict], list]:
    """History's best of each cell, a partitioned part's keyed by the instances its run used (as this
    reading counts them, whatever count history shows); and any row that lands in a cell another holds."""
    rows = con.execute(f"""
        SELECT accelerator, accelerator_count, benchmark, scenario, round, result, result_unit, run_path
        FROM accelerator_history
        WHERE source_kind = 'submission tree' AND round IN ({", ".join("?" * len(rounds))})""", list(rounds)).fetchall()
    cells: dict[Key, dict] = {}
    doubled = []
    for part, count, benchmark, scenario, round_name, result, unit, run_path in rows:
        run = runs.get((round_name, run_path))
        key = (part, run.partitions if run and run.partitions else count, benchmark, scenario, round_name)
        cell = {"result": result, "unit": unit, "run_path": run_path, "shown_count": count}
        if key in cells:
            doubled.append((key, cell))
        else:
            cells[key] = cell
    return cells, doubled


def independent_best(runs: list[Run], by_system: dict, by_raw: dict) -> tuple[dict[Key, Run], list[Run]]:
    """The best run of each cell (a measured run before any inferred one), and the runs with no part."""
    best: dict[Key, Run] = {}
    unnamed = []
    for run in runs:
        system_path = f"closed/{run.submitter}/systems/{run.system}.json"
        part = by_system.get((run.round, system_path)) or by_raw.get(run.accelerator_raw)
        if part is None or run.cell_count is None:
            unnamed.append(run)
            continue
        key = (part, run.cell_count, run.benchmark, run.scenario, run.round)
        held = best.get(key)
        if held is None or _better(run, held):
            best[key] = run
    return best, unnamed


def _better(run: Run, held: Run) -> bool:
    if run.inferred != held.inferred:
        return held.inferred
    return run.result > held.result if run.higher_is_better else run.result < held.result


def compare(con, trees: Path, rounds=OLD_ROUNDS) -> Comparison:
    con.execute("SET search_path = 'main,marts,intermediate,staging,base'")
    by_system, by_raw = part_names(con)
    runs = [run for name in rounds for run in read_round(trees, name).runs]
    best, unnamed = independent_best(runs, by_system, by_raw)
    history, doubled = history_cells(con, {(r.round, r.run_path): r for r in runs}, rounds)
    out = Comparison(unnamed=unnamed, history_only=doubled,
                     relabelled=[(k, h) for k, h in history.items() if h["shown_count"] != k[1]])
    for key in sorted(history.keys() | best.keys(), key=lambda k: tuple(map(str, k))):
        h, run = history.get(key), best.get(key)
        if run is None:
            out.history_only.append((key, h))
        elif h is None:
            (out.inferred_only if run.inferred else out.independent_only).append((key, run))
        elif abs(h["result"] - run.result) <= RELATIVE_TOLERANCE * abs(run.result):
            out.equal.append((key, h, run))
        else:
            out.differing.append((key, h, run))
    return out


def difference_rows(c: Comparison) -> list[dict]:
    """One row per cell that is not equal: both figures, both run paths, their ratio (history / independent)."""
    return ([_row(key, h, run, "both") for key, h, run in c.differing]
            + [_row(key, h, None, "history only") for key, h in c.history_only]
            + [_row(key, None, run, "independent only") for key, run in c.independent_only]
            + [_row(key, None, run, "inferred only (not counted)") for key, run in c.inferred_only])


CSV_COLUMNS = ["accelerator", "accelerator_count", "benchmark", "scenario", "round", "history", "independent", "ratio",
               "unit", "history_run", "independent_run", "independent_raw_name", "side"]


def _row(key: Key, h: dict | None, run: Run | None, side: str) -> dict:
    return {**dict(zip(CSV_COLUMNS, key)),
            "history": h and h["result"], "independent": run and run.result,
            "ratio": h["result"] / run.result if h and run else None, "unit": run.unit if run else h["unit"],
            "history_run": h and h["run_path"], "independent_run": run and run.run_path,
            "independent_raw_name": run and run.accelerator_raw, "side": side}


def summary_lines(c: Comparison, rounds=OLD_ROUNDS) -> list[str]:
    lines = ["round  cells  equal  differ  history-only  independent-only  agreement"]
    for name in (*rounds, None):
        equal, compared = c.agreement(name)
        lines.append(f"{name or 'all':5}  {compared:5}  {equal:5}  {c.count('differing', name):6}  "
                     f"{c.count('history_only', name):12}  {c.count('independent_only', name):16}  "
                     f"{equal / compared if compared else 0:9.2%}")
    if c.relabelled:
        lines.append(f"{len(c.relabelled)} history rows of a partitioned part show a count other than the instances "
                     "their run used (compared at the instances)")
    if c.inferred_only:
        lines.append(f"{len(c.inferred_only)} cells held only by results the checker infers from another scenario "
                     "(not in history; not counted)")
    if c.unnamed:
        lines.append(f"{len(c.unnamed)} eligible runs name no part the warehouse resolves (left out of both sides)")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Exit 0 when the comparison is printed (whatever it finds), 2 when an input cannot be read."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, required=True, help="the warehouse file (DuckDB)")
    parser.add_argument("--trees", type=Path, default=DEFAULT_TREES, help=f"the trees folder (default {DEFAULT_TREES})")
    parser.add_argument("--csv", type=Path, help="write every cell that is not equal here")
    parser.add_argument("--rounds", default=",".join(OLD_ROUNDS),
                        help=f"comma-separated, of {', '.join(sorted(RESULT_LINE))} (default the shared trees': "
                             f"{','.join(OLD_ROUNDS)}; the kept-back ones: {','.join(KEPT_BACK_ROUNDS)})")
    args = parser.parse_args(argv)
    rounds = tuple(r.strip() for r in args.rounds.split(",") if r.strip())
    if unknown := [r for r in rounds if r not in RESULT_LINE]:
        print(f"independent_reading: no rules for {unknown[0]} (known: {', '.join(sorted(RESULT_LINE))})",
              file=sys.stderr)
        return 2
    missing = [p for p in (args.db, *(args.trees / f"inference_results_{r}" for r in rounds)) if not p.exists()]
    if missing:
        print(f"independent_reading: not found: {missing[0]}", file=sys.stderr)
        return 2
    import duckdb
    try:
        with duckdb.connect(str(args.db), read_only=True) as con:
            c = compare(con, args.trees, rounds)
    except duckdb.Error as e:
        print(f"independent_reading: {args.db}: {str(e).splitlines()[0]}", file=sys.stderr)
        return 2
    print("\n".join(summary_lines(c, rounds)))
    if args.csv:
        rows = difference_rows(c)
        with args.csv.open("w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
        print(f"{len(rows)} cells written to {args.csv} (its column side says which kind)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
