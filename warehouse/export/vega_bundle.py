"""The Vega runtime the report inlines (vega, vega-lite and vega-embed with vega-tooltip, one script),
bundled offline by vl-convert: about 2 s, once per machine (report_interactive keeps it in the user's
cache directory).

vl-convert holds Python's lock while it bundles, so a thread cannot overlap the bundling with the
report's queries and charts; a process of its own can, on another core. `Bundling` starts it,
`python -m warehouse.export.vega_bundle DIRECTORY [VEGA_LITE_VERSION]`, which writes the script to
DIRECTORY/vega-<version>.js (whole, or not at all). `mlperf-wh report` starts it before it imports
the report's libraries (`start_early`, about 0.7 s sooner), when the cache holds no runtime of this
vl-convert; the report takes it over (`take_early`).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def bundle(vl_version: str) -> str:
    import vl_convert as vlc
    return vlc.javascript_bundle(vl_version=vl_version)


def vega_lite_version() -> str:
    """The Vega-Lite version Altair writes specs for (e.g. '6.4'), so the browser compiles what vl-convert renders."""
    import altair as alt
    return alt.SCHEMA_VERSION.lstrip("v").rsplit(".", 1)[0]


def cache_dir() -> Path:
    """$XDG_CACHE_HOME/mlperf-warehouse, else ~/.cache/mlperf-warehouse."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "mlperf-warehouse"


def cache_name(vl_convert_version: str, vl_version: str) -> str:
    """The same script for the same vl-convert and Vega-Lite: kept under both versions."""
    return f"vega-bundle-vlconvert{vl_convert_version}-vl{vl_version}.js"


def write_whole(path: Path, text: str) -> None:
    """`text` into `path` through a temporary file renamed into place: a reader finds the whole script
    or none. Raises OSError when it cannot be written."""
    partial = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=path.parent, delete=False,
                                         prefix=f".{path.name}.") as partial:
            partial.write(text)
        os.replace(partial.name, path)
    except OSError:
        if partial is not None:
            Path(partial.name).unlink(missing_ok=True)
        raise


class Bundling:
    """The runtime bundled by a process of its own into a private temporary directory, started now
    (`vl_version` None: the process asks Altair which); `result(vl_version)` waits for it and returns
    the script bundled for that version, or None when the process failed or bundled another (the
    caller bundles in its own process then, and says why if that fails too). `close()` stops it."""

    def __init__(self, vl_version: str | None) -> None:
        self._directory = Path(tempfile.mkdtemp(prefix="mlperf-vega-"))
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(self._directory), *([vl_version] if vl_version else [])],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def result(self, vl_version: str) -> str | None:
        try:
            if self._process.wait() != 0:
                return None
            return (self._directory / f"vega-{vl_version}.js").read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        finally:
            self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._directory, ignore_errors=True)


_early: list[Bundling] = []


def start_early() -> None:
    """Start bundling now when the cache holds no runtime of this vl-convert (a first report on this
    machine, or a new vl-convert). Never fails: without vl-convert the report says what to install."""
    try:
        import vl_convert as vlc
        directory = cache_dir()
        if not _early and not any(directory.glob(cache_name(vlc.__version__, "*"))):
            _early.append(Bundling(None))
    except (ImportError, OSError):
        return


def take_early() -> Bundling | None:
    """The process start_early started, now the caller's to wait for or close; None if there is none."""
    return _early.pop() if _early else None


def close_early() -> None:
    """Stop the process start_early started if nothing took it (the command failed before its page)."""
    while _early:
        _early.pop().close()


if __name__ == "__main__":
    parent, directory = os.getppid(), Path(sys.argv[1])
    version = sys.argv[2] if len(sys.argv) > 2 else vega_lite_version()
    script = bundle(version)
    if os.getppid() != parent:  # the command that started it is gone: nobody will read or remove it
        shutil.rmtree(directory, ignore_errors=True)
        sys.exit(1)
    write_whole(directory / f"vega-{version}.js", script)
