"""The Vega runtime a report inlines: bundled by a process of its own on a machine's first report
(vl-convert holds Python's lock while it bundles, so only another process overlaps it with the page's
work), kept in the cache, read from it after; a failed bundling process costs time, never the page."""
from __future__ import annotations

import pytest

from warehouse.export import vega_bundle
from warehouse.export.report_interactive import (RuntimeInBackground, cached_vega_runtime, runtime_cache_path,
                                                 vega_lite_version)


@pytest.fixture
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_first_report_bundles_in_another_process_and_keeps_the_runtime(empty_cache):
    assert cached_vega_runtime() is None
    first = RuntimeInBackground()
    try:
        assert first._bundling is not None and first._bundling._process.pid  # a process, started at once
        runtime = first.result()
    finally:
        first.close()
    assert "window.vegaEmbed=" in runtime and "</script" not in runtime.lower()
    assert runtime_cache_path().read_text(encoding="utf-8") == runtime
    again = RuntimeInBackground()
    assert again._bundling is None and again.result() == runtime  # read back, no process


def test_a_bundling_process_that_fails_is_none_and_leaves_nothing(empty_cache):
    failing = vega_bundle.Bundling("0.0")  # no such Vega-Lite version: the process exits with an error
    directory = failing._directory
    assert failing.result("0.0") is None
    assert not directory.exists() and cached_vega_runtime() is None


def test_a_report_that_stops_early_stops_its_bundling_process(empty_cache):
    bundling = vega_bundle.Bundling(vega_lite_version())
    bundling.close()
    assert bundling._process.returncode is not None and not bundling._directory.exists()


def test_mlperf_wh_report_starts_bundling_before_it_loads_the_report(empty_cache, monkeypatch):
    """start_early: only when the cache holds no runtime of this vl-convert; the report takes it over."""
    vega_bundle.start_early()
    early = vega_bundle.take_early()
    assert early is not None and vega_bundle.take_early() is None
    vega_bundle._early.append(early)
    runtime = RuntimeInBackground()
    try:
        assert runtime._bundling is early  # taken over, not a second process
        assert "window.vegaEmbed=" in runtime.result()
    finally:
        runtime.close()
    vega_bundle.start_early()  # now cached: nothing started
    assert vega_bundle.take_early() is None
