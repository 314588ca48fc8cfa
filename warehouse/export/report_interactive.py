"""What makes the report's charts explorable and consistent across the page: filters bound to select
inputs, one colour per accelerator, the diverging scale for gains, and the Vega runtime inlined once
per page (vl-convert bundles it offline; the page never fetches anything)."""
from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import altair as alt
import polars as pl

from warehouse.errors import needs_extra
from warehouse.export import vega_bundle
from warehouse.export.vega_bundle import vega_lite_version
from warehouse.export.cells import ESCAPED
from warehouse.figures import truth
from warehouse.identity.rounds import round_sort_key

# Vega's tableau20 (dark shades first, then the light ones) and category20b: 40 colours that differ.
_TABLEAU20 = ["#4c78a8", "#9ecae9", "#f58518", "#ffbf79", "#54a24b", "#88d27a", "#b79a20", "#f2cf5b",
              "#439894", "#83bcb6", "#e45756", "#ff9d98", "#79706e", "#bab0ac", "#d67195", "#fcbfd2",
              "#b279a2", "#d6a5c9", "#9e765f", "#d8b5a5"]
_CATEGORY20B = ["#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#5254a3", "#8ca252", "#bd9e39",
                "#ad494a", "#a55194", "#6b6ecf", "#b5cf6b", "#e7ba52", "#d6616b", "#ce6dbd", "#9c9ede",
                "#cedb9c", "#e7cb94", "#e7969c", "#de9ed6"]
ACCELERATOR_COLOURS = _TABLEAU20[0::2] + _TABLEAU20[1::2] + _CATEGORY20B
GAIN_SCHEME = "redblue"
COLOURED = 8        # series a panel colours at most: the parts that lead; the rest grey
GREY = "#bdbdbd"
INK = "#424242"     # text that names no part
TEXT_CONTRAST = 4.5  # WCAG 2's minimum contrast ratio for text of normal size
OTHER_PARTS = "other parts"
SHADE = "shade"     # red below 1 (slower), white at 1, blue above (faster)


# --- filters ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Filter:
    """A select input over one column of a chart's rows; `default` None opens on every value.
    `unless`: a Vega expression for rows the select never hides (your replays have no round)."""
    field: str
    label: str
    default: str | None = None
    allow_all: bool = True
    unless: str | None = None

    @property
    def param_name(self) -> str:
        return f"filter_{self.field}"


ROUND = Filter("round", "round")
BENCHMARK = Filter("benchmark", "benchmark")
SCENARIO = Filter("scenario", "scenario")
ACCELERATOR = Filter("accelerator", "accelerator")
VERIFICATION = Filter("verification", "verification")
STANDARD_FILTERS = (ROUND, BENCHMARK, SCENARIO, ACCELERATOR, VERIFICATION)


@dataclass
class Filters:
    """The bound params of a chart and the Vega expression that keeps the rows they select."""
    params: list
    expression: str | None

    def apply(self, chart):
        """Params and the row filter on one chart (a single, layered or faceted view)."""
        if self.expression is None:
            return chart
        return chart.add_params(*self.params).transform_filter(self.expression)


def filters_for(frame: pl.DataFrame, filters=STANDARD_FILTERS) -> Filters:
    """A select for each filter whose column has more than one value in `frame`."""
    params, tests = [], []
    for spec in filters:
        values = _sorted_values(frame, spec.field)
        if len(values) < 2:
            continue
        params.append(_select_param(spec, values))
        test = (f"{spec.param_name} == null || datum['{spec.field}'] == {spec.param_name}"
                if spec.allow_all else f"datum['{spec.field}'] == {spec.param_name}")
        tests.append(f"({spec.unless} || {test})" if spec.unless else f"({test})")
    return Filters(params, " && ".join(tests) or None)


def _sorted_values(frame: pl.DataFrame, field: str) -> list:
    if field not in frame.columns:
        return []
    values = frame[field].drop_nulls().unique().to_list()
    return sorted(values, key=round_sort_key) if field == "round" else sorted(values)


def _select_param(spec: Filter, values: list):
    options = ([None] if spec.allow_all else []) + values
    labels = (["all"] if spec.allow_all else []) + [str(v) for v in values]
    value = spec.default if spec.default in values else (None if spec.allow_all else values[-1])
    return alt.param(name=spec.param_name, value=value,
                     bind=alt.binding_select(options=options, labels=labels, name=f"{spec.label} "))


# --- colours ------------------------------------------------------------------------------------

