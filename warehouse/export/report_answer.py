"""The report's first screen: what to buy this round. For each benchmark and scenario of the newest
loaded round (LLMs first), the best procurement-grade result (verified: closed division, available,
audited; no anomaly finding; a run that compares as its hardware) per accelerator, per rack
(measured racks apart from estimates) and per kW (on one power basis, named: the entry's measured power
wherever one is, then its nameplate, then an estimate), each with the
runner-up accelerator and the gap, the result ID and the entry's published page.

Sources: accelerator_comparison (per accelerator), rack_throughput (per rack, ranked within
measured_rack), token_economics (per kW, per dollar: the fewest dollars per million tokens by your
prices, `mlperf-wh prices load`, with each price's source and date; and the rows outside procurement
grade that a buyer should know beat the best: never ranked, named). Definitions: docs/definitions.md
sections 4, 5 and 6b.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import duckdb
import polars as pl

from warehouse.figures import dollars, human_number
from warehouse.store import db
from warehouse.twins import merged_subject, twin_key

MEASURES = ("per_accelerator", "rack_measured", "rack_estimated", "per_kw", "per_dollar")
# the measures where less is better (the fewest dollars per million tokens)
LOWER_IS_BETTER = ("per_dollar",)
SCENARIO_ORDER = {"Offline": 0, "Server": 1, "Interactive": 2}
# Power bases, most trustworthy first (docs/definitions.md section 4); never mixed in one ranking. The
# first two are the entry's own: what the system drew at the wall during the run, and the capacity it
# states for itself (v6.1's design_power_watts); the others are estimates.
POWER_BASES = ("measured", "nameplate", "system estimate", "accelerators only")

ANSWER_SQL = """
WITH graded AS (
    SELECT * FROM token_economics
    WHERE round = $round AND market = $market AND procurement_grade AND NOT mixed_cluster
      AND accelerator IS NOT NULL AND partition IS NULL  -- whole accelerators, as accelerator_comparison ranks
),
-- per accelerator as accelerator_comparison ranks it, within the market
per_accelerator AS (
    SELECT benchmark, scenario, throughput_unit, 'per_accelerator' AS measure, accelerator,
           throughput_per_accelerator AS value, result_id, submitter, accelerator_count,
           NULL::VARCHAR AS basis
    FROM graded WHERE throughput_per_accelerator IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY benchmark, scenario, throughput_unit, accelerator
                               ORDER BY throughput_per_accelerator DESC, result_id) = 1
),
-- per rack as rack_throughput picks it: a measured rack when the accelerator has one, else the best
-- estimate from whole servers (never from less than one server)
racks AS (
    SELECT benchmark, scenario, throughput_unit,
           CASE WHEN measured_rack THEN 'rack_measured' ELSE 'rack_estimated' END AS measure, accelerator,
           throughput_per_rack AS value, result_id, submitter, accelerator_count, rack_basis AS basis
    FROM graded WHERE throughput_per_rack IS NOT NULL AND (measured_rack OR rack_from_servers)
    QUALIFY row_number() OVER (PARTITION BY benchmark, scenario, throughput_unit, accelerator
                               ORDER BY measured_rack DESC, throughput_per_rack DESC, result_id) = 1
),
power AS (
    SELECT *, 'measured' AS power_basis, 1 AS trust, throughput_per_kw_measured AS per_kw FROM graded
    UNION ALL BY NAME
    SELECT *, 'nameplate' AS power_basis, 2 AS trust, throughput_per_kw_nameplate AS per_kw FROM graded
    UNION ALL BY NAME
    SELECT *, 'system estimate' AS power_basis, 3 AS trust, throughput_per_kw_system_estimate AS per_kw FROM graded
    UNION ALL BY NAME
    SELECT *, 'accelerators only' AS power_basis, 4 AS trust, throughput_per_kw_accelerators_only AS per_kw FROM graded
),
best_power AS (
    SELECT * FROM power WHERE per_kw IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY benchmark, scenario, throughput_unit, power_basis, accelerator
                               ORDER BY per_kw DESC, result_id) = 1
),
coverage AS (
    SELECT benchmark, scenario, throughput_unit, power_basis, trust, count(*) AS accelerators
    FROM best_power GROUP BY ALL
),
-- the entry's own power wherever a figure of it exists (measured, else its nameplate), even for one
-- accelerator; else the most trustworthy estimate that compares two accelerators, else the most
-- trustworthy with one
chosen AS (
    SELECT benchmark, scenario, throughput_unit,
           arg_min(power_basis, [CASE WHEN trust <= 2 THEN 0 WHEN accelerators >= 2 THEN 1 ELSE 2 END, trust])
               AS power_basis
    FROM coverage GROUP BY ALL
),
-- how many parts ran, against how many of them the chosen basis ranks: a leader on an estimate only some
-- parts have (no AMD system has one) says among how many it leads
parts_ran AS (
    SELECT benchmark, scenario, throughput_unit, count(DISTINCT accelerator) AS parts FROM graded GROUP BY ALL
),
per_kw AS (
    SELECT p.benchmark, p.scenario, p.throughput_unit, 'per_kw' AS measure, p.accelerator, p.per_kw AS value,
           p.result_id, p.submitter, p.accelerator_count, p.power_basis,
           CASE p.power_basis
               WHEN 'measured' THEN 'measured system power (the whole system at the wall, during the run)'
               WHEN 'nameplate' THEN 'nameplate system power (the PSU capacity the entry states, not what it drew)'
               WHEN 'system estimate' THEN 'system estimate' || coalesce(' (' || p.power_reference || ')', '')
               WHEN 'accelerators only' THEN 'accelerators only (hosts, network and cooling left out)'
           END || CASE WHEN v.accelerators < r.parts
                       THEN format('; {} of the {} parts that ran have one', v.accelerators, r.parts)
                       ELSE '' END AS basis
    FROM best_power AS p JOIN chosen AS c USING (benchmark, scenario, throughput_unit, power_basis)
    JOIN coverage AS v USING (benchmark, scenario, throughput_unit, power_basis)
    JOIN parts_ran AS r USING (benchmark, scenario, throughput_unit)
),
-- the cheapest tokens by the user's prices: each priced accelerator's fewest dollars per million
-- tokens, with the price, its source and its date
per_dollar AS (
    SELECT t.benchmark, t.scenario, t.throughput_unit, 'per_dollar' AS measure, t.accelerator,
           t.dollars_per_million_tokens AS value, t.result_id, t.submitter, t.accelerator_count,
           '$' || printf('%.2f', p.dollars_per_accelerator_hour) || ' per accelerator-hour' AS basis,
           -- where the price is from: once a table, in its footnote (price_footnote)
           nullif(concat_ws(', ', coalesce(p.source, p.note), strftime(p.priced_on, '%Y-%m-%d')), '') AS provenance
    FROM graded AS t JOIN stg_prices AS p USING (accelerator)
    WHERE t.dollars_per_million_tokens IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY t.benchmark, t.scenario, t.throughput_unit, t.accelerator
                               ORDER BY t.dollars_per_million_tokens, t.result_id) = 1
),
ranked AS (
    SELECT *, row_number() OVER (PARTITION BY benchmark, scenario, throughput_unit, measure
                                 ORDER BY CASE WHEN measure = 'per_dollar' THEN -value ELSE value END DESC,
                                          accelerator) AS place
    FROM (FROM per_accelerator UNION ALL BY NAME FROM racks UNION ALL BY NAME FROM per_kw
          UNION ALL BY NAME FROM per_dollar)
),
leaders AS (
    SELECT benchmark, scenario, throughput_unit, value AS best FROM ranked
    WHERE measure = 'per_accelerator' AND place = 1
),
-- a row a buyer may not rank that gives more per accelerator, with why (the one eligibility rule:
-- result_eligibility.excluded_because)
outside AS (
    SELECT t.benchmark, t.scenario, t.throughput_unit, 'outside_grade' AS measure, t.accelerator,
           t.throughput_per_accelerator AS value, t.result_id, t.submitter, t.accelerator_count,
           t.excluded_because AS basis, 1 AS place
    FROM token_economics AS t JOIN leaders AS l USING (benchmark, scenario, throughput_unit)
    WHERE t.round = $round AND t.market = $market AND NOT t.procurement_grade
      AND t.throughput_per_accelerator > l.best
    QUALIFY row_number() OVER (PARTITION BY t.benchmark, t.scenario, t.throughput_unit
                               ORDER BY t.throughput_per_accelerator DESC, t.result_id) = 1
),
-- the accelerators that lead a column other than cost and have no price: a per-dollar answer is
-- "among priced accelerators", and says which leaders it could not weigh
unpriced AS (
    SELECT r.benchmark, r.scenario, r.throughput_unit,
           list(DISTINCT r.accelerator ORDER BY r.accelerator) AS unpriced_leaders
    FROM ranked AS r
    WHERE r.measure <> 'per_dollar' AND r.place = 1
      AND r.accelerator NOT IN (SELECT accelerator FROM stg_prices WHERE accelerator IS NOT NULL)
    GROUP BY ALL
)
SELECT r.*, coalesce(b.llm, false) AS llm, coalesce(u.unpriced_leaders, []) AS unpriced_leaders, a.segment
FROM (SELECT * FROM ranked WHERE place <= 2 UNION ALL BY NAME FROM outside) AS r
LEFT JOIN dim_benchmarks AS b USING (benchmark)
LEFT JOIN stg_accelerators AS a USING (accelerator)
LEFT JOIN unpriced AS u USING (benchmark, scenario, throughput_unit)
"""

COMPETITORS_SQL = """
SELECT benchmark, scenario, throughput_unit, count(*) AS accelerators, f.benchmark_family AS family
FROM accelerator_comparison
JOIN (SELECT DISTINCT benchmark, benchmark_family FROM base_benchmark_names) AS f USING (benchmark)
WHERE round = $round GROUP BY ALL
"""


@dataclass(frozen=True)
class Figure:
    """One result behind a figure of the answer."""
    accelerator: str
    value: float
    result_id: str
    submitter: str
    accelerator_count: int
    url: str
    basis: str | None = None  # how a rack was got, which power, or why a row is outside procurement grade
    segment: str | None = None  # who the part is sold to (datacenter, workstation, edge, client)
    power_basis: str | None = None  # per kW: measured, nameplate, system estimate or accelerators only
    provenance: str | None = None  # per dollar: the price's source and date


@dataclass(frozen=True)
class Ranked:
    """The best figure of one measure and the runner-up accelerator's."""
    best: Figure | None = None
    runner_up: Figure | None = None

    @property
    def gap(self) -> float | None:
        """How much more the best gives than the runner-up: 0.105 = 10.5% more (for a cost, how much
        less the best costs: 0.2 = 20% less)."""
        if self.best is None or self.runner_up is None or not self.runner_up.value:
            return None
        return abs(self.best.value / self.runner_up.value - 1)


