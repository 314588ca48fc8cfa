"""How long `trees --git` lets git wait on the network: a connect bound and a low-speed bound for each
transport git speaks, and one deadline for a run's git work, each a setting (warehouse/settings.py).

- http(s): git (libcurl) waits up to 300 s for a connection, per request, and has no connect
  setting of its own; so the server (or the proxy git will use for it) is connected to first, within
  MLPERF_GIT_CONNECT_TIMEOUT. A transfer below MLPERF_GIT_LOW_SPEED_LIMIT bytes/s for
  MLPERF_GIT_LOW_SPEED_TIME seconds fails (a server that takes the connection and never answers):
  GIT_HTTP_LOW_SPEED_LIMIT/TIME, which win over any git configuration of the user's.
- ssh: GIT_SSH_COMMAND is ssh with ConnectTimeout (the connection, the server's banner and the key
  exchange), keep-alives that drop a server silent for the low-speed time, and BatchMode (never a
  prompt). A shell runs it, so only the run's own numbers go into it; a GIT_SSH_COMMAND, GIT_SSH or
  core.sshCommand of the user's is not what runs (GIT_SSH_COMMAND wins over both). The user's
  ~/.ssh/config (keys, a jump host) still applies; these options win over it.
- every transport: the git commands of one run share MLPERF_GIT_DEADLINE; cloning.py kills git's
  process group when it is over."""
from __future__ import annotations

import math
import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit
from urllib.request import getproxies_environment, proxy_bypass_environment

from warehouse.settings import current

KEEPALIVES = 3                            # ssh's ServerAliveCountMax: unanswered keep-alives before it gives up
DEFAULT_PORTS = {"http": 80, "https": 443}
PROXY_PORT = 1080                         # libcurl's port for a proxy named without one


@dataclass(frozen=True)
class NetworkBudget:
    """The run's bounds on git's network waits (settings), and when its git work must be over."""
    connect: int
    low_speed_limit: int
    low_speed_time: int
    deadline: float
    ends: float  # time.monotonic() at the deadline

    @classmethod
    def from_settings(cls) -> "NetworkBudget":
        settings = current()
        return cls(settings.git_connect_timeout, settings.git_low_speed_limit, settings.git_low_speed_time,
                   settings.git_deadline, time.monotonic() + settings.git_deadline)

    def left(self) -> float:
        return self.ends - time.monotonic()

    def environment(self) -> dict[str, str]:
        """git's environment for these bounds (numbers alone: a shell runs GIT_SSH_COMMAND)."""
        alive = max(1, math.ceil(int(self.low_speed_time) / KEEPALIVES))
        ssh = (f"ssh -o BatchMode=yes -o ConnectTimeout={int(self.connect)} -o ServerAliveInterval={alive} "
               f"-o ServerAliveCountMax={KEEPALIVES}")
        return {"GIT_HTTP_LOW_SPEED_LIMIT": str(int(self.low_speed_limit)),
                "GIT_HTTP_LOW_SPEED_TIME": str(int(self.low_speed_time)), "GIT_SSH_COMMAND": ssh}


def first_hop(url: str, git_proxy: str | None) -> tuple[str, int] | None:
    """The host and port git connects to first for an http(s) URL: the proxy of the user's git
    configuration (`git_proxy`) or environment when one applies, else the URL's own; None for any
    other transport (ssh bounds its own connection)."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    proxies = getproxies_environment()
    proxy = git_proxy or (None if proxy_bypass_environment(parts.hostname) else proxies.get(scheme) or proxies.get("all"))
    if proxy:
        hop = urlsplit(proxy if "://" in proxy else f"http://{proxy}")
        return (hop.hostname, hop.port or PROXY_PORT) if hop.hostname else None
    return parts.hostname, parts.port or DEFAULT_PORTS[scheme]


def connects_within(hop: tuple[str, int], seconds: float) -> bool:
    """False when `hop` neither takes nor refuses a connection within `seconds`, its name's lookup
    included (a refusal, or a name that does not resolve, is git's to say, in its words)."""
    ended: list[BaseException | None] = []

    def attempt() -> None:
        try:
            socket.create_connection(hop, timeout=seconds).close()
            ended.append(None)
        except OSError as exc:
            ended.append(exc)
    trying = threading.Thread(target=attempt, name="git-connect-check", daemon=True)
    trying.start()
    trying.join(seconds)
    return bool(ended) and not isinstance(ended[0], TimeoutError)