@dataclass(frozen=True)
class AcceleratorPalette:
    """One colour per accelerator for the whole page: the same domain and range on every chart."""
    domain: tuple[str, ...]

    @classmethod
    def most_shown_first(cls, accelerators: list[str]) -> AcceleratorPalette:
        """`accelerators` is every occurrence; the most frequent get the most distinct colours."""
        counts = pl.DataFrame({"accelerator": accelerators}, schema={"accelerator": pl.String}).drop_nulls()
        ranked = counts.group_by("accelerator").len().sort(["len", "accelerator"], descending=[True, False])
        return cls(tuple(ranked["accelerator"].to_list()))

    @property
    def range(self) -> list[str]:
        return [ACCELERATOR_COLOURS[i % len(ACCELERATOR_COLOURS)] for i in range(len(self.domain))]

    def colour_of(self, accelerator: str) -> str:
        return self.range[self.domain.index(accelerator)]

    def ink_of(self, accelerator: str | None) -> str:
        """The part's colour as text on white: darkened where the light shades (from the eleventh part
        on) would be too faint to read; a part the page does not colour, dark grey."""
        return readable_on_white(self.colour_of(accelerator)) if accelerator in self.domain else INK

    def scale(self) -> alt.Scale:
        return alt.Scale(domain=list(self.domain), range=self.range)

    def encoding(self, frame: pl.DataFrame, field: str = "accelerator", legend: bool = True,
                 coloured: list[str] | None = None):
        """The colour channel: the page's mapping, with a legend listing only this chart's accelerators;
        with `coloured`, only those keep their colour (the few a chart leads with) and every other is grey."""
        shown = sorted(frame[field].drop_nulls().unique().to_list())
        if coloured is None:
            return alt.Color(f"{field}:N", title="accelerator", scale=self.scale(),
                             legend=alt.Legend(values=shown) if legend else None)
        domain = sorted(coloured) + [OTHER_PARTS]
        return alt.Color(f"{SHADE}:N", title="accelerator", scale=alt.Scale(
            domain=domain, range=[self.colour_of(a) if a in self.domain else GREY for a in domain[:-1]] + [GREY]),
            legend=alt.Legend(values=domain) if legend else None)


