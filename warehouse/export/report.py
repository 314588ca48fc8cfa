"""A report for people who will not open a BI tool: one self-contained HTML page that works offline
(Vega-Lite specs drawn in the browser by the Vega runtime, inlined once; tooltips on every mark,
filters bound to selects, one colour per accelerator) plus each chart as PNG and SVG for slides,
drawn from the marts with Altair and rendered offline by vl-convert.

Every chart states which rows it shows (verified only, or which preview rows) and the rounds.
"""
from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import altair as alt
import duckdb
import polars as pl

from warehouse.errors import needs_extra
from warehouse.export.bi_files import warehouse_files
from warehouse.export.output_dirs import (check_replaceable, make_staging_dir, remove_abandoned_partials,
                                          resolved_target, swap_in, write_listing)
from warehouse.export.report_interactive import (ACCELERATOR, BENCHMARK, ROUND, SCENARIO, VERIFICATION,
                                                 AcceleratorPalette, Filter, Filters, filters_for, gain_scale,
                                                 inert_spec, inert_value, spec_json, text_colour_on_gain,
                                                 vega_runtime)
from warehouse.identity.rounds import round_sort_key
from warehouse.store import db

VERDICT_COLOURS = {
    "comparable across submitters": "#2e7d32",
    "promising, but the platform is not shipping today": "#f9a825",
    "directional only - do not put it in a procurement decision": "#c62828",
    "unclassified": "#757575",
}
VERIFICATION_SHAPES = {"verified": "circle", "preview": "triangle-up"}
KIND = "report"
TOP_SYSTEMS = 8
WIDTH = 640


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


@dataclass
class Table:
    """A table of the report (the claim audit, decisions due), coloured by verdict where it has one."""
    name: str
    title: str
    shows: str
    frame: pl.DataFrame
    colour_column: str | None = None
    empty_note: str = "no rows"
    colours: dict = field(default_factory=lambda: VERDICT_COLOURS)


def _rounds(frame: pl.DataFrame, *columns: str) -> list[str]:
    values = {v for c in columns if c in frame.columns for v in frame[c].drop_nulls().to_list()}
    return sorted(values, key=round_sort_key)


def _titled(chart, title: str, caption: str):
    return chart.properties(title=alt.TitleParams(title, subtitle=[caption], anchor="start"))


def newest_round(con: duckdb.DuckDBPyConnection) -> str | None:
    found = con.execute("SELECT round FROM dim_rounds ORDER BY round_order DESC LIMIT 1").fetchall()
    return found[0][0] if found else None


# --- the charts ---------------------------------------------------------------------------------

def software_gains_chart(con, palette: AcceleratorPalette) -> Chart:
    frame = db.query_frame(con, """
        SELECT coalesce(accelerator, cpu || ' (CPU only)') AS accelerator, benchmark,
               round_from || ' → ' || round_to AS rounds, round_from,
               round_to AS round, gain, submitter, hardware AS system, scenario, accelerator_count,
               result_id_from, result_id_to, 'verified (both rounds)' AS verification
        FROM software_gain_summary WHERE basis = 'same_scale'
        QUALIFY row_number() OVER (PARTITION BY coalesce(accelerator, cpu), benchmark, round_from, round_to
                                   ORDER BY gain DESC, submitter) = 1""")
    shows = ("verified rows only (both rounds); same submitter, accelerator and system size; "
             "the largest gain across submitters, scenarios and sizes; red = slower, blue = faster, white = 1.0×")
    chart = Chart("software_gains", "Software gains on the same hardware, round over round", shows,
                  _rounds(frame, "round_from", "round"), None)
    if frame.height:
        base = alt.Chart().encode(
            x=alt.X("benchmark:N", title="benchmark"), y=alt.Y("accelerator:N", title="accelerator"),
            tooltip=[*_identity("submitter", "system", "accelerator", "accelerator_count", "benchmark",
                                "scenario", "rounds", "result_id_from", "result_id_to", "verification"),
                     alt.Tooltip("gain:Q", format=".2f", title="gain (× later over earlier)")])
        heat = base.mark_rect().encode(color=alt.Color("gain:Q", title="gain (×)", scale=gain_scale(frame["gain"])))
        labels = base.mark_text(fontSize=10).encode(text=alt.Text("gain:Q", format=".2f"),
                                                    color=text_colour_on_gain(frame["gain"]))
        layered = alt.layer(heat, labels, data=frame).properties(width=alt.Step(46), height=alt.Step(22))
        faceted = layered.facet(column=alt.Column("rounds:N", title="rounds (from → to)"))
        chart.chart = _titled(filters_for(frame, (ROUND, BENCHMARK, ACCELERATOR)).apply(faceted),
                              chart.title, chart.caption)
    return chart