@dataclass(frozen=True)
class Answer:
    """What to buy for one benchmark and scenario of the round."""
    round: str
    benchmark: str
    scenario: str
    unit: str
    llm: bool
    per_accelerator: Ranked
    rack_measured: Ranked
    rack_estimated: Ranked
    per_kw: Ranked
    per_dollar: Ranked = Ranked()
    outside_grade: Figure | None = None
    unpriced_leaders: tuple[str, ...] = ()  # accelerators leading another column that have no price
    market: str = "datacenter"
    twins: tuple[str, ...] = ()  # the benchmark's other accuracy targets with this very answer (merged_twins)

    @property
    def label(self) -> str:
        """The benchmark as the row names it: 'llama2-70b-99 / -99.9' for twins with one answer."""
        return merged_subject([self.benchmark, *self.twins]) if self.twins else self.benchmark

    @property
    def rate(self) -> str:
        """The unit as a reader says it: tokens/s, samples/s, queries/s."""
        return self.unit[:1].lower() + self.unit[1:] if self.unit else ""

    @property
    def key(self) -> str:
        return f"{self.label} · {self.scenario}"

    def sentence(self) -> list:
        """One sentence, as segments: text, or a Figure (written as its result ID, linked)."""
        lead = self.per_accelerator
        if lead.best is None:
            return [f"{self.key}: no procurement-grade result this round."]
        parts: list = [f"{self.key}: {lead.best.accelerator} gives the most per accelerator, "
                       f"{number(lead.best.value)} {self.rate} (", lead.best, ")"]
        parts += _beats(lead, self.rate)
        for label, ranked in (("the best measured rack", self.rack_measured),
                              ("the best estimated rack", self.rack_estimated)):
            if ranked.best is not None:
                parts += [f"; {label} is {ranked.best.accelerator}, {number(ranked.best.value)} {self.rate} "
                          f"({ranked.best.basis}, ", ranked.best, ")"]
        if self.per_kw.best is not None:
            parts += [f"; per kW, {self.per_kw.best.accelerator} with {number(self.per_kw.best.value)} {self.rate} "
                      f"({self.per_kw.best.basis}, ", self.per_kw.best, ")"]
        if self.per_dollar.best is not None:
            parts += [f"; the cheapest tokens among priced accelerators, {self.per_dollar.best.accelerator} at "
                      f"{dollars(self.per_dollar.best.value)} per million ({self.per_dollar.best.basis}, ",
                      self.per_dollar.best, ")"]
            if self.unpriced_leaders:
                parts += [f" ({', '.join(self.unpriced_leaders)}, leading elsewhere, "
                          f"{'has' if len(self.unpriced_leaders) == 1 else 'have'} no price)"]
        if self.outside_grade is not None:
            parts += [f"; not ranked: {self.outside_grade.accelerator} at {number(self.outside_grade.value)} "
                      f"per accelerator ({self.outside_grade.basis}, ", self.outside_grade, ")"]
        return parts + ["."]


