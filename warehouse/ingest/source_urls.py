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
    """The URL without user:password@ and without the values of secret-looking query parameters."""
    if "://" not in url:
        return url
    parts = urlsplit(url)
    netloc = parts.hostname or ""
    if ":" in netloc:  # an IPv6 address keeps its brackets
        netloc = f"[{netloc}]"
    if parts.port:
        netloc = f"{netloc}:{parts.port}"
    query = urlencode([(k, "REDACTED" if _SECRET_PARAMETER.search(k) else v)
                       for k, v in parse_qsl(parts.query, keep_blank_values=True)], safe="/")
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


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
