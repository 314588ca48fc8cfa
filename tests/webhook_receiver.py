"""A webhook on 127.0.0.1 for notification tests and bench/notify_bench.py: answers each POST with the
next of `statuses` (then 200) and keeps every JSON body it accepted. No pytest here: the bench imports it
from the run environment."""
from __future__ import annotations

import http.server
import json
import threading
from contextlib import contextmanager


class Receiver(http.server.ThreadingHTTPServer):
    def __init__(self, statuses=()):
        self.messages: list[dict] = []
        self.statuses = list(statuses)
        self.authorizations: list[str | None] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                if status == 200:
                    receiver.messages.append(json.loads(body))
                    receiver.authorizations.append(self.headers.get("Authorization"))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass
        super().__init__(("127.0.0.1", 0), Handler)
        self.daemon_threads = True

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
