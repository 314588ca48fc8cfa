"""A benchmark's accuracy-target twins (llama2-70b-99 and llama2-70b-99.9: one model held to two
accuracy targets): one rule for when two lines are one and how that line is written, read by the run's
message (notify.message) and the report's answer (export.report_answer). Pure."""
from __future__ import annotations

import re

TWIN = re.compile(r"^(?P<family>\S+?)-(?P<target>9\d(?:\.9)?)(?P<rest>(?: .*)?)$")


def twin_key(subject: str) -> tuple[str, str] | None:
    """(family, the rest of the line) of a subject that names an accuracy target first
    ('llama2-70b-99.9 Offline' -> ('llama2-70b', ' Offline')); None for any other."""
    found = TWIN.match(subject)
    return (found["family"], found["rest"]) if found else None


def merged_subject(subjects: list[str]) -> str:
    """Twins' subjects as one, the lower target first: 'llama2-70b-99 / -99.9 Offline'."""
    found = [TWIN.match(s) for s in subjects]
    targets = sorted((f["target"] for f in found), key=float)
    return f"{found[0]['family']}-{targets[0]}" + "".join(f" / -{t}" for t in targets[1:]) + found[0]["rest"]