def _beats(ranked: Ranked, rate: str) -> list:
    if ranked.runner_up is None:
        return [", the only accelerator with one"]
    return [f", {percent(ranked.gap)} more than {ranked.runner_up.accelerator} "
            f"({number(ranked.runner_up.value)}, ", ranked.runner_up, ")"]


# a figure for people, and a cost: one rule for the terminal, the report and the decision records
number = human_number


def percent(share: float | None) -> str:
    return "" if share is None else f"{share * 100:.1f}%"


def answer_frame(con: duckdb.DuckDBPyConnection, round_name: str, market: str = "datacenter") -> pl.DataFrame:
    """The answer's figures in long form: (benchmark, scenario, unit, measure, place) -> the result."""
    return db.query_frame(con, ANSWER_SQL, {"round": round_name, "market": market})


def answers(con: duckdb.DuckDBPyConnection, round_name: str | None, links: dict[str, str],
            market: str = "datacenter") -> list[Answer]:
    """Every benchmark and scenario of the round with a procurement-grade result in the market (the
    buyer it answers: stg_results.market), in reading order."""
    return answers_by_market(con, round_name, links, (market,))[market]


def answers_by_market(con: duckdb.DuckDBPyConnection, round_name: str | None, links: dict[str, str],
                      markets: tuple[str, ...] = ("datacenter", "edge")) -> dict[str, list[Answer]]:
    """`answers` for each market, the reading order (the competitors per benchmark) read once."""
    if round_name is None:
        return {market: [] for market in markets}
    competitors = db.query_frame(con, COMPETITORS_SQL, {"round": round_name})
    return {market: merged_twins(order_answers(assemble(answer_frame(con, round_name, market), round_name, links,
                                                        market), competitors)) for market in markets}


