"""A run's measured power figure, as MLCommons' submission checker computes it from the run's two power
files (parsing_power.py reads them), and the era rules it applies (POWER_RULES: data, keyed by round,
as the checker keeps its eras in its constants).

The figure (tools/submission/submission_checker/checks/power_check.py `get_power_metric_check`, and
`get_power_metric` of the v2.x-era tools/submission/submission_checker.py, which keeps the older rules):

  mean W   the mean of the positive Watts samples of spl.txt strictly between the detail log's
           power_begin and power_end (times as logged, no timezone added: UTC from v1.1 on,
           `has_power_utc_timestamps`); a non-positive sample is skipped, as the checker skips it.
           Before v1.1 both logs kept local time and the checker adds each machine's timezone
           (check_power_dir of the v2.1-era checker: power_begin and power_end + power/client.json's
           "timezone", each sample's time + power/server.json's): the window read on the analyzer's
           clock is power_begin/end + (client - server) seconds; the duration is the logged one.
  Offline, Server, Interactive   the figure is the mean, in Watts
  SingleStream, MultiStream      energy per query: mean W x (power_end - power_begin) / queries, in
           Joules (the checker's unit until v2.1) or millijoules (x 1000, from v3.0), with the
           queries counted by the rule of the round's LoadGen (`has_query_count_in_log`): before
           v2.0, a SingleStream run's result_qps_with_loadgen_overhead x the window's seconds and a
           MultiStream run's generated_query_count x generated_samples_per_query; from v2.0 on,
           result_query_count. A MultiStream result inferred from a SingleStream run (from v2.0,
           not `uses_legacy_multistream`) counts 8 samples a query: x 8.

Where the checker has no bound, the warehouse adds the bounds an energy budget needs, each a setting
(warehouse/settings.py): the share of skipped samples (MLPERF_POWER_SKIPPED_SHARE) and how far the
log may start after the window or end before it (MLPERF_POWER_WINDOW_GRACE). A figure that fails one
is quarantined with its reason; its run's performance row is never touched.
"""
from __future__ import annotations

from dataclasses import dataclass

from schemas.power import ENERGY_SCENARIOS, UNITS, WATTS_SCENARIOS
from warehouse.trees.parsing_power import MICROSECONDS, shown_time

WATTS = UNITS[0]
MULTISTREAM_SAMPLES = 8   # the checker's samples_per_query of a MultiStream query inferred from SingleStream
CHECKER = ("tools/submission/submission_checker/checks/power_check.py get_power_metric_check; "
           "tools/submission/submission_checker.py get_power_metric (v2.x)")
# The rule for local times, as the v2.1-era checker (its default version v2.1) still keeps it
CHECKER_LOCAL_TIMES = ("tools/submission/submission_checker.py check_power_dir (v2.1 era): power_begin and "
                       "power_end + power/client.json's timezone, sample times + power/server.json's")


@dataclass(frozen=True)
class PowerRule:
    """How the checker of the rounds from `round_from` on computes a power figure."""
    round_from: str
    utc: bool                 # has_power_utc_timestamps(): both logs' times are UTC
    logged_queries: bool      # has_query_count_in_log(): LoadGen logs result_query_count
    legacy_multistream: bool  # uses_legacy_multistream(): no MultiStream inferred from SingleStream
    energy_unit: str          # the checker's power_unit_dict word for SingleStream and MultiStream
    energy_scale: float       # x 1000 for millijoules

    def state(self) -> list:
        return [self.round_from, self.utc, self.logged_queries, self.legacy_multistream, self.energy_unit,
                self.energy_scale]