def generation_speedups_chart(con, palette: AcceleratorPalette) -> Chart:
    frame = db.query_frame(con, """
        SELECT round, benchmark, scenario, benchmark || ' · ' || scenario AS benchmark_scenario,
               vendor, accelerator_new AS accelerator, accelerator_base,
               accelerator_new || ' vs ' || accelerator_base AS comparison, speedup, accelerator_count,
               submitter_new, result_id_new, submitter_base, result_id_base,
               CASE WHEN procurement_grade THEN 'verified' ELSE 'preview' END AS verification,
               verification_new || ' / ' || verification_base AS rows_verification,
               CASE WHEN procurement_grade THEN '' ELSE 'preview' END AS label
        FROM generation_speedups
        QUALIFY row_number() OVER (PARTITION BY round, benchmark, scenario, accelerator_new, accelerator_base
                                   ORDER BY speedup DESC) = 1""")
    preview = frame.filter(pl.col("verification") == "preview")
    shows = ("verified and preview closed-division rows, equal system size; one point per pair of "
             f"generations of one vendor (its largest speedup); hollow triangles labelled 'preview' ({preview.height} of {frame.height}) rest on a "
             "preview row: promising, not shipping; red = the newer generation is slower")
    chart = Chart("generation_speedups", "Generation speedups per benchmark and scenario", shows,
                  _rounds(frame, "round"), None)
    if frame.height:
        base = alt.Chart().encode(
            x=alt.X("speedup:Q", title="speedup (× newer over older generation)",
                    scale=alt.Scale(type="log"), axis=alt.Axis(values=[0.25, 0.5, 1, 2, 4, 8])),
            y=alt.Y("benchmark_scenario:N", title=None),
            tooltip=[*_identity("round", "benchmark", "scenario", "vendor", "comparison", "accelerator_count",
                                "submitter_new", "result_id_new", "submitter_base", "result_id_base",
                                "rows_verification"),
                     alt.Tooltip("speedup:Q", format=".2f", title="speedup (×)")])
        # A dark outline keeps points near 1.0x (white on the diverging scale) visible.
        points = base.mark_point(size=70, strokeWidth=1.5, stroke="#444").encode(
            shape=alt.Shape("verification:N", title="rows", scale=alt.Scale(
                domain=list(VERIFICATION_SHAPES), range=list(VERIFICATION_SHAPES.values()))),
            fill=alt.condition(alt.datum.verification == "verified",
                               alt.Fill("speedup:Q", title="speedup (×)", scale=gain_scale(frame["speedup"])),
                               alt.value("transparent")))
        labels = base.mark_text(align="left", dx=7, fontSize=9, fontStyle="italic").encode(text="label:N")
        parity = alt.Chart().mark_rule(strokeDash=[4, 4], color="#999").encode(x=alt.datum(1.0))
        faceted = alt.layer(parity, points, labels, data=frame).properties(width=300).facet(
            column=alt.Column("round:N", title="round"))
        chart.chart = _titled(filters_for(frame).apply(faceted), chart.title, chart.caption)
    return chart


