"""A static report for people who will not open a BI tool: one self-contained HTML page (no script,
no network: every chart is inline SVG) plus each chart as PNG and SVG, drawn from the marts with
Altair (Vega-Lite) and rendered offline by vl-convert.

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

def software_gains_chart(con) -> Chart:
    frame = db.query_frame(con, """
        SELECT accelerator, benchmark, round_from || ' → ' || round_to AS rounds, round_from, round_to,
               max(gain) AS gain
        FROM software_gain_summary WHERE basis = 'same_scale'
        GROUP BY ALL""")
    shows = ("verified rows only (both rounds); same submitter, accelerator and system size; "
             "the largest gain across submitters, scenarios and sizes")
    chart = Chart("software_gains", "Software gains on the same hardware, round over round", shows,
                  _rounds(frame, "round_from", "round_to"), None)
    if frame.height:
        base = alt.Chart().encode(
            x=alt.X("benchmark:N", title="benchmark"), y=alt.Y("accelerator:N", title="accelerator"))
        heat = base.mark_rect().encode(
            color=alt.Color("gain:Q", title="gain (×)", scale=alt.Scale(scheme="greens", domainMin=1)),
            tooltip=["accelerator", "benchmark", "rounds", alt.Tooltip("gain:Q", format=".2f")])
        labels = base.mark_text(fontSize=10).encode(text=alt.Text("gain:Q", format=".2f"))
        chart.chart = _titled(alt.layer(heat, labels, data=frame).properties(
            width=alt.Step(46), height=alt.Step(22)).facet(
            column=alt.Column("rounds:N", title="rounds (from → to)")), chart.title, chart.caption)
    return chart


def generation_speedups_chart(con) -> Chart:
    frame = db.query_frame(con, """
        SELECT round, benchmark || ' · ' || scenario AS benchmark_scenario,
               vendor, accelerator_new || ' vs ' || accelerator_base AS comparison,
               speedup, total_accelerators,
               CASE WHEN procurement_grade THEN 'verified' ELSE 'preview' END AS rows_shown,
               CASE WHEN procurement_grade THEN '' ELSE 'preview' END AS label
        FROM generation_speedups
        QUALIFY row_number() OVER (PARTITION BY round, benchmark, scenario, accelerator_new, accelerator_base
                                   ORDER BY speedup DESC) = 1""")
    preview = frame.filter(pl.col("rows_shown") == "preview")
    shows = ("verified and preview closed-division rows, equal system size; one point per pair of "
             f"generations of one vendor (its largest speedup); hollow triangles labelled 'preview' ({preview.height} of {frame.height}) rest on a "
             "preview row: promising, not shipping")
    chart = Chart("generation_speedups", "Generation speedups per benchmark and scenario", shows,
                  _rounds(frame, "round"), None)
    if frame.height:
        base = alt.Chart().encode(
            x=alt.X("speedup:Q", title="speedup (× newer over older generation)", scale=alt.Scale(type="log")),
            y=alt.Y("benchmark_scenario:N", title=None),
            color=alt.Color("vendor:N", title="vendor"))
        points = base.mark_point(size=70, strokeWidth=2).encode(
            shape=alt.Shape("rows_shown:N", title="rows", scale=alt.Scale(
                domain=list(VERIFICATION_SHAPES), range=list(VERIFICATION_SHAPES.values()))),
            fill=alt.condition(alt.datum.rows_shown == "verified", alt.Fill("vendor:N", legend=None),
                               alt.value("transparent")),
            tooltip=["round", "benchmark_scenario", "comparison", alt.Tooltip("speedup:Q", format=".2f"),
                     "total_accelerators", "rows_shown"])
        labels = base.mark_text(align="left", dx=7, fontSize=9, fontStyle="italic").encode(text="label:N")
        parity = alt.Chart().mark_rule(strokeDash=[4, 4], color="#999").encode(x=alt.datum(1.0))
        chart.chart = _titled(alt.layer(parity, points, labels, data=frame).properties(width=300).facet(
            column=alt.Column("round:N", title="round")), chart.title, chart.caption)
    return chart


def scaling_efficiency_chart(con) -> Chart:
    frame = db.query_frame(con, """
        SELECT round, accelerator, benchmark, scenario, submitter, accelerators_small, accelerators_large,
               efficiency,
               CASE WHEN procurement_grade THEN 'verified' ELSE 'preview' END AS rows_shown
        FROM scaling_efficiency""")
    preview = frame.filter(pl.col("rows_shown") == "preview").height
    shows = ("verified and preview closed-division rows, same submitter, accelerator, benchmark and "
             f"scenario; {preview} of {frame.height} comparisons use a preview row (triangles)")
    chart = Chart("scaling_efficiency",
                  "Scaling efficiency by scale: (value_large / value_small) / (size_large / size_small); 1.0 = linear",
                  shows,
                  _rounds(frame, "round"), None)
    if frame.height:
        points = alt.Chart(frame).mark_point(size=60, filled=True, opacity=0.8).encode(
            x=alt.X("accelerators_large:Q", title="accelerators in the larger system",
                    scale=alt.Scale(type="log", base=2)),
            y=alt.Y("efficiency:Q", title="efficiency (log scale)", scale=alt.Scale(type="log")),
            color=alt.Color("accelerator:N"),
            shape=alt.Shape("rows_shown:N", title="rows", scale=alt.Scale(
                domain=list(VERIFICATION_SHAPES), range=list(VERIFICATION_SHAPES.values()))),
            tooltip=["round", "submitter", "accelerator", "benchmark", "scenario", "accelerators_small",
                     "accelerators_large", alt.Tooltip("efficiency:Q", format=".2f"), "rows_shown"])
        linear = alt.Chart(pl.DataFrame({"y": [1.0]})).mark_rule(strokeDash=[4, 4], color="#999").encode(y="y:Q")
        chart.chart = _titled((linear + points).properties(width=WIDTH, height=320), chart.title, chart.caption)
    return chart


def token_economics_chart(con, round_name: str | None) -> Chart:
    """Best verified Offline tokens/s per accelerator and per rack in the newest round, by accelerator
    and LLM benchmark; tokens per joule only where power was measured (any round)."""
    throughput = db.query_frame(con, """
        SELECT benchmark, accelerator, max(tokens_per_second_per_accelerator) AS per_accelerator,
               max(tokens_per_second_per_rack) AS per_rack
        FROM token_economics
        WHERE verification = 'verified' AND scenario = 'Offline' AND round = ? AND accelerator IS NOT NULL
        GROUP BY ALL""", [round_name or ""])
    joules = db.query_frame(con, """
        SELECT round, benchmark, accelerator, max(tokens_per_joule_measured) AS tokens_per_joule
        FROM token_economics
        WHERE verification = 'verified' AND tokens_per_joule_measured IS NOT NULL AND accelerator IS NOT NULL
        GROUP BY ALL""")
    shows = (f"verified rows only, Offline; tokens/s per accelerator and per rack: best result of round "
             f"{round_name}; tokens per joule: only results with measured power "
             f"({', '.join(_rounds(joules, 'round')) or 'none'})")
    chart = Chart("token_economics", "Token economics: tokens/s per accelerator, per rack, per joule",
                  shows, sorted(set(_rounds(joules, "round")) | ({round_name} if throughput.height else set()),
                                key=round_sort_key), None)
    if throughput.height:
        panels = [_bars(throughput, "per_accelerator", "tokens/s per accelerator"),
                  _bars(throughput.drop_nulls("per_rack"), "per_rack", "tokens/s per rack (rack_capacity.csv)")]
        if joules.height:
            panels.append(_bars(joules, "tokens_per_joule", "tokens per joule (measured power)", colour="round"))
        chart.chart = _titled(alt.hconcat(*panels).resolve_scale(color="independent"), chart.title,
                              chart.caption)
    return chart


def own_vs_mlperf_chart(con) -> Chart:
    """Your own runs over the MLPerf Server and Interactive rows they are set beside (own_vs_mlperf):
    throughput per accelerator against what one user sees."""
    frame = db.query_frame(con, """
        SELECT DISTINCT family, mlperf_accelerator AS accelerator, 'MLPerf ' || verification AS source,
               round, result_id AS run, scenario,
               coalesce(mlperf_tokens_per_second_per_user, 1000 / constraint_tpot_p99_ms) AS per_user,
               CASE WHEN mlperf_tokens_per_second_per_user IS NULL THEN 'the scenario''s p99 TPOT limit'
                    ELSE 'its run summary' END AS per_user_from,
               mlperf_tokens_per_second_per_accelerator AS per_accelerator
        FROM own_vs_mlperf
        WHERE scenario <> 'Offline' AND NOT mlperf_has_finding AND mlperf_tokens_per_second_per_accelerator IS NOT NULL
          AND coalesce(mlperf_tokens_per_second_per_user, 1000 / constraint_tpot_p99_ms) IS NOT NULL
        UNION ALL
        SELECT family, coalesce(accelerator, accelerator_raw), 'own run', NULL, coalesce(label, run_id), NULL,
               tokens_per_second_per_user, 'your run', tokens_per_second_per_accelerator
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
        chart.chart = _titled(alt.Chart(frame).mark_point(filled=True, opacity=0.85).encode(
            x=alt.X("per_user:Q", title="tokens/s per user (1 / time per output token)", scale=alt.Scale(type="log")),
            y=alt.Y("per_accelerator:Q", title="tokens/s per accelerator", scale=alt.Scale(type="log")),
            color=alt.Color("accelerator:N"),
            shape=alt.Shape("source:N", title="rows"),
            size=alt.condition(alt.datum.source == "own run", alt.value(160), alt.value(45)),
            tooltip=["source", "run", "round", "scenario", "accelerator",
                     alt.Tooltip("per_accelerator:Q", format=",.0f"), alt.Tooltip("per_user:Q", format=",.1f"),
                     "per_user_from"],
        ).properties(width=260, height=260).facet(column=alt.Column("family:N", title=None)),
            chart.title, chart.caption)
    return chart


