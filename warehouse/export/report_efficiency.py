"""The report's efficiency-history chart: how much work a joule of measured system power bought, round by
round, per benchmark on a real time axis (efficiency_history: each part's best per joule in a round,
power-optimized MaxQ entries and MaxP entries as two lines, dashed for MaxP), beside the field's record
per era and power setting (efficiency_records) as a grey step line, labelled at the round that set it.
Measured power only: an estimate never enters it (docs/definitions.md section 16)."""
from __future__ import annotations

import altair as alt
import polars as pl

from warehouse.export.report_charts import (END_LABEL_LIMIT, HISTORY_COLUMNS, HISTORY_HEIGHT, HISTORY_WIDTH,
                                            LABEL_FONT, RECORD_SEGMENT, Chart, _identity, _line_ids, _rounds, line_end_labels,
                                            time_axis_with_gutter)
from warehouse.export.report_interactive import AcceleratorPalette
from warehouse.store import db

EFFICIENCY_PANELS = 6     # benchmark families drawn: the longest measured first
EFFICIENCY_COLOURED = 8   # parts drawn in colour across the chart (record holders first); the others grey
EFFICIENCY_SCENARIO = "Offline"   # the scenario most power runs measured, in every round with power
OTHER = "other parts"
SETTING_DASH = {"MaxQ": [1, 0], "MaxP": [5, 3]}


def efficiency_history_frame(con) -> pl.DataFrame:
    """Each part's best figure per joule (no anomaly finding) per benchmark, power setting and round of
    its efficiency history, Offline, with the round's date and the part's segment."""
    return db.query_frame(con, f"""
        SELECT f.benchmark_family AS family, h.benchmark, h.work_unit, h.era,
               coalesce(h.accelerator, h.cpu) AS accelerator, w.segment, h.power_setting, h.round,
               round_order(h.round) AS round_order, h.published_on, max(h.work_per_joule) AS per_joule,
               arg_max(h.accelerator_count, h.work_per_joule) AS accelerator_count,
               arg_max(h.submitter, h.work_per_joule) AS submitter,
               arg_max(h.run_path, h.work_per_joule) AS run_path,
               arg_max(h.measured_watts, h.work_per_joule) AS measured_watts
        FROM efficiency_history AS h
        JOIN (SELECT DISTINCT benchmark, benchmark_family FROM base_benchmark_names) AS f USING (benchmark)
        LEFT JOIN stg_hardware AS w ON w.hardware = coalesce(h.accelerator, h.cpu)
        WHERE h.scenario = '{EFFICIENCY_SCENARIO}' AND NOT h.has_finding AND h.published_on IS NOT NULL
        GROUP BY ALL""")


def efficiency_records_frame(con) -> pl.DataFrame:
    """The field's record per joule per round of each benchmark's Offline history, in RECORD_SEGMENT, per
    power setting (efficiency_records), with the round's date."""
    return db.query_frame(con, f"""
        SELECT benchmark, power_setting, era, round, round_order(round) AS round_order, published_on,
               work_per_joule_record, record_round, record_accelerator, label
        FROM efficiency_records
        WHERE scenario = '{EFFICIENCY_SCENARIO}' AND segment = '{RECORD_SEGMENT}' AND published_on IS NOT NULL
        ORDER BY benchmark, power_setting, round_order""")


def efficiency_panels(frame: pl.DataFrame, records: pl.DataFrame | None = None) -> pl.DataFrame:
    """The rows drawn: per family its benchmark measured in the most rounds; the families measured in at
    least two rounds, the most rounds first (at most EFFICIENCY_PANELS); each part's points per power
    setting with a line id that breaks at an era change or where a round measured the benchmark but not
    the part (kind 'part', `shade` the part, or OTHER beyond the EFFICIENCY_COLOURED parts that set a
    record or were measured most); the record per round and setting (kind 'frontier') and its label at
    the round that set the newest era's record (kind 'label'). `panel_order`: the panels' order."""
    if frame.is_empty():
        return frame
    spans = (frame.group_by("family", "benchmark")
             .agg(pl.col("round").n_unique().alias("rounds"), pl.col("published_on").min().alias("first"),
                  pl.len().alias("points"))
             .sort(["rounds", "points", "benchmark"], descending=[True, True, False])
             .unique("family", keep="first", maintain_order=True)
             .filter(pl.col("rounds") >= 2).head(EFFICIENCY_PANELS))
    rows = frame.join(spans.select("benchmark").with_row_index("panel_order"), on="benchmark").sort("round_order")
    frontier, labels = _record_rows(records, rows)
    coloured = _coloured_parts(rows, frontier)
    parts = rows.with_columns(pl.lit("part").alias("kind"),
                              (pl.col("accelerator") + " · " + pl.col("power_setting")).alias("series"),
                              pl.when(pl.col("accelerator").is_in(coloured)).then(pl.col("accelerator"))
                              .otherwise(pl.lit(OTHER)).alias("shade"))
    drawn = pl.concat([parts, frontier, labels], how="diagonal").sort("kind", "benchmark", "series", "round_order")
    ran = {b: sorted(g["round_order"].unique().to_list()) for (b,), g in rows.group_by("benchmark")}
    units = dict(rows.select("benchmark", "work_unit").unique("benchmark").iter_rows())
    return drawn.with_columns(
        pl.struct("kind", "benchmark", "accelerator", "series", "era", "round_order")
        .map_batches(lambda s: pl.Series(_line_ids(s.to_list(), ran)), return_dtype=pl.String).alias("line"),
        (pl.col("benchmark") + " · " + pl.col("benchmark").replace_strict(units) + " per joule").alias("panel"))


