"""Source locations: what is stored (no credentials), where a redirect may lead, local paths."""
from __future__ import annotations

import errno
import os
import re
from pathlib import Path
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from warehouse.errors import SourceMissing, UsageError
from warehouse.settings import url_problem

# Query parameters that carry a secret (signed URLs, tokens); their values are never stored.
_SECRET_PARAMETER = re.compile(r"(token|key|secret|signature|sig|password|passwd|auth|credential)",
                               re.IGNORECASE)


def redact(url: str) -> str:
    """The URL without user:password@ and without the values of secret-looking query parameters.
    A notification target's URL (any scheme a source or a clone does not use) is kept to its scheme,
    host and path, each part that may be a token masked: `redact_target`."""
    if "://" not in url:
        return url
    if url.split("://", 1)[0].lower() not in SOURCE_SCHEMES:
        return redact_target(url)
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if ":" in netloc:  # an IPv6 address keeps its brackets
        netloc = f"[{netloc}]"
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    query = urlencode([(k, "REDACTED" if _SECRET_PARAMETER.search(k) else v)
                       for k, v in parse_qsl(parts.query, keep_blank_values=True)], safe="/")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


# The schemes a source or a clone is read from; any other is a notification target's (Apprise:
# json://, slack://, mailto://...), where a host or a path segment may itself be a token.
SOURCE_SCHEMES = ("http", "https", "file", "ssh", "git")
MASK = "REDACTED"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,15}")
_HOSTNAME = re.compile(r"(?:[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?|\[[0-9a-f:.]+\]",
                       re.IGNORECASE)
_TOKEN_PREFIX = re.compile(r"(xox[a-z]|xapp|gh[pousr]_|github_pat_|glpat|sk)[-_]", re.IGNORECASE)


def looks_secret(part: str) -> bool:
    """A part of a target's URL that may be a credential: long, or an 8-character word with a digit
    (Slack's T1234ABCD, a webhook's id), a known token's prefix, or masked already (Apprise's
    privacy form T...D, ****)."""
    return (len(part) >= 20 or (len(part) >= 8 and any(c.isdigit() for c in part))
            or _TOKEN_PREFIX.match(part) is not None or "..." in part or "*" in part)


def redact_target(url: str) -> str:
    """A notification URL as it may be stored and shown: scheme://host[:port]/path with user:password@,
    the query and the fragment dropped and every host or path segment that `looks_secret` masked:
    json://host/hooks/REDACTED, slack://REDACTED/REDACTED/REDACTED."""
    scheme, rest = url.split("://", 1)
    if not _SCHEME.fullmatch(scheme) or looks_secret(scheme):
        return f"{MASK}://"
    netloc, _, path = re.split(r"[?#]", rest, maxsplit=1)[0].partition("/")
    host, port = _host_and_port(netloc)
    shown = host if _HOSTNAME.fullmatch(host) and ("." in host or not looks_secret(host)) else MASK
    if port.isdigit() and shown != MASK:  # a port that is no number may be a token (Telegram's bot:token)
        shown += f":{port}"
    segments = [MASK if looks_secret(unquote(segment)) else segment for segment in path.split("/")]
    return f"{scheme}://{shown}" + ("/" + "/".join(segments) if path else "")


def _host_and_port(netloc: str) -> tuple[str, str]:
    """user:password@host:port -> (host, port); [IPv6] kept in its brackets."""
    address = netloc.rsplit("@", 1)[-1]
    if address.startswith("["):
        host, _, port = address.partition("]")
        return host + "]", port.removeprefix(":")
    host, _, port = address.partition(":")
    return host, port


def carries_secret(url: str) -> bool:
    """The URL holds what `redact` takes out: user:password@ or a secret-looking query parameter."""
    parts = urlsplit(url)
    return bool(parts.username or parts.password) or any(
        _SECRET_PARAMETER.search(k) for k, _ in parse_qsl(parts.query, keep_blank_values=True))


def redirect_allowed(origin: str, target: str, extra_hosts: tuple[str, ...]) -> str | None:
    """None when a redirect from `origin` to `target` may be followed, else why not."""
    scheme = urlsplit(target).scheme.lower()
    if scheme not in ("http", "https"):
        return f"not an HTTP URL ({scheme or 'no scheme'}://)"
    host, origin_host = (urlsplit(target).hostname or "").lower(), (urlsplit(origin).hostname or "").lower()
    if host != origin_host and host not in extra_hosts:
        return (f"another host ({host}); allow it with MLPERF_REDIRECT_HOSTS={host} "
                "if you trust it")
    return None


def local_path(location: str) -> Path:
    """A local directory or file, written plainly or as a file:// URL."""
    if location.startswith("file://"):
        parts = urlsplit(location)
        if parts.netloc not in ("", "localhost"):
            raise SourceMissing(f"{location}: a file:// URL must name a local path (file:///dir)")
        return Path(unquote(parts.path))
    return Path(location)


_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def check_source(source: str) -> str:
    """A local source (a directory or file:// URL) must exist: a mistyped one is an error, never
    'every round not published'. Any other scheme than http(s) or file is refused."""
    if source.startswith(("http://", "https://")):
        if (problem := url_problem(source)) is not None:
            raise UsageError(f"--source {source}: {problem}")
        return source
    if _URL_SCHEME.match(source) and not source.startswith("file://"):
        raise SourceMissing(f"{source}: unsupported source scheme (use http(s)://, file:// or a directory)")
    path = local_path(source)
    if not path.is_dir():
        raise SourceMissing(f"{source}: {_not_a_directory(path)} (the source must be a base URL or a "
                            "directory laid out as inference_results_vX.Y/<branch>/<file>)")
    return str(path.resolve())  # remembered by the warehouse (sources.url): valid from any directory


def _not_a_directory(path: Path) -> str:
    """What a local source that is not a directory is instead, in a few words."""
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link that loops (it leads back to itself)"
        if path.is_symlink():
            return f"a symbolic link to {os.readlink(path)}, which does not exist"
        if exc.errno == errno.ENOENT:
            return "no such directory"
        return f"cannot be read ({exc.strerror or exc})"
    return "a file, not a directory"
