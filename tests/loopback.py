"""An HTTP server on 127.0.0.1 in a thread of the test process, for the fixtures that serve files
(conftest.serve) and git repositories (git_server.git_http_server)."""
from __future__ import annotations

import http.server
import threading
from contextlib import contextmanager


@contextmanager
def serving(server: http.server.ThreadingHTTPServer, handler: type):
    """Run `server` until the block ends; it carries `.handler` and `.url`."""
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        server.handler = handler
        server.url = f"http://127.0.0.1:{server.server_address[1]}"
        yield server
    finally:
        server.shutdown()
        server.server_close()