def assemble(frame: pl.DataFrame, round_name: str, links: dict[str, str], market: str = "datacenter") -> list[Answer]:
    """Answers from the long-form figures (answer_frame); `links` maps a result ID to its page."""
    built = []
    if frame.is_empty():
        return built
    for (benchmark, scenario, unit), rows in frame.group_by(["benchmark", "scenario", "throughput_unit"],
                                                            maintain_order=True):
        figures = {(r["measure"], r["place"]): _figure(r, links) for r in rows.iter_rows(named=True)}

        def ranked(measure: str) -> Ranked:
            return Ranked(figures.get((measure, 1)), figures.get((measure, 2)))
        unpriced = tuple(rows["unpriced_leaders"].to_list()[0] or ())
        built.append(Answer(round_name, benchmark, scenario, unit, bool(rows["llm"][0]),
                            *(ranked(m) for m in MEASURES), figures.get(("outside_grade", 1)), unpriced, market))
    return built


def _figure(row: dict, links: dict[str, str]) -> Figure:
    return Figure(row["accelerator"], row["value"], row["result_id"], row["submitter"], row["accelerator_count"],
                  links.get(row["result_id"], ""), row["basis"], row.get("segment"), row.get("power_basis"),
                  row.get("provenance"))


def order_answers(built: list[Answer], competitors: pl.DataFrame) -> list[Answer]:
    """LLMs first; then the benchmark families most accelerators compete in; a family's accuracy
    targets together (99 before 99.9); scenarios as MLPerf lists them (Offline, Server, Interactive)."""
    counts = {}
    for row in competitors.iter_rows(named=True):
        counts[row["family"]] = max(counts.get(row["family"], 0), row["accelerators"])
    family = {row["benchmark"]: row["family"] for row in competitors.iter_rows(named=True)}

    def key(answer: Answer):
        name = family.get(answer.benchmark, answer.benchmark)
        return (not answer.llm, -counts.get(name, 0), name, answer.benchmark,
                SCENARIO_ORDER.get(answer.scenario, 9), answer.scenario, answer.unit)
    return sorted(built, key=key)


