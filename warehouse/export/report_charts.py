"""The report's charts, drawn from the marts with Altair: one question per chart, axis titles in plain
words, every per-rack mark saying whether the rack was measured or estimated, axes fitted to the data.
A chart's title and caption are the page's (written once, above it); the PNG and SVG for slides get
them inside the image (`Chart.titled`)."""
from __future__ import annotations

import math
from dataclasses import dataclass

import altair as alt
import polars as pl

from warehouse.export.report_interactive import (ACCELERATOR, BENCHMARK, ROUND, AcceleratorPalette, Filter,
                                                 filters_for, gain_scale, leading, shade)
from warehouse.export.report_interactive import COLOURED
from warehouse.identity.rounds import round_sort_key
from warehouse.store import db

VERIFICATION_SHAPES = {"verified": "circle", "preview": "triangle-up"}
# Software stacks as shapes (stg_results.stack); the rest are 'other'; your replays are crosses.
STACK_SHAPES = {"TensorRT": "circle", "vLLM": "square", "SGLang": "diamond", "LLMBoost": "triangle-down",
                "PyTorch": "triangle-right", "other": "triangle-left", "your replay": "cross"}
OWN = "your replay"
TOP_ENTRIES = 8
WIDTH = 640
LABEL_FONT = 11
COMPACT = ".2~s"  # axis labels in compact units: 1.2M, 800k, 200k (never "0M 0.2M")
PLAIN = "~r"      # an axis whose figures stay under 1,000: 0.5, 0.05, 250, 10 (".2~s" says "500m"; "~g", with
# the precision Vega gives a linear axis's step, says "1e+1")
# Every chart's text at 11 px or more as drawn, and no chart wider than a 1000 px window's page (its
# content is about 930 px): a wider one is drawn scaled down, its text with it.
READABLE = {"font": "DejaVu Sans, Liberation Sans, Arial, sans-serif",
            "axis": {"labelFontSize": LABEL_FONT, "titleFontSize": LABEL_FONT, "titleFontWeight": "normal"},
            "legend": {"labelFontSize": LABEL_FONT, "titleFontSize": LABEL_FONT, "orient": "bottom",
                       "direction": "horizontal", "columns": 4, "labelLimit": 200},
            "header": {"labelFontSize": 12, "titleFontSize": 12},
            "text": {"fontSize": LABEL_FONT}, "title": {"fontSize": 13, "subtitleFontSize": LABEL_FONT}}


@dataclass
class Chart:
    """One chart of the report: what it shows, and the Altair chart (None when there are no rows)."""
    name: str
    title: str
    shows: str                      # which rows: verified only, or which preview rows
    rounds: list[str]
    chart: alt.TopLevelMixin | None
    empty_note: str = "no rows"

    @property
    def caption(self) -> str:
        rounds = ", ".join(self.rounds) if self.rounds else "none loaded"
        return f"{self.shows} · rounds: {rounds}"

    def title_spec(self) -> dict:
        """The title and caption inside the chart: for the PNG and SVG, read without the page."""
        return {"text": self.title, "subtitle": _wrapped(self.caption), "anchor": "start"}


def _wrapped(text: str, width: int = 120) -> list[str]:
    """A subtitle in lines of at most `width` characters (Vega cuts one long line at the right)."""
    lines, line = [], ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return lines + ([line] if line else [])


def _rounds(frame: pl.DataFrame, *columns: str) -> list[str]:
    values = {v for c in columns if c in frame.columns for v in frame[c].drop_nulls().to_list()}
    return sorted(values, key=round_sort_key)


def _identity(*fields: str) -> list:
    """Tooltip entries for a row's identity, titled as the column is named."""
    return [alt.Tooltip(f"{field}:N" if field not in NUMERIC_TOOLTIPS else f"{field}:Q", title=field.replace("_", " "))
            for field in fields]


NUMERIC_TOOLTIPS = {"accelerator_count", "accelerator_count_small", "accelerator_count_large", "rank_per_accelerator",
                    "ttft_p99_ms", "tpot_p99_ms"}


def fitted_log_scale(values: pl.Series, **kwargs) -> alt.Scale:
    """A log scale over the data's own range (a tenth of it as margin either side), not decades."""
    present = [v for v in values.drop_nulls().to_list() if v > 0]
    low, high = (min(present), max(present)) if present else (1, 10)
    margin = math.exp(0.1 * max(math.log(high / low), math.log(1.5)))
    return alt.Scale(type="log", domain=[low / margin, high * margin], nice=False, **kwargs)


def log_ticks(values: pl.Series | list, margin: float = 1.15) -> list[float]:
    """1-2-5 steps spanning the values with a tick at or beyond each end, so no mark sits above the
    last label of a log axis; the axis' domain is its first and last tick."""
    present = [v for v in (values.drop_nulls().to_list() if isinstance(values, pl.Series) else values) if v and v > 0]
    low, high = (min(present) / margin, max(present) * margin) if present else (1, 10)  # no mark on an axis line
    steps = [m * 10 ** e for e in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 2)
             for m in (1, 2, 5)]
    first = max(t for t in steps if t <= low)
    last = min(t for t in steps if t >= high)
    return [t for t in steps if first <= t <= last]


def tick_format(values: pl.Series | list) -> str:
    """An axis' number format by its field's range: compact units (1.2M, 200k) once it reaches 1,000,
    plain figures below (0.5, 0.05: SI prefixes would read "500m")."""
    present = [abs(v) for v in (values.drop_nulls().to_list() if isinstance(values, pl.Series) else values)
               if v is not None]
    return COMPACT if present and max(present) >= 1000 else PLAIN


def snapped_log_scale(values, format: str | None = None, margin: float = 1.15) -> tuple[alt.Scale, alt.Axis]:
    ticks = log_ticks(values, margin)
    format = format or tick_format(ticks)
    return (alt.Scale(type="log", domain=[ticks[0], ticks[-1]], nice=False),
            alt.Axis(values=ticks, format=format, labelOverlap=True, grid=True))


# --- throughput against interactivity (section 4 of the page) -----------------------------------

