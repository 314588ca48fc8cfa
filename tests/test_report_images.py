"""The report's PNG and SVG images (issue 43, items 2 and 3): drawn only when asked for or kept up to
date, and drawn again only when what they are drawn from changed: the spec, vl-convert's version or
the PNG's scale. A chart of four rows, drawn by vl-convert for real; a spy counts the drawings."""
from __future__ import annotations

import json

import altair as alt
import polars as pl
import pytest
from PIL import Image

from warehouse.export import report
from warehouse.export.report_charts import Chart

pytestmark = pytest.mark.unit


@pytest.fixture
def drawings(monkeypatch) -> list:
    import vl_convert
    drawn, draw = [], vl_convert.vegalite_to_svg
    monkeypatch.setattr(vl_convert, "vegalite_to_svg", lambda spec: drawn.append(spec) or draw(spec))
    return drawn


def a_chart() -> Chart:
    rows = pl.DataFrame({"accelerator": ["B200", "H200", "MI355X", "B300"], "tokens": [4.0, 2.5, 3.1, 5.2]})
    chart = alt.Chart(rows).mark_bar().encode(x="tokens:Q", y="accelerator:N")
    return Chart("tokens", "Tokens", "four rows", ["v6.0"], chart)


def test_images_are_drawn_only_when_asked_for(tmp_path, drawings):
    specs = report._write_charts([a_chart()], tmp_path / "page" / "charts", tmp_path / "none", images=False)
    assert list(specs) == ["tokens"]  # the page still draws the chart from its spec
    assert drawings == [] and not (tmp_path / "page" / "charts").exists()


def test_an_image_is_drawn_again_only_when_its_spec_renderer_or_scale_changed(tmp_path, drawings, monkeypatch):
    first, again, larger = (tmp_path / name / "charts" for name in ("first", "again", "larger"))
    for directory in (first, again, larger):
        directory.parent.mkdir()
    report._write_charts([a_chart()], first, tmp_path / "none", images=True)
    assert len(drawings) == 1
    report._write_charts([a_chart()], again, first, images=True)
    assert len(drawings) == 1, "the same spec, renderer and scale: copied, not drawn"
    assert (again / "tokens.png").read_bytes() == (first / "tokens.png").read_bytes()
    monkeypatch.setattr(report, "PNG_SCALE", 3.0)
    report._write_charts([a_chart()], larger, again, images=True)
    assert len(drawings) == 2, "another PNG scale is another image"
    # 3.0 / 1.5: twice the pixels, give or take the one a fractional SVG width rounds to
    assert abs(Image.open(larger / "tokens.png").width - 2 * Image.open(first / "tokens.png").width) <= 1
    keys = [json.loads((d / report.IMAGE_HASHES).read_text())["tokens"] for d in (first, again, larger)]
    assert keys[0] == keys[1] != keys[2]


def test_the_image_key_names_what_an_image_is_drawn_from():
    spec = {"mark": "bar"}
    key = report.image_key(spec, "1.9.0", 1.5)
    assert key == report.image_key({"mark": "bar"}, "1.9.0", 1.5)
    assert len({key, report.image_key(spec, "1.9.1", 1.5), report.image_key(spec, "1.9.0", 2.0),
                report.image_key({"mark": "point"}, "1.9.0", 1.5)}) == 4