def _bars(frame: pl.DataFrame, measure: str, title: str, colour: str = "accelerator"):
    return alt.Chart(frame).mark_bar().encode(
        x=alt.X(f"{measure}:Q", title=title),
        y=alt.Y("accelerator:N", title=None, sort="-x"),
        color=alt.Color(f"{colour}:N", legend=None if colour == "accelerator" else alt.Legend(title=colour)),
        row=alt.Row("benchmark:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")),
        tooltip=["benchmark", "accelerator", alt.Tooltip(f"{measure}:Q", format=",.1f")],
    ).properties(width=200).resolve_scale(x="independent", y="independent")


def leaderboard_chart(con, round_name: str | None) -> Chart:
    frame = db.query_frame(con, f"""
        SELECT l.benchmark, l.rank_system, l.submitter || ' · ' || l.system AS entry, l.value, l.units,
               l.accelerator, l.total_accelerators
        FROM leaderboard AS l JOIN dim_benchmarks AS b USING (benchmark)
        WHERE b.llm AND l.round = ? AND l.suite = 'datacenter' AND l.scenario = 'Offline'
          AND l.rank_system <= {TOP_SYSTEMS}""", [round_name or ""])
    shows = (f"verified rows only, datacenter suite, Offline; the top {TOP_SYSTEMS} systems of each LLM "
             "benchmark (tokens/s, higher is better)")
    chart = Chart("leaderboard", f"Leaderboard of the LLM benchmarks, round {round_name}", shows,
                  [round_name] if frame.height else [], None)
    if frame.height:
        chart.chart = _titled(alt.Chart(frame).mark_bar().encode(
            x=alt.X("value:Q", title="tokens/s (system)"),
            y=alt.Y("entry:N", title=None, sort=alt.EncodingSortField("rank_system"),
                    axis=alt.Axis(labelLimit=360)),
            color=alt.Color("accelerator:N"),
            row=alt.Row("benchmark:N", title=None, header=alt.Header(labelAngle=0, labelAlign="left")),
            tooltip=["benchmark", "rank_system", "entry", "accelerator", "total_accelerators",
                     alt.Tooltip("value:Q", format=",.1f")],
        ).properties(width=360).resolve_scale(x="independent", y="independent"), chart.title, chart.caption)
    return chart


