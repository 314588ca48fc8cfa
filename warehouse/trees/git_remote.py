"""A git URL as data, never as an option: what `trees --git` accepts (https://, http://, ssh://,
user@host:path or file://, checked before git runs), the URL git is given and a clone's
remote.origin.url keeps (no credentials), and the credentials, which reach git only through its
environment (trees/cloning.py).

A URL from anywhere (the flag, a clone's remembered origin, a flow parameter) passes `parse_git_url`
first: a leading '-' (git would read an option), a transport helper (`ext::sh -c ...` runs a command),
a space or control character, a host or path beginning with '-' are refused in one line that does
not repeat what it refuses (it may be a token)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit, urlunsplit

from warehouse.errors import UsageError
from warehouse.ingest.source_urls import redact
from warehouse.settings import current, variable

ACCEPTED = "https://, http://, ssh://, user@host:path or file:///path"
SCHEMES = ("https", "http", "ssh", "file")
# What git may speak at all (GIT_ALLOW_PROTOCOL): ext::, fd:: and every other transport are refused by git too.
ALLOWED_PROTOCOLS = "https:http:ssh:file"
USERNAME_ENV, TOKEN_ENV = variable("git_username"), variable("git_token")

_SCP_LIKE = re.compile(r"^(?P<user>[A-Za-z0-9._-]+)@(?P<host>[A-Za-z0-9][A-Za-z0-9.-]*):(?P<path>[^:].*)$")
_HOST = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*)$")
_TRANSPORT_HELPER = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*::")


class GitUrlRefused(UsageError):
    """A git URL that is not one of the accepted forms."""


@dataclass(frozen=True)
class GitRemote:
    """A checked git URL: `url` is what git is given and what is stored and shown (no password, no
    token; an ssh:// or user@host: login name stays, it is not a secret); the credentials from the
    URL's user:token@, held apart."""
    url: str
    username: str | None = field(default=None, repr=False)
    token: str | None = field(default=None, repr=False)

    def joined(self, name: str) -> "GitRemote":
        """The repository `name` below this base URL, with the same credentials."""
        return GitRemote(f"{self.url.rstrip('/')}/{name}", self.username, self.token)

    def credential_scope(self) -> str | None:
        """The scheme://host[:port] git's credential helper answers for (http(s) only): a redirect
        to another host gets no credentials."""
        parts = urlsplit(self.url)
        return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else None

    def with_environment_credentials(self) -> "GitRemote":
        """Credentials from MLPERF_GIT_USERNAME / MLPERF_GIT_TOKEN when the URL brought none (how an
        unattended run or a deployment is given them)."""
        settings = current()
        if self.token or not settings.git_token:
            return self
        return GitRemote(self.url, settings.git_username or "git", settings.git_token)


def parse_git_url(text: str, what: str = "--git") -> GitRemote:
    """`text` as a GitRemote, or GitUrlRefused naming `what` (where the URL came from) and why."""
    if problem := _refusal(text):
        raise GitUrlRefused(f"{what}: not a git URL git may be given ({problem}; use {ACCEPTED})")
    if "://" not in text:
        return GitRemote(text)  # user@host:path, checked by _refusal
    parts = urlsplit(text)
    scheme = parts.scheme.lower()
    if scheme in ("http", "https"):  # the query and fragment were refused: redact takes user:token@ out
        return GitRemote(redact(urlunsplit((scheme, parts.netloc, parts.path, "", ""))),
                         unquote(parts.username) if parts.username else None,
                         unquote(parts.password) if parts.password else None)
    return GitRemote(urlunsplit((scheme, parts.netloc, parts.path, "", "")))


def _refusal(text: str) -> str | None:
    """Why `text` is refused, in words that do not repeat it; None when it is accepted."""
    if not text:
        return "it is empty"
    if text.startswith("-"):
        return "it begins with '-', which git reads as an option"
    if _TRANSPORT_HELPER.match(text):
        return "a transport helper (SCHEME::), which makes git run a program"
    if re.search(r"[\s\x00-\x1f\x7f]", text):
        return "it holds a space or a control character"
    if "://" not in text:
        return None if _scp_like_accepted(text) else "no scheme://, and not user@host:path"
    return _url_refusal(text)


def _scp_like_accepted(text: str) -> bool:
    found = _SCP_LIKE.match(text)
    return bool(found) and not found["path"].startswith("-")


def _url_refusal(text: str) -> str | None:
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError on a port that is not a number
    except ValueError:
        return "it does not parse as a URL"
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        return f"scheme {scheme!r} is not one git is allowed here" if re.fullmatch(r"[a-z0-9+.-]{1,20}", scheme) \
            else "its scheme is not one git is allowed here"
    if parts.query or parts.fragment:
        return f"a git URL takes no ?query or #fragment: give a token in {TOKEN_ENV} or as user:token@"
    if any(segment.startswith("-") for segment in unquote(parts.path).split("/")):
        return "a part of its path begins with '-'"
    if scheme == "file":
        if parts.netloc not in ("", "localhost") or not parts.path.strip("/"):
            return "a file:// URL names a local path: file:///path/to/repositories"
        return None
    host = parts.netloc.rpartition("@")[2].rsplit(":", 1)[0] if not parts.netloc.endswith("]") \
        else parts.netloc.rpartition("@")[2]
    if not _HOST.match(host or ""):
        return "no host, or a host that is not a name or an address"
    if scheme == "ssh" and parts.password:
        return "an ssh:// URL takes no password (ssh authenticates with its keys)"
    return None
