"""A report for people who will not open a BI tool: one self-contained HTML page that works offline and
opens on the answer: what to buy this round (report_answer), then results tables to sort, filter and
page, two systems compared side by side (report_data, read by the page's own small script), throughput
against interactivity, and an appendix of charts and the claim audit (report_charts). Vega-Lite specs
are drawn in the browser by the Vega runtime, inlined once, from the rows the page carries; each chart
is also written as PNG and SVG for slides, rendered offline by vl-convert, when asked for (`--images`)
or when the previous report in the directory has them (then only the charts whose spec changed are
drawn again): drawing is most of a report's time, and the page needs none of it.

Every figure names its result ID and links to the entry's published page; every chart and table
states which rows it shows and the rounds.
"""
from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path

import duckdb
import polars as pl

from warehouse.errors import needs_extra
from warehouse.export.output_dirs import (check_replaceable, make_staging_dir, remove_abandoned_partials,
                                          resolved_target, swap_in, warehouse_files, write_listing)
from warehouse.export.report_answer import (Answer, Verdict, answers_by_market, dollars, evidence, number,
                                            opening_answer, percent, verdicts)
from warehouse.export.report_charts import (READABLE, Chart, accelerator_history_chart, generation_speedups_chart,
                                            interactivity_chart, leaderboard_chart, scaling_efficiency_chart,
                                            software_gains_chart, token_economics_chart)
from warehouse.export.report_efficiency import efficiency_history_chart
from warehouse.export.report_data import PageData, page_data
from warehouse.export.report_interactive import (AcceleratorPalette, RuntimeInBackground, inert_spec, inert_value,
                                                 spec_json, words)
from warehouse.store import db

GRADE_COLOURS = {"holds": "#2e7d32", "understated": "#1565c0", "overstated": "#c62828", "unsupported": "#757575"}
KIND = "report"
IMAGE_HASHES = "drawn-from.json"  # charts/: the sha256 of the spec each image was drawn from
PNG_SCALE = 1.5  # the PNG's pixels per SVG pixel: part of what an image was drawn from


@dataclass
class Table:
    """A table of the report (the claim audit, decisions due), coloured by one column where it has one."""
    name: str
    title: str
    shows: str
    frame: pl.DataFrame
    colour_column: str | None = None
    empty_note: str = "no rows"
    colours: dict = field(default_factory=dict)


@dataclass
class Page:
    """Everything the page shows, in page order."""
    round: str | None
    answers: list[Answer]
    data: PageData
    interactivity: Chart
    appendix: list[Chart]
    tables: list[Table]
    prices: int = 0  # prices loaded (mlperf-wh prices load): none, and the page says how to add them
    edge_answers: list[Answer] = field(default_factory=list)  # the edge buyer's table (stg_results.market)
    measured_power_rounds: list[str] = field(default_factory=list)  # rounds with a measured power figure

    @property
    def measured_this_round(self) -> bool:
        return self.round in self.measured_power_rounds

    @property
    def answer_tables(self) -> list[tuple[str, str, str, list[Answer]]]:
        """(market, element id, heading, answers) of each buyer's table, the datacenter buyer first."""
        return [("datacenter", "answer-table", "For the datacenter: datacenter-class parts, datacenter suite",
                 self.answers),
                ("edge", "answer-table-edge", "For the edge and the desk: edge parts, datacenter parts in the edge "
                 "suite, workstation and client parts (consumer cards, laptop GPUs)", self.edge_answers)]

    @property
    def verdicts(self) -> list[Verdict]:
        return verdicts({"datacenter": self.answers, "edge": self.edge_answers})

    @property
    def charts(self) -> list[Chart]:
        return [self.interactivity, *self.appendix]

    def defaults(self) -> dict:
        """What the results table and the comparison open on: the first LLM benchmark of the answer,
        Server when it has one; its best and runner-up entries side by side."""
        opening = opening_answer(self.answers)
        if opening is None:
            return {"round": self.round}
        lead = opening.per_accelerator
        return {"round": self.round, "benchmark": opening.benchmark, "scenario": opening.scenario,
                "compare": [f.result_id for f in (lead.best, lead.runner_up) if f is not None]}


