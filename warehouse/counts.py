"""Progress counts of a long step (the views an export has written, the tree files fetched so far),
for whoever shows them: a command listens while it runs (warehouse/cli/progress.py draws them on a
terminal's stderr); when nobody listens a count costs a call. Ground floor: imports nothing of the
package, so every layer may count."""
from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

Listener = Callable[[int, int, str], None]  # (done, total, of what: "views written")
_listener: Listener | None = None
_lock = threading.Lock()


@contextmanager
def listening(listener: Listener) -> Iterator[None]:
    """`listener(done, total, what)` hears every count made until the block ends."""
    global _listener
    previous, _listener = _listener, listener
    try:
        yield
    finally:
        _listener = previous


def counted(done: int, total: int, what: str) -> None:
    """`done` of `total` `what` ("files fetched") of the step running now (from any thread)."""
    listener = _listener
    if listener is not None:
        with _lock:
            listener(done, total, what)


class Tally:
    """Counts one at a time, from any thread, telling the listener each time."""

    def __init__(self, total: int, what: str):
        self.total, self.what, self.done = total, what, 0
        self._lock = threading.Lock()

    def one_more(self) -> None:
        with self._lock:
            self.done += 1
            done = self.done
        counted(done, self.total, self.what)
