"""A webhook on 127.0.0.1 for notification tests and bench/notify_bench.py: answers each POST with the
next of `statuses` (then 200) and keeps every JSON body it accepted (`messages`) and every body it was
sent (`bodies`, raw: an XML target's). A status ("drip", seconds) accepts the message and then sends
its answer a byte every `seconds` (a receiver that holds its caller). No pytest here: the bench imports
it from the run environment."""
from __future__ import annotations

import http.server
import json
import sys
import threading
import time
from contextlib import contextmanager


class Receiver(http.server.ThreadingHTTPServer):
    def __init__(self, statuses=()):
        self.messages: list[dict] = []
        self.statuses = list(statuses)
        self.authorizations: list[str | None] = []
        self.bodies: list[bytes] = []
        self.dropped: list[float] = []   # when a caller closed a dripping answer (time.monotonic())
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                receiver.bodies.append(body)
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                if isinstance(status, tuple) and status[0] == "drip":
                    self._drip(status[1])
                    return
                if status == 200:
                    if self.headers.get("Content-Type", "").startswith("application/json"):
                        receiver.messages.append(json.loads(body))
                    receiver.authorizations.append(self.headers.get("Authorization"))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _drip(self, seconds: float, length: int = 10_000) -> None:
                self.send_response(200)
                self.send_header("Content-Length", str(length))
                self.end_headers()
                try:
                    for _ in range(length):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(seconds)
                except ConnectionError:  # the caller closed the connection
                    receiver.dropped.append(time.monotonic())

            def log_message(self, *args):
                pass
        super().__init__(("127.0.0.1", 0), Handler)
        self.daemon_threads = True

    def handle_error(self, request, client_address):
        """A caller that gave up on a dripping answer is no error of the receiver."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    @property
    def port(self) -> int:
        return self.server_address[1]


@contextmanager
def receiving(statuses=()):
    """A Receiver serving on a thread of its own for the length of the block."""
    server = Receiver(statuses)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