def power_bases_used(answers: list[Answer]) -> dict[str, list[str]]:
    """Which rows of an answer table take each power basis in their per-kW cell: a column that mixes
    bases says which row uses which."""
    used: dict[str, list[str]] = {}
    for answer in answers:
        if answer.per_kw.best is not None and answer.per_kw.best.power_basis:
            used.setdefault(answer.per_kw.best.power_basis, []).append(answer.key)
    return used


# The answer table's figure columns: (measure, heading, its name in a line, why a table leaves it out
# when no row has a figure in it)
ANSWER_COLUMNS = (
    ("per_accelerator", "per accelerator", "per accelerator", "no result"),
    ("rack_measured", "per rack, measured", "per rack, measured", "no entry here ran a whole rack"),
    ("rack_estimated", "per rack, estimated", "per rack, estimated",
     "no entry here has a whole server to scale a rack from"),
    ("per_kw", "per kW (power basis in each cell)", "per kW", "no entry here has a power figure or an estimate"),
    ("per_dollar", "per dollar, among priced accelerators: dollars per million tokens", "per dollar",
     "no accelerator here has a price and tokens"))


def answer_columns(answers: list[Answer], priced: bool) -> tuple[list[tuple[str, str]], list[str]]:
    """The figure columns a buyer's table shows, (measure, heading), and a line for each it leaves out
    because no row has a figure in it (per dollar only when prices are loaded: the page says how)."""
    shown, left_out = [], []
    for measure, heading, name, because in ANSWER_COLUMNS:
        if measure == "per_dollar" and not priced:
            continue
        if any(getattr(a, measure).best is not None for a in answers):
            shown.append((measure, heading))
        else:
            left_out.append(f"{name} ({because})")
    return shown, left_out


def price_footnote(answers: list[Answer]) -> list[tuple[str, list[str]]]:
    """Where the prices of a table's per-dollar figures are from, once a table: (source and date, the
    accelerators priced by it), in the order first met."""
    found: dict[str, list[str]] = {}
    for answer in answers:
        for figure in (answer.per_dollar.best, answer.per_dollar.runner_up):
            if figure is not None:
                priced = found.setdefault(figure.provenance or "no source given", [])
                if figure.accelerator not in priced:
                    priced.append(figure.accelerator)
    return list(found.items())


def newest_round(con: duckdb.DuckDBPyConnection) -> str | None:
    found = con.execute("SELECT round FROM dim_rounds ORDER BY round_order DESC LIMIT 1").fetchall()
    return found[0][0] if found else None


def claim_audit_table(con) -> Table:
    frame = db.query_frame(con, """
        SELECT id, vendor, kind, stage, round, benchmark, scenario, accelerator,
               coalesce(multiplier, result_claimed) AS claimed, result_unit,
               round(figure_supported, 3) AS supported, grade,
               CASE WHEN overstated_by IS NOT NULL THEN round(100 * overstated_by, 1) || '%' END AS overstated_by,
               grade_reason, verdict
        FROM claim_audit ORDER BY round, id""")
    return Table("claim_audit", "Claims, graded against the data",
                 "every claim in the ledger, recomputed from the warehouse: claimed = the vendor's figure (a "
                 "multiplier, or an absolute claim's result in result_unit), supported = the most the data supports "
                 "at the claim's own conditions; grade: holds (within 5%), overstated, "
                 "understated or unsupported (nothing recomputes it); the verdict says whether a procurement "
                 "decision may rest on it", frame, colour_column="grade", colours=GRADE_COLOURS,
                 empty_note="no claims loaded: mlperf-wh claims load FILE")


def decisions_due_table(con) -> Table:
    frame = db.query_frame(con, """
        SELECT id, title, decision, review_due, due_because, flagged,
               array_to_string(non_procurement_grade_claims, ', ') AS non_procurement_grade_claims
        FROM decisions_due ORDER BY id""")
    return Table("decisions_due", "Decisions due for review",
                 "capacity decisions whose review round is published or review date has passed; flagged = "
                 "rests on a claim that is not procurement grade", frame,
                 empty_note="no decision is due for review")