def interactivity_chart(con, round_name: str | None, palette: AcceleratorPalette) -> Chart:
    """Tokens/s per accelerator against the tokens/s one user sees, one mark per entry and scenario,
    per LLM benchmark: colour = accelerator, shape = software stack, hollow = preview; your replays
    on the same axes."""
    mlperf = interactivity_frame(con)
    own = own_replay_points(con, set(mlperf["benchmark"].unique().to_list()) if mlperf.height else set())
    frame = pl.concat([mlperf, own], how="diagonal_relaxed") if own.height else mlperf
    untimed = untimed_llm_benchmarks(con, round_name, mlperf)
    chart = Chart("interactivity", "Throughput per accelerator against the pace each user sees",
                  interactivity_shows(mlperf, own) + (f"; not drawn: {', '.join(untimed)} (no tokens per user "
                                                      "published or measured)" if untimed else ""),
                  _rounds(frame, "round"), None)
    if not mlperf.height:
        return chart
    own_rows = "datum.source == 'your replay'"
    filters = filters_for(frame, (Filter("round", "round", round_name, unless=own_rows),
                                  Filter("scenario", "scenario", unless=own_rows), ACCELERATOR,
                                  Filter("verification", "rows")))
    # a panel per benchmark of the round the chart opens on, each with its own axes: no axis under an
    # empty cell, y fitted to its benchmark (a 405B model serves a tenth of an 8B one), x shared
    opening = mlperf.filter(pl.col("round") == round_name) if round_name else mlperf
    benchmarks = sorted(opening["benchmark"].unique().to_list())
    x_scale, x_axis = snapped_log_scale(frame["per_user"])
    coloured = leading(mlperf, ["benchmark"], "per_accelerator")
    panels = [_interactivity_panel(frame, benchmark, palette, x_scale, x_axis, filters.expression, coloured)
              for benchmark in benchmarks]
    rows = [alt.hconcat(*panels[i:i + 3]) for i in range(0, len(panels), 3)]
    grid = alt.vconcat(*rows, data=frame).resolve_scale(shape="shared", color="shared")
    chart.chart = grid.add_params(*filters.params) if filters.params else grid
    return chart


def _interactivity_panel(frame: pl.DataFrame, benchmark: str, palette: AcceleratorPalette, x_scale, x_axis,
                         expression: str | None, coloured: list[str]):
    rows = frame.filter(pl.col("benchmark") == benchmark)
    y_scale, y_axis = snapped_log_scale(rows["per_accelerator"])
    base = alt.Chart().transform_filter(alt.datum.benchmark == benchmark).transform_calculate(**shade(coloured))
    if expression:
        base = base.transform_filter(expression)
    base = base.encode(
        x=alt.X("per_user:Q", title="tokens/s per user (1 / time per output token)", scale=x_scale, axis=x_axis),
        y=alt.Y("per_accelerator:Q", title="tokens/s per accelerator", scale=y_scale, axis=y_axis),
        color=palette.encoding(frame, coloured=coloured),
        tooltip=[*_identity("source", "round", "benchmark", "scenario", "submitter", "system", "result_id", "accelerator",
                            "accelerator_count", "stack", "verification", "per_user_from", "tpot_p99_ms"),
                 alt.Tooltip("per_accelerator:Q", format=",.0f", title="tokens/s per accelerator"),
                 alt.Tooltip("per_user:Q", format=",.1f", title="tokens/s per user")])
    frontier = base.transform_filter(alt.datum.on_frontier == True).mark_line(strokeWidth=1.2).encode(  # noqa: E712
        detail="round:N", order="per_user:Q")
    points = base.mark_point(strokeWidth=1.6).encode(
        shape=alt.Shape("stack:N", title="software stack",
                        scale=alt.Scale(domain=list(STACK_SHAPES), range=list(STACK_SHAPES.values()))),
        size=alt.condition(alt.datum.source == OWN, alt.value(220), alt.value(60)),
        fill=alt.condition(alt.datum.verification == "preview", alt.value("transparent"),
                           palette.encoding(frame, legend=False, coloured=coloured)))
    layers = ([frontier] if rows["on_frontier"].fill_null(False).any() else []) + [points]
    return alt.layer(*layers).properties(width=220, height=200, title=alt.TitleParams(
        benchmark, fontSize=12, anchor="middle"))


def untimed_llm_benchmarks(con, round_name: str | None, drawn: pl.DataFrame) -> list[str]:
    """The LLM benchmarks of the round with a Server or Interactive result that the chart cannot place."""
    if round_name is None:
        return []
    ran = {b for (b,) in con.execute("""
        SELECT DISTINCT t.benchmark FROM token_economics AS t JOIN dim_benchmarks AS b USING (benchmark)
        WHERE b.llm AND t.round = ? AND t.scenario IN ('Server', 'Interactive')""", [round_name]).fetchall()}
    shown = set(drawn.filter(pl.col("round") == round_name)["benchmark"].to_list()) if drawn.height else set()
    return sorted(ran - shown)


def interactivity_shows(mlperf: pl.DataFrame, own: pl.DataFrame) -> str:
    measured = mlperf.filter(pl.col("per_user_from") == "run summary").height if mlperf.height else 0
    if measured == mlperf.height:
        pace = "x: each run's measured pace (1 / mean time per output token, from its run summary)"
    elif measured == 0:
        pace = ("x: no run summary is loaded, so each result stands at the least pace its scenario's p99 TPOT "
                "limit guarantees (one column per scenario; `mlperf-wh trees` loads the measured pace)")
    else:
        pace = (f"x: the run's measured pace for {measured} of {mlperf.height} results; the other "
                f"{mlperf.height - measured} (no run summary loaded) stand at the least pace their scenario's "
                "p99 TPOT limit guarantees")
    own_note = (f"; crosses: your {own['run'].n_unique()} replay(s), never ranked" if own.height
                else "; no replay of your own loaded (mlperf-wh measurements load FILE)")
    return ("verified and preview (hollow) Server and Interactive results of the LLM benchmarks, one mark per "
            f"entry; colour: accelerator; shape: software stack; {pace}; lines join each accelerator's "
            f"best trade-offs (measured paces only){own_note}; opens on the newest round")


def interactivity_frame(con) -> pl.DataFrame:
    # Without `mlperf-wh trees` no run has a measured pace; the scenario's p99 TPOT limit still bounds it.
    frame = db.query_frame(con, """
        WITH latency AS (
            SELECT result_id, benchmark, scenario, any_value(tpot_p99_ms) AS tpot_p99_ms
            FROM latency_profile GROUP BY ALL
        ), stacks AS (
            SELECT result_id, mode(stack) AS stack FROM stg_results WHERE metric = 'performance' GROUP BY result_id
        )
        SELECT 'MLPerf' AS source, f.round, f.benchmark, f.scenario, f.accelerator, f.submitter, f.system,
               f.result_id, f.accelerator_count, f.verification,
               CASE WHEN s.stack IN ('TensorRT', 'vLLM', 'SGLang', 'LLMBoost', 'PyTorch') THEN s.stack
                    ELSE 'other' END AS stack,
               f.tokens_per_second_per_accelerator AS per_accelerator,
               coalesce(f.tokens_per_second_per_user, 1000 / c.tpot_p99_ms) AS per_user,
               CASE WHEN f.tokens_per_second_per_user IS NULL THEN 'the scenario''s p99 TPOT limit'
                    ELSE 'run summary' END AS per_user_from,
               f.on_frontier, l.tpot_p99_ms
        FROM interactivity_frontier AS f
        LEFT JOIN latency AS l USING (result_id, benchmark, scenario)
        LEFT JOIN stacks AS s USING (result_id)
        LEFT JOIN stg_scenario_constraints AS c USING (benchmark, scenario)
        WHERE f.scenario IN ('Server', 'Interactive') AND f.accelerator NOT LIKE '% + %'
          AND coalesce(f.tokens_per_second_per_user, 1000 / c.tpot_p99_ms) IS NOT NULL
        ORDER BY f.round, f.benchmark, f.scenario, f.result_id""")
    return frame