def _coloured_parts(rows: pl.DataFrame, frontier: pl.DataFrame) -> list[str]:
    """The parts drawn in colour: those that held a drawn record, then the most measured, at most
    EFFICIENCY_COLOURED."""
    holders = set(frontier["accelerator"].to_list()) if not frontier.is_empty() else set()
    counted = rows.group_by("accelerator").agg(pl.len().alias("points"))
    ranked = counted.with_columns(pl.col("accelerator").is_in(list(holders)).alias("held")).sort(
        ["held", "points", "accelerator"], descending=[True, True, False])
    return ranked["accelerator"].head(EFFICIENCY_COLOURED).to_list()


def _record_rows(records: pl.DataFrame | None, rows: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The record line of each drawn benchmark and power setting (kind 'frontier'), and a label at the
    round that set the newest era's record (kind 'label': the setting, the part, the figure and the
    round), drawn to the left of that point when it sits in the right half of the time axis (`right`),
    so it stays inside the panel."""
    empty = rows.clear().with_columns(pl.lit(None, pl.String).alias("series"))
    if records is None or records.is_empty():
        return empty, empty
    # the panels share their time axis: the half is of the whole chart's span
    first, last = rows["published_on"].min(), rows["published_on"].max()
    panels = rows.group_by("benchmark").agg(pl.col("family").first(), pl.col("work_unit").first())
    shown = records.join(panels, on="benchmark").with_columns(pl.lit(first).alias("from"), pl.lit(last).alias("to"))
    columns = ["family", "benchmark", "work_unit", "era", "power_setting", "round", "round_order", "published_on"]
    frontier = shown.select(*columns, pl.col("record_accelerator").alias("accelerator"),
                            pl.col("work_per_joule_record").alias("per_joule"), pl.lit("frontier").alias("kind"),
                            ("record " + pl.col("power_setting")).alias("series"))
    newest = shown.sort("round_order").group_by("benchmark", "power_setting", maintain_order=True).last()
    at_record = shown.join(newest.select("benchmark", "power_setting", "era", pl.col("record_round").alias("set_in")),
                           on=["benchmark", "power_setting", "era"]).filter(pl.col("round") == pl.col("set_in"))
    labels = at_record.select(
        *columns, pl.col("record_accelerator").alias("accelerator"), pl.col("work_per_joule_record").alias("per_joule"),
        pl.lit("label").alias("kind"), ("record " + pl.col("power_setting")).alias("series"),
        pl.format("{} record: {} {} ({})", "power_setting", "record_accelerator",
                  pl.col("work_per_joule_record").map_elements(lambda v: f"{v:.3g}", return_dtype=pl.String),
                  "record_round").alias("text"),
        ((pl.col("published_on") - pl.col("from")).dt.total_days()
         > 0.5 * (pl.col("to") - pl.col("from")).dt.total_days()).alias("right"))
    return frontier, labels


def efficiency_history_chart(con, palette: AcceleratorPalette) -> Chart:
    frame = efficiency_panels(efficiency_history_frame(con), efficiency_records_frame(con))
    shows = (f"verified {EFFICIENCY_SCENARIO} results without an anomaly finding, work (samples, or tokens for an "
             "LLM) per joule of measured system power: the whole system at the wall during the run, from the "
             "published table (v4.1 on) or read from a round's power files as MLCommons' checker reads them; never "
             f"an estimate; each part's best per round, a line per power setting (solid: MaxQ, power-optimized "
             f"entries; dashed: MaxP, performance entries measured at the wall); the {EFFICIENCY_PANELS} benchmark "
             f"families measured in most rounds; {EFFICIENCY_COLOURED} parts in colour (record holders first), the "
             f"others grey; the grey step line is the field's {RECORD_SEGMENT} record per joule of each setting "
             "(efficiency_records), labelled with the part and round that set it; lines break where the "
             "benchmark changed (its era) or a round measured the benchmark but not the part")
    chart = Chart("efficiency_history", "How much more work per joule since 2021, measured at the wall", shows,
                  _rounds(frame, "round"), None, empty_note="no measured power loaded: the tables of v4.1 on, "
                  "or `mlperf-wh trees` for the old rounds' power files")
    if frame.is_empty():
        return chart
    x_scale, x_axis = time_axis_with_gutter(frame)
    x = alt.X("published_on:T", title=None, scale=x_scale, axis=x_axis)
    # each coloured part named once, at its newest point (its MaxQ and MaxP lines share its colour; the
    # dash tells them apart: two labels saying the same name would not); grey lines unnamed
    coloured_rows = frame.filter((pl.col("kind") == "part") & (pl.col("shade") != OTHER))
    frame = pl.concat([frame, line_end_labels(coloured_rows, "per_joule", frame["published_on"].max(),
                                              frame.filter(pl.col("kind").is_in(["part", "frontier"])), palette)],
                      how="diagonal_relaxed")
    y = alt.Y("per_joule:Q", title="per joule (log)", scale=alt.Scale(type="log", nice=False, padding=6),
              axis=alt.Axis(format="~g", labelFontSize=LABEL_FONT, tickCount=5))  # 0.01 and 400, never "10m"
    dash = alt.StrokeDash("power_setting:N", title="power setting",
                          scale=alt.Scale(domain=list(SETTING_DASH), range=list(SETTING_DASH.values())))
    tooltip = [*_identity("accelerator", "power_setting", "benchmark", "round", "submitter", "accelerator_count",
                          "run_path"),
               alt.Tooltip("published_on:T", format="%Y-%m-%d", title="published"),
               alt.Tooltip("per_joule:Q", format=",.3~f", title="per joule"), "work_unit:N",
               alt.Tooltip("measured_watts:Q", format=",.0f", title="measured watts")]
    base = alt.Chart()
    record = base.transform_filter("datum.kind == 'frontier'").mark_line(
        color="#9e9e9e", strokeWidth=5, opacity=0.4, interpolate="step-after").encode(
        x=x, y=y, detail="line:N", strokeDash=dash)
    # each setting's record label in the panel's top left corner, above the lines (MaxQ first, MaxP below)
    labels = [base.transform_filter(f"datum.kind == 'label' && datum.power_setting == '{setting}'").mark_text(
        align="left", baseline="top", fontSize=LABEL_FONT, fontWeight="bold", color="#424242").encode(x=alt.value(4), y=alt.value(-32 + 14 * row), text="text:N")
        for row, setting in enumerate(SETTING_DASH)]
    parts = base.transform_filter("datum.kind == 'part'")
    others = parts.transform_filter(f"datum.shade == '{OTHER}'")
    coloured = parts.transform_filter(f"datum.shade != '{OTHER}'")
    colour = alt.Color("accelerator:N", title="accelerator", scale=palette.scale(), legend=None)
    grey_lines = others.mark_line(color="#bdbdbd", strokeWidth=1.5).encode(x=x, y=y, detail="line:N", strokeDash=dash)
    grey_points = others.mark_point(color="#9e9e9e", filled=True, size=30).encode(x=x, y=y, tooltip=tooltip)
    lines = coloured.mark_line(strokeWidth=2).encode(x=x, y=y, color=colour, detail="line:N", strokeDash=dash)
    points = coloured.mark_point(filled=True, size=40).encode(x=x, y=y, color=colour, tooltip=tooltip)
    ends = base.transform_filter("datum.kind == 'end'").mark_text(
        align="left", baseline="middle", dx=8, fontSize=LABEL_FONT, limit=END_LABEL_LIMIT).encode(
        x=x, y=y, fill=alt.Fill("ink:N", scale=None), text="text:N")
    order = frame.filter(pl.col("kind") == "part").select("panel", "panel_order").unique().sort("panel_order")
    chart.chart = alt.layer(record, grey_lines, grey_points, lines, points, *labels, ends).properties(
        width=HISTORY_WIDTH, height=HISTORY_HEIGHT, data=frame).facet(
        facet=alt.Facet("panel:N", title=None, sort=order["panel"].to_list(),
                        header=alt.Header(labelFontSize=12, labelFontWeight="bold")),
        columns=HISTORY_COLUMNS).resolve_scale(y="independent")
    return chart