def scaling_efficiency_chart(con, palette: AcceleratorPalette) -> Chart:
    frame = db.query_frame(con, """
        SELECT round, accelerator, benchmark, scenario, submitter, accelerator_count_small, accelerator_count_large,
               efficiency, result_id_small, result_id_large,
               verification_small || ' / ' || verification_large AS rows_verification,
               CASE WHEN procurement_grade THEN 'verified' ELSE 'preview' END AS verification
        FROM scaling_efficiency""")
    preview = frame.filter(pl.col("verification") == "preview").height
    shows = ("verified and preview closed-division rows, same submitter, accelerator, benchmark and "
             f"scenario; {preview} of {frame.height} comparisons use a preview row (triangles)")
    chart = Chart("scaling_efficiency",
                  "Scaling efficiency by scale: (throughput_large / throughput_small) / (size_large / size_small); 1.0 = linear",
                  shows,
                  _rounds(frame, "round"), None)
    if frame.height:
        points = alt.Chart(frame).mark_point(size=60, filled=True, opacity=0.8).encode(
            x=alt.X("accelerator_count_large:Q", title="accelerators in the larger system",
                    scale=alt.Scale(type="log", base=2)),
            y=alt.Y("efficiency:Q", title="efficiency (log scale)", scale=alt.Scale(type="log")),
            color=palette.encoding(frame),
            shape=alt.Shape("verification:N", title="rows", scale=alt.Scale(
                domain=list(VERIFICATION_SHAPES), range=list(VERIFICATION_SHAPES.values()))),
            tooltip=[*_identity("round", "submitter", "accelerator", "benchmark", "scenario", "accelerator_count_small",
                                "result_id_small", "accelerator_count_large", "result_id_large", "rows_verification"),
                     alt.Tooltip("efficiency:Q", format=".2f", title="efficiency (1.0 = linear)")])
        points = filters_for(frame).apply(points)
        linear = alt.Chart(pl.DataFrame({"y": [1.0]})).mark_rule(strokeDash=[4, 4], color="#999").encode(
            y="y:Q", tooltip=[alt.Tooltip("y:Q", title="linear scaling")])
        chart.chart = _titled((linear + points).properties(width=WIDTH, height=320), chart.title, chart.caption)
    return chart


TOKEN_PANELS = {"per_accelerator": "tokens/s per accelerator", "per_rack": "tokens/s per rack (rack_capacity.csv)",
                "per_joule": "tokens per joule (measured power)"}


def token_economics_chart(con, round_name: str | None, palette: AcceleratorPalette) -> Chart:
    """Best verified Offline tokens/s per accelerator and per rack in the newest round, by accelerator
    and LLM benchmark; tokens per joule only where power was measured (any round)."""
    frame = token_economics_frame(con, round_name)
    joules = frame.filter(pl.col("panel") == "per_joule")
    shows = (f"verified rows only, Offline; tokens/s per accelerator and per rack: best result of round "
             f"{round_name}; tokens per joule: only results with measured power "
             f"({', '.join(_rounds(joules, 'round')) or 'none'})")
    throughput = frame.filter(pl.col("panel") != "per_joule")
    chart = Chart("token_economics", "Token economics: tokens/s per accelerator, per rack, per joule",
                  shows, sorted(set(_rounds(joules, "round")) | ({round_name} if throughput.height else set()),
                                key=round_sort_key), None)
    if throughput.height:
        filters = filters_for(frame, (BENCHMARK, ACCELERATOR))
        panels = [_token_panel(frame, panel, palette, filters) for panel in TOKEN_PANELS
                  if frame.filter(pl.col("panel") == panel).height]
        concat = alt.hconcat(*panels, data=frame)
        chart.chart = _titled(concat.add_params(*filters.params) if filters.params else concat,
                              chart.title, chart.caption)
    return chart


def token_economics_frame(con, round_name: str | None) -> pl.DataFrame:
    """One row per panel, benchmark and bar (accelerator; accelerator · round for tokens per joule):
    the best verified Offline result with its identity."""
    return db.query_frame(con, """
        WITH offline AS (
            SELECT * FROM token_economics
            WHERE verification = 'verified' AND scenario = 'Offline' AND accelerator IS NOT NULL
        ), measures AS (
            SELECT 'per_accelerator' AS panel, accelerator AS bar, tokens_per_second_per_accelerator AS value, *
            FROM offline WHERE round = ?
            UNION ALL BY NAME
            SELECT 'per_rack' AS panel, accelerator AS bar, tokens_per_second_per_rack AS value, *
            FROM offline WHERE round = ?
            UNION ALL BY NAME
            SELECT 'per_joule' AS panel, accelerator || ' · ' || round AS bar, tokens_per_joule_measured AS value, *
            FROM offline
        )
        SELECT panel, benchmark, bar, accelerator, round, scenario, submitter, system, result_id,
               accelerator_count, value, verification
        FROM measures WHERE value IS NOT NULL
        QUALIFY row_number() OVER (PARTITION BY panel, benchmark, bar ORDER BY value DESC, result_id) = 1""",
                          [round_name or "", round_name or ""])