def own_replay_points(con, benchmarks: set[str]) -> pl.DataFrame:
    """Your replays, one point per benchmark of the run's model that the chart has."""
    frame = db.query_frame(con, """
        SELECT 'your replay' AS source, unnest(benchmarks) AS benchmark, coalesce(accelerator, accelerator_raw)
               AS accelerator, coalesce(label, run_id) AS run, coalesce(label, run_id) AS result_id,
               'you' AS submitter, coalesce(system, tool) AS system, accelerator_count,
               'own measurement' AS verification, 'your replay' AS stack,
               tokens_per_second_per_accelerator AS per_accelerator, tokens_per_second_per_user AS per_user,
               'your run' AS per_user_from, tpot_p99_ms
        FROM own_runs
        WHERE tokens_per_second_per_user IS NOT NULL AND tokens_per_second_per_accelerator IS NOT NULL
        ORDER BY run_id, benchmark""")
    return frame.filter(pl.col("benchmark").is_in(list(benchmarks))) if frame.height else frame


# --- the appendix --------------------------------------------------------------------------------

def leaderboard_chart(con, round_name: str | None, palette: AcceleratorPalette) -> Chart:
    """Per accelerator, not per system: one bar per entry (result ID), sorted, so a 288-GPU cluster
    and an 8-GPU server are read on one scale."""
    frame = db.query_frame(con, f"""
        SELECT l.round, l.benchmark, l.scenario, l.rank_per_accelerator, l.submitter, l.system, l.result_id,
               l.result_per_accelerator AS per_accelerator, l.result AS system_result, l.accelerator,
               l.accelerator_count, l.verification,
               l.accelerator || ' ×' || l.accelerator_count || ' · ' || l.submitter || ' · ' || l.result_id AS entry,
               l.benchmark || ' (' || lower(l.result_unit) || ')' AS benchmark_unit
        FROM leaderboard AS l JOIN dim_benchmarks AS b USING (benchmark)
        WHERE b.llm AND l.suite = 'datacenter' AND l.result_unit IN ('Tokens/s', 'Samples/s', 'Queries/s')
          AND l.accelerator IS NOT NULL
          AND l.accelerator NOT LIKE '% + %'
          AND l.scenario IN ('Offline', 'Server', 'Interactive') AND l.rank_per_accelerator <= {TOP_ENTRIES}
        ORDER BY l.round, l.benchmark, l.scenario, l.rank_per_accelerator, l.result_id""")
    shows = (f"verified results without anomaly findings, datacenter suite; the top {TOP_ENTRIES} entries per "
             "accelerator of each LLM benchmark, round and scenario, one bar per result ID, in the benchmark's own "
             "unit (tokens/s; samples/s for a benchmark that publishes no tokens, Qwen3-VL); the whole system's "
             f"result in the tooltip; mixed clusters left out; opens on round {round_name}, Server")
    chart = Chart("leaderboard", "Leaderboard per accelerator: each entry's result per accelerator", shows,
                  _rounds(frame, "round"), None)
    if frame.height:
        filters = (Filter("round", "round", round_name, allow_all=False),
                   Filter("scenario", "scenario", "Server", allow_all=False), BENCHMARK, ACCELERATOR)
        bars = alt.Chart(frame).mark_bar().encode(
            x=alt.X("per_accelerator:Q", title="per accelerator, in the row's unit",
                    axis=alt.Axis(format=tick_format(frame["per_accelerator"]), labelOverlap=True)),
            y=alt.Y("entry:N", title=None, sort="-x", axis=alt.Axis(labelLimit=260, labelFontSize=LABEL_FONT)),
            color=palette.encoding(frame),
            row=alt.Row("benchmark_unit:N", title=None,
                        header=alt.Header(labelAngle=0, labelAlign="left", labelFontSize=12, labelLimit=150)),
            tooltip=[*_identity("round", "benchmark", "scenario", "rank_per_accelerator", "submitter", "system",
                                "result_id", "accelerator", "accelerator_count", "verification"),
                     alt.Tooltip("per_accelerator:Q", format=",.1f", title="per accelerator"),
                     alt.Tooltip("system_result:Q", format=",.1f", title="whole system")],
        ).properties(width=250).resolve_scale(x="independent", y="independent")
        chart.chart = filters_for(frame, filters).apply(bars)
    return chart


TOKEN_PANELS = {"per_accelerator": "per accelerator", "per_rack": "per rack",
                "per_joule": "tokens per joule (measured power)"}
RACK_OPACITY = {"measured": 1.0, "estimated": 0.4, "not a rack": 1.0}


def token_economics_chart(con, round_name: str | None, palette: AcceleratorPalette) -> Chart:
    """Each accelerator's best per accelerator and per rack in the newest round (per rack: a measured
    rack solid, an estimate pale and labelled), tokens per joule where power was measured."""
    frame = token_economics_frame(con, round_name)
    joules = frame.filter(pl.col("panel") == "per_joule")
    shows = (f"procurement-grade results (verified, no anomaly finding) of the LLM benchmarks; per accelerator and "
             f"per rack: each accelerator's best in round {round_name}; per rack: a rack measured whole is solid, "
             "an estimate from whole servers is pale and labelled with the servers it rests on (estimates from "
             "less than one server are left out); in tokens/s where the benchmark's tokens are known, else its own "
             "unit (named beside the benchmark); mixed clusters and rows of a single accelerator left out (the answer "
             "table has them); tokens per joule, a panel per benchmark on its own scale (one model's tokens are "
             "not another's): measured power only "
             f"({', '.join(_rounds(joules, 'round')) or 'none loaded'}); opens on Offline")
    throughput = frame.filter(pl.col("panel") != "per_joule")
    chart = Chart("token_economics", "Tokens/s per accelerator, per rack and per joule", shows,
                  sorted(set(_rounds(joules, "round")) | ({round_name} if throughput.height else set()),
                         key=round_sort_key), None)
    if throughput.height:
        filters = filters_for(frame, (Filter("scenario", "scenario", "Offline", allow_all=False), BENCHMARK, ACCELERATOR))
        coloured = leading(frame, ["panel", "benchmark", "scenario"], "value")
        panels = [_token_panel(frame, panel, palette, filters.expression, coloured) for panel in TOKEN_PANELS
                  if frame.filter(pl.col("panel") == panel).height]
        # one above the other, each with its own panel per benchmark: side by side they pass 1000 px
        concat = alt.vconcat(*panels, data=frame)
        chart.chart = concat.add_params(*filters.params) if filters.params else concat
    return chart