def claim_audit_chart(con) -> Chart:
    frame = db.query_frame(con, """
        SELECT id, vendor, stage, round, multiplier, recomputed, verdict FROM claim_audit ORDER BY round, id""")
    shows = ("every claim in the ledger, recomputed from the warehouse; a verdict of 'comparable' needs "
             "verified rows only, and any preview row makes a claim 'promising'")
    chart = Chart("claim_audit", "Claim audit by verdict", shows, _rounds(frame, "round"), None,
                  empty_note="no claims loaded: mlperf-wh claims load FILE")
    if frame.height:
        chart.chart = _titled(alt.Chart(frame).mark_rect().encode(
            y=alt.Y("id:N", title=None, sort=None, axis=alt.Axis(labelLimit=360)),
            x=alt.X("round:N", title="round"),
            color=alt.Color("verdict:N", scale=alt.Scale(domain=list(VERDICT_COLOURS),
                                                           range=list(VERDICT_COLOURS.values())),
                            legend=alt.Legend(orient="bottom", direction="vertical", labelLimit=400)),
            tooltip=["id", "vendor", "stage", "multiplier", "recomputed", "verdict"],
        ).properties(width=80, height=alt.Step(18)), chart.title, chart.caption)
    return chart


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
    charts = [software_gains_chart(con), generation_speedups_chart(con), scaling_efficiency_chart(con),
              token_economics_chart(con, newest), leaderboard_chart(con, newest), claim_audit_chart(con),
              own_vs_mlperf_chart(con)]
    return charts, [claim_audit_table(con), decisions_due_table(con)]


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
        svgs = _write_charts(charts, staging / "charts")
        environment = Environment(loader=PackageLoader("warehouse.export", "templates"), autoescape=select_autoescape())
        page = environment.get_template("report.html").render(
            charts=charts, tables=tables, svgs=svgs, generated_at=datetime.now(timezone.utc),
            warehouse=warehouse_file, rounds=_loaded_rounds(con))
        (staging / "index.html").write_text(page, encoding="utf-8")
        write_listing(staging, KIND)
        swap_in(staging, target, KIND)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return target / "index.html"


def _write_charts(charts: list[Chart], directory: Path) -> dict[str, str]:
    """Each chart that has rows as NAME.svg and NAME.png (rendered offline); returns the SVGs."""
    with needs_extra("report", "the report's PNG and SVG charts"):
        import vl_convert as vlc
    directory.mkdir()
    svgs = {}
    for chart in (c for c in charts if c.chart is not None):
        svgs[chart.name] = vlc.vegalite_to_svg(chart.chart.to_dict())
        (directory / f"{chart.name}.svg").write_text(svgs[chart.name], encoding="utf-8")
        (directory / f"{chart.name}.png").write_bytes(vlc.svg_to_png(svgs[chart.name], scale=1.5))
    return svgs


def _loaded_rounds(con) -> list[dict]:
    return db.query_frame(con, "SELECT round, result_rows, verified_rows, preview_rows, loaded_at "
                               "FROM dim_rounds ORDER BY round_order").to_dicts()
