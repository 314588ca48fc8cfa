"""The docs by reader: a short README that links every guide."""
import re
from pathlib import Path

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[1]
GUIDES = ["analyst-guide.md", "bi-guide.md", "operations-guide.md", "ingest-reference.md", "developer-guide.md"]


def text(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def headings(name: str) -> set[str]:
    return {line.lstrip("#").strip() for line in text(name).splitlines() if line.startswith("#")}


def test_the_readme_fits_two_screens():
    lines = len(text("README.md").splitlines())
    assert lines < 200, f"README.md has {lines} lines: move detail into a guide in docs/"


@pytest.mark.parametrize("guide", GUIDES)
def test_the_readme_and_the_docs_index_link_every_guide(guide):
    assert f"(docs/{guide})" in text("README.md")
    assert f"({guide})" in text("docs/README.md")


def test_every_relative_link_of_the_docs_reaches_a_file():
    broken = []
    for doc in ["README.md", "docs/README.md", *(f"docs/{g}" for g in GUIDES)]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text(doc)):
            if "://" not in target and not ((ROOT / doc).parent / target).exists():
                broken.append(f"{doc}: {target}")
    assert broken == []