def token_economics_frame(con, round_name: str | None) -> pl.DataFrame:
    """One row per panel, benchmark, scenario and bar, with the result behind it."""
    return db.query_frame(con, """
        WITH llm AS (SELECT benchmark FROM dim_benchmarks WHERE llm),
        per_accelerator AS (
            SELECT 'per_accelerator' AS panel, accelerator AS bar,
                   coalesce(tokens_per_second_per_accelerator, throughput_per_accelerator) AS value,
                   CASE WHEN tokens_per_second_per_accelerator IS NOT NULL THEN 'tokens/s' ELSE lower(throughput_unit) END
                       AS unit,
                   round, benchmark, scenario, accelerator, result_id_per_accelerator AS result_id,
                   submitter_per_accelerator AS submitter, accelerator_count_per_accelerator AS accelerator_count,
                   'not a rack' AS rack, NULL AS rack_basis
            FROM accelerator_comparison WHERE round = $round AND benchmark IN (FROM llm) AND NOT mixed_cluster
        ), per_rack AS (
            SELECT 'per_rack' AS panel, accelerator AS bar, coalesce(tokens_per_second_per_rack, throughput_per_rack) AS value,
                   CASE WHEN tokens_per_second_per_rack IS NOT NULL THEN 'tokens/s' ELSE lower(throughput_unit) END
                       AS unit,
                   round, benchmark, scenario, accelerator, result_id, submitter, accelerator_count,
                   CASE WHEN measured_rack THEN 'measured' ELSE 'estimated' END AS rack, rack_basis
            FROM rack_throughput
            WHERE round = $round AND verification = 'verified' AND len(findings) = 0 AND rank_per_rack IS NOT NULL
              AND benchmark IN (FROM llm) AND accelerator NOT LIKE '% + %'
        ), per_joule AS (
            SELECT 'per_joule' AS panel, scenario || ' · ' || accelerator || ' · ' || round AS bar,
                   tokens_per_joule_measured AS value, 'tokens per joule' AS unit,
                   round, benchmark, scenario, accelerator, result_id, submitter, accelerator_count,
                   'not a rack' AS rack, NULL AS rack_basis
            FROM token_economics
            WHERE procurement_grade AND accelerator IS NOT NULL AND NOT mixed_cluster AND benchmark IN (FROM llm)
            QUALIFY row_number() OVER (PARTITION BY benchmark, scenario, accelerator, round
                                       ORDER BY tokens_per_joule_measured DESC NULLS LAST, result_id) = 1
        )
        SELECT * REPLACE (CASE rack WHEN 'measured' THEN bar || ' · measured'
                                    WHEN 'estimated' THEN bar || ' · estimated from ' || regexp_extract(rack_basis, '(\\d+)', 1)
                                    ELSE bar END AS bar),
               benchmark || ' (' || unit || ')' AS benchmark_unit
        FROM (FROM per_accelerator UNION ALL BY NAME FROM per_rack UNION ALL BY NAME FROM per_joule)
        WHERE value IS NOT NULL
        -- a row of one bar compares nothing: the answer table has it
        QUALIFY panel = 'per_joule' OR count(*) OVER (PARTITION BY panel, benchmark, scenario) >= 2
        ORDER BY panel, benchmark, scenario, bar, result_id""", {"round": round_name or ""})


def _token_panel(frame: pl.DataFrame, panel: str, palette: AcceleratorPalette, expression: str | None,
                 coloured: list[str]):
    """A row per benchmark, each on its own scale and unit: tokens per joule too (a model's tokens are
    not another model's: one scale across models would rank models, not parts)."""
    rows = alt.Chart().transform_filter(alt.datum.panel == panel).transform_calculate(**shade(coloured))
    if expression:
        rows = rows.transform_filter(expression)
    encoding = dict(
        x=alt.X("value:Q", title=TOKEN_PANELS[panel], axis=alt.Axis(
            format=tick_format(frame.filter(pl.col("panel") == panel)["value"]), labelOverlap=True, tickCount=4)),
        y=alt.Y("bar:N", title=None, sort="-x", axis=alt.Axis(labelFontSize=LABEL_FONT, labelLimit=220)),
        color=palette.encoding(frame, legend=False, coloured=coloured),
        opacity=alt.Opacity("rack:N", legend=None, scale=alt.Scale(type="ordinal", domain=list(RACK_OPACITY),
                                                                   range=list(RACK_OPACITY.values()))),
        tooltip=[*_identity("round", "benchmark", "scenario", "submitter", "result_id", "accelerator",
                            "accelerator_count", "rack_basis", "unit"),
                 alt.Tooltip("value:Q", format=",.1f", title=TOKEN_PANELS[panel])])
    bars = rows.mark_bar(stroke="#333", strokeWidth=0.5)
    return bars.encode(**encoding, row=alt.Row("benchmark_unit:N", title=None, header=alt.Header(
        labelAngle=0, labelAlign="left", labelFontSize=12, labelLimit=400))
    ).properties(width=170).resolve_scale(x="independent", y="independent")


