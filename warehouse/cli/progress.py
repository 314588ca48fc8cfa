"""A step that may take a while (starting Prefect's server, loading rounds, fetching trees, building
the views) shows what it is doing on a terminal: a spinner on stderr with the step and its seconds,
gone when the step ends; a step the package counts (the views an export writes, the tree files
fetched: warehouse/counts.py) shows its count too ("exporting 30 views as xlsx: 12 of 30"). Nothing is
drawn when stderr is not a terminal, nor with -q."""
from __future__ import annotations

import sys
from contextlib import contextmanager

from warehouse.cli.global_options import current


@contextmanager
def step(text: str):
    """The spinner, with any count the package reports during the step after the text: "TEXT: 12 of
    30 views written"."""
    if current().quiet or not sys.stderr.isatty():
        yield
        return
    from rich.console import Console

    from warehouse import counts
    with Console(stderr=True, highlight=False, markup=False).status(text, spinner="dots") as status, \
            counts.listening(lambda done, total, what: status.update(f"{text}: {done:,} of {total:,} {what}")):
        yield
