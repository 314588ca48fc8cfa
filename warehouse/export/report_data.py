"""The rows the report's own scripts read: every entry (a result ID: one system as submitted in one
round, or one of your replays) and every throughput result, for the results tables (sort, filter,
page) and the comparison of two systems. Written into the page once, as JSON (report.js reads it).

Each entry links to its published page: the `Details` link MLCommons' table gives the record, else
the round repository's results folder of the entry (from the published Location), so every figure
the page shows can be checked where it was published.
"""
from __future__ import annotations

from dataclasses import dataclass

import duckdb
import polars as pl

from warehouse.identity.rounds import load_registry, round_named, round_sort_key
from warehouse.store import db

GITHUB = "https://github.com/mlcommons"
OWN_ROUND = "your replays"

ENTRIES_SQL = """
SELECT result_id, any_value(round) AS round, any_value(submitter) AS submitter, any_value(system) AS system,
       any_value(accelerator) AS accelerator, any_value(accelerator_raw) AS accelerator_raw,
       any_value(total_accelerators) AS accelerator_count, any_value(division) AS division,
       any_value(availability) AS availability, any_value(verification) AS verification,
       mode(stack) AS stack, any_value(nullif(trim(extra->>'Details'), '')) AS details,
       any_value(location) AS location
FROM stg_results
WHERE metric = 'performance' AND result_id IS NOT NULL AND source_id LIKE 'official/%'
GROUP BY result_id
"""

RESULTS_SQL = """
SELECT result_id, benchmark, scenario, throughput AS result, throughput_unit AS unit,
       throughput_per_accelerator AS per_accelerator, throughput_per_rack AS per_rack, rack_basis, measured_rack,
       measured_watts, system_estimate_watts, throughput_per_kw_measured AS per_kw_measured,
       throughput_per_kw_system_estimate AS per_kw_system_estimate, tokens_per_second_per_user AS per_user,
       concat_ws(', ', nullif(array_to_string(findings, ', '), ''),
                 CASE WHEN mixed_cluster THEN 'mixed accelerators: never ranked per accelerator' END) AS findings,
       procurement_grade, dollars_per_million_tokens
FROM token_economics
WHERE result_id IS NOT NULL
ORDER BY round, benchmark, scenario, throughput_per_accelerator DESC NULLS LAST, result_id, throughput_unit
"""

OWN_RUNS_SQL = """
SELECT run_id, coalesce(label, run_id) AS label, coalesce(accelerator, accelerator_raw) AS accelerator,
       accelerator_count, system, tool, backend, benchmarks, tokens_per_second, tokens_per_second_per_accelerator,
       tokens_per_second_per_rack, rack_basis, tokens_per_second_per_user
FROM own_runs
WHERE tokens_per_second IS NOT NULL
ORDER BY run_id
"""

# A result's fields as the page's scripts read them (report.js: RESULT_FIELDS), in this order.
RESULT_FIELDS = ["entry", "benchmark", "scenario", "result", "unit", "per_accelerator", "per_rack", "rack_basis",
                 "measured_rack", "measured_watts", "system_estimate_watts", "per_kw_measured",
                 "per_kw_system_estimate", "per_user", "findings", "procurement_grade", "dollars_per_million_tokens"]
ENTRY_FIELDS = ["id", "round", "submitter", "system", "accelerator", "accelerator_count", "division",
                "availability", "verification", "stack", "url", "price", "price_source"]
# the user's price of the entry's accelerator as the page prints it beside a cost, and where it is from
# (its source and date: once, in the comparison's footnote, not in each cell); null: no price
PRICES_SQL = """
SELECT accelerator, '$' || printf('%.2f', dollars_per_accelerator_hour) || ' per accelerator-hour' AS price,
       coalesce(nullif(concat_ws(', ', coalesce(source, note), strftime(priced_on, '%Y-%m-%d')), ''),
                'no source given') AS price_source
FROM stg_prices
"""