def software_gains_chart(con, palette: AcceleratorPalette) -> Chart:
    frame = db.query_frame(con, """
        SELECT coalesce(accelerator, cpu || ' (CPU only)') AS accelerator, benchmark,
               round_from || ' → ' || round_to AS rounds, round_from,
               round_to AS round, gain, submitter, coalesce(accelerator, cpu) AS system, scenario, accelerator_count,
               result_id_from, result_id_to, 'verified (both rounds)' AS verification
        FROM software_gain_summary WHERE basis = 'same_scale'
        QUALIFY row_number() OVER (PARTITION BY coalesce(accelerator, cpu), benchmark, round_from, round_to
                                   ORDER BY gain DESC, submitter, result_id_to) = 1
        ORDER BY rounds, benchmark, accelerator""")
    shows = ("verified results on both sides; the same submitter, accelerator and system size; the largest "
             "gain across submitters, scenarios and sizes; a panel per benchmark, a row per pair of rounds, a dot "
             "per part (hover for it): blue faster, red slower, grey within 2% of no change")
    chart = Chart("software_gains", "Software gains on the same hardware, round over round", shows,
                  _rounds(frame, "round_from", "round"), None)
    if frame.height:
        frame = frame.with_columns(pl.when(pl.col("gain") > 1.02).then(pl.lit("faster"))
                                   .when(pl.col("gain") < 1 / 1.02).then(pl.lit("slower"))
                                   .otherwise(pl.lit("no change")).alias("direction"))
        pairs = frame["rounds"].unique().to_list()
        base = alt.Chart().encode(
            x=alt.X("gain:Q", title="gain (× later over earlier, log)",
                    scale=fitted_log_scale(pl.concat([frame["gain"], pl.Series([1.0])])),
                    axis=alt.Axis(values=GAIN_TICKS, format="~g", labelOverlap=True)),
            y=alt.Y("rounds:N", title=None, sort=sorted(pairs, key=_pair_order)),
            tooltip=[*_identity("submitter", "system", "accelerator", "accelerator_count", "benchmark",
                                "scenario", "rounds", "result_id_from", "result_id_to", "verification"),
                     alt.Tooltip("gain:Q", format=".2f", title="gain (× later over earlier)")])
        dots = base.mark_point(filled=True, size=45, opacity=0.75).encode(color=alt.Color(
            "direction:N", title="software gain", scale=alt.Scale(domain=list(DIRECTION_COLOURS),
                                                                  range=list(DIRECTION_COLOURS.values()))))
        parity = alt.Chart().mark_rule(strokeDash=[4, 4], color="#999").encode(x=alt.datum(1.0))
        faceted = alt.layer(parity, dots, data=frame).properties(width=170, height=alt.Step(16)).facet(
            facet=alt.Facet("benchmark:N", title=None, header=alt.Header(labelFontSize=12, labelFontWeight="bold")),
            columns=4)
        chart.chart = filters_for(frame, (ROUND, BENCHMARK, ACCELERATOR)).apply(faceted)
    return chart


GAIN_TICKS = [0.25, 0.5, 1, 2, 4, 8, 16]
DIRECTION_COLOURS = {"faster": "#2166ac", "slower": "#b2182b", "no change": "#9e9e9e"}


def _pair_order(rounds: str):
    first, _, second = rounds.partition(" → ")
    return round_sort_key(first), round_sort_key(second)


def generation_speedups_chart(con, palette: AcceleratorPalette) -> Chart:
    frame = db.query_frame(con, """
        SELECT round, benchmark, scenario, benchmark || ' · ' || scenario AS benchmark_scenario,
               vendor, accelerator_new AS accelerator, accelerator_base,
               accelerator_new || ' vs ' || accelerator_base AS comparison, speedup, accelerator_count,
               submitter_new, result_id_new, stack_new, submitter_base, result_id_base, stack_base,
               CASE WHEN like_for_like THEN 'yes' ELSE 'no' END AS like_for_like,
               CASE WHEN procurement_grade THEN 'verified' ELSE 'preview' END AS verification,
               verification_new || ' / ' || verification_base AS rows_verification,
               CASE WHEN procurement_grade THEN '' ELSE 'preview' END AS label
        FROM generation_speedups
        QUALIFY row_number() OVER (PARTITION BY round, benchmark, scenario, accelerator_new, accelerator_base
                                   ORDER BY speedup DESC, result_id_new, result_id_base) = 1
        ORDER BY round, benchmark_scenario, comparison""")
    preview = frame.filter(pl.col("verification") == "preview")
    shows = ("closed-division results, verified or preview, of equal system size; one mark per pair of "
             f"generations of one vendor (its largest speedup); hollow triangles ({preview.height} of "
             f"{frame.height}) rest on a preview result: promising, not shipping; blue: the newer generation is "
             "faster, red: slower; a panel per round")
    chart = Chart("generation_speedups", "Generation speedups per benchmark and scenario", shows,
                  _rounds(frame, "round"), None)
    if frame.height:
        base = alt.Chart().encode(
            x=alt.X("speedup:Q", title="speedup (× newer over older generation)",
                    scale=fitted_log_scale(pl.concat([frame["speedup"], pl.Series([1.0])])),
                    axis=alt.Axis(values=[0.25, 0.5, 1, 2, 4, 8])),
            y=alt.Y("benchmark_scenario:N", title=None, axis=alt.Axis(labelFontSize=LABEL_FONT)),
            tooltip=[*_identity("round", "benchmark", "scenario", "vendor", "comparison", "accelerator_count",
                                "submitter_new", "result_id_new", "stack_new", "submitter_base", "result_id_base",
                                "stack_base", "like_for_like", "rows_verification"),
                     alt.Tooltip("speedup:Q", format=".2f", title="speedup (×)")])
        frame = frame.with_columns(pl.when(pl.col("speedup") >= 1).then(pl.lit("faster")).otherwise(pl.lit("slower"))
                                   .alias("direction"))
        points = base.mark_point(size=60, strokeWidth=1.5).encode(
            shape=alt.Shape("verification:N", title="rows", scale=alt.Scale(
                domain=list(VERIFICATION_SHAPES), range=list(VERIFICATION_SHAPES.values()))),
            color=alt.Color("direction:N", title="newer generation", scale=alt.Scale(
                domain=["faster", "slower"], range=[DIRECTION_COLOURS["faster"], DIRECTION_COLOURS["slower"]])),
            fill=alt.condition(alt.datum.verification == "verified", alt.Fill("direction:N", legend=None, scale=alt.Scale(
                domain=["faster", "slower"], range=[DIRECTION_COLOURS["faster"], DIRECTION_COLOURS["slower"]])),
                alt.value("transparent")))
        parity = alt.Chart().mark_rule(strokeDash=[4, 4], color="#999").encode(x=alt.datum(1.0))
        faceted = alt.layer(parity, points, data=frame).properties(width=220).facet(
            facet=alt.Facet("round:N", title=None, header=alt.Header(labelFontSize=12)), columns=2
        ).resolve_scale(y="independent")
        chart.chart = filters_for(frame).apply(faceted)
    return chart


