"""Python's cyclic garbage collector, paused while a command's modules load and resumed when its work
starts (the `mlperf-wh` entry point pauses it, warehouse/startup.py says why). Ground floor: imports
nothing of the package, so the CLI and the flows can resume it without importing the entry point."""
from __future__ import annotations

import gc
from contextlib import contextmanager

_paused = False


def pause() -> None:
    global _paused
    gc.disable()
    _paused = True


def resume() -> None:
    """Freeze what exists and resume collecting; only after `pause` (not in tests that call
    `warehouse.cli.main`)."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


@contextmanager
def held_off():
    """The collector off for a block that builds many objects and no cycles (a tree pass builds a
    record of ~100 fields for each of thousands of files: the collector walked them again and again,
    0.4 s of a 5.8 s rebuild of the shared old rounds), on again after it, as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