@dataclass
class PageData:
    """What the page's scripts read: entries (newest round first) and their results."""
    entries: list[dict]
    results: list[list]

    def as_json_ready(self) -> dict:
        return {"entry_fields": ENTRY_FIELDS, "result_fields": RESULT_FIELDS,
                "entries": [[e[f] for f in ENTRY_FIELDS] for e in self.entries], "results": self.results}

    def link_of(self) -> dict[str, str]:
        return {e["id"]: e["url"] for e in self.entries}


def entry_url(details: str | None, round_name: str, location: str | None,
              repositories: dict[str, tuple[str, str]]) -> str:
    """The entry's published page: its Details link, else the round repository's folder of the
    entry (<division>/<submitter>/results/<platform> of the published Location), else the round's
    repository. Only http(s) links are kept (the page never writes another scheme into a link)."""
    if details and details.lower().startswith(("https://", "http://")):
        return details
    repository, branch = repositories.get(round_name) or _default_repository(round_name)
    base = f"{GITHUB}/{repository}/tree/{branch}"
    parts = [p for p in (location or "").strip().removeprefix("./").split("/") if p and p != "."]
    if len(parts) >= 4 and parts[2] == "results":
        return f"{base}/{'/'.join(parts[:4])}"
    return base


def _default_repository(round_name: str) -> tuple[str, str]:
    try:
        found = round_named(round_name)
    except ValueError:
        return f"inference_results_{round_name}", "main"
    return found.repository, found.branch


def page_data(con: duckdb.DuckDBPyConnection) -> PageData:
    repositories = {name: (r.repository, r.branch) for name, r in load_registry().items()}
    entries = db.query_frame(con, ENTRIES_SQL).to_dicts()
    prices = {accelerator: (price, source) for accelerator, price, source in db.query_frame(con, PRICES_SQL).iter_rows()}
    for entry in entries:
        entry["price"], entry["price_source"] = prices.get(entry["accelerator"], (None, None))
        entry["id"] = entry.pop("result_id")
        entry["url"] = entry_url(entry.pop("details"), entry["round"], entry.pop("location"), repositories)
        entry["accelerator"] = entry["accelerator"] or entry.pop("accelerator_raw") or "no accelerator"
        entry.pop("accelerator_raw", None)
    entries.sort(key=lambda e: (tuple(-k for k in round_sort_key(e["round"])), e["id"]))
    index = {e["id"]: i for i, e in enumerate(entries)}
    results = [[index[row["result_id"]], *(compact(row[f]) for f in RESULT_FIELDS[1:])]
               for row in db.query_frame(con, RESULTS_SQL).iter_rows(named=True) if row["result_id"] in index]
    own_entries, own_results = own_replays(db.query_frame(con, OWN_RUNS_SQL), len(entries))
    return PageData(entries + own_entries, results + own_results)


def compact(value):
    """A float to 7 significant digits (the published results have fewer): a third of the page's rows."""
    return float(f"{value:.7g}") if isinstance(value, float) else value


def own_replays(runs: pl.DataFrame, first_index: int) -> tuple[list[dict], list[list]]:
    """Your replays as entries of their own (round 'your replays'): one result per benchmark of the
    run's model, scenario '*' (a replay is set beside any scenario of that benchmark), in tokens/s."""
    entries, results = [], []
    for number, run in enumerate(runs.iter_rows(named=True)):
        entries.append({"id": f"your run {run['label']}", "round": OWN_ROUND, "submitter": "you",
                        "system": run["system"] or f"{run['tool']} {run['backend'] or ''}".strip(),
                        "accelerator": run["accelerator"], "accelerator_count": run["accelerator_count"],
                        "division": "own measurement", "availability": "", "verification": "own measurement",
                        "stack": run["tool"], "url": "", "price": None,
                        "price_source": None})
        for benchmark in run["benchmarks"] or []:
            fields = {"entry": first_index + number, "benchmark": benchmark, "scenario": "*",
                      "result": run["tokens_per_second"], "unit": "Tokens/s",
                      "per_accelerator": run["tokens_per_second_per_accelerator"],
                      "per_rack": run["tokens_per_second_per_rack"], "rack_basis": run["rack_basis"],
                      "measured_rack": False, "per_user": run["tokens_per_second_per_user"], "findings": "",
                      "procurement_grade": False}
            results.append([fields.get(f) for f in RESULT_FIELDS])
    return entries, results
