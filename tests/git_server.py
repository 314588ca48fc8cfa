"""A real git server over smart HTTP on 127.0.0.1 for the clone tests: `git http-backend` run as a CGI
program behind a small threading HTTP server that requires basic authentication (one user and token)
and can stall its answers (a slow server to stop a clone in the middle of)."""
from __future__ import annotations

import base64
import http.server
import shutil
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from tests.loopback import serving

USER, TOKEN = "alice", "gh-t0k3n-s3cr3t-9931"


def commit_round(work: Path, files: dict[str, bytes], bare: Path) -> Path:
    """A bare repository at `bare` holding `files` (path -> bytes) in one commit on main, filtering
    allowed (partial clones)."""
    for path, data in files.items():
        (work / path).parent.mkdir(parents=True, exist_ok=True)
        (work / path).write_bytes(data)
    run_git("init", "-q", "-b", "main", cwd=work)
    run_git("add", "-A", cwd=work)
    run_git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "round", cwd=work)
    run_git("clone", "-q", "--bare", "--", str(work), str(bare))
    run_git("config", "uploadpack.allowFilter", "true", cwd=bare)
    return bare


def run_git(*args: str, cwd: Path | None = None) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


class GitHandler(http.server.BaseHTTPRequestHandler):
    root: Path
    credentials: str | None = None      # "user:token" the server requires, or None
    stall: float = 0.0                   # seconds every request waits before it is answered
    requests_seen: list[str]

    def log_message(self, *args):
        pass

    def do_GET(self):
        self._backend()

    def do_POST(self):
        self._backend()

    def _backend(self) -> None:
        type(self).requests_seen.append(f"{self.command} {self.path}")
        if self.stall:
            time.sleep(self.stall)
        if self.credentials and self.headers.get("Authorization") != "Basic " + base64.b64encode(
                self.credentials.encode()).decode():
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        parts = urlsplit(self.path)
        env = {"PATH": "/usr/bin:/bin", "GIT_PROJECT_ROOT": str(self.root), "GIT_HTTP_EXPORT_ALL": "1",
               "REQUEST_METHOD": self.command, "PATH_INFO": parts.path, "QUERY_STRING": parts.query,
               "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
               "REMOTE_ADDR": "127.0.0.1", "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
        done = subprocess.run([shutil.which("git"), "http-backend"], input=body, capture_output=True, env=env)
        head, _, payload = done.stdout.partition(b"\r\n\r\n")
        status = 200
        headers = []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@contextmanager
def git_http_server(root: Path, credentials: str | None = f"{USER}:{TOKEN}", stall: float = 0.0):
    """Serve the bare repositories under `root`; yields the server (`.url`, `.handler.requests_seen`)."""
    handler = type("Handler", (GitHandler,), {"root": root, "credentials": credentials, "stall": stall,
                                               "requests_seen": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.handle_error = lambda request, address: None  # a client killed mid-answer is expected here
    with serving(server, handler):
        yield server