def _token_panel(frame: pl.DataFrame, panel: str, palette: AcceleratorPalette, filters: Filters):
    rows = alt.Chart().transform_filter(alt.datum.panel == panel)
    if filters.expression:
        rows = rows.transform_filter(filters.expression)
    return rows.mark_bar().encode(
        x=alt.X("value:Q", title=TOKEN_PANELS[panel]),
        y=alt.Y("bar:N", title=None, sort="-x"),
        color=palette.encoding(frame, legend=False),
        row=alt.Row("benchmark:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")),
        tooltip=[*_identity("round", "benchmark", "scenario", "submitter", "system", "result_id", "accelerator",
                            "accelerator_count", "verification"),
                 alt.Tooltip("value:Q", format=",.1f", title=TOKEN_PANELS[panel])],
    ).properties(width=200).resolve_scale(x="independent", y="independent")


def own_vs_mlperf_chart(con, palette: AcceleratorPalette) -> Chart:
    """Your own runs over the MLPerf Server and Interactive rows they are set beside (own_vs_mlperf):
    throughput per accelerator against what one user sees."""
    frame = db.query_frame(con, """
        SELECT DISTINCT family, mlperf_accelerator AS accelerator, 'MLPerf ' || verification AS source,
               verification, round, result_id AS run, submitter, system, benchmark, scenario,
               coalesce(mlperf_tokens_per_second_per_user, 1000 / constraint_tpot_p99_ms) AS per_user,
               CASE WHEN mlperf_tokens_per_second_per_user IS NULL THEN 'the scenario''s p99 TPOT limit'
                    ELSE 'its run summary' END AS per_user_from,
               mlperf_tokens_per_second_per_accelerator AS per_accelerator
        FROM own_vs_mlperf
        WHERE scenario <> 'Offline' AND NOT mlperf_has_finding AND mlperf_tokens_per_second_per_accelerator IS NOT NULL
          AND coalesce(mlperf_tokens_per_second_per_user, 1000 / constraint_tpot_p99_ms) IS NOT NULL
        UNION ALL
        SELECT family, coalesce(accelerator, accelerator_raw), 'own run', 'own run', NULL, coalesce(label, run_id),
               'you', NULL, NULL, NULL, tokens_per_second_per_user, 'your run', tokens_per_second_per_accelerator
        FROM own_runs
        WHERE family IS NOT NULL AND tokens_per_second_per_user IS NOT NULL""")
    mlperf = frame.filter(pl.col("source") != "own run")
    shows = ("your own runs (own measurements, never ranked) over the verified and preview MLPerf Server and "
             "Interactive rows of the same model on the same accelerator or product line (own_vs_mlperf); "
             f"{mlperf.filter(pl.col('per_user_from') != 'its run summary').height} of {mlperf.height} MLPerf "
             "points sit at their scenario's TPOT limit (no run summary loaded: mlperf-wh trees)")
    chart = Chart("own_vs_mlperf", "Your replay beside MLPerf: tokens/s per accelerator against tokens/s per user",
                  shows, _rounds(frame, "round"), None,
                  empty_note="no own measurement loaded (mlperf-wh measurements load FILE)")
    if frame.filter(pl.col("source") == "own run").height:
        points = alt.Chart(frame).mark_point(filled=True, opacity=0.85).encode(
            x=alt.X("per_user:Q", title="tokens/s per user (1 / time per output token)", scale=alt.Scale(type="log")),
            y=alt.Y("per_accelerator:Q", title="tokens/s per accelerator", scale=alt.Scale(type="log")),
            color=palette.encoding(frame),
            shape=alt.Shape("source:N", title="rows"),
            size=alt.condition(alt.datum.source == "own run", alt.value(160), alt.value(45)),
            tooltip=[*_identity("source", "run", "submitter", "system", "round", "benchmark", "scenario",
                                "accelerator", "verification"),
                     alt.Tooltip("per_accelerator:Q", format=",.0f", title="tokens/s per accelerator"),
                     alt.Tooltip("per_user:Q", format=",.1f", title="tokens/s per user"), "per_user_from"],
        ).properties(width=260, height=260)
        faceted = points.facet(column=alt.Column("family:N", title=None))
        chart.chart = _titled(filters_for(frame, (ACCELERATOR, VERIFICATION)).apply(faceted),
                              chart.title, chart.caption)
    return chart


