"""The files the installed package carries (SQL models, reference tables, templates), found through
importlib.resources, so the tool works the same from the checkout, an editable install or a wheel."""
from __future__ import annotations

import hashlib
import json
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


# Facts derived from shipped files, recorded beside them with the checksum of what they were derived
# from (sql/_reads.json, reference/_validated.json): a run takes the fact for a file whose bytes
# match and derives it afresh otherwise; a test keeps each record current.

def checksum(data: str | bytes) -> str:
    return hashlib.sha256(data.encode("utf-8") if isinstance(data, str) else data).hexdigest()


def read_record(path: Path) -> dict:
    """A record the package ships (JSON); empty when it is absent."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}


def write_record(path: Path, record: dict) -> Path:
    path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return path
