"""The Vega runtime the report inlines (vega, vega-lite and vega-embed with vega-tooltip, one script),
bundled offline by vl-convert: about 2 s, once per machine (report_interactive keeps it in the user's
cache directory).

vl-convert holds Python's lock while it bundles, so a thread cannot overlap the bundling with the
report's queries and charts; a process of its own can, on another core. `Bundling` starts it,
`python -m warehouse.export.vega_bundle OUT VEGA_LITE_VERSION`, which imports vl-convert alone and
writes the script to OUT (whole, or not at all).
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
    """The runtime bundled by a process of its own into a private temporary directory, started now;
    `result()` waits for it and returns the script, or None when the process failed (the caller
    bundles in its own process then, and says why if that fails too). `close()` stops it."""

    def __init__(self, vl_version: str) -> None:
        self._directory = Path(tempfile.mkdtemp(prefix="mlperf-vega-"))
        self._out = self._directory / "vega.js"
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__, str(self._out), vl_version],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def result(self) -> str | None:
        try:
            if self._process.wait() != 0:
                return None
            return self._out.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        finally:
            self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.kill()
            self._process.wait()
        shutil.rmtree(self._directory, ignore_errors=True)


if __name__ == "__main__":
    out, version = Path(sys.argv[1]), sys.argv[2]
    write_whole(out, bundle(version))
