"""Sending one message to every target, briefly retried, each attempt's outcome recorded in `deliveries`.

A target is an Apprise URL of MLPERF_NOTIFY (Apprise speaks each service's own protocol: a JSON
webhook, Slack, e-mail, Teams...) or the Prefect notification block MLPERF_NOTIFY_BLOCK names, when
a Prefect API is configured. A target that does not accept the message (host down, HTTP 4xx/5xx,
timeout) is tried again MLPERF_NOTIFY_RETRIES times, waiting MLPERF_NOTIFY_BACKOFF seconds doubled
each time, then recorded with Apprise's reason. Nothing here raises: a run's outcome never depends
on a message.

Budgets: every target is sent to in a daemon thread of its own, side by side, and the run stops
waiting for one at its wall-clock budget (MLPERF_NOTIFY_TARGET_BUDGET, retries included) or at the
run's (MLPERF_NOTIFY_RUN_BUDGET, all targets), whichever comes first: Apprise's timeouts bound each
read, not a receiver that drips its answer a byte at a time. Such a target is recorded as timed out
and its connection shut down, which ends its thread's read (a Prefect block's, sent over httpx, is
left to end with the process).

Credentials: a target is recorded and printed as `redact` writes it (scheme, host and path, every
part that may be a token masked), and every secret part of the URL is removed from a reason before
it is kept."""
from __future__ import annotations

import contextvars
import hashlib
import io
import logging
import re
import socket
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Callable, NamedTuple
from urllib.parse import parse_qsl, unquote, urlsplit

import duckdb

from warehouse import interrupt, settings
from warehouse.ingest.source_urls import redact
from warehouse.prefect_settings import api_configured

SENT_BY = "MLPerf warehouse"


@dataclass(frozen=True)
class Message:
    title: str
    body: str
    failure: bool = False   # a failed run: Apprise's 'failure' type (a red message where the service colours them)


# What any target takes whole: Slack cuts a text at 40,000 characters, Teams a card at 28 KB, an
# e-mail gateway may refuse megabytes. A run's message is a summary; the tables hold every row.
TITLE_MAX, BODY_MAX = 250, 12_000
# Characters XML 1.0 cannot hold at all (escaping is not enough): C0 controls but tab and newline,
# lone surrogates, U+FFFE and U+FFFF.
_NOT_IN_XML = re.compile("[\x00-\x08\x0b-\x1f\ud800-\udfff\ufffe\uffff]")


def capped(text: str, limit: int, separator: str = "") -> str:
    """The text cut at `limit` characters, saying how many were cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}{separator}... ({len(text) - limit:,} characters cut)"


def fitted(message: Message) -> Message:
    """The message every target can take: characters a structured body (XML) cannot hold written as
    visible escapes, the title and the body cut at their limits with a count of what was cut."""
    def clean(text: str) -> str:
        return _NOT_IN_XML.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
    return Message(capped(clean(message.title), TITLE_MAX, "\n").replace("\n", " "),
                   capped(clean(message.body), BODY_MAX, "\n"), message.failure)


@dataclass(frozen=True)
class Target:
    label: str                                   # what may be shown and stored: no credentials
    send: Callable[[Message], str | None]        # None when delivered, else why not
    secrets: tuple[str, ...] = ()                # the parts of its URL a reason must never show
    retried: bool = True                         # False: trying again cannot help (a URL Apprise cannot use)
    key: str = ""                                # which target it is, stored (decision_announcements): target_key

    @property
    def identity(self) -> str:
        return self.key or self.label


# A target's key is a slow digest of its whole URL: two targets whose redacted forms read alike (two
# Slack webhooks: slack://REDACTED/REDACTED/REDACTED) stay apart, and the stored key gives nothing
# back of a token or password (a password could be guessed against a fast digest; PBKDF2 makes each
# guess cost what a run's one digest costs).
KEY_SALT, KEY_ROUNDS = b"mlperf-warehouse notification target", 20_000


def target_key(url: str) -> str:
    return "pbkdf2:" + hashlib.pbkdf2_hmac("sha256", url.encode(), KEY_SALT, KEY_ROUNDS).hex()[:32]


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
    segment and query value (Slack's and Discord's tokens are path segments), every part of the
    address but a dotted host and a port (slack://TokenA/..., tgram://BOT:TOKEN/...), long enough
    to matter."""
    parts = urlsplit(url)
    found = [parts.password or "", parts.username or ""]
    found += [unquote(segment) for segment in parts.path.split("/")]
    found += [value for _, value in parse_qsl(parts.query)]
    found += [part for part in re.split(r"[:@]", parts.netloc) if "." not in part and not part.isdigit()]
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
    quiet_senders()  # before the URL is read: Apprise logs it whole ("Loaded JSON URL: ...")
    secrets = url_secrets(url)
    plugin = apprise.Apprise.instantiate(url)
    if plugin is None:
        return Target(redact(url), lambda _message: f"{redact(url)} is not a notification URL Apprise can use "
                      "(its scheme or form is wrong: https://appriseit.com/services/)", secrets, retried=False,
                      key=target_key(url))
    # Apprise's own form of the URL (a Slack webhook's https:// URL is slack://...), with privacy on,
    # then redacted: what Apprise knows to be secret and what looks like a token are both masked.
    label = redact(plugin.url(privacy=True))

    def send(message: Message) -> str | None:
        with apprise_lines() as captured:
            delivered = plugin.notify(body=message.body, title=message.title,
                                      notify_type=apprise.NotifyType.FAILURE if message.failure
                                      else apprise.NotifyType.INFO)
        return None if delivered else apprise_reason(captured.getvalue())
    return Target(label, send, secrets, key=target_key(url))


