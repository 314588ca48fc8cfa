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


def test_a_bundling_process_that_fails_is_none_and_leaves_nothing(empty_cache):
    failing = vega_bundle.Bundling("0.0")  # no such Vega-Lite version: the process exits with an error
    directory = failing._directory
    assert failing.result("0.0") is None
    assert not directory.exists() and cached_vega_runtime() is None


def test_a_report_that_stops_early_stops_its_bundling_process(empty_cache):
    bundling = vega_bundle.Bundling(vega_lite_version())
    bundling.close()
    assert bundling._process.returncode is not None and not bundling._directory.exists()


def test_a_first_report_bundles_in_a_process_started_early_and_keeps_the_runtime(empty_cache):
    """`mlperf-wh report` starts the process before it loads the report (start_early), only when the
    cache holds no runtime of this vl-convert; the page takes it over, and the runtime is kept: the
    next report reads it back and starts nothing. One bundling (about 2 s) for the whole story."""
    assert cached_vega_runtime() is None
    vega_bundle.start_early()
    early = vega_bundle.take_early()
    assert early is not None and early._process.pid and vega_bundle.take_early() is None
    vega_bundle._early.append(early)
    first = RuntimeInBackground()
    try:
        assert first._bundling is early  # taken over, not a second process
        runtime = first.result()
    finally:
        first.close()
    assert "window.vegaEmbed=" in runtime and "</script" not in runtime.lower()
    assert runtime_cache_path().read_text(encoding="utf-8") == runtime
    again = RuntimeInBackground()
    assert again._bundling is None and again.result() == runtime  # read back, no process
    vega_bundle.start_early()  # cached: nothing started
    assert vega_bundle.take_early() is None