def charts(con, round_name: str | None, palette: AcceleratorPalette) -> tuple[Chart, list[Chart]]:
    """The interactivity chart (its own section) and the appendix's charts, in page order."""
    return interactivity_chart(con, round_name, palette), [
        leaderboard_chart(con, round_name, palette), token_economics_chart(con, round_name, palette),
        software_gains_chart(con, palette), accelerator_history_chart(con, palette),
        efficiency_history_chart(con, palette), generation_speedups_chart(con, palette),
        scaling_efficiency_chart(con, palette)]


def build(con: duckdb.DuckDBPyConnection) -> Page:
    from altair.utils.schemapi import debug_mode
    newest = newest_round(con)
    data = page_data(con)
    # Not validated as each part is made (Altair's debug mode): a third of the charts' time, and
    # the specs this code writes are drawn in Chromium and by vl-convert in tests/test_report.py.
    with debug_mode(False):
        interactivity, appendix = charts(con, newest, page_palette(con))
    [(prices,)] = con.execute("SELECT count(*) FROM stg_prices").fetchall()
    links = data.link_of()
    by_market = answers_by_market(con, newest, links)
    return Page(newest, by_market["datacenter"], data, interactivity, appendix,
                [claim_audit_table(con), decisions_due_table(con)], prices, by_market["edge"], measured_power_rounds(con))


def measured_power_rounds(con) -> list[str]:
    """The rounds of which the warehouse holds a measured power figure (power_efficiency), in order."""
    return [r for r, _ in con.execute("SELECT DISTINCT round, round_order(round) FROM power_efficiency "
                                      "ORDER BY round_order(round)").fetchall()]


def page_palette(con) -> AcceleratorPalette:
    """Every accelerator the charts may colour, most shown first, mapped to colours once for the page."""
    rows = con.execute("""
        SELECT accelerator FROM leaderboard UNION ALL SELECT accelerator FROM token_economics
        UNION ALL SELECT accelerator FROM scaling_efficiency UNION ALL SELECT accelerator FROM interactivity_frontier
        UNION ALL SELECT accelerator FROM accelerator_history UNION ALL SELECT accelerator FROM efficiency_history
        UNION ALL SELECT coalesce(accelerator, accelerator_raw) FROM own_runs""").fetchall()
    return AcceleratorPalette.most_shown_first([accelerator for (accelerator,) in rows])


# --- rendering ----------------------------------------------------------------------------------

def render_report(con: duckdb.DuckDBPyConnection, out_dir: Path, warehouse_file: str | None = None,
                  images: bool | None = None) -> Path:
    """Write index.html (and, with `images`, charts/<name>.png|.svg) into `out_dir` (replaced whole,
    when output_dirs says it may be); returns the page. `images` None: drawn when the previous
    report in `out_dir` has them, so a report kept up to date after each load keeps its images."""
    target = resolved_target(out_dir)
    check_replaceable(target, KIND, (warehouse_file, *warehouse_files(con)))
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_abandoned_partials(target, KIND)
    runtime = RuntimeInBackground()  # bundled while the page is built, when not cached yet
    try:
        return _render(con, target, warehouse_file, images, runtime)
    finally:
        runtime.close()


def _render(con, target: Path, warehouse_file: str | None, images: bool | None, runtime: RuntimeInBackground) -> Path:
    from jinja2 import Environment, PackageLoader, select_autoescape
    page = build(con)
    staging = make_staging_dir(target)
    draw = images if images is not None else (target / "charts" / IMAGE_HASHES).is_file()
    try:
        specs = _write_charts(page.charts, staging / "charts", target / "charts", draw)
        environment = Environment(loader=PackageLoader("warehouse.export", "templates"), autoescape=select_autoescape(),
                                  finalize=inert_value)
        environment.filters.update(number=number, percent=percent, dollars=dollars, words=words)
        html = environment.get_template("report.html").render(
            page=page, specs={name: spec_json(spec) for name, spec in specs.items()},
            data=spec_json(inert_spec({**page.data.as_json_ready(), "defaults": page.defaults()})),
            style=page_asset("report.css"), script=page_asset("report.js"),
            runtime=runtime.result() if specs else None, images=draw, generated_at=datetime.now(timezone.utc),
            warehouse=warehouse_file, rounds=_loaded_rounds(con), power_bases_used=power_bases_used,
            answer_columns=answer_columns, price_footnote=price_footnote, evidence=evidence)
        (staging / "index.html").write_text(html, encoding="utf-8")
        write_listing(staging, KIND)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    # Not under the clean-up above: once swapped, `staging` holds the previous output, which only
    # remove_previous may take apart (a file someone added to it is kept beside the target).
    swap_in(staging, target, KIND)
    return target / "index.html"