def scaling_efficiency_chart(con, palette: AcceleratorPalette) -> Chart:
    frame = db.query_frame(con, """
        SELECT round, accelerator, benchmark, scenario, submitter, accelerator_count_small, accelerator_count_large,
               efficiency, result_id_small, result_id_large,
               verification_small || ' / ' || verification_large AS rows_verification,
               CASE WHEN procurement_grade THEN 'verified' ELSE 'preview' END AS verification
        FROM scaling_efficiency
        ORDER BY round, accelerator, benchmark, scenario, result_id_small, result_id_large""")
    preview = frame.filter(pl.col("verification") == "preview").height
    shows = ("verified or preview closed-division results of one submitter, accelerator, benchmark and scenario at two sizes; "
             "efficiency = (throughput of the larger system / of the smaller) / (its accelerators / the smaller's): "
             f"1.0 (dashed) = linear; {preview} of {frame.height} comparisons use a preview result (triangles)")
    chart = Chart("scaling_efficiency", "Scaling efficiency: what a larger system keeps of linear scaling", shows,
                  _rounds(frame, "round"), None)
    if frame.height:
        frame, (low, high) = clipped_to_bulk(frame, "efficiency", scale_from=pl.col("verification") == "verified")
        outside = frame.filter(pl.col("clipped")).height
        chart.shows += (f"; the scale is the procurement-grade comparisons' ({low:g}-{high:g}): a preview or flagged "
                        "outlier never sets it" + (f"; {outside} comparison{'s' if outside != 1 else ''} outside it "
                                                  "drawn at the edge, labelled with their values" if outside else ""))
        y_scale, y_axis = snapped_log_scale([low, high], format="~g", margin=1)
        base = alt.Chart().encode(
            x=alt.X("accelerator_count_large:Q", title="accelerators in the larger system",
                    scale=fitted_log_scale(frame["accelerator_count_large"], base=2)),
            y=alt.Y("shown:Q", title="scaling efficiency (1.0 = linear)", scale=y_scale, axis=y_axis),
            tooltip=[*_identity("round", "submitter", "accelerator", "benchmark", "scenario", "accelerator_count_small",
                                "result_id_small", "accelerator_count_large", "result_id_large", "rows_verification"),
                     alt.Tooltip("efficiency:Q", format=".3f", title="efficiency (1.0 = linear)")])
        coloured = frame["accelerator"].value_counts(sort=True)["accelerator"].head(COLOURED).to_list()
        chart.shows += (f"; the {len(coloured)} parts compared most in colour, the others grey"
                        if frame["accelerator"].n_unique() > len(coloured) else "")
        points = base.transform_calculate(**shade(coloured)).mark_point(size=60, filled=True, opacity=0.8).encode(
            color=palette.encoding(frame, coloured=coloured),
            shape=alt.Shape("verification:N", title="rows", scale=alt.Scale(
                domain=list(VERIFICATION_SHAPES), range=list(VERIFICATION_SHAPES.values()))))
        # one label per place at the edge, naming each value clipped there once (dlrm-99 and dlrm-99.9 share
        # one 351.48x): labels of rows the filters keep, joined after the filters ran
        labels = alt.Chart().transform_filter(alt.datum.clipped == True).transform_aggregate(  # noqa: E712
            groupby=["accelerator_count_large", "shown", "label"]).transform_aggregate(
            labels="values(label)", groupby=["accelerator_count_large", "shown"]).transform_calculate(
            text="join(pluck(datum.labels, 'label'), ', ')").mark_text(
            align="left", dx=8, fontSize=LABEL_FONT, color="#b71c1c").encode(
            x=alt.X("accelerator_count_large:Q"), y=alt.Y("shown:Q"), text="text:N")
        linear = alt.Chart().mark_rule(strokeDash=[4, 4], color="#999").encode(y=alt.datum(1.0))
        layered = alt.layer(linear, points, labels, data=frame)
        chart.chart = filters_for(frame).apply(layered).properties(width=WIDTH, height=300)
    return chart


def clipped_to_bulk(frame: pl.DataFrame, column: str, scale_from: pl.Expr = pl.lit(True)
                    ) -> tuple[pl.DataFrame, tuple[float, float]]:
    """A robust range for a ratio (the 2nd to the 98th percentile of the rows `scale_from` keeps, always
    holding 0.5-1.25 around 1.0): values beyond it are drawn at its edge (`shown`), marked `clipped` and
    labelled (`label`, rounded to 3 places)."""
    values = frame.filter(scale_from)[column].drop_nulls()
    low = min(0.5, values.quantile(0.02) or 0.5)
    high = max(1.25, values.quantile(0.98) or 1.25)
    ticks = log_ticks([low, high], margin=1)
    low, high = ticks[0], ticks[-1]
    return frame.with_columns(
        pl.col(column).clip(low, high).alias("shown"),
        ((pl.col(column) < low) | (pl.col(column) > high)).alias("clipped"),
        pl.format("{}×", pl.col(column).round(3)).alias("label")), (low, high)


HISTORY_PANELS = 6   # benchmark families drawn, the longest-run first
HISTORY_WIDTH, HISTORY_HEIGHT = 320, 170  # a panel: two side by side fit a 1000 px window
HISTORY_COLUMNS = 2
HISTORY_GUTTER = 120  # px at a panel's right, after the newest round: each coloured line's label
# a label starts 8 px into the gutter and may run past it into the space between two panels, short of the
# next panel's axis title: "A100 SXM 80GB 500W" and "RTX PRO 6000 Blackwell" whole, not cut to one another
END_LABEL_LIMIT = HISTORY_GUTTER + 10
END_LABEL_GAP = 13   # px between two line-end labels' baselines (11 px text)
HISTORY_PARTS = 7    # parts drawn per family: every part that led the field, then the longest-lived
# Offline: the one scenario every suite and every round runs, so a family's panel spans its whole life
HISTORY_SCENARIO = "Offline"


def accelerator_history_frame(con) -> pl.DataFrame:
    """Each part's best verified result per accelerator (no anomaly finding), per benchmark and round
    of its history, Offline throughput, with the round's date and the part's segment."""
    return db.query_frame(con, f"""
        SELECT f.benchmark_family AS family, h.benchmark, h.result_unit, h.era,
               h.accelerator, w.segment, h.round, round_order(h.round) AS round_order,
               r.published_on, max(h.result / h.accelerator_count) AS per_accelerator,
               arg_max(h.accelerator_count, h.result / h.accelerator_count) AS accelerator_count,
               arg_max(h.submitter, h.result / h.accelerator_count) AS submitter,
               arg_max(h.run_path, h.result / h.accelerator_count) AS run_path
        FROM accelerator_history AS h
        JOIN stg_rounds AS r USING (round)
        JOIN (SELECT DISTINCT benchmark, benchmark_family FROM base_benchmark_names) AS f USING (benchmark)
        JOIN stg_hardware AS w ON w.hardware = h.accelerator  -- whole parts: a partition (MIG 1g.10gb) is none
        WHERE h.scenario = '{HISTORY_SCENARIO}' AND NOT h.has_finding AND h.accelerator_count > 0
          AND h.result_unit NOT ILIKE 'latency%' AND r.published_on IS NOT NULL
        GROUP BY ALL""")


# The record line and its label: the datacenter buyer's record (field_records), a segment's own.
RECORD_SEGMENT = "datacenter"


def field_records_frame(con) -> pl.DataFrame:
    """The field's record per round of each benchmark's Offline history, in RECORD_SEGMENT (field_records:
    within an era, from the era's first round), with the round's date."""
    return db.query_frame(con, f"""
        SELECT benchmark, era, round, round_order(round) AS round_order, published_on, throughput_per_accelerator_record,
               record_round, record_accelerator, round_best_accelerator, throughput_per_accelerator, label
        FROM field_records
        WHERE scenario = '{HISTORY_SCENARIO}' AND segment = '{RECORD_SEGMENT}' AND published_on IS NOT NULL
        ORDER BY benchmark, round_order""")


