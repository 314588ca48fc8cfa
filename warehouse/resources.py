"""The files the installed package carries (SQL models, reference tables, templates), found through
importlib.resources, so the tool works the same from the checkout, an editable install or a wheel."""
from __future__ import annotations

from importlib import resources
from pathlib import Path


def package_dir(package: str, *parts: str) -> Path:
    """A directory shipped inside `package`, as a Path. Wheels install unpacked, so the resource is a
    real directory; a zipped install (which pip never makes) is refused with one line."""
    found = resources.files(package).joinpath(*parts)
    if not isinstance(found, Path) or not found.is_dir():
        raise RuntimeError(f"{package}: {'/'.join(parts) or 'package'} is not a directory on disk "
                           f"({found}); install the wheel unpacked (pip install)")
    return found
