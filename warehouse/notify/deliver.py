"""Sending one message to every target, briefly retried, each attempt's outcome recorded in `deliveries`.

A target is an Apprise URL of MLPERF_NOTIFY (Apprise speaks each service's own protocol: a JSON
webhook, Slack, e-mail, Teams...) or the Prefect notification block MLPERF_NOTIFY_BLOCK names, when
a Prefect API is configured. A target that does not accept the message (host down, HTTP 4xx/5xx,
timeout: Apprise's own connect and read timeouts, 4 s each unless the URL says `cto=`/`rto=`) is
tried again MLPERF_NOTIFY_RETRIES times, waiting MLPERF_NOTIFY_BACKOFF seconds doubled each time,
then recorded with Apprise's reason. Nothing here raises: a run's outcome never depends on a message.

Credentials: a target is recorded and printed as Apprise writes its URL with privacy on (every
password and token masked), and every secret part of the URL is removed from a reason before it is
kept."""
from __future__ import annotations

import logging
import re
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable
from urllib.parse import parse_qsl, unquote, urlsplit

import duckdb

from warehouse import settings
from warehouse.prefect_settings import api_configured

SENT_BY = "MLPerf warehouse"


@dataclass(frozen=True)
class Message:
    title: str
    body: str
    failure: bool = False   # a failed run: Apprise's 'failure' type (a red message where the service colours them)


@dataclass(frozen=True)
class Target:
    label: str                                   # what may be shown and stored: no credentials
    send: Callable[[Message], str | None]        # None when delivered, else why not
    secrets: tuple[str, ...] = ()                # the parts of its URL a reason must never show
    retried: bool = True                         # False: trying again cannot help (a URL Apprise cannot use)


@dataclass(frozen=True)
class Delivery:
    target: str
    delivered: bool
    attempts: int
    reason: str | None


def configured_targets() -> list[Target]:
    """Every target of MLPERF_NOTIFY, then MLPERF_NOTIFY_BLOCK's block (with a Prefect API)."""
    current = settings.current()
    targets = [_apprise_targets.get(url) for url in current.notify]
    if current.notify_block and api_configured():
        targets.append(block_target(current.notify_block))
    return targets


def url_secrets(url: str) -> tuple[str, ...]:
    """The parts of a notification URL that may be credentials: the user's password, every path
    segment and query value (Slack's and Discord's tokens are path segments), long enough to matter."""
    parts = urlsplit(url)
    found = [parts.password or "", parts.username or ""]
    found += [unquote(segment) for segment in parts.path.split("/")]
    found += [value for _, value in parse_qsl(parts.query)]
    if "@" in parts.netloc:
        found.append(parts.netloc.rsplit("@", 1)[0])
    return tuple(sorted({s for s in found if len(s) >= 4}, key=len, reverse=True))


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    for secret in secrets:
        text = text.replace(secret, "****")
    return text


class _AppriseTargets:
    """apprise_target of each URL, made once per process: the first one imports Apprise and every
    one of its plugins (0.3-0.4 s), which `warm_up` starts beside the run that will notify."""

    def __init__(self) -> None:
        self._made: dict[str, Target] = {}
        self._lock = threading.Lock()

    def get(self, url: str) -> Target:
        with self._lock:
            if url not in self._made:
                self._made[url] = apprise_target(url)
            return self._made[url]

    def warm_up(self) -> None:
        """Make the configured targets in a thread of their own, while the run loads; a failure
        here is met again, and reported, when the run notifies."""
        def make() -> None:
            try:
                for url in settings.current().notify:
                    self.get(url)
            except Exception:  # noqa: BLE001 - see the docstring
                pass
        if settings.current().notify:
            threading.Thread(target=make, name="notify-warm-up", daemon=True).start()


_apprise_targets = _AppriseTargets()
warm_up = _apprise_targets.warm_up