def history_panels(frame: pl.DataFrame, records: pl.DataFrame | None = None) -> pl.DataFrame:
    """The rows drawn: per family, its benchmark with the most rounds (bert-99 over bert-99.9); the
    families still run in the newest round first, then the longest-lived; each part's points with a
    line id that breaks at an era change and where a round that ran the benchmark did not run the
    part; the field's record per round (kind 'frontier', field_records) with its label from what to
    what at the round that set it (kind 'label') and the newest round's best beside it (kind
    'newest'); the parts drawn: those that set a record, then the longest-lived."""
    if frame.is_empty():
        return frame
    newest = frame["round_order"].max()
    spans = (frame.group_by("family", "benchmark")
             .agg(pl.col("round").n_unique().alias("rounds"), pl.col("published_on").min().alias("first"),
                  (pl.col("round_order").max() == newest).alias("current"))
             .sort(["rounds", "first", "benchmark"], descending=[True, False, False])
             .unique("family", keep="first", maintain_order=True)
             .filter(pl.col("rounds") >= 3)
             .sort(["current", "first", "rounds"], descending=[True, False, True]).head(HISTORY_PANELS))
    rows = frame.join(spans.select("benchmark"), on="benchmark").sort("round_order")
    best = (rows.sort(["per_accelerator", "accelerator"], descending=[True, False])
            .unique(["benchmark", "round"], keep="first").sort("round_order"))
    # the parts that led their round (of any segment): drawn first
    holders = best.select("benchmark", "accelerator").unique()
    frontier, labels = _record_rows(records, spans["benchmark"].to_list(), rows)
    lived = rows.group_by("benchmark", "accelerator").agg(pl.col("round").n_unique().alias("rounds"))
    chosen = (lived.join(holders.with_columns(pl.lit(True).alias("led")), on=["benchmark", "accelerator"], how="left")
              .with_columns(pl.col("led").fill_null(False))
              .sort(["led", "rounds", "accelerator"], descending=[True, True, False])
              .group_by("benchmark", maintain_order=True).head(HISTORY_PARTS)
              .select("benchmark", "accelerator"))
    parts = rows.join(chosen, on=["benchmark", "accelerator"]).with_columns(pl.lit("part").alias("kind"))
    drawn = pl.concat([parts, frontier, labels], how="diagonal").sort("kind", "benchmark", "accelerator", "round_order")
    ran = {b: sorted(g["round_order"].unique().to_list()) for (b,), g in rows.group_by("benchmark")}
    return drawn.with_columns(
        pl.struct("kind", "benchmark", "accelerator", "era", "round_order")
        .map_batches(lambda s: pl.Series(_line_ids(s.to_list(), ran)), return_dtype=pl.String).alias("line"),
        (pl.col("benchmark") + " · " + pl.col("result_unit")).alias("panel"),
        (pl.col("accelerator") + " (" + pl.col("segment") + ")").alias("part"))


def _record_rows(records: pl.DataFrame | None, benchmarks: list[str], rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The record line of each drawn benchmark (kind 'frontier'), its label from what to what at the round
    that set the record (kind 'label'), and the newest round's best where it is not the record (kind
    'newest'): the columns of the part rows, so one spec holds them all."""
    empty = rows.clear()
    if records is None or records.is_empty():
        return empty, empty
    shown = records.filter(pl.col("benchmark").is_in(benchmarks)).join(
        rows.select("benchmark", "family", "result_unit").unique("benchmark"), on="benchmark")
    frontier = shown.select("family", "benchmark", "result_unit", "era", pl.col("record_accelerator").alias("accelerator"),
                            pl.lit(RECORD_SEGMENT).alias("segment"), "round", "round_order", "published_on",
                            pl.col("throughput_per_accelerator_record").alias("per_accelerator"), pl.lit("frontier").alias("kind"))
    last = shown.group_by("benchmark", maintain_order=True).last()
    at_record = shown.join(last.select("benchmark", "era", pl.col("record_round").alias("final_record_round")),
                           on=["benchmark", "era"]).filter(pl.col("round") == pl.col("final_record_round"))
    labels = at_record.select("family", "benchmark", "result_unit", "era", pl.col("record_accelerator").alias("accelerator"),
                              pl.lit(RECORD_SEGMENT).alias("segment"), "round", "round_order", "published_on",
                              pl.col("throughput_per_accelerator_record").alias("per_accelerator"), pl.lit("label").alias("kind"),
                              pl.col("label").alias("text"))
    newest = last.filter(pl.col("round") != pl.col("record_round")).select(
        "family", "benchmark", "result_unit", "era", pl.col("round_best_accelerator").alias("accelerator"),
        pl.lit(RECORD_SEGMENT).alias("segment"), "round", "round_order", "published_on",
        pl.col("throughput_per_accelerator").alias("per_accelerator"), pl.lit("newest").alias("kind"),
        pl.format("{} best: {} {}", "round", "round_best_accelerator",
                  pl.col("throughput_per_accelerator").round(0).cast(pl.Int64).map_elements(
                      lambda v: f"{v:,}", return_dtype=pl.String)).alias("text"))
    return frontier, pl.concat([labels, newest], how="diagonal")


def _line_ids(points: list[dict], ran: dict[str, list[int]]) -> list[str]:
    """A line id per point: a new line where the era changes or a round the benchmark ran is missing
    between two of the series' points (the frontier breaks at eras only)."""
    ids, last = [], {}
    for point in points:
        # a point may name its series (a part at a power setting, a record line per setting)
        series = (point["kind"], point["benchmark"],
                  point.get("series") or (point["kind"] != "frontier" and point["accelerator"]))
        rounds = ran[point["benchmark"]]
        previous = last.get(series)
        gap = previous is not None and point["kind"] == "part" and (
            rounds.index(point["round_order"]) - rounds.index(previous["round_order"]) > 1)
        number = 0 if previous is None else previous["line"] + (gap or previous["era"] != point["era"])
        last[series] = {**point, "line": number}
        ids.append(f"{'|'.join(map(str, series))}|{number}")
    return ids


def time_axis_with_gutter(frame: pl.DataFrame) -> tuple[alt.Scale, alt.Axis]:
    """A time axis over the rows' dates that leaves HISTORY_GUTTER px after the newest for the line-end
    labels, ticked at the years the data spans only (no year after the newest round; every other year
    where more than five would crowd the panel)."""
    first, last = frame["published_on"].min(), frame["published_on"].max()
    span = last - first
    after = last + span * (HISTORY_GUTTER / (HISTORY_WIDTH - HISTORY_GUTTER))
    before = first - span * 0.03
    spanned = list(range(first.year + (first.month > 1 or first.day > 1), last.year + 1))
    years = [alt.DateTime(year=y) for y in spanned[::-1][::1 if len(spanned) <= 5 else 2][::-1]]  # ~40 px a label
    return (alt.Scale(domain=[before.isoformat(), after.isoformat()], nice=False),
            alt.Axis(format="%Y", values=years, labelFontSize=LABEL_FONT, grid=True))