def leaderboard_chart(con, round_name: str | None, palette: AcceleratorPalette) -> Chart:
    """One bar per entry (result ID), sorted by value: two entries of one system name are two bars."""
    frame = db.query_frame(con, f"""
        SELECT l.round, l.benchmark, l.scenario, l.rank_system, l.submitter, l.system, l.result_id, l.result AS value,
               l.result_unit AS units, l.accelerator, l.accelerator_count, l.verification,
               l.system || ' · ' || coalesce(l.accelerator_count || '× ' || l.accelerator, 'no accelerator')
                   || ' · ' || l.result_id AS entry
        FROM leaderboard AS l JOIN dim_benchmarks AS b USING (benchmark)
        WHERE b.llm AND l.suite = 'datacenter' AND l.result_unit = 'Tokens/s'
          AND l.scenario IN ('Offline', 'Server', 'Interactive') AND l.rank_system <= {TOP_SYSTEMS}""")
    shows = (f"verified rows only, datacenter suite; the top {TOP_SYSTEMS} entries of each LLM benchmark, round "
             f"and scenario (tokens/s, higher is better), one bar per result ID; opens on round {round_name}, "
             "Offline (the PNG and SVG show that view)")
    chart = Chart("leaderboard", "Leaderboard of the LLM benchmarks: one bar per entry", shows,
                  _rounds(frame, "round"), None)
    if frame.height:
        filters = (Filter("round", "round", round_name, allow_all=False),
                   Filter("scenario", "scenario", "Offline", allow_all=False), BENCHMARK, ACCELERATOR, VERIFICATION)
        bars = alt.Chart(frame).mark_bar().encode(
            x=alt.X("value:Q", title="tokens/s (system)"),
            y=alt.Y("entry:N", title=None, sort="-x", axis=alt.Axis(labelLimit=460)),
            color=palette.encoding(frame),
            row=alt.Row("benchmark:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")),
            tooltip=[*_identity("round", "benchmark", "scenario", "rank_system", "submitter", "system", "result_id",
                                "accelerator", "accelerator_count", "verification"),
                     alt.Tooltip("value:Q", format=",.1f", title="tokens/s"), "units"],
        ).properties(width=360).resolve_scale(x="independent", y="independent")
        chart.chart = _titled(filters_for(frame, filters).apply(bars), chart.title, chart.caption)
    return chart


def interactivity_chart(con, round_name: str | None, palette: AcceleratorPalette) -> Chart:
    """Throughput per accelerator against the pace one user sees, per LLM benchmark (Server and
    Interactive results of interactivity_frontier; their latencies from latency_profile)."""
    frame = interactivity_frame(con)
    at_limit = frame.filter(pl.col("per_user_from") != "run summary").height
    shows = ("verified and preview Server and Interactive LLM results (interactivity_frontier; preview = "
             f"triangles); x = 1 / mean time per output token from the run summary, or, for {at_limit} of "
             f"{frame.height} points (hollow; no run summary loaded: mlperf-wh trees), the pace the scenario's "
             f"p99 TPOT limit guarantees at least; lines join each accelerator's Pareto frontier; opens on round {round_name}")
    chart = Chart("interactivity", "Throughput per accelerator against tokens/s per user", shows,
                  _rounds(frame, "round"), None)
    if frame.height:
        base = alt.Chart().encode(
            x=alt.X("per_user:Q", title="tokens/s per user", scale=alt.Scale(type="log")),
            y=alt.Y("per_accelerator:Q", title="tokens/s per accelerator", scale=alt.Scale(type="log")),
            color=palette.encoding(frame),
            tooltip=[*_identity("round", "benchmark", "scenario", "submitter", "system", "result_id", "accelerator",
                                "accelerator_count", "verification", "per_user_from", "ttft_p99_ms", "tpot_p99_ms"),
                     alt.Tooltip("per_accelerator:Q", format=",.0f", title="tokens/s per accelerator"),
                     alt.Tooltip("per_user:Q", format=",.1f", title="tokens/s per user")])
        frontier = base.transform_filter(alt.datum.on_frontier).mark_line(strokeWidth=1.5).encode(
            detail="round:N", order="per_user:Q")
        layers = [frontier] if frame["on_frontier"].any() else []
        points = base.mark_point(size=55, strokeWidth=1.5).encode(
            shape=alt.Shape("verification:N", title="rows", scale=alt.Scale(
                domain=list(VERIFICATION_SHAPES), range=list(VERIFICATION_SHAPES.values()))),
            fill=alt.condition(alt.datum.per_user_from == "run summary", palette.encoding(frame, legend=False),
                               alt.value("transparent")))
        layered = alt.layer(*layers, points, data=frame).properties(width=260, height=220)
        filters = (Filter("round", "round", round_name), BENCHMARK, SCENARIO, ACCELERATOR, VERIFICATION)
        faceted = layered.facet(facet=alt.Facet("benchmark:N", title=None), columns=3)
        chart.chart = _titled(filters_for(frame, filters).apply(faceted), chart.title, chart.caption)
    return chart