# Eras of the checker's power rules (its version predicates, and its power_unit_dict):
#   v1.0  times local to each machine: the checker adds power/client.json's and server.json's timezone
#   v1.1  times in UTC; queries estimated (LoadGen logged no count)
#   v2.0  result_query_count logged; MultiStream may be inferred from SingleStream
#   v3.0  energy in millijoules (the checker multiplies by 1000)
POWER_RULES = (
    PowerRule("v1.0", utc=False, logged_queries=False, legacy_multistream=True, energy_unit="Joules", energy_scale=1.0),
    PowerRule("v1.1", utc=True, logged_queries=False, legacy_multistream=True, energy_unit="Joules", energy_scale=1.0),
    PowerRule("v2.0", utc=True, logged_queries=True, legacy_multistream=False, energy_unit="Joules", energy_scale=1.0),
    PowerRule("v3.0", utc=True, logged_queries=True, legacy_multistream=False, energy_unit="millijoules",
              energy_scale=1000.0),
)


def power_rule(round_name: str) -> PowerRule | None:
    """The latest rule whose round_from is not after the round; None before v1.0 (no power measured)."""
    from warehouse.identity.rounds import round_sort_key
    order = round_sort_key(round_name)
    found = [rule for rule in POWER_RULES if round_sort_key(rule.round_from) <= order]
    return found[-1] if found else None


def reads_timezones(rule: PowerRule | None) -> bool:
    """The round's power runs need performance/power/client.json and server.json (local times)."""
    return rule is not None and not rule.utc


Offsets = tuple[int, int]   # (client.json's, server.json's) "timezone", seconds


def sample_window(detail: dict, offsets: Offsets | None) -> tuple[int, int]:
    """The detail log's window on the analyzer's clock, microseconds: the checker keeps a sample when
    time + server > power_begin + client, that is time > power_begin + (client - server)."""
    shift = 0 if offsets is None else (offsets[0] - offsets[1]) * MICROSECONDS
    return detail["power_begin_us"] + shift, detail["power_end_us"] + shift


@dataclass(frozen=True)
class Bounds:
    """The warehouse's bounds on a figure (warehouse/settings.py)."""
    skipped_share: float
    window_grace_s: float

    @classmethod
    def from_settings(cls) -> "Bounds":
        from warehouse import settings
        current = settings.current()
        return cls(current.power_skipped_share, current.power_window_grace)

    def state(self) -> list:
        return [self.skipped_share, self.window_grace_s]


def figure(rule: PowerRule | None, scenario: str, detail: dict, spl: dict, bounds: Bounds,
           offsets: Offsets | None = None) -> tuple[dict | None, list[str]]:
    """The run's power figure from its detail log's record and its sample log's record for that
    window (parsing_power; read on the analyzer's clock, sample_window, for a round of local times
    with its `offsets`), in the columns of power_readings; or None and why not."""
    reasons = _unusable(rule, scenario, detail, spl, bounds, offsets)
    if reasons:
        return None, reasons
    mean_watts = spl["watts_sum"] / spl["samples"]
    duration_s = (detail["power_end_us"] - detail["power_begin_us"]) / MICROSECONDS
    row = {"average_watts": mean_watts, "samples": spl["samples"], "samples_skipped": spl["skipped"],
           "duration_s": duration_s, "effective_scenario": detail["effective_scenario"],
           "loadgen_version": detail["loadgen_version"]}
    if scenario in WATTS_SCENARIOS:
        return {**row, "value": mean_watts, "unit": WATTS, "query_count": None,
                "rule": f"mean W of the samples inside the window{_clocks(offsets)}"}, []
    queries, counted, why = _queries(rule, scenario, detail, duration_s)
    if queries is None:
        return None, [why]
    energy = mean_watts * duration_s                 # the checker's order of operations, to the last bit
    times_eight = scenario == "MultiStream" and not rule.legacy_multistream and detail["effective_scenario"] == "SingleStream"
    if times_eight:
        energy = energy * MULTISTREAM_SAMPLES
    if rule.energy_scale != 1.0:
        energy = energy * rule.energy_scale
    unit = rule.energy_unit
    scaled = " x 1000" if rule.energy_scale != 1.0 else ""
    eight = " x 8 (MultiStream inferred from a SingleStream run)" if times_eight else ""
    return {**row, "value": energy / queries, "unit": unit, "query_count": float(queries),
            "rule": f"mean W x window seconds{scaled}{eight} / {counted}{_clocks(offsets)}"}, []