def apprise_target(url: str) -> Target:
    import apprise
    secrets = url_secrets(url)
    plugin = apprise.Apprise.instantiate(url)
    if plugin is None:
        scheme = url.split("://", 1)[0]
        return Target(f"{scheme}://(hidden)", lambda _message: f"{scheme}:// is not a notification URL Apprise "
                      "can use (its scheme or form is wrong: https://appriseit.com/services/)", secrets, retried=False)
    password = urlsplit(url).password
    # Apprise masks it already; its query (method, retry, overflow...) is its defaults' noise
    label = scrub(plugin.url(privacy=True).split("?", 1)[0], (unquote(password),) if password else ())

    def send(message: Message) -> str | None:
        with apprise.LogCapture(level=logging.DEBUG, fmt="%(levelname)s %(message)s") as captured, kept_here():
            delivered = plugin.notify(body=message.body, title=message.title,
                                      notify_type=apprise.NotifyType.FAILURE if message.failure
                                      else apprise.NotifyType.INFO)
        return None if delivered else apprise_reason(captured.getvalue())
    return Target(label, send, secrets)


@contextmanager
def kept_here():
    """Apprise's log lines reach no other handler while it sends: at DEBUG a plugin may log the URL
    it posts to, tokens and all (Slack's webhook path). The reason is taken from them, scrubbed."""
    logger = logging.getLogger("apprise")
    propagate, logger.propagate = logger.propagate, False
    try:
        yield
    finally:
        logger.propagate = propagate


_CAUSE = re.compile(r"\[Errno -?\d+\][^'\")]*|Read timed out|Connect(ion)? timed out|timed out|"
                    r"Name or service not known|certificate verify failed")


def apprise_reason(log_text: str) -> str:
    """Apprise's warnings about a failed send, and the network's own cause when it logged one
    ('[Errno 111] Connection refused', 'Read timed out'): one line."""
    lines = [line.strip() for line in log_text.splitlines() if line.strip()]
    said = " ".join(line.split(" ", 1)[1] for line in lines if line.startswith(("WARNING ", "ERROR ")))
    cause = next((m.group(0).strip() for line in lines if "Exception" in line and (m := _CAUSE.search(line))), None)
    reason = " ".join(part for part in (said, f"({cause})" if cause else "") if part)
    return reason or "the target did not accept the message"


def block_target(name: str) -> Target:
    """A Prefect notification block (TYPE/NAME, or NAME of any type) from the configured API."""
    def send(message: Message) -> str | None:
        from prefect.blocks.core import Block
        try:
            block = Block.load(name)
            with block.raise_on_failure():
                block.notify(message.body, subject=message.title)
        except Exception as exc:  # noqa: BLE001 - a block that cannot be loaded or cannot send is a failed delivery
            return hosts_only(f"{type(exc).__name__}: {exc}".splitlines()[0])
        return None
    return Target(f"block:{name}", send)


_URL = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^\s'\"<>]+")


def hosts_only(text: str) -> str:
    """Every URL of a text as its scheme and host: a block's webhook URL may carry its token
    (Prefect keeps the block's secrets; a reason in our tables must not)."""
    return _URL.sub(lambda m: f"{m.group(1)}{urlsplit(m.group(0)).hostname or ''}/...", text)


def send_with_retries(target: Target, message: Message) -> Delivery:
    current = settings.current()
    reason, attempts = None, current.notify_retries + 1 if target.retried else 1
    for attempt in range(1, attempts + 1):
        try:
            reason = target.send(message)
        except Exception as exc:  # noqa: BLE001 - any failure of a notifier is a reason, never the run's
            reason = f"{type(exc).__name__}: {exc}"
        if reason is None:
            return Delivery(target.label, True, attempt, None)
        if attempt < attempts:
            time.sleep(current.notify_backoff * 2 ** (attempt - 1))
    return Delivery(target.label, False, attempts, scrub(reason, target.secrets))


def deliver(message: Message, targets: list[Target]) -> list[Delivery]:
    return [send_with_retries(target, message) for target in targets]


def record(con: duckdb.DuckDBPyConnection, message: Message, deliveries: list[Delivery], run_kind: str,
           flow_run_id: str | None, attempted_at: datetime | None = None) -> None:
    attempted_at = attempted_at or datetime.now(timezone.utc)
    if deliveries:
        con.executemany(
            "INSERT INTO deliveries (attempted_at, flow_run_id, run_kind, target, title, delivered, attempts, reason) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [[attempted_at, flow_run_id, run_kind, d.target, message.title, d.delivered, d.attempts, d.reason]
             for d in deliveries])