def interactivity_frame(con) -> pl.DataFrame:
    # Without `mlperf-wh trees` no run has a measured pace; the scenario's p99 TPOT limit still bounds it.
    return db.query_frame(con, """
        WITH latency AS (
            SELECT result_id, benchmark, scenario, any_value(ttft_p99_ms) AS ttft_p99_ms,
                   any_value(tpot_p99_ms) AS tpot_p99_ms
            FROM latency_profile GROUP BY ALL
        )
        SELECT f.round, f.benchmark, f.scenario, f.accelerator, f.submitter, f.system, f.result_id,
               f.accelerator_count, f.verification, f.tokens_per_second_per_accelerator AS per_accelerator,
               coalesce(f.tokens_per_second_per_user, 1000 / c.tpot_p99_ms) AS per_user,
               CASE WHEN f.tokens_per_second_per_user IS NULL THEN 'the scenario''s p99 TPOT limit'
                    ELSE 'run summary' END AS per_user_from,
               coalesce(f.on_frontier, false) AS on_frontier, l.ttft_p99_ms, l.tpot_p99_ms
        FROM interactivity_frontier AS f
        LEFT JOIN latency AS l USING (result_id, benchmark, scenario)
        LEFT JOIN stg_scenario_constraints AS c USING (benchmark, scenario)
        WHERE f.scenario IN ('Server', 'Interactive')
          AND coalesce(f.tokens_per_second_per_user, 1000 / c.tpot_p99_ms) IS NOT NULL""")


def claim_audit_chart(con, palette: AcceleratorPalette) -> Chart:
    frame = db.query_frame(con, """
        SELECT id, vendor, stage, round, benchmark, scenario, accelerator, baseline_accelerator, multiplier,
               recomputed, verdict, array_to_string(cited_result_ids, ', ') AS cited_result_ids
        FROM claim_audit ORDER BY round, id""")
    shows = ("every claim in the ledger, recomputed from the warehouse; a verdict of 'comparable' needs "
             "verified rows only, and any preview row makes a claim 'promising'")
    chart = Chart("claim_audit", "Claim audit by verdict", shows, _rounds(frame, "round"), None,
                  empty_note="no claims loaded: mlperf-wh claims load FILE")
    if frame.height:
        cells = alt.Chart(frame).mark_rect().encode(
            y=alt.Y("id:N", title=None, sort=None, axis=alt.Axis(labelLimit=360)),
            x=alt.X("round:N", title="round"),
            color=alt.Color("verdict:N", scale=alt.Scale(domain=list(VERDICT_COLOURS),
                                                           range=list(VERDICT_COLOURS.values())),
                            legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=400)),
            tooltip=["id", "vendor", "stage", "round", "benchmark", "scenario", "accelerator", "baseline_accelerator",
                     "cited_result_ids", "multiplier", "recomputed", "verdict"],
        ).properties(width=80, height=alt.Step(18))
        chart.chart = _titled(filters_for(frame, (ROUND, BENCHMARK, ACCELERATOR)).apply(cells),
                              chart.title, chart.caption)
    return chart


def _identity(*fields: str) -> list:
    """Tooltip entries for a row's identity, titled as the column is named."""
    return [alt.Tooltip(f"{field}:N" if field not in NUMERIC_TOOLTIPS else f"{field}:Q", title=field.replace("_", " "))
            for field in fields]


NUMERIC_TOOLTIPS = {"accelerator_count", "accelerator_count_small", "accelerator_count_large", "rank_system",
                    "ttft_p99_ms", "tpot_p99_ms"}