def merged_twins(built: list[Answer]) -> list[Answer]:
    """One answer for a benchmark's accuracy targets when every figure of theirs is the same result
    (llama2-70b-99 and -99.9 Server, led alike in each column): the rule the run's message merges its
    leaders by (warehouse.twins); answers that differ in any figure stay apart. Order kept."""
    kept: list[Answer] = []
    for answer in built:
        twin = twin_key(answer.benchmark)
        same = twin and next((k for k in kept if twin_key(k.benchmark) == twin and k.scenario == answer.scenario
                              and replace(answer, benchmark=k.benchmark) == replace(k, twins=())), None)
        if same:
            kept[kept.index(same)] = replace(same, twins=(*same.twins, answer.benchmark))
        else:
            kept.append(answer)
    return kept


def opening_answer(built: list[Answer]) -> Answer | None:
    """The answer a reader starts from: the first (the most compared workload), on Server when it
    has one (a service's figure, not a batch job's)."""
    return next((a for a in built if a.scenario == "Server"), built[0] if built else None)


# The verdict's lines: per market, the LLM workloads, then the others
FAMILIES = ((True, "LLM serving"), (False, "other workloads"))
MARKET_NAMES = {"datacenter": "Datacenter", "edge": "Edge and desk"}
# How far a figure is measured, as its badge says: (badge class, words)
POWER_EVIDENCE = {"measured": ("measured", "measured power"), "nameplate": ("estimated", "nameplate power"),
                  "system estimate": ("estimated", "system power estimated"),
                  "accelerators only": ("estimated", "accelerators-only estimate")}


@dataclass(frozen=True)
class Verdict:
    """What to buy for one market and workload family, in one line: the figures of its opening answer
    (opening_answer), and how many of the family's workloads the per-accelerator leader leads."""
    market: str
    family: str
    answer: Answer
    workloads: int
    led: int

    @property
    def heading(self) -> str:
        return f"{MARKET_NAMES.get(self.market, self.market)}, {self.family}"

    @property
    def rack(self) -> tuple[Figure | None, str]:
        """The per-rack figure and its evidence: a rack measured whole, else the estimate."""
        if self.answer.rack_measured.best is not None:
            return self.answer.rack_measured.best, "measured"
        return self.answer.rack_estimated.best, "estimated"


def evidence(measure: str, figure: Figure) -> tuple[str, str]:
    """(badge class, words) of a figure: a result is measured; a rack measured whole or estimated;
    per kW by its power basis; a cost rests on your price."""
    if measure == "per_kw":
        return POWER_EVIDENCE.get(figure.power_basis, ("estimated", figure.power_basis or "estimated"))
    if measure == "rack_estimated":
        return "estimated", "estimated rack"
    if measure == "per_dollar":
        return "estimated", "your price"
    return "measured", "measured rack" if measure == "rack_measured" else "measured"


def verdicts(by_market: dict[str, list[Answer]]) -> list[Verdict]:
    """A verdict per market and family that has an answer with a per-accelerator leader."""
    found = []
    for market, built in by_market.items():
        for llm, family in FAMILIES:
            answered = [a for a in built if a.llm == llm and a.per_accelerator.best is not None]
            opening = opening_answer(answered)
            if opening is None:
                continue
            leader = opening.per_accelerator.best.accelerator
            led = sum(1 for a in answered if a.per_accelerator.best.accelerator == leader)
            found.append(Verdict(market, family, opening, len(answered), led))
    return found
