"""Every link between the project's documents leads somewhere: a file that exists, and a heading of it
when the link names one (#anchor, as GitHub makes them from headings)."""
from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.unit

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def anchors(path) -> set[str]:
    """GitHub's anchors of a markdown file's headings: lower case, punctuation dropped, spaces -> '-'."""
    found = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return found


def broken_links() -> list[str]:
    broken = []
    for document in DOCUMENTS:
        for target in LINK.findall(document.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+://|^mailto:", target):
                continue
            file, _, anchor = target.partition("#")
            path = (document.parent / file).resolve() if file else document
            if not path.exists():
                broken.append(f"{document.relative_to(ROOT)}: {target} (no such file)")
            elif anchor and path.suffix == ".md" and anchor not in anchors(path):
                broken.append(f"{document.relative_to(ROOT)}: {target} (no such heading)")
    return broken


def test_every_link_between_documents_resolves():
    assert broken_links() == []


def test_a_sentence_never_points_at_a_readme_section_by_name():
    # "see README, *Connecting a BI tool*" pointed at a section the README does not have: link instead.
    said = [f"{d.relative_to(ROOT)}" for d in DOCUMENTS if re.search(r"see README, \*", d.read_text(encoding="utf-8"))]
    assert said == []