SENDING_THREAD = "notify "  # the name of each thread that sends to a target starts with it


def quiet_senders() -> None:
    """Apprise's log lines reach no handler but ours, at every level: at DEBUG it logs each URL it
    reads and posts to, tokens and all (Slack's webhook path); so do urllib3 and httpx (a Prefect
    block's) in a sending thread ('"POST /hooks/TOKEN HTTP/1.1" 500'). Set once: targets send side
    by side."""
    logger = logging.getLogger("apprise")
    logger.propagate = False
    logger.setLevel(logging.DEBUG)
    for name in ("urllib3.connectionpool", "httpx"):
        if _not_a_sending_thread not in logging.getLogger(name).filters:
            logging.getLogger(name).addFilter(_not_a_sending_thread)
    _track_sending_sockets()


def _not_a_sending_thread(record: logging.LogRecord) -> bool:
    return not record.threadName.startswith(SENDING_THREAD)


@contextmanager
def apprise_lines():
    """Apprise's log lines of this thread while the block runs (other targets' threads log beside
    it): the reason of a failed send is taken from them, scrubbed."""
    text, handler = io.StringIO(), logging.StreamHandler()
    handler.setStream(text)
    handler.setFormatter(logging.Formatter("%(levelname)s %(message)s"))
    thread = threading.get_ident()
    handler.addFilter(lambda record: record.thread == thread)
    logging.getLogger("apprise").addHandler(handler)
    try:
        yield text
    finally:
        logging.getLogger("apprise").removeHandler(handler)


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
    quiet_senders()

    def send(message: Message) -> str | None:
        from prefect.blocks.core import Block
        try:
            block = Block.load(name)
            with block.raise_on_failure():
                block.notify(message.body, subject=message.title)
        except Exception as exc:  # noqa: BLE001 - a block that cannot be loaded or cannot send is a failed delivery
            return hosts_only(f"{type(exc).__name__}: {exc}".splitlines()[0])
        return None
    return Target(f"block:{name}", send, key=f"block:{name}")


_URL = re.compile(r"\b([A-Za-z][A-Za-z0-9+.-]*://)[^\s'\"<>]+")


def hosts_only(text: str) -> str:
    """Every URL of a text as its scheme and host: a block's webhook URL may carry its token
    (Prefect keeps the block's secrets; a reason in our tables must not)."""
    return _URL.sub(lambda m: f"{m.group(1)}{urlsplit(m.group(0)).hostname or ''}/...", text)


_sending_here = threading.local()   # .sending: the Sending whose thread this is


def _track_sending_sockets() -> None:
    """Every socket urllib3 (Apprise's requests) opens in a sending thread is kept by its Sending,
    which shuts it down at its deadline: the thread's read ends, and a receiver cannot keep it
    reading (a drip, or gigabytes of answer) for as long as the process lives. Wrapped once."""
    from urllib3.util import connection
    if getattr(connection.create_connection, "tracked", False):
        return
    create = connection.create_connection

    def create_tracked(*args, **kwargs):
        sock = create(*args, **kwargs)
        if (sending := getattr(_sending_here, "sending", None)) is not None:
            sending.opened(sock)
        return sock
    create_tracked.tracked = True
    connection.create_connection = create_tracked