def page_asset(name: str) -> str:
    """The page's own style or script (templates/), inlined as it is: it may not close its element."""
    text = resources.files("warehouse.export").joinpath("templates", name).read_text(encoding="utf-8")
    if "</script" in text.lower() or "</style" in text.lower():
        raise ValueError(f"templates/{name} closes its element and cannot be inlined")
    return text


def _write_charts(drawn: list[Chart], directory: Path, previous: Path, images: bool = True) -> dict[str, dict]:
    """The Vega-Lite specs the page embeds (titled by the page), for each chart that has rows; with
    `images`, each also as NAME.svg and NAME.png (its title inside, filters at their defaults,
    rendered offline). An image whose spec (with vl-convert's version and the PNG's scale) is the one
    the previous report drew it from (IMAGE_HASHES, beside the images) is copied from it: drawing is
    most of a report's time, and the same spec draws the same image."""
    if images:
        with needs_extra("report", "the report's PNG and SVG charts"):
            import vl_convert as vlc
        directory.mkdir()
    drawn_before = _image_hashes(previous)
    specs, hashes = {}, {}
    for chart in (c for c in drawn if c.chart is not None):
        # Unvalidated: schema validation costs a second a report and finds nothing in specs this code
        # writes (tests/test_report.py draws every one in Chromium and with vl-convert).
        spec = inert_spec(chart.chart.to_dict(validate=False))
        spec["config"] = {**READABLE, **spec.get("config", {})}
        # resize: the view is laid out again when a filter changes its rows, so a filtered chart shrinks
        specs[chart.name] = {**spec, "autosize": {"type": "pad", "resize": True}}
        if not images:
            continue
        image = {**spec, "title": inert_spec(chart.title_spec())}
        hashes[chart.name] = image_key(image, vlc.__version__, PNG_SCALE)
        svg, png = (directory / f"{chart.name}.svg", directory / f"{chart.name}.png")
        if drawn_before.get(chart.name) == hashes[chart.name] and _copied(previous, svg, png):
            continue
        drawing = vlc.vegalite_to_svg(image)
        svg.write_text(drawing, encoding="utf-8")
        png.write_bytes(vlc.svg_to_png(drawing, scale=PNG_SCALE))
    if images:
        (directory / IMAGE_HASHES).write_text(json.dumps(hashes, indent=1), encoding="utf-8")
    return specs


def image_key(image: dict, renderer_version: str, png_scale: float) -> str:
    """What an image pair is drawn from: the spec, the renderer's version (another vl-convert may draw
    the same spec otherwise) and the PNG's scale (the same SVG drawn at another size)."""
    drawn_from = json.dumps([renderer_version, png_scale, image], sort_keys=True, default=str)
    return hashlib.sha256(drawn_from.encode()).hexdigest()


def _image_hashes(previous: Path) -> dict[str, str]:
    try:
        found = json.loads((previous / IMAGE_HASHES).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _copied(previous: Path, *files: Path) -> bool:
    try:
        for file in files:
            shutil.copyfile(previous / file.name, file)
    except OSError:
        return False
    return True


def _loaded_rounds(con) -> list[dict]:
    return db.query_frame(con, "SELECT round, result_rows, verified_rows, preview_rows, loaded_at "
                               "FROM dim_rounds ORDER BY round_order").to_dicts()