def line_end_labels(parts: pl.DataFrame, value: str, newest, drawn: pl.DataFrame,
                    palette: AcceleratorPalette) -> pl.DataFrame:
    """A label per coloured part of a panel (kind 'end', once even where the part draws two lines): its
    name just after the newest round (published_on `newest`, drawn 8 px to its right, in the panel's
    gutter), at the height of its newest point, nudged apart so no two labels of a panel overlap
    (END_LABEL_GAP px on the panel's log scale: that of every row `drawn`); `ink`: the part's colour,
    darkened where needed to read as text on white."""
    ends = (parts.sort("published_on").group_by("panel", "accelerator", maintain_order=True).last()
            .sort("panel", value))
    rows = []
    for (panel,), group in ends.group_by("panel", maintain_order=True):
        everything = drawn.filter((pl.col("panel") == panel) & pl.col(value).is_not_null())[value]
        low, high = math.log(everything.min()), math.log(everything.max())
        per_px = max(high - low, 1e-9) / (HISTORY_HEIGHT - 12)   # the scale's padding: 6 px either end
        heights = _spread([math.log(v) for v in group[value].to_list()], END_LABEL_GAP * per_px, low, high)
        rows += [{**row, value: math.exp(h)} for row, h in zip(group.to_dicts(), heights)]
    inks = {part: palette.ink_of(part) for part in ends["accelerator"].unique().to_list()}
    return pl.DataFrame(rows, schema=ends.schema).with_columns(
        pl.lit("end").alias("kind"), pl.lit(newest).alias("published_on"), pl.col("accelerator").alias("text"),
        pl.col("accelerator").replace_strict(inks, return_dtype=pl.String).alias("ink"))


def _spread(heights: list[float], gap: float, low: float, high: float) -> list[float]:
    """Sorted heights moved apart to at least `gap`, kept within low-high where they fit."""
    placed = []
    for h in heights:
        placed.append(max(h, placed[-1] + gap) if placed else h)
    over = placed[-1] - high if placed else 0
    if over > 0:
        placed = [h - over for h in placed]
        for i in range(len(placed) - 2, -1, -1):
            placed[i] = min(placed[i], placed[i + 1] - gap)
    return placed


def accelerator_history_chart(con, palette: AcceleratorPalette) -> Chart:
    frame = history_panels(accelerator_history_frame(con), field_records_frame(con))
    shows = (f"verified {HISTORY_SCENARIO} results without an anomaly finding, per accelerator (the system's result / its "
             f"accelerators); the {HISTORY_PANELS} benchmark families run in most rounds; per family the parts that "
             f"led the field and the longest-lived (at most {HISTORY_PARTS}), the part's segment in brackets; the "
             f"grey line is the field's {RECORD_SEGMENT} record per accelerator (field_records), labelled from what to "
             "what at the round that set it, with the newest round's best beside it; lines break where the benchmark "
             "changed (its era) or a round did not run the part; rounds with no published table rebuilt from their "
             "submission trees")
    chart = Chart("accelerator_history", "How much faster did inference get since 2019, and who carried it", shows,
                  _rounds(frame, "round"), None)
    if frame.is_empty():
        return chart
    x_scale, x_axis = time_axis_with_gutter(frame)
    x = alt.X("published_on:T", title=None, scale=x_scale, axis=x_axis)
    y = alt.Y("per_accelerator:Q", title="per accelerator (log)", scale=alt.Scale(type="log", nice=False, padding=6),
              axis=alt.Axis(format="~s", labelFontSize=LABEL_FONT, tickCount=5))
    parts_only = frame.filter(pl.col("kind") == "part")
    frame = pl.concat([frame, line_end_labels(parts_only, "per_accelerator", frame["published_on"].max(),
                                              frame.filter(pl.col("kind").is_in(["part", "frontier"])), palette)],
                      how="diagonal_relaxed")
    tooltip = [*_identity("part", "benchmark", "round", "submitter", "accelerator_count", "run_path"),
               alt.Tooltip("published_on:T", format="%Y-%m-%d", title="published"),
               alt.Tooltip("per_accelerator:Q", format=",.1f", title="per accelerator"), "result_unit:N"]
    base = alt.Chart()
    field = base.transform_filter("datum.kind == 'frontier'").mark_line(
        color="#9e9e9e", strokeWidth=6, opacity=0.4, interpolate="step-after").encode(x=x, y=y, detail="line:N")
    # the labels sit in the panel's corners, off the lines: the record (from what to what) top left, where
    # a history that rises has no line yet; the newest round's best bottom right, where it has none left
    gained = base.transform_filter("datum.kind == 'label'").mark_text(
        align="left", baseline="top", lineBreak=" -> ", fontSize=LABEL_FONT,
        fontWeight="bold", color="#424242").encode(x=alt.value(4), y=alt.value(-30), text="text:N")
    newest = base.transform_filter("datum.kind == 'newest'").mark_text(
        align="right", baseline="bottom", fontSize=LABEL_FONT, color="#616161").encode(
        x=alt.value(HISTORY_WIDTH - 4), y=alt.value(HISTORY_HEIGHT + 28), text="text:N")
    parts = base.transform_filter("datum.kind == 'part'")
    # each line named at its end, in its colour: no legend to match colours against
    colour = alt.Color("accelerator:N", title="accelerator", scale=palette.scale(), legend=None)
    lines = parts.mark_line(strokeWidth=2).encode(x=x, y=y, color=colour, detail="line:N")
    points = parts.mark_point(filled=True, size=40).encode(
        x=x, y=y, color=colour, shape=alt.Shape("segment:N", title="segment"), tooltip=tooltip)
    ends = base.transform_filter("datum.kind == 'end'").mark_text(
        align="left", baseline="middle", dx=8, fontSize=LABEL_FONT, limit=END_LABEL_LIMIT).encode(
        x=x, y=y, fill=alt.Fill("ink:N", scale=None), text="text:N")
    chart.chart = alt.layer(field, lines, points, gained, newest, ends).properties(
        width=HISTORY_WIDTH, height=HISTORY_HEIGHT, data=frame).facet(
        facet=alt.Facet("panel:N", title=None, header=alt.Header(labelFontSize=12, labelFontWeight="bold")),
        columns=HISTORY_COLUMNS).resolve_scale(y="independent")
    return chart