class Budget(NamedTuple):
    deadline: float     # time.monotonic()
    seconds: float
    variable: str       # the setting that gives it


class Sending:
    """One target's delivery, retries included, in a daemon thread of its own until its budget's
    deadline."""

    def __init__(self, target: Target, message: Message, budget: Budget) -> None:
        self.target, self.budget, self.deadline = target, budget, budget.deadline
        self.attempts, self.delivery = 0, None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        # In this thread's context: a Prefect block is loaded with the settings of the run's context.
        self._thread = threading.Thread(target=contextvars.copy_context().run, args=(self._send, message),
                                        name=f"{SENDING_THREAD}{target.label}", daemon=True)
        self._thread.start()

    def opened(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            if time.monotonic() >= self.deadline:
                self._cut_off()

    def _cut_off(self) -> None:
        for sock in self._sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:  # closed already
                pass

    def _send(self, message: Message) -> None:
        _sending_here.sending = self
        attempts = settings.current().notify_retries + 1 if self.target.retried else 1
        backoff, reason = settings.current().notify_backoff, None
        while self.attempts < attempts and time.monotonic() < self.deadline:
            self.attempts += 1
            try:
                reason = self.target.send(message)
            except Exception as exc:  # noqa: BLE001 - any failure of a notifier is a reason, never the run's
                reason = f"{type(exc).__name__}: {exc}"
            if reason is None:
                self.delivery = Delivery(self.target.label, True, self.attempts, None)
                return
            if self.attempts < attempts:
                time.sleep(max(0.0, min(backoff * 2 ** (self.attempts - 1), self.deadline - time.monotonic())))
        self.delivery = Delivery(self.target.label, False, self.attempts, scrub(reason or "", self.target.secrets))

    def wait(self) -> Delivery:
        """Its delivery, or `timed out` once its deadline has passed (the thread is left to end)."""
        self._thread.join(max(0.0, self.deadline - time.monotonic()))
        if self.delivery is not None:
            return self.delivery
        with self._lock:
            self._cut_off()
        return Delivery(self.target.label, False, self.attempts,
                        f"timed out: no answer within {self.budget.seconds:g} s ({self.budget.variable}; "
                        "the connection was closed)")

    @property
    def delivered(self) -> bool:
        return self.delivery is not None and self.delivery.delivered


def deliver(message: Message, targets: list[Target]) -> list[Delivery]:
    """Every target at once, each within its budget and all within the run's; in the targets' order.
    A signal while waiting is noted (interrupt.cut_short_notification) and goes on unwinding the run."""
    return deliver_each([(message, target) for target in targets])


def deliver_each(sends: list[tuple[Message, Target]]) -> list[Delivery]:
    """deliver, each target its own message (what it has not been told yet), all at once, within
    the same budgets."""
    current = settings.current()
    now = time.monotonic()
    budget = min(Budget(now + current.notify_target_budget, current.notify_target_budget, "MLPERF_NOTIFY_TARGET_BUDGET"),
                 Budget(now + current.notify_run_budget, current.notify_run_budget, "MLPERF_NOTIFY_RUN_BUDGET"))
    sendings = [Sending(target, fitted(message), budget) for message, target in sends]
    try:
        return [sending.wait() for sending in sendings]
    except BaseException:
        interrupt.notification_cut_short(sum(s.delivered for s in sendings), len(sendings))
        raise


def record(con: duckdb.DuckDBPyConnection, message: Message, deliveries: list[Delivery], run_kind: str,
           flow_run_id: str | None, attempted_at: datetime | None = None) -> None:
    attempted_at = attempted_at or datetime.now(timezone.utc)
    if deliveries:
        con.executemany(
            "INSERT INTO deliveries (attempted_at, flow_run_id, run_kind, target, title, delivered, attempts, reason) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [[attempted_at, flow_run_id, run_kind, d.target, message.title, d.delivered, d.attempts, d.reason]
             for d in deliveries])
    redact_earlier_targets(con)


def redact_earlier_targets(con: duckdb.DuckDBPyConnection) -> None:
    """Rows an earlier version wrote hold Apprise's privacy form of a target, which masks a password
    but not a token in a webhook's path (json://host/hooks/TOKEN): redacted in place, each once."""
    earlier = [target for (target,) in con.execute("SELECT DISTINCT target FROM deliveries").fetchall()
               if not target.startswith("block:") and redact(target) != target]
    for target in earlier:
        con.execute("UPDATE deliveries SET target = ? WHERE target = ?", [redact(target), target])
