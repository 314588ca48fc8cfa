"""The `mlperf-wh` console script: the CLI, started with Python's cyclic garbage collector paused
while the command's modules load.

Loading Prefect, polars, DuckDB and Pandera builds a few hundred thousand objects (pydantic model
classes, mostly) that live as long as the process. The collector, which runs every 700 new
objects, walks them again and again while they load: about 0.5 s of CPU in a whole `mlperf-wh
watch` on this machine. So the collector is paused for the loading; when the work starts (a flow
run's start, in flows.local_runs.run_here, once Prefect, polars and DuckDB are in; any other command
as it starts) the objects that exist are frozen out of its way (`gc.freeze`: never examined again)
and it resumes, for the run itself and for long-running `serve` (warehouse/collector.py).
"""
from __future__ import annotations

import sys

from warehouse import collector


def entry() -> None:
    # Pandera imports Hypothesis (data synthesis for property tests) at its first validation whenever
    # it is installed, as in a development environment: 0.2-0.4 s of every run. The CLI never
    # synthesizes data, so for this process Hypothesis is absent (Pandera falls back as it does
    # when Hypothesis is not installed).
    sys.modules.setdefault("hypothesis", None)
    collector.pause()
    from warehouse.cli import entry as run_cli
    run_cli()