def contrast_on_white(colour: str) -> float:
    """WCAG 2's contrast ratio of a #rrggbb colour against white: 1 (white) to 21 (black)."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    luminance = 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    return 1.05 / (luminance + 0.05)


def readable_on_white(colour: str) -> str:
    """`colour` mixed toward black, in steps of 5 %, until text in it reaches TEXT_CONTRAST on white; the
    hue stays, so a label still matches its line."""
    mixed, step = colour, 0
    while contrast_on_white(mixed) < TEXT_CONTRAST:
        step += 1
        mixed = "#" + "".join(f"{round(int(colour[i:i + 2], 16) * (1 - 0.05 * step)):02x}" for i in (1, 3, 5))
    return mixed


def shade(coloured: list[str], field: str = "accelerator") -> dict:
    """The calculated field `encoding(..., coloured=...)` colours by: the accelerator when it is one
    of `coloured`, else OTHER_PARTS (`chart.transform_calculate(**shade(...))`)."""
    return {SHADE: f"indexof({json.dumps(sorted(coloured))}, datum['{field}']) >= 0 ? datum['{field}'] : "
                   f"'{OTHER_PARTS}'"}


def leading(frame: pl.DataFrame, panel: list[str], value: str, field: str = "accelerator",
            most: int = COLOURED) -> list[str]:
    """The accelerators a chart colours (at most `most`, so no panel has more): those that rank
    highest by `value` in any of its panels (the columns `panel`), the more panels the better."""
    if frame.is_empty():
        return []
    ranked = (frame.drop_nulls([field, value]).group_by(*panel, field).agg(pl.col(value).max())
              .with_columns(pl.col(value).rank("ordinal", descending=True).over(panel).alias("place")))
    scored = (ranked.group_by(field).agg(pl.col("place").min().alias("best"), pl.len().alias("panels"))
              .sort(["best", "panels", field], descending=[False, True, False]))
    return scored[field].head(most).to_list()


def gain_scale(values: pl.Series) -> alt.Scale:
    """Diverging on a log scale, centred on 1.0 and symmetric (0.5x as strong as 2x), so a
    regression is red and never reads as 'no change'."""
    return alt.Scale(type="log", scheme=GAIN_SCHEME, domain=list(gain_domain(values)), domainMid=1)


def gain_domain(values: pl.Series) -> tuple[float, float]:
    reach = max(abs(math.log(v)) for v in values.drop_nulls().to_list() if v > 0) or math.log(2)
    reach = max(reach, math.log(1.25))
    return math.exp(-reach), math.exp(reach)


def text_colour_on_gain(values: pl.Series):
    """White text on the dark ends of the gain scale, dark text on its pale middle."""
    _, high = gain_domain(values)
    dark_from = math.exp(0.8 * math.log(high))  # from where white reads better than dark (WCAG contrast >= 3)
    return alt.condition(f"datum.gain >= {dark_from} || datum.gain <= {1 / dark_from}",
                         alt.value("white"), alt.value("#222222"))


# --- the runtime ---------------------------------------------------------------------------------

@cache
def vega_runtime() -> str:
    """vega, vega-lite and vega-embed (with vega-tooltip) as one script, bundled offline by vl-convert
    (vega_bundle). Bundling takes about 2 s and gives the same script for the same vl-convert and
    Vega-Lite, so the script is kept in the user's cache directory under those two versions and read
    back next time."""
    return cached_vega_runtime() or _kept(vega_bundle.bundle(vega_lite_version()))


def cached_vega_runtime() -> str | None:
    """The runtime kept by an earlier report on this machine, or None."""
    try:
        return checked_runtime(runtime_cache_path().read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def runtime_cache_path() -> Path:
    with needs_extra("report", "the report's interactive charts"):
        import vl_convert as vlc
    return vega_bundle.cache_dir() / vega_bundle.cache_name(vlc.__version__, vega_lite_version())


def checked_runtime(bundle: str) -> str:
    if "</script" in bundle.lower() or "window.vegaEmbed=" not in bundle:
        raise ValueError("the Vega bundle contains '</script' or no vegaEmbed and cannot be inlined in a <script> element")
    return bundle


def _kept(bundle: str) -> str:
    """The bundle, checked, kept in the cache for the next report; a cache that cannot be written
    costs the next report its 2 s, nothing else."""
    checked_runtime(bundle)
    try:
        vega_bundle.write_whole(runtime_cache_path(), bundle)
    except OSError:
        pass
    return bundle


class RuntimeInBackground:
    """The Vega runtime (vega_runtime) for a page: read from the cache, or bundled by a process of its
    own (vega_bundle.Bundling: the one `mlperf-wh report` started early, else one started now) while
    the page's queries and charts are made. When that process fails, the runtime is bundled here, and
    a failure of that is the one raised."""

    def __init__(self) -> None:
        early = vega_bundle.take_early()
        self._runtime = cached_vega_runtime()
        if self._runtime is not None and early is not None:
            early.close()
            early = None
        self._bundling = early or (None if self._runtime else vega_bundle.Bundling(vega_lite_version()))

    def result(self) -> str:
        if self._runtime is None:
            bundled = self._bundling.result(vega_lite_version())
            self._runtime = _kept(bundled) if bundled else vega_runtime()
        return self._runtime

    def close(self) -> None:
        if self._bundling is not None:
            self._bundling.close()


def spec_json(spec: dict) -> str:
    """The spec as JSON inert inside <script type="application/json">: every `<`, `>` and `&` written
    as JSON's own escape (`<!--<script>` in a label would otherwise open a comment the HTML parser
    reads past the element's end), every other character beyond ASCII too."""
    return json.dumps(spec, default=str).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def inert_text(text: str) -> str:
    """Control, bidi and noncharacter code points as visible `\\uXXXX` (cells.py's class): what the
    SVG renderer cannot hold (a raw ESC is no XML) or what would draw reversed."""
    return ESCAPED.sub(lambda found: f"\\u{ord(found.group()):04x}", text)


def inert_spec(value):
    """A chart spec (its inline data included) with every string inert: a label that cannot be drawn
    is drawn escaped, never a crash."""
    if isinstance(value, str):
        return inert_text(value)
    if isinstance(value, dict):
        return {inert_spec(k): inert_spec(v) for k, v in value.items()}
    if isinstance(value, list):
        return [inert_spec(v) for v in value]
    return value


def inert_value(value):
    """Jinja's finalize: text from the warehouse printed inert; markup the page builds (what has
    `__html__`: Jinja's Markup) as it is; a boolean as everything else writes it (true, not True)."""
    if isinstance(value, bool):
        return truth(value)
    return inert_text(value) if isinstance(value, str) and not hasattr(value, "__html__") else value


def words(value) -> list[str]:
    """A ledger table's cell (templates/report.html) as its words, each inert: the page puts each in a
    span that never wraps, so a line breaks at spaces only (not at the hyphen or dot of 'llama2-70b-99'
    or '6.1-0074', nor inside 'generation_speedup')."""
    text = inert_value(value)
    return [] if text is None else str(text).split()