def claim_audit_table(con) -> Table:
    frame = db.query_frame(con, """
        SELECT id, vendor, kind, stage, round, benchmark, scenario, multiplier,
               round(recomputed, 3) AS recomputed, round(relative_difference, 3) AS relative_difference,
               verdict
        FROM claim_audit ORDER BY round, id""")
    return Table("claim_audit_table", "Claim audit", "every claim; the row colour is its verdict", frame,
                 colour_column="verdict", empty_note="no claims loaded: mlperf-wh claims load FILE")


def decisions_due_table(con) -> Table:
    frame = db.query_frame(con, """
        SELECT id, title, decision, review_due, due_because, flagged,
               array_to_string(non_procurement_grade_claims, ', ') AS non_procurement_grade_claims
        FROM decisions_due ORDER BY id""")
    return Table("decisions_due", "Decisions due for review",
                 "capacity decisions whose review round is published or review date has passed; flagged = "
                 "rests on a claim that is not procurement grade", frame,
                 empty_note="no decision is due for review")


def build(con: duckdb.DuckDBPyConnection) -> tuple[list[Chart], list[Table]]:
    newest = newest_round(con)
    palette = page_palette(con)
    charts = [software_gains_chart(con, palette), generation_speedups_chart(con, palette),
              scaling_efficiency_chart(con, palette), token_economics_chart(con, newest, palette),
              leaderboard_chart(con, newest, palette), interactivity_chart(con, newest, palette),
              claim_audit_chart(con, palette), own_vs_mlperf_chart(con, palette)]
    return charts, [claim_audit_table(con), decisions_due_table(con)]


def page_palette(con) -> AcceleratorPalette:
    """Every accelerator the charts may colour, most shown first, mapped to colours once for the page."""
    rows = con.execute("""
        SELECT accelerator FROM leaderboard UNION ALL SELECT accelerator FROM token_economics
        UNION ALL SELECT accelerator FROM scaling_efficiency UNION ALL SELECT accelerator FROM interactivity_frontier
        UNION ALL SELECT mlperf_accelerator FROM own_vs_mlperf
        UNION ALL SELECT coalesce(accelerator, accelerator_raw) FROM own_runs""").fetchall()
    return AcceleratorPalette.most_shown_first([accelerator for (accelerator,) in rows])


# --- rendering ----------------------------------------------------------------------------------

def render_report(con: duckdb.DuckDBPyConnection, out_dir: Path, warehouse_file: str | None = None) -> Path:
    """Write index.html and charts/<name>.png|.svg into `out_dir` (replaced whole, when output_dirs
    says it may be); returns the page."""
    from jinja2 import Environment, PackageLoader, select_autoescape

    target = resolved_target(out_dir)
    check_replaceable(target, KIND, (warehouse_file, *warehouse_files(con)))
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_abandoned_partials(target)
    charts, tables = build(con)
    staging = make_staging_dir(target)
    try:
        drawn = _write_charts(charts, staging / "charts")
        environment = Environment(loader=PackageLoader("warehouse.export", "templates"), autoescape=select_autoescape(),
                                  finalize=inert_value)
        page = environment.get_template("report.html").render(
            charts=charts, tables=tables, specs={name: spec_json(spec) for name, spec in drawn.items()},
            runtime=vega_runtime() if drawn else None, generated_at=datetime.now(timezone.utc),
            warehouse=warehouse_file, rounds=_loaded_rounds(con))
        (staging / "index.html").write_text(page, encoding="utf-8")
        write_listing(staging, KIND)
        swap_in(staging, target, KIND)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target / "index.html"


def _write_charts(charts: list[Chart], directory: Path) -> dict[str, dict]:
    """Each chart that has rows as NAME.svg and NAME.png (rendered offline, filters at their
    defaults); returns the Vega-Lite specs the page embeds."""
    with needs_extra("report", "the report's PNG and SVG charts"):
        import vl_convert as vlc
    directory.mkdir()
    specs = {}
    for chart in (c for c in charts if c.chart is not None):
        specs[chart.name] = inert_spec(chart.chart.to_dict())
        svg = vlc.vegalite_to_svg(specs[chart.name])
        (directory / f"{chart.name}.svg").write_text(svg, encoding="utf-8")
        (directory / f"{chart.name}.png").write_bytes(vlc.svg_to_png(svg, scale=1.5))
    return specs


def _loaded_rounds(con) -> list[dict]:
    return db.query_frame(con, "SELECT round, result_rows, verified_rows, preview_rows, loaded_at "
                               "FROM dim_rounds ORDER BY round_order").to_dicts()