def _clocks(offsets: Offsets | None) -> str:
    if offsets is None:
        return ""
    return (f"; local times: power_begin and power_end + client.json's timezone ({offsets[0]} s), each sample's "
            f"time + server.json's ({offsets[1]} s)")


def _unusable(rule: PowerRule | None, scenario: str, detail: dict, spl: dict, bounds: Bounds,
              offsets: Offsets | None) -> list[str]:
    if rule is None:
        return ["MLPerf Inference measured no power before v1.0"]
    if reads_timezones(rule) != (offsets is not None):
        return ["rounds before v1.1 logged local times and the checker shifts them by the timezones of "
                "performance/power/client.json and server.json: without both, not computed" if offsets is None else
                "timezones given for a round whose logs are in UTC"]
    if scenario not in [*WATTS_SCENARIOS, *ENERGY_SCENARIOS]:
        return [f"no power unit for the scenario {scenario!r}"]
    begin, end = sample_window(detail, offsets)
    window = f"power_begin {detail['power_begin']} to power_end {detail['power_end']}"
    if offsets is not None and offsets[0] != offsets[1]:
        window += f", on the analyzer's clock {shown_time(begin)} to {shown_time(end)}"
    if spl["samples"] == 0:
        return [f"spl.txt has no positive Watts sample strictly inside the window ({window}): the checker's "
                "'no power samples falling in power range'"]
    grace = round(bounds.window_grace_s * MICROSECONDS)
    if spl["first_us"] > begin + grace or spl["last_us"] < end - grace:
        return [f"the window ({window}) is longer than the analyzer's log (samples {shown_time(spl['first_us'])} to "
                f"{shown_time(spl['last_us'])}; {bounds.window_grace_s:g} s of grace, MLPERF_POWER_WINDOW_GRACE): "
                "the log does not cover the run"]
    inside = spl["samples"] + spl["skipped"]
    if spl["skipped"] / inside > bounds.skipped_share:
        return [f"{spl['skipped']} of the {inside} samples inside the window are not positive Watts (first "
                f"{spl['first_skipped']}): over the share the checker's skipping may hide "
                f"({bounds.skipped_share:g}, MLPERF_POWER_SKIPPED_SHARE)"]
    return []


def _queries(rule: PowerRule, scenario: str, detail: dict, duration_s: float) -> tuple[float | None, str, str]:
    """(queries, how they were counted, why not): the LoadGen-era rule of has_query_count_in_log()."""
    if rule.logged_queries:
        count = detail["result_query_count"]
        counted = "result_query_count"
        if count is None or count <= 0:
            return None, counted, f"the detail log's result_query_count is {count} (LoadGen from v2.0 logs it)"
        return int(count), counted, ""
    if scenario == "SingleStream":
        qps = detail["result_qps_with_loadgen_overhead"]
        counted = "(result_qps_with_loadgen_overhead x window seconds; LoadGen before v2.0 logged no count)"
        if qps is None or qps <= 0:
            return None, counted, f"the detail log's result_qps_with_loadgen_overhead is {qps} (the count of a " \
                                  "SingleStream run before v2.0)"
        return qps * duration_s, counted, ""
    generated, per_query = detail["generated_query_count"], detail["generated_samples_per_query"]
    counted = "(generated_query_count x generated_samples_per_query; LoadGen before v2.0 logged no count)"
    if not generated or not per_query or generated <= 0 or per_query <= 0:
        return None, counted, (f"the detail log's generated_query_count ({generated}) x generated_samples_per_query "
                               f"({per_query}) is no count (a MultiStream run before v2.0)")
    return generated * per_query, counted, ""
